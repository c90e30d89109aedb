#!/bin/sh
# mgr:storedir through squidclient, in Squid 5.7's format: the totals, then
# each cache_dir with its type, path, L1/L2, size and use (a stored 3 MB
# object shows), the filesystem's space and inodes, Flags (READ-ONLY for a
# no-store one) and the removal policy; cuttle's own lines under "cuttle:"
# (objects, rebuilding, storing).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
. "$top_srcdir/test-suite/mgr/helpers.sh"
cuttle_setup
origin_start
DIRS="cache_dir ufs $T/cache 400 4 8
cache_dir rock $T/ro 100 no-store"
cuttle_conf "$DIRS"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
cache_start "$DIRS" "maximum_object_size_in_memory 512 KB" "$MGR_RULES" "cachemgr_passwd none all"
is_rebuilt() { grep -q "cache_dir $T/cache: rebuilt its index" "$T/cache.log"; }
wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"

script big "cc=max-age=600&s=3000000"
get big
expect "the miss" "$CODE" 200
stored() { find "$T/cache" -type f ! -name '*.tmp' | grep -q .; }
wait_until 20 stored || bad "nothing stored on disk"

mark
mgr storedir
expect "storedir" "$MCODE" 200
for regex in '^Store Directory Statistics:$' '^Store Entries          : [1-9][0-9]*$' \
    '^Maximum Swap Size      : 512000 KB$' '^Current Store Swap Size: [1-9][0-9]*\.[0-9]{2} KB$' \
    '^Current Capacity       : [0-9]+\.[0-9]{2}% used, [0-9]+\.[0-9]{2}% free$' \
    "^Store Directory #0 \\(ufs\\): $T/cache\$" '^FS Block Size [1-9][0-9]* Bytes$' \
    '^First level subdirectories: 4$' '^Second level subdirectories: 8$' '^Maximum Size: 409600 KB$' \
    '^Current Size: [1-9][0-9]*\.[0-9]{2} KB$' '^Percent Used: [0-9]+\.[0-9]{2}%$' \
    '^Filemap bits in use: 1 of 16384 \(0%\)$' '^Filesystem Space in use: [1-9][0-9]*/[1-9][0-9]* KB \([0-9]+%\)$' \
    '^Filesystem Inodes in use: [0-9]+/[0-9]+ \([0-9]+%\)$' '^Removal policy: lru$' \
    "^Store Directory #1 \\(rock\\): $T/ro\$" '^Flags: READ-ONLY$' '^storing: no \(no-store\)$' \
    '^rebuilding: no$' '^objects: 1$'; do
    body_has storedir "$regex"
done
pass_if_ok "mgr:storedir lists each cache_dir in Squid 5.7's format"

# mgr:info speaks of the same store: its size, capacity and mean object size
# (the 3 MB object), and a disk hit counted as one
get big
expect "the disk hit" "$CODE" 200
mark
mgr info
expect "info" "$MCODE" 200
for regex in '^	Storage Swap size:	[1-9][0-9]* KB$' '^	Storage Swap capacity:	 *[0-9]+\.[0-9]% used, *[0-9]+\.[0-9]% free$' \
    '^	Mean Object Size:	29[0-9][0-9]\.[0-9]{2} KB$'; do
    body_has info "$regex"
done
pass_if_ok "mgr:info counts the cache_dirs: swap size, capacity, mean object size"
cache_stop
checks_done
