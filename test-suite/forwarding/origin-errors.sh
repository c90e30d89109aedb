#!/bin/sh
# Origin failures become Squid's error pages and access.log lines:
# refused 503 ERR_CONNECT_FAIL, NXDOMAIN 503 ERR_DNS_FAIL, silent past
# read_timeout 504 ERR_READ_TIMEOUT, reset before the head 502 ERR_READ_ERROR,
# garbage and a bad header 502 ERR_INVALID_RESP, no reply 502
# ERR_ZERO_SIZE_OBJECT, a head over reply_header_max_size 502 ERR_TOO_BIG,
# gopher:// 501 ERR_UNSUP_REQ; an extension method is forwarded; a reset or a
# stall mid-body ends the client's transfer early and is logged. Afterwards
# cuttle still serves and stops cleanly.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
rawserver_start reset
dns_start good.test=127.0.0.1
fwd_conf "http_access allow localhost" "http_access deny all" \
    "read_timeout 1 second" "reply_header_max_size 16 KB"
cuttle_start
CLOSED=$(closed_port)

# expect_error URL STATUS ERR_NAME HIERARCHY [PAGE TEXT [ERRNO]]: the status,
# cuttle's page ERR_NAME (and X-Squid-Error: ERR_NAME ERRNO, 0 by default),
# and a TCP_MISS/STATUS access.log line
expect_error() {
    url=$1 status=$2 name=$3 hier=$4 text=${5:-} xerrno=${6:-0}
    before=$BAD
    rm -f "$T/body" "$T/head"
    code=$(curl -s -D "$T/head" -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
        -w '%{http_code}' "$url")
    if [ "$code" != "$status" ]; then
        bad "$url: expected $status $name, got $code"
        return
    fi
    error_page_is "$T/body" "$name" || { bad "$url: the body is not the $name page"; return; }
    grep -q "^X-Squid-Error: $name $xerrno"$(printf '\r')"\$" "$T/head" ||
        bad "$url: expected X-Squid-Error: $name $xerrno, got '$(grep -i '^X-Squid-Error' "$T/head" | tr -d '\r')'"
    if [ -n "$text" ] && ! grep -q "$text" "$T/body"; then
        bad "$url: the $name page does not say '$text' ($(grep -o 'sysmsg.*' "$T/body"))"
    fi
    # access.log strips the query terms (strip_query_terms on, as in Squid)
    escaped=$(printf '%s' "$url" | sed -e 's/?.*/?/' -e 's/[.?*+^$()|[\\]/\\&/g')
    if ! wait_until 5 access_log_has " GET $escaped "; then
        bad "$url: not logged"
        return
    fi
    line=$(log_line " GET $escaped ")
    check_native_line "$line"
    echo "$line" | grep -Eq " TCP_MISS/$status [0-9]+ GET $escaped - $hier text/html\$" ||
        bad "$url: expected TCP_MISS/$status ... $hier text/html, logged '$line'"
    [ "$BAD" != "$before" ] || pass "$name ($status) for $url"
}

# as Squid 5.7: "(111) Connection refused" on the page, errno 111 in X-Squid-Error
expect_error "http://127.0.0.1:$CLOSED/refused" 503 ERR_CONNECT_FAIL 'HIER_DIRECT/127\.0\.0\.1' \
    '(111) Connection refused' 111
expect_error "http://no-such-name.test:$OPORT/nx" 503 ERR_DNS_FAIL 'HIER_NONE/-'
start=$(date +%s)
expect_error "http://127.0.0.1:$OPORT/timeout?t=5s" 504 ERR_READ_TIMEOUT 'HIER_DIRECT/127\.0\.0\.1'
[ $(( $(date +%s) - start )) -lt "$(scaled 4)" ] || bad "read_timeout 1 second took $(( $(date +%s) - start )) s"
# as Squid 5.7: "(104) Connection reset by peer", errno 104
expect_error "http://127.0.0.1:$RAWPORT/reset" 502 ERR_READ_ERROR 'HIER_DIRECT/127\.0\.0\.1' \
    '(104) Connection reset by peer' 104
# Squid 5.7 passes a reply that is not HTTP on as an HTTP/0.9 body (200);
# cuttle refuses it
expect_error "http://127.0.0.1:$OPORT/garbage?fail=garbage" 502 ERR_INVALID_RESP 'HIER_DIRECT/127\.0\.0\.1'
expect_error "http://127.0.0.1:$OPORT/badheader?fail=badheader" 502 ERR_INVALID_RESP 'HIER_DIRECT/127\.0\.0\.1'
expect_error "http://127.0.0.1:$OPORT/empty?fail=empty" 502 ERR_ZERO_SIZE_OBJECT 'HIER_DIRECT/127\.0\.0\.1'
expect_error "http://127.0.0.1:$OPORT/bighead?hsize=100000" 502 ERR_TOO_BIG 'HIER_DIRECT/127\.0\.0\.1'

