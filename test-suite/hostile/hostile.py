#!/usr/bin/env python3
# The hostile battery's driver: runs every case of requests.py and
# replies.py against one cuttle, one test origin (cuttle-origin) and one raw
# origin (a thread of this process that answers /r/N with the exact bytes of
# reply case N). See README.md for what is checked for each case.
#
#   hostile.py PROXY_PORT ORIGIN_PORT TIMEOUT_MULT [FILTER]
#
# FILTER (a substring of a case's name) runs only the matching cases.
# Prints one line per failing case, then "N request cases, M reply cases,
# F failed, X expected failures"; exits 1 when a case failed (or an
# expected failure passed: the table must then be updated).

import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proxy"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rawhttp  # noqa: E402
import reply_cases  # noqa: E402

import request_cases as requests  # noqa: E402

PORT, OPORT, MULT = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
FILTER = sys.argv[4] if len(sys.argv) > 4 else ""
WAIT = 2.0 * MULT  # the longest any one read may take
PAUSE = reply_cases.PAUSE

# header fields cuttle adds or rewrites on the way to the origin: every
# other forwarded field line must be one the client sent, byte for byte
ADDED = {b"host", b"via", b"x-forwarded-for", b"connection", b"content-length", b"transfer-encoding",
         b"cache-control", b"te", b"keep-alive", b"proxy-connection", b"expect", b"surrogate-capability"}


class Problem(Exception):
    """a case's expectation that did not hold"""


def need(cond, what):
    if not cond:
        raise Problem(what)


# ---------------------------------------------------------------- raw origin

class RawOrigin:
    """answers GET /r/N with reply case N's bytes, anything else with a fresh
    200 "fresh"; counts requests by path"""

    FRESH = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nCache-Control: no-store\r\n\r\nfresh"

    def __init__(self, cases):
        self.cases = cases
        self.seen = {}
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        conn.settimeout(10 * MULT)
        buf = b""
        try:
            while True:
                while b"\r\n\r\n" not in buf:
                    d = conn.recv(65536)
                    if not d:
                        return
                    buf += d
                head, buf = buf.split(b"\r\n\r\n", 1)
                target = head.split(b" ")[1] if head.count(b" ") >= 2 else b""
                if b"://" in target:
                    target = b"/" + target.split(b"/", 3)[-1]
                path = target[1:]
                with self.lock:
                    self.seen[path] = self.seen.get(path, 0) + 1
                case = None
                if path.startswith(b"r/") and path[2:].isdigit() and int(path[2:]) < len(self.cases):
                    case = self.cases[int(path[2:])]
                if case is None:
                    conn.sendall(self.FRESH)
                    continue
                parts = case.reply.split(PAUSE)
                for i, part in enumerate(parts):
                    if i:
                        time.sleep(0.05)  # the rest comes in its own segment, once cuttle is done
                    conn.sendall(part)
                if case.then == "close":
                    conn.shutdown(socket.SHUT_WR)
                    while conn.recv(65536):
                        pass
                    return
        except OSError:
            pass
        finally:
            conn.close()

    def count(self, path):
        with self.lock:
            return self.seen.get(path, 0)


# ---------------------------------------------------------------- helpers

def connect(port):
    return rawhttp.Conn(port, timeout=WAIT)


def proxy_get(url, method="GET"):
    c = connect(PORT)
    try:
        c.send(rawhttp.request(method, url, headers=["Connection: close"]))
        return c.read_reply(method)
    finally:
        c.close()


def seen(ident):
    """the request heads the test origin logged for /s/IDENT"""
    c = connect(OPORT)
    try:
        c.send(b"GET /_seen/" + ident + b" HTTP/1.1\r\nHost: o\r\nConnection: close\r\n\r\n")
        r = c.read_reply()
        need(r.status == 200, "the origin's /_seen/: %d" % r.status)
        return r.body
    finally:
        c.close()


def heads(log):
    """the request heads in a /_seen/ log"""
    return [h for h in log.split(b"\r\n\r\n") if h.strip()]


def origin_url(path):
    return b"http://127.0.0.1:%d/s/%s?cc=max-age=600" % (OPORT, path)


