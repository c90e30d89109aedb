#!/bin/sh
# refresh_pattern, with Squid 5.7's semantics (RFC 9111 section 4.2.2 for
# the heuristic): the first line whose regex matches the URL (case-sensitive
# unless -i) gives a reply with no explicit freshness a lifetime of PERCENT of
# (Date - Last-Modified) when Last-Modified is before Date, else MIN, never
# more than MAX (MIN and MAX in minutes); only for a heuristically cacheable
# status (RFC 9110 section 15.1). Explicit freshness (max-age, Expires) wins.
# The options depart from RFC 9111 only on the line that has them:
# override-expire, override-lastmod, reload-into-ims, ignore-reload,
# ignore-no-store, ignore-private, store-stale, max-stale=N; without them the
# same replies and requests get the RFC behaviour (refresh-ims: see below).
#
# The same lines are loaded twice, without their options and then with them,
# and each option's case runs under both. Dates are placed in the past with
# the origin's h=Date: and lm= (never more than a day back, which Squid
# would take for a clock error), so ages and LM-factors are known without
# waiting; every margin is 20 s or more.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs it against Squid 5.7. Guarded with
# [ -n "$CACHE_TEST_SQUID" ] || (cuttle follows the RFC or Squid's
# documentation where Squid 5.7 does not):
# - 404, 405, 414 and 501 are heuristically cacheable (RFC 9110 section
#   15.1); Squid 5.7 caches them only as negative_ttl errors (none by default);
# - a 302 marked public may be given a heuristic lifetime (RFC 9111 section
#   4.2.2); Squid 5.7 stores a 302 only with an Expires after its Date;
# - a reload is logged TCP_CLIENT_REFRESH_MISS (Squid's documented code);
#   Squid 5.7 logs TCP_MISS unless some refresh_pattern line has
#   reload-into-ims or ignore-reload;
# - without store-stale, a reply with no freshness and no validator is not
#   stored (Squid's documentation: "By default, Squid will not cache such
#   responses"); Squid 5.7 stores it, its StoreEntry::lastModified() falling
#   back to the Date.
# With ignore-private the private reply is stored but revalidated before
# every use (Squid's ENTRY_REVALIDATE_ALWAYS). refresh-ims sends a client's
# If-Modified-Since on to the origin (as a revalidation of the stored reply).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

# at SECONDS_AGO [NOW] : the HTTP-date that long before NOW (default: now)
at() { date -u -d "@$((${2:-$(date +%s)} - $1))" '+%a, %d %b %Y %H:%M:%S GMT'; }
# q TEXT : TEXT percent-encoded for a script line (spaces only)
q() { printf '%s' "$1" | sed 's/ /%20/g'; }
# dated AGE LM_AGE : sets DATED to the script fields of a Date AGE seconds
# ago and a Last-Modified LM_AGE seconds ago, and LM to that Last-Modified
# (both from the same second: a Last-Modified one second before the Date
# would make the LM-factor decide instead of MIN)
dated() {
    local now
    now=$(date +%s)
    LM=$(at "$2" "$now")
    DATED="h=Date:$(q "$(at "$1" "$now")")&lm=$(q "$LM")"
}
SHA=$(pattern_sha 100)
SHA2=$(pattern_sha 200)

# twice ID WHAT REPLY [CURL ARGS] : the origin answers /s/ID with REPLY (a
# 100-byte body), then with a bare 304, then 500; a miss, then a second
# request with CURL ARGS
twice() {
    local id=$1 what=$2 reply=$3
    shift 3
    script "$id" "$reply" "status=304" "status=500"
    get "$id"
    expect_miss "$what, first" "$id" 1 TCP_MISS/200 "$SHA"
    get "$id" "$@"
}
# fresh ID WHAT : the second request was a hit; the origin was asked once
fresh() {
    expect_hit "$2, second" "$1" 2 "$SHA"
    expect "$2: origin requests" "$(seen_count "$1")" 1
}
# revalidated ID WHAT : the second request was stale: the origin got
# If-Modified-Since with the stored Last-Modified ($LM), said 304, and the
# client got the stored body
revalidated() {
    expect "$2, second: status" "$CODE" 200
    expect "$2, second: body" "$(body_sha)" "$SHA"
    expect "$2, second: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
    expect "$2, second: access.log" "$(log_code "$1" 2)" TCP_REFRESH_UNMODIFIED/200
    expect "$2: origin requests" "$(seen_count "$1")" 2
    expect "$2: the revalidation's If-Modified-Since" "$(seen_field "$1" 2 If-Modified-Since)" "$LM"
}
# not_stored ID WHAT CODE : the second request went to the origin as a plain miss
not_stored() {
    expect "$2, second: status" "$CODE" "$3"
    expect "$2, second: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
    expect "$2, second: access.log" "$(log_code "$1" 2)" "TCP_MISS/$3"
    expect "$2: origin requests" "$(seen_count "$1")" 2
    expect "$2: the second origin request's If-Modified-Since" "$(seen_field "$1" 2 If-Modified-Since)" ""
    expect "$2: the second origin request's If-None-Match" "$(seen_field "$1" 2 If-None-Match)" ""
}

