#!/bin/sh
# The memory cache stores what RFC 9111 section 3 lets a shared cache store
# and serves it while fresh (section 4.2): a cc=max-age=60 reply is a
# TCP_MEM_HIT/200 the second time (Age, X-Cache: HIT, the same bytes, one
# origin request), small or 400 KB; HEAD is answered from the stored GET;
# no-store and private replies are not stored; maximum_object_size_in_memory
# keeps bigger objects out (with a Content-Length, and chunked, when the size
# is known only at the end); "cache deny all" stores nothing; Vary keeps
# variants apart and Vary: * is never served from the cache. A reply the
# origin cut short is not stored; the query is part of the key; s-maxage,
# Expires and the Last-Modified heuristic make a reply fresh; a request
# with Authorization is stored only when the reply is public.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start "maximum_object_size_in_memory 512 KB"

# a fresh reply is stored and served again: same body, Age, X-Cache: HIT
mark
script hit1 "cc=max-age=60&s=1000&etag=%22h1%22"
SHA=$(pattern_sha 1000)
get hit1
expect "first request: status" "$CODE" 200
expect_miss "first request" hit1 1 TCP_MISS/200 "$SHA"
get hit1
expect_hit "second request" hit1 2 "$SHA"
expect "second request: Content-Length" "$(header Content-Length)" 1000
expect "second request: ETag" "$(header ETag)" '"h1"'
expect_match "second request: Age" "$(header Age)" '^[0-9]+$'
[ "$(header Age)" -le 5 ] 2>/dev/null || bad "second request: Age $(header Age) for a reply 0 s old"
get hit1
expect_hit "third request" hit1 3 "$SHA"
expect "origin requests for a stored reply" "$(seen_count hit1)" 1
pass_if_ok "a cc=max-age=60 reply is stored and served as TCP_MEM_HIT with Age and X-Cache: HIT"

# the Age of a hit grows with the time the object spent in the cache
mark
script age1 "cc=max-age=60&s=10"
get age1
sleep 2
get age1
expect_hit "hit after 2 s" age1 2
[ "$(header Age)" -ge 2 ] 2>/dev/null || bad "hit after 2 s: Age '$(header Age)', expected >= 2"
expect "origin requests" "$(seen_count age1)" 1
pass_if_ok "Age counts the seconds in the cache"

# a 400 KB body is served from the cache byte for byte
mark
script big1 "cc=max-age=60&s=400k"
SHA=$(pattern_sha 400k)
get big1
expect_miss "400 KB, first" big1 1 TCP_MISS/200 "$SHA"
get big1
expect_hit "400 KB, second" big1 2 "$SHA"
expect "400 KB, second: Content-Length" "$(header Content-Length)" 409600
expect "400 KB: origin requests" "$(seen_count big1)" 1
pass_if_ok "a 400 KB object is stored and served whole"

# a chunked reply within the limit is stored too (its length is known at the end)
mark
script chunk1 "cc=max-age=60&s=300k&chunked=1"
SHA=$(pattern_sha 300k)
get chunk1
expect_miss "chunked 300 KB, first" chunk1 1 TCP_MISS/200 "$SHA"
get chunk1
expect_hit "chunked 300 KB, second" chunk1 2 "$SHA"
expect "chunked 300 KB: origin requests" "$(seen_count chunk1)" 1
pass_if_ok "a chunked 300 KB object is stored and served whole"

# HEAD is answered from the stored GET: no origin request, the body's Content-Length
mark
get hit1 -I
expect "HEAD after a stored GET: status" "$CODE" 200
expect "HEAD after a stored GET: Content-Length" "$(header Content-Length)" 1000
expect "HEAD after a stored GET: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
raw_send "HEAD $(url hit1) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" > "$T/raw"
tr -d '\r' < "$T/raw" > "$T/raw.txt"
expect "HEAD after a stored GET (raw): bytes after the head" "$(sed '1,/^$/d' "$T/raw.txt" | wc -c | tr -d ' ')" 0
grep -q '^Content-Length: 1000$' "$T/raw.txt" || bad "HEAD after a stored GET (raw): $(cat "$T/raw.txt")"
expect "HEAD after a stored GET: access.log" "$(log_code hit1 4)" TCP_MEM_HIT/200
expect "HEAD after a stored GET (raw): access.log" "$(log_code hit1 5)" TCP_MEM_HIT/200
log_lines "$(url hit1)" | sed -n 4p | grep -q ' HEAD ' || bad "HEAD: line 4 is not the HEAD: $(log_lines "$(url hit1)" | sed -n 4p)"
expect "HEAD after a stored GET: origin requests" "$(seen_count hit1)" 1
pass_if_ok "HEAD is answered from the stored GET"

