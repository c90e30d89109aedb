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

# age_stale ID WHAT AGE : a max-age=3600 reply with Age: AGE is stale
age_stale() {
    mark
    expect_stored_stale "$1" "$2" "cc=max-age=3600&h=Age:$3"
    pass_if_ok "a max-age=3600 reply with $2 is stale: validated before use"
}
# age_fresh ID WHAT AGE : a max-age=3600 reply with Age: AGE is fresh: a hit
age_fresh() {
    mark
    expect_stored_fresh "$1" "$2" "cc=max-age=3600&h=Age:$3"
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
