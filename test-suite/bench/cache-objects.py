#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""Memory a proxy holds per cached small object (issue 5).

For each target (cuttle, Squid, Traffic Server) and round, the proxy is
started afresh with its memory cache on (targets.py: cache_mem 1200 MB,
objects up to 600 MB in memory; Traffic Server with a RAM cache of that size
in front of a storage file) on a loopback port, against cuttle-origin. Then:

  1. a warm-up fills the cache with a few hundred objects (what a proxy
     allocates once, or on its first objects, is not counted), and the
     proxy's RSS is read once it is steady: "before";
  2. N distinct 1 KB objects (`/o/TAG/I?s=1k&cc=max-age=86400`, each reply
     cacheable for a day) are fetched through the proxy over a few
     keep-alive connections with raw sockets, one request in flight on each;
     every reply must be a 200 with the whole body;
  3. the RSS is read again once steady: "after the fill";
  4. every object is fetched once more (hits; Traffic Server puts an object
     in its RAM cache only when it is read back from its disk cache, so
     until then its small objects cost it no RSS at all), and the RSS is
     read again: "after", the figure reported;
  5. a sample of the objects (every N/S-th: scripted URLs `/s/TAG-I` whose
     reply the origin gives from a script line, the same as the others')
     is fetched again, and is a hit when the origin saw that URL only once
     (its `/_seen/` log): a proxy-independent check that the objects stayed
     cached. What the replies say of themselves (cache_verdict(): X-Cache,
     or Traffic Server's Via codes) is counted for every request too.

It prints, per target, (after - before) / N (RSS per object) and that minus
the body and the reply head as they came from the origin (the head measured
on a few of the same URLs fetched straight from the origin): what the proxy
spends per object beyond the bytes it has to keep. doc/design.md "Budgets" aims at <= 0.5
kB; Squid is about 6.6 kB and Traffic Server about 3 kB.

All traffic is on 127.0.0.1; every loop and wait is bounded; the processes
started are stopped at the end, even on failure or Ctrl-C. It installs
nothing (bench.py does): a target whose program is missing is skipped.

    test-suite/bench/cache-objects.py --cuttle BUILD/src/cuttle \\
        --origin BUILD/test-suite/origin/cuttle-origin --objects 20000 --targets cuttle
"""

import argparse
import json
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import time

sys.dont_write_bytecode = True

import targets as tg  # noqa: E402  (this directory's targets.py)

OBJECT_QUERY = "s=1k&cc=max-age=86400"
OBJECT_BODY = 1024
MAX_HEAD = 64 * 1024


# ---------------------------------------------------------------- HTTP over raw sockets


class HttpError(Exception):
    pass


class Reply:
    def __init__(self, status, head, fields, body_length):
        self.status = status
        self.head = head  # the head's bytes, status line to the empty line
        self.fields = fields  # lowercase name -> last value
        self.body_length = body_length

    def keep_alive(self):
        conn = self.fields.get("connection", "").lower()
        return "close" not in conn


def parse_reply(buf, head_only=False):
    """A whole reply at the front of buf: (Reply, bytes it took), or None
    when more bytes are needed. Content-Length and chunked bodies only (a
    close-delimited reply is an error here: every proxy frames these)."""
    end = buf.find(b"\r\n\r\n", 0, MAX_HEAD + 4)
    if end < 0:
        if len(buf) > MAX_HEAD:
            raise HttpError("a reply head over %d bytes" % MAX_HEAD)
        return None
    head = bytes(buf[: end + 4])
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise HttpError("bad status line %r" % lines[0][:80])
    status = int(parts[1])
    fields = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            fields[name.strip().lower()] = value.strip()
    pos = end + 4
    if head_only or status in (204, 304) or 100 <= status < 200:
        return Reply(status, head, fields, 0), pos
    if "chunked" in fields.get("transfer-encoding", "").lower():
        total = 0
        while True:
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                return None
            size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
            if size == 0:
                # no trailers expected: the last chunk's empty line
                if len(buf) < eol + 4:
                    return None
                return Reply(status, head, fields, total), eol + 4
            if len(buf) < eol + 2 + size + 2:
                return None
            total += size
            pos = eol + 2 + size + 2
    if "content-length" not in fields:
        raise HttpError("a %d reply without Content-Length or chunked coding" % status)
    length = int(fields["content-length"])
    if len(buf) < pos + length:
        return None
    return Reply(status, head, fields, length), pos + length


VIA_CACHE_CODE = re.compile(r"\[c([A-Z ])")


def cache_verdict(fields):
    """What a proxy's reply fields say about where it came from: "hit" (from
    memory), "disk hit", "miss" or "?". Traffic Server says it in its Via
    field's cache code (with insert_response_via_str 2: cR a RAM cache hit,
    cH a hit read from its disk cache, cW a hit on an object whose write
    to the disk cache is still under way, cM a miss), cuttle and Squid in
    X-Cache. An Age field tells nothing: Traffic Server sends Age: 0 on a
    miss that it stores."""
    m = VIA_CACHE_CODE.search(fields.get("via", ""))
    if m:
        codes = {"R": "hit", "H": "disk hit", "W": "hit while written", "M": "miss", "S": "stale", "A": "not acceptable"}
        return codes.get(m.group(1), "?")
    x_cache = fields.get("x-cache", "").upper()
    if x_cache.startswith("HIT"):
        return "hit"
    if x_cache.startswith("MISS"):
        return "miss"
    return "?"


def cache_said(fields):
    """The field cache_verdict() read: Via's [codes], or X-Cache, or ''."""
    m = re.search(r"\[[^]]*\]", fields.get("via", ""))
    return m.group(0) if m else fields.get("x-cache", "")


