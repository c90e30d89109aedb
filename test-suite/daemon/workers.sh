#!/bin/sh
# workers N (doc/design.md "Workers"): N event-loop threads in one process,
# each reading squid.conf with its own ${process_number}, each with its own
# socket of the same port. Checked: both workers of `workers 2` bind the port
# and both serve (each writes its own access log, chosen by an `if
# ${process_number}` block); the cache manager sums them; they share one
# memory cache (one miss; hits in the other worker are copies), which a
# PURGE through either erases, and with memory_cache_shared off each has its
# own (a miss in each); a reconfigure reaches both (every request after
# it is denied); -k rotate rotates each worker's log once; shutdown ends both
# and the process exits 0; every thread holds the same privileges after the
# drop of root; icp_port is worker 1's; cpu_affinity_map pins each thread;
# one cache_dir is one disk store for both (one miss, disk hits in both,
# PURGE, mgr:storedir); workers naming a cache_dir with other cache_dir lines
# beside it, and bad workers or cpu_affinity_map values, are refused by -k
# parse; -z makes every worker's cache_dir.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start

# the configuration of the test, with `deny` last when given
workers_conf() {
    cat > "$T/squid.conf" <<EOF
http_port 127.0.0.1:0
workers 2
if \${process_number} = 1
access_log stdio:$T/access1.log
else
access_log stdio:$T/access\${process_number}.log
endif
cache_log $T/cache.log
pid_filename $T/cuttle.pid
logfile_rotate 2
shutdown_lifetime 1 second
$([ -z "$CUTTLE_ERRORS" ] || echo "error_directory $CUTTLE_ERRORS")
http_access ${1:-allow} localhost
EOF
}
workers_conf
# a workers count is checked before anything starts
"$CUTTLE" -k parse -f "$T/squid.conf" > "$T/parse.out" 2>&1 || fail "-k parse refused workers 2: $(cat "$T/parse.out")"
cuttle_start

wait_until 10 grep -q 'kid2| Accepting HTTP Socket connections' "$T/cache.log" ||
    fail "worker 2 did not start: $(cat "$T/cache.log")"
p1=$(sed -n 's/.*kid1| Accepting HTTP Socket connections at .* local=127.0.0.1:\([0-9]*\) .*/\1/p' "$T/cache.log")
p2=$(sed -n 's/.*kid2| Accepting HTTP Socket connections at .* local=127.0.0.1:\([0-9]*\) .*/\1/p' "$T/cache.log")
[ -n "$p1" ] && [ "$p1" = "$p2" ] || fail "the workers listen on different ports: '$p1' and '$p2'"
listeners=$(awk -v port="$(printf '%04X' "$PORT")" '$4 == "0A" && $2 ~ ":" port "$"' /proc/net/tcp | wc -l)
[ "$listeners" = 2 ] || fail "$listeners listening sockets on port $PORT, not 2"
pass "both workers listen on port $PORT (SO_REUSEPORT)"

# separate connections: the kernel spreads them over the two sockets
requests=40
i=0
while [ $i -lt $requests ]; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
        "http://127.0.0.1:$OPORT/?s=100&cc=no-store&n=$i")
    [ "$code" = 200 ] || fail "request $i: status $code"
    i=$((i + 1))
done
lines() { cat "$@" 2> /dev/null | wc -l; }
wait_until 10 sh -c "[ \$(cat $T/access1.log $T/access2.log 2>/dev/null | wc -l) -ge $requests ]" ||
    fail "access logs hold $(lines "$T/access1.log" "$T/access2.log") lines for $requests requests"
n1=$(lines "$T/access1.log")
n2=$(lines "$T/access2.log")
[ $((n1 + n2)) = $requests ] || fail "access logs hold $n1 + $n2 lines for $requests requests"
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || fail "one worker served everything: $n1 and $n2 requests"
pass "both workers served ($n1 and $n2 of $requests requests), each logging to its own file"

# the cache manager speaks for the process: each worker adds the counts the
# others published (at most a second ago) to its own
sleep 1.5
i=0
while [ $i -lt 6 ]; do
    got=$(curl -s --max-time "$(scaled 10)" "http://127.0.0.1:$PORT/squid-internal-mgr/counters" |
        sed -n 's/^client_http.requests = //p')
    [ -n "$got" ] && [ "$got" -ge $requests ] || fail "mgr:counters says client_http.requests = '$got' after $requests"
    i=$((i + 1))
done
pass "mgr:counters counts the requests of both workers (6 pages from either)"

