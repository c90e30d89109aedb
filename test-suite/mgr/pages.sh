#!/bin/sh
# The manager pages in Squid 5.7's formats, through squidclient: each page's
# key fields (what scripts that read Squid's pages grep for), with figures
# that move with the traffic (requests, hits, bytes, the object stored, the
# client), and the metrics page in the OpenMetrics text format.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7
# (but config, which crashes Squid 5.7, and metrics, which is cuttle's).
# With workers (CUTTLE_TEST_WORKERS) a page sums the workers' counts, but
# its lists (clients, requests in progress) and some figures are those of
# the worker that serves it: replies name their worker (access/helpers.sh
# WORKER_TAG), and the traffic goes on until every worker served a miss and
# a hit, so that whichever worker serves a page has them.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/mgr/helpers.sh"
cuttle_setup
origin_start

set --
[ "$CUTTLE_TEST_WORKERS" = 1 ] || set -- "$WORKER_TAG"
cache_start "$@" "$MGR_RULES" "cachemgr_passwd none all"
script obj1 "cc=max-age=600&s=5000"
get obj1
expect "a miss" "$CODE" 200
get obj1
expect "a hit" "$CODE" 200
wait_until 5 has_log_lines obj1 2 || bad "the two requests were not logged"
if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    # WHAT: "miss" or "hit"; every_worker WHAT : until every worker served one
    every_worker() {
        seen=""
        n=0
        while [ "$(echo $seen | wc -w)" -lt "$CUTTLE_TEST_WORKERS" ]; do
            n=$((n + 1))
            [ $n -le 64 ] || fail "64 requests reached the workers$seen only for a $1 each"
            if [ "$1" = miss ]; then
                script "fill$n" "cc=max-age=600&s=5000"
                ask_worker "$(url "fill$n")"
                want=MISS
            else
                ask_worker "$(url obj1)"
                want=HIT
            fi
            expect "a $1 (worker $WORKER)" "$CODE" 200
            expect "a $1 (worker $WORKER): X-Cache" "$(tr -d '\r' < "$T/worker.head" |
                sed -n 's/^X-Cache: \([A-Z]*\) .*/\1/p')" $want
            case " $seen " in *" $WORKER "*) ;; *) seen="$seen $WORKER" ;; esac
        done
    }
    every_worker miss
    every_worker hit
fi

# page ACTION REGEX... : fetches ACTION; each REGEX must match a line of it
page() {
    local action=$1
    shift
    mark
    mgr "$action"
    expect "$action" "$MCODE" 200
    for regex in "$@"; do
        body_has "$action" "$regex"
    done
    pass_if_ok "mgr:$action"
}

page menu '^ menu +	Cache Manager Menu +	public$' '^ info +	General Runtime Information +	public$' \
    '^ server_list +	Peer Cache Statistics +	public$'
page info '^Squid Object Cache: Version ' '^Start Time:	' '^Connection information for squid:$' \
    '^	Number of clients accessing cache:	[1-9]' '^	Number of HTTP requests received:	[1-9][0-9]*$' \
    '^	Hits as % of all requests:	5min: ' '^	Storage Mem size:	[0-9]+ KB$' \
    '^	Storage Mem capacity:	 *[0-9.]+% used, *[0-9.]+% free$' '^	HTTP Requests \(All\): +[0-9.]+ +[0-9.]+$' \
    '^	UP Time:	[0-9.]+ seconds$' '^	Maximum Resident Size: [1-9][0-9]* KB$' \
    '^	Maximum number of file descriptors: +[1-9]' '^	Number of file desc currently in use: +[1-9]' \
    '^	 +[1-9][0-9]* StoreEntries$'
page counters '^sample_time = [0-9]+\.[0-9]{6} \(' '^client_http\.requests = [1-9][0-9]*$' \
    '^client_http\.hits = [1-9][0-9]*$' '^client_http\.kbytes_out = [1-9][0-9]*$' \
    '^client_http\.hit_kbytes_out = [1-9][0-9]*$' '^server\.all\.requests = [1-9][0-9]*$' \
    '^server\.http\.kbytes_in = [1-9][0-9]*$' '^icp\.pkts_sent = 0$' '^select_loops = [1-9][0-9]*$' \
    '^cpu_time = [0-9]+\.[0-9]+$' '^aborted_requests = [0-9]+$'
page 5min '^sample_start_time = [0-9]+\.[0-9]{6} \(' '^sample_end_time = ' \
    '^client_http\.requests = [0-9]+\.[0-9]{6}/sec$' '^dns\.median_svc_time = [0-9.]+ seconds$' \
    '^syscalls\.sock\.accepts = [0-9.]+/sec$' '^cpu_usage = [0-9.]+%$'
page 60min '^sample_start_time = ' '^server\.all\.kbytes_in = [0-9.]+/sec$' '^wall_time = [0-9.]+ seconds$'
page utilization '^Cache Utilisation:$' '^Last 5 minutes:$' '^Last 3 days:$' '^Totals since cache startup:$' \
    '^client_http\.requests = [1-9][0-9]*$'