def request_bytes(port, path, proxied, method="GET", body=b""):
    """A request for http://127.0.0.1:port/path, absolute-form when proxied."""
    target = "http://127.0.0.1:%d%s" % (port, path) if proxied else path
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % (method, target, port)
    if body or method in ("PUT", "POST"):
        head += "Content-Length: %d\r\n" % len(body)
    return head.encode() + b"\r\n" + body


class Client:
    """One blocking keep-alive connection; reconnects when the other side
    closes. Each call is bounded by `timeout` seconds."""

    def __init__(self, port, timeout=30):
        self.port = port
        self.timeout = timeout
        self.sock = None
        self.buf = bytearray()

    def close(self):
        if self.sock:
            self.sock.close()
        self.sock = None
        self.buf = bytearray()

    def send(self, data, head_only=False):
        """Sends one request, returns (Reply, body bytes)."""
        for attempt in (1, 2):
            if self.sock is None:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                self.sock.sendall(data)
                deadline = time.monotonic() + self.timeout
                while True:
                    got = parse_reply(self.buf, head_only)
                    if got:
                        reply, used = got
                        body = bytes(self.buf[len(reply.head) : used])
                        del self.buf[:used]
                        if not reply.keep_alive():
                            self.close()
                        return reply, body
                    if time.monotonic() > deadline:
                        raise HttpError("no whole reply within %d s" % self.timeout)
                    chunk = self.sock.recv(1 << 20)
                    if not chunk:
                        raise ConnectionResetError("closed before a whole reply")
                    self.buf += chunk
            except (ConnectionResetError, BrokenPipeError) as e:
                # a kept-alive connection the other side closed: once more on a new one
                self.close()
                if attempt == 2:
                    raise HttpError(str(e))
        raise HttpError("unreachable")


