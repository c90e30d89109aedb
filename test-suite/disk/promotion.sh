#!/bin/sh
# memory_cache_mode and disk hits, as Squid 5.7: `always` and `disk` keep a
# disk hit in memory too (its body read once off the loop), so the next
# request is a TCP_MEM_HIT; `network` leaves it on disk (TCP_HIT each
# time); an object over maximum_object_size_in_memory is never promoted.
# `disk` keeps misses out of memory: the first request stores on disk only.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup
start() {
    cache_start "$DIRLINE" "cache_mem 64 MB" "maximum_object_size_in_memory 2 MB" \
        "maximum_object_size 20 MB" "memory_cache_mode $1"
    wait_until 20 is_rebuilt || fail "the cache_dir's index was not rebuilt"
}
SIZE=1000000
SHA=$(pattern_sha $SIZE)
# last_code ID : the code of the last access.log line of /s/ID
last_code() { log_lines "$(url "$1")" | tail -n 1 | awk '{print $4}'; }
# mem_hit ID : one request for ID is a TCP_MEM_HIT with the whole body
mem_hit() {
    get "$1"
    [ "$(last_code "$1")" = TCP_MEM_HIT/200 ] && [ "$(body_sha)" = "$SHA" ]
}

start disk
mark
script p "cc=max-age=600&s=$SIZE"
script big "cc=max-age=600&s=3000000"
get p
expect "disk: first" "$(log_code p 1)" TCP_MISS/200
wait_until 20 has_files 1 || fail "no store file"
get p
expect "disk: second" "$(log_code p 2)" TCP_HIT/200
expect "disk: second body" "$(body_sha)" "$SHA"
wait_until 10 mem_hit p || bad "memory_cache_mode disk: the disk hit did not enter memory"
expect "disk: origin requests" "$(seen_count p)" 1
get big
wait_until 20 has_files 2 || fail "no store file for big"
get big
get big
expect "disk: big, third" "$(log_code big 3)" TCP_HIT/200
pass_if_ok "memory_cache_mode disk: a disk hit enters memory, an object too large for it does not"

start network
mark
for i in 1 2 3; do
    get p
    expect "network: request $i" "$(last_code p)" TCP_HIT/200
    expect "network: body $i" "$(body_sha)" "$SHA"
done
pass_if_ok "memory_cache_mode network: disk hits stay on disk"

start always
mark
get p
expect "always: first" "$(last_code p)" TCP_HIT/200
wait_until 10 mem_hit p || bad "memory_cache_mode always: the disk hit did not enter memory"
expect "always: origin requests" "$(seen_count p)" 1
pass_if_ok "memory_cache_mode always: a disk hit enters memory"

cache_stop
checks_done
