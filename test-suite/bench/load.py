# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The load runs of `make bench` (section `load`; bench.py imports this).

Three runs against one cuttle each, on loopback, every loop bounded:

  idle      N (10,000) idle client connections held while a big download
            (2 GiB) runs: its rate against the same download alone, the
            two alternated, median of the rounds;
  mixed     C (1,000) concurrent clients (`wrk -t 2 -c C`) for D (600 s)
            with a mix of memory hits, misses that are stored (and, once
            cache_mem is full, evict older ones) and uncacheable replies;
            the RSS sampled every 5 s, its growth over the run's second
            half, wrk's errors and the access.log verdicts;
  slowloris S (500) clients that send a request head one byte every 2 s
            and never finish it, with request_timeout 20 s: when each is
            cut off, and the small-request rate of 50 other clients
            (`wrk -c 50`) during the trickle against the rate without it.

run(...) returns the figures for benchmarks.json; report.py writes them.
"""

import os
import re
import resource
import select
import socket
import statistics
import threading
import time

from targets import (  # this directory's targets.py
    BenchError,
    Cuttle,
    cpu_seconds,
    download,
    load_script,
    log,
    rss_bytes,
    run_quiet,
    settle,
    wait_for,
    wrk_path,
)

ic = load_script("idle_conns", "idle-conns.py")

SLOWLORIS_TIMEOUT = 20  # request_timeout of the slowloris run, seconds
SLOWLORIS_STEP = 2.0  # seconds between two bytes of a slow head
MIXED_HOT = 2000  # objects of the hit set
MIXED_SIZES = ["1k", "4k", "16k", "64k"]


def raise_nofile(want):
    """This process's descriptor limit to at least want (its children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= want:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    except (ValueError, OSError):
        if hard < want:
            raise BenchError("RLIMIT_NOFILE hard limit %d is below %d" % (hard, want))
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def start_cuttle(bench, name, lines):
    t = Cuttle(bench.target_dir(name), bench.args.cuttle, key=name, label="cuttle", extra=lines)
    t.start()
    settle(t)
    return t


# ---------------------------------------------------------------- idle connections and a download


def idle_run(bench, n, url, size, rounds):
    raise_nofile(n + 1024)
    t = start_cuttle(bench, "load-idle", ["max_filedescriptors %d" % (n + 2048), "client_idle_pconn_timeout 10 minutes", "request_timeout 10 minutes"])
    try:
        pid = t.proc.pid
        alone, held, rss_held = [], [], []
        base_fds = fd_count(pid)
        for r in range(rounds):
            a = download(t, url, size)
            alone.append(a["mbps"])
            socks = ic.open_connections(t.port, n, 120)
            try:
                wait_for("cuttle to accept %d connections" % n, lambda: fd_count(pid) >= base_fds + n, 60)
                h = download(t, url, size)
                held.append(h["mbps"])
                rss_held.append(rss_bytes([pid]))
                if fd_count(pid) < base_fds + n:
                    raise BenchError("cuttle dropped idle connections during the download")
            finally:
                ic.close_connections(socks)
            wait_for("cuttle to close the idle connections", lambda: fd_count(pid) <= base_fds + 8, 60)
            log("  round %d: alone %.0f MB/s, with %d idle connections %.0f MB/s" % (r + 1, a["mbps"], n, h["mbps"]))
        return {
            "conns": n,
            "size": size,
            "alone_mbps": alone,
            "held_mbps": held,
            "ratio": statistics.median(held) / statistics.median(alone),
            "rss_held": statistics.median(rss_held),
        }
    finally:
        t.stop()


# ---------------------------------------------------------------- many clients, hits and misses

