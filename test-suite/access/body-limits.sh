#!/bin/sh
# request_body_max_size and reply_body_max_size as Squid 5.7 applies them:
# a request Content-Length over the limit is 413 ERR_TOO_BIG (before
# http_access), a chunked request body that grows past it resets the
# connection; a reply Content-Length over the limit of the first matching
# line is 403 ERR_TOO_BIG (before http_reply_access, hits too), a reply of
# unknown length that grows past it is cut off.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl big urlpath_regex ^/big" \
    "acl denied urlpath_regex ^/denied" \
    "acl js rep_mime_type text/js" \
    "reply_body_max_size 1000 bytes big" \
    "reply_body_max_size 5000 bytes" \
    "request_body_max_size 2000 bytes" \
    "http_reply_access deny js" \
    "http_access deny denied"

# log_has REGEX : waits (bounded) for an access.log line
log_has() { wait_until 5 access_log_has "$1"; }

head -c 1500 /dev/zero > "$T/b1500"
head -c 3000 /dev/zero > "$T/b3000"
head -c 100000 /dev/zero > "$T/b100k"

mark
expect_code "reply at the limit" 200 "http://$O/big?s=1000"
[ "$(body_size)" = 1000 ] || bad "the reply at the limit came with $(body_size) bytes"
expect_code "reply over the limit" 403 "http://$O/big?s=1001"
grep -q ERR_TOO_BIG "$T/body" || bad "the reply over the limit is not the ERR_TOO_BIG page"
log_has " TCP_DENIED_REPLY/403 [0-9]+ GET http://$O/big\\? - HIER_DIRECT/127\\.0\\.0\\.1 text/html" ||
    bad "no TCP_DENIED_REPLY/403 line for the reply over the limit"
expect_code "the second line under its limit" 200 "http://$O/other?s=5000"
expect_code "the second line over its limit" 403 "http://$O/other?s=5001"
expect_code "an error status over the limit" 403 "http://$O/big?s=2000&status=404"
expect_code "a HEAD has no body" 200 "http://$O/big?s=2000" -I
pass_if_ok "reply_body_max_size: Content-Length over the first matching line's limit is 403 ERR_TOO_BIG"

mark
expect_code "the size before http_reply_access" 403 "http://$O/big?s=2000&ct=text/js"
grep -q ERR_TOO_BIG "$T/body" || bad "http_reply_access answered before reply_body_max_size"
expect_code "the hit's miss" 403 "http://$O/bigstored?s=2000&cc=max-age=600"
expect_code "the hit" 403 "http://$O/bigstored?s=2000&cc=max-age=600"
grep -q ERR_TOO_BIG "$T/body" || bad "the hit over the limit is not the ERR_TOO_BIG page"
log_has " TCP_DENIED_REPLY/403 [0-9]+ GET http://$O/bigstored\\? - HIER_NONE/- text/html" ||
    bad "no TCP_DENIED_REPLY/403 HIER_NONE line for the hit"
pass_if_ok "reply_body_max_size: before http_reply_access, and for hits"

# a reply of unknown length: under the limit it passes whole; past it the
# client gets part of it, the connection is closed, the line logged TCP_MISS/200
mark
expect_code "a chunked reply under the limit" 200 "http://$O/chunked?s=4000&chunked=1"
[ "$(body_size)" = 4000 ] || bad "the chunked reply under the limit came with $(body_size) bytes"
out=$(curl -s -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    "http://$O/grow?s=70000&chunked=1")
rc=$?
[ "$out" = 200 ] || bad "the growing reply: status $out"
[ "$rc" = 18 ] || bad "the growing reply: curl exit $rc, not 18 (a body cut short)"
size=$(body_size)
[ "$size" -lt 70000 ] || bad "the growing reply came whole ($size bytes)"
log_has " TCP_MISS/200 [0-9]+ GET http://$O/grow\\? - HIER_DIRECT/127\\.0\\.0\\.1 application/octet-stream" ||
    bad "no TCP_MISS/200 line for the growing reply"
pass_if_ok "reply_body_max_size: a reply that grows past the limit is cut off"

mark
code=$(proxy_get "http://$O/up" --data-binary @"$T/b1500")
[ "$code" = 200 ] || bad "a request body under the limit: $code"
code=$(curl -s -D "$T/head" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    --data-binary @"$T/b3000" "http://$O/up")
[ "$code" = 413 ] || bad "a request Content-Length over the limit: $code"
grep -q ERR_TOO_BIG "$T/body" || bad "the 413 is not the ERR_TOO_BIG page"
grep -qi "^Connection: close" "$T/head" || bad "the 413 does not close the connection"
log_has " NONE_NONE/413 [0-9]+ POST http://$O/up - HIER_NONE/- text/html" || bad "no NONE_NONE/413 line"
code=$(proxy_get "http://$O/denied" --data-binary @"$T/b3000")
[ "$code" = 413 ] || bad "request_body_max_size comes before http_access: $code"
pass_if_ok "request_body_max_size: a Content-Length over the limit is 413 ERR_TOO_BIG"

# the whole oversize body is already in the socket with the head
mark
out=$(raw_send "POST http://$O/inone HTTP/1.1\r\nHost: $O\r\nContent-Length: 100000\r\n\r\n$(
    head -c 100000 /dev/zero | tr '\0' x)" | head -n 1 | tr -d '\r')
[ "$out" = "HTTP/1.1 413 Payload Too Large" ] || [ "$out" = "HTTP/1.1 413 Content Too Large" ] ||
    bad "a 100 kB body sent with its head: '$out'"
pass_if_ok "request_body_max_size: a body already in the socket"

mark
code=$(proxy_get "http://$O/up" -H "Transfer-Encoding: chunked" --data-binary @"$T/b1500")
[ "$code" = 200 ] || bad "a chunked request body under the limit: $code"
curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -H "Transfer-Encoding: chunked" \
    --data-binary @"$T/b100k" "http://$O/chunkup"
rc=$?
[ "$rc" = 56 ] || [ "$rc" = 52 ] || bad "a chunked request body over the limit: curl exit $rc, not a reset"
# (Squid logs TCP_MISS/000 HIER_DIRECT instead when it had forwarded the request already)
log_has " (NONE_NONE/000 0 POST http://$O/chunkup - HIER_NONE/-|TCP_MISS/000 0 POST http://$O/chunkup - HIER_DIRECT/127\.0\.0\.1) -" ||
    bad "no NONE_NONE/000 line for the reset"
pass_if_ok "request_body_max_size: a chunked body that grows past the limit resets the connection"

cache_stop
checks_done
