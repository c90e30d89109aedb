#!/bin/sh
# A stale stored reply is revalidated (RFC 9111 section 4.3): the origin gets
# If-None-Match / If-Modified-Since built from the stored ETag and
# Last-Modified; a 304 freshens the stored head (section 4.3.4) and the client
# gets the stored body (TCP_REFRESH_UNMODIFIED/200, then hits); a 200 replaces
# the stored reply (TCP_REFRESH_MODIFIED/200, then hits on the new body); a
# 5xx is forwarded (TCP_REFRESH_FAIL_ERR/500) unless the stale reply may be
# served on error (TCP_REFRESH_FAIL_OLD/200): stale-if-error (RFC 5861)
# within max_stale, as Squid 5.7 decides it. A no-cache reply is validated
# before every use.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start

LM='Mon, 01 Jan 2024 00:00:00 GMT'
LM_Q='Mon,%2001%20Jan%202024%2000:00:00%20GMT'
# http_date SECONDS_AGO : an HTTP-date that long ago, percent-encoded for a script line
http_date() {
    date -u -d "@$(( $(date +%s) - $1 ))" '+%a,%%20%d%%20%b%%20%Y%%20%H:%M:%S%%20GMT'
}

# a stale reply with an ETag: If-None-Match, a 304 with a new lifetime
mark
script etag1 "cc=max-age=0&etag=%22v1%22&s=1000" "status=304&etag=%22v1%22&cc=max-age=60" "status=500"
SHA=$(pattern_sha 1000)
get etag1
expect_miss "ETag, first" etag1 1 TCP_MISS/200 "$SHA"
get etag1
expect "ETag, revalidated: status" "$CODE" 200
expect "ETag, revalidated: body" "$(body_sha)" "$SHA"
expect "ETag, revalidated: Content-Length" "$(header Content-Length)" 1000
expect "ETag, revalidated: Cache-Control (from the 304)" "$(header Cache-Control)" max-age=60
expect "ETag, revalidated: ETag" "$(header ETag)" '"v1"'
expect "ETag, revalidated: access.log" "$(log_code etag1 2)" TCP_REFRESH_UNMODIFIED/200
expect "ETag: origin requests after the revalidation" "$(seen_count etag1)" 2
expect "ETag: the revalidation's If-None-Match" "$(seen_field etag1 2 If-None-Match)" '"v1"'
get etag1
expect_hit "ETag, after the 304" etag1 3 "$SHA"
expect "ETag, after the 304: Cache-Control" "$(header Cache-Control)" max-age=60
expect "ETag: origin requests after the hit" "$(seen_count etag1)" 2
pass_if_ok "a stale reply with an ETag is revalidated with If-None-Match; the 304 freshens it"

# a stale reply with a Last-Modified: If-Modified-Since
mark
script lm1 "cc=max-age=0&lm=$LM_Q&s=800" "status=304&cc=max-age=60&lm=$LM_Q" "status=500"
SHA=$(pattern_sha 800)
get lm1
expect_miss "Last-Modified, first" lm1 1 TCP_MISS/200 "$SHA"
get lm1
expect "Last-Modified, revalidated: status" "$CODE" 200
expect "Last-Modified, revalidated: body" "$(body_sha)" "$SHA"
expect "Last-Modified, revalidated: access.log" "$(log_code lm1 2)" TCP_REFRESH_UNMODIFIED/200
expect "Last-Modified: the revalidation's If-Modified-Since" "$(seen_field lm1 2 If-Modified-Since)" "$LM"
expect "Last-Modified: the revalidation's If-None-Match" "$(seen_field lm1 2 If-None-Match)" ""
get lm1
expect_hit "Last-Modified, after the 304" lm1 3 "$SHA"
expect "Last-Modified: origin requests" "$(seen_count lm1)" 2
pass_if_ok "a stale reply with a Last-Modified is revalidated with If-Modified-Since; the 304 freshens it"

# both validators: both conditionals; a client's own matching If-None-Match
# gets a 304 once the origin said 304 (RFC 9111 section 4.3.2; Squid 5.7 sends
# the whole 200 there, which the RFC allows too, cuttle the 304)
mark
script both1 "cc=max-age=0&etag=%22b1%22&lm=$LM_Q&s=300" "status=304&etag=%22b1%22&cc=max-age=0" \
    "status=304&etag=%22b1%22&cc=max-age=60" "status=500"
