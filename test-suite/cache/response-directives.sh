#!/bin/sh
# A response's Cache-Control in a shared cache (RFC 9111 section 5.2.2), one
# case each, checking what the client got, what the origin saw and
# access.log: s-maxage wins over max-age (longer or shorter) and, stale,
# is never served when the validation fails, nor are must-revalidate and
# proxy-revalidate replies (504 after a read timeout; a plain stale reply is
# served there, TCP_REFRESH_FAIL_OLD); no-cache is stored and validated
# before every use, even while fresh, and never served stale;
# no-cache="Set-Cookie" is validated as no-cache is (doc/caching.md,
# src/store/Freshness.h: the qualified form is treated as unqualified);
# private="Set-Cookie" and "public, private" are not stored;
# must-understand stores a 200 despite no-store but not an unknown status;
# a fresh immutable reply answers a reload (request max-age=0) without the
# origin while no-cache and Pragma: no-cache still go there, and a stale
# immutable reply is validated like any other (RFC 8246); directive names are
# case-insensitive; of duplicate max-age directives the first counts (RFC
# 9111 4.2.1 allows it); an invalid max-age makes the reply stale and a
# quoted one is accepted (section 5.2); an invalid or past Expires is
# stale, a future one fresh, and max-age overrides Expires (5.3); an Age of
# 9999999999 makes the reply stale and a hit says Age: 2147483648 (1.2.2);
# Set-Cookie and other end-to-end fields are stored and sent with a hit.
#
# squid.conf.default's refresh rule (refresh_pattern . 0 20% 4320) lets
# max_stale serve a plain stale reply when its validation fails, so the
# directives that forbid that show; read_timeout 1 second and an origin
# reply delayed by 3 s (both times TIMEOUT_MULT) make that failure a 504 in
# cuttle and in Squid 5.7.
#
# Against Squid 5.7 (CACHE_TEST_SQUID) a few checks are skipped, each where
# Squid departs from the RFC or does not implement a directive (see each).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start "read_timeout $(scaled 1) seconds" "refresh_pattern . 0 20% 4320"
# an origin reply later than read_timeout
LATE="t=$(scaled 3)s"

LM='Mon, 01 Jan 2024 00:00:00 GMT'
LM_Q='Mon,%2001%20Jan%202024%2000:00:00%20GMT'
# http_date OFFSET : the HTTP-date OFFSET seconds from now (negative: in the
# past), percent-encoded for a script line
http_date() {
    date -u -d "@$(( $(date +%s) + $1 ))" '+%a,%%20%d%%20%b%%20%Y%%20%H:%M:%S%%20GMT'
}

# validated ID WHAT N ETAG SHA : the Nth request for ID was answered after a
# successful revalidation with If-None-Match ETAG (the origin said 304)
validated() {
    expect "$2: status" "$CODE" 200
    expect "$2: body" "$(body_sha)" "$5"
    expect "$2: access.log" "$(log_code "$1" "$3")" TCP_REFRESH_UNMODIFIED/200
    expect "$2: origin requests" "$(seen_count "$1")" "$3"
    expect "$2: the revalidation's If-None-Match" "$(seen_field "$1" "$3" If-None-Match)" "$4"
}

# fail_validation ID WHAT CC : a reply with CC and an ETag, 30 s old, is
# stored; its revalidation times out; the client must get a 504, not the
# stored reply
fail_validation() {
    script "$1" "cc=$3&etag=%22f%22&s=100&h=Date:$(http_date -30)" "$LATE&s=10"
    get "$1"
    expect "$2, first: access.log" "$(log_code "$1" 1)" TCP_MISS/200
    get "$1"
    expect "$2, validation timed out: status" "$CODE" 504
    expect "$2, validation timed out: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
    expect "$2, validation timed out: access.log" "$(log_code "$1" 2)" TCP_REFRESH_FAIL_ERR/504
    expect "$2: the revalidation's If-None-Match" "$(seen_field "$1" 2 If-None-Match)" '"f"'
    expect "$2: origin requests" "$(seen_count "$1")" 2
}

