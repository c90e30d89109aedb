#!/bin/sh
# range_offset_limit: whether a Range miss fetches the whole object to store
# it (and serves the ranges from it as it arrives) or goes to the origin as it
# is (its 206 not stored). Squid 5.7's rule: 0 (the default) never fetches
# more, none always does, a size does when the first byte asked for lies
# within it, and a suffix range ("-N", its offset unknown) never does.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

# the bytes FIRST..LAST of the origin's pattern body of SIZE
pattern_part() { "$ORIGIN" --print-body "$1" | head -c "$(($3 + 1))" | tail -c "$(($3 - $2 + 1))"; }

# --- the default (0): the Range goes to the origin, the 206 is not stored
cache_start
mark
script d1 "status=206&s=100&cc=max-age=60&h=Content-Range:bytes%20100-199/100000"
get d1 -r 100-199
expect "limit 0: status" "$CODE" 206
expect "limit 0: the origin got the Range" "$(seen_field d1 1 Range)" "bytes=100-199"
expect "limit 0: access.log" "$(log_code d1 1)" TCP_MISS/206
get d1 -r 100-199
expect "limit 0: the 206 was not stored" "$(seen_count d1)" 2
pass_if_ok "range_offset_limit 0 forwards a Range miss as it is and stores no 206"

# --- none: the whole object, stored; the ranges served from it
cache_start "range_offset_limit none"
mark
script n1 "cc=max-age=60&s=100000"
get n1 -r 100-199
expect "limit none: status" "$CODE" 206
expect "limit none: Content-Range" "$(header Content-Range)" "bytes 100-199/100000"
expect "limit none: bytes" "$(cat "$T/body")" "$(pattern_part 100000 100 199)"
expect "limit none: the origin got no Range" "$(seen_field n1 1 Range)" ""
expect "limit none: access.log" "$(log_code n1 1)" TCP_MISS/206
get n1
expect_hit "limit none: then the whole object" n1 2 "$(pattern_sha 100000)"
get n1 -r 50000-50009
expect "limit none: another range: status" "$CODE" 206
expect "limit none: another range: access.log" "$(log_code n1 3)" TCP_MEM_HIT/206
expect "limit none: another range: bytes" "$(cat "$T/body")" "$(pattern_part 100000 50000 50009)"
expect "limit none: origin requests" "$(seen_count n1)" 1
pass_if_ok "range_offset_limit none fetches the whole object for a Range miss, stores it and serves the range (finishing it after the client left, whatever quick_abort says)"

# ranges far past read_ahead_gap of an object still arriving slowly: the
# fetch is not held back by the bytes before them, and several ranges come
# as multipart/byteranges
mark
script p1 "cc=max-age=60&s=400k&rate=400k"
get p1 -r 300000-300099
expect "in flight: status" "$CODE" 206
expect "in flight: bytes" "$(cat "$T/body")" "$(pattern_part 400k 300000 300099)"
script p2 "cc=max-age=60&s=400k&rate=400k"
get p2 -r 0-9,390000-390009
expect "in flight, two ranges: status" "$CODE" 206
expect_match "in flight, two ranges: Content-Type" "$(header Content-Type)" '^multipart/byteranges; boundary='
expect "in flight, two ranges: Content-Length" "$(header Content-Length)" "$(body_size)"
grep -q 'Content-Range: bytes 390000-390009/409600' "$T/body" || bad "in flight, two ranges: no second part"
get p2 -r 409600-
# RFC 9110 15.5.17 (Squid 5.7 sends the whole 200 instead; doc/differences.md)
[ -n "$CACHE_TEST_SQUID" ] || expect "in flight: then past the end" "$CODE" 416
expect "in flight: origin requests" "$(seen_count p1) $(seen_count p2)" "1 1"
pass_if_ok "ranges of an object in flight are served as it arrives, past read_ahead_gap"

# --- a size: within it the whole object, past it or a suffix the Range as it
# is; quick_abort applies as usual (none overrides it): here it lets the
# fetch finish once the client has its range
cache_start "range_offset_limit 64 KB" "quick_abort_min -1 KB"
mark
script s1 "cc=max-age=60&s=100000"
get s1 -r 1000-1999
expect "limit 64 KB, within: status" "$CODE" 206
expect "limit 64 KB, within: the origin got no Range" "$(seen_field s1 1 Range)" ""
get s1
expect_hit "limit 64 KB, within: stored" s1 2 "$(pattern_sha 100000)"
script s2 "status=206&s=100&cc=max-age=60&h=Content-Range:bytes%2070000-70099/100000"
get s2 -r 70000-70099
expect "limit 64 KB, past it: the origin got the Range" "$(seen_field s2 1 Range)" "bytes=70000-70099"
expect "limit 64 KB, past it: access.log" "$(log_code s2 1)" TCP_MISS/206
script s3 "status=206&s=100&cc=max-age=60&h=Content-Range:bytes%2099900-99999/100000"
get s3 -r -100
expect "limit 64 KB, suffix: the origin got the Range" "$(seen_field s3 1 Range)" "bytes=-100"
pass_if_ok "range_offset_limit SIZE fetches the whole object only when the first byte is within it"

cache_stop
checks_done
