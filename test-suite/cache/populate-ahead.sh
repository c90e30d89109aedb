#!/bin/sh
# memory_populate_ahead: a helper thread keeps memory mapped and populated
# ahead of the event loop's need, made only while the proxy is quiet. auto
# (the default) is maximum_object_size_in_memory, at most cache_mem, in whole
# 4 MB chunks: with Squid's 512 KB that is nothing and no thread; with 64 MB
# the reserve fills right after start, before any request. A kept 32 MB object
# is then carved from its chunks (the manager's mem page shows them taken; the
# object is served whole, then hit), and the reserve fills again once the
# proxy is quiet, never past cache_mem with what the cache holds. A size
# sets the reserve whatever the objects; 0 has no thread, and a reconfigure
# to 0 ends it at once. -k parse takes SIZE and auto, and rejects a bad
# value with file:line.
# With workers (CUTTLE_TEST_WORKERS=N) each worker keeps a reserve of its
# own, room for one large object (its thread, its target): the mem page sums
# them, so the targets and what is ready are N times one worker's (polled:
# another worker's figures reach the page up to 10 ms late); the worker that
# kept the 32 MB object keeps its reserve within cache_mem beside it, the
# others fill theirs whole.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

MB=1048576
# threads : the proxy's threads per worker (each worker is a thread with its own reserve's)
threads() {
    n=$(ls "/proc/$CUTTLE_PID/task" | wc -l)
    if [ $((n % CUTTLE_TEST_WORKERS)) = 0 ]; then echo $((n / CUTTLE_TEST_WORKERS)); else echo "$n for $CUTTLE_TEST_WORKERS workers"; fi
}
ready_at_least() { [ "$(counter page_reserve_ready_bytes)" -ge "$1" ] 2>/dev/null; }
ready_at_most() { [ "$(counter page_reserve_ready_bytes)" -le "$1" ] 2>/dev/null; }
has_threads() { [ "$(threads)" = "$1" ]; }
counter_is() { [ "$(counter "$1")" = "$2" ]; }
# reserve_fills LABEL BYTES: the reserve's target is BYTES (each worker's), and that much is soon ready
reserve_fills() {
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        expect "$1: page_reserve_bytes" "$(counter page_reserve_bytes)" "$2"
    else
        set -- "$1" $(($2 * CUTTLE_TEST_WORKERS))
        wait_until 5 counter_is page_reserve_bytes "$2"
        expect "$1: page_reserve_bytes of $CUTTLE_TEST_WORKERS workers" "$(counter page_reserve_bytes)" "$2"
    fi
    wait_until "$(scaled 10)" ready_at_least "$2" ||
        bad "$1: the reserve did not fill: page_reserve_ready_bytes $(counter page_reserve_ready_bytes)"
}

for value in "32 MB" auto 0; do
    cuttle_conf "memory_populate_ahead $value" "http_access allow localhost"
    out=$("$CUTTLE" -k parse -f "$T/squid.conf" 2>&1) || bad "-k parse refused memory_populate_ahead $value: $out"
    case "$out" in *memory_populate_ahead*) bad "-k parse says of memory_populate_ahead $value: $out" ;; esac
done
cuttle_conf "memory_populate_ahead lots"
out=$("$CUTTLE" -k parse -f "$T/squid.conf" 2>&1) && bad "-k parse accepted memory_populate_ahead lots"
expect_match "-k parse of a bad size" "$out" 'squid.conf:7: .*memory_populate_ahead'
pass_if_ok "-k parse: memory_populate_ahead SIZE|auto"

# auto with Squid's default 512 KB objects: no reserve, no thread
mark
cache_start "cache_mem 128 MB" "http_access allow localhost manager"
expect "auto, 512 KB objects: page_reserve_bytes" "$(counter page_reserve_bytes)" 0
script small "cc=max-age=60&s=200k"
get small
expect_miss "small, first" small 1 TCP_MISS/200 "$(pattern_sha 200k)"
get small
expect_hit "small, again" small 2 "$(pattern_sha 200k)"
expect "auto, 512 KB objects: threads" "$(threads)" 1
pass_if_ok "auto with 512 KB objects: no reserve and no thread"

# auto with 64 MB objects: 64 MB populated right after start, before any request
# (fixed 1 MB reads: every block of a body is of a mapped class)
mark
cache_start "cache_mem 128 MB" "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" \
    "http_access allow localhost manager"
reserve_fills "auto, 64 MB objects" $((64 * MB))
expect "auto: threads with the reserve" "$(threads)" 2
expect "auto: nothing taken before a request" "$(counter page_reserve_chunks_taken)" 0
pass_if_ok "auto with 64 MB objects: 64 MB populated at start, by a second thread"

