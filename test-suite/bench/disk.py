# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The disk section of `make bench` (issue 18; bench.py imports this).

Every proxy with its memory cache off and an empty 5,000 MB disk cache in
the bench's temp dir (on disk, not tmpfs), against cuttle-origin:

  cuttle    cache_dir aufs (one disk store serves every type), memory_cache_mode
            disk and cache_mem 0 (doc/directives.md: the memory cache then
            keeps nothing), maximum_object_size 2 GB;
  Squid     5.7 with cache_dir rock (run --foreground, so that it has its
            disker process as deployed) and with cache_dir aufs (-N), the
            same memory lines;
  Traffic Server  a 5 GB storage file, ram_cache.size 0;
  nginx     a reverse proxy with proxy_cache (levels 1:2, use_temp_path off);
  direct    curl straight from the origin.

  big       a big object (1 GiB; 256 MiB with --quick): cuttle's uncached
            rate of it (cc=no-store, the storing miss's reference), its storing miss
            and its disk hit with the page cache warm, every proxy started
            afresh each round, targets alternated; in the last round once
            more cold (after `sync; echo 3 > /proc/sys/vm/drop_caches`,
            root only), and untimed, the syscalls of a miss and a hit of a
            second copy (perf stat). MB/s, CPU-s/GB, syscalls/GB.
  hits      2,000 distinct 64 KiB objects stored, then `wrk -t 1 -c 50`
            picking one at random per request: requests/s, latency
            percentiles (p99), CPU per request.
  restart   N (100,000; 10,000 with --quick) 1 KiB objects stored, the
            proxy's RSS before and after (bytes per stored object), a
            clean stop and a start: the time until the port answers and
            until a stored object is a hit, and how many of a sample are.

run() returns the figures for benchmarks.json; report_section() and
plot() write its part of doc/benchmarks.md.
"""

import os
import pwd
import re
import shutil
import socket
import statistics
import time

from reportlib import bar_plot, fmt, human_size, md_table, met, ratio, section_head
from targets import (
    PERF_KINDS,
    BenchError,
    Cuttle,
    Direct,
    Nginx,
    Squid,
    TrafficServer,
    cpu_seconds,
    download,
    kill_group,
    load_script,
    log,
    perf_count,
    port_answers,
    rss_bytes,
    run_quiet,
    settle,
    short_size,
    wait_for,
)

co = load_script("cache_objects", "cache-objects.py")


def store_entries(port):
    """The objects a proxy's cache_dirs hold, from the cache manager's
    storedir page ("Store Entries"; cuttle and Squid serve it), or None."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /squid-internal-mgr/storedir HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while True:
                got = s.recv(65536)
                if not got:
                    break
                data += got
    except OSError:
        return None
    m = re.search(rb"Store Entries\s*:\s*(\d+)", data)
    return int(m.group(1)) if m else None

CACHE_MB = 5000  # each proxy's disk cache
QUICK_CACHE_MB = 1000  # with --quick, for its smaller object
MAX_OBJECT = "2 GB"
CACHEABLE = "cc=max-age=86400"
HIT_OBJECTS = 2000
DISK_KINDS = PERF_KINDS + ["pread64", "pwrite64", "preadv", "pwritev", "fsync", "fdatasync", "rename", "unlink", "newfstatat"]
# the targets' names under the plot's bars
PLOT_NAMES = {"direct": "direct", "cuttle": "cuttle", "squid-rock": "Squid rock", "squid-aufs": "Squid aufs", "ats": "Traffic Server", "nginx": "nginx"}
FETCHES = {"uncached": "uncached (`cc=no-store`), just before the miss", "miss": "storing miss", "hit": "disk hit, page cache warm", "cold": "disk hit, page cache dropped", "direct": "direct"}


def own_dir(path, user):
    """path made, and given to user (Squid's proxy) when root."""
    os.makedirs(path, exist_ok=True)
    if os.geteuid() == 0:
        try:
            ent = pwd.getpwnam(user)
            os.chown(path, ent.pw_uid, ent.pw_gid)
        except KeyError:
            pass
    os.chmod(path, 0o777)


def cuttle_lines(cache_dir, cache_mb):
    """cuttle's lines beyond its default configuration: a disk cache, no memory cache."""
    return ["cache_dir aufs %s %d 16 256" % (cache_dir, cache_mb), "maximum_object_size " + MAX_OBJECT, "memory_cache_mode disk", "cache_mem 0 MB"]


class CuttleDisk(Cuttle):
    def __init__(self, tmp, binary, cache_mb):
        self.cache_dir = os.path.join(tmp, "cache")
        super().__init__(tmp, binary, key="cuttle", label="cuttle (cache_dir aufs)", extra=cuttle_lines(self.cache_dir, cache_mb))

    def start(self, port=None):
        if not os.path.isdir(self.cache_dir):
            # started as root, cuttle works as cache_effective_user (proxy), as Squid does
            os.chmod(self.tmp, 0o777)
            own_dir(self.cache_dir, "proxy")
            r = run_quiet([self.binary, "-z", "-f", self.write_config()], timeout=120)
            if r.returncode != 0:
                raise BenchError("cuttle -z: %s" % r.stdout.strip()[-300:])
        super().start()


class SquidDisk(Squid):
    """Squid 5.7 with one cache_dir of its type (rock or aufs), memory cache off."""

    def __init__(self, tmp, binary, kind, cache_mb):
        super().__init__(tmp, binary, cache=True, key="squid-" + kind, label="Squid (cache_dir %s)" % kind)
        self.kind = kind
        self.cache_mb = cache_mb
        self.name = "cbenchdisk%s%d" % (kind, os.getpid())
        self.cache_dir = os.path.join(tmp, "cache")

    def cache_lines(self):
        layout = "" if self.kind == "rock" else " 16 256"
        return ["cache allow all", "cache_mem 0 MB", "memory_cache_mode disk", "maximum_object_size " + MAX_OBJECT,
                "cache_dir %s %s %d%s" % (self.kind, self.cache_dir, self.cache_mb, layout)]

    def command(self):
        if self.kind == "rock":
            return [self.binary, "--foreground", "-f", self.conf, "-n", self.name]
        return super().command()

    def start(self, port=None):
        if not os.path.isdir(self.cache_dir):
            own_dir(self.cache_dir, "proxy")
            self.write_config(port)
            port = self.port
            r = run_quiet([self.binary, "-N", "-z", "-f", self.conf, "-n", self.name], timeout=300)
            if r.returncode != 0:
                raise BenchError("squid -z: %s" % r.stdout.strip()[-300:])
        super().start(port)


class NginxCache(Nginx):
    """nginx as a reverse proxy to the origin with proxy_cache, X-Cache
    from $upstream_cache_status."""

    def __init__(self, tmp, origin_port, cache_mb):
        self.cache_dir = os.path.join(tmp, "cache")
        os.makedirs(self.cache_dir, exist_ok=True)
        self.origin_port = origin_port
        self.cache_mb = cache_mb
        super().__init__(tmp, self.servers_of, key="nginx", label="nginx proxy_cache (reverse proxy)")

    def servers_of(self, port):
        return [
            "proxy_cache_path %s levels=1:2 keys_zone=bench:64m max_size=%dm inactive=7d use_temp_path=off;" % (self.cache_dir, self.cache_mb),
            "upstream origin { server 127.0.0.1:%d; keepalive 16; }" % self.origin_port,
            "server {",
            "  listen 127.0.0.1:%d;" % port,
            "  location / {",
            "    proxy_pass http://origin;",
            "    proxy_http_version 1.1;",
            "    proxy_set_header Connection \"\";",
            "    proxy_set_header Host 127.0.0.1:%d;" % self.origin_port,
            "    proxy_cache bench;",
            "    proxy_cache_key $request_uri;",
            "    add_header X-Cache $upstream_cache_status;",
            "  }",
            "}",
        ]


def ats_disk(bench, cache_mb):
    records = ["CONFIG proxy.config.cache.ram_cache.size INT 0", "CONFIG proxy.config.cache.ram_cache_cutoff INT 0"]
    return TrafficServer(bench.target_dir("ats-disk"), bench.args.ats_path, bench.origin.port, cache=True, key="ats", label="Traffic Server (disk cache, RAM cache 0)",
                         records=records, storage="%dM" % cache_mb)


# ---------------------------------------------------------------- measuring


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def proxied(t):
    """Whether t takes absolute-form requests through -x (nginx here is a
    reverse proxy: it gets the origin's path on its own port)."""
    return t.is_proxy


def fetch_cmd(t, origin, path, headers):
    base = ["curl", "-s", "-S", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{speed_download} %{time_total}", "--max-time", "900", "-D", headers]
    if t.is_proxy:
        return base + ["-x", "http://127.0.0.1:%d" % t.port, origin.url(path)]
    port = origin.port if isinstance(t, Direct) else t.port
    return base + ["--noproxy", "*", "http://127.0.0.1:%d%s" % (port, path)]


def drop_caches():
    """The page cache emptied (root only): dirty pages written first."""
    run_quiet(["sync"], timeout=300)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


class DiskRun:
    def __init__(self, bench):
        self.bench = bench
        self.origin = bench.origin
        self.quick = bench.quick
        self.rounds = bench.rounds
        self.size = bench.gib_size
        self.big_name = bench.gib_name
        self.wrk_duration = 3 if bench.quick else bench.wrk_duration
        self.restart_objects = 10000 if bench.quick else 100000
        self.cache_mb = QUICK_CACHE_MB if bench.quick else CACHE_MB
        self.nonce = int(time.time() * 1000) % 100000000
        self.not_measured = {}

    def make_targets(self, with_direct=True):
        """Fresh, unstarted targets, each with an empty cache dir of its own."""
        bench = self.bench
        out = [Direct(bench.tmp)] if with_direct else []
        out.append(CuttleDisk(bench.target_dir("cuttle-disk"), bench.args.cuttle, self.cache_mb))
        if bench.args.squid_path:
            out += [SquidDisk(bench.target_dir("squid-disk"), bench.args.squid_path, kind, self.cache_mb) for kind in ("rock", "aufs")]
        if bench.args.ats_path:
            out.append(ats_disk(bench, self.cache_mb))
        if shutil.which("nginx"):
            out.append(NginxCache(bench.target_dir("nginx-disk"), self.origin.port, self.cache_mb))
        else:
            self.not_measured["nginx"] = "nginx is not installed"
        return out

    def start(self, t, port=None):
        if isinstance(t, Direct):
            return True
        try:
            t.start(port)
            settle(t)
            return True
        except (BenchError, OSError) as e:
            t.stop()
            self.not_measured.setdefault(t.key, "%s could not be started: %s" % (t.label, str(e).strip()[:400]))
            log("  NOT MEASURED: %s could not be started: %s" % (t.label, e))
            return False

    def fetch(self, t, path, kind):
        headers = os.path.join(self.bench.tmp, "disk-headers.txt")
        res = download(t, None, self.size, cmd=fetch_cmd(t, self.origin, path, headers), headers=headers)
        fields = res.pop("fields")
        res["verdict"], res["said"] = co.cache_verdict(fields), co.cache_said(fields)
        res["kind"] = kind
        return res

    # -- the big object

    def big(self):
        log("  a %s object: storing miss, warm disk hit (cold once), %d round(s), each proxy afresh, targets alternated" % (short_size(self.size), self.rounds))
        results, problems, labels, perf = {}, {}, {}, {}
        cold_ok = os.geteuid() == 0
        if not cold_ok:
            self.not_measured["big/cold"] = "dropping the page cache needs root"
        for r in range(self.rounds):
            last = r == self.rounds - 1
            for t in self.make_targets():
                labels[t.key] = t.label
                if t.key in problems or not self.start(t):
                    continue
                try:
                    path = "/files/%s?%s&v=disk-%s-%d-%d" % (self.big_name, CACHEABLE, t.key, r, self.nonce)
                    if isinstance(t, Direct):
                        res = self.fetch(t, path, "direct")
                        results.setdefault((t.key, "direct"), []).append(res)
                        log("  round %d %-42s direct %.0f MB/s" % (r + 1, t.label, res["mbps"]))
                        continue
                    line = []
                    # cuttle's uncached rate of the same file first: its storing miss's target
                    uncached = ("uncached",) if isinstance(t, CuttleDisk) else ()
                    for kind in uncached + ("miss", "hit") + (("cold",) if last and cold_ok else ()):
                        settle(t, quiet=1.0, limit=60)  # the store's writes done
                        if kind == "cold":
                            drop_caches()
                        res = self.fetch(t, path.replace(CACHEABLE, "cc=no-store") if kind == "uncached" else path, kind)
                        results.setdefault((t.key, kind), []).append(res)
                        line.append("%s %.0f MB/s %s CPU-s/GB (%s)" % (kind, res["mbps"], fmt(res.get("cpu_s_per_gb"), 2), res["said"] or res["verdict"]))
                    log("  round %d %-42s %s" % (r + 1, t.label, ", ".join(line)))
                    if last and self.bench.has_perf:
                        # untimed: the syscalls of a second copy's miss and hit
                        path2 = path + "-perf"
                        headers = os.path.join(self.bench.tmp, "disk-headers.txt")
                        for kind in ("miss", "hit"):
                            settle(t, quiet=1.0, limit=60)
                            perf[(t.key, kind)] = perf_count(t, None, self.size, self.bench.tmp, cmd=fetch_cmd(t, self.origin, path2, headers), kinds=DISK_KINDS)
                        log("  %-42s syscalls/GB: miss %s, hit %s" % (t.label, fmt(perf[(t.key, "miss")]["total_per_gb"]), fmt(perf[(t.key, "hit")]["total_per_gb"])))
                except (BenchError, OSError) as e:
                    problems[t.key] = str(e).strip()[:600]
                    log("  %s: %s" % (t.label, e))
                finally:
                    t.stop()
                    if not isinstance(t, Direct):
                        shutil.rmtree(t.tmp, ignore_errors=True)
        rows = []
        for key, label in labels.items():
            for kind in FETCHES:
                rs = results.get((key, kind))
                if rs is None and not (kind in ("miss", "hit") and key != "direct"):
                    continue
                rs = rs or []
                expected = "miss" if kind in ("uncached", "miss", "direct") else "hit"
                rows.append({
                    "target": key, "label": label, "kind": kind, "rounds": rs,
                    "mbps": med([x["mbps"] for x in rs]),
                    "mbps_min": min((x["mbps"] for x in rs), default=None),
                    "mbps_max": max((x["mbps"] for x in rs), default=None),
                    "cpu_s_per_gb": med([x.get("cpu_s_per_gb") for x in rs]),
                    "peak_rss": med([x.get("peak_rss") for x in rs]),
                    "syscalls_per_gb": (perf.get((key, "hit" if kind == "cold" else kind)) or {}).get("total_per_gb") if kind != "direct" else None,
                    "syscalls_by_kind": (perf.get((key, kind)) or {}).get("by_kind_per_gb"),
                    "verdicts": {} if key == "direct" else {v: sum(1 for x in rs if x["verdict"] == v) for v in sorted(set(x["verdict"] for x in rs))},
                    "unexpected": sum(1 for x in rs if key != "direct" and not x["verdict"].endswith(expected)),
                    "problem": problems.get(key, ""),
                })
        return rows

    # -- 64 KiB hits

    def hit_paths(self, t):
        return ["/o/dh%d-%s/%d?s=64k&%s" % (self.nonce, t.key, i, CACHEABLE) for i in range(HIT_OBJECTS)]

    def wrk(self, t):
        prefix, suffix = "/o/dh%d-%s/" % (self.nonce, t.key), "?s=64k&" + CACHEABLE
        if not isinstance(t, Direct):
            prefix = self.origin.url(prefix)
        script = os.path.join(self.bench.tmp, "wrk-disk-%s.lua" % t.key)
        with open(script, "w") as f:
            f.write(
                'math.randomseed(os.time())\n'
                'request = function()\n'
                '  return wrk.format("GET", "%s" .. math.random(0, %d) .. "%s", {Host = "127.0.0.1:%d"})\n'
                'end\n' % (prefix, HIT_OBJECTS - 1, suffix, self.origin.port)
            )
        port = self.origin.port if isinstance(t, Direct) else t.port
        pids = t.pids()
        cpu0 = cpu_seconds(pids)
        r = run_quiet(["wrk", "-t", "1", "-c", "50", "-d", "%ds" % self.wrk_duration, "--latency", "--timeout", "10s", "-s", script, "http://127.0.0.1:%d/" % port],
                      timeout=self.wrk_duration + 60)
        cpu = cpu_seconds(pids) - cpu0
        m = re.search(r"(\d+) requests in", r.stdout)
        rps = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
        if not m or not rps:
            raise BenchError("wrk: " + r.stdout.strip()[-300:])
        res = {"requests": int(m.group(1)), "rps": float(rps.group(1)), "latency": {}}
        for pct, value, unit in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s)\s*$", r.stdout, re.M):
            res["latency"][pct] = float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", r.stdout)
        errors = re.search(r"Socket errors: (.*)", r.stdout)
        res["non_2xx"] = int(bad.group(1)) if bad else 0
        res["socket_errors"] = errors.group(1).strip() if errors else ""
        if pids and res["requests"]:
            res["cpu_us_per_request"] = cpu / res["requests"] * 1e6
        return res

    def hits(self):
        if not shutil.which("wrk"):
            raise BenchError("wrk is not installed")
        log("  64 KiB disk hits: %d objects stored, then wrk -t 1 -c 50 -d %ds at random among them, %d round(s)" % (HIT_OBJECTS, self.wrk_duration, self.rounds))
        targets = [t for t in self.make_targets() if self.start(t)]
        results, problems, stored = {}, {}, {}
        try:
            for t in targets:
                if isinstance(t, Direct):
                    continue
                try:
                    port = t.port
                    stats = co.fill(port, self.hit_paths(t), self.origin.port, conns=4, limit=600)
                    settle(t, quiet=1.0, limit=60)
                    # a sample fetched again: where the replies say they came from
                    c = co.Client(port)
                    said = {}
                    try:
                        for path in self.hit_paths(t)[:: HIT_OBJECTS // 20]:
                            reply, _ = c.send(co.request_bytes(self.origin.port, path, True))
                            v = co.cache_verdict(reply.fields)
                            said[v] = said.get(v, 0) + 1
                    finally:
                        c.close()
                    stored[t.key] = {"fill_seconds": stats["seconds"], "status": stats["status"], "sample": said}
                    log("  %-42s stored in %.1f s; a sample of 20 again: %s" % (t.label, stats["seconds"], said))
                except (BenchError, co.HttpError, OSError) as e:
                    problems[t.key] = str(e).strip()[:600]
                    log("  %s: %s" % (t.label, e))
            for r in range(self.rounds):
                for t in targets:
                    if t.key in problems:
                        continue
                    try:
                        res = self.wrk(t)
                        results.setdefault(t.key, []).append(res)
                        log("  round %d %-42s %7.0f requests/s  p99 %s ms  %s CPU us/request%s" % (
                            r + 1, t.label, res["rps"], fmt(res["latency"].get("99"), 2), fmt(res.get("cpu_us_per_request")),
                            "  (%d non-2xx, %s)" % (res["non_2xx"], res["socket_errors"]) if res["non_2xx"] or res["socket_errors"] else ""))
                    except (BenchError, OSError) as e:
                        problems[t.key] = str(e).strip()[:600]
                        log("  %s: %s" % (t.label, e))
        finally:
            for t in targets:
                t.stop()
                if not isinstance(t, Direct):
                    shutil.rmtree(t.tmp, ignore_errors=True)
        rows = []
        for t in targets:
            rs = results.get(t.key, [])
            rows.append({
                "target": t.key, "label": t.label, "rounds": rs,
                "rps": med([x["rps"] for x in rs]),
                "p50_ms": med([x["latency"].get("50") for x in rs]),
                "p99_ms": med([x["latency"].get("99") for x in rs]),
                "cpu_us_per_request": med([x.get("cpu_us_per_request") for x in rs]),
                "non_2xx": sum(x["non_2xx"] for x in rs),
                "socket_errors": "; ".join(x["socket_errors"] for x in rs if x["socket_errors"]),
                "stored": stored.get(t.key),
                "problem": problems.get(t.key, ""),
            })
        return rows

    # -- restart

    def restart_one(self, t, n):
        tag = "dr%d-%s" % (self.nonce, t.key)
        paths = ["/o/%s/%d?s=1k&%s" % (tag, i, CACHEABLE) for i in range(n)]
        before = co.steady_rss(t, limit=30)
        entries_before = store_entries(t.port)
        stats = co.fill(t.port, paths, self.origin.port, conns=4, limit=1200, progress=log)
        settle(t, quiet=1.0, limit=120)
        after = co.steady_rss(t, limit=60)
        entries_after = store_entries(t.port)
        # what the cache manager says was stored (a store too busy to keep up
        # skips objects: the RSS is theirs only); else every object filled
        stored = entries_after - entries_before if entries_before is not None and entries_after is not None else None
        stored = stored if stored and stored > 0 else None  # Squid's rock says 0: its entries are not StoreEntries
        out = {"objects": n, "stored": stored, "fill_seconds": stats["seconds"], "rss_before": before, "rss_after": after,
               "rss_per_object": (after - before) / (stored or n), "fill_status": stats["status"]}
        port = t.port
        t.stop()
        t0 = time.monotonic()
        t.start(port)
        # the sample: objects spread over the fill, each asked for once; a
        # miss stores it again, so a later try asks for the next one
        sample = paths[:: max(1, n // 300)]
        limit = 30 if self.quick else 120
        wait_for("the port after the restart", lambda: port_answers(t.port), limit)
        out["port_seconds"] = time.monotonic() - t0
        first_hit, tried = None, 0
        c = co.Client(t.port, timeout=30)
        try:
            while first_hit is None and tried < len(sample) and time.monotonic() - t0 < limit:
                reply, _ = c.send(co.request_bytes(self.origin.port, sample[tried], True))
                tried += 1
                if co.cache_verdict(reply.fields) in ("hit", "disk hit"):
                    first_hit = time.monotonic() - t0
                else:
                    time.sleep(0.05)
            out["first_hit_seconds"] = first_hit
            out["misses_before"] = tried - (1 if first_hit is not None else 0)
            # the rest of the sample once the first hit came (or the time ran out)
            rest = sample[tried : tried + 100]
            hits = 0
            for path in rest:
                reply, _ = c.send(co.request_bytes(self.origin.port, path, True))
                hits += co.cache_verdict(reply.fields) in ("hit", "disk hit")
            out["sample_after"] = len(rest)
            out["sample_hits_after"] = hits
        finally:
            c.close()
        out["rss_restarted"] = rss_bytes(t.pids())
        out["key_bytes"] = statistics.mean(len(self.origin.url(p)) for p in paths[:100])
        out["kill9_kept"] = self.survives_kill(t, "/o/%s/killed?s=1k&%s" % (tag, CACHEABLE))
        return out

    def survives_kill(self, t, path):
        """Whether an object stored completely (its reply received, the
        proxy idle for half a second) is a hit after `kill -9` of every
        process of the proxy and a start."""
        c = co.Client(t.port, timeout=30)
        try:
            reply, _ = c.send(co.request_bytes(self.origin.port, path, True))
        finally:
            c.close()
        if reply.status != 200:
            raise BenchError("the object to keep across kill -9: status %d" % reply.status)
        settle(t, quiet=0.5, limit=10)
        kill_group(t.proc)
        t.proc.wait(10)
        port = t.port
        t.stop()  # what a killed proxy leaves (Squid's shared memory)
        t.start(port)
        wait_for("the port after kill -9 and a start", lambda: port_answers(t.port), 60)
        settle(t, quiet=0.5, limit=30)
        c = co.Client(t.port, timeout=30)
        try:
            reply, _ = c.send(co.request_bytes(self.origin.port, path, True))
        finally:
            c.close()
        return co.cache_verdict(reply.fields) in ("hit", "disk hit")

    def restart(self):
        n = self.restart_objects
        log("  restart: %s 1 KiB objects stored, a clean stop, a start: time to the port and to the first hit" % fmt(n))
        rows = []
        for t in self.make_targets(with_direct=False):
            if not self.start(t):
                continue
            try:
                res = self.restart_one(t, n)
                log("  %-42s %s B RSS per object; after the start: port %.2f s, first hit %s s (%d misses first), then %d of %d hits; kept across kill -9: %s" % (
                    t.label, fmt(res["rss_per_object"]), res["port_seconds"], fmt(res["first_hit_seconds"], 2), res["misses_before"], res["sample_hits_after"], res["sample_after"],
                    "yes" if res["kill9_kept"] else "no"))
                rows.append(dict(res, target=t.key, label=t.label))
            except (BenchError, co.HttpError, OSError) as e:
                rows.append({"target": t.key, "label": t.label, "error": str(e).strip()[:600]})
                log("  %s: %s" % (t.label, e))
            finally:
                t.stop()
                shutil.rmtree(t.tmp, ignore_errors=True)
        return rows


def run(bench):
    """The disk section: its figures, and what it could not measure in bench.not_measured."""
    dr = DiskRun(bench)
    data = {"size": dr.size, "rounds": dr.rounds, "quick": dr.quick, "cache_mb": dr.cache_mb, "hit_objects": HIT_OBJECTS,
            "wrk_duration": dr.wrk_duration, "restart_objects": dr.restart_objects, "cuttle_lines": cuttle_lines("DIR", dr.cache_mb), "big_name": dr.big_name}
    for part, fn in (("big", dr.big), ("hits", dr.hits), ("restart", dr.restart)):
        try:
            data[part] = fn()
        except (BenchError, co.HttpError, OSError) as e:
            dr.not_measured[part] = str(e)
            log("  disk/%s: NOT MEASURED: %s" % (part, e))
    for key, why in dr.not_measured.items():
        bench.not_measured["disk/" + key] = why
    return data


# ---------------------------------------------------------------- the report


def plot(data, out_dir, notes):
    """bench-disk.png: the big object's MB/s per target: storing miss, warm and cold disk hit."""
    dk = data.get("disk") or {}
    big = dk.get("big")
    if not big:
        return []
    keys = []
    for b in big:
        if b["target"] not in keys:
            keys.append(b["target"])
    by = {(b["target"], b["kind"]): b["mbps"] for b in big}
    kinds = ("miss", "hit", "cold", "direct")
    rows = [(PLOT_NAMES.get(key, key), [by.get((key, k)) for k in kinds]) for key in keys]
    return bar_plot(out_dir, "bench-disk.png", "a %s object through each disk cache (medians)" % human_size(dk["size"]), [FETCHES[k] for k in kinds], rows, notes)


def report_section(d, w, not_measured, pngs):
    """Section 9: the disk cache (issue 18)."""
    dk = section_head(d, w, "disk", "9. The disk cache", not_measured, "the section was not run (`--sections disk`)")
    if not dk:
        return
    w(
        "Every proxy with its memory cache off and an empty %s MB disk cache in the bench's temp dir (on disk, not tmpfs), objects "
        "up to %s: **cuttle** with `%s`; **Squid 5.7** with `cache_mem 0 MB`, `memory_cache_mode disk`, `maximum_object_size %s` and "
        "`cache_dir rock` (run `--foreground`, so that it has its disker process, as deployed) or `cache_dir aufs ... 16 256` (`-N`); "
        "**Traffic Server** with a %s MB storage file and `ram_cache.size 0`; **nginx** as a reverse proxy with `proxy_cache` "
        "(`levels=1:2`, `use_temp_path=off`, `sendfile on`); **direct** is curl straight from the origin. \"Replies said\" is what "
        "each reply's X-Cache (cuttle, Squid, nginx's `$upstream_cache_status`) or Via code (Traffic Server: `cH` a disk hit) says."
        % (fmt(dk["cache_mb"]), MAX_OBJECT, "`, `".join(dk["cuttle_lines"]), MAX_OBJECT, fmt(dk["cache_mb"]))
    )
    if dk.get("quick"):
        w("")
        w("**A `--quick` run: one round, a smaller object, fewer objects; not the benchmark.**")
    big = dk.get("big")
    w("")
    w("### A %s object: the miss that stores it, its disk hit" % human_size(dk["size"]))
    w("")
    if big:
        w(
            "`curl -o /dev/null` of `/files/%s?%s&v=UNIQUE`, each proxy started afresh with an empty cache each round, the targets "
            "alternated, medians of %d round(s): (cuttle only: the same file with `cc=no-store` first, its uncached rate) the miss, then (once the proxy's CPU has been idle for a second: its writes done) the hit "
            "with the object's pages still in the page cache; in the last round once more after `sync; echo 3 > /proc/sys/vm/drop_caches` "
            "(cold). Syscalls per GB from `perf stat` during an untimed miss and hit of a second copy in the last round (the cold row "
            "repeats the warm hit's)." % (dk["big_name"], CACHEABLE, dk["rounds"])
        )
        w("")
        rows = []
        for b in big:
            rows.append([b["label"], FETCHES[b["kind"]], fmt(b["mbps"]), "%s-%s" % (fmt(b["mbps_min"]), fmt(b["mbps_max"])), fmt(b["cpu_s_per_gb"], 2),
                         fmt(b.get("syscalls_per_gb")), fmt(b["peak_rss"] / 1e6 if b.get("peak_rss") else None, 1),
                         ", ".join("%s %d" % (k, v) for k, v in b.get("verdicts", {}).items()), b["problem"]])
        w(md_table(["target", "fetch", "MB/s", "range of the rounds", "proxy CPU-s/GB", "syscalls/GB", "peak RSS (MB)", "replies said", "problem"], rows))
        if "bench-disk.png" in pngs:
            w("")
            w("![MB/s of the %s object: storing miss, warm and cold disk hit](bench-disk.png)" % human_size(dk["size"]))
    else:
        w("Not measured: %s" % not_measured.get("disk/big", "n/m"))
    hits = dk.get("hits")
    w("")
    w("### 64 KiB disk hits")
    w("")
    if hits:
        w(
            "%s distinct 64 KiB objects (`/o/TAG/I?s=64k&%s`) stored through each proxy (4 keep-alive connections), a sample of 20 fetched "
            "again (\"sample said\"), then `wrk -t 1 -c 50 -d %ds --latency` with a Lua script that asks for one of them at random per "
            "request; medians of %d round(s), the targets alternated; the proxy's CPU per request."
            % (fmt(dk["hit_objects"]), CACHEABLE, dk["wrk_duration"], dk["rounds"])
        )
        w("")
        rows = []
        for h in hits:
            sample = (h.get("stored") or {}).get("sample") or {}
            rows.append([h["label"], fmt(h["rps"]), fmt(h["p50_ms"], 2), fmt(h["p99_ms"], 2), fmt(h["cpu_us_per_request"]),
                         ", ".join("%s %d" % kv for kv in sample.items()) or ("" if h["target"] == "direct" else "n/m"),
                         "; ".join(x for x in (h["problem"], "%d non-2xx" % h["non_2xx"] if h["non_2xx"] else "", h["socket_errors"]) if x)])
        w(md_table(["target", "requests/s", "p50 (ms)", "p99 (ms)", "proxy CPU per request (us)", "sample said", "problems"], rows))
    else:
        w("Not measured: %s" % not_measured.get("disk/hits", "n/m"))
    rs = dk.get("restart")
    w("")
    w("### Restart with %s objects, RAM per stored object" % fmt(dk["restart_objects"]))
    w("")
    if rs:
        w(
            "On a fresh proxy: its RSS once steady, %s distinct 1 KiB objects stored (4 keep-alive connections), the RSS again once steady "
            "(RAM per stored object: the growth divided by the objects the cache manager's storedir page says were stored, where the proxy "
            "has one (a store that cannot keep up with the misses skips some), else by the objects filled; the memory caches are off, so "
            "this is the disk index; \"beyond its URL\" subtracts the URL's length), a clean "
            "stop, a start on the same cache: the seconds until the port answers and until a stored object is a hit (objects spread over "
            "the fill, each asked for once, 50 ms apart; \"misses first\" counts those that were not hits yet), then how many of the next "
            "100 are hits. Last, one more object is stored, and once the proxy has been idle for half a second every process of it is "
            "killed (`kill -9`) and it starts again: is that object a hit? RSS sums the VmRSS of the proxy's processes: shared memory counts once in each that touched it "
            "(nginx's key zone; Squid rock's index, shared by its worker and its disker)." % fmt(dk["restart_objects"])
        )
        w("")
        rows = []
        for x in rs:
            if "error" in x:
                rows.append([x["label"]] + ["n/m"] * 9 + [x["error"].splitlines()[0] if x["error"] else ""])
                continue
            kept = x.get("kill9_kept")
            rows.append([x["label"], fmt(x["fill_seconds"], 1), fmt(x.get("stored")) if x.get("stored") else "n/m", fmt(x["rss_per_object"]), fmt(x["rss_per_object"] - x["key_bytes"] if "key_bytes" in x else None),
                         fmt(x["port_seconds"], 2), fmt(x["first_hit_seconds"], 2), fmt(x["misses_before"]), "%d of %d" % (x["sample_hits_after"], x["sample_after"]),
                         "n/m" if kept is None else "yes" if kept else "**no**", ""])
        w(md_table(["target", "fill (s)", "objects stored (mgr:storedir)", "RSS per stored object (B)", "beyond its URL (B)", "port answers after (s)", "first hit after (s)", "misses first",
                    "hits after that", "kept across kill -9", "problem"], rows))
    else:
        w("Not measured: %s" % not_measured.get("disk/restart", "n/m"))
    targets_table(dk, w)


def targets_table(dk, w):
    """Issue 18's targets, met or not."""

    def big(target, kind, field="mbps"):
        for b in dk.get("big") or []:
            if b["target"] == target and b["kind"] == kind:
                return b[field]
        return None

    def of(rows, target, field):
        for x in rows or []:
            if x["target"] == target:
                return x.get(field)
        return None

    def quot(a, b):
        return a / b if a is not None and b else None

    squids = [k for k in ("squid-rock", "squid-aufs") if big(k, "hit") is not None]
    best_squid = max((big(k, "hit") for k in squids), default=None)
    hit = big("cuttle", "hit")
    rows = [
        ["MB/s, %s warm disk hit, against direct" % human_size(dk["size"]), fmt(hit), fmt(big("direct", "direct")), ratio(hit, big("direct", "direct")), ">= 0.9x direct", met(quot(hit, big("direct", "direct")), 0.9)],
        ["... against nginx `proxy_cache`", fmt(hit), fmt(big("nginx", "hit")), ratio(hit, big("nginx", "hit")), "level (>= 1.0x)", met(quot(hit, big("nginx", "hit")), 1.0)],
        ["... against Squid's best cache_dir", fmt(hit), fmt(best_squid), ratio(hit, best_squid), ">= 3x", met(quot(hit, best_squid), 3)],
        ["MB/s, %s storing miss, against cuttle's uncached rate" % human_size(dk["size"]), fmt(big("cuttle", "miss")), fmt(big("cuttle", "uncached")), ratio(big("cuttle", "miss"), big("cuttle", "uncached")),
         ">= 0.9x (within 10%)", met(quot(big("cuttle", "miss"), big("cuttle", "uncached")), 0.9)],
        ["... against Traffic Server's", fmt(big("cuttle", "miss")), fmt(big("ats", "miss")), ratio(big("cuttle", "miss"), big("ats", "miss")), "about 2x", met(quot(big("cuttle", "miss"), big("ats", "miss")), 2)],
    ]
    h = dk.get("hits")
    rows.append(["requests/s, 64 KiB disk hits, against nginx", fmt(of(h, "cuttle", "rps")), fmt(of(h, "nginx", "rps")), ratio(of(h, "cuttle", "rps"), of(h, "nginx", "rps")), ">= 1.0x nginx",
                 met(quot(of(h, "cuttle", "rps"), of(h, "nginx", "rps")), 1.0)])
    rows.append(["... against Traffic Server", fmt(of(h, "cuttle", "rps")), fmt(of(h, "ats", "rps")), ratio(of(h, "cuttle", "rps"), of(h, "ats", "rps")), ">= 2x", met(quot(of(h, "cuttle", "rps"), of(h, "ats", "rps")), 2)])
    rows.append(["p99 of the 64 KiB disk hits (ms)", fmt(of(h, "cuttle", "p99_ms"), 2), "", "", "<= 5 ms", met(of(h, "cuttle", "p99_ms"), 5, at_least=False)])
    rs = dk.get("restart")
    rows.append(["first hit after a start (s)", fmt(of(rs, "cuttle", "first_hit_seconds"), 2), "", "", "<= 1 s", met(of(rs, "cuttle", "first_hit_seconds"), 1, at_least=False)])
    per, key = of(rs, "cuttle", "rss_per_object"), of(rs, "cuttle", "key_bytes")
    beyond = per - key if per is not None and key is not None else None
    rows.append(["RSS per stored object beyond its URL (B)", fmt(beyond), "", "", "<= 100 B", met(beyond, 100, at_least=False)])
    kept = of(rs, "cuttle", "kill9_kept")
    rows.append(["an object stored completely survives `kill -9` at once", "n/m" if kept is None else ("yes" if kept else "no"), "", "", "yes", "n/m" if kept is None else ("yes" if kept else "**no**")])
    w("")
    w("### Against the targets of issue 18")
    w("")
    w(md_table(["", "cuttle", "the other", "cuttle / the other", "target", "met"], rows))