MIXED_SCRIPT = """-- 70%% hits on %d hot objects, 20%% stored misses (unique URLs), 10%% uncacheable
local origin = "http://127.0.0.1:%d"
local sizes = {"%s"}
math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%%x+)"), 16) or 0))
request = function()
  local r = math.random(100)
  local path
  if r <= 70 then
    local i = math.random(%d)
    path = "/o/hot/" .. i .. "?s=" .. sizes[i %% #sizes + 1] .. "&cc=max-age=86400"
  elseif r <= 90 then
    path = "/o/cold/" .. math.random(1000000000) .. "?s=4k&cc=max-age=86400"
  else
    path = "/x?s=16k&cc=no-store"
  end
  return wrk.format("GET", origin .. path, {["Host"] = "127.0.0.1:%d"})
end
"""


class RssSeries:
    """VmRSS of a process every `step` seconds, in a thread."""

    def __init__(self, pid, step=5.0):
        self.pid, self.step = pid, step
        self.points = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.t0 = time.monotonic()

    def run(self):
        while True:
            self.points.append((round(time.monotonic() - self.t0, 1), rss_bytes([self.pid])))
            if self.stopping.wait(self.step):
                return

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join()


def access_verdicts(path):
    """Counts of access.log's result codes (TCP_MEM_HIT/200, ...)."""
    counts = {}
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 3:
                counts[parts[3]] = counts.get(parts[3], 0) + 1
    return counts


def mixed_run(bench, clients, duration, cache_mem):
    raise_nofile(clients + 1024)
    t = start_cuttle(
        bench,
        "load-mixed",
        ["max_filedescriptors %d" % (2 * clients + 1024), "cache_mem %s" % cache_mem, "maximum_object_size_in_memory 512 KB"],
    )
    try:
        pid = t.proc.pid
        port = bench.origin.port
        script = os.path.join(t.tmp, "mixed.lua")
        with open(script, "w") as f:
            f.write(MIXED_SCRIPT % (MIXED_HOT, port, '", "'.join(MIXED_SIZES), MIXED_HOT, port))
        cpu0 = cpu_seconds([pid])
        with RssSeries(pid) as series:
            r = run_quiet(
                ["wrk", "-t", "2", "-c", str(clients), "-d", "%ds" % duration, "--timeout", "10s", "--latency", "-s", script, "http://127.0.0.1:%d/" % t.port],
                timeout=duration + 120,
            )
        cpu1 = cpu_seconds([pid])
        if not t.alive():
            raise t.died("during the mixed run")
        m = re.search(r"(\d+) requests in ([\d.]+)(\w+)", r.stdout)
        rps = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
        if not m or not rps:
            raise BenchError("wrk: " + (r.stdout + r.stderr).strip()[-300:])
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", r.stdout)
        errors = re.search(r"Socket errors: (.*)", r.stdout)
        latency = {q: v for q, v in re.findall(r"^\s+(50|90|99)%\s+(\S+)", r.stdout, re.M)}
        points = series.points
        half = [rss for at, rss in points if at >= duration / 2]
        verdicts = access_verdicts(t.access_log)
        return {
            "clients": clients,
            "duration": duration,
            "cache_mem": cache_mem,
            "requests": int(m.group(1)),
            "rps": float(rps.group(1)),
            "non_2xx": int(bad.group(1)) if bad else 0,
            "socket_errors": errors.group(1).strip() if errors else "",
            "latency": latency,
            "cpu_s": cpu1 - cpu0,
            "rss_points": points,
            "rss_half": half[0] if half else None,
            "rss_end": points[-1][1] if points else None,
            "rss_max": max(rss for _, rss in points) if points else None,
            "rss_growth_second_half": (half[-1] - half[0]) if half else None,
            "verdicts": verdicts,
        }
    finally:
        t.stop()


# ---------------------------------------------------------------- slowloris


