#!/bin/sh
# Forwarding loops, as Squid 5.7 detects them: a request whose Via holds
# " NAME (SOFTWARE)" for this cuttle's unique_hostname (visible_hostname
# without it), case-sensitive, in any element, is a loop; a miss is answered
# 403 ERR_ACCESS_DENIED, logged TCP_MISS/403 HIER_NONE/-, with a WARNING in
# cache.log. Two cuttles that are each other's parent share a
# visible_hostname and tell themselves apart by unique_hostname: the request
# goes A -> B -> A, and A stops it. A CONNECT and a hit are not checked.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start

# two cuttles, each the other's only parent
PA=$(closed_port)
PB=$(closed_port)
PEER_LISTEN=$PB peer_start b "visible_hostname shared.test" "unique_hostname b.test" \
    "cache_peer 127.0.0.1 parent $PA 0 no-query name=a" "never_direct allow all"
PEER_LISTEN=$PA peer_start a "visible_hostname shared.test" "unique_hostname a.test" \
    "cache_peer 127.0.0.1 parent $PB 0 no-query name=b" "never_direct allow all"
code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 -x "127.0.0.1:$PA" "http://127.0.0.1:$OPORT/loop")
[ "$code" = 403 ] || fail "A -> B -> A: got $code"
error_page_is "$T/body" ERR_ACCESS_DENIED || fail "not ERR_ACCESS_DENIED: $(head -c 300 "$T/body")"
wait_until 5 peer_log_has a/access.log " TCP_MISS/403 [0-9]+ GET http://127\.0\.0\.1:$OPORT/loop - HIER_NONE/- " ||
    fail "A did not log the loop TCP_MISS/403 HIER_NONE/-: $(cat "$T/a/access.log")"
wait_until 5 peer_log_has b/access.log " TCP_MISS/403 [0-9]+ GET http://127\.0\.0\.1:$OPORT/loop - FIRSTUP_PARENT/" ||
    fail "B did not relay A's 403: $(cat "$T/b/access.log")"
grep -q "WARNING: Forwarding loop detected for:" "$T/a/cache.log" || fail "no WARNING in A's cache.log"
! grep -q "Forwarding loop" "$T/b/cache.log" || fail "B, with its own unique_hostname, saw a loop"
[ "$(grep -c . "$T/a/access.log")" = 2 ] || fail "A logged other than 2 lines: $(cat "$T/a/access.log")"
pass "A -> B -> A stops at A: 403 ERR_ACCESS_DENIED, TCP_MISS/403 HIER_NONE/-, a WARNING"

# one cuttle and an origin: which Via names it
fwd_conf "visible_hostname me.test" "strip_query_terms off" "http_access allow localhost" "http_access deny all"
cuttle_start
via=$(curl -s -D - -o /dev/null --max-time 10 -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/ok?s=5" |
    tr -d '\r' | sed -n 's/^Via: 1\.1 //p')
case "$via" in "me.test ("*")") ;; *) fail "cuttle's Via is '$via'" ;; esac
soft=${via#me.test }
for v in "1.1 me.test $soft" "1.0 a, 1.1 me.test $soft junk , 1.0 b" "HTTP/1.1 me.test $soft"; do
    code=$(proxy_get "http://127.0.0.1:$OPORT/ok?v=$(printf %s "$v" | md5sum | cut -c1-8)" -H "Via: $v")
    [ "$code" = 403 ] || fail "Via: $v: got $code"
done
code=$(proxy_get "http://127.0.0.1:$OPORT/ok?v=two" -H "Via: 1.0 a" -H "Via: 1.1 me.test $soft")
[ "$code" = 403 ] || fail "in a second Via field: got $code"
for v in "1.1 ME.test $soft" "1.1 xme.test $soft" "1.1 me.test (other/1)" "1.1 me.test"; do
    code=$(proxy_get "http://127.0.0.1:$OPORT/ok?w=$(printf %s "$v" | md5sum | cut -c1-8)" -H "Via: $v")
    [ "$code" = 200 ] || fail "Via: $v is no loop: got $code"
done
pass "a loop is an element of Via holding ' me.test $soft', case-sensitive"

# a hit is served, as Squid 5.7 serves it (only a miss is checked)
[ "$(proxy_get "http://127.0.0.1:$OPORT/ok?s=7&cc=max-age=60")" = 200 ] || fail "filling the cache"
wait_until 5 access_log_has "TCP_MISS/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/ok\?s=7&cc=max-age=60 " || fail "no miss logged"
code=$(proxy_get "http://127.0.0.1:$OPORT/ok?s=7&cc=max-age=60" -H "Via: 1.1 me.test $soft")
[ "$code" = 200 ] || fail "a hit with a looping Via: got $code"
wait_until 5 access_log_has "TCP_(MEM_)?HIT/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/ok\?s=7&cc=max-age=60 " || fail "not a hit"
pass "a hit with a looping Via is served"
cuttle_stop
