#!/bin/sh
# collapsed_forwarding: with it on, 5 concurrent clients of a slow (t=1s)
# cacheable reply cause one origin request and every client gets the whole
# body; with it off, the origin sees 5 requests; a slow private reply with
# it on still gives every client a correct reply of its own (a private reply
# is never shared, RFC 9111 section 3: the origin sees one request per client).
# The collapsed clients are logged TCP_CF_MISS, as Squid 5.7 logs them. A
# shared fetch the origin cuts ends every client's transfer and stores
# nothing; a joiner whose If-None-Match matches gets a 304.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

CLIENTS=5
# the origin's delay (t=1s, longer under TIMEOUT_MULT): every client starts within it
SLOW=$(scaled 1)
# parallel_get ID : $CLIENTS concurrent requests for /s/ID through the proxy,
# the others sent once the first reached the origin (with workers, two
# requests that start in two workers at the same instant both find nothing
# offered yet); client I's status, head and body in $T/par.I.code, .head, .body
# reached_origin ID N : more than N requests for /s/ID reached the origin
reached_origin() { [ "$(seen_count "$1")" -gt "$2" ]; }
parallel_get() {
    local i=1 pids="" before
    before=$(seen_count "$1")
    while [ $i -le $CLIENTS ]; do
        curl -s -D "$T/par.$i.head" -o "$T/par.$i.body" -w '%{http_code}' --max-time "$(scaled 20)" \
            -x "127.0.0.1:$PORT" "$(url "$1")" > "$T/par.$i.code" &
        pids="$pids $!"
        [ $i != 1 ] || wait_until 5 reached_origin "$1" "$before" || true
        i=$((i + 1))
    done
    for p in $pids; do
        wait "$p"
    done
}
# par_header I NAME : the value of NAME in client I's reply
par_header() { tr -d '\r' < "$T/par.$1.head" | grep -i "^$2:" | head -n 1 | sed 's/^[^:]*: *//'; }
# expect_all_bodies WHAT SIZE : every client got a 200 with the pattern body of SIZE
expect_all_bodies() {
    local i=1 sha
    sha=$(pattern_sha "$2")
    while [ $i -le $CLIENTS ]; do
        expect "$1, client $i: status" "$(cat "$T/par.$i.code")" 200
        expect "$1, client $i: body sha256" "$(sha256sum < "$T/par.$i.body" | cut -d' ' -f1)" "$sha"
        i=$((i + 1))
    done
}

cache_start "collapsed_forwarding on"

# on: one origin request for 5 concurrent clients, 400 KB each
mark
script cf1 "cc=max-age=60&s=400k&t=${SLOW}s"
parallel_get cf1
expect_all_bodies "collapsed on" 400k
expect "collapsed on: origin requests" "$(seen_count cf1)" 1
codes=$(log_codes cf1 $CLIENTS)
expect "collapsed on: access.log lines" "$(log_count cf1)" $CLIENTS
expect "collapsed on: access.log lines that went to the origin" \
    "$(log_lines "$(url cf1)" | grep -c HIER_DIRECT/)" 1
# Squid 5.7 logs the collapsed clients TCP_CF_MISS/200 HIER_NONE/- (the CF
# tag of LogTags: "collapsed" onto another transaction's fetch) with
# X-Cache: MISS; only the fetch that went to the origin is TCP_MISS
expect "collapsed on: access.log codes (sorted)" \
    "$(echo "$codes" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" \
    "TCP_CF_MISS/200 TCP_CF_MISS/200 TCP_CF_MISS/200 TCP_CF_MISS/200 TCP_MISS/200"
get cf1
expect_hit "collapsed on, afterwards" cf1 $((CLIENTS + 1)) "$(pattern_sha 400k)"
expect "collapsed on: origin requests after a hit" "$(seen_count cf1)" 1
pass_if_ok "collapsed_forwarding on: $CLIENTS concurrent clients, one origin request, every body whole"

