#!/bin/sh
# The Age a reply arrives with (RFC 9111 section 5.1): of a list value the
# first member counts, so a max-age=3600 reply with "Age: 7200, 0" is stale
# and validated before use, while "Age: 0, 7200" is fresh (a hit); an Age
# whose first member is not delta-seconds ("x, 7200", "-1") is ignored, so
# the reply is fresh. Squid 5.7 (CACHE_TEST_SQUID) reads the list's first
# member too; it reads a malformed Age as no Age as well.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start

SHA100=$(pattern_sha 100)

# age_stale ID WHAT AGE : a max-age=3600 reply with Age: AGE is stale: the
# second request is a validation the origin answers 304
age_stale() {
    mark
    script "$1" "cc=max-age=3600&etag=%22a%22&s=100&h=Age:$3" "status=304&etag=%22a%22&cc=max-age=3600"
    get "$1"
    expect_miss "$2, first" "$1" 1 TCP_MISS/200 "$SHA100"
    get "$1"
    expect "$2, second: status" "$CODE" 200
    expect "$2, second: body" "$(body_sha)" "$SHA100"
    expect "$2, second: access.log" "$(log_code "$1" 2)" TCP_REFRESH_UNMODIFIED/200
    expect "$2, second: the revalidation's If-None-Match" "$(seen_field "$1" 2 If-None-Match)" '"a"'
    expect "$2: origin requests" "$(seen_count "$1")" 2
    pass_if_ok "a max-age=3600 reply with $2 is stale: validated before use"
}
# age_fresh ID WHAT AGE : a max-age=3600 reply with Age: AGE is fresh: a hit
age_fresh() {
    mark
    script "$1" "cc=max-age=3600&etag=%22a%22&s=100&h=Age:$3" "status=500"
    get "$1"
    expect_miss "$2, first" "$1" 1 TCP_MISS/200 "$SHA100"
    get "$1"
    expect_hit "$2, second" "$1" 2 "$SHA100"
    expect "$2: origin requests" "$(seen_count "$1")" 1
    pass_if_ok "a max-age=3600 reply with $2 is fresh: a hit"
}

age_stale list1 "Age: 7200, 0" "7200,%200"
age_fresh list2 "Age: 0, 7200" "0,%207200"
age_fresh bad1 "Age: x, 7200 (invalid: ignored)" "x,%207200"
age_fresh bad2 "Age: -1 (invalid: ignored)" "-1"

# the Age of a hit counts from the first member too
mark
script list3 "cc=max-age=3600&s=100&h=Age:100,%205" "status=500"
get list3
get list3
expect_hit "Age: 100, 5, second" list3 2 "$SHA100"
expect_match "Age: 100, 5, second: Age" "$(header Age)" '^1[0-9][0-9]$'
pass_if_ok "a hit's Age counts from the first member of the stored Age list"

cache_stop
checks_done
