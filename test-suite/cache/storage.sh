#!/bin/sh
# What the memory cache keeps, by size and by replacement policy:
# minimum_object_size 1 KB keeps out a body of 0 or 1023 bytes (by its
# Content-Length) and stores 1024, 1025 and a chunked 2 KB;
# maximum_object_size_in_memory 100 KB with a body of unknown length
# (chunked, or close-delimited) stores 99 KB and, one byte over the limit or
# 3 MB, streams the whole body to the client and keeps nothing (hit.sh has
# 50 KB and 200 KB with a Content-Length and chunked); and each
# memory_replacement_policy (lru, heap GDSF, heap LFUDA, heap LRU) in a
# 1 MB cache_mem evicts (the oldest 100 KB object goes, the newest stays)
# in its own order (src/store/Policy.h):
#
#   S: 2 KB, used once; then A: 100 KB, used 5 times; then B1..B12: 100 KB
#   each, used once (about 8 objects of 100 KB fit in 1 MB)
#
#   lru, heap LRU : S and A are the least recently used: evicted first
#   heap LFUDA    : key = L + uses: S (1) goes first, then the B's (1, then
#                   2 once L is 1); A (5) stays
#   heap GDSF     : key = L + uses / bytes: the B's (1/100 KB) go first;
#                   A (5/100 KB) and S (1/2 KB) stay
#
# Against Squid 5.7 (CACHE_TEST_SQUID) the eviction checks are skipped: with
# cache_mem 1 MB and no cache_dir it keeps objects while they fit and then
# refuses new ones rather than evict (budget.sh), whatever the policy,
# where its squid.conf documents memory_replacement_policy as deciding
# "which objects are purged from memory when memory space is needed".
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start "minimum_object_size 1 KB" "maximum_object_size_in_memory 100 KB"

# stored_or_not ID SPEC STORED WHAT : a cc=max-age=60 reply with SPEC
# (s=SIZE first), fetched twice: the client gets the whole body both times,
# and the second comes from the cache when STORED is yes
stored_or_not() {
    local id=$1 spec=$2 stored=$3 what=$4 size sha
    size=$(echo "$spec" | sed 's/^s=\([0-9kmKM]*\).*/\1/')
    sha=$(pattern_sha "$size")
    mark
    script "$id" "cc=max-age=60&$spec" "cc=max-age=60&$spec"
    get "$id"
    expect "$what, first: status" "$CODE" 200
    expect_miss "$what, first" "$id" 1 TCP_MISS/200 "$sha"
    get "$id"
    if [ "$stored" = yes ]; then
        expect_hit "$what, second" "$id" 2 "$sha"
        expect "$what: origin requests" "$(seen_count "$id")" 1
        pass_if_ok "$what is stored"
    else
        expect "$what, second: status" "$CODE" 200
        expect_miss "$what, second" "$id" 2 TCP_MISS/200 "$sha"
        expect "$what: origin requests" "$(seen_count "$id")" 2
        pass_if_ok "$what is not stored; the client gets it whole"
    fi
}

# --- minimum_object_size 1 KB (the Content-Length decides)
stored_or_not min0 "s=0" no "minimum_object_size 1 KB: an empty body"
stored_or_not min1 "s=1023" no "minimum_object_size 1 KB: a 1023-byte body"
stored_or_not min2 "s=1024" yes "minimum_object_size 1 KB: a 1024-byte body"
stored_or_not min3 "s=1025" yes "minimum_object_size 1 KB: a 1025-byte body"
stored_or_not min4 "s=2k&chunked=1" yes "minimum_object_size 1 KB: a chunked 2 KB body"
# a body of unknown length is weighed when it ends
stored_or_not min5 "s=100&chunked=1" no "minimum_object_size 1 KB: a chunked 100-byte body"
stored_or_not min6 "s=100&close=1" no "minimum_object_size 1 KB: a close-delimited 100-byte body"