# decoded TEXT : TEXT with %20 and %22 decoded, for messages
decoded() { printf '%s\n' "$1" | sed -e 's/%20/ /g' -e 's/%22/"/g'; }

SHA100=$(pattern_sha 100)
SHA200=$(pattern_sha 200)

# --- s-maxage (5.2.2.10): over max-age for a shared cache, either way
mark
script smax1 "cc=max-age=60,%20s-maxage=0&etag=%22s1%22&s=100" "status=304&etag=%22s1%22&cc=max-age=60,%20s-maxage=0"
get smax1
expect_miss "max-age=60, s-maxage=0, first" smax1 1 TCP_MISS/200 "$SHA100"
get smax1
validated smax1 "max-age=60, s-maxage=0, second" 2 '"s1"' "$SHA100"
script smax2 "cc=max-age=0,%20s-maxage=60&s=100" "status=500"
get smax2
get smax2
expect_hit "max-age=0, s-maxage=60, second" smax2 2 "$SHA100"
expect "max-age=0, s-maxage=60: origin requests" "$(seen_count smax2)" 1
pass_if_ok "s-maxage wins over max-age in a shared cache (s-maxage=0 is validated, s-maxage=60 is a hit)"

# the control: a plain stale reply is served when its validation fails
mark
script plain1 "cc=max-age=0&etag=%22f%22&s=100&h=Date:$(http_date -30)" "$LATE&s=10"
get plain1
get plain1
expect "max-age=0, validation timed out: status" "$CODE" 200
expect "max-age=0, validation timed out: body" "$(body_sha)" "$SHA100"
expect "max-age=0, validation timed out: access.log" "$(log_code plain1 2)" TCP_REFRESH_FAIL_OLD/200
expect "max-age=0: origin requests" "$(seen_count plain1)" 2
pass_if_ok "a plain stale reply is served when its validation times out (TCP_REFRESH_FAIL_OLD), under refresh_pattern . 0 20% 4320"

# s-maxage implies proxy-revalidate (5.2.2.10): stale for the shared cache
# (although max-age=60 says fresh), it is not served when validation fails
mark
fail_validation smax3 "max-age=60, s-maxage=0" "max-age=60,%20s-maxage=0"
pass_if_ok "a stale s-maxage reply is not served when its validation fails (504)"

# --- must-revalidate (5.2.2.2) and proxy-revalidate (5.2.2.8)
mark
fail_validation mreval1 "must-revalidate" "max-age=0,%20must-revalidate"
pass_if_ok "a stale must-revalidate reply is not served when its validation fails (504)"
mark
fail_validation preval1 "proxy-revalidate" "max-age=0,%20proxy-revalidate"
pass_if_ok "a stale proxy-revalidate reply is not served by a shared cache when its validation fails (504)"

# --- no-cache without field names (5.2.2.4): stored, validated before every
# use although the Last-Modified heuristic says fresh (If-Modified-Since)
mark
script nocache1 "cc=no-cache&lm=$LM_Q&s=100" "status=304&cc=no-cache&lm=$LM_Q"
get nocache1
expect_miss "no-cache, first" nocache1 1 TCP_MISS/200 "$SHA100"
for n in 2 3; do
    get nocache1
    expect "no-cache, use $n: status" "$CODE" 200
    expect "no-cache, use $n: body" "$(body_sha)" "$SHA100"
    expect "no-cache, use $n: access.log" "$(log_code nocache1 $n)" TCP_REFRESH_UNMODIFIED/200
    expect "no-cache, use $n: the origin's If-Modified-Since" "$(seen_field nocache1 $n If-Modified-Since)" "$LM"
done
expect "no-cache: origin requests" "$(seen_count nocache1)" 3
pass_if_ok "a no-cache reply is stored and validated before every use"

