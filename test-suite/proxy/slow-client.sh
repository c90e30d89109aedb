#!/bin/sh
# Flow control (doc/design.md "The path of a body byte"): a slow client of an uncacheable 1 GiB object
# holds at most read_ahead_gap + two read blocks of cuttle's memory (store/Entry.h:
# the block the client is in and the last one read). curl reads at 20 MB/s
# for 8 seconds while cuttle's VmRSS is sampled; the peak must stay under the
# RSS after a first small request + read_ahead_gap + two request_buffer_size
# blocks (the max of auto) + 2 MB (the pool keeps up to 1 MB of free mapped
# blocks; the rest is the sanitizers' shadow and allocator noise). After curl is killed the
# descriptors and blocks_in_use come back to their baseline and access.log
# has TCP_MISS_ABORTED/200. Run with read_ahead_gap 1 MB and
# request_buffer_size 256 KB set, then with the defaults (squid.conf.default).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start

SAMPLE_SECONDS=8

# slow_case NAME CONF : the bounds from CONF, cuttle as configured in $T/squid.conf
slow_case() {
    name=$1
    gap=$(conf_bytes read_ahead_gap "$2") || fail "$name: no read_ahead_gap in $2"
    block=$(conf_bytes request_buffer_size "$2") || fail "$name: no request_buffer_size in $2"
    cuttle_start
    code=$(proxy_get "$OURL/x?s=1000&cc=no-store&first=$name")
    [ "$code" = 200 ] || fail "$name: first small request: status $code"
    baseline_take
    base_rss=$(cuttle_rss_kb)
    limit=$((base_rss + gap / 1024 + 2 * block / 1024 + 2048))

    path="$OURL/slow-$name"
    url="$path?s=1g&cc=no-store"
    curl -s --max-time "$(scaled 60)" --limit-rate 20M -x "127.0.0.1:$PORT" -o /dev/null "$url" &
    client=$!
    peak=$base_rss
    i=0
    while [ $i -lt $((SAMPLE_SECONDS * 10)) ]; do
        rss=$(cuttle_rss_kb)
        [ "$rss" -gt "$peak" ] && peak=$rss
        sleep 0.1
        i=$((i + 1))
    done
    is_running "$client" || fail "$name: curl ended before the $SAMPLE_SECONDS seconds were over"
    mgr_counters | grep -E '^(blocks|bytes)_' > "$T/$name.blocks"
    kill -TERM "$client"
    wait "$client" 2> /dev/null
    echo "$name: read_ahead_gap $gap, block $block: VmRSS $base_rss kB after a small request, peak $peak kB, bound $limit kB"
    [ "$peak" -le "$limit" ] ||
        problem "$name: a slow client of an uncacheable object: peak VmRSS $peak kB over $limit kB" \
            "($base_rss + read_ahead_gap $((gap / 1024)) + block $((block / 1024)) + 2048);" \
            "the block pool during the transfer: $(tr '\n' ';' < "$T/$name.blocks")"
    checkpoint "$name: peak RSS within read_ahead_gap + two blocks + 2 MB of the baseline"

    baseline_check "$name: after the slow client was killed"
    pass "$name: descriptors and blocks_in_use back to the baseline"
    echo "$name: VmRSS $(cuttle_rss_kb) kB after the slow client (for the record)"
    # the URL is matched without its query (strip_query_terms is on by default)
    wait_until 5 access_log_has " TCP_MISS_ABORTED/200 [0-9]+ GET $(echo "$path" | sed 's/[.]/\\&/g')[? ]" ||
        fail "$name: no TCP_MISS_ABORTED/200 line for the killed client"
    bytes=$(awk -v url="$path" '$4 == "TCP_MISS_ABORTED/200" && ($7 == url || index($7, url "?") == 1) { print $5 }' \
        "$T/access.log" | tail -n 1)
    [ "$bytes" -gt 10000000 ] && [ "$bytes" -lt 1073741824 ] ||
        fail "$name: the killed client got $bytes bytes (expected 8 s at about 20 MB/s)"
    pass "$name: TCP_MISS_ABORTED/200 logged ($bytes bytes sent)"
    cuttle_stop
}

proxy_conf "read_ahead_gap 1 MB" "request_buffer_size 256 KB"
slow_case explicit "$T/squid.conf"

proxy_conf
slow_case defaults "$top_srcdir/squid.conf.default"
problems_check