SHA=$(pattern_sha 300)
get both1
get both1
expect "both validators, revalidated: status" "$CODE" 200
expect "both validators, revalidated: body" "$(body_sha)" "$SHA"
expect "both validators, revalidated: access.log" "$(log_code both1 2)" TCP_REFRESH_UNMODIFIED/200
expect "both validators: If-None-Match" "$(seen_field both1 2 If-None-Match)" '"b1"'
expect "both validators: If-Modified-Since" "$(seen_field both1 2 If-Modified-Since)" "$LM"
get both1 -H 'If-None-Match: "b1"'
expect "both validators, client INM: status" "$CODE" 304
expect "both validators, client INM: body bytes" "$(body_size)" 0
expect "both validators, client INM: ETag" "$(header ETag)" '"b1"'
expect "both validators, client INM: access.log" "$(log_code both1 3)" TCP_REFRESH_UNMODIFIED/304
expect "both validators, client INM: origin's If-None-Match" "$(seen_field both1 3 If-None-Match)" '"b1"'
get both1
expect_hit "both validators, after the second 304" both1 4 "$SHA"
expect "both validators: origin requests" "$(seen_count both1)" 3
pass_if_ok "a stale reply with both validators is revalidated with both"

# a 200 to the revalidation replaces the stored reply
mark
script mod1 "cc=max-age=0&etag=%22a%22&s=1000" "cc=max-age=60&etag=%22b%22&s=2000" "status=500"
get mod1
expect_miss "modified, first" mod1 1 TCP_MISS/200 "$(pattern_sha 1000)"
get mod1
expect "modified, revalidated: status" "$CODE" 200
expect "modified, revalidated: body" "$(body_sha)" "$(pattern_sha 2000)"
expect "modified, revalidated: ETag" "$(header ETag)" '"b"'
expect "modified, revalidated: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
expect "modified, revalidated: access.log" "$(log_code mod1 2)" TCP_REFRESH_MODIFIED/200
expect "modified: the revalidation's If-None-Match" "$(seen_field mod1 2 If-None-Match)" '"a"'
get mod1
expect_hit "modified, next" mod1 3 "$(pattern_sha 2000)"
expect "modified, next: ETag" "$(header ETag)" '"b"'
expect "modified: origin requests" "$(seen_count mod1)" 2
pass_if_ok "a 200 to the revalidation replaces the stored reply (TCP_REFRESH_MODIFIED)"

# a stale variant of a Vary reply is revalidated with its own validator
# and freshened alone
mark
script vary1 "cc=max-age=0&etag=%22a%22&s=100&h=Vary:Accept-Encoding" \
    "cc=max-age=0&etag=%22b%22&s=200&h=Vary:Accept-Encoding" \
    "status=304&etag=%22a%22&cc=max-age=60&h=Vary:Accept-Encoding" \
    "status=304&etag=%22b%22&cc=max-age=60&h=Vary:Accept-Encoding" "status=500"
get vary1 -H 'Accept-Encoding: gzip'
get vary1 -H 'Accept-Encoding: br'
get vary1 -H 'Accept-Encoding: gzip'
expect "Vary, gzip revalidated: body" "$(body_sha)" "$(pattern_sha 100)"
expect "Vary, gzip revalidated: access.log" "$(log_code vary1 3)" TCP_REFRESH_UNMODIFIED/200
expect "Vary, gzip revalidated: If-None-Match" "$(seen_field vary1 3 If-None-Match)" '"a"'
expect "Vary, gzip revalidated: Accept-Encoding" "$(seen_field vary1 3 Accept-Encoding)" gzip
get vary1 -H 'Accept-Encoding: br'
expect "Vary, br revalidated: body" "$(body_sha)" "$(pattern_sha 200)"
expect "Vary, br revalidated: access.log" "$(log_code vary1 4)" TCP_REFRESH_UNMODIFIED/200
expect "Vary, br revalidated: If-None-Match" "$(seen_field vary1 4 If-None-Match)" '"b"'
get vary1 -H 'Accept-Encoding: gzip'
expect_hit "Vary, gzip after its 304" vary1 5 "$(pattern_sha 100)"
get vary1 -H 'Accept-Encoding: br'
expect_hit "Vary, br after its 304" vary1 6 "$(pattern_sha 200)"
expect "Vary: origin requests" "$(seen_count vary1)" 4
pass_if_ok "each stale variant is revalidated with its own ETag"

# a reply with Cache-Control: no-cache is stored but never used without a
# successful validation (RFC 9111 section 5.2.2.4), even while its max-age
# says fresh: a changed reply reaches the client at once
for cc in "no-cache" "no-cache,%20max-age=60"; do
    mark
    id="nocache-$(echo "$cc" | tr -c 'a-z0-9\n' _)"
    script "$id" "cc=$cc&etag=%22n1%22&s=100" "status=304&etag=%22n1%22&cc=$cc" \
        "cc=$cc&etag=%22n2%22&s=200" "status=500"
    get "$id"
    expect "$cc, first: access.log" "$(log_code "$id" 1)" TCP_MISS/200
    get "$id"
    expect "$cc, 304: body" "$(body_sha)" "$(pattern_sha 100)"
    expect "$cc, 304: access.log" "$(log_code "$id" 2)" TCP_REFRESH_UNMODIFIED/200
    expect "$cc, 304: origin's If-None-Match" "$(seen_field "$id" 2 If-None-Match)" '"n1"'
    get "$id"
    expect "$cc, changed: body (the origin's new reply)" "$(body_sha)" "$(pattern_sha 200)"
    expect "$cc, changed: ETag" "$(header ETag)" '"n2"'
    expect "$cc, changed: access.log" "$(log_code "$id" 3)" TCP_REFRESH_MODIFIED/200
    expect "$cc: origin requests" "$(seen_count "$id")" 3
    pass_if_ok "a Cache-Control: $cc reply is validated before every use"
