#!/bin/sh
# http_access: a denied port or client gets 403 ERR_ACCESS_DENIED, logged TCP_DENIED/403.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "acl p81 port 81" "acl me src 127.0.0.1/32" \
    "http_access deny p81" "http_access allow me" "http_access deny all"
cuttle_start

code=$(proxy_get http://127.0.0.1:81/x)
[ "$code" = 403 ] || fail "denied port: expected 403, got $code"
grep -q 'ERR_ACCESS_DENIED' "$T/body" || fail "the body is not the ERR_ACCESS_DENIED page"
wait_until 5 access_log_has ' 127\.0\.0\.1 TCP_DENIED/403 [0-9]+ GET http://127\.0\.0\.1:81/x - HIER_NONE/- text/html$' ||
    fail "no TCP_DENIED/403 line"
pass "denied port"

# a client address that no allow rule matches (loopback alias 127.0.0.2)
code=$(proxy_get ftp://127.0.0.1:9/y --interface 127.0.0.2)
[ "$code" = 403 ] || fail "denied client: expected 403, got $code"
wait_until 5 access_log_has ' 127\.0\.0\.2 TCP_DENIED/403 ' || fail "no TCP_DENIED/403 line for 127.0.0.2"
pass "denied client"

# the allowed client and port still get the 501
code=$(proxy_get ftp://127.0.0.1:9/z)
[ "$code" = 501 ] || fail "allowed: expected 501, got $code"
pass "allowed request"
cuttle_stop