page mem '^Current memory usage:$'
page objects '^KEY [0-9A-F]{32}$' "^	GET http://127\\.0\\.0\\.1:$OPORT/s/obj1\$" '^	inmem_hi: [1-9][0-9]*$'
page vm_objects "^	GET http://127\\.0\\.0\\.1:$OPORT/s/obj1\$"
page active_requests '^uri cache_object://127\.0\.0\.1/active_requests$' '^logType ' '^username -$'
page client_list '^Cache Clients:$' '^Address: 127\.0\.0\.1$' '^    HTTP Requests [1-9][0-9]*$' \
    '^        TCP_MISS +[1-9][0-9]* +[0-9]+%$' '^        TCP_MEM_HIT +[1-9][0-9]* +[0-9]+%$' \
    '^HTTP: [1-9][0-9]* Requests, [1-9][0-9]* Hits \( *[0-9]+%\)$'
if [ "$CUTTLE_TEST_WORKERS" != 1 ] && [ -z "$CACHE_TEST_SQUID" ]; then
    # the lists each worker keeps come from every worker, whichever serves
    # the page, framed as Squid's kids frame them; every worker served this
    # client, so each part lists it
    for action in active_requests client_list; do
        mark
        mgr "$action"
        expect "$action" "$MCODE" 200
        k=1
        while [ $k -le "$CUTTLE_TEST_WORKERS" ]; do
            body_has "$action" "^by kid$k \{\$"
            body_has "$action" "^\} by kid$k\$"
            k=$((k + 1))
        done
        pass_if_ok "mgr:$action from every worker"
    done
    expect "client_list: the client in every worker's part" "$(grep -c '^Address: 127\.0\.0\.1$' "$T/mgr.body")" \
        "$CUTTLE_TEST_WORKERS"
fi
page server_list '^There are no neighbors installed\.$'
page fqdncache '^FQDN Cache Statistics:$' '^FQDNcache Requests: [0-9]+$' '^FQDN Cache Contents:$'
page ipcache '^IP Cache Statistics:$' '^IPcache Entries Cached: +[0-9]+$' '^IPcache Requests: [0-9]+$' \
    '^IP Cache Contents:$'

if [ -z "$CACHE_TEST_SQUID" ]; then
    page config '^http_port 127\.0\.0\.1:0$' '^cachemgr_passwd none all$' '^http_access allow localhost manager$'
    page mem '^cuttle:$' '^blocks_in_use: [0-9]+$' '^body_copies: 0$' '^origin_connections_opened: [1-9]' \
        '^reads_from_[0-9]+: [1-9]'

    mark
    mgr metrics
    expect "metrics" "$MCODE" 200
    expect_match "its type" "$(mgr_header Content-Type)" '^application/openmetrics-text; version=1\.0\.0'
    body_has "metrics" '^# TYPE squid_client_http_requests counter$'
    body_has "metrics" '^squid_client_http_requests_total [1-9][0-9]*$'
    body_has "metrics" '^squid_store_entries [1-9][0-9]*$'
    body_has "metrics" '^cuttle_body_copies_total 0$'
    [ "$(tail -n 1 "$T/mgr.body")" = "# EOF" ] || bad "metrics: the last line is not # EOF"
    cp "$T/mgr.body" "$T/metrics.cache_object"
    internal metrics
    expect "/squid-internal-mgr/metrics" "$MCODE" 200
    body_has "/squid-internal-mgr/metrics" '^# TYPE squid_client_http_requests counter$'
    expect "both forms, the same families" "$(grep -c '^# TYPE' "$T/mgr.body")" \
        "$(grep -c '^# TYPE' "$T/metrics.cache_object")"
    # every line is a comment or NAME VALUE, and each family's samples follow its TYPE
    awk '
        /^# TYPE / { family = $3; type = $4; next }
        /^# (HELP|EOF)/ { next }
        {
            want = (type == "counter") ? family "_total" : family
            if (NF != 2 || $1 != want || $2 !~ /^-?[0-9.e+]+$/) { print "bad line: " $0; exit 1 }
        }' "$T/mgr.body" > "$T/metrics.check" || bad "metrics: $(cat "$T/metrics.check")"
    # Debian's python3-prometheus-client parses OpenMetrics strictly
    if /usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' 2> /dev/null; then
        /usr/bin/python3 - "$T/mgr.body" > "$T/metrics.parsed" 2>&1 <<'PY' || bad "metrics: $(tail -n 3 "$T/metrics.parsed")"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
assert any(f.name == "squid_client_http_requests" and f.type == "counter" for f in families)
print(len(families), "families")
PY
    else
        echo "python3-prometheus-client is not installed: the metrics page was not parsed by it"
    fi
    pass_if_ok "mgr:metrics (OpenMetrics text)"
fi

cache_stop
checks_done