# ... and never served stale
mark
fail_validation nocache2 "no-cache" "no-cache"
pass_if_ok "a stale no-cache reply is not served when its validation fails (504)"
mark
fail_validation nocache4 "no-cache, max-age=600 (fresh)" "no-cache,%20max-age=600"
pass_if_ok "a fresh no-cache reply is not served either when its validation fails (504)"

# --- no-cache="Set-Cookie": cuttle treats it as no-cache (stricter than
# 5.2.2.4, which would allow reuse without validation minus the named field):
# the stored reply is validated before use, and a changed reply with a new
# cookie reaches the client
mark
script nocache3 "cc=no-cache=%22Set-Cookie%22,%20max-age=60&etag=%22c1%22&h=Set-Cookie:id=1&s=100" \
    "cc=no-cache=%22Set-Cookie%22,%20max-age=60&etag=%22c2%22&h=Set-Cookie:id=2&s=200"
get nocache3
expect_miss "no-cache=\"Set-Cookie\", first" nocache3 1 TCP_MISS/200 "$SHA100"
expect "no-cache=\"Set-Cookie\", first: Set-Cookie" "$(header Set-Cookie)" id=1
get nocache3
expect "no-cache=\"Set-Cookie\", second: status" "$CODE" 200
expect "no-cache=\"Set-Cookie\", second: body (the origin's new reply)" "$(body_sha)" "$SHA200"
expect "no-cache=\"Set-Cookie\", second: Set-Cookie" "$(header Set-Cookie)" id=2
expect "no-cache=\"Set-Cookie\", second: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
expect "no-cache=\"Set-Cookie\": origin requests" "$(seen_count nocache3)" 2
# Squid 5.7 does not store a reply with no-cache="..." at all, which the RFC
# allows too: its second request is a plain TCP_MISS without a conditional
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect "no-cache=\"Set-Cookie\", second: access.log" "$(log_code nocache3 2)" TCP_REFRESH_MODIFIED/200
    expect "no-cache=\"Set-Cookie\": the revalidation's If-None-Match" "$(seen_field nocache3 2 If-None-Match)" '"c1"'
fi
pass_if_ok "a no-cache=\"Set-Cookie\" reply is validated before use; the new reply and cookie reach the client"

# --- private (5.2.2.7): with field names not stored (cuttle's documented
# choice; the RFC also lets a shared cache store it without the fields), and
# without them not stored even beside public (the most restrictive wins, 4.2.1)
for cc in "private=%22Set-Cookie%22,%20max-age=60" "public,%20private,%20max-age=60"; do
    mark
    id="priv-$(echo "$cc" | cut -c1-12 | tr -c 'a-z0-9\n' _)"
    script "$id" "cc=$cc&h=Set-Cookie:id=1&s=100" "cc=$cc&h=Set-Cookie:id=2&s=200"
    cc=$(decoded "$cc")
    get "$id"
    expect_miss "$cc, first" "$id" 1 TCP_MISS/200 "$SHA100"
    get "$id"
    expect_miss "$cc, second" "$id" 2 TCP_MISS/200 "$SHA200"
    expect "$cc, second: Set-Cookie" "$(header Set-Cookie)" id=2
    expect "$cc: origin requests" "$(seen_count "$id")" 2
    pass_if_ok "a Cache-Control: $cc reply is not stored"
done

# --- must-understand (5.2.2.3): with a status cuttle understands, no-store
# is ignored and the reply is stored; with an unknown one it is not stored
mark
script mu1 "cc=must-understand,%20no-store,%20max-age=60&s=100" "status=500"
get mu1
expect_miss "must-understand, no-store, 200, first" mu1 1 TCP_MISS/200 "$SHA100"
get mu1
# Squid 5.7 does not implement must-understand, so no-store holds there (as
# 5.2.2.3 expects of such a cache): its second request gets the origin's 500
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect_hit "must-understand, no-store, 200, second" mu1 2 "$SHA100"
    expect "must-understand, no-store, 200: origin requests" "$(seen_count mu1)" 1