# on, chunked: the same
mark
script cf2 "cc=max-age=60&s=300k&chunked=1&t=${SLOW}s"
parallel_get cf2
expect_all_bodies "collapsed on, chunked" 300k
expect "collapsed on, chunked: origin requests" "$(seen_count cf2)" 1
pass_if_ok "collapsed_forwarding on, chunked: one origin request, every body whole"

# on, the origin resets the shared fetch after 100 KB of 300 KB: every
# client's transfer ends (cut short, never hung), nothing is stored, and the
# next request goes to the origin for the whole reply
mark
script cfcut "cc=max-age=60&s=300k&t=${SLOW}s&fail=reset@100k" "cc=max-age=60&s=300k"
start=$(date +%s)
parallel_get cfcut
[ $(( $(date +%s) - start )) -lt "$(scaled 8)" ] || bad "collapsed on, reset: the clients took $(( $(date +%s) - start )) s"
i=1
while [ $i -le $CLIENTS ]; do
    size=$(wc -c < "$T/par.$i.body")
    [ "$size" -lt 307200 ] || bad "collapsed on, reset, client $i: got all $size bytes of a reply the origin cut"
    i=$((i + 1))
done
get cfcut
expect "collapsed on, after the reset: body" "$(body_sha)" "$(pattern_sha 300k)"
expect "collapsed on, after the reset: access.log" "$(log_code cfcut $((CLIENTS + 1)))" TCP_MISS/200
expect "collapsed on, after the reset: origin requests" "$(seen_count cfcut)" 2
pass_if_ok "collapsed_forwarding on, a shared fetch the origin cut: every client ends, nothing stored"

# on, a conditional joiner whose If-None-Match matches the reply in flight
# gets a 304 (RFC 9111 section 4.3.2; Squid 5.7: TCP_CF_INM_HIT/304)
mark
script cfinm "cc=max-age=60&s=300k&t=${SLOW}s&etag=%22j%22"
curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "$(url cfinm)" &
first=$!
wait_until 10 seen_reaches cfinm 1 || fail "the first client's request did not reach the origin"
get cfinm -H 'If-None-Match: "j"'
wait "$first"
expect "collapsed on, INM joiner: status" "$CODE" 304
expect "collapsed on, INM joiner: body bytes" "$(body_size)" 0
# RFC 9110 section 15.4.5: the 304 carries the ETag a 200 would have; Squid
# 5.7 leaves it out of this one (its TCP_CF_INM_HIT), and not of a lone
# TCP_INM_HIT (conditional.sh)
[ -n "$CACHE_TEST_SQUID" ] || expect "collapsed on, INM joiner: ETag" "$(header ETag)" '"j"'
expect "collapsed on, INM joiner: origin requests" "$(seen_count cfinm)" 1
expect_match "collapsed on, INM joiner: access.log" "$(log_codes cfinm 2)" 'TCP_CF_INM_HIT/304'
pass_if_ok "collapsed_forwarding on: a matching If-None-Match joiner gets a 304"

# on, private: every client gets a reply of its own, never another's
mark
script cfpriv "cc=private&s=1000&t=${SLOW}s" "cc=private&s=1001&t=${SLOW}s" "cc=private&s=1002&t=${SLOW}s" \
    "cc=private&s=1003&t=${SLOW}s" "cc=private&s=1004&t=${SLOW}s" "cc=private&s=1005&t=${SLOW}s"
parallel_get cfpriv
i=1
while [ $i -le $CLIENTS ]; do
    len=$(par_header $i Content-Length)
    expect "collapsed on, private, client $i: status" "$(cat "$T/par.$i.code")" 200
    expect "collapsed on, private, client $i: body" "$(sha256sum < "$T/par.$i.body" | cut -d' ' -f1)" \
        "$(pattern_sha "${len:-0}")"
    i=$((i + 1))
