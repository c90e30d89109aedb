#!/bin/sh
# Range requests served from a stored object (206, multipart/byteranges,
# 416, If-Range), stale-while-revalidate (the stale object at once, a
# background revalidation) and negative_ttl.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start "negative_ttl 30 seconds"

# --- Range from a stored object
mark
script r1 "cc=max-age=60&etag=%22r%22&s=100000"
get r1
get r1 -r 10-19
expect "single range: status" "$CODE" 206
expect "single range: Content-Range" "$(header Content-Range)" "bytes 10-19/100000"
expect "single range: bytes" "$(cat "$T/body")" "$("$ORIGIN" --print-body 100000 | head -c 20 | tail -c 10)"
expect "single range: access.log" "$(log_code r1 2)" TCP_MEM_HIT/206
get r1 -r 0-4,99990-
expect "two ranges: status" "$CODE" 206
expect_match "two ranges: Content-Type" "$(header Content-Type)" '^multipart/byteranges; boundary='
expect "two ranges: Content-Length" "$(header Content-Length)" "$(body_size)"
grep -q 'Content-Range: bytes 99990-99999/100000' "$T/body" || expect "two ranges: second part" missing present
get r1 -r 200000-300000
expect "unsatisfiable: status" "$CODE" 416
expect "unsatisfiable: Content-Range" "$(header Content-Range)" "bytes */100000"
get r1 -r 10-19 -H 'If-Range: "other"'
expect "If-Range mismatch: status" "$CODE" 200
expect "If-Range mismatch: body" "$(body_size)" 100000
get r1 -r 10-19 -H 'If-Range: "r"'
expect "If-Range match: status" "$CODE" 206
expect "Range: origin requests" "$(seen_count r1)" 1
pass_if_ok "Range, multipart/byteranges, 416 and If-Range from the stored object, no origin request"

# --- Range on a stale object: the 304 makes it fresh, the ranges come from it
mark
script r2 "cc=max-age=0&etag=%22r2%22&s=100000" "status=304&etag=%22r2%22&cc=max-age=60" "status=500"
get r2
get r2 -r 10-19
expect "stale, 304: status" "$CODE" 206
expect "stale, 304: Content-Range" "$(header Content-Range)" "bytes 10-19/100000"
expect "stale, 304: bytes" "$(head -c 64 "$T/body")" "$("$ORIGIN" --print-body 100000 | head -c 20 | tail -c 10)"
expect "stale, 304: access.log" "$(log_code r2 2)" TCP_REFRESH_UNMODIFIED/206
expect "stale, 304: origin requests" "$(seen_count r2)" 2
expect "stale, 304: If-None-Match sent" "$(seen_field r2 2 If-None-Match)" '"r2"'
get r2 -r 0-4,99990-
expect "fresh again, two ranges: status" "$CODE" 206
expect "fresh again: access.log" "$(log_code r2 3)" TCP_MEM_HIT/206
expect "fresh again: origin requests" "$(seen_count r2)" 2
pass_if_ok "Range on a stale object: revalidated, then 206 from the stored body (TCP_REFRESH_UNMODIFIED/206)"

# --- stale-while-revalidate: stale at once, revalidated in the background
mark
script w1 "cc=max-age=0,%20stale-while-revalidate=60&etag=%22w%22&s=100" "status=304&etag=%22w%22&cc=max-age=60"
get w1
get w1
expect "swr: status" "$CODE" 200
expect "swr: body" "$(body_sha)" "$(pattern_sha 100)"
expect "swr: access.log" "$(log_code w1 2)" TCP_STALE_HIT/200
seen_two() { [ "$(seen_count w1)" = 2 ]; }
wait_until 5 seen_two || expect "swr: background revalidation" "$(seen_count w1)" 2
expect "swr: the background request's If-None-Match" "$(seen_field w1 2 If-None-Match)" '"w"'
sleep 0.3
get w1
expect "swr: after the 304, a fresh hit" "$(log_code w1 3)" TCP_MEM_HIT/200
expect "swr: its Cache-Control" "$(header Cache-Control)" "max-age=60"
expect "swr: origin requests" "$(seen_count w1)" 2
pass_if_ok "stale-while-revalidate serves the stale object (TCP_STALE_HIT) and revalidates it in the background"

# --- negative_ttl
mark
script n1 "status=404&s=10"
get n1
get n1
expect "negative_ttl: status" "$CODE" 404
expect "negative_ttl: access.log" "$(log_code n1 2)" TCP_NEGATIVE_HIT/404
expect "negative_ttl: origin requests" "$(seen_count n1)" 1
pass_if_ok "negative_ttl keeps an error without freshness of its own (TCP_NEGATIVE_HIT)"

cache_stop
checks_done
