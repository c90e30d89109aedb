#!/bin/sh
# memory_populate_ahead: a helper thread keeps memory mapped and populated
# ahead of the event loop's need. By default (16 MB) a stream that recycles a
# few blocks (an uncacheable 64 MB object) starts no thread; once 16 MB of
# large blocks are in use (a kept 32 MB object) the thread starts and fills
# the reserve, and a kept object read afterwards is carved from its chunks (the counters page shows
# the chunks taken; the object is served whole, then hit); after a second
# without demand the ready memory goes back. 0 has no thread and no reserve,
# and a reconfigure to 0 ends the thread at once. -k parse takes the
# directive and rejects a bad size with file:line.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

threads() { ls "/proc/$CUTTLE_PID/task" | wc -l | tr -d ' '; }
ready_at_least() { [ "$(counter page_reserve_ready_bytes)" -ge "$1" ] 2>/dev/null; }
ready_at_most() { [ "$(counter page_reserve_ready_bytes)" -le "$1" ] 2>/dev/null; }
has_threads() { [ "$(threads)" = "$1" ]; }

cuttle_conf "memory_populate_ahead 32 MB" "http_access allow localhost"
out=$("$CUTTLE" -k parse -f "$T/squid.conf" 2>&1) || bad "-k parse refused memory_populate_ahead 32 MB: $out"
case "$out" in *memory_populate_ahead*) bad "-k parse says of memory_populate_ahead: $out" ;; esac
cuttle_conf "memory_populate_ahead lots"
out=$("$CUTTLE" -k parse -f "$T/squid.conf" 2>&1) && bad "-k parse accepted memory_populate_ahead lots"
expect_match "-k parse of a bad size" "$out" 'squid.conf:7: '
pass_if_ok "-k parse: memory_populate_ahead SIZE"

# the default: 16 MB, no thread while the blocks in use stay few
# (fixed 1 MB reads: every block of a body is of a mapped class)
mark
cache_start "cache_mem 128 MB" "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" \
    "http_access allow localhost manager"
expect "default: page_reserve_bytes" "$(counter page_reserve_bytes)" 16777216
script stream "cc=no-store&s=64m"
get stream
expect "stream: body sha256" "$(body_sha)" "$(pattern_sha 64m)"
expect "stream: threads" "$(threads)" 1
expect "stream: page_reserve_chunks_made" "$(counter page_reserve_chunks_made)" 0
pass_if_ok "an uncacheable 64 MB stream starts no thread and holds no reserve"

mark
SHA=$(pattern_sha 32m)
script big1 "cc=max-age=60&s=32m"
get big1
expect_miss "big1, first" big1 1 TCP_MISS/200 "$SHA"
wait_until "$(scaled 10)" ready_at_least 16777216 ||
    bad "the reserve did not fill: page_reserve_ready_bytes $(counter page_reserve_ready_bytes)"
expect "default: threads with the reserve" "$(threads)" 2
pass_if_ok "a kept 32 MB object starts the helper, which fills 16 MB"

# a kept object read now comes from the ready chunks, and is served whole
mark
taken0=$(counter page_reserve_chunks_taken)
script big2 "cc=max-age=60&s=32m"
get big2
expect_miss "big2, first" big2 1 TCP_MISS/200 "$SHA"
taken1=$(counter page_reserve_chunks_taken)
[ "$taken1" -ge $((taken0 + 1)) ] 2>/dev/null || bad "page_reserve_chunks_taken $taken0 -> $taken1 for a kept 32 MB object"
get big2
expect_hit "big2, again" big2 2 "$SHA"
expect "big2: origin requests" "$(seen_count big2)" 1
pass_if_ok "a kept object is read into populated chunks ($taken0 -> $taken1 taken) and hit"

# idle: the ready chunks go back (the chunk in use keeps its tail, < 4 MB)
mark
wait_until "$(scaled 10)" ready_at_most 4194304 ||
    bad "idle: page_reserve_ready_bytes still $(counter page_reserve_ready_bytes)"
dropped=$(counter page_reserve_chunks_dropped)
[ "$dropped" -ge 1 ] 2>/dev/null || bad "idle: page_reserve_chunks_dropped $dropped"
pass_if_ok "idle: the ready memory goes back ($dropped chunks)"

# a reconfigure to 0 ends the thread and the reserve
mark
cuttle_conf "debug_options ALL,1 20,3" "visible_hostname $CACHE_HOST" "cache_mem 128 MB" \
    "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" "memory_populate_ahead 0" \
    "http_access allow localhost manager" "http_access allow localhost" "http_access deny all"
kill -HUP "$CUTTLE_PID"
wait_until "$(scaled 10)" has_threads 1 || bad "reconfigured to 0: $(threads) threads"
expect "reconfigured to 0: page_reserve_bytes" "$(counter page_reserve_bytes)" 0
get big2
expect_hit "big2 after the reconfigure" big2 3 "$SHA"
pass_if_ok "a reconfigure to 0 ends the thread"

# 0 from the start: no thread, blocks mapped as they are needed
mark
cache_start "cache_mem 128 MB" "maximum_object_size_in_memory 64 MB" "request_buffer_size 1 MB" \
    "memory_populate_ahead 0" "http_access allow localhost manager"
script big3 "cc=max-age=60&s=32m"
get big3
expect_miss "big3, first" big3 1 TCP_MISS/200 "$SHA"
get big3
expect_hit "big3, again" big3 2 "$SHA"
expect "off: threads" "$(threads)" 1
expect "off: page_reserve_chunks_made" "$(counter page_reserve_chunks_made)" 0
pass_if_ok "memory_populate_ahead 0: no thread, no reserve"
cache_stop
checks_done
