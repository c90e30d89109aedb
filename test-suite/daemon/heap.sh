#!/bin/sh
# The memory allocator: cache.log names the one cuttle runs on (tcmalloc when
# configure linked it, and then it is mapped), and after a burst of 1,200
# connections, each holding a partly read request head, RSS falls back by at
# least a third of what the burst took once they are gone, and a second burst
# ends no higher: Client::Side::giveBackMemory() hands the allocator's free
# pages back (malloc_trim() on glibc, ReleaseFreeMemory on tcmalloc, which
# would otherwise keep them).
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "request_timeout 2 minutes"
cuttle_start

allocator=$(sed -n 's/.*| Memory allocator: //p' "$T/cache.log")
echo "cache.log: Memory allocator: $allocator"
case "$allocator" in
tcmalloc)
    grep -q libtcmalloc_minimal "/proc/$CUTTLE_PID/maps" || fail "cache.log says tcmalloc, but it is not mapped"
    pass "tcmalloc is named and mapped" ;;
glibc)
    ! grep -q libtcmalloc "/proc/$CUTTLE_PID/maps" || fail "cache.log says glibc, but tcmalloc is mapped"
    pass "glibc is named" ;;
*) fail "no 'Memory allocator:' line in cache.log" ;;
esac

if grep -q '__asan_init\|__tsan_init' "$CUTTLE" 2>/dev/null; then
    echo "AddressSanitizer or ThreadSanitizer build (their allocators keep freed memory): RSS not checked"
    cuttle_stop
    exit 0
fi
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$CUTTLE_PID/status"; }
curl -s -o /dev/null -x "127.0.0.1:$PORT" http://127.0.0.1:9/ || true
RSS0=$(rss_kb)
python3 - "$PORT" "$CUTTLE_PID" "$(scaled 30)" "$RSS0" > "$T/burst.out" <<'PY' || fail "RSS after the bursts: $(cat "$T/burst.out")"
import resource, socket, sys, time
port, pid, limit, rss0 = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
def rss():
    for line in open("/proc/%s/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
# a head that is not finished: each connection keeps its read buffer
part = b"GET http://127.0.0.1:9/ HTTP/1.1\r\nX-Filler: " + b"f" * 6000 + b"\r\n"
def burst(n):
    conns = []
    for _ in range(1200):
        c = socket.create_connection(("127.0.0.1", port), timeout=limit)
        c.sendall(part)
        conns.append(c)
    time.sleep(1)
    peak = rss()
    for c in conns:
        c.close()
    # RSS is read until it has given back half the growth, or 3 s passed
    deadline = time.time() + 3
    low = rss()
    while low - rss0 > (peak - rss0) / 2 and time.time() < deadline:
        time.sleep(0.2)
        low = min(low, rss())
    print("burst %d: RSS %d KB before, %d KB with 1,200 connections open, %d KB after they closed" % (n, rss0, peak, low))
    if peak - rss0 < 8192:
        sys.exit("the burst did not grow RSS by 8 MB: the test measures nothing")
    return peak, low
peak, low = burst(1)
# glibc gives back about 55% of the growth here, tcmalloc 40% (each keeps
# some free memory for reuse); before giveBackMemory() went on halving to
# the end of the burst, 13% and less than 10%
if low - rss0 > (peak - rss0) * 2 / 3:
    sys.exit("RSS stayed at %d KB after the burst" % low)
# what stays is kept for reuse, not lost: a second burst ends at the same level
peak2, low2 = burst(2)
if low2 > low + 1024:
    sys.exit("RSS after a second burst, %d KB, is above the first's %d KB" % (low2, low))
PY
cat "$T/burst.out"
pass "RSS falls back after a burst of 1,200 connections, and no higher after a second"
cuttle_stop
