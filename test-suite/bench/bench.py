#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The benchmark behind `make bench`: cuttle against Squid 5.7 and Traffic Server.

One run, on this machine, with every process on loopback ports picked free
and its own configuration in a temp dir:

  targets   cuttle with its default configuration (only port, logs and pid
            file set: workers 1), and with `workers 2` (WORKER_COUNTS) in
            sections 1, 4 and 6's memory hits; Squid 5.7 twice (read_ahead_gap 16 KB, its default,
            and 64 KB), `cache deny all`; Apache Traffic Server 9.2 as a
            forward proxy with its cache off; and `direct` (no proxy).
  origin    cuttle-origin serving files from a tmpfs directory (/dev/shm)
            with sendfile, so that the origin costs little.

  1. throughput   2 GiB downloads with curl, the targets alternated round
                  robin, median of --rounds: MB/s, the proxy's CPU seconds
                  per GB (utime + stime of all its processes and threads),
                  its peak RSS (VmRSS summed, sampled every 50 ms).
  2. syscalls     one untimed download per proxy counted with
                  `perf stat -e 'syscalls:sys_enter_*'` (syscalls per GB by
                  kind), and one traced with `strace -f -C` (its -c summary,
                  and the size distribution of reads and writes).
  3. sweep        cuttle's request_buffer_size x read_ahead_gap (and auto
                  mode) with 512 MiB downloads: MB/s, CPU-s/GB, syscalls/GB.
  4. small        wrk -c 50 through each proxy for a 4 KB and a 64 KB object,
                  uncacheable, from cuttle-origin and from nginx serving
                  static files: requests/s, the proxy's and the origin's
                  CPU seconds per 10,000 requests and context switches
                  per request, the client connections of each of the
                  proxy's event loops, each origin's own rate (direct).
  5. connections  idle-conns.py's measurement (imported): bytes of RSS per
                  idle client connection and per connection holding half a
                  request line, for cuttle, Squid and Traffic Server.
  6. cache        cuttle, Squid and Traffic Server with their memory caches
                  on (targets.py): wrk -c 50 on a cached 1 KB and 64 KB
                  object (requests/s, CPU per 10,000 hits, origin requests
                  during the runs), a 512 MiB object's storing miss and two
                  hits with curl against cuttle's uncached rate of the same
                  file, and cache-objects.py's memory per cached 1 KB object
                  (imported), with issue 5's targets.
  7. load         load.py's runs, cuttle only: 10,000 idle connections held
                  during a 2 GiB download (its rate against alone); 1,000
                  wrk clients for 10 minutes, hits and misses (RSS every
                  5 s, errors, verdicts); 500 slowloris heads cut off by
                  request_timeout while 50 clients measure the rate.
  8. tls         tls.py (imported): nginx as the HTTPS origin; a 1 GiB
                  object bumped (Squid 5.7 from squid-openssl, cuttle),
                  spliced and fetched as an https:// URL for a plain client
                  (and Traffic Server), 4 KiB objects over bumped keep-alive
                  connections, the first byte from a never-seen host name.
  9. disk        disk.py (imported): cuttle, Squid rock and aufs, Traffic
                  Server and nginx proxy_cache with their memory caches off:
                  a 1 GiB object's storing miss and disk hit (warm, cold),
                  64 KiB disk hits with wrk, a restart with 100,000 objects.

The processes (installing, starting and stopping each proxy and the origin,
reading /proc) are targets.py's. It writes OUT/benchmarks.md,
OUT/benchmarks.json, OUT/bench-throughput.png, OUT/bench-syscalls.png,
OUT/bench-cache.png, OUT/bench-load.png, OUT/bench-tls.png and
OUT/bench-disk.png; a
run of some --sections only is merged into the OUT/benchmarks.json there. Missing tools (squid trafficserver wrk strace
gnuplot-nox procps, nginx for sections 4, 8 and 9) are installed from Debian first (through sudo when not
root), with a policy-rc.d that keeps packaged services from starting.

It reports; it never fails on a number. A target or a section that cannot
run is written down as "not measured" with the reason. Every process it
starts runs in a session of its own and is killed (its process group) at the
end, even on failure or Ctrl-C.

    test-suite/bench/bench.py --cuttle BUILD/src/cuttle \\
        --origin BUILD/test-suite/origin/cuttle-origin --out doc [--rounds 3] [--quick]