# purge_then_miss [DIR] : PURGEs $url through either worker, checks that
# the cache_dir DIR (if given) holds no file any more, and that the next
# fetch of $url, by either worker, is a miss
purge_then_miss() {
    curl -s -o /dev/null -X PURGE -x "127.0.0.1:$PORT" "$url"
    sleep 0.3
    [ -z "${1:-}" ] || [ -z "$(find "$1" -type f)" ] || fail "the PURGE left the file: $(find "$1" -type f)"
    before1=$(lines "$T/access1.log")
    before2=$(lines "$T/access2.log")
    curl -s -o /dev/null -x "127.0.0.1:$PORT" "$url"
    sleep 0.5
    first=$({ tail -n +"$((before1 + 1))" "$T/access1.log"; tail -n +"$((before2 + 1))" "$T/access2.log"; } |
        grep -F " GET " | grep -F "$logged")
    case $first in
    *TCP_MISS/200*) ;;
    *) fail "the first fetch after the PURGE was not a miss: $first" ;;
    esac
}

# the workers share one memory cache: an object one stored is a hit in the
# other, and a PURGE through either erases it for both
url="http://127.0.0.1:$OPORT/purge-me?s=100&cc=max-age=600"
logged="/purge-me?" # strip_query_terms
i=0
while [ $i -lt 40 ] && ! { grep -qF "$logged" "$T/access1.log" && grep -qF "$logged" "$T/access2.log"; }; do
    curl -s -o /dev/null -x "127.0.0.1:$PORT" "$url"
    i=$((i + 1))
done
grep -qF "$logged" "$T/access1.log" && grep -qF "$logged" "$T/access2.log" ||
    fail "the object reached one worker in 40 tries"
sleep 0.5
misses=$(cat "$T/access1.log" "$T/access2.log" | grep -F "$logged" | grep -c TCP_MISS/)
[ "$misses" = 1 ] || fail "$misses misses of one object in the two workers (one memory cache: 1)"
sleep 1.2 # the other worker's counts reach the page within a second
copies=$(curl -s --max-time "$(scaled 10)" "http://127.0.0.1:$PORT/squid-internal-mgr/mem" |
    sed -n 's/^worker_copies: //p')
[ -n "$copies" ] && [ "$copies" -ge 1 ] || fail "mgr:mem says worker_copies '$copies' after hits in the other worker"
purge_then_miss
pass "both workers hit one stored object (1 miss), and a PURGE erases it for both"

# capabilities, their bounding set and no_new_privs are each thread's own:
# every worker holds what the drop of root left (Privileges::FollowDrop())
threads=$(ls "/proc/$CUTTLE_PID/task" | wc -l)
[ "$threads" -ge 2 ] || fail "cuttle runs $threads threads"
# (a sanitizer's own thread, started before main(), holds none and is left out)
main_status() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$CUTTLE_PID/status"; }
[ "$(main_status NoNewPrivs)" = 1 ] || fail "no_new_privs is not set on the main thread"
holders=0
for task in "/proc/$CUTTLE_PID/task"/*; do
    field() { sed -n "s/^$1:[[:space:]]*//p" "$task/status"; }
    [ "$(field Uid)" = "$(main_status Uid)" ] || fail "thread $task runs as $(field Uid)"
    [ "$(field CapEff)" = "$(main_status CapEff)" ] || { [ "$(field CapEff)" = 0000000000000000 ] && continue; }
    [ "$(field CapEff)" = "$(main_status CapEff)" ] || fail "thread $task holds $(field CapEff)"
    [ "$(field CapBnd)" = "$(main_status CapBnd)" ] && [ "$(field NoNewPrivs)" = 1 ] ||
        fail "thread $task: bounding set $(field CapBnd), no_new_privs $(field NoNewPrivs)"
    holders=$((holders + 1))
done
[ $holders -ge 2 ] || fail "$holders threads hold the kept capabilities $(main_status CapEff), not both workers"
pass "every worker's thread holds the same user, capabilities and bounding set, with no_new_privs"

# reconfigure: both workers deny from now on
workers_conf deny
kill -HUP "$CUTTLE_PID"
wait_until 10 sh -c "[ \$(grep -c 'Reconfigured' $T/cache.log) -ge 1 ]" || fail "no reconfigure"
sleep 0.5
i=0
while [ $i -lt 20 ]; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
        "http://127.0.0.1:$OPORT/?s=100&cc=no-store&d=$i")
    [ "$code" = 403 ] || fail "request $i after the reconfigure: status $code, not 403"
    i=$((i + 1))
done
pass "a reconfigure reaches both workers (20 of 20 requests denied)"

