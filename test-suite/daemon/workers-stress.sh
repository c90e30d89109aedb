#!/bin/sh
# workers 4 under a bounded concurrent load (doc/design.md "Workers"): 8
# clients, 40 requests each, on new connections (SO_REUSEPORT spreads them
# over the workers), mixing cacheable hits and misses on a few URLs (by
# address and by a name the fake DNS server answers; in memory, and on the
# workers' one cache_dir with each worker's disk threads), uncacheable replies, PURGE,
# uploads and CONNECT tunnels, each going through the worker's URL rewriter
# helpers, while cuttle is reconfigured (SIGHUP) and rotates its logs
# (SIGUSR1) twice each; then SIGTERM. Every request gets its proper answer,
# access.log (with its rotated copies) has one line per request, every worker
# started and labels its own cache.log lines (kid1..kid4), some hits were
# copies of another worker's object (one memory cache), some were disk hits
# (one disk store, scanned once), and cuttle exits
# 0. Built with --enable-tsan, cuttle reports a data race between the
# workers (or their threads) as "WARNING: ThreadSanitizer" on stderr: the
# test fails on it.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
# keep going after a race report (the test shows it), exit non-zero at the end
TSAN_OPTIONS="halt_on_error=0 exitcode=66 history_size=7 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
CLIENTS=8
REQUESTS=40
cuttle_setup
origin_start
dns_start origin.test=127.0.0.1
printf '#!/bin/sh\nwhile read -r line; do echo ERR; done\n' > "$T/rewriter.sh"
chmod 755 "$T/rewriter.sh"
fwd_conf "workers 4" "url_rewrite_program $T/rewriter.sh" "url_rewrite_children 3 startup=1 idle=1" \
    "logfile_rotate 5" "cache_dir ufs $T/cache 20 4 4" "maximum_object_size_in_memory 2 KB" \
    "acl purge method PURGE" "http_access allow localhost purge" "http_access deny purge" \
    "http_access allow localhost" "http_access deny all"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/z.out" 2>&1 || fail "-z: $(cat "$T/z.out")"
cuttle_start
wait_until 20 grep -q "cache_dir $T/cache: rebuilt its index" "$T/cache.log" || fail "the cache_dir's index was not rebuilt"

: > "$T/progress"
python3 - "$PORT" "$OPORT" "$CLIENTS" "$REQUESTS" "$(scaled 20)" "$T/progress" > "$T/clients.out" 2>&1 <<'PY' &
import hashlib, http.client, sys, threading
port, oport, clients, requests, limit = (int(a) for a in sys.argv[1:6])
progress = open(sys.argv[6], "a")
results = []
lock = threading.Lock()

def check(kind, status, ok):
    with lock:
        results.append((kind, status, ok))
        progress.write("%s\n" % kind)  # one line per answered request
        progress.flush()

