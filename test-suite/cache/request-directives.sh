#!/bin/sh
# A request's cache directives (RFC 9111 section 5.2.1, Pragma 5.4):
# Cache-Control: no-cache and Pragma: no-cache (without Cache-Control) send
# the request to the origin unconditionally (TCP_CLIENT_REFRESH_MISS) and the
# new reply is stored; max-age=0 makes an aged fresh object be validated
# (TCP_REFRESH_UNMODIFIED) while a max-age it meets is a hit; only-if-cached
# answers 504 ERR_ONLY_IF_CACHED_MISS (TCP_MISS/504) without a usable stored
# object and hits with one; no-store is served but not stored.
#
# The reload's code is Squid's documented TCP_CLIENT_REFRESH_MISS ("the
# client issued a no-cache pragma"); Squid 5.7 itself logs TCP_MISS there,
# as its identifyStoreObject() skips the lookup for a no-cache request
# (checked with CACHE_TEST_SQUID).
#
# With workers (CUTTLE_TEST_WORKERS) only the worker that fetches an object
# has it in flight (another joins it with collapsed_forwarding on only):
# replies name their worker (reply_header_add X-Worker ${process_number}),
# and the only-if-cached request is asked until the fetching worker answers
# it; another worker answers 504 while the fetch is in flight.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
set --
[ "$CUTTLE_TEST_WORKERS" = 1 ] || set -- 'reply_header_add X-Worker ${process_number}'
cache_start "$@"

# http_date SECONDS_AGO : an HTTP-date that long ago, percent-encoded for a script line
http_date() {
    date -u -d "@$(( $(date +%s) - $1 ))" '+%a,%%20%d%%20%b%%20%Y%%20%H:%M:%S%%20GMT'
}

# reload ID WHAT CURL-ARGS... : a stored fresh reply, then a reload with
# CURL-ARGS goes to the origin and its new reply is stored
reload() {
    local id=$1 what=$2
    shift 2
    mark
    script "$id" "cc=max-age=60&s=100&etag=%22r1%22" "cc=max-age=60&s=200&etag=%22r2%22" "status=500"
    get "$id"
    expect "$what, first: access.log" "$(log_code "$id" 1)" TCP_MISS/200
    get "$id" "$@"
    expect "$what: status" "$CODE" 200
    expect "$what: body (the origin's new reply)" "$(body_sha)" "$(pattern_sha 200)"
    expect "$what: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
    expect "$what: access.log" "$(log_code "$id" 2)" TCP_CLIENT_REFRESH_MISS/200
    expect "$what: origin requests" "$(seen_count "$id")" 2
    # a reload is unconditional: the stored validators are not sent
    expect "$what: origin's If-None-Match" "$(seen_field "$id" 2 If-None-Match)" ""
    get "$id"
    expect_hit "$what, next request" "$id" 3 "$(pattern_sha 200)"
    expect "$what, next request: ETag" "$(header ETag)" '"r2"'
    expect "$what: origin requests after the hit" "$(seen_count "$id")" 2
    pass_if_ok "$what goes to the origin (TCP_CLIENT_REFRESH_MISS) and the new reply is stored"
}
reload nocache1 "Cache-Control: no-cache" -H 'Cache-Control: no-cache'
expect "Cache-Control: no-cache: forwarded Cache-Control" "$(seen_field nocache1 2 Cache-Control)" no-cache
reload pragma1 "Pragma: no-cache" -H 'Pragma: no-cache'

# Pragma is ignored when Cache-Control is present (RFC 9111 section 5.4)
mark
script pragma2 "cc=max-age=60&s=100"
get pragma2
get pragma2 -H 'Pragma: no-cache' -H 'Cache-Control: max-age=30'
expect_hit "Pragma: no-cache with Cache-Control: max-age=30" pragma2 2 "$(pattern_sha 100)"
expect "Pragma: no-cache with Cache-Control: origin requests" "$(seen_count pragma2)" 1
pass_if_ok "Pragma: no-cache with a Cache-Control field is a hit"