done
n=$(seen_count cfpriv)
distinct=$(cat "$T"/par.*.body | wc -c)
sizes=$(for i in $(seq 1 $CLIENTS); do wc -c < "$T/par.$i.body"; done | sort -u | wc -l)
echo "collapsed on, private: the origin saw $n requests; the clients got $sizes distinct replies"
expect "collapsed on, private: distinct replies (none shared)" "$sizes" $CLIENTS
expect "collapsed on, private: origin requests" "$n" $CLIENTS
pass_if_ok "collapsed_forwarding on, private reply: every client gets a correct reply of its own"

# on, the client whose request went to the origin resets its connection
# (SO_LINGER 0) before the reply head: the fetch goes on for the client that
# joined it, and a client that comes after the reset joins it too. Its reply
# is stored as the first client's would have been (a DetachedFetch takes that
# client's place), so both read it and the next client gets a hit: one
# origin request, as with Squid 5.7
mark
script cfrst "cc=max-age=60&s=1000&t=$(scaled 2)s"
reset_after "$(url cfrst)" 0.6 &
first=$!
wait_until 10 seen_reaches cfrst 1 || fail "the first client's request did not reach the origin"
curl -s -o "$T/joiner.body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "$(url cfrst)" \
    > "$T/joiner.code" &
joiner=$!
sleep 1
get cfrst
wait "$first" "$joiner"
expect "collapsed on, the first client reset: joiner's status" "$(cat "$T/joiner.code")" 200
expect "collapsed on, the first client reset: joiner's body" "$(sha256sum < "$T/joiner.body" | cut -d' ' -f1)" \
    "$(pattern_sha 1000)"
expect "collapsed on, the first client reset: a later client's status" "$CODE" 200
expect "collapsed on, the first client reset: a later client's body" "$(body_sha)" "$(pattern_sha 1000)"
[ -n "$CACHE_TEST_SQUID" ] ||
    expect "collapsed on, the first client reset: the joiners' access.log" "$(log_codes cfrst 3)" \
        "TCP_MISS_ABORTED/000 TCP_CF_MISS/200 TCP_CF_MISS/200"
get cfrst
expect_hit "collapsed on, the first client reset: afterwards" cfrst 4 "$(pattern_sha 1000)"
expect "collapsed on, the first client reset: origin requests" "$(seen_count cfrst)" 1
pass_if_ok "collapsed_forwarding on: a shared fetch goes on for its joiners when the first client resets"

# on, a fetch that fails before its head (the origin closes without a
# reply, on a new connection: no retry) answers its client with the error;
# the next request asks the origin again instead of waiting on the failed
# fetch (Squid 5.7 tries again at once, and its first client gets the 200)
cache_stop
cache_start "collapsed_forwarding on"
mark
script cffail "fail=empty" "cc=max-age=60&s=1000"
get cffail
[ -n "$CACHE_TEST_SQUID" ] || expect "collapsed on, a failed fetch: status" "$CODE" 502
get cffail
expect "collapsed on, after a failed fetch: status" "$CODE" 200
expect "collapsed on, after a failed fetch: body" "$(body_sha)" "$(pattern_sha 1000)"
pass_if_ok "collapsed_forwarding on: a request after a failed fetch is not left waiting on it"

# off: every client is its own origin request
cache_stop
cache_start "collapsed_forwarding off"
mark
script cf3 "cc=max-age=60&s=400k&t=${SLOW}s"
parallel_get cf3
expect_all_bodies "collapsed off" 400k
expect "collapsed off: origin requests" "$(seen_count cf3)" $CLIENTS
expect "collapsed off: access.log" "$(log_codes cf3 $CLIENTS)" \
    "$(for i in $(seq 1 $CLIENTS); do printf 'TCP_MISS/200 '; done | sed 's/ $//')"
pass_if_ok "collapsed_forwarding off: $CLIENTS concurrent clients, $CLIENTS origin requests"

cache_stop
checks_done