# rotate: each worker's file rotated once (logfile_rotate 2)
kill -USR1 "$CUTTLE_PID"
wait_until 10 sh -c "[ -f $T/access1.log.0 ] && [ -f $T/access2.log.0 ]" ||
    fail "the logs were not rotated: $(ls "$T")"
[ ! -e "$T/access1.log.1" ] && [ ! -e "$T/access2.log.1" ] || fail "a log was rotated twice: $(ls "$T")"
curl -s -o /dev/null -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/?after=rotate"
wait_until 10 sh -c "[ \$(cat $T/access1.log $T/access2.log 2>/dev/null | wc -l) -ge 1 ]" ||
    fail "no line in the reopened logs"
pass "-k rotate rotates each worker's log once and both reopen it"

# shutdown with a connection open on each worker: both finish, exit 0
cuttle_stop
grep -q 'kid1| cuttle (Version .*): Exiting normally' "$T/cache.log" || fail "no clean exit in cache.log"
grep -q 'kid2| Preparing for shutdown' "$T/cache.log" || fail "worker 2 did not shut down"
pass "SIGTERM ends both workers; exit status 0"

# cpu_affinity_map: worker 2 on core 2 (CPU 1) when the machine has two
if [ "$(nproc)" -ge 2 ]; then
    workers_conf
    echo "cpu_affinity_map process_numbers=1,2 cores=1,2" >> "$T/squid.conf"
    cuttle_start
    wait_until 10 grep -q 'Worker 2 runs on core 2' "$T/cache.log" || fail "worker 2 was not pinned"
    wait_until 10 grep -q 'Worker 1 runs on core 1' "$T/cache.log" || fail "worker 1 was not pinned"
    # worker 1 is the main thread; a sanitizer's own thread is not pinned
    allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$CUTTLE_PID/task"/*/status | sort | tr '\n' ' ')
    [ "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$CUTTLE_PID/status")" = 0 ] &&
        echo " $allowed" | grep -q ' 1 ' || fail "the threads may run on CPUs '$allowed': no worker on 0 and one on 1"
    cuttle_stop
    pass "cpu_affinity_map pins worker 1 to CPU 0 and worker 2 to CPU 1"
fi

# ICP: icp_port is worker 1's; worker 2 queries from a port of its own
icp=$(closed_port)
workers_conf
echo "icp_port $icp" >> "$T/squid.conf"
cuttle_start
wait_until 10 grep -q 'kid2| Accepting ICP messages on' "$T/cache.log" || fail "worker 2 has no ICP socket"
grep -q "kid1| Accepting ICP messages on .*:$icp$" "$T/cache.log" ||
    fail "worker 1 does not hold icp_port $icp: $(grep ICP "$T/cache.log")"
! grep -q "ERROR.*ICP" "$T/cache.log" || fail "ICP errors: $(grep ICP "$T/cache.log")"
cuttle_stop
pass "worker 1 answers on icp_port, worker 2 queries from a port of its own"

# memory_cache_shared off: each worker stores in a memory cache of its own
workers_conf
echo "memory_cache_shared off" >> "$T/squid.conf"
rm -f "$T/access1.log" "$T/access2.log"
cuttle_start
url="http://127.0.0.1:$OPORT/own-cache?s=100&cc=max-age=600"
logged="/own-cache?"
i=0
while [ $i -lt 40 ] && ! { grep -qF "$logged" "$T/access1.log" && grep -qF "$logged" "$T/access2.log"; }; do
    curl -s -o /dev/null -x "127.0.0.1:$PORT" "$url"
    i=$((i + 1))
done
sleep 0.5
for n in 1 2; do
    misses=$(grep -F "$logged" "$T/access$n.log" | grep -c TCP_MISS/)
    [ "$misses" = 1 ] || fail "memory_cache_shared off: worker $n missed $misses times (1: a cache of its own)"
done
sleep 1.2 # the other worker's totals reach the page within a second
entries=$(curl -s --max-time "$(scaled 10)" "http://127.0.0.1:$PORT/squid-internal-mgr/info" |
    sed -n 's/^[[:space:]]*\([0-9]*\) StoreEntries$/\1/p')
[ "$entries" = 2 ] || fail "memory_cache_shared off: mgr:info counts '$entries' StoreEntries (one in each worker: 2)"
cuttle_stop
pass "memory_cache_shared off: each worker stores in a memory cache of its own (one miss in each, mgr:info sums them)"