# gopher:// is not forwarded (curl would tunnel it, so a raw request)
reply=$(raw_send "GET gopher://127.0.0.1:$OPORT/1x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
printf '%s\n' "$reply" | sed -n '/^\r$/,$p' > "$T/body"
if ! printf '%s\n' "$reply" | head -n 1 | grep -q '^HTTP/1.1 501 '; then
    bad "gopher: $(printf '%s\n' "$reply" | head -n 1)"
elif ! error_page_is "$T/body" ERR_UNSUP_REQ; then
    bad "gopher: not the ERR_UNSUP_REQ page"
elif ! wait_until 5 access_log_has " NONE_NONE/501 [0-9]+ GET gopher://127\.0\.0\.1:$OPORT/1x - HIER_NONE/- text/html\$"; then
    bad "gopher: no NONE_NONE/501 line: $(log_line gopher)"
else
    pass "gopher 501 ERR_UNSUP_REQ"
fi

# an extension method goes to the origin and its reply comes back
code=$(curl_proxy -o "$T/body" -X FOO "http://127.0.0.1:$OPORT/foo?s=1234")
if [ "$code" != 200 ] || [ "$(wc -c < "$T/body")" != 1234 ]; then
    bad "FOO: $code, $(wc -c < "$T/body") bytes"
elif ! wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ FOO http://127\.0\.0\.1:$OPORT/foo\? - HIER_DIRECT/127\.0\.0\.1 "; then
    bad "FOO: no TCP_MISS/200 FOO line"
else
    pass "extension method FOO forwarded"
fi

# the origin connection of FOO is kept; a bad reply on it is still logged
# against the origin (Squid 5.7: HIER_DIRECT/127.0.0.1)
expect_error "http://127.0.0.1:$OPORT/pooled?fail=badheader" 502 ERR_INVALID_RESP 'HIER_DIRECT/127\.0\.0\.1'

# mid_body_logged WHAT PATH : the access.log line of a reply the origin broke
# off after 1 MB: TCP_MISS/200 with the bytes the client got (Squid 5.7 logs
# it so; TCP_MISS_ABORTED is for a client that went away)
mid_body_logged() {
    re="http://127\.0\.0\.1:$OPORT/$2\?"
    if ! wait_until 5 access_log_has " GET $re "; then
        bad "$1 mid-body: not logged"
        return
    fi
    line=$(log_line " GET $re ")
    check_native_line "$line"
    echo "$line" | grep -Eq " TCP_MISS/200 [0-9]+ GET $re - HIER_DIRECT/127\.0\.0\.1 application/octet-stream\$" ||
        bad "$1 mid-body: expected TCP_MISS/200 (as Squid 5.7), logged '$line'"
    sent=$(echo "$line" | awk '{print $5}')
    [ "$sent" -ge 1000000 ] && [ "$sent" -lt 10485760 ] || bad "$1 mid-body: $sent bytes logged"
}

# a reset after 1 MB of a 10 MB body: curl sees the transfer end early
curl -s -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    "http://127.0.0.1:$OPORT/reset?s=10m&fail=reset@1000000" -w '%{http_code}' > "$T/code" 2> /dev/null
rc=$?
got=$(wc -c < "$T/body")
if [ "$rc" = 0 ] || [ "$(cat "$T/code")" != 200 ]; then
    bad "reset mid-body: curl exit $rc, status $(cat "$T/code")"
elif [ "$got" -lt 1000000 ] || [ "$got" -ge 10485760 ]; then
    bad "reset mid-body: $got bytes"
elif ! "$ORIGIN" --print-body 10m | head -c "$got" | cmp -s - "$T/body"; then
    bad "reset mid-body: the bytes differ from the origin's"
fi
before=$BAD
mid_body_logged reset reset
[ "$BAD" != "$before" ] || pass "reset mid-body: curl exit $rc after $got bytes"

# a stall after 1 MB: read_timeout ends the transfer
before=$BAD
start=$(date +%s)
curl -s -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    "http://127.0.0.1:$OPORT/stall?s=10m&fail=stall@1000000" 2> /dev/null
rc=$?
took=$(( $(date +%s) - start ))
if [ "$rc" = 0 ] || [ "$rc" = 28 ] || [ "$took" -ge "$(scaled 5)" ]; then
    bad "stall mid-body: curl exit $rc after $took s (28: its own --max-time)"
fi
mid_body_logged stall stall
[ "$BAD" != "$before" ] || pass "stall mid-body: ended after $took s (curl exit $rc)"

# still serving, by name through the fake DNS server
code=$(curl_proxy -o "$T/body" "http://good.test:$OPORT/?s=100k")
[ "$code" = 200 ] && "$ORIGIN" --print-body 100k | cmp -s - "$T/body" ||
    bad "after the failures: $code, $(wc -c < "$T/body") bytes"
is_running "$CUTTLE_PID" || fail "cuttle died"
cuttle_stop
checks_done
