#!/bin/sh
# Vary on Accept-Language and Accept-Encoding (RFC 9111 section 4.1: a
# cache may normalise the selecting fields by knowledge of their
# semantics): requests whose values differ only in letter case, whitespace,
# the spelling of the weights (q=0.80, Q=0.8) or the order of members of
# different weight share one variant (a hit, one origin request); a member
# or a weight more or less is another variant; so is Accept-Language with
# equal weights in another order (the first may be preferred), while codings
# of equal weight share one whatever their order. Squid 5.7
# (CACHE_TEST_SQUID) compares the values as sent (its lists with the
# whitespace around commas removed): each second request is a miss there
# (doc/differences.md).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start

SHA100=$(pattern_sha 100)
SHA200=$(pattern_sha 200)

# shared ID FIELD FIRST SECOND : a Vary: FIELD reply to FIELD: FIRST answers
# FIELD: SECOND from the cache
shared() {
    mark
    script "$1" "cc=max-age=60&h=Vary:$2&s=100" "cc=max-age=60&h=Vary:$2&s=200"
    get "$1" -H "$2: $3"
    expect_miss "$2: $3, first" "$1" 1 TCP_MISS/200 "$SHA100"
    get "$1" -H "$2: $4"
    expect_hit_unless_squid "$2: $4 after $3" "$1" 2 TCP_MISS/200
    pass_if_ok "$2: '$4' shares the variant of '$3'"
}
# apart ID FIELD FIRST SECOND : ... and FIELD: SECOND is another variant
apart() {
    mark
    script "$1" "cc=max-age=60&h=Vary:$2&s=100" "cc=max-age=60&h=Vary:$2&s=200"
    get "$1" -H "$2: $3"
    get "$1" -H "$2: $4"
    expect_miss "$2: $4 after $3" "$1" 2 TCP_MISS/200 "$SHA200"
    expect "$2: $4 after $3: origin requests" "$(seen_count "$1")" 2
    get "$1" -H "$2: $3"
    [ -n "$CACHE_TEST_SQUID" ] || expect_hit "$2: $3 again" "$1" 3 "$SHA100"
    pass_if_ok "$2: '$4' is not the variant of '$3'"
}

shared lang1 Accept-Language "da, en-gb;q=0.8, en;q=0.7" "EN;Q=0.70 ,DA,en-GB ; q=0.800"
shared lang2 Accept-Language "fr-CH, fr;q=0.9" "fr-ch;q=1.0,FR;q=0.9"
apart lang3 Accept-Language "da, en" "en, da"
apart lang4 Accept-Language "da, en;q=0.5" "da, en;q=0.6"
apart lang5 Accept-Language "da" "da, en;q=0"
shared enc1 Accept-Encoding "gzip, deflate, br" "BR,gzip ,  deflate;q=1"
shared enc2 Accept-Encoding "gzip;q=0.5, identity" "identity;q=1.000, x-gzip;q=0.50"
apart enc3 Accept-Encoding "gzip" "gzip, br"

cache_stop
checks_done