fi
pass_if_ok "must-understand with a 200 is stored despite no-store"
mark
script mu2 "status=299&cc=must-understand,%20no-store,%20max-age=60&s=100" "status=299&cc=must-understand,%20no-store,%20max-age=60&s=200"
get mu2
expect "must-understand, 299, first: status" "$CODE" 299
expect_miss "must-understand, 299, first" mu2 1 TCP_MISS/299 "$SHA100"
get mu2
expect "must-understand, 299, second: status" "$CODE" 299
expect_miss "must-understand, 299, second" mu2 2 TCP_MISS/299 "$SHA200"
expect "must-understand, 299: origin requests" "$(seen_count mu2)" 2
pass_if_ok "must-understand with an unknown status (299) is not stored"

# --- immutable (RFC 8246): a fresh immutable reply 10 s old answers a
# browser reload (request max-age=0) from the cache, where a reply without
# immutable is validated; a forced reload (no-cache) still goes to the origin
mark
script imm1 "cc=max-age=60,%20immutable&etag=%22i1%22&s=100&h=Date:$(http_date -10)" \
    "cc=max-age=60,%20immutable&etag=%22i2%22&s=200" "status=500"
script imm2 "cc=max-age=60&etag=%22i1%22&s=100&h=Date:$(http_date -10)" "status=304&etag=%22i1%22&cc=max-age=60"
get imm1
get imm1 -H 'Cache-Control: max-age=0'
expect_hit "immutable, reload with max-age=0" imm1 2 "$SHA100"
expect "immutable, reload with max-age=0: origin requests" "$(seen_count imm1)" 1
get imm2
get imm2 -H 'Cache-Control: max-age=0'
validated imm2 "without immutable, reload with max-age=0" 2 '"i1"' "$SHA100"
get imm1 -H 'Cache-Control: no-cache'
expect "immutable, forced reload: status" "$CODE" 200
expect "immutable, forced reload: body (the origin's new reply)" "$(body_sha)" "$SHA200"
expect "immutable, forced reload: origin requests" "$(seen_count imm1)" 2
expect "immutable, forced reload: origin's If-None-Match" "$(seen_field imm1 2 If-None-Match)" ""
# Squid 5.7 logs a reload TCP_MISS (request-directives.sh)
[ -n "$CACHE_TEST_SQUID" ] ||
    expect "immutable, forced reload: access.log" "$(log_code imm1 3)" TCP_CLIENT_REFRESH_MISS/200
get imm1
expect_hit "immutable, after the forced reload" imm1 4 "$SHA200"
pass_if_ok "a fresh immutable reply is not revalidated on a reload (max-age=0), only on a forced one (no-cache)"

# ... Pragma: no-cache is a forced reload too; a stale immutable reply is
# validated like any other, on a plain request and on a reload
mark
script imm3 "cc=max-age=60,%20immutable&etag=%22i3%22&s=100" "cc=max-age=60,%20immutable&etag=%22i4%22&s=200"
get imm3
get imm3 -H 'Pragma: no-cache'
expect "immutable, Pragma: no-cache: body (the origin's new reply)" "$(body_sha)" "$SHA200"
expect "immutable, Pragma: no-cache: origin requests" "$(seen_count imm3)" 2
expect "immutable, Pragma: no-cache: origin's If-None-Match" "$(seen_field imm3 2 If-None-Match)" ""
script imm4 "cc=max-age=1,%20immutable&etag=%22i5%22&s=100&h=Date:$(http_date -10)" \
    "status=304&etag=%22i5%22&cc=max-age=1,%20immutable&h=Date:$(http_date -10)"