# max-age=0 on a fresh object 10 s old: validated; max-age=30 accepts it
mark
script maxage1 "cc=max-age=60&s=100&etag=%22m1%22&h=Date:$(http_date 10)" \
    "status=304&etag=%22m1%22&cc=max-age=60" "status=500"
get maxage1
expect "max-age, first: access.log" "$(log_code maxage1 1)" TCP_MISS/200
get maxage1 -H 'Cache-Control: max-age=30'
expect_hit "request max-age=30, 10 s old" maxage1 2 "$(pattern_sha 100)"
expect "request max-age=30: origin requests" "$(seen_count maxage1)" 1
get maxage1 -H 'Cache-Control: max-age=0'
expect "request max-age=0: status" "$CODE" 200
expect "request max-age=0: body" "$(body_sha)" "$(pattern_sha 100)"
expect "request max-age=0: access.log" "$(log_code maxage1 3)" TCP_REFRESH_UNMODIFIED/200
expect "request max-age=0: origin requests" "$(seen_count maxage1)" 2
expect "request max-age=0: origin's If-None-Match" "$(seen_field maxage1 2 If-None-Match)" '"m1"'
pass_if_ok "request max-age=0 validates a fresh object 10 s old; max-age=30 is a hit"

# max-age=0 on a fresh object that changed at the origin: the client gets the
# new reply, not the stored one (RFC 9111 section 5.2.1.1)
mark
script maxage2 "cc=max-age=60&s=100&etag=%22m1%22&h=Date:$(http_date 10)" \
    "cc=max-age=60&s=200&etag=%22m2%22" "status=500"
get maxage2
get maxage2 -H 'Cache-Control: max-age=0'
expect "request max-age=0, changed: body (the origin's new reply)" "$(body_sha)" "$(pattern_sha 200)"
expect "request max-age=0, changed: ETag" "$(header ETag)" '"m2"'
expect "request max-age=0, changed: access.log" "$(log_code maxage2 2)" TCP_REFRESH_MODIFIED/200
expect "request max-age=0, changed: origin requests" "$(seen_count maxage2)" 2
get maxage2
expect_hit "after the changed reply" maxage2 3 "$(pattern_sha 200)"
pass_if_ok "request max-age=0 on a changed object gets the new reply"

# only-if-cached with nothing stored: 504 ERR_ONLY_IF_CACHED_MISS, nothing forwarded
mark
script oic1 "cc=max-age=60&s=100"
get oic1 -H 'Cache-Control: only-if-cached'
expect "only-if-cached, nothing stored: status" "$CODE" 504
error_page_is "$T/body" ERR_ONLY_IF_CACHED_MISS || bad "only-if-cached, nothing stored: not the ERR_ONLY_IF_CACHED_MISS page"
expect "only-if-cached, nothing stored: X-Squid-Error" "$(header X-Squid-Error)" "ERR_ONLY_IF_CACHED_MISS 0"
expect "only-if-cached, nothing stored: access.log" "$(log_code oic1 1)" TCP_MISS/504
expect "only-if-cached, nothing stored: origin requests" "$(seen_count oic1)" 0
pass_if_ok "only-if-cached with nothing stored gets 504 ERR_ONLY_IF_CACHED_MISS"

# only-if-cached with a fresh object: a hit
mark
get oic1
expect "only-if-cached, storing: access.log" "$(log_code oic1 2)" TCP_MISS/200
get oic1 -H 'Cache-Control: only-if-cached'
expect_hit "only-if-cached, fresh object" oic1 3 "$(pattern_sha 100)"
expect "only-if-cached, fresh object: origin requests" "$(seen_count oic1)" 1
pass_if_ok "only-if-cached with a fresh object is a hit"

