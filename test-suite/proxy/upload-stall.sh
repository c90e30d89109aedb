#!/bin/sh
# A request whose body is already in the socket when cuttle first reads it
# is answered (edge-triggered epoll: no new event will come for those bytes).
# For each body (1 B to 1 MB, Content-Length and chunked), on a fresh and a
# reused client connection, with a fresh and a pooled origin connection: the
# client connects and waits until cuttle has read the empty socket once, cuttle
# is stopped (SIGSTOP), the whole request goes out in one write, cuttle goes on
# (SIGCONT), and the origin must get the whole body. Before the fix a
# Content-Length body over the 1 KB first read hung until the origin gave up.
# With workers (CUTTLE_TEST_WORKERS=N) the origin connections are pooled by
# each worker, and a fresh client connection may be any worker's: its
# priming GETs go on fresh connections until N distinct origin connections
# answered (the requests go one at a time, so a worker pools at most one:
# now each has one), and for a fresh origin connection, close-delimited GETs
# then until each of those was taken and closed (no worker has one left).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
proxy_conf
cuttle_start

proxy_py "$PORT" "$OPORT" "$CUTTLE_PID" "$(scaled 3)" "$CUTTLE_TEST_WORKERS" <<'PY' || fail "a request sent while cuttle was stopped was not answered"
import hashlib, os, signal, sys, threading, time
import rawhttp
from rawhttp import check

port, oport, pid, limit = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
workers = int(sys.argv[5])
origin = "http://127.0.0.1:%d" % oport
problems = []
case = 0
cases = 0


def chunked(body):
    """body in chunks of at most 4000 bytes, the last one short"""
    out = b""
    for i in range(0, len(body), 4000):
        piece = body[i:i + 4000]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def stopped_send(conn, data):
    """sends data in one write while cuttle is stopped, then lets it go on"""
    time.sleep(0.1)  # cuttle's first read of a new socket finds nothing
    os.kill(pid, signal.SIGSTOP)
    try:
        sender = threading.Thread(target=conn.send, args=(data,))
        sender.start()
        sender.join(0.2)  # a 1 MB write may not fit the socket until cuttle reads
    finally:
        os.kill(pid, signal.SIGCONT)
    sender.join(limit)


def prime(conn, keep_origin):
    """a GET that leaves the origin connection in cuttle's pool, or closes it"""
    global case
    case += 1
    conn.send(rawhttp.request("GET", "%s/s/prime%d?s=10%s" % (origin, case, "" if keep_origin else "&close=1")))
    r = conn.read_reply()
    check(r.status == 200, "priming GET: status %d" % r.status)
    return r.header("X-Origin-Conn")


def prime_workers(keep_origin):
    """with workers, on fresh client connections: every worker's pool holds
    one origin connection (their ids returned) or, keep_origin false, none"""
    def prime_fresh(keep):
        primer = rawhttp.Conn(port, timeout=limit)
        try:
            return prime(primer, keep)
        finally:
            primer.close()
    pooled = set()
    for _ in range(64):
        if len(pooled) == workers:
            break
        pooled.add(prime_fresh(True))
    check(len(pooled) == workers, "64 priming GETs reached %d origin connections" % len(pooled))
    if keep_origin:
        return pooled
    left = set(pooled)
    for _ in range(64):
        if not left:
            break
        left.discard(prime_fresh(False))
    check(not left, "64 close-delimited GETs did not take the pooled origin connections %s" % left)
    return set()


def one(size, framing, reuse_client, pooled_origin):
    global case
    what = "%d B %s body, %s client connection, %s origin connection" % (
        size, framing, "reused" if reuse_client else "fresh", "pooled" if pooled_origin else "fresh")
    body = rawhttp.pattern(size)
    conn = rawhttp.Conn(port, timeout=limit)
    try:
        if workers > 1 and not reuse_client:
            prior = prime_workers(pooled_origin)
        else:
            primer = rawhttp.Conn(port, timeout=limit) if not reuse_client else conn
            prior = {prime(primer, pooled_origin)}
            if primer is not conn:
                primer.close()
        case += 1
        url = "%s/s/stall%d?n=1" % (origin, case)
        if framing == "length":
            data = rawhttp.request("PUT", url, body=body)
        else:
            data = rawhttp.request("PUT", url, headers=["Transfer-Encoding: chunked"]) + chunked(body)
        stopped_send(conn, data)
        r = conn.read_reply()
        check(r.status == 200, "status %d" % r.status)
        got = (r.header("X-Body-Length"), r.header("X-Body-Sha256"))
        check(got == (str(size), hashlib.sha256(body).hexdigest()), "the origin got %s" % (got,))
        if pooled_origin:
            check(r.header("X-Origin-Conn") in prior,
                  "origin connection %s, the pooled one was %s" % (r.header("X-Origin-Conn"), " or ".join(sorted(prior))))
        # the connection still serves a request after the upload
        conn.send(rawhttp.request("GET", "%s/s/after%d?s=5" % (origin, case)))
        check(conn.read_reply().status == 200, "the request after the upload failed")
    except Exception as e:
        problems.append("%s: %s: %s" % (what, type(e).__name__, e))
    finally:
        conn.close()


for size in (1, 500, 899, 1000, 1023, 1024, 1025, 4096, 65536, 262144, 1 << 20):
    for framing in ("length", "chunked"):
        for reuse_client in (False, True):
            for pooled_origin in (False, True):
                one(size, framing, reuse_client, pooled_origin)
                cases += 1
for p in problems:
    print("PROBLEM: " + p)
print("%d cases, %d failed" % (cases, len(problems)))
sys.exit(1 if problems else 0)
PY
pass "bodies of 1 B to 1 MB sent while cuttle was stopped were all forwarded whole"
cuttle_stop