get imm4
get imm4
validated imm4 "stale immutable, plain request" 2 '"i5"' "$SHA100"
get imm4 -H 'Cache-Control: max-age=0'
validated imm4 "stale immutable, reload with max-age=0" 3 '"i5"' "$SHA100"
pass_if_ok "Pragma: no-cache reloads a fresh immutable reply; a stale immutable reply is validated (plain request and reload)"

# --- directive names are case-insensitive (5.2)
# Squid 5.7 compares them case-sensitively: it ignores MAX-AGE=60 (and
# revalidates) and No-Store (and stores)
mark
script case1 "cc=MAX-AGE=60&s=100" "status=500"
get case1
expect_miss "MAX-AGE=60, first" case1 1 TCP_MISS/200 "$SHA100"
get case1
[ -n "$CACHE_TEST_SQUID" ] || expect_hit "MAX-AGE=60, second" case1 2 "$SHA100"
[ -n "$CACHE_TEST_SQUID" ] || expect "MAX-AGE=60: origin requests" "$(seen_count case1)" 1
script case2 "cc=No-Store,%20max-age=60&s=100" "cc=No-Store,%20max-age=60&s=200"
get case2
get case2
expect "No-Store, second: status" "$CODE" 200
[ -n "$CACHE_TEST_SQUID" ] || expect_miss "No-Store, second" case2 2 TCP_MISS/200 "$SHA200"
[ -n "$CACHE_TEST_SQUID" ] || expect "No-Store: origin requests" "$(seen_count case2)" 2
pass_if_ok "directive names are case-insensitive (MAX-AGE=60 is a hit, No-Store is not stored)"

# --- duplicate max-age (4.2.1: the first occurrence, or stale): the first
# counts, in one field line or in two
mark
script dup1 "cc=max-age=60,%20max-age=0&etag=%22d%22&s=100" "status=500"
get dup1
get dup1
expect_hit "max-age=60, max-age=0, second" dup1 2 "$SHA100"
expect "max-age=60, max-age=0: origin requests" "$(seen_count dup1)" 1
script dup2 "cc=max-age=0,%20max-age=60&etag=%22d%22&s=100" "status=304&etag=%22d%22"
get dup2
get dup2
validated dup2 "max-age=0, max-age=60, second" 2 '"d"' "$SHA100"
script dup3 "h=Cache-Control:max-age=0&h=Cache-Control:max-age=60&etag=%22d%22&s=100" "status=304&etag=%22d%22"
get dup3
get dup3
validated dup3 "two Cache-Control lines, max-age=0 then 60, second" 2 '"d"' "$SHA100"
pass_if_ok "of duplicate max-age directives the first counts"

# --- invalid values: max-age=abc and max-age=-1 make the reply stale
# (4.2.1); the quoted form max-age="60" is accepted (5.2: recipients ought to
# accept both token and quoted-string arguments)
for cc in "max-age=abc" "max-age=-1"; do
    mark
    id="inv-$(echo "$cc" | tr -c 'a-z0-9\n' _)"
    script "$id" "cc=$cc&etag=%22v%22&s=100" "status=304&etag=%22v%22"
    get "$id"
    expect_miss "$cc, first" "$id" 1 TCP_MISS/200 "$SHA100"
    get "$id"
    validated "$id" "$cc, second" 2 '"v"' "$SHA100"
    pass_if_ok "a Cache-Control: $cc reply is stale: validated before use"
done
mark
script quoted1 "cc=max-age=%2260%22&s=100" "status=500"
get quoted1
get quoted1
# Squid 5.7 ignores a quoted max-age (and revalidates)
[ -n "$CACHE_TEST_SQUID" ] || expect_hit "max-age=\"60\", second" quoted1 2 "$SHA100"
[ -n "$CACHE_TEST_SQUID" ] || expect "max-age=\"60\": origin requests" "$(seen_count quoted1)" 1
pass_if_ok "max-age=\"60\" (quoted) is accepted"