# a HEAD miss does not store a bodiless object for the next GET
mark
script head1 "cc=max-age=60&s=500"
get head1 -I
expect "HEAD miss: status" "$CODE" 200
expect "HEAD miss: access.log" "$(log_code head1 1)" TCP_MISS/200
get head1
expect "GET after a HEAD miss: status" "$CODE" 200
expect "GET after a HEAD miss: body" "$(body_sha)" "$(pattern_sha 500)"
pass_if_ok "a HEAD miss is not stored as the GET's object"

# no-store and private replies are not stored: the origin sees both requests
for cc in no-store private "max-age=60,%20no-store" "max-age=60,%20private"; do
    mark
    id="nostore-$(echo "$cc" | tr -c 'a-z0-9\n' _)"
    script "$id" "cc=$cc&s=100"
    get "$id"
    expect "$cc, first: status" "$CODE" 200
    expect "$cc, first: access.log" "$(log_code "$id" 1)" TCP_MISS/200
    get "$id"
    expect "$cc, second: status" "$CODE" 200
    expect "$cc, second: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
    expect "$cc, second: access.log" "$(log_code "$id" 2)" TCP_MISS/200
    expect "$cc: origin requests" "$(seen_count "$id")" 2
    pass_if_ok "a Cache-Control: $cc reply is not stored"
done

# a reply cut short by the origin (reset after 100 KB of 300 KB) is not
# stored, whatever its framing: the next request goes to the origin
for framing in "" "&chunked=1" "&close=1"; do
    mark
    id="cut$(echo "$framing" | tr -c 'a-z0-9\n' _)"
    script "$id" "cc=max-age=60&s=300k&fail=reset@100k$framing" "cc=max-age=60&s=300k$framing"
    get "$id"
    [ "$(body_size)" -lt 307200 ] || bad "cut short$framing, first: the client got $(body_size) bytes"
    get "$id"
    expect "cut short$framing, second: body" "$(body_sha)" "$(pattern_sha 300k)"
    expect "cut short$framing, second: access.log" "$(log_code "$id" 2)" TCP_MISS/200
    expect "cut short$framing: origin requests" "$(seen_count "$id")" 2
    get "$id"
    expect_hit "cut short$framing, third" "$id" 3 "$(pattern_sha 300k)"
    pass_if_ok "a reply cut short (${framing:-&content-length}) is not stored; the whole one that follows is"
done

# the query is part of the key
mark
script query1 "cc=max-age=60&s=100"
fetch_url "$(url query1)?a=1"
fetch_url "$(url query1)?a=2"
fetch_url "$(url query1)?a=1"
expect "?a=1 again: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
expect "?a=1, ?a=2, ?a=1: origin requests" "$(seen_count query1)" 2
pass_if_ok "URLs that differ in their query are different objects"

# explicit and heuristic freshness: s-maxage (over max-age, for a shared
# cache), Expires, and Last-Modified (refresh_pattern's 20% heuristic)
for spec in "cc=max-age=0,%20s-maxage=60" "exp=Mon,%2001%20Jan%202099%2000:00:00%20GMT" \
    "lm=Mon,%2001%20Jan%202024%2000:00:00%20GMT"; do
    mark
    id="fresh-$(echo "$spec" | cut -c1-12 | tr -c 'a-z0-9\n' _)"
    script "$id" "$spec&s=100" "status=500"
    get "$id"
    get "$id"
    expect_hit "${spec%%=*} ($spec), second" "$id" 2 "$(pattern_sha 100)"
    expect "${spec%%=*}: origin requests" "$(seen_count "$id")" 1
    pass_if_ok "a reply fresh by $spec is a hit"
done

# a request with Authorization: its reply is stored only when it says so
# (RFC 9111 section 3.5: public, s-maxage or must-revalidate)
mark
script auth1 "cc=max-age=60&s=100"
get auth1 -H 'Authorization: Basic eDp5'
get auth1 -H 'Authorization: Basic eDp5'
expect "Authorization, max-age=60, second: access.log" "$(log_code auth1 2)" TCP_MISS/200
expect "Authorization, max-age=60: origin requests" "$(seen_count auth1)" 2
script auth2 "cc=public,%20max-age=60&s=100"
get auth2 -H 'Authorization: Basic eDp5'
get auth2 -H 'Authorization: Basic eDp5'
expect_hit "Authorization, public, second" auth2 2 "$(pattern_sha 100)"
expect "Authorization, public: origin requests" "$(seen_count auth2)" 1
pass_if_ok "a reply to a request with Authorization is stored only when public"