done

# a 500 to the revalidation of a reply stale for 30 s, with no refresh_pattern
# line: Squid 5.7's built-in rule for URLs no refresh_pattern matches
# ("<none> 0 20% 259200") has max-stale=0 (RefreshPattern's constructor),
# so its refreshCheck() sets failOnValidationError ("YES: refresh_pattern
# max-stale=N limit from squid.conf") and the error is forwarded
# (TCP_REFRESH_FAIL_ERR), as RFC 9111 section 4.2.4 wants without stale-if-error
mark
script err1 "cc=max-age=0&etag=%22e%22&s=100&h=Date:$(http_date 30)" "status=500&s=10"
get err1
expect "500, first: access.log" "$(log_code err1 1)" TCP_MISS/200
get err1
expect "500 (no refresh_pattern), revalidated: status" "$CODE" 500
expect "500 (no refresh_pattern), revalidated: body" "$(body_sha)" "$(pattern_sha 10)"
expect "500 (no refresh_pattern), revalidated: access.log" "$(log_code err1 2)" TCP_REFRESH_FAIL_ERR/500
expect "500: the revalidation's If-None-Match" "$(seen_field err1 2 If-None-Match)" '"e"'
pass_if_ok "a 500 to a revalidation is forwarded (TCP_REFRESH_FAIL_ERR) under the built-in refresh rule"

# must-revalidate forbids serving it stale whatever the configuration
mark
script err2 "cc=max-age=0,%20must-revalidate,%20stale-if-error=60&etag=%22e%22&s=100" "status=500&s=10"
get err2
get err2
expect "500, must-revalidate: status" "$CODE" 500
expect "500, must-revalidate: access.log" "$(log_code err2 2)" TCP_REFRESH_FAIL_ERR/500
pass_if_ok "a 500 to the revalidation of a must-revalidate reply is forwarded"

cache_stop
# squid.conf.default's rule: max_stale (1 week) applies, narrowed by
# stale-if-error (RFC 5861 section 4)
cache_start "refresh_pattern . 0 20% 4320"

mark
script sie1 "cc=max-age=0,%20stale-if-error=60&etag=%22f%22&s=100&h=Date:$(http_date 30)" "status=500&s=10"
get sie1
get sie1
expect "500, stale-if-error=60 (30 s stale): status" "$CODE" 200
expect "500, stale-if-error=60 (30 s stale): body" "$(body_sha)" "$(pattern_sha 100)"
expect "500, stale-if-error=60 (30 s stale): access.log" "$(log_code sie1 2)" TCP_REFRESH_FAIL_OLD/200
expect "500, stale-if-error=60: the revalidation's If-None-Match" "$(seen_field sie1 2 If-None-Match)" '"f"'
expect "500, stale-if-error=60: origin requests" "$(seen_count sie1)" 2
pass_if_ok "a 500 to the revalidation of a stale-if-error=60 reply serves the stale body (TCP_REFRESH_FAIL_OLD)"

mark
script sie2 "cc=max-age=0,%20stale-if-error=5&etag=%22g%22&s=100&h=Date:$(http_date 30)" "status=500&s=10"
get sie2
get sie2
expect "500, stale-if-error=5 (30 s stale): status" "$CODE" 500
expect "500, stale-if-error=5 (30 s stale): access.log" "$(log_code sie2 2)" TCP_REFRESH_FAIL_ERR/500
pass_if_ok "a 500 past the stale-if-error window is forwarded (TCP_REFRESH_FAIL_ERR)"

mark
script plain1 "cc=max-age=0&etag=%22p%22&s=100&h=Date:$(http_date 30)" "status=500&s=10"
get plain1
get plain1
expect "500, no stale-if-error, max_stale 1 week: status" "$CODE" 200
expect "500, no stale-if-error, max_stale 1 week: access.log" "$(log_code plain1 2)" TCP_REFRESH_FAIL_OLD/200
pass_if_ok "under refresh_pattern . 0 20% 4320, max_stale lets a stale reply answer a 500 (as Squid 5.7)"

cache_stop
checks_done