# proxy OPTIONS : (re)starts the proxy with the refresh_pattern lines, each
# with its option when OPTIONS is set, then squid.conf.default's lines
proxy() {
    local o=$1
    cache_start \
        "refresh_pattern -i /s/ICASE- 60 0% 60" \
        "refresh_pattern /s/SCASE- 60 0% 60" \
        "refresh_pattern /s/min- 5 20% 60" \
        "refresh_pattern /s/pct- 0 50% 60" \
        "refresh_pattern /s/pcth- 0 500% 60" \
        "refresh_pattern /s/max- 0 100% 1" \
        "refresh_pattern /s/maxok- 0 100% 60" \
        "refresh_pattern /s/maxmin- 10 0% 1" \
        "refresh_pattern /s/st- 60 0% 60" \
        "refresh_pattern /s/expl- 60 100% 60" \
        "refresh_pattern /s/expz- 0 0% 0" \
        "refresh_pattern /s/oexp- 10 20% 60 ${o:+override-expire}" \
        "refresh_pattern /s/olm- 10 20% 60 ${o:+override-lastmod}" \
        "refresh_pattern /s/rims- 60 0% 60 ${o:+reload-into-ims}" \
        "refresh_pattern /s/irel- 60 0% 60 ${o:+ignore-reload}" \
        "refresh_pattern /s/ins- 0 20% 60 ${o:+ignore-no-store}" \
        "refresh_pattern /s/ipriv- 0 20% 60 ${o:+ignore-private}" \
        "refresh_pattern /s/rfims- 60 0% 60 ${o:+refresh-ims}" \
        "refresh_pattern /s/sst- 0 0% 0 ${o:+store-stale}" \
        "refresh_pattern /s/mst- 0 0% 0 ${o:+max-stale=60}" \
        "refresh_pattern ^ftp: 1440 20% 10080" \
        "refresh_pattern -i (/cgi-bin/|\\?) 0 0% 0" \
        "refresh_pattern . 0 20% 4320"
}

# ---------------------------------------------------------------- no options
proxy ""

# the regex, and -i: the same reply (Date = Last-Modified, so MIN decides)
# is fresh for an hour under a matching line and stale at once under "."
mark
dated 10 10
twice icase-1 "-i ICASE, URL icase" "$DATED&s=100"
fresh icase-1 "-i ICASE, URL icase"
dated 10 10
twice SCASE-2 "SCASE, URL SCASE" "$DATED&s=100"
fresh SCASE-2 "SCASE, URL SCASE"
dated 10 10
twice scase-1 "SCASE (no -i), URL scase" "$DATED&s=100"
revalidated scase-1 "SCASE (no -i), URL scase"
pass_if_ok "refresh_pattern regexes match the URL case-sensitively, and -i ignores case"

# squid.conf.default's lines: a URL with a query matches (/cgi-bin/|\?) 0 0% 0
# (stale at once), the same reply without a query "." 0 20% 4320 (fresh)
mark
dated 10 10010
script q-1 "$DATED&s=100" "status=304" "status=500"
fetch_url "$(url q-1)?x=1"
fetch_url "$(url q-1)?x=1"
expect "?x=1, second: body" "$(body_sha)" "$SHA"
# (access.log strips the query: strip_query_terms)
expect "?x=1, second: access.log" "$(log_code q-1 2)" TCP_REFRESH_UNMODIFIED/200
expect "?x=1: origin requests" "$(seen_count q-1)" 2
expect "?x=1: the revalidation's If-Modified-Since" "$(seen_field q-1 2 If-Modified-Since)" "$LM"
dated 10 10010
twice q-2 "no query, 20% of 10000 s" "$DATED&s=100"
fresh q-2 "no query, 20% of 10000 s"
pass_if_ok "squid.conf.default: a URL with a query is stale at once, the same reply without one fresh by 20% of its age"