# --- maximum_object_size_in_memory 100 KB, bodies of unknown length: kept
# while within the limit, dropped the moment they pass it (and streamed on)
for framing in chunked close; do
    [ "$framing" = chunked ] && label=chunked || label=close-delimited
    stored_or_not "max-$framing-1" "s=99k&$framing=1" yes \
        "maximum_object_size_in_memory 100 KB: a $label 99 KB body"
    stored_or_not "max-$framing-2" "s=102401&$framing=1" no \
        "maximum_object_size_in_memory 100 KB: a $label body one byte over (102401)"
    stored_or_not "max-$framing-3" "s=3m&$framing=1" no \
        "maximum_object_size_in_memory 100 KB: a $label 3 MB body"
done

# --- memory_replacement_policy, in cache_mem 1 MB
SHA2K=$(pattern_sha 2k)
SHA100K=$(pattern_sha 100k)
# fate yes|no : "stays" or "was evicted"
fate() { if [ "$1" = yes ]; then echo stays; else echo was evicted; fi; }
# policy_round POLICY A-SURVIVES S-SURVIVES : the scenario of the header
# under POLICY; whether A and S are still hits at the end
policy_round() {
    local policy=$1 keepA=$2 keepS=$3 p i x n keep sha
    p=$(echo "$policy" | tr -c 'a-zA-Z\n' _)
    cache_start "cache_mem 1 MB" "maximum_object_size_in_memory 512 KB" \
        "memory_replacement_policy $policy"
    mark
    script "$p-S" "cc=max-age=600&s=2k"
    get "$p-S"
    expect_miss "$policy: S, first" "$p-S" 1 TCP_MISS/200 "$SHA2K"
    script "$p-A" "cc=max-age=600&s=100k"
    get "$p-A"
    expect_miss "$policy: A, first" "$p-A" 1 TCP_MISS/200 "$SHA100K"
    for i in 2 3 4 5; do
        get "$p-A"
        expect_hit "$policy: A, use $i" "$p-A" $i "$SHA100K"
    done
    i=1
    while [ $i -le 12 ]; do
        script "$p-B$i" "cc=max-age=600&s=100k"
        get "$p-B$i"
        expect_miss "$policy: B$i, first" "$p-B$i" 1 TCP_MISS/200 "$SHA100K"
        i=$((i + 1))
    done
    pass_if_ok "$policy: S (2 KB) once, A (100 KB) 5 times, B1..B12 (100 KB) once each"

    # then, in this order (a miss fetches the object again, which evicts
    # another one; a hit only counts a use): B12, A, S, B1
    mark
    get "$p-B12"
    if [ -z "$CACHE_TEST_SQUID" ]; then
        expect_hit "$policy: B12 (the newest), again" "$p-B12" 2 "$SHA100K"
        expect "$policy: B12: origin requests" "$(seen_count "$p-B12")" 1
    fi
    for x in A S; do
        if [ "$x" = A ]; then keep=$keepA; n=6; sha=$SHA100K; else keep=$keepS; n=2; sha=$SHA2K; fi
        get "$p-$x"
        expect "$policy: $x, again: body" "$(body_sha)" "$sha"
        [ -z "$CACHE_TEST_SQUID" ] || continue
        if [ "$keep" = yes ]; then
            expect_hit "$policy: $x (kept), again" "$p-$x" $n "$sha"
            expect "$policy: $x (kept): origin requests" "$(seen_count "$p-$x")" 1
        else
            expect_miss "$policy: $x (evicted), again" "$p-$x" $n TCP_MISS/200 "$sha"
            expect "$policy: $x (evicted): origin requests" "$(seen_count "$p-$x")" 2
        fi
    done
    get "$p-B1"
    expect "$policy: B1, again: body" "$(body_sha)" "$SHA100K"
    if [ -z "$CACHE_TEST_SQUID" ]; then
        expect_miss "$policy: B1 (evicted), again" "$p-B1" 2 TCP_MISS/200 "$SHA100K"
        expect "$policy: B1 (evicted): origin requests" "$(seen_count "$p-B1")" 2
    fi
    if [ -n "$CACHE_TEST_SQUID" ]; then
        pass_if_ok "$policy: B12, A, S and B1 again, whole (what was evicted is not checked against Squid)"
    else
        pass_if_ok "$policy: the newest object stays, B1 was evicted, A $(fate "$keepA"), S $(fate "$keepS")"
    fi
}
policy_round "lru" no no
policy_round "heap LRU" no no
policy_round "heap LFUDA" yes no
policy_round "heap GDSF" yes yes

cache_stop
checks_done