def fill(port, paths, proxied_port, conns=4, limit=600, progress=None):
    """Fetches every path (http://127.0.0.1:proxied_port/PATH) through the
    proxy on `port`, with `conns` keep-alive connections, one request in
    flight on each. Returns counts of statuses, bad bodies, reconnects and
    the seconds it took; raises HttpError when nothing moved for 30 s or the
    whole took over `limit` seconds."""
    sel = selectors.DefaultSelector()
    todo = list(reversed(paths))
    slots = []
    stats = {"requests": 0, "status": {}, "short_bodies": 0, "reconnects": 0, "verdicts": {}}
    t0 = time.monotonic()
    last_progress = t0

    def connect(slot):
        if slot.get("sock"):
            sel.unregister(slot["sock"])
            slot["sock"].close()
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        slot.update(sock=s, buf=bytearray(), path=None)
        sel.register(s, selectors.EVENT_READ, slot)

    def send_next(slot):
        if not todo:
            return
        path = todo.pop()
        data = request_bytes(proxied_port, path, True)
        slot["path"] = path
        sent = slot["sock"].send(data)
        if sent != len(data):
            raise HttpError("a %d-byte request did not fit in a fresh socket buffer" % len(data))

    try:
        for _ in range(min(conns, len(paths))):
            slot = {}
            connect(slot)
            slots.append(slot)
            send_next(slot)
        while any(s["path"] for s in slots):
            now = time.monotonic()
            if now - t0 > limit:
                raise HttpError("the fill took over %d s (%d of %d done)" % (limit, stats["requests"], len(paths)))
            if now - last_progress > 30:
                raise HttpError("no reply for 30 s (%d of %d done)" % (stats["requests"], len(paths)))
            for key, _ in sel.select(timeout=1):
                slot = key.data
                try:
                    chunk = slot["sock"].recv(1 << 16)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    chunk = b""
                if not chunk:
                    # closed: the request in flight goes again on a new connection
                    if slot["path"]:
                        todo.append(slot["path"])
                    stats["reconnects"] += 1
                    if stats["reconnects"] > 100 + len(paths) // 100:
                        raise HttpError("the proxy closed connections %d times" % stats["reconnects"])
                    connect(slot)
                    send_next(slot)
                    continue
                slot["buf"] += chunk
                got = parse_reply(slot["buf"])
                if not got:
                    continue
                reply, used = got
                del slot["buf"][:used]
                if slot["buf"]:
                    raise HttpError("bytes after a whole reply on a connection with one request in flight")
                stats["requests"] += 1
                stats["status"][reply.status] = stats["status"].get(reply.status, 0) + 1
                if reply.status == 200 and reply.body_length != OBJECT_BODY:
                    stats["short_bodies"] += 1
                verdict = cache_verdict(reply.fields)
                stats["verdicts"][verdict] = stats["verdicts"].get(verdict, 0) + 1
                last_progress = time.monotonic()
                slot["path"] = None
                if progress and stats["requests"] % 50000 == 0:
                    progress("    %d of %d in %.0f s" % (stats["requests"], len(paths), last_progress - t0))
                if not reply.keep_alive():
                    stats["reconnects"] += 1
                    connect(slot)
                send_next(slot)
    finally:
        for slot in slots:
            if slot.get("sock"):
                slot["sock"].close()
        sel.close()
    stats["seconds"] = time.monotonic() - t0
    return stats


# ---------------------------------------------------------------- the origin's scripts


def put_script(origin_port, sid, line):
    c = Client(origin_port)
    try:
        reply, body = c.send(request_bytes(origin_port, "/_script/" + sid, False, "PUT", line.encode() + b"\n"))
    finally:
        c.close()
    if reply.status != 201:
        raise HttpError("PUT /_script/%s: %d %s" % (sid, reply.status, body[:200]))


def seen_count(client, origin_port, sid):
    """Requests the origin received for /s/SID since its script was set."""
    reply, body = client.send(request_bytes(origin_port, "/_seen/" + sid, False))
    if reply.status != 200:
        raise HttpError("GET /_seen/%s: %d" % (sid, reply.status))
    return sum(1 for line in body.split(b"\n") if line.startswith(b"GET "))