# MIN: without a Last-Modified before Date, a reply is fresh for MIN minutes
mark
dated 200 200
twice min-1 "min 5, 200 s old" "$DATED&s=100"
fresh min-1 "min 5, 200 s old"
dated 400 400
twice min-2 "min 5, 400 s old" "$DATED&s=100"
revalidated min-2 "min 5, 400 s old"
twice min-3 "min 5, no dates or validators" "s=100"
fresh min-3 "min 5, no dates or validators"
pass_if_ok "MIN: a reply without Last-Modified before Date is fresh for MIN minutes"

# PERCENT: the LM-factor, (Date - Last-Modified) * PERCENT, MIN not applying
mark
dated 100 1100
twice pct-1 "50% of 1000 s, 100 s old" "$DATED&s=100"
fresh pct-1 "50% of 1000 s, 100 s old"
dated 100 250
twice pct-2 "50% of 150 s, 100 s old" "$DATED&s=100"
revalidated pct-2 "50% of 150 s, 100 s old"
dated 100 150
twice pcth-1 "500% of 50 s, 100 s old" "$DATED&s=100"
fresh pcth-1 "500% of 50 s, 100 s old"
pass_if_ok "PERCENT: a reply is fresh for PERCENT of (Date - Last-Modified), above 100% too"

# MAX bounds the LM-factor and MIN
mark
dated 100 10100
twice max-1 "100% of 10000 s, max 1, 100 s old" "$DATED&s=100"
revalidated max-1 "100% of 10000 s, max 1, 100 s old"
dated 100 10100
twice maxok-1 "100% of 10000 s, max 60, 100 s old" "$DATED&s=100"
fresh maxok-1 "100% of 10000 s, max 60, 100 s old"
dated 100 100
twice maxmin-1 "min 10, max 1, 100 s old" "$DATED&s=100"
revalidated maxmin-1 "min 10, max 1, 100 s old"
pass_if_ok "MAX: the heuristic lifetime never exceeds MAX minutes, whether from PERCENT or MIN"

# heuristics only for heuristically cacheable status codes (min 60: an hour)
for st in 200 203 300 301 308 410 404 405 414 501; do
    mark
    script "st-$st" "status=$st&s=100&h=Location:http://127.0.0.1/x" "status=500"
    get "st-$st"
    expect "$st, first: access.log" "$(log_code "st-$st" 1)" "TCP_MISS/$st"
    get "st-$st"
    case $st in
    404 | 405 | 414 | 501)
        # Squid 5.7 caches these only for negative_ttl (see the top)
        [ -n "$CACHE_TEST_SQUID" ] && continue
        ;;
    esac
    expect "$st, second: status" "$CODE" "$st"
    expect "$st, second: body" "$(body_sha)" "$SHA"
    expect "$st, second: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
    expect "$st, second: access.log" "$(log_code "st-$st" 2)" "TCP_MEM_HIT/$st"
    expect "$st: origin requests" "$(seen_count "st-$st")" 1
    pass_if_ok "a $st without explicit freshness is fresh by refresh_pattern (heuristically cacheable)"
done
for st in 302 303 307 403 500; do
    mark
    # a validator too: it would be revalidated, not fetched again, if stored
    script "st-$st" "status=$st&s=100&etag=%22s$st%22&h=Location:http://127.0.0.1/x" \
        "status=$st&s=100&etag=%22s$st%22&h=Location:http://127.0.0.1/x" "status=500"
    get "st-$st"
    expect "$st, first: access.log" "$(log_code "st-$st" 1)" "TCP_MISS/$st"
    get "st-$st"
    expect "$st, second: body" "$(body_sha)" "$SHA"
    not_stored "st-$st" "$st" "$st"
    pass_if_ok "a $st without explicit freshness gets no heuristic lifetime: not stored"
done
mark
script st-302x "status=302&s=100&cc=max-age=600&h=Location:http://127.0.0.1/x" "status=500"
get st-302x
get st-302x
expect "302 max-age=600, second: status" "$CODE" 302
expect "302 max-age=600, second: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
expect "302 max-age=600, second: access.log" "$(log_code st-302x 2)" TCP_MEM_HIT/302
expect "302 max-age=600: origin requests" "$(seen_count st-302x)" 1
if [ -z "$CACHE_TEST_SQUID" ]; then
    # RFC 9111 4.2.2: public makes a heuristic lifetime possible (not in Squid 5.7)
    script st-302p "status=302&s=100&cc=public&h=Location:http://127.0.0.1/x" "status=500"
    get st-302p
    get st-302p
    expect "302 public, second: status" "$CODE" 302
    expect "302 public, second: access.log" "$(log_code st-302p 2)" TCP_MEM_HIT/302
    expect "302 public: origin requests" "$(seen_count st-302p)" 1