def one(c, i):
    kind = ("hit", "hit", "name", "nostore", "purge", "upload", "connect")[(c + i) % 7]
    host = "origin.test" if kind == "name" else "127.0.0.1"
    size = 1000 if i % 3 == 0 else 3000  # in memory, or on disk only
    url = "http://%s:%d/c%d?cc=max-age=60&s=%d" % (host, oport, i % 3, size)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=limit)
    try:
        if kind == "connect":
            conn.set_tunnel("127.0.0.1", oport)
            conn.request("GET", "/t?c=%d&i=%d" % (c, i), headers={"Connection": "close"})
            r = conn.getresponse()
            check(kind, r.status, r.status == 200 and r.read() == b"ok\n")
            return
        headers = {"Connection": "close"}
        method, body = "GET", None
        if kind == "nostore":
            url = "http://127.0.0.1:%d/n?cc=no-store&c=%d&i=%d" % (oport, c, i)
        elif kind == "purge":
            method = "PURGE"
        elif kind == "upload":
            method, url = "POST", "http://127.0.0.1:%d/up?c=%d&i=%d" % (oport, c, i)
            body = bytes((c * 7 + i + k) % 251 for k in range(20000))
        conn.request(method, url, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        if kind == "purge":
            ok = r.status in (200, 404)
        elif kind == "upload":
            ok = r.status == 200 and r.getheader("X-Body-Sha256") == hashlib.sha256(body).hexdigest()
        else:
            ok = r.status == 200 and len(data) == (size if kind != "nostore" else 3)
        check(kind, r.status, ok)
    except Exception as e:
        check(kind, repr(e), False)
    finally:
        conn.close()

def client(c):
    for i in range(requests):
        one(c, i)

threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
for t in threads:
    t.start()
for t in threads:
    t.join()
bad = [r for r in results if not r[2]]
for r in bad[:10]:
    print("bad answer:", r)
print("requests", len(results), "bad", len(bad))
PY
load=$!
total=$((CLIENTS * REQUESTS))
# the signals go at a fifth, two fifths... of the load, however fast it runs
answered() { [ "$(wc -l < "$T/progress")" -ge "$1" ] || is_stopped "$load"; }
# each signal is sent once the last one was handled: two of a kind pending
# at once would be delivered as one
handled() { [ "$(cat "$T"/cache.log* | grep -c "$1")" -ge "$2" ]; }
step=0
for signal in HUP USR1 HUP USR1; do
    step=$((step + 1))
    wait_until 30 answered $((total * step / 5)) || fail "the clients are stuck: $(wc -l < "$T/progress") answers"
    kill -"$signal" "$CUTTLE_PID" || fail "cannot send SIG$signal"
    case $signal in
    HUP) wait_until 30 handled '| Reconfigured$' $(((step + 1) / 2)) || fail "SIGHUP $step was not handled" ;;
    USR1) wait_until 30 handled '| Rotating logs$' $((step / 2)) || fail "SIGUSR1 $step was not handled" ;;
    esac
done
wait_until 60 is_stopped "$load" || fail "the clients did not finish: $(tail -n 3 "$T/clients.out")"
wait "$load"
grep -q "^requests $total bad 0\$" "$T/clients.out" || fail "not every request was answered: $(cat "$T/clients.out")"
pass "$total requests of 8 clients through 4 workers, reconfigured and rotated twice: all answered"
# the memory cache is one: hits in a worker that did not store the object
# were served from copies (under ThreadSanitizer: copied while the owner ran)
sleep 1.2 # the other workers' counts reach the page within a second
copies=$(curl -s --max-time "$(scaled 10)" "http://127.0.0.1:$PORT/squid-internal-mgr/mem" |
    sed -n 's/^worker_copies: //p')
[ -n "$copies" ] && [ "$copies" -ge 1 ] || fail "no hit was a copy of another worker's object (worker_copies '$copies')"
pass "$copies hits were copies of another worker's object"
[ "$(cat "$T"/cache.log* | grep -c "cache_dir $T/cache: rebuilt its index")" = 1 ] || fail "the cache_dir was scanned more than once"
disk_hits=$(cat "$T"/access.log* | grep -c ' TCP_HIT/200 ')
[ "$disk_hits" -ge 1 ] || fail "no disk hit from the workers' one cache_dir"
pass "$disk_hits disk hits from the workers' one cache_dir, scanned once"

kill -TERM "$CUTTLE_PID"
wait_until 20 is_stopped "$CUTTLE_PID" || fail "cuttle did not stop after SIGTERM"
wait "$CUTTLE_PID"
rc=$?
CUTTLE_PID=""
if grep -q ThreadSanitizer "$T/stderr" "$T/cache.log"*; then
    grep -h -A 40 'WARNING: ThreadSanitizer' "$T/stderr" "$T/cache.log"* | head -n 200
    fail "ThreadSanitizer reported $(grep -c 'WARNING: ThreadSanitizer' "$T/stderr") race(s)"
fi
[ "$rc" = 0 ] || fail "cuttle exited with status $rc after SIGTERM"
pass "no data race reported; cuttle exited 0"

[ -f "$T/access.log.1" ] || fail "two rotations did not leave access.log.1"
lines=$(cat "$T"/access.log* | grep -vc squid-internal-mgr)
[ "$lines" = "$total" ] || fail "access.log and its rotated copies have $lines lines for $total requests"
# each worker labels its own lines, to the end
for kid in 1 2 3 4; do
    grep -q " kid$kid| Accepting HTTP Socket connections" "$T"/cache.log* || fail "worker $kid did not start"
    grep -q " kid$kid| Preparing for shutdown" "$T/cache.log" || fail "no kid$kid line about the shutdown"
done
pass "one access.log line per request across the rotations; kid1..kid4 in cache.log"
