#!/bin/sh
# Descriptors run out (max_filedescriptors 64): idle clients
# are opened until cuttle cannot accept; a transfer in progress goes on
# unharmed, cache.log says clearly why (once, not once per retry: before the
# fix ten lines a second), cuttle does not spin (its CPU time stays low), a
# new client waits in the backlog as with Squid 5.7, and cuttle serves again
# (and says so) once the idle clients are gone.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/faults/helpers.sh"
cuttle_setup
origin_start
dns_start
faults_conf "max_filedescriptors 64"
cuttle_start
grep -q "Max open files *64 " "/proc/$CUTTLE_PID/limits" || fail "max_filedescriptors 64: $(grep 'open files' "/proc/$CUTTLE_PID/limits")"
grep -q "With 64 file descriptors available" "$T/cache.log" || fail "cache.log does not say 64 descriptors are available"

faults_baseline "$OURL/x?s=1000&first=1"

# a 100 MB transfer at 20 MB/s runs through the whole episode
expected=$("$ORIGIN" --print-body 100m | sha256sum | cut -d' ' -f1)
{ curl -s --max-time "$(scaled 60)" --limit-rate 20M -x "127.0.0.1:$PORT" "$OURL/big?s=100m&cc=no-store" \
    2> /dev/null; echo $? > "$T/big.rc"; } | sha256sum | cut -d' ' -f1 > "$T/big.sum" &
big=$!
sleep 1

# 120 idle clients, more than the limit; hold them until told to go
rm -f "$T/go"
proxy_py "$PORT" "$T/go" "$(scaled 30)" > "$T/idle.out" 2>&1 <<'PY' &
import os, resource, socket, sys, time
port, go, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = [socket.create_connection(("127.0.0.1", port), timeout=limit) for _ in range(120)]
print("holding %d" % len(held), flush=True)
end = time.monotonic() + limit
while not os.path.exists(go) and time.monotonic() < end:
    time.sleep(0.1)
for s in held:
    s.close()
PY
idle=$!
mark
wait_until 10 grep -qs holding "$T/idle.out" || bad "the idle clients did not connect: $(cat "$T/idle.out")"
out_of_fds() { grep -q 'cannot accept.*Too many open files' "$T/cache.log"; }
wait_until 10 out_of_fds || bad "no cache.log line about the descriptors running out"
cpu_before=$(awk '{print $14 + $15}' "/proc/$CUTTLE_PID/stat")
# a new client meanwhile is not served (it waits, or is refused) and cuttle holds
code=$(curl -s -o /dev/null --max-time 2 -x "127.0.0.1:$PORT" -w '%{http_code}' "$OURL/x?s=10&during=1" 2> /dev/null)
[ "$code" = 200 ] && echo "note: a new client was served while descriptors ran out"
sleep 2
cpu=$(( $(awk '{print $14 + $15}' "/proc/$CUTTLE_PID/stat") - cpu_before ))
# clock ticks (1/100 s) over about 4 s: a busy loop would take about 400
[ "$cpu" -lt 100 ] || bad "cuttle used $cpu ticks of CPU in 4 s with no descriptor left: a busy loop?"
# once an episode: no second "cannot accept" before an "accepting again"
# (an episode ends whenever a transfer frees a descriptor for a queued
# client), of each worker (its kid label: each has its own listener)
repeats=$(awk '{ head = $0; sub(/\|.*/, "", head); split(head, f, " "); kid = f[3] }
    /cannot accept/ { if (starved[kid]) n++; starved[kid] = 1 } /accepting on .* again/ { starved[kid] = 0 }
    END { print n + 0 }' "$T/cache.log")
[ "$repeats" = 0 ] || bad "cache.log repeats 'cannot accept' $repeats times within an episode"
is_running "$CUTTLE_PID" || fail "cuttle died when its descriptors ran out"
pass_if_ok "descriptors ran out: reported ($(grep -m 1 'cannot accept' "$T/cache.log" | cut -d'|' -f2)), $cpu CPU ticks in 4 s"

mark
touch "$T/go"
wait "$idle"
wait_until 10 test "$(proxy_get "$OURL/x?s=10&after=1")" = 200 || bad "not serving again after the idle clients left"
grep -q 'accepting on .* again' "$T/cache.log" || bad "cache.log does not say that accepting resumed"
wait "$big"
[ "$(cat "$T/big.rc")" = 0 ] && [ "$(cat "$T/big.sum")" = "$expected" ] ||
    bad "the transfer in progress was harmed: curl exit $(cat "$T/big.rc")"
# the new clients served meanwhile may have opened a second origin
# connection beside the big transfer's: both stay pooled, idle
BASELINE_POOLED_OK=1
baseline_check "after the descriptors came back"
pass_if_ok "serving again once descriptors were freed; the 100 MB transfer was unharmed"
faults_finish "$OURL/x?s=100k&after=descriptors"
