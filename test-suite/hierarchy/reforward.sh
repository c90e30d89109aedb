#!/bin/sh
# Reforwarding as Squid 5.7's FwdState::reforward(): a parent's 502 or 504
# is not passed on while another destination may be tried (the next parent
# gets the request); a 403, 500, 501 or 503 only with retry_on_error on.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
OURL=http://127.0.0.1:$OPORT
DEAD=$(closed_port)
# "gateway": a parent whose own parent is gone answers 502 ERR_READ_ERROR
peer_start gateway "cache_peer 127.0.0.1 parent $DEAD 0 no-query name=gone" "never_direct allow all"
GATEWAY=$PEER_PORT
# "denier": a parent that answers 403 to everything
peer_start denier "http_access deny all"
DENIER=$PEER_PORT
peer_start good "cache deny all"
GOOD=$PEER_PORT

fwd_conf "cache_peer 127.0.0.1 parent $GATEWAY 0 no-query name=gateway" \
    "cache_peer 127.0.0.1 parent $GOOD 0 no-query name=good" \
    "never_direct allow all" "cache deny all" "http_access allow localhost" "http_access deny all"
cuttle_start
[ "$(proxy_get "$OURL/r/502")" = 200 ] || fail "a parent's 502 reached the client: $(head -c 300 "$T/body")"
wait_until 5 peer_log_has gateway/access.log "/r/502 " || fail "the first parent was not asked"
wait_until 5 peer_log_has good/access.log "/r/502 " || fail "the second parent was not asked"
wait_until 5 access_log_has "TCP_MISS/200 [0-9]+ GET $OURL/r/502 - [A-Z_]+_PARENT/127\.0\.0\.1 " ||
    fail "not logged as a parent's 200: $(cat "$T/access.log")"
pass "a parent's 502 goes on to the next parent"
cuttle_stop

# forward_max_tries 1: nothing else may be tried, the 502 is the answer
fwd_conf "cache_peer 127.0.0.1 parent $GATEWAY 0 no-query name=gateway" \
    "cache_peer 127.0.0.1 parent $GOOD 0 no-query name=good" "forward_max_tries 1" \
    "never_direct allow all" "cache deny all" "http_access allow localhost" "http_access deny all"
cuttle_start
[ "$(proxy_get "$OURL/r/last")" = 502 ] || fail "with forward_max_tries 1 the 502 was not passed on"
pass "with no destination left, the 502 is passed on"
cuttle_stop

DENY_CONF="cache_peer 127.0.0.1 parent $DENIER 0 no-query name=denier"
fwd_conf "$DENY_CONF" "cache_peer 127.0.0.1 parent $GOOD 0 no-query name=good" \
    "never_direct allow all" "cache deny all" "http_access allow localhost" "http_access deny all"
cuttle_start
[ "$(proxy_get "$OURL/r/403")" = 403 ] || fail "retry_on_error off: the 403 was not passed on"
pass "retry_on_error off: a parent's 403 is the answer"
cuttle_stop

fwd_conf "$DENY_CONF" "cache_peer 127.0.0.1 parent $GOOD 0 no-query name=good" "retry_on_error on" \
    "never_direct allow all" "cache deny all" "http_access allow localhost" "http_access deny all"
cuttle_start
[ "$(proxy_get "$OURL/r/403on")" = 200 ] || fail "retry_on_error on: got $(head -c 300 "$T/body")"
wait_until 5 peer_log_has good/access.log "/r/403on " || fail "the second parent was not asked"
pass "retry_on_error on: a parent's 403 goes on to the next parent"
cuttle_stop
