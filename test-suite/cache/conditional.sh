#!/bin/sh
# A client's conditional GET is answered by the fresh stored reply (RFC 9110
# section 13.2.2, RFC 9111 section 4.3.2): an If-None-Match that matches the
# stored ETag (weakly) gets a 304 with the ETag and no body
# (TCP_INM_HIT/304), one that does not gets the stored 200 (TCP_MEM_HIT/200);
# with no If-None-Match, an If-Modified-Since at or after the stored
# Last-Modified gets a 304 (TCP_IMS_HIT/304) and an earlier one the 200. The
# origin sees only the first request.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start

LM='Mon, 01 Jan 2024 00:00:00 GMT'
LM_Q='Mon,%2001%20Jan%202024%2000:00:00%20GMT'
BEFORE='Sun, 31 Dec 2023 23:59:59 GMT'
AFTER='Tue, 02 Jan 2024 00:00:00 GMT'

script cond1 "cc=max-age=60&s=500&etag=%22c1%22&lm=$LM_Q"
SHA=$(pattern_sha 500)
N=0
# ask WHAT [CURL ARGS] : one request for /s/cond1; $N is its access.log line
ask() {
    N=$((N + 1))
    WHAT=$1
    shift
    get cond1 "$@"
}
# expect_304 CODE : the last reply was a 304 from the cache, logged CODE; it
# carries the ETag and Cache-Control the 200 would have (RFC 9110 section
# 15.4.5; Squid 5.7 drops the ETag there, cuttle follows the RFC)
expect_304() {
    expect "$WHAT: status" "$CODE" 304
    expect "$WHAT: body bytes" "$(body_size)" 0
    expect "$WHAT: ETag" "$(header ETag)" '"c1"'
    expect "$WHAT: Cache-Control" "$(header Cache-Control)" max-age=60
    expect "$WHAT: access.log" "$(log_code cond1 $N)" "$1"
}
# expect_200_hit : the last reply was the stored 200
expect_200_hit() {
    expect_hit "$WHAT" cond1 $N "$SHA"
    expect "$WHAT: ETag" "$(header ETag)" '"c1"'
}

mark
ask "first request"
expect "first request: status" "$CODE" 200
expect "first request: access.log" "$(log_code cond1 1)" TCP_MISS/200
pass_if_ok "the first request stores the reply"

mark
ask 'If-None-Match: "c1"' -H 'If-None-Match: "c1"'
expect_304 TCP_INM_HIT/304
ask 'If-None-Match: W/"c1" (weak comparison)' -H 'If-None-Match: W/"c1"'
expect_304 TCP_INM_HIT/304
ask 'If-None-Match: "x", "c1"' -H 'If-None-Match: "x", "c1"'
expect_304 TCP_INM_HIT/304
ask 'If-None-Match: *' -H 'If-None-Match: *'
expect_304 TCP_INM_HIT/304
pass_if_ok "a matching If-None-Match gets a 304 from the cache (TCP_INM_HIT)"

mark
ask 'If-None-Match: "other"' -H 'If-None-Match: "other"'
expect_200_hit
# If-None-Match decides; If-Modified-Since is then ignored (RFC 9110 13.1.3)
ask 'If-None-Match: "other" with a matching If-Modified-Since' -H 'If-None-Match: "other"' \
    -H "If-Modified-Since: $AFTER"
expect_200_hit
pass_if_ok "a non-matching If-None-Match gets the stored 200"

mark
ask "If-Modified-Since the Last-Modified" -H "If-Modified-Since: $LM"
expect_304 TCP_IMS_HIT/304
ask "If-Modified-Since after the Last-Modified" -H "If-Modified-Since: $AFTER"
expect_304 TCP_IMS_HIT/304
pass_if_ok "If-Modified-Since at or after Last-Modified gets a 304 from the cache (TCP_IMS_HIT)"

mark
ask "If-Modified-Since before the Last-Modified" -H "If-Modified-Since: $BEFORE"
expect_200_hit
ask "If-Modified-Since that is not a date" -H "If-Modified-Since: yesterday"
expect_200_hit
pass_if_ok "an earlier or invalid If-Modified-Since gets the stored 200"

mark
expect "origin requests for all of the above" "$(seen_count cond1)" 1
pass_if_ok "the origin saw only the first request"

# a stored reply with only Last-Modified: If-None-Match cannot match it
mark
script cond2 "cc=max-age=60&s=50&lm=$LM_Q"
get cond2
expect "Last-Modified only, first: access.log" "$(log_code cond2 1)" TCP_MISS/200
get cond2 -H "If-Modified-Since: $LM"
expect "Last-Modified only, IMS: status" "$CODE" 304
expect "Last-Modified only, IMS: access.log" "$(log_code cond2 2)" TCP_IMS_HIT/304
get cond2 -H 'If-None-Match: "c1"'
expect "Last-Modified only, INM: status" "$CODE" 200
expect "Last-Modified only, INM: body" "$(body_sha)" "$(pattern_sha 50)"
expect "Last-Modified only, INM: access.log" "$(log_code cond2 3)" TCP_MEM_HIT/200
expect "Last-Modified only: origin requests" "$(seen_count cond2)" 1
pass_if_ok "a reply with only Last-Modified answers IMS with 304 and INM with 200"

cache_stop
checks_done
