#!/bin/sh
# cuttle as the child of a real Squid 5.7 parent (cache_peer ... parent
# no-query default): a miss goes to the parent in absolute-form, access.log
# says FIRSTUP_PARENT/<the parent's address>, the parent's own log shows the
# request, the reply body arrives whole, and the second request reuses the
# persistent connection to the parent. login=user:pass reaches the parent as
# Proxy-Authorization (base64 of alice:secret in its log). The body from
# the parent is not copied in user space (the mem page's body_copies).
# With workers (CUTTLE_TEST_WORKERS) the idle parent connections are each
# worker's: both requests, then the mem page, go from one curl run on one
# client connection (one worker, whose own figures are fresh on that page).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
squid_start sq "cache deny all" "strip_query_terms off" "logformat withuser %ts %>a:%>p %rm %ru [%{Proxy-Authorization}>h] %Ss/%>Hs" \
    "access_log stdio:$T/sq/users.log withuser"
SQPORT=$PEER_PORT
fwd_conf "cache_peer 127.0.0.1 parent $SQPORT 0 no-query default name=sq login=alice:secret" \
    "never_direct allow all" "cache deny all" "strip_query_terms off" "http_access allow localhost" "http_access deny all"
cuttle_start

URL="http://127.0.0.1:$OPORT/ok?s=3000000"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    code=$(proxy_get "$URL")
else
    w='%{http_code} %{num_connects}\n'
    curl -s --max-time 10 -w "$w" -x "127.0.0.1:$PORT" -o "$T/body" "$URL" \
        --next -w "$w" -x "127.0.0.1:$PORT" -o "$T/body2" "http://127.0.0.1:$OPORT/ok?s=10" \
        --next -w "$w" -x "127.0.0.1:$PORT" -o "$T/mem" --request-target /squid-internal-mgr/mem \
        "http://127.0.0.1:$PORT/" > "$T/run.w"
    [ "$(cut -d ' ' -f 2 "$T/run.w" | tr -d '\n')" = 100 ] ||
        fail "curl opened client connections $(cut -d ' ' -f 2 "$T/run.w" | tr '\n' ' ')for three requests, not one"
    code=$(sed -n '1s/ .*//p' "$T/run.w")
fi
[ "$code" = 200 ] || fail "through the parent: got $code"
[ "$(stat -c %s "$T/body")" = 3000000 ] || fail "body of $(stat -c %s "$T/body") bytes, not 3000000"
wait_until 5 access_log_has " GET http://127\.0\.0\.1:$OPORT/ok\?s=3000000 - FIRSTUP_PARENT/127\.0\.0\.1 " ||
    fail "no FIRSTUP_PARENT/127.0.0.1 line: $(cat "$T/access.log")"
wait_until 10 peer_log_has sq/users.log "GET http://127\.0\.0\.1:$OPORT/ok\?s=3000000 \[Basic YWxpY2U6c2VjcmV0\] TCP_MISS/200" ||
    fail "the parent did not log alice's absolute-form request: $(cat "$T/sq/users.log" 2>/dev/null)"
pass "a miss goes through Squid 5.7 with login=alice:secret, logged FIRSTUP_PARENT"

if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    code=$(proxy_get "http://127.0.0.1:$OPORT/ok?s=10")
else
    code=$(sed -n '2s/ .*//p' "$T/run.w")
fi
[ "$code" = 200 ] || fail "second request: got $code"
wait_until 10 peer_log_has sq/users.log "ok\?s=10 \[Basic YWxpY2U6c2VjcmV0\]" || fail "the parent did not see the second request"
# the parent's log shows cuttle's address and port: one connection carried both
ports=$(awk '{print $2}' "$T/sq/users.log" | sort -u | wc -l)
[ "$ports" = 1 ] || fail "the requests came from $ports connections: $(cat "$T/sq/users.log")"
pass "the second request reused the connection to the parent"

if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    curl -s --max-time 5 "http://127.0.0.1:$PORT/squid-internal-mgr/mem" > "$T/mem"
else
    [ "$(sed -n '3s/ .*//p' "$T/run.w")" = 200 ] || fail "the mem page: $(sed -n 3p "$T/run.w")"
fi
copies=$(tr -d '\r' < "$T/mem" | awk -F': *' '$1 == "body_copies" {print $2}')
[ "$copies" = 0 ] || fail "body bytes from the parent were copied: body_copies '$copies'"
pass "the body from the parent took the zero-copy path (body_copies 0)"
cuttle_stop