def origin_head_bytes(origin_port, tag, count=50):
    """The mean size of the reply head (status line to the empty line) that
    the origin sends for objects like the measured ones."""
    c = Client(origin_port)
    sizes = []
    try:
        for i in range(count):
            reply, body = c.send(request_bytes(origin_port, "/o/%s/%d?%s" % (tag, i, OBJECT_QUERY), False))
            if reply.status != 200 or len(body) != OBJECT_BODY:
                raise HttpError("the origin answered %d with %d bytes" % (reply.status, len(body)))
            sizes.append(len(reply.head))
    finally:
        c.close()
    return statistics.mean(sizes)


# ---------------------------------------------------------------- memory


def steady_rss(target, limit=30, quiet=2.0, slack=256 * 1024):
    """The proxy's RSS (its process tree's VmRSS summed) once it has moved
    by less than `slack` for `quiet` seconds; bounded by `limit` seconds."""
    deadline = time.monotonic() + limit
    samples = []
    while True:
        if not target.alive():
            raise target.died("while its memory was read")
        now = time.monotonic()
        samples.append((now, tg.rss_bytes(target.pids())))
        window = [v for t, v in samples if t >= now - quiet]
        if samples[0][0] <= now - quiet and max(window) - min(window) < slack:
            return samples[-1][1]
        if now >= deadline:
            tg.log("    warning: RSS still moving after %d s (%d .. %d over the last %.0f s)" % (limit, min(window), max(window), quiet))
            return samples[-1][1]
        time.sleep(0.2)


# ---------------------------------------------------------------- one measurement