# a kept object is read into the ready chunks, and served whole
mark
SHA=$(pattern_sha 32m)
made0=$(counter page_reserve_chunks_made)
script big1 "cc=max-age=60&s=32m"
get big1
expect_miss "big1, first" big1 1 TCP_MISS/200 "$SHA"
taken_at_least() { [ "$(counter page_reserve_chunks_taken)" -ge "$1" ] 2>/dev/null; }
[ "$CUTTLE_TEST_WORKERS" = 1 ] || wait_until 5 taken_at_least 7
taken=$(counter page_reserve_chunks_taken)
[ "$taken" -ge 7 ] 2>/dev/null || bad "page_reserve_chunks_taken $taken for a kept 32 MB object"
get big1
expect_hit "big1, again" big1 2 "$SHA"
expect "big1: origin requests" "$(seen_count big1)" 1
pass_if_ok "a kept 32 MB object is read into populated chunks ($taken taken) and hit"

# quiet again: the reserve is made whole (128 MB holds 32 MB of object and 64 ready)
mark
wait_until "$(scaled 10)" ready_at_least $((64 * MB * CUTTLE_TEST_WORKERS)) ||
    bad "quiet: page_reserve_ready_bytes $(counter page_reserve_ready_bytes)"
made_at_least() { [ "$(counter page_reserve_chunks_made)" -ge "$1" ] 2>/dev/null; }
[ "$CUTTLE_TEST_WORKERS" = 1 ] || wait_until 5 made_at_least $((made0 + 7))
made1=$(counter page_reserve_chunks_made)
[ "$made1" -ge $((made0 + 7)) ] 2>/dev/null || bad "quiet: page_reserve_chunks_made $made0 -> $made1"
pass_if_ok "quiet again, the reserve is made whole ($made0 -> $made1 chunks made)"

# a reconfigure to 0 ends the thread and the reserve
mark
cuttle_conf "debug_options ALL,1 20,3" "visible_hostname $CACHE_HOST" "cache_mem 128 MB" \
    "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" "memory_populate_ahead 0" \
    "http_access allow localhost manager" "http_access allow localhost" "http_access deny all"
kill -HUP "$CUTTLE_PID"
wait_until "$(scaled 10)" has_threads 1 || bad "reconfigured to 0: $(threads) threads"
# (with workers, each publishes its figures as its reconfigure ends: the
# page is the new one at once)
expect "reconfigured to 0: page_reserve_bytes" "$(counter page_reserve_bytes)" 0
get big1
expect_hit "big1 after the reconfigure" big1 3 "$SHA"
pass_if_ok "a reconfigure to 0 ends the thread"

# cache_mem bounds the reserve: auto is at most cache_mem, and what the cache
# holds and what is ready together stay within it
mark
cache_start "cache_mem 48 MB" "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" \
    "http_access allow localhost manager"
reserve_fills "auto over cache_mem" $((48 * MB))
script big2 "cc=max-age=60&s=32m"
get big2
expect_miss "big2, first" big2 1 TCP_MISS/200 "$SHA"
sleep 1
ready=$(counter page_reserve_ready_bytes)
# with workers, the others' 48 MB beside the keeping worker's 16 at most
[ "$ready" -le $((16 * MB + 48 * MB * (CUTTLE_TEST_WORKERS - 1))) ] 2>/dev/null ||
    bad "48 MB with 32 MB kept: page_reserve_ready_bytes $ready"
get big2
expect_hit "big2, again" big2 2 "$SHA"
pass_if_ok "cache_mem bounds the reserve ($ready bytes ready beside 32 MB kept in 48 MB)"

# a size sets the reserve whatever the objects; 0 from the start has no thread
mark
cache_start "cache_mem 128 MB" "memory_populate_ahead 8 MB" "http_access allow localhost manager"
reserve_fills "8 MB" $((8 * MB))
cache_start "cache_mem 128 MB" "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" \
    "memory_populate_ahead 0" "http_access allow localhost manager"
script big3 "cc=max-age=60&s=32m"
get big3
expect_miss "big3, first" big3 1 TCP_MISS/200 "$SHA"
get big3
expect_hit "big3, again" big3 2 "$SHA"
expect "off: threads" "$(threads)" 1
expect "off: page_reserve_bytes" "$(counter page_reserve_bytes)" 0
pass_if_ok "memory_populate_ahead 8 MB fills 8 MB; 0 has no thread and no reserve"
cache_stop
checks_done