CANARY = "http://127.0.0.1:%d/canary?s=100&cc=max-age=3600" % OPORT


def check_canary():
    """a normal request is answered, and the stored canary is unchanged"""
    r = proxy_get(CANARY)
    need(r.status == 200 and r.body == rawhttp.pattern(100), "the canary: %r %r" % (r, r.body[:40]))
    need((r.header("X-Cache") or "").startswith("HIT"), "the canary is no longer a hit: %s" % r.header("X-Cache"))


def check_miss(url, what):
    """url is not in the cache (no entry was created for it)"""
    c = connect(PORT)
    try:
        c.send(rawhttp.request("GET", url.decode("latin1"), headers=["Connection: close"]))
        r = c.read_head()  # its body may be cut again
        while 100 <= r.status < 200 and r.status != 101:
            r = c.read_head()  # an interim reply, forwarded again
    finally:
        c.close()
    need((r.header("X-Cache") or "").startswith("MISS"), "%s came from the cache: %s" % (what, r.header("X-Cache")))


def read_all(c, method, count):
    """up to count final replies, then whether the connection closed"""
    got, closed, error = [], False, None
    try:
        while len(got) < count:
            got.append(c.read_reply(method))
    except EOFError:
        closed = True
    except (socket.timeout, rawhttp.Failure, ValueError, OSError) as e:
        error = "%s: %s" % (type(e).__name__, e)
    return got, closed, error


def wait_closed(c):
    state = c.state_after(WAIT)
    if state == "closed":
        return True
    need(not state.startswith("data"), "bytes after the error reply: %s" % state)
    return False


# ---------------------------------------------------------------- request cases

def run_request(n, case):
    ident = b"h%d" % n
    subs = {b"{U}": origin_url(ident), b"{S}": origin_url(ident + b"/smug"), b"{A}": origin_url(ident + b"/after"),
            b"{H}": b"127.0.0.1:%d" % OPORT}
    data = case.data
    for k, v in subs.items():
        data = data.replace(k, v)
    if case.after:
        data += b"GET {A} HTTP/1.1\r\nHost: {H}\r\n\r\n".replace(b"{A}", subs[b"{A}"]).replace(b"{H}", subs[b"{H}"])
    c = connect(PORT)
    try:
        try:
            c.send(data)
        except OSError:
            pass  # cuttle may close before taking every byte of a huge head
        want = len(case.statuses) if case.statuses else 2 if case.after and not case.close else 1
        got, closed, error = read_all(c, case.method, want)
        need(error is None, "reading the replies: %s (got %r)" % (error, got))
        need(got, "no reply at all")
        first = got[0]
        need(first.status == case.status, "status %d, expected %d" % (first.status, case.status))
        if case.interims is not None:
            need([i.status for i in first.interim] == case.interims,
                 "interim replies %s, expected %s" % ([i.status for i in first.interim], case.interims))
        if case.statuses:
            need([r.status for r in got] == case.statuses,
                 "statuses %s, expected %s" % ([r.status for r in got], case.statuses))
        if case.close:
            need(len(got) == want, "%d replies on a connection that must close after the first" % len(got))
            need(closed or wait_closed(c), "the connection stayed open")
        elif case.after:
            need(len(got) == 2 and got[-1].status == 200, "the pipelined request after it: %r" % got[1:])
    finally:
        c.close()

    mine, smug, after = seen(ident), seen(ident + b"/smug"), seen(ident + b"/after")
    need(not smug, "the origin saw a smuggled request: %r" % smug[:200])
    if case.origin == "none":
        need(not mine, "the origin saw %r" % mine[:200])
    elif case.origin == "partial":
        need(len(heads(mine)) <= 1, "the origin saw %d requests" % len(heads(mine)))
    else:
        need(len(heads(mine)) == 1, "the origin saw %d requests, expected one: %r" % (len(heads(mine)), mine[:300]))
        check_forwarded(heads(mine)[0], data, case)
        if case.body is not None:
            length = first.header("X-Body-Length")
            need(length == str(len(case.body)), "the origin read a body of %s bytes, expected %d" %
                 (length, len(case.body)))
            import hashlib
            need(first.header("X-Body-Sha256") == hashlib.sha256(case.body).hexdigest(),
                 "the origin read another body")
    if case.close or not case.after:
        need(not after, "the origin saw the request after the one that closed: %r" % after[:200])
    if case.status >= 400 and case.method == b"GET":
        check_miss(subs[b"{U}"], "the refused URL")
    check_miss(subs[b"{S}"], "the smuggled URL")
    check_canary()