def sample_indices(n, sample):
    step = max(1, n // max(1, sample))
    return set(range(step // 2, n, step))


def object_paths(tag, n, sampled):
    return ["/s/%s-%d?%s" % (tag, i, OBJECT_QUERY) if i in sampled else "/o/%s/%d?%s" % (tag, i, OBJECT_QUERY) for i in range(n)]


def measure(target, origin_port, n, conns=4, sample=100, warm=None, settle=30, log=tg.log):
    """Fills the started target's cache with n distinct 1 KB objects and
    returns the figures (a dict; see the module's doc). The target must be
    running; it is left running."""
    tag = "%s%d" % (target.key.replace("-", ""), int(time.time() * 1000) % 100000000)
    warm = warm if warm is not None else min(1000, max(100, n // 20))
    sampled = sample_indices(n, sample)
    for i in sorted(sampled):
        put_script(origin_port, "%s-%d" % (tag, i), OBJECT_QUERY)
    log("    warm-up: %d objects" % warm)
    ws = fill(target.port, ["/o/%sw/%d?%s" % (tag, i, OBJECT_QUERY) for i in range(warm)], origin_port, conns)
    if ws["status"].get(200, 0) != warm:
        raise HttpError("the warm-up got statuses %s" % ws["status"])
    before = steady_rss(target, settle)
    log("    RSS before: %.1f MB; filling with %d objects over %d connections" % (before / tg.MB, n, conns))
    paths = object_paths(tag, n, sampled)
    stats = fill(target.port, paths, origin_port, conns, limit=max(600, n // 100), progress=log)
    after_fill = steady_rss(target, settle)
    ok = stats["status"].get(200, 0) - stats["short_bodies"]
    log(
        "    %d requests in %.1f s (%.0f/s), statuses %s, %d short bodies, the replies say %s; RSS after the fill: %.1f MB; reading each object again"
        % (stats["requests"], stats["seconds"], stats["requests"] / stats["seconds"], stats["status"], stats["short_bodies"], stats["verdicts"], after_fill / tg.MB)
    )
    again = fill(target.port, paths, origin_port, conns, limit=max(600, n // 100), progress=log)
    after = steady_rss(target, settle)
    ok_again = again["status"].get(200, 0) - again["short_bodies"]
    log(
        "    %d requests in %.1f s (%.0f/s), statuses %s, %d short bodies, the replies say %s; RSS after: %.1f MB"
        % (again["requests"], again["seconds"], again["requests"] / again["seconds"], again["status"], again["short_bodies"], again["verdicts"], after / tg.MB)
    )
    # the sample: still cached?
    proxy, orig = Client(target.port), Client(origin_port)
    hits = header_hits = 0
    try:
        for i in sorted(sampled):
            reply, body = proxy.send(request_bytes(origin_port, "/s/%s-%d?%s" % (tag, i, OBJECT_QUERY), True))
            if reply.status != 200 or len(body) != OBJECT_BODY:
                continue
            header_hits += cache_verdict(reply.fields) == "hit"
            hits += seen_count(orig, origin_port, "%s-%d" % (tag, i)) == 1
    finally:
        proxy.close()
        orig.close()
    head = origin_head_bytes(origin_port, tag + "d")
    per_object = (after - before) / n
    result = {
        "objects": n,
        "warm_up": warm,
        "connections": conns,
        "fill_seconds": round(stats["seconds"], 2),
        "fill_rps": stats["requests"] / stats["seconds"] if stats["seconds"] else None,
        "statuses": {str(k): v for k, v in stats["status"].items()},
        "good_replies": ok,
        "reconnects": stats["reconnects"] + again["reconnects"],
        "read_rps": again["requests"] / again["seconds"] if again["seconds"] else None,
        "read_good_replies": ok_again,
        "fill_verdicts": stats["verdicts"],
        "read_verdicts": again["verdicts"],
        "rss_before": before,
        "rss_after_fill": after_fill,
        "rss_after": after,
        "rss_per_object_fill": (after_fill - before) / n,
        "rss_per_object": per_object,
        "body_bytes": OBJECT_BODY,
        "head_bytes": head,
        "url_bytes": statistics.mean(len("http://127.0.0.1:%d%s" % (origin_port, p)) for p in paths[:1000]),
        "overhead_per_object": per_object - OBJECT_BODY - head,
        "sample": len(sampled),
        "sample_hits": hits,
        "sample_said_hit": header_hits,
    }
    log(
        "    %.0f B of RSS per object, %.0f B beyond body (%d) and head (%.0f); sample: %d of %d hits (the origin saw them once), %d said so"
        % (per_object, result["overhead_per_object"], OBJECT_BODY, head, hits, len(sampled), header_hits)
    )
    if ok != n or ok_again != n:
        result["warning"] = "%d of %d fill requests and %d of %d reads did not get a 200 with the whole body" % (n - ok, n, n - ok_again, n)
    elif hits < len(sampled):
        result["warning"] = "only %d of %d sampled objects were hits" % (hits, len(sampled))
    if "warning" in result:
        log("    warning: " + result["warning"])
    return result


def make_target(kind, tmp, args, origin_port):
    """A cache-enabled target of kind cuttle, squid or ats (unstarted)."""
    if kind == "cuttle":
        return tg.Cuttle(tmp, args.cuttle, extra=tg.CUTTLE_CACHE_LINES, label="cuttle (cache_mem %s)" % tg.CACHE_MEM)
    if kind == "squid":
        return tg.Squid(tmp, args.squid, cache=True)
    if kind == "ats":
        return tg.TrafficServer(tmp, args.traffic_server, origin_port, cache=True)
    raise ValueError(kind)


def summarize(rounds):
    """Medians over rounds of the figures that are numbers."""
    out = {"rounds": rounds}
    good = [r for r in rounds if "error" not in r]
    for field in ("rss_per_object", "rss_per_object_fill", "overhead_per_object", "head_bytes", "url_bytes", "fill_rps", "rss_before", "rss_after", "sample_hits", "sample"):
        vals = [r[field] for r in good if r.get(field) is not None]
        out[field] = statistics.median(vals) if vals else None
    warnings = [r["warning"] for r in good if "warning" in r] + [r["error"] for r in rounds if "error" in r]
    if warnings:
        out["warning"] = "; ".join(warnings)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuttle", help="the cuttle binary")
    parser.add_argument("--origin", required=True, help="the cuttle-origin binary")
    parser.add_argument("--squid", default=shutil.which("squid") or ("/usr/sbin/squid" if os.path.exists("/usr/sbin/squid") else None), help="the squid binary")
    parser.add_argument("--traffic-server", default=shutil.which("traffic_server"), help="the traffic_server binary")
    parser.add_argument("--targets", default="cuttle,squid,ats", help="comma-separated: cuttle, squid, ats (default all three)")
    parser.add_argument("--objects", type=int, default=200000, help="distinct 1 KB objects (default 200000)")
    parser.add_argument("--conns", type=int, default=4, help="keep-alive connections of the fill (default 4)")
    parser.add_argument("--sample", type=int, default=100, help="objects checked to be hits afterwards (default 100)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, each on a fresh proxy; medians are printed (default 1)")
    parser.add_argument("--settle", type=float, default=30, help="bound of each wait for a steady RSS, in seconds")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    kinds = [k for k in args.targets.split(",") if k]
    for k in kinds:
        if k not in ("cuttle", "squid", "ats"):
            parser.error("unknown target %r" % k)
    if not 1 <= args.objects <= 2000000 or not 1 <= args.conns <= 64 or not 1 <= args.rounds <= 15 or not 1 <= args.sample <= 10000:
        parser.error("--objects 1..2000000, --conns 1..64, --rounds 1..15, --sample 1..10000")
    need = {"cuttle": args.cuttle, "squid": args.squid, "ats": args.traffic_server}
    for name in ("origin",):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    if args.cuttle:
        args.cuttle = os.path.abspath(args.cuttle)

    def interrupted(signum, frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)

    tmp = tempfile.mkdtemp(prefix="cuttle-cache-objects.")
    os.chmod(tmp, 0o755)  # Squid and Traffic Server drop privileges
    results = {}
    try:
        files = os.path.join(tmp, "files")
        os.mkdir(files)
        origin = tg.Origin(args.origin, files, tmp)
        origin.start()
        tg.log("origin on 127.0.0.1:%d" % origin.port)
        for kind in kinds:
            if not need[kind] or not os.access(need[kind], os.X_OK):
                results[kind] = {"error": "no %s binary" % kind}
                tg.log("%s: skipped, no binary" % kind)
                continue
            rounds = []
            for r in range(args.rounds):
                d = tempfile.mkdtemp(prefix=kind + ".", dir=tmp)
                target = make_target(kind, d, args, origin.port)
                tg.log("%s, round %d:" % (target.label, r + 1))
                try:
                    target.start()
                    rounds.append(measure(target, origin.port, args.objects, args.conns, args.sample, settle=args.settle))
                except (tg.BenchError, HttpError, OSError) as e:
                    rounds.append({"error": str(e).strip()})
                    tg.log("    failed: %s" % e)
                finally:
                    target.stop()
                    shutil.rmtree(d, ignore_errors=True)
            results[kind] = dict(summarize(rounds), label=target.label)
    except KeyboardInterrupt:
        tg.stop_everything()
        sys.exit("cache-objects: interrupted")
    finally:
        tg.stop_everything()
        shutil.rmtree(tmp, ignore_errors=True)

    print()
    print("%d distinct %d-byte objects, median of %d round(s)" % (args.objects, OBJECT_BODY, args.rounds))
    print("%-34s %10s %10s %12s %12s %12s %10s %10s" % ("target", "RSS before", "RSS after", "B per object", "body+head", "beyond", "after fill", "sample hits"))
    for kind, s in results.items():
        if s.get("rss_per_object") is None:
            print("%-34s not measured: %s" % (s.get("label", kind), s.get("warning") or s.get("error")))
            continue
        print(
            "%-34s %8.1fMB %8.1fMB %12.0f %12.0f %12.0f %10.0f %6d/%d"
            % (s["label"], s["rss_before"] / tg.MB, s["rss_after"] / tg.MB, s["rss_per_object"], OBJECT_BODY + s["head_bytes"], s["overhead_per_object"], s["rss_per_object_fill"], s["sample_hits"], s["sample"])
        )
        if s.get("warning"):
            print("    warning: " + s["warning"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"objects": args.objects, "rounds": args.rounds, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