# --- Expires (5.3): invalid ("0") or past means stale; future (without
# max-age) means fresh; max-age overrides a past Expires

# expires_stale ID WHAT SPEC : a reply with SPEC (and an ETag) is stale: validated
expires_stale() {
    mark
    script "$1" "$3&etag=%22x%22&s=100" "status=304&etag=%22x%22"
    get "$1"
    expect_miss "$2, first" "$1" 1 TCP_MISS/200 "$SHA100"
    get "$1"
    validated "$1" "$2, second" 2 '"x"' "$SHA100"
    pass_if_ok "a reply with $2 is stale: validated before use"
}
# expires_fresh ID WHAT SPEC : a reply with SPEC is fresh: a hit
expires_fresh() {
    mark
    script "$1" "$3&s=100" "status=500"
    get "$1"
    expect_miss "$2, first" "$1" 1 TCP_MISS/200 "$SHA100"
    get "$1"
    expect_hit "$2, second" "$1" 2 "$SHA100"
    expect "$2: origin requests" "$(seen_count "$1")" 1
    pass_if_ok "a reply with $2 is fresh: a hit"
}
expires_stale exp1 "Expires: 0 (invalid)" "exp=0"
expires_stale exp2 "Expires an hour ago" "exp=$(http_date -3600)"
expires_fresh exp3 "Expires in an hour (no max-age)" "exp=$(http_date 3600)"
expires_fresh exp4 "max-age=60 and Expires an hour ago" "cc=max-age=60&exp=$(http_date -3600)"

# --- an Age of 9999999999 (over 2^31): stale, so validated; served stale
# on request (max-stale) with Age: 2147483648 (1.2.2, 5.1), no overflow
mark
script age1 "cc=max-age=60&etag=%22a%22&s=100&h=Age:9999999999" "status=304&etag=%22a%22&cc=max-age=60" "status=500"
get age1
expect_miss "Age: 9999999999, first" age1 1 TCP_MISS/200 "$SHA100"
get age1
validated age1 "Age: 9999999999, second" 2 '"a"' "$SHA100"
get age1 -H 'Cache-Control: max-stale'
expect_hit "Age: 9999999999, max-stale" age1 3 "$SHA100"
expect "Age: 9999999999: origin requests" "$(seen_count age1)" 2
# Squid 5.7 sends 1410065407 (9999999999 modulo 2^32: an overflow)
[ -n "$CACHE_TEST_SQUID" ] || expect "Age: 9999999999, max-stale: Age" "$(header Age)" 2147483648
pass_if_ok "an Age over 2^31 makes the reply stale; a hit says Age: 2147483648"

# --- Set-Cookie and other end-to-end fields are stored and sent with a hit
# (RFC 9111 3.1: a cache stores every field; Set-Cookie does not prevent
# caching, section 7.3)
mark
script cookie1 "cc=max-age=60&s=100&h=Set-Cookie:id=42&h=X-Custom:v1&h=Content-Language:de" "status=500"
get cookie1
expect_miss "Set-Cookie, first" cookie1 1 TCP_MISS/200 "$SHA100"
expect "Set-Cookie, first: Set-Cookie" "$(header Set-Cookie)" id=42
get cookie1
expect_hit "Set-Cookie, second" cookie1 2 "$SHA100"
expect "Set-Cookie, second: X-Custom" "$(header X-Custom)" v1
expect "Set-Cookie, second: Content-Language" "$(header Content-Language)" de
# Squid 5.7 removes Set-Cookie from its hits
[ -n "$CACHE_TEST_SQUID" ] || expect "Set-Cookie, second: Set-Cookie" "$(header Set-Cookie)" id=42
expect "Set-Cookie: origin requests" "$(seen_count cookie1)" 1
pass_if_ok "Set-Cookie, X-Custom and Content-Language are stored and sent with a hit"

cache_stop
checks_done
