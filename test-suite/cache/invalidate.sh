#!/bin/sh
# Invalidation (RFC 9111 section 4.4): a non-error reply to an unsafe method
# (POST, PUT, DELETE) removes the stored reply of its target URI, and of the
# URIs its Location and Content-Location name when they have the same origin;
# an error reply removes nothing. Squid's PURGE method (allowed by an acl)
# removes a stored object (200) and answers 404 when nothing is stored; it
# never reaches the origin.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
# a second origin: same host, another port, so another origin (RFC 9110 4.3.1)
bg_start origin2 "$ORIGIN" --listen 127.0.0.1:0
OPORT2=$BG_PORT
cache_start "acl purge method PURGE" "http_access allow localhost purge" "http_access deny purge"

# store ID [SIZE] : the first GET of ID stores it, the second is a hit
store() {
    get "$1"
    expect "$1, storing: access.log" "$(log_code "$1" 1)" TCP_MISS/200
    get "$1"
    expect "$1, stored: access.log" "$(log_code "$1" 2)" TCP_MEM_HIT/200
}

# a POST with a 200 invalidates its target URI
for method in POST PUT DELETE; do
    mark
    id="unsafe-$method"
    script "$id" "cc=max-age=60&s=100" "status=200&s=5" "cc=max-age=60&s=300"
    store "$id"
    get "$id" -X "$method" --data-binary 'x=1'
    expect "$method: status" "$CODE" 200
    expect "$method: access.log" "$(log_code "$id" 3)" TCP_MISS/200
    get "$id"
    expect "GET after the $method: status" "$CODE" 200
    expect "GET after the $method: body (the origin's new reply)" "$(body_sha)" "$(pattern_sha 300)"
    expect "GET after the $method: access.log" "$(log_code "$id" 4)" TCP_MISS/200
    expect "$method: origin requests" "$(seen_count "$id")" 3
    expect "$method: the origin's second request" "$(seen_method "$id" 2)" "$method"
    get "$id"
    expect_hit "GET after the new reply" "$id" 5 "$(pattern_sha 300)"
    pass_if_ok "a 200 to a $method invalidates the stored reply of its URI"
done

# every variant of a Vary reply goes (the URI is invalidated, RFC 9111 4.4;
# Squid 5.7 removes one variant only)
mark
script vary-post "cc=max-age=60&s=100&h=Vary:Accept-Encoding"
get vary-post -H 'Accept-Encoding: gzip'
get vary-post -H 'Accept-Encoding: br'
get vary-post -H 'Accept-Encoding: gzip'
get vary-post -H 'Accept-Encoding: br'
expect "Vary, before the POST" "$(log_codes vary-post 4)" "TCP_MISS/200 TCP_MISS/200 TCP_MEM_HIT/200 TCP_MEM_HIT/200"
get vary-post -X POST --data-binary 'x=1'
get vary-post -H 'Accept-Encoding: gzip'
expect "Vary, gzip variant after the POST: access.log" "$(log_code vary-post 6)" TCP_MISS/200
get vary-post -H 'Accept-Encoding: br'
expect "Vary, br variant after the POST: access.log" "$(log_code vary-post 7)" TCP_MISS/200
expect "Vary, after the POST: origin requests" "$(seen_count vary-post)" 5
pass_if_ok "a 200 to a POST invalidates every variant of its URI"

# a PUT whose reply has Location and Content-Location (absolute and relative)
# invalidates those same-origin URIs, not one of another origin
mark
script loc-a "cc=max-age=60&s=10" "cc=max-age=60&s=11"
script loc-b "cc=max-age=60&s=20" "cc=max-age=60&s=21"
curl -s -o /dev/null --max-time "$(scaled 5)" -X PUT --data-binary "cc=max-age=60&s=40" \
    "http://127.0.0.1:$OPORT2/_script/loc-other" || fail "script on the second origin"
store loc-a
store loc-b
fetch_url "http://127.0.0.1:$OPORT2/s/loc-other"
fetch_url "http://127.0.0.1:$OPORT2/s/loc-other"
expect "the other origin's object: stored" \
    "$(awk -v u="http://127.0.0.1:$OPORT2/s/loc-other" '$7 == u {c = $4} END {print c}' "$T/access.log")" TCP_MEM_HIT/200