# one cache_dir for both workers: one disk store (Disk::Shelf). An object
# too large for memory is stored once and is a disk hit in either worker; a
# PURGE through either erases it for both; mgr:storedir counts it once
workers_conf
cat >> "$T/squid.conf" <<EOF
cache_dir ufs $T/cache 10 4 4
maximum_object_size_in_memory 1 KB
EOF
"$CUTTLE" -k parse -f "$T/squid.conf" > "$T/parse.out" 2>&1 || fail "one cache_dir for two workers refused: $(cat "$T/parse.out")"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/z.out" 2>&1 || fail "-z failed: $(cat "$T/z.out")"
rm -f "$T/access1.log" "$T/access2.log"
cuttle_start
wait_until 10 grep -q 'rebuilt its index' "$T/cache.log" || fail "the cache_dir was not rebuilt"
[ "$(grep -c 'rebuilt its index' "$T/cache.log")" = 1 ] || fail "the cache_dir was scanned more than once: $(grep 'rebuilt' "$T/cache.log")"
url="http://127.0.0.1:$OPORT/on-disk?s=50000&cc=max-age=600"
logged="/on-disk?"
disk_hit_in() { grep -F "$logged" "$T/access$1.log" 2> /dev/null | grep -q 'TCP_HIT/200'; }
committed() { [ -n "$(find "$T/cache" -type f ! -name '*.tmp')" ]; }
curl -s -o /dev/null -x "127.0.0.1:$PORT" "$url"
wait_until 10 committed || fail "the miss was not stored in the cache_dir"
sleep 0.2 # the index takes the file on the loop, after the I/O thread renamed it
i=0
while [ $i -lt 60 ] && ! { disk_hit_in 1 && disk_hit_in 2; }; do
    curl -s -o /dev/null -x "127.0.0.1:$PORT" "$url"
    i=$((i + 1))
done
disk_hit_in 1 && disk_hit_in 2 ||
    fail "no disk hit in each worker in 60 tries: $(cat "$T/access1.log" "$T/access2.log" | grep -F "$logged")"
sleep 0.5
misses=$(cat "$T/access1.log" "$T/access2.log" | grep -F "$logged" | grep -c TCP_MISS/)
[ "$misses" = 1 ] || fail "$misses misses of one object in the two workers (one disk store: 1)"
objects=$(curl -s --max-time "$(scaled 10)" "http://127.0.0.1:$PORT/squid-internal-mgr/storedir" |
    sed -n 's/^Store Entries *: *//p')
[ "$objects" = 1 ] || fail "mgr:storedir counts '$objects' Store Entries (one object on the shared disk: 1)"
purge_then_miss "$T/cache"
cuttle_stop
pass "two workers share one cache_dir: 1 miss, disk hits in both, one object in mgr:storedir, a PURGE erases it for both"

# -k parse: workers with other cache_dir lines beside a shared one, and bad values
workers_conf
cat >> "$T/squid.conf" <<EOF
cache_dir ufs $T/cache 10 4 4
if \${process_number} = 2
cache_dir ufs $T/other 10 4 4
endif
EOF
if "$CUTTLE" -k parse -f "$T/squid.conf" > "$T/parse.out" 2>&1; then
    fail "-k parse took one cache_dir for two workers with other cache_dir lines"
fi
grep -q "cache_dir $T/cache is used by workers 1 and 2 with other cache_dir lines" "$T/parse.out" ||
    fail "no reason: $(cat "$T/parse.out")"
pass "workers sharing a cache_dir with other cache_dir lines beside it are refused"

workers_conf
echo "cache_dir ufs $T/cache\${process_number} 10 4 4" >> "$T/squid.conf"
"$CUTTLE" -k parse -f "$T/squid.conf" > "$T/parse.out" 2>&1 || fail "per-worker cache_dirs refused: $(cat "$T/parse.out")"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/z.out" 2>&1 || fail "-z failed: $(cat "$T/z.out")"
[ -d "$T/cache1/00" ] && [ -d "$T/cache2/00" ] || fail "-z did not make both workers' directories: $(ls "$T")"
pass "-z makes each worker's cache_dir"

for bad in "workers 129" "workers -1" "workers two" "cpu_affinity_map process_numbers=1,2 cores=1" \
    "cpu_affinity_map process_numbers=0 cores=1" "cpu_affinity_map cores=1"; do
    workers_conf
    echo "$bad" >> "$T/squid.conf"
    if "$CUTTLE" -k parse -f "$T/squid.conf" > "$T/parse.out" 2>&1; then
        fail "-k parse took '$bad'"
    fi
    grep -q "squid.conf:[0-9]*: " "$T/parse.out" || fail "'$bad': no FILE:LINE reason: $(cat "$T/parse.out")"
done
pass "bad workers and cpu_affinity_map lines are refused with FILE:LINE"
