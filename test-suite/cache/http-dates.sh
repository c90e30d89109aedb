#!/bin/sh
# The HTTP-dates a cache reads (RFC 9110 section 5.6.7, RFC 9111 sections
# 4.2 and 5.3): an Expires an hour ahead makes a reply fresh (a hit) in each
# of the three formats, IMF-fixdate, the obsolete rfc850 and asctime, and in
# any letter case ("a cache recipient SHOULD match the field value
# case-insensitively", 4.2); an Expires an hour ago in the obsolete forms
# makes it stale, and one that is not an HTTP-date (a zone other than GMT,
# a word) means already expired: validated before use. A lower-case Last-
# Modified a day old gives the heuristic lifetime. Squid 5.7
# (CACHE_TEST_SQUID) reads the three formats and upper case the same way,
# but not "gmt" in lower case (doc/differences.md).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start "refresh_pattern . 0 20% 4320"

SHA100=$(pattern_sha 100)

# when OFFSET FORMAT : the date OFFSET seconds from now in date(1)'s FORMAT,
# percent-encoded for a script line
when() {
    LC_ALL=C date -u -d "@$(( $(date +%s) + $1 ))" "$2" | sed 's/ /%20/g'
}
IMF='+%a, %d %b %Y %H:%M:%S GMT'
RFC850='+%A, %d-%b-%y %H:%M:%S GMT'
ASCTIME='+%a %b %e %H:%M:%S %Y'
lower() { tr 'A-Z' 'a-z'; }
upper() { tr 'a-z' 'A-Z'; }

# fresh ID WHAT EXPIRES [lower] : a reply with that Expires is a hit the
# second time; with "lower", Squid 5.7 reads the date as invalid (it wants
# "GMT" in upper case) and validates: that is checked instead
fresh() {
    mark
    if [ -n "$CACHE_TEST_SQUID" ] && [ "${4:-}" = lower ]; then
        expect_stored_fresh "$1" "$2" "exp=$3" nohit
        expect "$2, second (Squid 5.7): access.log" "$(log_code "$1" 2)" TCP_REFRESH_FAIL_OLD/200
    else
        expect_stored_fresh "$1" "$2" "exp=$3"
    fi
    pass_if_ok "a reply with $2 is fresh: a hit"
}
# stale ID WHAT EXPIRES : a reply with that Expires is validated before use
stale() {
    mark
    expect_stored_stale "$1" "$2" "exp=$3"
    pass_if_ok "a reply with $2 is stale: validated before use"
}

fresh imf "Expires in an hour (IMF-fixdate)" "$(when 3600 "$IMF")"
fresh rfc850 "Expires in an hour (rfc850)" "$(when 3600 "$RFC850")"
fresh asctime "Expires in an hour (asctime)" "$(when 3600 "$ASCTIME")"
fresh imf-lower "Expires in an hour (IMF-fixdate, lower case)" "$(when 3600 "$IMF" | lower)" lower
fresh imf-upper "Expires in an hour (IMF-fixdate, upper case)" "$(when 3600 "$IMF" | upper)"
fresh rfc850-lower "Expires in an hour (rfc850, lower case)" "$(when 3600 "$RFC850" | lower)" lower
fresh asctime-upper "Expires in an hour (asctime, upper case)" "$(when 3600 "$ASCTIME" | upper)"
stale rfc850-past "Expires an hour ago (rfc850)" "$(when -3600 "$RFC850")"
stale asctime-past "Expires an hour ago (asctime)" "$(when -3600 "$ASCTIME")"
stale utc "Expires in an hour with UTC for GMT (invalid)" "$(when 3600 "$IMF" | sed 's/GMT$/UTC/')"
stale word "Expires: tomorrow (invalid)" "tomorrow"

# the Last-Modified heuristic (20% of a day: about 4.8 hours) from a lower-case date
mark
script lm "lm=$(when -86400 "$IMF" | lower)&s=100" "status=500"
get lm
get lm
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect_hit "a lower-case Last-Modified a day ago, second" lm 2 "$SHA100"
    expect "a lower-case Last-Modified: origin requests" "$(seen_count lm)" 1
else
    # Squid 5.7 ignores it: no heuristic lifetime, so it validates
    expect "a lower-case Last-Modified (Squid 5.7): access.log" "$(log_code lm 2)" TCP_REFRESH_FAIL_OLD/200
fi
pass_if_ok "a lower-case Last-Modified a day old gives the reply a heuristic lifetime"

cache_stop
checks_done
