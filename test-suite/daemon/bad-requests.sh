#!/bin/sh
# Malformed requests get Squid's answers and close the connection:
# garbage -> 400 ERR_PROTOCOL_UNKNOWN (NONE_NONE/400 "garbage error:invalid-request"),
# origin-form -> 400 ERR_INVALID_URL, a bad field -> 400 ERR_INVALID_REQ,
# a head over request_header_max_size -> 431 ERR_TOO_BIG, HTTP/2.0 -> 505.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "request_header_max_size 2 KB"
cuttle_start

reply=$(raw_send 'garbage\r\n\r\n')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 400 Bad Request' || fail "garbage: $(echo "$reply" | head -n 1)"
echo "$reply" | grep -q 'Connection: close' || fail "garbage: connection not closed"
wait_until 5 access_log_has ' NONE_NONE/400 [0-9]+ garbage error:invalid-request - HIER_NONE/- text/html$' ||
    fail "garbage: no NONE_NONE/400 line"
pass "garbage"

reply=$(raw_send 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 400' || fail "origin-form: $(echo "$reply" | head -n 1)"
echo "$reply" | grep -q 'ERR_INVALID_URL' || fail "origin-form: not ERR_INVALID_URL"
pass "origin-form"

reply=$(raw_send 'GET ftp://127.0.0.1:9/ HTTP/1.1\r\nHostx\r\n\r\n')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 400' || fail "no colon: $(echo "$reply" | head -n 1)"
echo "$reply" | grep -q 'ERR_INVALID_REQ' || fail "no colon: not ERR_INVALID_REQ"
pass "field without colon"

reply=$(raw_send 'GET ftp://127.0.0.1:9/ HTTP/1.1\r\nX: a\r\n folded\r\n\r\n')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 400' || fail "obs-fold: $(echo "$reply" | head -n 1)"
pass "obs-fold rejected"

big=$(python3 -c 'print("a" * 3000)')
reply=$(raw_send "GET ftp://127.0.0.1:9/ HTTP/1.1\\r\\nX: $big\\r\\n\\r\\n")
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 431' || fail "too large: $(echo "$reply" | head -n 1)"
echo "$reply" | grep -q 'ERR_TOO_BIG' || fail "too large: not ERR_TOO_BIG"
wait_until 5 access_log_has ' NONE_NONE/431 [0-9]+ GET error:request-too-large ' || fail "too large: no log line"
pass "431"

# RFC 9112 section 6.3: Content-Length with Transfer-Encoding is refused and
# the connection closed (raw_send returns at the close, not at its timeout)
start=$(date +%s)
reply=$(raw_send 'POST ftp://127.0.0.1:9/cl-te HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 400' || fail "CL+TE: $(echo "$reply" | head -n 1)"
echo "$reply" | grep -q 'ERR_INVALID_REQ' || fail "CL+TE: not ERR_INVALID_REQ"
[ $(( $(date +%s) - start )) -lt "$(scaled 4)" ] || fail "CL+TE: the connection was not closed"
wait_until 5 access_log_has ' NONE_NONE/400 [0-9]+ POST ftp://127.0.0.1:9/cl-te ' || fail "CL+TE: no log line"
pass "Content-Length with Transfer-Encoding refused"

reply=$(raw_send 'GET ftp://127.0.0.1:9/ HTTP/2.0\r\n\r\n')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 505' || fail "HTTP/2.0: $(echo "$reply" | head -n 1)"
pass "505"

# the daemon is still serving
code=$(proxy_get ftp://127.0.0.1:9/after)
[ "$code" = 501 ] || fail "after bad requests: expected 501, got $code"
cuttle_stop