cache_stop
# maximum_object_size_in_memory 100 KB: 200 KB stays out (Content-Length or
# chunked), 50 KB is stored
cache_start "maximum_object_size_in_memory 100 KB"
for spec in "s=200k" "s=200k&chunked=1" "s=50k" "s=50k&chunked=1"; do
    mark
    id="size-$(echo "$spec" | tr -c 'a-z0-9\n' _)"
    script "$id" "cc=max-age=60&$spec"
    size=$(echo "$spec" | sed 's/^s=\([0-9]*k\).*/\1/')
    SHA=$(pattern_sha "$size")
    get "$id"
    expect "$spec, first: body" "$(body_sha)" "$SHA"
    expect "$spec, first: access.log" "$(log_code "$id" 1)" TCP_MISS/200
    get "$id"
    expect "$spec, second: body" "$(body_sha)" "$SHA"
    case $size in
    200k)
        expect "$spec (over 100 KB), second: access.log" "$(log_code "$id" 2)" TCP_MISS/200
        expect "$spec (over 100 KB): origin requests" "$(seen_count "$id")" 2
        pass_if_ok "maximum_object_size_in_memory 100 KB keeps a $spec object out"
        ;;
    *)
        expect "$spec (under 100 KB), second: access.log" "$(log_code "$id" 2)" TCP_MEM_HIT/200
        expect "$spec (under 100 KB): origin requests" "$(seen_count "$id")" 1
        pass_if_ok "maximum_object_size_in_memory 100 KB stores a $spec object"
        ;;
    esac
done

cache_stop
# cache deny all: nothing is stored
cache_start "cache deny all"
mark
script deny1 "cc=max-age=60&s=1000"
get deny1
get deny1
expect "cache deny all: second status" "$CODE" 200
expect "cache deny all: second access.log" "$(log_code deny1 2)" TCP_MISS/200
expect "cache deny all: origin requests" "$(seen_count deny1)" 2
pass_if_ok "cache deny all stores nothing"

cache_stop
# Vary: each Accept-Encoding value is its own variant
cache_start
mark
script vary1 "cc=max-age=60&s=100&h=Vary:Accept-Encoding"
get vary1 -H 'Accept-Encoding: gzip'
expect "Vary, gzip first: access.log" "$(log_code vary1 1)" TCP_MISS/200
get vary1 -H 'Accept-Encoding: br'
expect "Vary, br first: access.log" "$(log_code vary1 2)" TCP_MISS/200
expect "Vary, br first: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
expect "Vary, two values: origin requests" "$(seen_count vary1)" 2
expect "Vary: the origin's first request" "$(seen_field vary1 1 Accept-Encoding)" gzip
expect "Vary: the origin's second request" "$(seen_field vary1 2 Accept-Encoding)" br
get vary1 -H 'Accept-Encoding: gzip'
expect_hit "Vary, gzip again" vary1 3 "$(pattern_sha 100)"
get vary1 -H 'Accept-Encoding: br'
expect_hit "Vary, br again" vary1 4 "$(pattern_sha 100)"
expect "Vary, after the hits: origin requests" "$(seen_count vary1)" 2
get vary1
expect "Vary, no Accept-Encoding: access.log" "$(log_code vary1 5)" TCP_MISS/200
expect "Vary, no Accept-Encoding: origin requests" "$(seen_count vary1)" 3
pass_if_ok "Vary: Accept-Encoding stores each variant apart"

# Vary: * is never served from the cache
mark
script varystar "cc=max-age=60&s=100&h=Vary:*"
get varystar
get varystar
expect "Vary: *, second: status" "$CODE" 200
# Squid 5.7 stores it but revalidates it every time (TCP_REFRESH_MODIFIED);
# cuttle does not store it (TCP_MISS): either way the origin answers
expect_match "Vary: *, second: access.log" "$(log_code varystar 2)" '^TCP_(MISS|REFRESH_MODIFIED)/200$'
expect "Vary: *, second: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
expect "Vary: *: origin requests" "$(seen_count varystar)" 2
pass_if_ok "Vary: * is never served from the cache"

# replies without a body to read: an empty 200 and a 204 (RFC 9110 15.3.5:
# cacheable by default). The client has the whole reply with the head, and
# may leave before the fetch has seen its end: the object stays stored.
mark
if [ -z "$CACHE_TEST_SQUID" ]; then
    # Squid 5.7 stores neither (doc/differences.md)
    script empty1 "cc=max-age=60&s=0"
    get empty1
    get empty1
    expect "empty 200, second: status" "$CODE" 200
    expect "empty 200, second: access.log" "$(log_code empty1 2)" TCP_MEM_HIT/200
    expect "empty 200: origin requests" "$(seen_count empty1)" 1
    script n204 "status=204&cc=max-age=60"
    get n204
    get n204
    expect "204, second: status" "$CODE" 204
    expect "204, second: access.log" "$(log_code n204 2)" TCP_MEM_HIT/204
    expect "204: origin requests" "$(seen_count n204)" 1
fi
pass_if_ok "an empty 200 and a 204 with max-age are stored and served"

cache_stop
checks_done
