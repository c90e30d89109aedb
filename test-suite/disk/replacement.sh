#!/bin/sh
# cache_replacement_policy picks what a cache_dir evicts past cache_swap_high:
# in a 1 MB cache_dir, nine 100 KB objects are stored (o2 first, then o1,
# o3 ... o9), o1 is hit three times, then each of the others once; a tenth
# object passes cache_swap_high and one object is evicted (one RELEASE line
# in cache_store_log). With lru (the default) and heap LRU it is o1, the
# least recently used though the most used (not o2, stored first: the hits
# count), and a request for it is a miss; with heap LFUDA o1 stays (a hit)
# and the victim is the newcomer, used once; heap GDSF, with files of one
# size, evicts as LFUDA. mgr:storedir names the policy. As in Squid, the
# policy is read at start: a reconfigure that changes it warns and keeps it.
# After a restart the order starts from the order of storing: with lru the
# first object stored goes first, whatever order the scan finds the files in.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
DIRLINE="cache_dir ufs $T/cache 1 4 4"
disk_setup

# swapouts : the number of SWAPOUT lines in store.log
swapouts() { cat "$T/store.log" 2> /dev/null | grep -c ' SWAPOUT '; }
has_swapouts() { [ "$(swapouts)" -ge "$1" ]; }
has_release() { grep -q ' RELEASE ' "$T/store.log" 2> /dev/null; }
# file_of ID : the file number of /s/ID's SWAPOUT line
file_of() { grep ' SWAPOUT ' "$T/store.log" | awk -v u="$(url "$1")" '$NF == u {print $4}'; }
# evicted : the object (ID) whose file the RELEASE line names
evicted() {
    local file id
    file=$(grep ' RELEASE ' "$T/store.log" | awk '{print $4}')
    for id in o1 o2 o3 o4 o5 o6 o7 o8 o9 o10; do
        [ "$(file_of "$id")" = "$file" ] && echo "$id"
    done
}
# storedir : the mgr:storedir page
storedir() { curl -s --max-time "$(scaled 10)" "http://127.0.0.1:$PORT/squid-internal-mgr/storedir"; }

# proxy_start LINE... : the proxy with these lines, then the cache_dir (objects
# go to disk only) and the store log; waits until the index is rebuilt
proxy_start() {
    : > "$T/cache.log"
    cache_start "$@" "$DIRLINE" "maximum_object_size_in_memory 8 KB" "cache_store_log $T/store.log"
    wait_until 20 is_rebuilt || fail "the cache_dir's index was not rebuilt"
}
# fresh_start LINE... : proxy_start with an empty cache_dir and logs
fresh_start() {
    cache_stop
    rm -rf "$T/cache" "$T/store.log"
    "$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
    : > "$T/access.log"
    proxy_start "$@"
}
# store ID... : fetches each 100 KB object once, in order, each stored before the next
store() {
    local id n
    for id in "$@"; do
        n=$(($(swapouts) + 1))
        script "$id" "cc=max-age=600&s=100000"
        get "$id"
        wait_until 20 has_swapouts "$n" || fail "$id was not stored: $(tail -n 3 "$T/cache.log")"
    done
}

# run POLICY SURVIVOR_CODE VICTIM : the scenario above under POLICY ("" for
# no cache_replacement_policy line): VICTIM is evicted, and the next request
# for o1 is logged SURVIVOR_CODE
run() {
    local policy=$1 code=$2 victim=$3 i
    set --
    [ -z "$policy" ] || set -- "cache_replacement_policy $policy"
    fresh_start "$@"
    mark
    store o2 o1 o3 o4 o5 o6 o7 o8 o9
    has_release && bad "${policy:-lru}: an object was evicted before the cache_dir was full"
    for i in 1 1 1 2 3 4 5 6 7 8 9; do
        get "o$i"
    done
    for i in 1 2 3 4 5 6 7 8 9; do
        expect "${policy:-lru}: o$i hit" "$(log_codes "o$i" 2 | cut -d' ' -f2)" TCP_HIT/200
    done
    store o10
    wait_until 10 has_release || bad "${policy:-lru}: nothing was evicted past cache_swap_high"
    expect "${policy:-lru}: RELEASE lines" "$(grep -c ' RELEASE ' "$T/store.log")" 1
    expect "${policy:-lru}: the object evicted" "$(evicted)" "$victim"
    get o1
    expect "${policy:-lru}: o1 after the eviction" "$(log_code o1 5)" "$code"
    expect_match "${policy:-lru}: mgr:storedir" "$(storedir)" "^Removal policy: ${policy:-lru}\$"
    pass_if_ok "cache_replacement_policy ${policy:-(none: lru)}: $victim is evicted, o1 is then a $code"
}

run "" TCP_MISS/200 o1
run lru TCP_MISS/200 o1
run "heap LFUDA" TCP_HIT/200 o10
run "heap GDSF" TCP_HIT/200 o10
run "heap LRU" TCP_MISS/200 o1

mark
sed -i 's/^cache_replacement_policy heap LRU$/cache_replacement_policy heap LFUDA/' "$T/squid.conf"
grep -q '^cache_replacement_policy heap LFUDA$' "$T/squid.conf" || fail "squid.conf was not changed"
kill -HUP "$CUTTLE_PID"
said_next_start() { grep -q 'cache_replacement_policy changes take effect at the next start' "$T/cache.log"; }
wait_until 10 said_next_start || bad "no warning after a reconfigure that changes cache_replacement_policy"
expect_match "after the reconfigure: mgr:storedir" "$(storedir)" '^Removal policy: heap LRU$'
pass_if_ok "a reconfigure that changes cache_replacement_policy warns and keeps the policy until the next start"

mark
fresh_start
store o5 o3 o8 o1 o9 o2 o7 o4 o6
proxy_start
store o10
wait_until 10 has_release || bad "restart: nothing was evicted past cache_swap_high"
expect "restart: the object evicted" "$(evicted)" o5
pass_if_ok "after a restart, lru evicts the object stored first"

cache_stop
checks_done