def check_forwarded(head, data, case):
    """the head the origin got holds only what the client sent (but the
    fields cuttle adds), and its Host is the target's"""
    lines = head.split(b"\r\n")
    need(lines[0].startswith(case.method + b" /s/"), "request line %r" % lines[0])
    for line in lines[1:]:
        name = line.split(b":", 1)[0].lower()
        if name == b"host":
            need(line == b"Host: 127.0.0.1:%d" % OPORT, "forwarded %r" % line)
        elif name not in ADDED:
            need(line in data, "forwarded a field line the client did not send: %r" % line)


# ---------------------------------------------------------------- reply cases

def run_reply(n, case, raw):
    url = b"http://127.0.0.1:%d/r/%d" % (raw.port, n)
    c = connect(PORT)
    try:
        c.send(case.method + b" " + url + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % raw.port)
        got, closed, error = read_all(c, case.method.decode(), 1)
        if case.truncated:
            # the head went out, then the body's framing never ended: the
            # client sees a close (a last chunk would make it look whole)
            need(not got and closed, "expected a cut reply and a close: %r %s" % (got, error))
        else:
            need(error is None and got, "reading the reply: %s (got %r)" % (error, got))
            r = got[0]
            need(r.status == case.status, "status %d, expected %d" % (r.status, case.status))
            if case.body is not None:
                need(r.body == case.body, "body %r, expected %r" % (r.body[:80], case.body))
            if case.interims is not None:
                need([i.status for i in r.interim] == case.interims,
                     "interim replies %s, expected %s" % ([i.status for i in r.interim], case.interims))
            if not closed:
                need(not c.buf, "bytes after the reply: %r" % bytes(c.buf[:80]))
    finally:
        c.close()
    # the origin connection is not reused out of step: the next request gets
    # its own reply (after late bytes have arrived: bytes that come after a
    # request was sent on a reused connection are its reply, for any proxy)
    if PAUSE in case.reply:
        time.sleep(0.2 * MULT)
    r = proxy_get("http://127.0.0.1:%d/r/%d-next" % (raw.port, n))
    need(r.status == 200 and r.body == b"fresh", "the next request got %r %r" % (r, r.body[:80]))
    if case.status >= 500 or case.truncated:
        check_miss(url, "the refused reply")
    check_canary()


# ---------------------------------------------------------------- main

def main():
    replies = reply_cases.CASES
    raw = RawOrigin(replies)
    r = proxy_get(CANARY)
    need(r.status == 200, "the canary's first fetch: %r" % r)
    failed = xfailed = 0
    ran_req = ran_rep = 0
    started = time.monotonic()
    for kind, cases in (("request", requests.CASES), ("reply", replies)):
        for n, case in enumerate(cases):
            if FILTER and FILTER not in case.name:
                continue
            try:
                if kind == "request":
                    ran_req += 1
                    run_request(n, case)
                else:
                    ran_rep += 1
                    run_reply(n, case, raw)
                problem = None
            except Problem as e:
                problem = str(e)
            except (OSError, EOFError, rawhttp.Failure, ValueError) as e:
                problem = "%s: %s" % (type(e).__name__, e)
            if case.xfail:
                if problem:
                    xfailed += 1
                else:
                    failed += 1
                    print("XPASS %s %d %s (expected to fail: %s)" % (kind, n, case.name, case.xfail))
            elif problem:
                failed += 1
                print("FAIL %s %d %s: %s" % (kind, n, case.name, problem))
            sys.stdout.flush()
    print("%d request cases, %d reply cases, %d failed, %d expected failures, %.1f s" %
          (ran_req, ran_rep, failed, xfailed, time.monotonic() - started))
    sys.exit(1 if failed else 0)


main()
