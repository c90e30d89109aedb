#!/bin/sh
# Replies of unknown length (chunked, or delimited by the connection's
# close) go to disk as Squid keeps them: one that outgrows
# maximum_object_size_in_memory while it arrives is handed to the disk
# store from its first byte, which memory still holds; with
# memory_cache_mode disk it goes to disk at once. The next request is a
# TCP_HIT with the same bytes, sent with a Content-Length. One that
# outgrows maximum_object_size is given up: nothing stays on disk. A small
# one stays in memory (TCP_MEM_HIT).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup

for mode in always disk; do
    cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 4 MB" \
        "memory_cache_mode $mode"
    wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"
    for framing in chunked close; do
        id=$framing-$mode
        SIZE=3000000
        SHA=$(pattern_sha $SIZE)
        mark
        script "$id" "cc=max-age=600&s=$SIZE&$framing=1"
        before=$(stored_files)
        get "$id"
        expect "$id: first request" "$(log_code "$id" 1)" TCP_MISS/200
        expect "$id: first body" "$(body_sha)" "$SHA"
        wait_until 20 has_files $((before + 1)) || bad "$id: no store file after the miss"
        get "$id"
        expect "$id: second request" "$(log_code "$id" 2)" TCP_HIT/200
        expect "$id: second body" "$(body_sha)" "$SHA"
        expect "$id: Content-Length" "$(header Content-Length)" $SIZE
        expect "$id: origin requests" "$(seen_count "$id")" 1
        pass_if_ok "memory_cache_mode $mode: a $framing reply of unknown length is stored on disk"
    done
done

# past maximum_object_size: given up, nothing left
mark
script huge "cc=max-age=600&s=5000000&chunked=1"
before=$(stored_files)
get huge
expect "huge: first body" "$(body_sha)" "$(pattern_sha 5000000)"
wait_until 10 no_temp_file || bad "huge: a temporary file stayed"
get huge
expect "huge: second request" "$(log_code huge 2)" TCP_MISS/200
expect "huge: store files" "$(stored_files)" "$before"
pass_if_ok "a reply of unknown length past maximum_object_size is not kept on disk"

# small: memory keeps it
cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 4 MB"
mark
script small "cc=max-age=600&s=10000&chunked=1"
get small
get small
expect "small: second request" "$(log_code small 2)" TCP_MEM_HIT/200
pass_if_ok "a small reply of unknown length stays in memory"

cache_stop
checks_done