# only-if-cached with a stale object: 504, the origin is not asked
mark
script oic2 "cc=max-age=0&s=100&etag=%22o2%22&h=Date:$(http_date 10)" "status=500"
get oic2
get oic2 -H 'Cache-Control: only-if-cached'
expect "only-if-cached, stale object: status" "$CODE" 504
error_page_is "$T/body" ERR_ONLY_IF_CACHED_MISS || bad "only-if-cached, stale object: not the ERR_ONLY_IF_CACHED_MISS page"
expect "only-if-cached, stale object: origin requests" "$(seen_count oic2)" 1
pass_if_ok "only-if-cached with a stale object gets 504 without asking the origin"

# only-if-cached while the object is still arriving (collapsed_forwarding is
# off): read from the fetch in flight, as Squid 5.7 does; the origin is asked once
mark
origin_has_oic3() { [ "$(seen_count oic3)" -ge 1 ]; }
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    script oic3 "cc=max-age=60&s=200k&rate=200k"
    curl -s -o "$T/oic3.first" --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" "$(url oic3)" &
    first=$!
    wait_until 5 origin_has_oic3 || bad "only-if-cached, in flight: the first request never reached the origin"
    sleep 0.2 # the head is on its way back: the object is stored and in flight
    get oic3 -H 'Cache-Control: only-if-cached'
else
    # 4 s in flight; the first client's head names the worker that fetches
    script oic3 "cc=max-age=60&s=200k&rate=50k"
    rm -f "$T/oic3.done"
    { curl -s -D "$T/oic3.head" -o "$T/oic3.first" --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" "$(url oic3)"
      touch "$T/oic3.done"; } &
    first=$!
    wait_until 5 origin_has_oic3 || bad "only-if-cached, in flight: the first request never reached the origin"
    wait_until 5 grep -qi '^X-Worker:' "$T/oic3.head" || bad "only-if-cached, in flight: no head for the first client"
    fetcher=$(tr -d '\r' < "$T/oic3.head" | sed -n 's/^X-Worker: //Ip')
    n=0
    while [ $n -lt 64 ]; do
        n=$((n + 1))
        in_flight=yes
        [ ! -f "$T/oic3.done" ] || in_flight=""
        get oic3 -H 'Cache-Control: only-if-cached'
        worker=$(header X-Worker)
        [ "$worker" != "$fetcher" ] || break
        # another worker, asked while the fetch was in flight: not stored there yet
        [ -z "$in_flight" ] || expect "only-if-cached, in flight, worker $worker (not the fetching one): status" "$CODE" 504
    done
    expect "only-if-cached, in flight: the fetching worker answered" "$worker" "$fetcher"
fi
wait $first
expect "only-if-cached, in flight: status" "$CODE" 200
expect "only-if-cached, in flight: body" "$(body_sha)" "$(pattern_sha 200k)"
expect "only-if-cached, in flight: the first client's body" "$(sha256sum < "$T/oic3.first" | cut -d' ' -f1)" \
    "$(pattern_sha 200k)"
expect "only-if-cached, in flight: origin requests" "$(seen_count oic3)" 1
pass_if_ok "only-if-cached while the object arrives reads the fetch in flight, never the origin"

# request no-store: served, not stored
mark
script nostore1 "cc=max-age=60&s=100"
get nostore1 -H 'Cache-Control: no-store'
expect "request no-store: status" "$CODE" 200
expect "request no-store: body" "$(body_sha)" "$(pattern_sha 100)"
expect "request no-store: access.log" "$(log_code nostore1 1)" TCP_MISS/200
get nostore1
expect "after a request no-store: status" "$CODE" 200
expect "after a request no-store: access.log" "$(log_code nostore1 2)" TCP_MISS/200
expect "after a request no-store: origin requests" "$(seen_count nostore1)" 2
get nostore1
expect_hit "after a stored request" nostore1 3 "$(pattern_sha 100)"
pass_if_ok "a request with no-store is served and not stored"

cache_stop
checks_done