fi
pass_if_ok "a 302 with max-age (or public) is stored and served"

# explicit freshness wins over generous heuristics (min 60, 100%), and over
# none (0 0% 0)
mark
dated 10 80010
twice expl-1 "max-age=0, Last-Modified a day old" "cc=max-age=0&$DATED&s=100"
revalidated expl-1 "max-age=0, Last-Modified a day old"
dated 10 80010
twice expl-2 "Expires 5 s ago" "exp=$(q "$(at 5)")&$DATED&s=100"
revalidated expl-2 "Expires 5 s ago"
twice expz-1 "max-age=600 under 0 0% 0" "cc=max-age=600&s=100"
fresh expz-1 "max-age=600 under 0 0% 0"
pass_if_ok "explicit freshness (max-age, Expires) wins over the refresh_pattern heuristic"

# ---------------------------------------------------------------- each option,
# first without it (this proxy), then with it
# override_expire SUFFIX WITH
override_expire() {
    mark
    dated 100 100
    twice "oexp-1$1" "max-age=30, 100 s old, min 10${2:+, override-expire}" "cc=max-age=30&$DATED&s=100"
    if [ -n "$2" ]; then
        fresh "oexp-1$1" "max-age=30, 100 s old, min 10, override-expire"
    else
        revalidated "oexp-1$1" "max-age=30, 100 s old, min 10"
    fi
    # override-expire never shortens an explicit lifetime
    dated 700 700
    twice "oexp-2$1" "max-age=1200, 700 s old, min 10${2:+, override-expire}" "cc=max-age=1200&$DATED&s=100"
    fresh "oexp-2$1" "max-age=1200, 700 s old, min 10${2:+, override-expire}"
    if [ -n "$2" ]; then
        pass_if_ok "override-expire: an explicit lifetime is raised to MIN, never lowered"
    else
        pass_if_ok "without override-expire, an explicit lifetime shorter than MIN stands"
    fi
}
# override_lastmod SUFFIX WITH
override_lastmod() {
    mark
    dated 100 200
    twice "olm-1$1" "20% of 100 s, 100 s old, min 10${2:+, override-lastmod}" "$DATED&s=100"
    if [ -n "$2" ]; then
        fresh "olm-1$1" "20% of 100 s, 100 s old, min 10, override-lastmod"
    else
        revalidated "olm-1$1" "20% of 100 s, 100 s old, min 10"
    fi
    if [ -n "$2" ]; then
        pass_if_ok "override-lastmod: a recently modified reply's LM-factor lifetime is raised to MIN"
    else
        pass_if_ok "without override-lastmod, a recently modified reply's LM-factor lifetime stands (MIN does not apply)"
    fi
}
# reload SUFFIX WITH OPTION : a fresh stored reply (an hour by min 60, with
# validators), then reloads with Cache-Control: no-cache and Pragma: no-cache
reload() {
    local n what
    for n in 1 2; do
        mark
        if [ $n = 1 ]; then
            set -- "$1" "$2" "$3" -H 'Cache-Control: no-cache'
        else
            set -- "$1" "$2" "$3" -H 'Pragma: no-cache'
        fi
        what="reload ($5), ${2:-no option}"
        local id="$3-$n$1"
        dated 10 10
        if [ "$2" = reload-into-ims ]; then
            script "$id" "$DATED&etag=%22r$n%22&s=100" "status=304&etag=%22r$n%22" "status=500"
        else
            script "$id" "$DATED&etag=%22r$n%22&s=100" "etag=%22n$n%22&s=200" "status=500"
        fi
        get "$id"
        expect_miss "$what, first" "$id" 1 TCP_MISS/200 "$SHA"
        get "$id" "$4" "$5"
        case $2 in
        reload-into-ims)
            expect "$what: status" "$CODE" 200
            expect "$what: body (stored)" "$(body_sha)" "$SHA"
            expect "$what: access.log" "$(log_code "$id" 2)" TCP_REFRESH_UNMODIFIED/200
            expect "$what: origin requests" "$(seen_count "$id")" 2
            expect "$what: origin's If-Modified-Since" "$(seen_field "$id" 2 If-Modified-Since)" "$LM"
            expect "$what: origin's If-None-Match" "$(seen_field "$id" 2 If-None-Match)" "\"r$n\""
            ;;
        ignore-reload)
            expect_hit "$what" "$id" 2 "$SHA"
            expect "$what: origin requests" "$(seen_count "$id")" 1
            ;;
        *)
            expect "$what: status" "$CODE" 200
            expect "$what: body (the origin's new one)" "$(body_sha)" "$SHA2"
            expect "$what: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
            # Squid 5.7 logs TCP_MISS when no line has reload-into-ims or
            # ignore-reload (see the top)
            [ -n "$CACHE_TEST_SQUID" ] && [ -z "$1" ] ||
                expect "$what: access.log" "$(log_code "$id" 2)" TCP_CLIENT_REFRESH_MISS/200
            expect "$what: origin requests" "$(seen_count "$id")" 2
            expect "$what: origin's If-Modified-Since" "$(seen_field "$id" 2 If-Modified-Since)" ""
            expect "$what: origin's If-None-Match" "$(seen_field "$id" 2 If-None-Match)" ""
            ;;
        esac
        case $2 in
        reload-into-ims) pass_if_ok "reload-into-ims: a reload ($5) of a fresh stored reply becomes a conditional request" ;;
        ignore-reload) pass_if_ok "ignore-reload: a reload ($5) of a fresh stored reply is a hit" ;;
        *) pass_if_ok "a reload ($5) of a fresh stored reply, no reload option on its line: an unconditional origin request" ;;
        esac
    done
}
# ignore_cc ID SUFFIX DIRECTIVE OPTION : a reply with Cache-Control:
# DIRECTIVE, max-age=600, under a line with OPTION (ignore-no-store or
# ignore-private) or without it (OPTION empty)
ignore_cc() {
    local id="$1$2" what="Cache-Control: $3, max-age=600${4:+, $4}"
    mark
    dated 10 10
    if [ -n "$4" ]; then
        script "$id" "cc=$3,%20max-age=600&$DATED&s=100" "status=304" "status=500"
    else
        script "$id" "cc=$3,%20max-age=600&$DATED&s=100" "cc=$3,%20max-age=600&s=100" "status=500"
    fi
    get "$id"
    expect_miss "$what, first" "$id" 1 TCP_MISS/200 "$SHA"
    get "$id"
    if [ -z "$4" ]; then
        expect "$what, second: status" "$CODE" 200
        expect "$what, second: access.log" "$(log_code "$id" 2)" TCP_MISS/200
        expect "$what: origin requests" "$(seen_count "$id")" 2
        expect "$what: the second origin request's If-Modified-Since" "$(seen_field "$id" 2 If-Modified-Since)" ""
    elif [ "$3" = private ]; then
        # stored, and revalidated before every use (see the top)
        expect "$what, second: status" "$CODE" 200
        expect "$what, second: body" "$(body_sha)" "$SHA"
        expect "$what, second: access.log" "$(log_code "$id" 2)" TCP_REFRESH_UNMODIFIED/200
        expect "$what: origin requests" "$(seen_count "$id")" 2
        expect_match "$what: a revalidation" "$(seen_field "$id" 2 If-Modified-Since)" "GMT$"
    else
        fresh "$id" "$what"
    fi
    if [ -n "$4" ]; then
        pass_if_ok "$4: a Cache-Control: $3, max-age=600 reply is stored and served"
    else
        pass_if_ok "a Cache-Control: $3, max-age=600 reply is not stored without ignore-$3 on its line"
    fi
}
# refresh_ims SUFFIX : without refresh-ims, a client If-Modified-Since is
# answered from a fresh stored reply; with it (SUFFIX o), it goes on to the
# origin as a revalidation, and the client gets the 304
refresh_ims() {
    local id="rfims-1$1"
    mark
    dated 10 10
    script "$id" "$DATED&s=100" "status=304" "status=500"
    get "$id"
    get "$id" -H "If-Modified-Since: $LM"
    if [ -z "$1" ]; then
        expect "If-Modified-Since, no refresh-ims: status" "$CODE" 304
        expect "If-Modified-Since, no refresh-ims: access.log" "$(log_code "$id" 2)" TCP_IMS_HIT/304
        expect "If-Modified-Since, no refresh-ims: origin requests" "$(seen_count "$id")" 1
        pass_if_ok "without refresh-ims, a client If-Modified-Since is answered 304 from the cache"
    else
        expect "If-Modified-Since, refresh-ims: status" "$CODE" 304
        expect "If-Modified-Since, refresh-ims: access.log" "$(log_code "$id" 2)" TCP_REFRESH_UNMODIFIED/304
        expect "If-Modified-Since, refresh-ims: origin requests" "$(seen_count "$id")" 2
        expect_match "If-Modified-Since, refresh-ims: the origin's If-Modified-Since" \
            "$(seen_field "$id" 2 If-Modified-Since)" "GMT$"
        pass_if_ok "refresh-ims: a client If-Modified-Since of a fresh reply goes to the origin (TCP_REFRESH_UNMODIFIED/304)"
    fi
}
# store_stale SUFFIX WITH : a reply without freshness or validators (0 0% 0),
# then a request that accepts it stale (max-stale=600)
store_stale() {
    local id="sst-1$1" what="no freshness, no validator, max-stale=600 request${2:+, store-stale}"
    mark
    script "$id" "s=100" "s=100" "status=500"
    get "$id"
    expect_miss "$what, first" "$id" 1 TCP_MISS/200 "$SHA"
    get "$id" -H 'Cache-Control: max-stale=600'
    if [ -n "$2" ]; then
        fresh "$id" "$what"
    elif [ -z "$CACHE_TEST_SQUID" ]; then
        # Squid 5.7 stores it anyway (see the top)
        not_stored "$id" "$what" 200
        expect "$what, second: body" "$(body_sha)" "$SHA"
    fi
    if [ -n "$2" ]; then
        pass_if_ok "store-stale: a reply stale at once without validators is stored (and served to a max-stale request)"
    else
        pass_if_ok "without store-stale, a reply stale at once without validators is not stored"
    fi
}
# max_stale SUFFIX WITH : stale replies (max-age=0) 120 s and 30 s old; the
# revalidation gets a 500
max_stale() {
    local age id what
    for age in 120 30; do
        id="mst-$age$1"
        what="500 on revalidating a reply stale ${age} s${2:+, max-stale=60}"
        mark
        dated "$age" "$age"
        script "$id" "cc=max-age=0&$DATED&etag=%22m$age%22&s=100" "status=500&s=10"
        get "$id"
        expect_miss "$what, first" "$id" 1 TCP_MISS/200 "$SHA"
        get "$id"
        expect "$what: origin requests" "$(seen_count "$id")" 2
        expect "$what: the revalidation's If-None-Match" "$(seen_field "$id" 2 If-None-Match)" "\"m$age\""
        if [ -n "$2" ] && [ "$age" = 120 ]; then
            expect "$what: status" "$CODE" 500
            expect "$what: access.log" "$(log_code "$id" 2)" TCP_REFRESH_FAIL_ERR/500
        else
            expect "$what: status" "$CODE" 200
            expect "$what: body (stale)" "$(body_sha)" "$SHA"
            expect "$what: access.log" "$(log_code "$id" 2)" TCP_REFRESH_FAIL_OLD/200
        fi
        if [ -z "$2" ]; then
            pass_if_ok "$what: the stale reply is served (within max_stale, 1 week)"
        elif [ "$age" = 120 ]; then
            pass_if_ok "$what: the error is forwarded (past max-stale=60, whatever max_stale says)"
        else
            pass_if_ok "$what: the stale reply is served (within max-stale=60)"
        fi
    done
}

options_cases() {
    override_expire "$1" "${1:+override-expire}"
    override_lastmod "$1" "${1:+override-lastmod}"
    reload "$1" "${1:+reload-into-ims}" rims
    reload "$1" "${1:+ignore-reload}" irel
    ignore_cc "ins-1" "$1" no-store "${1:+ignore-no-store}"
    ignore_cc "ipriv-1" "$1" private "${1:+ignore-private}"
    store_stale "$1" "${1:+store-stale}"
    max_stale "$1" "${1:+max-stale=60}"
}
options_cases ""
refresh_ims ""

# ---------------------------------------------------------------- with options
proxy o
options_cases o
refresh_ims o
# the options act only on their own lines: under ".", a reload is still
# unconditional and a no-store reply is not stored
reload o "" dot
ignore_cc "dot-ns" o no-store ""

cache_stop
checks_done