MB and GB here are 10^6 and 10^9 bytes; MiB and GiB 2^20 and 2^30.
"""

import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

import disk  # noqa: E402  (this directory's disk.py: section 9)
import load  # noqa: E402  (this directory's load.py: section 7)
import report  # noqa: E402  (this directory's report.py)
import tls  # noqa: E402  (this directory's tls.py: section 8)
from report import fmt  # noqa: E402
from targets import (  # noqa: E402  (this directory's targets.py: the processes)
    ATS_STORAGE,
    CACHE_MEM,
    CUTTLE_CACHE_LINES,
    CUTTLE_LOCKED_LINES,
    GB,
    MAX_IN_MEMORY,
    MB,
    SRCDIR,
    START,
    STARTED,
    BenchError,
    Cuttle,
    Direct,
    GiB,
    KiB,
    MiB,
    Nginx,
    Origin,
    Squid,
    TrafficServer,
    TrafficServerSetup,
    curl_cmd,
    download,
    ensure_packages,
    free_port,
    log,
    make_file,
    parse_curl,
    perf_available,
    perf_count,
    port_answers,
    rules_50,
    run_quiet,
    settle,
    short_size,
    size_bytes,
    load_script,
    spawn,
    stop_everything,
    stop_packaged_services,
    stop_process,
    tail,
    threads_of,
    wait_for,
    wrk_path,
)

SWEEP_BUFFERS = ["8 KB", "16 KB", "64 KB", "256 KB", "1 MB", "4 MB"]
SWEEP_AUTO = ["auto min=16 KB max=1 MB", "auto min=64 KB max=4 MB"]
SWEEP_GAPS = ["16 KB", "64 KB", "256 KB", "1 MB", "4 MB"]
# the small section's objects: cuttle-origin's s= sizes, and nginx's files small/NAME
SMALL_SIZES = {"4k": 4 * KiB, "64k": 64 * KiB}
# the sweep points that the small-object test also runs
WRK_SWEEP_POINTS = [("16 KB", "16 KB"), ("256 KB", "1 MB")]
# the objects of the memory-hit test (cuttle-origin's s= sizes)
HIT_SIZES = ["1k", "64k"]
# a day of freshness: every object of the cache section is fresh throughout
CACHEABLE = "cc=max-age=86400"
# cuttle's `workers` counts measured beside its default (workers 1) in the
# throughput, small and cache-hit runs: targets cuttle-w2, ...
WORKER_COUNTS = [2]
# the memory-hit warm-up: fresh connections until this many in a row sent
# the origin nothing new (each of cuttle's workers has a cache of its own)
WARM_QUIET = 16
WARM_LIMIT = 64

SECTIONS = ["throughput", "sweep", "small", "connections", "cache", "load", "tls", "disk"]
# the keys of the data that each section writes (a partial run replaces these only)
SECTION_KEYS = {
    "throughput": ["throughput", "syscalls_perf", "syscalls_strace", "targets"],
    "sweep": ["sweep", "sweep_syscall_counter", "sweep_axes"],
    "small": ["small", "wrk_duration", "small_origins", "ioloop"],
    "connections": ["connections"],
    "cache": ["cache"],
    "load": ["load"],
    "tls": ["tls"],
    "disk": ["disk"],
}
# what the TLS and disk sections need beyond PACKAGES (targets.py)
SECTION_PACKAGES = {
    "small": {"nginx": "nginx", "liburing-dev": "/usr/include/liburing.h"},  # ioloop.cc's io_uring loop
    "tls": {"nginx": "nginx"},
    "disk": {"nginx": "nginx"},
}


ic = load_script("idle_conns", "idle-conns.py")
co = load_script("cache_objects", "cache-objects.py")
iol = load_script("ioloop", "ioloop.py")


class AtsIdle(ic.Proxy):
    """Traffic Server for idle-conns.py's rounds: long timeouts, and
    net.defer_accept 0, or idle sockets would never be accepted."""

    name = "ats"

    def __init__(self, binary, tmp, fds):
        super().__init__(tmp, fds)
        self.setup = TrafficServerSetup(tmp, binary)
        self.log = self.setup.diags()

    def start(self):
        self.port = free_port()
        self.setup.write(
            self.port,
            [
                "CONFIG proxy.config.net.defer_accept INT 0",
                "CONFIG proxy.config.http.accept_no_activity_timeout INT 600",
                "CONFIG proxy.config.http.transaction_no_activity_timeout_in INT 600",
                "CONFIG proxy.config.http.keep_alive_no_activity_timeout_in INT 600",
                "CONFIG proxy.config.net.connections_throttle INT %d" % (self.fds - 512),
                "CONFIG proxy.config.net.max_connections_in INT %d" % (self.fds - 512),
            ],
        )
        out = open(os.path.join(self.tmp, "ts.out"), "w")
        self.proc = subprocess.Popen(
            self.setup.command(),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=self.tmp,
            start_new_session=True,
            preexec_fn=ic.nofile_limiter(self.fds),
        )
        out.close()
        STARTED.append(self.proc)

        def answers():
            if not self.alive():
                raise ic.BenchError("traffic_server exited at start:\n" + self.tail(self.log))
            return port_answers(self.port)

        ic.wait_for("traffic_server's port to answer", answers, 30)
        # Traffic Server opens its access and error logs (squid.blog,
        # error.log) a few seconds after the first request: have that
        # happen now, or the round waits forever for the descriptor count
        # to come back to its "before"
        ic.warm_up(self, 30)
        logs = [os.path.join(self.tmp, "log", name) for name in ("squid.blog", "error.log")]
        try:
            ic.wait_for("traffic_server to open its logs", lambda: all(os.path.exists(p) for p in logs), 30, step=0.25)
        except ic.BenchError as e:
            log("    " + str(e))
        last, since = ic.fd_count(self.pid), time.monotonic()
        deadline = since + 10
        while time.monotonic() < deadline and time.monotonic() - since < 1.5:
            time.sleep(0.25)
            now = ic.fd_count(self.pid)
            if now != last:
                last, since = now, time.monotonic()

    def stop(self):
        stop_process(self.proc)


# ---------------------------------------------------------------- measuring


READS = ("read", "readv", "recvfrom", "recvmsg")
WRITES = ("write", "writev", "sendto", "sendmsg")
TRACE_LINE = re.compile(r"^\d+\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()")
TRACE_RESULT = re.compile(r"\)\s+=\s+(-?\d+)(?:\s+(\w+))?")


def attached(tids, tracer_pid):
    for tid in tids:
        try:
            with open("/proc/%d/status" % tid) as f:
                for line in f:
                    if line.startswith("TracerPid:"):
                        if int(line.split()[1]) == 0:
                            return False
        except OSError:
            pass
    return True


def strace_pass(target, url, size, tmp):
    """One untimed download traced with strace -f -C: the -c summary (calls
    per GB by kind) and the sizes that reads and writes returned."""
    pids = target.pids()
    tids = threads_of(pids)
    out = os.path.join(tmp, "strace.%s.txt" % target.key)
    cmd = ["strace", "-f", "-C", "-qq", "-s", "0", "-e", "signal=none", "-o", out]
    for tid in tids:
        cmd += ["-p", str(tid)]
    tracer = spawn(cmd, os.path.join(tmp, "strace.%s.out" % target.key))
    t0 = time.monotonic()
    try:
        wait_for("strace to attach", lambda: tracer.poll() is not None or attached(tids, tracer.pid), 20)
        if tracer.poll() is not None:
            raise BenchError("strace exited: " + tail(os.path.join(tmp, "strace.%s.out" % target.key)))
        r = run_quiet(curl_cmd(target, url, max_time=1800), timeout=1900)
        parse_curl(r.stdout, size)
    finally:
        stop_process(tracer, signal.SIGINT, grace=60)
    elapsed = time.monotonic() - t0
    scale = GB / size
    summary = {}
    sizes = {"read": [], "write": [], "splice": []}
    eagain = {"read": 0, "write": 0, "splice": 0}
    in_summary = False
    with open(out, errors="replace") as f:
        for line in f:
            if line.startswith("% time"):
                in_summary = True
                continue
            if in_summary:
                parts = line.split()
                if len(parts) >= 5 and parts[-1] != "total" and parts[0][0].isdigit():
                    # % time, seconds, usecs/call, calls, [errors], syscall
                    summary[parts[-1]] = int(parts[3])
                continue
            m = TRACE_LINE.match(line)
            if not m or line.rstrip().endswith("<unfinished ...>"):
                continue
            name = m.group(1) or m.group(2)
            kind = "read" if name in READS else "write" if name in WRITES else "splice" if name == "splice" else None
            if kind is None:
                continue
            res = TRACE_RESULT.search(line)
            if not res:
                continue
            value = int(res.group(1))
            if value < 0:
                if res.group(2) == "EAGAIN":
                    eagain[kind] += 1
                continue
            sizes[kind].append(value)
    try:
        os.unlink(out)
    except OSError:
        pass
    result = {
        "bytes": size,
        "seconds_traced": elapsed,
        "calls_per_gb": {k: v * scale for k, v in summary.items()},
        "total_per_gb": sum(summary.values()) * scale,
        "sizes": {},
    }
    moved = sum(sizes["read"]) + sum(sizes["splice"]) / 2
    if moved < 0.95 * size:
        result["warning"] = "the trace saw reads of only %d of the %d bytes moved" % (moved, size)
        log("  warning: " + result["warning"])
    for kind, values in sizes.items():
        if not values and not eagain[kind]:
            continue
        hist = {}
        for v in values:
            b = v.bit_length()  # 0 for 0, else 2^(b-1) <= v < 2^b
            hist[b] = hist.get(b, 0) + 1
        result["sizes"][kind] = {
            "calls": len(values),
            "eagain": eagain[kind],
            "median": statistics.median(values) if values else 0,
            "mean": (sum(values) / len(values)) if values else 0,
            "histogram": {str(k): v for k, v in sorted(hist.items())},
        }
    return result


# ---------------------------------------------------------------- reporting helpers


def loops_note(res):
    """', connections per loop 26+24' for a wrk_path() result that counted them."""
    loops = res.get("loop_connections")
    return ", connections per loop %s" % "+".join(str(c) for c in loops) if loops else ""


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def machine_info():
    info = {}
    r = run_quiet(["lscpu"])
    for line in r.stdout.splitlines():
        if line.startswith("Model name:"):
            info["cpu"] = line.split(":", 1)[1].strip()
    info["cores"] = os.cpu_count()
    info["kernel"] = platform.release()
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["memory_gib"] = round(int(line.split()[1]) / (1024 * 1024), 1)
    except OSError:
        pass
    try:
        with open("/etc/debian_version") as f:
            info["debian"] = f.read().strip()
    except OSError:
        pass
    return info


def first_line(cmd, words=None):
    """The first line a command prints (its first `words` words)."""
    r = run_quiet(cmd)
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    line = lines[0].strip() if lines else "unknown"
    return " ".join(line.split()[:words]) if words else line


def versions(args):
    v = {"cuttle": first_line([args.cuttle, "-v"]), "curl": first_line(["curl", "-V"], 2)}
    # in a shared checkout the source may move on after the build: say when it was built
    v["cuttle built"] = datetime.datetime.fromtimestamp(os.path.getmtime(args.cuttle)).astimezone().isoformat(timespec="seconds")
    if args.squid_path:
        v["squid"] = first_line([args.squid_path, "-v"])
    if args.ats_path:
        v["traffic_server"] = first_line([args.ats_path, "-V"], 3)
    if shutil.which("wrk"):
        v["wrk"] = first_line(["wrk", "-v"]).split(" Copyright")[0]
    if shutil.which("strace"):
        v["strace"] = first_line(["strace", "-V"])
    if shutil.which("nginx"):
        v["nginx"] = first_line(["nginx", "-v"]).replace("nginx version: ", "")
    if shutil.which("perf"):
        v["perf"] = first_line(["perf", "--version"])
    return v


def source_state():
    """The commit cuttle was built from, and the files of src/ and include/
    that differed from it when the run started (a shared checkout)."""
    if not os.path.exists(os.path.join(SRCDIR, ".git")):  # a file in a git worktree
        return None
    head = run_quiet(["git", "-C", SRCDIR, "rev-parse", "--short", "HEAD"]).stdout.strip()
    status = run_quiet(["git", "-C", SRCDIR, "status", "--porcelain", "--", "src", "include"]).stdout
    return {"commit": head, "modified": [line[3:] for line in status.splitlines() if line[:2].strip()]}


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


# ---------------------------------------------------------------- the sections


class Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.rounds = 1 if args.quick else args.rounds
        self.big = 256 * MiB if args.quick else 2 * GiB
        self.sweep_size = 256 * MiB if args.quick else 512 * MiB
        self.trace_size = 256 * MiB if args.quick else args.strace_size
        self.wrk_duration = 2 if args.quick else args.wrk_duration
        self.conns = 2000 if args.quick else args.conns
        # the big object of the TLS and disk sections (issues 17 and 18)
        self.gib_size = 256 * MiB if args.quick else 1 * GiB
        self.gib_name = "body-%s" % short_size(self.gib_size)
        self.cache_objects = args.cache_objects or (20000 if args.quick else 200000)
        self.sections = [s for s in args.sections.split(",") if s]
        self.notes = []
        self.not_measured = {}
        self.data = {
            "rounds": self.rounds,
            "quick": self.quick,
            "sizes": {"download": self.big, "sweep": self.sweep_size, "strace": self.trace_size},
            "sweep_axes": {"buffers": SWEEP_BUFFERS, "auto": SWEEP_AUTO, "gaps": SWEEP_GAPS},
            "wrk_duration": self.wrk_duration,
        }
        self.tmp = tempfile.mkdtemp(prefix="cuttle-bench.")
        # Squid and Traffic Server drop privileges and must reach their dirs in here
        os.chmod(self.tmp, 0o755)
        self.shm = None
        self.origin = None

    # -- setup

    def make_files(self):
        """The pattern files that the sections to run download: the big one
        (throughput), the sweep's (sweep, and cache's 512 MiB object)."""
        self.shm = tempfile.mkdtemp(prefix="cuttle-bench.", dir="/dev/shm")
        self.big_name = "body-%s" % short_size(self.big)
        self.sweep_name = "body-%s" % short_size(self.sweep_size)
        files = {}
        if "throughput" in self.sections or "load" in self.sections:
            files[self.big_name] = self.big
        if "sweep" in self.sections or "cache" in self.sections:
            files[self.sweep_name] = self.sweep_size
        if "tls" in self.sections or "disk" in self.sections:
            files[self.gib_name] = self.gib_size
        if "small" in self.sections:
            os.mkdir(os.path.join(self.shm, "small"))
            files.update({"small/" + name: size for name, size in SMALL_SIZES.items()})
        need = sum(files.values())
        st = os.statvfs(self.shm)
        if st.f_bavail * st.f_frsize < need + 256 * MiB:
            raise BenchError("/dev/shm has too little room for %d MiB of files" % (need // MiB))
        for name, size in files.items():
            log("origin: writing %s of the pattern to %s" % (short_size(size), self.shm))
            make_file(self.args.origin, os.path.join(self.shm, name), size)
        self.origin = Origin(self.args.origin, self.shm, self.tmp)
        self.origin.start()
        log("origin: listening on 127.0.0.1:%d" % self.origin.port)

    def target_dir(self, name):
        d = tempfile.mkdtemp(prefix=name + ".", dir=self.tmp)
        return d

    def workers_targets(self, extra=None):
        """cuttle with each of WORKER_COUNTS (and extra lines); unstarted."""
        return [
            Cuttle(self.target_dir("cuttle-w%d" % n), self.args.cuttle, extra=extra, key="cuttle-w%d" % n, label="cuttle, workers %d" % n, workers=n)
            for n in WORKER_COUNTS
        ]

    def main_targets(self):
        """direct, cuttle (default: workers 1), cuttle with WORKER_COUNTS,
        Squid 16 KB / 64 KB, Traffic Server; unstarted."""
        targets = [Direct(self.tmp), Cuttle(self.target_dir("cuttle"), self.args.cuttle)] + self.workers_targets()
        if self.args.squid_path:
            for gap in ("16 KB", "64 KB"):
                targets.append(Squid(self.target_dir("squid"), self.args.squid_path, gap))
        if self.args.ats_path:
            targets.append(TrafficServer(self.target_dir("ats"), self.args.ats_path, self.origin.port))
        return targets

    def start_targets(self, targets):
        started = []
        for t in targets:
            try:
                t.start()
                started.append(t)
                if t.is_proxy:
                    settle(t)
                    log("  %s on port %d (pid %d)" % (t.label, t.port, t.proc.pid))
            except (BenchError, OSError) as e:
                t.stop()
                self.not_measured[t.key] = "%s could not be started: %s" % (t.label, str(e).strip())
                log("  NOT MEASURED: " + self.not_measured[t.key])
        return started

    # -- 1 and 2

    def section_throughput(self):
        size = self.big
        url = self.origin.url("/files/" + self.big_name)
        log("1. throughput: %d rounds of %s downloads, targets alternated" % (self.rounds, short_size(size)))
        targets = self.start_targets(self.main_targets())
        self.data["targets"] = {t.key: t.label for t in targets}
        results = {t.key: [] for t in targets}
        errors = {}
        try:
            for r in range(self.rounds):
                for t in targets:
                    if t.key in errors:
                        continue
                    try:
                        res = download(t, url, size)
                        results[t.key].append(res)
                        log(
                            "  round %d %-28s %7.0f MB/s  %s CPU-s/GB  peak RSS %s MB"
                            % (r + 1, t.label, res["mbps"], fmt(res.get("cpu_s_per_gb"), 2), fmt((res.get("peak_rss") or 0) / MB, 1))
                        )
                    except BenchError as e:
                        errors[t.key] = str(e)
                        log("  %s: %s" % (t.label, e))
            summary = {}
            for t in targets:
                rs = results[t.key]
                summary[t.key] = {
                    "label": t.label,
                    "rounds": rs,
                    "mbps": med([x["mbps"] for x in rs]),
                    "mbps_min": min((x["mbps"] for x in rs), default=None),
                    "mbps_max": max((x["mbps"] for x in rs), default=None),
                    "cpu_s_per_gb": med([x.get("cpu_s_per_gb") for x in rs]),
                    "peak_rss": med([x.get("peak_rss") for x in rs]),
                }
                if t.key in errors:
                    summary[t.key]["error"] = errors[t.key]
                    if not rs:
                        self.not_measured[t.key + "/throughput"] = errors[t.key]
            self.data["throughput"] = summary
            # one download is one connection, served by one worker: the
            # syscalls of workers 1 are those of any count
            self.section_syscalls([t for t in targets if t.is_proxy and t.alive() and t.key not in errors and t.workers == 1])
        finally:
            for t in targets:
                t.stop()

    def section_syscalls(self, proxies):
        size = self.trace_size
        url = self.origin.url("/files/%s" % self.big_name) if size == self.big else self.origin.url("/x?s=%s" % short_size(size).lower())
        counted, traced = {}, {}
        if self.has_perf:
            log("2a. syscalls: perf stat during one %s download per proxy" % short_size(self.big))
            for t in proxies:
                try:
                    counted[t.key] = perf_count(t, self.origin.url("/files/" + self.big_name), self.big, self.tmp)
                    log("  %-28s %s syscalls/GB" % (t.label, fmt(counted[t.key]["total_per_gb"])))
                except (BenchError, OSError) as e:
                    counted[t.key] = {"error": str(e)}
                    log("  %s: %s" % (t.label, e))
        if shutil.which("strace"):
            log("2b. syscalls: strace -f -C during one %s download per proxy (not timed)" % short_size(size))
            for t in proxies:
                try:
                    traced[t.key] = strace_pass(t, url, size, self.tmp)
                    sz = traced[t.key]["sizes"]
                    log(
                        "  %-28s %s syscalls/GB under strace (%.0f s); median read %s B, write %s B"
                        % (
                            t.label,
                            fmt(traced[t.key]["total_per_gb"]),
                            traced[t.key]["seconds_traced"],
                            fmt(sz.get("read", {}).get("median")),
                            fmt(sz.get("write", {}).get("median")),
                        )
                    )
                except (BenchError, OSError) as e:
                    traced[t.key] = {"error": str(e)}
                    log("  %s: %s" % (t.label, e))
        else:
            self.not_measured["strace"] = "strace is not installed"
        self.data["syscalls_perf"] = counted
        self.data["syscalls_strace"] = traced

    # -- 3

    def sweep_points(self):
        points = []
        for buf in SWEEP_BUFFERS + SWEEP_AUTO:
            for gap in SWEEP_GAPS:
                points.append((buf, gap))
        return points

    def section_sweep(self):
        size = self.sweep_size
        url = self.origin.url("/files/" + self.sweep_name)
        points = self.sweep_points()
        log("3. sweep: %d cuttle configurations x %d rounds of %s downloads" % (len(points), self.rounds, short_size(size)))
        results = {p: [] for p in points}
        counts = {}
        errors = {}
        for r in range(self.rounds):
            for p in points:
                if p in errors:
                    continue
                t = Cuttle(self.target_dir("sweep"), self.args.cuttle, buffer=p[0], gap=p[1], key="sweep")
                try:
                    t.start()
                    res = download(t, url, size)
                    results[p].append(res)
                    line = "  round %d buffer %-24s gap %-6s %6.0f MB/s %6.2f CPU-s/GB" % (r + 1, p[0], p[1], res["mbps"], res["cpu_s_per_gb"])
                    if r == 0:
                        try:
                            if self.has_perf:
                                counts[p] = perf_count(t, url, size, self.tmp)["total_per_gb"]
                            elif shutil.which("strace"):
                                small = min(size, 256 * MiB)
                                counts[p] = strace_count(t, self.origin.url("/x?s=%s" % short_size(small).lower()), small, self.tmp)
                            line += " %9s syscalls/GB" % fmt(counts.get(p))
                        except (BenchError, OSError) as e:
                            log("  syscall count of %s / %s: %s" % (p[0], p[1], e))
                    log(line)
                except (BenchError, OSError) as e:
                    errors[p] = str(e)
                    log("  buffer %s gap %s: %s" % (p[0], p[1], e))
                finally:
                    t.stop()
                    shutil.rmtree(t.tmp, ignore_errors=True)
        sweep = []
        for p in points:
            rs = results[p]
            sweep.append(
                {
                    "request_buffer_size": p[0],
                    "read_ahead_gap": p[1],
                    "rounds": rs,
                    "mbps": med([x["mbps"] for x in rs]),
                    "cpu_s_per_gb": med([x["cpu_s_per_gb"] for x in rs]),
                    "peak_rss": med([x["peak_rss"] for x in rs]),
                    "syscalls_per_gb": counts.get(p),
                    "error": errors.get(p),
                }
            )
        self.data["sweep"] = sweep
        self.data["sweep_syscall_counter"] = "perf stat" if self.has_perf else "strace -c on 256 MiB, scaled"

    # -- 4

    def small_nginx(self):
        """nginx serving SMALL_SIZES's files as /small/NAME with `Cache-Control:
        no-store` (the small section's second origin), started; None, with
        the reason in not_measured, when it cannot run."""
        if not shutil.which("nginx"):
            self.not_measured["small/nginx"] = "nginx is not installed"
            return None
        root = self.shm

        def servers(port):
            return ["server {", "  listen 127.0.0.1:%d;" % port, "  root %s;" % root, "  location /small/ { add_header Cache-Control no-store; }", "}"]

        nginx = Nginx(self.target_dir("nginx-small"), servers, key="nginx", label="nginx (origin)", is_proxy=False)
        try:
            nginx.start()
        except (BenchError, OSError) as e:
            nginx.stop()
            self.not_measured["small/nginx"] = "nginx could not be started: %s" % str(e).strip()
            return None
        log("  nginx (origin) on port %d (pid %d)" % (nginx.port, nginx.proc.pid))
        return nginx

    def section_small(self):
        if not shutil.which("wrk"):
            self.not_measured["small"] = "wrk is not installed"
            return
        log("4. small objects: wrk -t 1 -c 50 -d %ds, %d rounds, origins and targets alternated" % (self.wrk_duration, self.rounds))
        # (key, origin, path of a size): cuttle-origin's scripted object and nginx's static file
        origins = [("cuttle-origin", self.origin, "/small?s=%s&cc=no-store")]
        nginx = self.small_nginx()
        if nginx:
            origins.append(("nginx", nginx, "/small/%s"))
        self.data["small_origins"] = {"cuttle-origin": "cuttle-origin (a thread per connection)"}
        if nginx:
            self.data["small_origins"]["nginx"] = "%s (`worker_processes auto`, static files)" % self.data["versions"].get("nginx", "nginx")
        targets = self.main_targets()
        if self.args.cuttle_pgo:
            # the same source built with --enable-pgo (make bench's bench-pgo/): its gain
            targets.insert(2, Cuttle(self.target_dir("cuttle-pgo"), self.args.cuttle_pgo, key="cuttle-pgo", label="cuttle, --enable-pgo build"))
        # cuttle's sweep points: against cuttle-origin only
        sweep_keys = []
        for buf, gap in WRK_SWEEP_POINTS:
            label = "cuttle, buffer %s, gap %s" % (buf, gap)
            key = "cuttle-%s-%s" % (short_size(size_bytes(buf)).lower(), short_size(size_bytes(gap)).lower())
            sweep_keys.append(key)
            targets.insert(2, Cuttle(self.target_dir("cuttle"), self.args.cuttle, buffer=buf, gap=gap, key=key, label=label))
        targets = self.start_targets(targets)
        results = {}
        try:
            for r in range(self.rounds):
                for origin_key, origin, path in origins:
                    for size_text in SMALL_SIZES:
                        for t in targets:
                            if origin_key != "cuttle-origin" and t.key in sweep_keys:
                                continue
                            key = (origin_key, t.key, size_text)
                            try:
                                res = wrk_path(t, origin, path % size_text, self.wrk_duration, self.tmp, "%s-%s" % (origin_key, size_text))
                                results.setdefault(key, []).append(res)
                                log(
                                    "  round %d %-13s %-3s %-34s %9.0f req/s %s CPU-s/10k, origin %s%s%s"
                                    % (
                                        r + 1,
                                        origin_key,
                                        size_text,
                                        t.label,
                                        res["rps"],
                                        fmt(res.get("cpu_s_per_10k"), 3),
                                        fmt(res.get("origin_cpu_s_per_10k"), 3),
                                        loops_note(res),
                                        "  (%d non-2xx, errors: %s)" % (res["non_2xx"], res["socket_errors"]) if res["non_2xx"] or res["socket_errors"] else "",
                                    )
                                )
                            except BenchError as e:
                                results.setdefault(key, [])
                                log("  %s %s %s: %s" % (origin_key, t.label, size_text, e))
        finally:
            for t in targets:
                t.stop()
            if nginx:
                nginx.stop()
        small = []
        for origin_key, _, _ in origins:
            for t in targets:
                for size_text in SMALL_SIZES:
                    if (origin_key, t.key, size_text) not in results:
                        continue
                    rs = results[(origin_key, t.key, size_text)]

                    def switches(field, i):
                        return med([x[field][i] for x in rs if field in x])

                    small.append(
                        {
                            "origin": origin_key,
                            "target": t.key,
                            "label": t.label,
                            "size": size_text,
                            "rounds": rs,
                            "rps": med([x["rps"] for x in rs]),
                            "cpu_s_per_10k": med([x.get("cpu_s_per_10k") for x in rs]),
                            "origin_cpu_s_per_10k": med([x.get("origin_cpu_s_per_10k") for x in rs]),
                            # voluntary and involuntary, per request
                            "switches_per_request": [switches("switches_per_request", i) for i in (0, 1)],
                            "origin_switches_per_request": [switches("origin_switches_per_request", i) for i in (0, 1)],
                            "non_2xx": sum(x["non_2xx"] for x in rs),
                            "socket_errors": "; ".join(x["socket_errors"] for x in rs if x["socket_errors"]),
                            "workers": t.workers,
                            # each round's: client connections per event loop, the busiest threads' CPU-s
                            "loop_connections": [x.get("loop_connections") for x in rs],
                            "busiest_threads_cpu_s": [x.get("busiest_threads_cpu_s") for x in rs],
                        }
                    )
        self.data["small"] = small
        self.ioloop()

    def ioloop(self):
        """epoll against io_uring without the rest of a proxy (ioloop.py,
        doc/tuning.md "io_uring"): the same wrk, after the proxies."""
        log("4. the event loop alone: ioloop.cc's epoll and io_uring loops, 4 KiB replies, alternated")
        try:
            self.data["ioloop"] = iol.measure(self.rounds, self.wrk_duration, 4096, log=lambda line: log("  " + line))
        except RuntimeError as e:
            self.not_measured["small/ioloop"] = str(e)
            log("  NOT MEASURED: %s" % e)

    # -- 5

    def section_connections(self):
        n = self.conns
        log("5. memory per connection: idle-conns.py's rounds, %d connections, %d rounds" % (n, self.rounds))
        want = n + 256
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < want:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
            except (ValueError, OSError):
                if hard < want:
                    self.not_measured["connections"] = "RLIMIT_NOFILE hard limit %d is below %d" % (hard, want)
                    return
                resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        fds = 2 * n + 1024
        makers = [("cuttle", "cuttle", lambda t: ic.Cuttle(self.args.cuttle, t, fds))]
        if self.args.squid_path:
            makers.append(("squid", "Squid (read_ahead_gap 16 KB)", lambda t: ic.Squid(self.args.squid_path, t, fds)))
        if self.args.ats_path:
            makers.append(("ats", "Traffic Server (net.defer_accept 0)", lambda t: AtsIdle(self.args.ats_path, t, fds)))
        conns = {}
        for key, label, make in makers:
            log("  %s" % label)
            try:
                rs = run_idle_rounds(make, self.rounds, n, self.args.settle, self.tmp)
                conns[key] = {"label": label, "rounds": rs}
                for field in ("idle_rss", "half_rss", "kept_rss", "keepalive_rss", "idle_private", "half_private"):
                    vals = [x.get(field) for x in rs]
                    conns[key][field] = med(vals)
            except (ic.BenchError, BenchError, OSError) as e:
                conns[key] = {"label": label, "error": str(e)}
                self.not_measured["connections/" + key] = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
                log("  %s: NOT MEASURED: %s" % (label, e))
        self.data["connections"] = {"conns": n, "results": conns}

    # -- 6

    def cache_targets(self, locked=False, workers=False):
        """cuttle, Squid and Traffic Server with their memory caches on
        (targets.py: CACHE_MEM, objects up to MAX_IN_MEMORY); with locked,
        cuttle with shared_memory_locking on too (key cuttle-locked); with
        workers, cuttle with each of WORKER_COUNTS too; unstarted."""
        targets = [
            Cuttle(self.target_dir("cuttle"), self.args.cuttle, extra=CUTTLE_CACHE_LINES, label="cuttle"),
            Cuttle(self.target_dir("cuttle-rules"), self.args.cuttle, extra=CUTTLE_CACHE_LINES, rules=rules_50(), key="cuttle-rules", label="cuttle, 50 http_access rules"),
        ]
        if workers:
            targets += self.workers_targets(CUTTLE_CACHE_LINES)
        if locked:
            targets.append(
                Cuttle(self.target_dir("cuttle-locked"), self.args.cuttle, extra=CUTTLE_LOCKED_LINES, key="cuttle-locked", label="cuttle, shared_memory_locking on")
            )
        if self.args.squid_path:
            targets.append(Squid(self.target_dir("squid"), self.args.squid_path, cache=True, label="Squid"))
        if self.args.ats_path:
            targets.append(TrafficServer(self.target_dir("ats"), self.args.ats_path, self.origin.port, cache=True, label="Traffic Server"))
        return targets

    def section_cache(self):
        cache = {
            "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "rounds": self.rounds,
            "quick": self.quick,
            "wrk_duration": self.wrk_duration,
            "big": self.sweep_size,
            "objects": self.cache_objects,
            "cache_mem": CACHE_MEM,
            "max_in_memory": MAX_IN_MEMORY,
            "ats_storage": ATS_STORAGE,
            "cuttle_lines": CUTTLE_CACHE_LINES,
            "cuttle_locked_lines": CUTTLE_LOCKED_LINES,
        }
        self.data["cache"] = cache
        for part, fn in (("hits", self.cache_hits), ("big", self.cache_big), ("objects", self.cache_memory)):
            try:
                fn(cache)
            except (BenchError, co.HttpError, OSError) as e:
                self.not_measured["cache/" + part] = str(e)
                log("  cache/%s: NOT MEASURED: %s" % (part, e))
            finally:
                stop_everything_but(self.origin)

    def cache_hits(self, cache):
        if not shutil.which("wrk"):
            self.not_measured["cache/hits"] = "wrk is not installed"
            return
        log("6a. memory hits: wrk -t 1 -c 50 -d %ds for %s objects, %d rounds, targets alternated" % (self.wrk_duration, " and ".join(HIT_SIZES), self.rounds))
        targets = self.start_targets(self.cache_targets(workers=True))
        cache["targets"] = {t.key: t.label for t in targets}
        nonce = int(time.time() * 1000) % 100000000
        paths, problems, results = {}, {}, {}
        orig = co.Client(self.origin.port)
        try:
            # a scripted URL per target and size: the origin's log of it tells a hit from a miss
            for t in targets:
                for size_text in HIT_SIZES:
                    sid = "hit-%s-%s-%d" % (t.key, size_text, nonce)
                    co.put_script(self.origin.port, sid, "s=%s&%s" % (size_text, CACHEABLE))
                    paths[(t.key, size_text)] = sid
                    problem = self.warm_up(t, orig, sid, size_bytes(size_text[:-1] + " KB"))
                    if problem:
                        problems[(t.key, size_text)] = problem
                        log("  %s %s: %s" % (t.label, size_text, problem))
            for r in range(self.rounds):
                for size_text in HIT_SIZES:
                    for t in targets:
                        key = (t.key, size_text)
                        sid = paths[key]
                        try:
                            before = co.seen_count(orig, self.origin.port, sid)
                            res = wrk_path(t, self.origin, "/s/" + sid, self.wrk_duration, self.tmp, "hit" + size_text)
                            res["origin_requests"] = co.seen_count(orig, self.origin.port, sid) - before
                            results.setdefault(key, []).append(res)
                            log(
                                "  round %d %-3s %-16s %9.0f req/s %s CPU-s/10k, %d requests to the origin%s%s"
                                % (
                                    r + 1,
                                    size_text,
                                    t.label,
                                    res["rps"],
                                    fmt(res.get("cpu_s_per_10k"), 3),
                                    res["origin_requests"],
                                    loops_note(res),
                                    "  (%d non-2xx, errors: %s)" % (res["non_2xx"], res["socket_errors"]) if res["non_2xx"] or res["socket_errors"] else "",
                                )
                            )
                        except (BenchError, co.HttpError, OSError) as e:
                            results.setdefault(key, [])
                            problems[key] = str(e)
                            log("  %s %s: %s" % (t.label, size_text, e))
        finally:
            orig.close()
            for t in targets:
                t.stop()
        hits = []
        for t in targets:
            for size_text in HIT_SIZES:
                rs = results.get((t.key, size_text), [])
                hits.append(
                    {
                        "target": t.key,
                        "label": t.label,
                        "size": size_text,
                        "rounds": rs,
                        "rps": med([x["rps"] for x in rs]),
                        "rps_min": min((x["rps"] for x in rs), default=None),
                        "rps_max": max((x["rps"] for x in rs), default=None),
                        "cpu_s_per_10k": med([x.get("cpu_s_per_10k") for x in rs]),
                        "requests": sum(x["requests"] for x in rs),
                        "origin_requests": sum(x["origin_requests"] for x in rs),
                        "non_2xx": sum(x["non_2xx"] for x in rs),
                        "socket_errors": "; ".join(x["socket_errors"] for x in rs if x["socket_errors"]),
                        "problem": problems.get((t.key, size_text), ""),
                        "workers": t.workers,
                        "loop_connections": [x.get("loop_connections") for x in rs],
                        "busiest_threads_cpu_s": [x.get("busiest_threads_cpu_s") for x in rs],
                    }
                )
        cache["hits"] = hits

    def warm_up(self, t, orig, sid, size):
        """Puts the origin's /s/SID in t's memory cache: a request on a
        fresh connection each (SO_REUSEPORT hands each to a worker, and
        cuttle's workers share one memory cache) until WARM_QUIET in a row
        reached no new origin request (at most WARM_LIMIT); the origin must
        then have been asked once. What went wrong, or ""."""
        quiet, sent, seen = 0, 0, 0
        while quiet < WARM_QUIET and sent < WARM_LIMIT:
            proxy = co.Client(t.port)
            try:
                reply, body = proxy.send(co.request_bytes(self.origin.port, "/s/" + sid, True))
            finally:
                proxy.close()
            sent += 1
            if reply.status != 200 or len(body) != size:
                return "warm-up: status %d, %d bytes" % (reply.status, len(body))
            now = co.seen_count(orig, self.origin.port, sid)
            quiet = 0 if now != seen else quiet + 1
            seen = now
        if seen != 1:
            return "warm-up: the origin asked %d times for %d requests on fresh connections (%d workers)" % (
                seen,
                sent,
                t.workers,
            )
        return ""

    def cache_big(self, cache):
        size = self.sweep_size
        log(
            "6b. a %s object: a miss that stores, then two hits (and cuttle's uncached rate before and after the miss), %d rounds, targets alternated, each started afresh"
            % (short_size(size), self.rounds)
        )
        nonce = int(time.time() * 1000) % 100000000
        results, problems, labels = {}, {}, {}
        for r in range(self.rounds):
            for t in self.cache_targets(locked=True):
                labels[t.key] = t.label
                if t.key in problems:
                    continue
                try:
                    t.start()
                    # every target idle first: cuttle populates memory ahead
                    # right after start, Traffic Server opens its cache
                    settle(t)
                    fetches = [("miss", CACHEABLE), ("hit", CACHEABLE), ("hit2", CACHEABLE)]
                    if t.key.startswith("cuttle"):
                        # the miss bracketed by uncached fetches: the round's
                        # miss / uncached compares fetches seconds apart
                        fetches[1:1] = [("uncached2", "cc=no-store")]
                        fetches.insert(0, ("uncached", "cc=no-store"))
                    line = []
                    for kind, cc in fetches:
                        url = self.origin.url("/files/%s?%s&v=%s-%d-%d" % (self.sweep_name, cc, t.key, r, nonce))
                        res = download(t, url, size, headers=os.path.join(t.tmp, "headers.txt"))
                        fields = res.pop("fields")
                        res["verdict"], res["said"] = co.cache_verdict(fields), co.cache_said(fields)
                        results.setdefault((t.key, kind), []).append(res)
                        line.append("%s %.0f MB/s%s" % (kind, res["mbps"], "" if res["verdict"] == ("hit" if kind.startswith("hit") else "miss") else " (the reply says: %s, %s)" % (res["verdict"], res["said"])))
                    log("  round %d %-16s %s; peak RSS %s MB" % (r + 1, t.label, ", ".join(line), fmt(results[(t.key, "hit2")][-1]["peak_rss"] / MB, 0)))
                except (BenchError, OSError) as e:
                    problems[t.key] = str(e)
                    log("  %s: %s" % (t.label, e))
                finally:
                    t.stop()
                    shutil.rmtree(t.tmp, ignore_errors=True)
        big = []
        for key, label in labels.items():
            for kind in ("uncached", "miss", "uncached2", "hit", "hit2"):
                rs = results.get((key, kind))
                if rs is None and not (kind.startswith("uncached") and not key.startswith("cuttle")):
                    rs = []
                if rs is None:
                    continue
                big.append(
                    {
                        "target": key,
                        "label": label,
                        "kind": kind,
                        "rounds": rs,
                        "mbps": med([x["mbps"] for x in rs]),
                        "mbps_min": min((x["mbps"] for x in rs), default=None),
                        "mbps_max": max((x["mbps"] for x in rs), default=None),
                        "cpu_s_per_gb": med([x.get("cpu_s_per_gb") for x in rs]),
                        "faults_per_gb": med([x.get("faults_per_gb") for x in rs]),
                        "peak_rss": med([x.get("peak_rss") for x in rs]),
                        "verdicts": {v: sum(1 for x in rs if x["verdict"] == v) for v in sorted(set(x["verdict"] for x in rs))},
                        "problem": problems.get(key, ""),
                    }
                )
        # the memory hit: every fetch after the miss that the reply says came
        # from memory (Traffic Server serves the first from its disk cache)
        for key, label in labels.items():
            rs = [x for kind in ("hit", "hit2") for x in results.get((key, kind), []) if x["verdict"] == "hit"]
            big.append(
                {
                    "target": key,
                    "label": label,
                    "kind": "memory hit",
                    "rounds": rs,
                    "mbps": med([x["mbps"] for x in rs]),
                    "mbps_min": min((x["mbps"] for x in rs), default=None),
                    "mbps_max": max((x["mbps"] for x in rs), default=None),
                    "cpu_s_per_gb": med([x.get("cpu_s_per_gb") for x in rs]),
                    "faults_per_gb": med([x.get("faults_per_gb") for x in rs]),
                    "peak_rss": med([x.get("peak_rss") for x in rs]),
                    "verdicts": {"hit": len(rs)},
                    "problem": problems.get(key, ""),
                }
            )
        cache["big_results"] = big

    def cache_memory(self, cache):
        n = self.cache_objects
        log("6c. memory per cached object: %d distinct 1 KB objects through each proxy (cache-objects.py)" % n)
        results = {}
        for t in self.cache_targets():
            log("  %s" % t.label)
            try:
                t.start()
                results[t.key] = dict(co.measure(t, self.origin.port, n, log=log), label=t.label)
            except (BenchError, co.HttpError, OSError) as e:
                results[t.key] = {"label": t.label, "error": str(e).strip()}
                log("  %s: %s" % (t.label, e))
            finally:
                t.stop()
                shutil.rmtree(t.tmp, ignore_errors=True)
        cache["objects_results"] = results

    # -- the whole run

    # -- 7

    def section_load(self):
        if not shutil.which("wrk"):
            self.not_measured["load"] = "wrk is not installed"
            return
        self.data["load"] = load.run(self, self.big_name, self.big)

    # -- 8 and 9

    def section_tls(self):
        self.data["tls"] = tls.run(self)

    def section_disk(self):
        self.data["disk"] = disk.run(self)

    def run(self):
        self.data["started"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        self.data["machine"] = machine_info()
        self.data["loadavg_start"] = loadavg()
        self.has_perf = perf_available()
        if not self.has_perf:
            self.notes.append("perf stat cannot count syscall tracepoints here: syscall counts come from strace -c only")
        self.data["versions"] = versions(self.args)
        self.data["source"] = source_state()
        sections = self.sections
        try:
            self.make_files()
            for name, fn in (
                ("throughput", self.section_throughput),
                ("sweep", self.section_sweep),
                ("small", self.section_small),
                ("connections", self.section_connections),
                ("cache", self.section_cache),
                ("load", self.section_load),
                ("tls", self.section_tls),
                ("disk", self.section_disk),
            ):
                if name not in sections:
                    continue
                t0 = time.monotonic()
                self.data.setdefault("loadavg_sections", {})[name] = loadavg()
                try:
                    fn()
                except BenchError as e:
                    self.not_measured[name] = str(e)
                    log("%s: NOT MEASURED: %s" % (name, e))
                self.data.setdefault("section_seconds", {})[name] = round(time.monotonic() - t0, 1)
                self.data.setdefault("section_info", {})[name] = {
                    "started": self.data["started"],
                    "rounds": self.rounds,
                    "quick": self.quick,
                    "source": self.data["source"],
                    "cuttle_built": self.data["versions"].get("cuttle built"),
                    "loadavg": self.data["loadavg_sections"][name],
                }
        finally:
            if self.origin:
                self.origin.stop()
            stop_everything()
            if self.shm:
                shutil.rmtree(self.shm, ignore_errors=True)
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.data["seconds"] = round(time.monotonic() - START, 1)
            self.data["loadavg_end"] = loadavg()
            self.data["not_measured"] = self.not_measured
            self.data["notes"] = self.notes


def stop_everything_but(keep):
    """Stops every process of ours but keep's (the origin), after a part
    that may have left some running on a failure."""
    for proc in list(STARTED):
        if keep is None or proc is not keep.proc:
            stop_process(proc, signal.SIGKILL, grace=5)


def merge(old, new, sections):
    """The data of a partial run (--sections) merged into the last full one:
    the sections run replace theirs, the others stay as they were, and
    section_info says which run each section comes from."""
    merged = dict(old)
    for name in sections:
        for key in SECTION_KEYS[name]:
            merged.pop(key, None)
            if key in new:
                merged[key] = new[key]
        if name == "throughput":
            merged.setdefault("sizes", {}).update({k: new["sizes"][k] for k in ("download", "strace")})
        if name == "sweep":
            merged.setdefault("sizes", {})["sweep"] = new["sizes"]["sweep"]
        for field in ("section_info", "section_seconds", "loadavg_sections"):
            merged.setdefault(field, {})
            if name in new.get(field, {}):
                merged[field][name] = new[field][name]
    # the sections of the old run without a section_info of their own came from that run
    for name in SECTIONS:
        if name not in sections and name in merged.get("loadavg_sections", {}) and name not in merged["section_info"]:
            merged["section_info"][name] = {"started": old.get("started"), "rounds": old.get("rounds"), "quick": old.get("quick"), "source": old.get("source")}

    def mine(key):
        parts = key.split("/")
        return any(p in sections for p in parts)

    merged["not_measured"] = {k: v for k, v in old.get("not_measured", {}).items() if not mine(k)}
    merged["not_measured"].update(new.get("not_measured", {}))
    merged["notes"] = list(dict.fromkeys(old.get("notes", []) + new.get("notes", [])))
    merged.setdefault("partial_runs", [])
    merged["partial_runs"] = [p for p in merged["partial_runs"] if not set(p["sections"]) <= set(sections)]
    merged["partial_runs"].append({"sections": sections, "started": new["started"], "seconds": new["seconds"], "argv": new.get("argv"), "versions": new.get("versions")})
    return merged


def strace_count(target, url, size, tmp):
    """Total syscalls per GB from `strace -c -f` (when perf cannot count)."""
    pids = target.pids()
    out = os.path.join(tmp, "strace-c.%s.txt" % target.key)
    cmd = ["strace", "-f", "-c", "-o", out]
    tids = threads_of(pids)
    for tid in tids:
        cmd += ["-p", str(tid)]
    tracer = spawn(cmd, out + ".out")
    try:
        wait_for("strace to attach", lambda: tracer.poll() is not None or attached(tids, tracer.pid), 20)
        r = run_quiet(curl_cmd(target, url), timeout=1800)
        parse_curl(r.stdout, size)
    finally:
        stop_process(tracer, signal.SIGINT, grace=60)
    with open(out) as f:
        for line in f:
            parts = line.split()
            if parts and parts[-1] == "total":
                return int(parts[3]) * GB / size
    raise BenchError("strace -c printed no total")


def run_idle_rounds(make_proxy, rounds, n, settle, tmpdir):
    """idle-conns.py's run_rounds, with its temp dirs under ours."""
    results = []
    for r in range(rounds):
        tmp = tempfile.mkdtemp(prefix="idle.", dir=tmpdir)
        proxy = make_proxy(tmp)
        try:
            proxy.start()
            figures = ic.one_round(proxy, n, settle)
            proxy.stop()
            shutil.rmtree(tmp, ignore_errors=True)
            os.mkdir(tmp)
            proxy = make_proxy(tmp)
            proxy.start()
            try:
                figures.update(ic.keepalive_round(proxy, n, settle))
            except (ic.BenchError, OSError) as e:
                figures["keepalive_error"] = str(e)
            results.append(figures)
            log(
                "    round %d: idle %.0f B, half a request line %.0f B, idle after a request %s B per connection"
                % (r + 1, figures["idle_rss"], figures["half_rss"], fmt(figures.get("keepalive_rss")) if "keepalive_rss" in figures else "n/m (%s)" % figures.get("keepalive_error"))
            )
        finally:
            proxy.stop()
            shutil.rmtree(tmp, ignore_errors=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuttle", required=True, help="the cuttle binary")
    parser.add_argument("--origin", required=True, help="the cuttle-origin binary")
    parser.add_argument("--cuttle-pgo", default=None, help="a cuttle built with --enable-pgo: section 4 measures it beside --cuttle")
    parser.add_argument("--out", required=True, help="where benchmarks.md, benchmarks.json and the plots go (doc/)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each measurement; medians are reported (default 3)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 round, 256 MiB transfers, 2 s wrk, 2000 connections")
    parser.add_argument("--squid", default=None, help="the squid binary (default: Debian's)")
    parser.add_argument("--traffic-server", default=None, help="the traffic_server binary (default: Debian's)")
    parser.add_argument("--no-install", action="store_true", help="do not install missing tools from Debian")
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help="comma-separated sections to run (default all: %s); a partial run is merged into OUT/benchmarks.json" % ",".join(SECTIONS),
    )
    parser.add_argument("--cache-objects", type=int, default=None, help="distinct 1 KB objects of the cache section's memory test (default 200000; 20000 with --quick)")
    parser.add_argument("--strace-size", type=int, default=1 * GiB, help="bytes of the strace pass (default 1 GiB)")
    parser.add_argument("--wrk-duration", type=int, default=10, help="seconds of each wrk run (default 10)")
    parser.add_argument("--conns", type=int, default=10000, help="connections of the memory test (default 10000)")
    parser.add_argument("--settle", type=float, default=60, help="bound of each wait of the memory test, in seconds")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 15:
        parser.error("--rounds must be within 1..15")
    unknown = [s for s in args.sections.split(",") if s and s not in SECTIONS]
    if unknown or not args.sections.strip(","):
        parser.error("--sections: unknown %s (known: %s)" % (", ".join(unknown) or "(none given)", ",".join(SECTIONS)))
    if args.cache_objects is not None and not 1 <= args.cache_objects <= 2000000:
        parser.error("--cache-objects must be within 1..2000000")

    def interrupted(signum, frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)

    for name in ("cuttle", "origin"):
        path = os.path.abspath(getattr(args, name))
        if not os.access(path, os.X_OK):
            sys.exit("bench: no %s binary at %s" % (name, path))
        setattr(args, name, path)
    os.makedirs(args.out, exist_ok=True)

    notes = []
    if not args.no_install:
        try:
            ensure_packages(notes)
            extra = {}
            for name in args.sections.split(","):
                extra.update(SECTION_PACKAGES.get(name, {}))
            if extra:
                ensure_packages(notes, extra)
        except (OSError, subprocess.SubprocessError) as e:
            notes.append("installing tools failed: %s" % e)
    else:
        stop_packaged_services()
    if not shutil.which("curl"):
        sys.exit("bench: curl is needed")
    args.squid_path = args.squid or shutil.which("squid") or ("/usr/sbin/squid" if os.path.exists("/usr/sbin/squid") else None)
    args.ats_path = args.traffic_server or shutil.which("traffic_server")

    bench = Bench(args)
    bench.notes.extend(notes)
    if not args.squid_path:
        bench.not_measured["squid"] = "squid is not installed"
    if not args.ats_path:
        bench.not_measured["ats"] = "traffic_server is not installed"
    log("bench: %d round(s)%s; temp dir %s" % (bench.rounds, ", quick mode" if args.quick else "", bench.tmp))
    try:
        bench.run()
    except KeyboardInterrupt:
        stop_everything()
        sys.exit("bench: interrupted")
    except BenchError as e:
        bench.not_measured["run"] = str(e)
        log("bench: %s" % e)
    finally:
        stop_everything()

    data = bench.data
    data["argv"] = [os.path.relpath(a, SRCDIR) if os.path.isabs(a) and a.startswith(SRCDIR + os.sep) else a for a in sys.argv]
    for info in data.get("section_info", {}).values():
        info["argv"] = data["argv"]
    json_path = os.path.join(args.out, "benchmarks.json")
    if set(bench.sections) != set(SECTIONS) and os.path.exists(json_path):
        # a partial run: the other sections stay as the last run left them
        try:
            with open(json_path) as f:
                old = json.load(f)
            data = merge(old, data, bench.sections)
            log("bench: merged the sections %s into %s" % (",".join(bench.sections), json_path))
        except (OSError, ValueError, KeyError) as e:
            log("bench: could not merge into %s (%s): writing this run's sections only" % (json_path, e))
    pngs = report.plots(data, args.out, data.setdefault("notes", []))
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1, default=str)
    report.report(data, args.out, pngs)
    log("bench: wrote %s/benchmarks.md, benchmarks.json%s in %.1f minutes" % (args.out, "".join(", " + p for p in pngs), (time.monotonic() - START) / 60))


if __name__ == "__main__":
    main()
