#!/bin/sh
# A final status cuttle does not know (299, 499, 599) is stored when the
# reply has explicit freshness (max-age, s-maxage, Expires) or public, and
# reused while fresh (RFC 9111 section 3: only must-understand asks the
# cache to know the status); without any it is not stored (such a status is
# not heuristically cacheable), nor with must-understand (response-
# directives.sh). A stored 599 is validated when stale like any reply.
# Squid 5.7 (CACHE_TEST_SQUID) never stores a status it does not know: the
# checks that it would fail are skipped there (doc/differences.md).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start

SHA100=$(pattern_sha 100)
SHA200=$(pattern_sha 200)

for status in 299 499 599; do
    for cc in "cc=max-age=60" "cc=s-maxage=60" "cc=public,%20max-age=60"; do
        mark
        id="st$status-$(echo "$cc" | tr -c 'a-z0-9\n' _)"
        script "$id" "status=$status&$cc&s=100" "status=$status&$cc&s=200"
        get "$id"
        expect "$status $cc, first: status" "$CODE" "$status"
        expect_miss "$status $cc, first" "$id" 1 "TCP_MISS/$status" "$SHA100"
        get "$id"
        expect "$status $cc, second: status" "$CODE" "$status"
        if [ -z "$CACHE_TEST_SQUID" ]; then
            expect "$status $cc, second: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
            expect "$status $cc, second: access.log" "$(log_code "$id" 2)" "TCP_MEM_HIT/$status"
            expect "$status $cc, second: body" "$(body_sha)" "$SHA100"
            expect "$status $cc: origin requests" "$(seen_count "$id")" 1
        else
            expect "$status $cc, second (Squid 5.7): access.log" "$(log_code "$id" 2)" "TCP_MISS/$status"
        fi
        pass_if_ok "a $status reply with $cc is stored and served while fresh"
    done
done

# an Expires in the future makes it fresh too
mark
FUTURE=$(date -u -d "@$(( $(date +%s) + 3600 ))" '+%a,%%20%d%%20%b%%20%Y%%20%H:%M:%S%%20GMT')
script exp499 "status=499&exp=$FUTURE&s=100" "status=499&s=200"
get exp499
get exp499
expect "499 Expires in an hour, second: status" "$CODE" 499
[ -n "$CACHE_TEST_SQUID" ] || expect "499 Expires in an hour, second: access.log" "$(log_code exp499 2)" TCP_MEM_HIT/499
[ -n "$CACHE_TEST_SQUID" ] || expect "499 Expires in an hour: origin requests" "$(seen_count exp499)" 1
pass_if_ok "a 499 reply with an Expires in the future is stored and served while fresh"

# nothing explicit: not stored (no heuristic for an unknown status)
mark
script heur299 "status=299&lm=Mon,%2001%20Jan%202024%2000:00:00%20GMT&s=100" "status=299&s=200"
get heur299
get heur299
expect_miss "299 with only Last-Modified, second" heur299 2 TCP_MISS/299 "$SHA200"
expect "299 with only Last-Modified: origin requests" "$(seen_count heur299)" 2
pass_if_ok "a 299 reply without explicit freshness is not stored"

# stale: validated like any other reply
mark
script stale599 "status=599&cc=max-age=0&etag=%22u%22&s=100" "status=304&etag=%22u%22&cc=max-age=60" "status=500"
get stale599
get stale599
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect "599 max-age=0, second: status" "$CODE" 599
    expect "599 max-age=0, second: access.log" "$(log_code stale599 2)" TCP_REFRESH_UNMODIFIED/599
    expect "599 max-age=0, second: body" "$(body_sha)" "$SHA100"
    expect "599 max-age=0: the revalidation's If-None-Match" "$(seen_field stale599 2 If-None-Match)" '"u"'
    get stale599
    expect "599 after its 304 (max-age=60): access.log" "$(log_code stale599 3)" TCP_MEM_HIT/599
    expect "599: origin requests" "$(seen_count stale599)" 2
fi
pass_if_ok "a stale 599 is revalidated; the 304 freshens it"

cache_stop
checks_done
