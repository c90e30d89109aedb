#!/bin/sh
# An allowed request is answered 501 (forwarding is not implemented yet) with
# Squid's ERR_UNSUP_REQ page and logged in Squid's native access.log format.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "http_access deny all"
cuttle_start

code=$(proxy_get ftp://127.0.0.1:9/some/path -D "$T/headers")
[ "$code" = 501 ] || fail "expected 501, got $code"
grep -q 'ERR_UNSUP_REQ' "$T/body" || fail "the body is not the ERR_UNSUP_REQ page"
grep -qi '^X-Squid-Error: ERR_UNSUP_REQ 0' "$T/headers" || fail "no X-Squid-Error header"
grep -qi '^Content-Type: text/html' "$T/headers" || fail "no Content-Type"
pass "501 with ERR_UNSUP_REQ"

line='^[0-9]+\.[0-9]{3} +[0-9]+ 127\.0\.0\.1 NONE_NONE/501 [0-9]+ GET ftp://127\.0\.0\.1:9/some/path - HIER_NONE/- text/html$'
wait_until 5 access_log_has "$line" || fail "no Squid-format access.log line for the 501"
pass "access.log line in Squid's format"

# HEAD gets the headers only
code=$(curl -s -o "$T/headbody" -w '%{http_code}' --max-time 10 -I -x "127.0.0.1:$PORT" ftp://127.0.0.1:9/h)
[ "$code" = 501 ] || fail "HEAD: expected 501, got $code"
pass "HEAD answered"

cuttle_stop