def slowloris(port, n, step, limit, started):
    """n clients that each send a request head a byte every step seconds and
    never finish it; returns the seconds after which cuttle closed each (None:
    still open at limit). started is set once all n are connected."""
    head = b"GET http://127.0.0.1:1/slow HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-Slow: " + b"a" * 4000
    socks, opened, sent, closed = [], {}, {}, {}
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            socks.append(s)
            opened[s] = time.monotonic()
            sent[s] = 0
        started.set()
        by_fd = {s.fileno(): s for s in socks}
        poller = select.poll()
        for s in socks:
            poller.register(s, select.POLLIN)

        def gone(s):
            closed[s] = time.monotonic() - opened[s]
            poller.unregister(s)

        deadline = time.monotonic() + limit
        next_byte = time.monotonic()
        while len(closed) < n and time.monotonic() < deadline:
            for fd, _ in poller.poll(200):
                s = by_fd[fd]
                try:
                    if s.recv(65536) == b"":
                        gone(s)
                except BlockingIOError:
                    pass
                except OSError:
                    gone(s)
            if time.monotonic() >= next_byte:
                next_byte += step
                for s in socks:
                    if s in closed:
                        continue
                    try:
                        s.send(head[sent[s] : sent[s] + 1])
                        sent[s] += 1
                    except BlockingIOError:
                        pass
                    except OSError:
                        gone(s)
        return [closed.get(s) for s in socks]
    finally:
        started.set()
        ic.close_connections(socks)


def slowloris_run(bench, n, rounds, wrk_seconds):
    raise_nofile(n + 1024)
    t = start_cuttle(bench, "load-slowloris", ["request_timeout %d seconds" % SLOWLORIS_TIMEOUT, "max_filedescriptors %d" % (2 * n + 1024)])
    try:
        alone, during, cut = [], [], []
        for r in range(rounds):
            a = wrk_small(t, bench, wrk_seconds)
            started = threading.Event()
            result = {}
            th = threading.Thread(target=lambda: result.update(times=slowloris(t.port, n, SLOWLORIS_STEP, SLOWLORIS_TIMEOUT + 30, started)), daemon=True)
            th.start()
            started.wait(60)
            time.sleep(2)
            d = wrk_small(t, bench, wrk_seconds)
            th.join(SLOWLORIS_TIMEOUT + 60)
            times = result.get("times") or []
            alone.append(a["rps"])
            during.append(d["rps"])
            cut.append(times)
            log(
                "  round %d: %.0f req/s alone, %.0f during %d slow heads; %d of %d cut off, after %s s (median)"
                % (r + 1, a["rps"], d["rps"], n, sum(1 for x in times if x is not None), n, "%.1f" % statistics.median([x for x in times if x is not None]) if any(x is not None for x in times) else "-")
            )
        if not t.alive():
            raise t.died("during the slowloris run")
        every = [x for times in cut for x in times]
        closed = [x for x in every if x is not None]
        return {
            "clients": n,
            "request_timeout": SLOWLORIS_TIMEOUT,
            "step": SLOWLORIS_STEP,
            "rps_alone": alone,
            "rps_during": during,
            "ratio": statistics.median(during) / statistics.median(alone),
            "cut_off": len(closed),
            "attempted": len(every),
            "cut_median": statistics.median(closed) if closed else None,
            "cut_min": min(closed) if closed else None,
            "cut_max": max(closed) if closed else None,
        }
    finally:
        t.stop()


def wrk_small(t, bench, seconds):
    return wrk_path(t, bench.origin, "/small?s=4k&cc=no-store", seconds, t.tmp, "slowloris")


# ---------------------------------------------------------------- the section


def run(bench, big_name, big_size):
    """The three runs; each that fails is reported as not measured."""
    quick = bench.quick
    out = {}
    runs = [
        ("idle", lambda: idle_run(bench, 2000 if quick else 10000, bench.origin.url("/files/" + big_name), big_size, bench.rounds)),
        ("mixed", lambda: mixed_run(bench, 200 if quick else 1000, 60 if quick else 600, "64 MB" if quick else "256 MB")),
        ("slowloris", lambda: slowloris_run(bench, 100 if quick else 500, bench.rounds, 5 if quick else 10)),
    ]
    for name, fn in runs:
        log("7. load: %s" % name)
        try:
            out[name] = fn()
        except (BenchError, OSError) as e:
            out[name] = {"error": str(e)}
            bench.not_measured["load/" + name] = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
            log("  NOT MEASURED: %s" % e)
    return out