script loc-put "status=201&h=Location:http://127.0.0.1:$OPORT/s/loc-a&h=Content-Location:/s/loc-b"
get loc-put -X PUT --data-binary 'new'
expect "PUT with Location: status" "$CODE" 201
get loc-a
expect "Location's URI after the PUT: body" "$(body_sha)" "$(pattern_sha 11)"
expect "Location's URI after the PUT: access.log" "$(log_code loc-a 3)" TCP_MISS/200
expect "Location's URI: origin requests" "$(seen_count loc-a)" 2
get loc-b
expect "Content-Location's URI after the PUT: body" "$(body_sha)" "$(pattern_sha 21)"
expect "Content-Location's URI after the PUT: access.log" "$(log_code loc-b 3)" TCP_MISS/200
expect "Content-Location's URI: origin requests" "$(seen_count loc-b)" 2
pass_if_ok "a 201 to a PUT invalidates its same-origin Location and Content-Location"

mark
script loc-put2 "status=201&h=Location:http://127.0.0.1:$OPORT2/s/loc-other"
get loc-put2 -X PUT --data-binary 'new'
expect "PUT with another origin's Location: status" "$CODE" 201
fetch_url "http://127.0.0.1:$OPORT2/s/loc-other"
expect "another origin's URI after the PUT: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
expect "another origin's URI after the PUT: access.log" \
    "$(awk -v u="http://127.0.0.1:$OPORT2/s/loc-other" '$7 == u {c = $4} END {print c}' "$T/access.log")" TCP_MEM_HIT/200
pass_if_ok "a Location of another origin (another port) is not invalidated"

# an error reply to a POST invalidates nothing
for status in 404 500; do
    mark
    id="post-$status"
    script "$id" "cc=max-age=60&s=100" "status=$status&s=5" "cc=max-age=60&s=300"
    store "$id"
    get "$id" -X POST --data-binary 'x=1'
    expect "POST answered $status: status" "$CODE" "$status"
    get "$id"
    expect_hit "GET after a POST answered $status" "$id" 4 "$(pattern_sha 100)"
    expect "POST answered $status: origin requests" "$(seen_count "$id")" 2
    pass_if_ok "a $status to a POST invalidates nothing"
done

# PURGE removes a stored object; 404 when nothing is stored; never forwarded
mark
script purge1 "cc=max-age=60&s=100" "cc=max-age=60&s=200"
store purge1
get purge1 -X PURGE
expect "PURGE of a stored object: status" "$CODE" 200
expect_match "PURGE of a stored object: access.log" "$(log_code purge1 3)" '^TCP_MISS/200$'
get purge1
expect "GET after the PURGE: body" "$(body_sha)" "$(pattern_sha 200)"
expect "GET after the PURGE: access.log" "$(log_code purge1 4)" TCP_MISS/200
get purge1
expect_hit "GET after the new reply" purge1 5 "$(pattern_sha 200)"
expect "PURGE: origin requests" "$(seen_count purge1)" 2
expect "PURGE: the origin never saw a PURGE" "$(seen; grep -c '^PURGE ' "$T/seen")" 0
pass_if_ok "PURGE removes a stored object (200) and the next GET goes to the origin"

mark
script purge-vary "cc=max-age=60&s=100&h=Vary:Accept-Encoding"
get purge-vary -H 'Accept-Encoding: gzip'
get purge-vary -H 'Accept-Encoding: br'
get purge-vary -X PURGE
expect "PURGE of a Vary object: status" "$CODE" 200
get purge-vary -H 'Accept-Encoding: gzip'
expect "PURGE of a Vary object, gzip variant after it: access.log" "$(log_code purge-vary 4)" TCP_MISS/200
get purge-vary -H 'Accept-Encoding: br'
expect "PURGE of a Vary object, br variant after it: access.log" "$(log_code purge-vary 5)" TCP_MISS/200
expect "PURGE of a Vary object: origin requests" "$(seen_count purge-vary)" 4
pass_if_ok "PURGE of a Vary object removes every variant (Squid 5.7 answers 404 there)"

mark
script purge2 "cc=max-age=60&s=100"
get purge2 -X PURGE
expect "PURGE with nothing stored: status" "$CODE" 404
expect_match "PURGE with nothing stored: access.log" "$(log_code purge2 1)" '^TCP_MISS/404$'
expect "PURGE with nothing stored: origin requests" "$(seen_count purge2)" 0
pass_if_ok "PURGE with nothing stored answers 404"

cache_stop
checks_done
