#!/bin/sh
# A disk hit whose file is not in the page cache: reading its head and
# sendfile(2) would wait for the disk on the event loop, so the head and then
# the cold bytes are read by an I/O thread first (cache.log at 47,3 says so),
# the head is handled again, and the hit is whole, right and logged once. The
# file's pages are dropped with posix_fadvise(DONTNEED) between the store and
# the hit (on a file system that keeps them anyway, such as tmpfs, the test
# says so and checks the hit only).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup
cache_start "$DIRLINE" "maximum_object_size_in_memory 512 KB" "maximum_object_size 50 MB" \
    "debug_options ALL,1 47,3"
wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"

mark
size=12000000
SHA=$(pattern_sha "$size")
script cold "cc=max-age=600&s=$size"
get cold
expect "the miss: status" "$CODE" 200
wait_until 20 has_files 1 || fail "no store file after the miss"
wait_until 10 no_temp_file || fail "the store file was not finished"

# drop_pages : drops the store files' pages from the page cache; prints
# "dropped" when the last byte of each is not cached afterwards
drop_pages() {
    python3 - "$T/cache" << 'PY'
import os, sys
dropped = True
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        fd = os.open(os.path.join(root, name), os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        size = os.fstat(fd).st_size
        try:
            os.preadv(fd, [bytearray(1)], size - 1, os.RWF_NOWAIT)
            dropped = False
        except BlockingIOError:
            pass
        os.close(fd)
print("dropped" if dropped else "kept")
PY
}
dropped=$(drop_pages)
get cold
expect "the cold hit: status" "$CODE" 200
expect "the cold hit: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
expect "the cold hit: body sha256" "$(body_sha)" "$SHA"
if [ "$dropped" = dropped ]; then
    grep -q "a disk object's head is cold: warming" "$T/cache.log" ||
        bad "the cold hit's head was not warmed off the loop"
    grep -q "a disk hit's bytes .* are cold: warming them" "$T/cache.log" ||
        bad "the cold hit's bytes were not warmed off the loop"
    # 12 MB in 4 MB windows: at least three warm-ups, unless the kernel's
    # readahead of one reached into the next
    echo "warm-ups: $(grep -c "are cold: warming them" "$T/cache.log")"
else
    echo "this file system kept the pages: the warming is not checked"
fi
wait_until 5 grep -q "TCP_HIT/200 .* GET http://[^ ]*/s/cold " "$T/access.log" || bad "no TCP_HIT line for the cold hit"
expect "access.log lines of the miss and the cold hit" "$(grep -c " GET http://[^ ]*/s/cold " "$T/access.log")" 2
# a warm hit asks for no warm-up
n=$(grep -c "are cold: warming them" "$T/cache.log")
get cold
expect "the warm hit: body sha256" "$(body_sha)" "$SHA"
expect "warm-ups of the warm hit" "$(grep -c "are cold: warming them" "$T/cache.log")" "$n"
pass_if_ok "a cold disk hit is warmed by an I/O thread and served whole"
cache_stop
checks_done
