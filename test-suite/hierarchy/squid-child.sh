#!/bin/sh
# cuttle as the parent of a real Squid 5.7 child, and login=PASS both ways:
# cuttle asks for proxy credentials (auth_param basic); Squid 5.7 with
# `cache_peer ... parent ... login=PASS` passes the client's on, cuttle
# checks them (its access.log names the user) and the reply comes back
# through Squid, which logs FIRSTUP_PARENT/127.0.0.1; without credentials
# cuttle's 407 comes back. A cuttle child with the same cache_peer line does
# the same.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
[ -x "$NCSA" ] || { echo "no $NCSA"; exit 77; }
cuttle_setup
origin_start
passwd_file "$T/passwd" alice:secret
fwd_conf "auth_param basic program $NCSA $T/passwd" "acl users proxy_auth REQUIRED" \
    "strip_query_terms off" "http_access deny !users" "http_access allow localhost" "http_access deny all"
cuttle_start
PARENT="cache_peer 127.0.0.1 parent $PORT 0 no-query default login=PASS"
squid_start sq "$PARENT" "never_direct allow all" "cache deny all" "strip_query_terms off"
SQ=$PEER_PORT
peer_start c2 "$PARENT" "never_direct allow all" "cache deny all" "strip_query_terms off"
C2=$PEER_PORT

for child in sq c2; do
    port=$SQ
    [ $child = c2 ] && port=$C2
    url="http://127.0.0.1:$OPORT/ok?child=$child"
    code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 -x "127.0.0.1:$port" -U alice:secret "$url")
    [ "$code" = 200 ] || fail "$child with alice's credentials: got $code"
    wait_until 10 access_log_has " TCP_MISS/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/ok\?child=$child alice HIER_DIRECT/127\.0\.0\.1 " ||
        fail "cuttle did not log alice's request from $child: $(log_line "child=$child")"
    wait_until 10 peer_log_has "$child/access.log" " GET http://127\.0\.0\.1:$OPORT/ok\?child=$child - FIRSTUP_PARENT/127\.0\.0\.1 " ||
        fail "$child did not log FIRSTUP_PARENT/127.0.0.1: $(cat "$T/$child/access.log")"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -x "127.0.0.1:$port" "$url&anonymous=1")
    [ "$code" = 407 ] || fail "$child without credentials: got $code"
    pass "$child as a child of cuttle: login=PASS carries alice's credentials, 407 without them"
done
cuttle_stop
