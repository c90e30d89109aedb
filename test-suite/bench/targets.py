#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The processes the benchmarks run: cuttle, Squid, Traffic Server, the origin.

bench.py and cache-objects.py import this module. It knows how to install
the tools (apt-get behind a policy-rc.d that keeps packaged services from
starting), how to start each proxy on a loopback port with a configuration
of its own in a temp dir and stop it again, and how to read a process
tree's CPU time and RSS from /proc. It measures nothing by itself.

Every process started here (spawn()) leads a session of its own and is
recorded in STARTED; stop_everything() kills each of those process groups,
so a caller that ends in a `finally: stop_everything()` leaves nothing
behind, even on failure or Ctrl-C.
"""

import importlib.util
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.normpath(os.path.join(HERE, "..", ".."))

KB, MB, GB = 1000, 1000**2, 1000**3
KiB, MiB, GiB = 1024, 1024**2, 1024**3
CLK_TCK = os.sysconf("SC_CLK_TCK")

# The memory cache of every proxy in the cache benchmarks (issue 5): room for
# two 512 MiB objects or 200,000 small ones, and objects up to 600 MB in memory.
CACHE_MEM = "1200 MB"
MAX_IN_MEMORY = "600 MB"
# cuttle's lines for it (its defaults are cache_mem 256 MB, 512 KB objects)
CUTTLE_CACHE_LINES = ["cache_mem " + CACHE_MEM, "maximum_object_size_in_memory " + MAX_IN_MEMORY]
# the same with cache_mem mapped, populated and locked at start (the storing
# miss then reads into pages that are already there; doc/caching.md)
CUTTLE_LOCKED_LINES = CUTTLE_CACHE_LINES + ["shared_memory_locking on"]


def rules_50():
    """A school's or office's access rules, 50 http_access lines that a
    request from localhost to the test origin passes through before the
    final "allow localhost": address, port, method, domain (a 1,000-name
    block list), regex, header and time acls (the cost of a rule set on a
    small hit; doc/benchmarks.md)."""
    acls = [
        "acl localnet src 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7 fe80::/10",
        "acl SSL_ports port 443",
        "acl Safe_ports port 80 21 443 70 210 1025-65535 280 488 591 777",
        "acl blocklist dstdomain " + " ".join(".blocked%d.example" % i for i in range(1000)),
        "acl ads dstdom_regex -i (^|\\.)ads?[0-9]*\\. (^|\\.)track(er|ing)\\.",
        "acl media urlpath_regex -i \\.(mp4|mkv|avi|iso|torrent)$",
        "acl exe url_regex -i \\.(exe|msi|scr)$ ^http://[0-9.]+/.*\\.sh$",
        "acl bots browser -i (python-requests|scrapy|masscan)",
        "acl uploads req_mime_type -i ^multipart/form-data",
        "acl guests src 198.51.100.0/24",
        "acl nights time 00:00-05:59",
        "acl weekend time SA",
        "acl purge method PURGE",
        "acl social dstdomain .facebook.example .tiktok.example .instagram.example",
        "acl streaming dstdomain .netflix.example .youtube.example .twitch.example",
        "acl flagged req_header X-Block -i ^yes$",
    ]
    rules = ["http_access deny !Safe_ports", "http_access deny CONNECT !SSL_ports", "http_access deny purge"]
    rules += ["http_access deny blocklist", "http_access deny ads", "http_access deny exe", "http_access deny bots"]
    rules += ["http_access deny guests media", "http_access deny guests social", "http_access deny guests streaming"]
    rules += ["http_access deny flagged", "http_access deny uploads guests", "http_access deny nights guests"]
    # per-department lines, as an office writes them: one network each
    for i in range(37):
        acls.append("acl dept%d src 10.%d.0.0/16" % (i, i + 1))
        rules.append("http_access allow dept%d !weekend !media" % i)
    return acls + rules

PACKAGES = {
    # Debian package: a program it provides
    "squid": "squid",
    "trafficserver": "traffic_server",
    "wrk": "wrk",
    "strace": "strace",
    "gnuplot-nox": "gnuplot",
    "procps": "ps",
}
POLICY_RC_D = "/usr/sbin/policy-rc.d"

START = time.monotonic()


def log(msg):
    el = time.monotonic() - START
    print("[%3d:%02d] %s" % (el // 60, el % 60, msg), file=sys.stderr, flush=True)


class BenchError(Exception):
    pass


def wait_for(what, check, limit, step=0.05):
    deadline = time.monotonic() + limit
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise BenchError("timed out after %.0f s waiting for %s" % (limit, what))
        time.sleep(step)



def size_bytes(text):
    """'64 KB' -> 65536 (squid.conf units are powers of 1024)."""
    number, unit = text.split()
    return int(number) * {"KB": KiB, "MB": MiB, "GB": GiB}[unit]


def short_size(n):
    for unit, scale in (("G", GiB), ("M", MiB), ("K", KiB)):
        if n >= scale and n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return str(n)


def run_quiet(cmd, timeout=60, **kw):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, text=True, check=False, **kw)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, 127, stdout=str(e))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


# ---------------------------------------------------------------- installing


def as_root(cmd):
    return cmd if os.geteuid() == 0 else ["sudo"] + cmd


def ensure_packages(notes, packages=None):
    """Installs from Debian the packages (PACKAGES by default: package name
    -> a program it provides, or the absolute path of a file it installs)
    whose programs or files are missing."""
    packages = PACKAGES if packages is None else packages

    def present(prog):
        if os.path.isabs(prog):
            return os.path.exists(prog)
        return shutil.which(prog) or os.path.exists("/usr/sbin/" + prog)

    missing = [pkg for pkg, prog in packages.items() if not present(prog)]
    if not missing:
        log("tools: all present (%s)" % " ".join(packages))
        return
    log("tools: installing %s from Debian" % " ".join(missing))
    if not shutil.which("apt-get"):
        notes.append("could not install %s: no apt-get" % " ".join(missing))
        return
    backup = None
    if os.path.exists(POLICY_RC_D):
        with open(POLICY_RC_D, "rb") as f:
            backup = (f.read(), os.stat(POLICY_RC_D).st_mode & 0o7777)
    tmp = tempfile.NamedTemporaryFile("w", delete=False, prefix="policy-rc.d.")
    tmp.write("#!/bin/sh\n# written by cuttle's bench.py during its apt-get install\nexit 101\n")
    tmp.close()
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run_quiet(as_root(["install", "-m", "755", tmp.name, POLICY_RC_D]))
        r = run_quiet(as_root(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q"] + missing), timeout=900, env=env)
        if r.returncode != 0:
            log("  apt-get install failed; running apt-get update first")
            run_quiet(as_root(["apt-get", "update", "-q"]), timeout=600, env=env)
            r = run_quiet(as_root(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q"] + missing), timeout=900, env=env)
        if r.returncode != 0:
            notes.append("apt-get install %s failed: %s" % (" ".join(missing), r.stdout.strip().splitlines()[-1:] or ""))
    finally:
        if backup is None:
            run_quiet(as_root(["rm", "-f", POLICY_RC_D]))
        else:
            with open(tmp.name, "wb") as f:
                f.write(backup[0])
            run_quiet(as_root(["install", "-m", "%o" % backup[1], tmp.name, POLICY_RC_D]))
        os.unlink(tmp.name)
    stop_packaged_services()


def read_cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def read_environ(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def packaged_service_pids():
    """Pids of a Squid or Traffic Server started by the packages' services
    (their default configuration), never of a test's own instance."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        args = read_cmdline(pid)
        if not args:
            continue
        prog = os.path.basename(args[0])
        if prog == "squid":
            conf = args[args.index("-f") + 1] if "-f" in args[:-1] else "/etc/squid/squid.conf"
            if conf == "/etc/squid/squid.conf":
                found.append(("squid", pid))
        elif prog in ("traffic_manager", "traffic_server"):
            if not any(a.startswith("--run-root") for a in args) and not any(e.startswith(b"TS_ROOT=") for e in read_environ(pid)):
                found.append(("trafficserver", pid))
    return found


def stop_packaged_services():
    """Stops a packaged squid/trafficserver service that runs anyway, so that
    ports 3128 and 8080 stay free and nothing competes for the CPU."""
    running = packaged_service_pids()
    for service in sorted(set(s for s, _ in running)):
        log("  stopping the packaged %s service" % service)
        if shutil.which("systemctl"):
            run_quiet(as_root(["systemctl", "stop", service]))
        if shutil.which("service"):
            run_quiet(as_root(["service", service, "stop"]))
    time.sleep(0.5 if running else 0)
    for service, pid in packaged_service_pids():
        log("  killing the packaged %s (pid %d)" % (service, pid))
        run_quiet(as_root(["kill", "-TERM", str(pid)]))
        time.sleep(2)
        if os.path.exists("/proc/%d" % pid):
            run_quiet(as_root(["kill", "-KILL", str(pid)]))


# ---------------------------------------------------------------- processes


STARTED = []  # every Popen of ours, each leading a process group of its own


def spawn(cmd, out_path, **kw):
    out = open(out_path, "w")
    try:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, **kw)
    finally:
        out.close()
    STARTED.append(proc)
    return proc


def kill_group(proc, sig=signal.SIGKILL):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_process(proc, sig=signal.SIGTERM, grace=10):
    """Asks proc to stop, then kills its whole process group."""
    if proc is None:
        return
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            log("  pid %d did not stop after signal %d; killing it" % (proc.pid, sig))
    kill_group(proc)
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass
    if proc in STARTED:
        STARTED.remove(proc)


def stop_everything():
    for proc in list(STARTED):
        kill_group(proc)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
    STARTED.clear()


def children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return kids


def process_tree(pid):
    """pid and all its descendants."""
    kids = children_map()
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(kids.get(p, []))
    return tree


def threads_of(pids):
    tids = []
    for pid in pids:
        try:
            tids.extend(int(t) for t in os.listdir("/proc/%d/task" % pid))
        except OSError:
            pass
    return tids


def cpu_seconds(pids):
    """utime + stime of the given processes, all their threads included."""
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / CLK_TCK


def cpu_seconds_fine(pids):
    """The CPU time of the given processes' live threads, from each one's
    /proc/PID/task/TID/schedstat (nanoseconds), where /proc/PID/stat counts
    in clock ticks (10 ms): for what takes milliseconds. Threads that have
    exited are not in it."""
    return sum(thread_cpu_ns(pids).values()) / 1e9


def context_switches(pids):
    """{tid: [voluntary, involuntary]} context switches of the given
    processes' live threads, from /proc/PID/task/TID/status: a thread that
    sleeps (waits for input) switches voluntarily, one taken off a CPU
    while it could still run (preempted) involuntarily."""
    counts = {}
    for tid in threads_of(pids):
        try:
            with open("/proc/%d/status" % tid) as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        counts.setdefault(tid, [0, 0])[0] = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        counts.setdefault(tid, [0, 0])[1] = int(line.split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return counts


def thread_cpu_ns(pids):
    """{tid: CPU nanoseconds} of the given processes' live threads, from
    each one's /proc/PID/task/TID/schedstat."""
    times = {}
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    times[int(tid)] = int(f.read().split()[0])
            except (OSError, IndexError, ValueError):
                pass
    return times


def busiest_threads(before, after, top=4):
    """The CPU seconds of the `top` busiest threads between two
    thread_cpu_ns(), most first: how a multi-threaded proxy's work was
    spread (a thread that exited in between is not counted)."""
    spent = sorted((ns - before.get(tid, 0) for tid, ns in after.items()), reverse=True)
    return [ns / 1e9 for ns in spent[:top] if ns > 0]


def tcp_sockets(port):
    """{socket inode: state} of the TCP sockets whose local port is `port`
    (/proc/net/tcp and tcp6; state 1 is established, 10 listening)."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f, None)
                for line in f:
                    fields = line.split()
                    if len(fields) > 9 and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        found[int(fields[9])] = int(fields[3], 16)
        except (OSError, ValueError, IndexError):
            pass
    return found


def loop_connections(pids, port):
    """Client connections per event loop: for each epoll instance of the
    given processes that watches a socket of `port` (its listener or an
    accepted connection), how many established connections accepted on
    `port` it watches, most first. Read from /proc/PID/fdinfo of each
    epoll descriptor (a `tfd:` line per watched descriptor, with its
    inode), so the proxy needs no option for it: with SO_REUSEPORT
    (cuttle's `workers`) it shows how the kernel spread the clients."""
    sockets = tcp_sockets(port)
    counts = []
    for pid in pids:
        try:
            fds = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("/proc/%d/fd/%s" % (pid, fd)) != "anon_inode:[eventpoll]":
                    continue
                with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                    watched = [int(m.group(1), 16) for m in re.finditer(r"^tfd:.*\bino:([0-9a-f]+)", f.read(), re.M)]
            except (OSError, ValueError):
                continue
            states = [sockets[ino] for ino in watched if ino in sockets]
            if states:
                counts.append(sum(1 for state in states if state == 1))
    return sorted(counts, reverse=True)


def switches_since(before, after, requests):
    """[voluntary, involuntary] per request between two context_switches():
    the threads alive at the end (a thread that exited in between is not
    counted)."""
    return [sum(a[i] - before.get(tid, [0, 0])[i] for tid, a in after.items()) / requests for i in (0, 1)]


def settle(target, quiet=0.5, limit=15):
    """Waits until the target's processes have used no CPU for `quiet`
    seconds (at most `limit`): what a proxy does right after start
    (cuttle populating memory ahead, Traffic Server loading its cache) is
    not part of the first measurement. Returns the seconds waited."""
    start = time.monotonic()
    pids = target.pids()
    last = cpu_seconds(pids)
    calm_since = start
    while time.monotonic() - start < limit:
        time.sleep(0.1)
        now = cpu_seconds(pids)
        if now != last:
            last, calm_since = now, time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            break
    return time.monotonic() - start


def minor_faults(pids):
    """Minor page faults of the given processes, all their threads included
    (a page of fresh memory touched for the first time is one)."""
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                total += int(f.read().rsplit(")", 1)[1].split()[7])
        except (OSError, IndexError, ValueError):
            pass
    return total


def rss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class RssSampler:
    """Samples the summed VmRSS of pids every 50 ms in a thread; keeps the peak."""

    def __init__(self, pids):
        self.pids = pids
        self.peak = rss_bytes(pids) if pids else 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopping.wait(0.05):
            self.peak = max(self.peak, rss_bytes(self.pids))

    def __enter__(self):
        if self.pids:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        if self.pids:
            self.thread.join()
            self.peak = max(self.peak, rss_bytes(self.pids))


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def load_script(name, file_name):
    """A sibling script whose file name is not a module name (idle-conns.py), imported as name."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file_name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



# ---------------------------------------------------------------- measuring


CURL_FORMAT = "%{http_code} %{size_download} %{speed_download} %{time_total}"


def curl_cmd(target, url, out="/dev/null", max_time=600, headers=None):
    cmd = ["curl", "-s", "-S", "-o", out, "-w", CURL_FORMAT, "--max-time", str(max_time)]
    if headers:
        cmd += ["-D", headers]
    if target.is_proxy:
        cmd += ["-x", "http://127.0.0.1:%d" % target.port]
    else:
        cmd += ["--noproxy", "*"]
    return cmd + [url]


def parse_curl(stdout, expected):
    parts = stdout.split()
    if len(parts) != 4:
        raise BenchError("curl: %s" % stdout.strip()[-300:])
    code, size, speed = parts[0], int(parts[1]), float(parts[2])
    if code != "200" or size != expected:
        raise BenchError("curl got status %s and %d of %d bytes" % (code, size, expected))
    return speed


def download(target, url, size, headers=None, cmd=None):
    """One timed download: MB/s, the proxy's CPU-s/GB and peak RSS; with
    headers (a file name), the reply's header fields too, lowercase names.
    cmd: a curl command of the caller's (CURL_FORMAT, -D headers if any)
    instead of curl_cmd()'s; the CPU is counted for a target whose pids()
    it has, proxy or not (a reverse proxy)."""
    pids = target.pids()
    cpu0, faults0 = cpu_seconds(pids), minor_faults(pids)
    with RssSampler(pids) as sampler:
        r = run_quiet(cmd or curl_cmd(target, url, headers=headers), timeout=900)
    cpu1, faults1 = cpu_seconds(pids), minor_faults(pids)
    speed = parse_curl(r.stdout, size)
    result = {"mbps": speed / MB}
    if headers:
        result["fields"] = read_fields(headers)
    if target.is_proxy or pids:
        if not target.alive():
            raise target.died("during the download")
        result["cpu_s_per_gb"] = (cpu1 - cpu0) / (size / GB)
        result["faults_per_gb"] = (faults1 - faults0) / (size / GB)
        result["peak_rss"] = sampler.peak
    return result


def read_fields(path):
    """The header fields of the last reply head in a `curl -D` file."""
    fields = {}
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("HTTP/"):
                    fields = {}
                elif ":" in line:
                    name, value = line.split(":", 1)
                    fields[name.strip().lower()] = value.strip()
    except OSError:
        pass
    return fields


WRK_SCRIPT = """wrk.method = "GET"
wrk.path = "%s"
wrk.headers["Host"] = "127.0.0.1:%d"
"""


def wrk_path(target, origin, path, duration, tmp, name):
    """`wrk -t 1 -c 50` for origin's path through target: the absolute URL
    in the request line (a Lua script), origin-form for direct. origin:
    an Origin or an Nginx (its port, url() and pids()). The proxy's and the
    origin's CPU per 10,000 requests, and through a proxy (which keeps its
    origin connections open) their context switches per request, the
    client connections that each of its event loops held halfway through
    (loop_connections()) and the CPU seconds of its busiest threads."""
    script = os.path.join(tmp, "wrk.%s.%s.lua" % (target.key, name))
    with open(script, "w") as f:
        f.write(WRK_SCRIPT % (origin.url(path) if target.is_proxy else path, origin.port))
    port = target.port if target.is_proxy else origin.port
    pids, origin_pids = target.pids(), origin.pids()
    cpu0, origin_cpu0 = cpu_seconds(pids), cpu_seconds(origin_pids)
    switches0, origin_switches0 = context_switches(pids), context_switches(origin_pids)
    threads0 = thread_cpu_ns(pids)
    loops = []
    halfway = threading.Timer(duration / 2, lambda: loops.extend(loop_connections(pids, port)))
    if target.is_proxy:
        halfway.start()
    try:
        r = run_quiet(
            ["wrk", "-t", "1", "-c", "50", "-d", "%ds" % duration, "--timeout", "10s", "-s", script, "http://127.0.0.1:%d/" % port],
            timeout=duration + 60,
        )
    finally:
        halfway.cancel()
        if halfway.is_alive():
            halfway.join()
    cpu1, origin_cpu1 = cpu_seconds(pids), cpu_seconds(origin_pids)
    switches1, origin_switches1 = context_switches(pids), context_switches(origin_pids)
    threads1 = thread_cpu_ns(pids)
    m = re.search(r"(\d+) requests in ([\d.]+)(\w+)", r.stdout)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
    if not m or not rps:
        raise BenchError("wrk: " + r.stdout.strip()[-300:])
    requests = int(m.group(1))
    result = {"rps": float(rps.group(1)), "requests": requests}
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", r.stdout)
    errors = re.search(r"Socket errors: (.*)", r.stdout)
    result["non_2xx"] = int(bad.group(1)) if bad else 0
    result["socket_errors"] = errors.group(1).strip() if errors else ""
    if requests:
        result["origin_cpu_s_per_10k"] = (origin_cpu1 - origin_cpu0) / (requests / 10000)
    if target.is_proxy and requests:
        result["cpu_s_per_10k"] = (cpu1 - cpu0) / (requests / 10000)
        result["switches_per_request"] = switches_since(switches0, switches1, requests)
        result["origin_switches_per_request"] = switches_since(origin_switches0, origin_switches1, requests)
        result["loop_connections"] = loops
        result["busiest_threads_cpu_s"] = busiest_threads(threads0, threads1)
    return result


# The syscalls that perf counts one by one (the rest is "(other)"): each
# tracepoint costs perf ~40 ms to tear down, so not all ~350 of them.
PERF_KINDS = [
    "read", "readv", "recvfrom", "recvmsg", "write", "writev", "sendto", "sendmsg",
    "sendfile64", "splice", "epoll_wait", "epoll_pwait", "epoll_ctl", "poll", "select",
    "accept4", "connect", "close", "setsockopt", "getsockopt", "fcntl", "ioctl",
    "futex", "mmap", "munmap", "madvise", "brk", "clock_gettime", "gettimeofday",
    "getpid", "getrusage", "openat", "lseek", "io_uring_enter",
]


def perf_available():
    if not shutil.which("perf"):
        return False
    r = run_quiet(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "--", "true"], timeout=30)
    return r.returncode == 0 and "raw_syscalls:sys_enter" in r.stdout and "not supported" not in r.stdout


def perf_count(target, url, size, tmp, cmd=None, kinds=None):
    """Syscalls of the proxy during one download, by kind, per GB (perf
    stat); cmd: a curl command of the caller's instead of curl_cmd()'s,
    kinds: the syscalls to count one by one (PERF_KINDS)."""
    pids = target.pids()
    out = os.path.join(tmp, "perf.%s.csv" % target.key)
    # only the tracepoints this kernel has (perf refuses the whole list otherwise)
    have = "/sys/kernel/tracing/events/syscalls"
    kinds = [k for k in (kinds or PERF_KINDS) if not os.path.isdir(have) or os.path.isdir(os.path.join(have, "sys_enter_" + k))]
    events = ["raw_syscalls:sys_enter"] + ["syscalls:sys_enter_" + k for k in kinds]
    perf = spawn(
        ["perf", "stat", "-x,", "-o", out, "-e", ",".join(events), "-p", ",".join(map(str, pids))],
        os.path.join(tmp, "perf.%s.out" % target.key),
    )
    try:
        time.sleep(0.5)  # for perf to open its counters
        if perf.poll() is not None:
            raise BenchError("perf stat exited: " + tail(os.path.join(tmp, "perf.%s.out" % target.key)))
        r = run_quiet(cmd or curl_cmd(target, url), timeout=900)
        parse_curl(r.stdout, size)
    finally:
        stop_process(perf, signal.SIGINT, grace=30)
    kinds, total = {}, None
    with open(out) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) < 3 or not fields[0].isdigit():
                continue
            count, event = int(fields[0]), fields[2]
            if event == "raw_syscalls:sys_enter":
                total = count
            elif event.startswith("syscalls:sys_enter_") and count:
                kinds[event[len("syscalls:sys_enter_"):]] = count
    if total is None:
        raise BenchError("perf stat counted nothing")
    other = total - sum(kinds.values())
    if other > 0:
        kinds["(other)"] = other
    scale = GB / size
    return {"total_per_gb": total * scale, "by_kind_per_gb": {k: v * scale for k, v in kinds.items()}}


# ---------------------------------------------------------------- targets


class Target:
    """One thing curl and wrk send traffic through; stop() is idempotent."""

    key = "?"
    label = "?"
    is_proxy = True
    workers = 1  # cuttle's `workers`: its event loops, each with a cache of its own (1 for the others)

    def __init__(self, tmp):
        self.tmp = tmp
        self.proc = None
        self.port = None
        self.log_path = None

    def pids(self):
        if self.proc is None or self.proc.poll() is not None:
            return []
        return process_tree(self.proc.pid)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        stop_process(self.proc)

    def died(self, what):
        return BenchError("%s exited %s:\n%s" % (self.label, what, tail(self.log_path)))


class Direct(Target):
    key = "direct"
    label = "direct (no proxy)"
    is_proxy = False

    def start(self):
        pass

    def pids(self):
        return []


class Cuttle(Target):
    """cuttle with its default configuration, but for the port, the logs, the
    pid file and error_directory; buffer and gap set request_buffer_size and
    read_ahead_gap, and extra lines (CUTTLE_CACHE_LINES, say) go at the end;
    rules (acl and http_access lines) go before "http_access allow localhost";
    port_options follow the http_port line's address (ssl-bump ...);
    workers above 1 adds a `workers` line (event-loop threads, each with
    its own SO_REUSEPORT listener, sharing the memory cache)."""

    def __init__(self, tmp, binary, buffer=None, gap=None, key="cuttle", label=None, extra=None, rules=None, port_options="", workers=1):
        super().__init__(tmp)
        self.binary = binary
        self.workers = workers
        self.buffer = buffer
        self.gap = gap
        self.extra = list(extra or [])
        self.rules = list(rules or [])
        self.port_options = port_options
        self.key = key
        self.label = label or "cuttle"
        self.log_path = os.path.join(tmp, "cache.log")
        self.access_log = os.path.join(tmp, "access.log")
        self.conf = os.path.join(tmp, "cuttle.conf")

    def config_lines(self):
        lines = [
            ("http_port 127.0.0.1:0 " + self.port_options).strip(),
            "access_log stdio:%s/access.log" % self.tmp,
            "cache_log %s" % self.log_path,
            "pid_filename %s/cuttle.pid" % self.tmp,
            "error_directory %s/errors/templates" % SRCDIR,
        ] + self.rules + [
            "http_access allow localhost",
            "http_access deny all",
        ]
        if self.buffer:
            lines.append("request_buffer_size " + self.buffer)
        if self.gap:
            lines.append("read_ahead_gap " + self.gap)
        if self.workers > 1:
            lines.append("workers %d" % self.workers)
        return lines + self.extra

    def write_config(self):
        with open(self.conf, "w") as f:
            f.write("\n".join(self.config_lines()) + "\n")
        return self.conf

    def start(self):
        # a restart appends to cache.log: the port is in what this start writes
        offset = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        self.proc = spawn([self.binary, "-N", "-f", self.write_config()], os.path.join(self.tmp, "cuttle.out"))

        def bound_port():
            """the port, once every worker accepts on it"""
            if not self.alive():
                raise self.died("at start")
            try:
                with open(self.log_path, errors="replace") as f:
                    f.seek(offset)
                    # "Accepting HTTP Socket connections at", or a bumping port's own word
                    ports = re.findall(r"Accepting .*connections at .*local=127\.0\.0\.1:(\d+)", f.read())
                    if len(ports) >= self.workers:
                        return int(ports[0])
            except OSError:
                pass
            return None

        self.port = wait_for("cuttle's port in cache.log", bound_port, 15)


class Squid(Target):
    """Squid as a forward proxy. By default it caches nothing (`cache deny
    all`); with cache=True it keeps objects in memory (no cache_dir), as
    issue 5 has it: CACHE_MEM, objects up to MAX_IN_MEMORY (in memory and at
    all), memory_cache_mode always."""

    def __init__(self, tmp, binary, gap="16 KB", cache=False, key=None, label=None):
        super().__init__(tmp)
        self.binary = binary
        self.gap = gap
        self.cache = cache
        if cache:
            self.key = key or "squid"
            self.label = label or "Squid (cache_mem %s)" % CACHE_MEM
        else:
            self.key = key or "squid-%s" % short_size(size_bytes(gap)).lower()
            self.label = label or "Squid, read_ahead_gap %s" % gap
        # -n: a service name of its own, so its shared memory cannot collide
        self.name = "cbench%s%s%d" % ("c" if cache else "", short_size(size_bytes(gap)).lower(), os.getpid())
        self.conf = os.path.join(tmp, "squid.conf")
        self.log_path = os.path.join(tmp, "cache.log")
        self.access_log = os.path.join(tmp, "access.log")

    def port_line(self):
        return "http_port 127.0.0.1:%d" % self.port

    def cache_lines(self):
        """What and where Squid caches (subclasses: a cache_dir)."""
        if self.cache:
            return [
                "cache allow all",
                "cache_mem " + CACHE_MEM,
                "maximum_object_size_in_memory " + MAX_IN_MEMORY,
                # the limit of every store; with its default (4 MB) a 512 MiB reply is not kept
                "maximum_object_size " + MAX_IN_MEMORY,
                "memory_cache_mode always",
            ]
        return ["cache deny all"]

    def command(self):
        """-N: no daemon, no kids (a subclass with a rock cache_dir runs
        --foreground instead, to have its disker process)."""
        return [self.binary, "-N", "-f", self.conf, "-n", self.name]

    def write_config(self, port=None):
        """squid.conf for port (a free one if None) in tmp."""
        self.port = port or free_port()
        # Squid started as root drops to user proxy: let it write here
        os.chmod(self.tmp, 0o777)
        lines = [
            self.port_line(),
            "pid_filename %s/squid.pid" % self.tmp,
            "cache_log %s" % self.log_path,
            "access_log stdio:%s/access.log squid" % self.tmp,
            "cache_store_log none",
            "coredump_dir %s" % self.tmp,
        ]
        lines += self.cache_lines()
        lines += [
            "read_ahead_gap %s" % self.gap,
            "visible_hostname bench.invalid",
            "pinger_enable off",
            "icp_port 0",
            "htcp_port 0",
            "max_filedescriptors 4096",
            "http_access allow localhost",
            "http_access deny all",
            "shutdown_lifetime 1 second",
        ] + self.extra_lines()
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self, port=None):
        """port: the one it had before (a restart), else a free one."""
        self.write_config(port)
        self.proc = spawn(self.command(), os.path.join(self.tmp, "squid.out"))

        def accepting():
            if not self.alive():
                raise self.died("at start")
            try:
                with open(self.log_path, errors="replace") as f:
                    # "Accepting SSL bumped HTTP Socket connections" on an ssl-bump port
                    return re.search(r"Accepting .*HTTP Socket connections", f.read()) is not None
            except OSError:
                return False

        wait_for("squid to accept connections", accepting, 30)
        wait_for("squid's port to answer", lambda: port_answers(self.port), 10)

    def extra_lines(self):
        """Lines a subclass adds at the end (TLS, DNS)."""
        return []

    def stop(self):
        if self.alive():
            run_quiet([self.binary, "-k", "shutdown", "-f", self.conf, "-n", self.name], timeout=15)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        stop_process(self.proc)
        # shared memory segments of a killed squid
        for entry in os.listdir("/dev/shm"):
            if entry.startswith(self.name + "-"):
                try:
                    os.unlink(os.path.join("/dev/shm", entry))
                except OSError:
                    pass


def ats_records(port, extra, cache=False):
    records = [
        "CONFIG proxy.config.http.server_ports STRING %d:ipv4:ip-in=127.0.0.1" % port,
        "CONFIG proxy.config.url_remap.remap_required INT 0",
        "CONFIG proxy.config.reverse_proxy.enabled INT 0",
        "CONFIG proxy.config.diags.logfile.filename STRING diags.log",
    ]
    if not cache:
        # never cache: the object and everything else (and no storage)
        return records + ["CONFIG proxy.config.http.cache.http INT 0"] + extra
    return records + ATS_CACHE_RECORDS + extra


# Traffic Server with its cache on: a RAM cache of CACHE_MEM in front of a
# disk cache of ATS_STORAGE (a file in the temp dir: it caches nothing without
# one), objects up to MAX_IN_MEMORY in the RAM cache, every object put in the
# RAM cache at once (no "seen twice" filter, no compression), a directory
# entry per 2 KB of storage so that 200,000 small objects all fit.
ATS_STORAGE = "2G"
ATS_CACHE_RECORDS = [
    "CONFIG proxy.config.http.cache.http INT 1",
    "CONFIG proxy.config.cache.ram_cache.size INT %d" % size_bytes(CACHE_MEM),
    "CONFIG proxy.config.cache.ram_cache_cutoff INT %d" % size_bytes(MAX_IN_MEMORY),
    "CONFIG proxy.config.cache.ram_cache.use_seen_filter INT 0",
    "CONFIG proxy.config.cache.ram_cache.compress INT 0",
    "CONFIG proxy.config.cache.min_average_object_size INT 2048",
    "CONFIG proxy.config.cache.max_doc_size INT 0",
    "CONFIG proxy.config.http.cache.cache_urls_that_look_dynamic INT 1",
    # a Via field with the cache codes on each reply: [cR...] a RAM cache hit,
    # [cH...] a hit from the disk cache, [cM...] a miss (bench.py's check)
    "CONFIG proxy.config.http.insert_response_via_str INT 2",
]


class TrafficServerSetup:
    """A Traffic Server runroot of its own in a temp dir: the configuration
    copied from /etc/trafficserver, logs, runtime and cache dirs in tmp."""

    def __init__(self, tmp, binary):
        self.tmp = tmp
        self.binary = binary
        self.runroot = os.path.join(tmp, "runroot.yaml")

    def write(self, port, extra_records, cache=False, storage=ATS_STORAGE):
        etc = os.path.join(self.tmp, "etc")
        if os.path.exists(etc):
            shutil.rmtree(etc)
        shutil.copytree("/etc/trafficserver", etc)
        for d in ("run", "log", "cache"):
            os.makedirs(os.path.join(self.tmp, d), exist_ok=True)
        with open(self.runroot, "w") as f:
            for key, value in (
                ("prefix", self.tmp),
                ("exec_prefix", "/usr"),
                ("bindir", os.path.dirname(self.binary)),
                ("sbindir", "/usr/sbin"),
                ("sysconfdir", etc),
                ("datadir", "/usr/share/trafficserver"),
                ("includedir", "/usr/include"),
                ("libdir", "/usr/lib/trafficserver"),
                ("libexecdir", "/usr/lib/trafficserver/modules"),
                ("localstatedir", os.path.join(self.tmp, "run")),
                ("runtimedir", os.path.join(self.tmp, "run")),
                ("logdir", os.path.join(self.tmp, "log")),
                ("cachedir", os.path.join(self.tmp, "cache")),
            ):
                f.write("%s: %s\n" % (key, value))
        user = "trafficserver" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        with open(os.path.join(etc, "records.config"), "a") as f:
            f.write("\n# cuttle bench.py\n")
            f.write("\n".join(ats_records(port, extra_records + ["CONFIG proxy.config.admin.user_id STRING %s" % user], cache)) + "\n")
        # no cache storage at all, or a file of ATS_STORAGE in the cache dir
        with open(os.path.join(etc, "storage.config"), "w") as f:
            f.write("%s %s\n" % (os.path.join(self.tmp, "cache"), storage) if cache else "")
        if os.geteuid() == 0:
            try:
                ent = pwd.getpwnam("trafficserver")
                for root, dirs, files in os.walk(self.tmp):
                    for name in dirs + files + [""]:
                        os.chown(os.path.join(root, name) if name else root, ent.pw_uid, ent.pw_gid)
            except KeyError:
                pass
        os.chmod(self.tmp, 0o777)

    def command(self):
        return [self.binary, "--run-root=" + self.runroot]

    def diags(self):
        return os.path.join(self.tmp, "log", "diags.log")


class TrafficServer(Target):
    """Traffic Server as a forward proxy, its cache off unless cache=True
    (then ATS_CACHE_RECORDS and a storage file)."""

    key = "ats"
    label = "Traffic Server"

    def __init__(self, tmp, binary, origin_port, cache=False, key=None, label=None, records=None, storage=ATS_STORAGE):
        super().__init__(tmp)
        self.setup = TrafficServerSetup(tmp, binary)
        self.origin_port = origin_port
        self.cache = cache
        self.records = list(records or [])
        self.storage = storage
        self.key = key or "ats"
        self.label = label or ("Traffic Server (RAM cache %s)" % CACHE_MEM if cache else "Traffic Server")
        self.log_path = self.setup.diags()

    def start(self, port=None):
        """port: the one it had before (a restart), else a free one."""
        self.port = port or free_port()
        self.setup.write(self.port, self.records, self.cache, self.storage)
        self.proc = spawn(self.setup.command(), os.path.join(self.tmp, "ts.out"), cwd=self.tmp)

        def answers():
            if not self.alive():
                raise self.died("at start")
            return port_answers(self.port)

        wait_for("traffic_server's port to answer", answers, 30)
        # and that it forwards
        url = "http://127.0.0.1:%d/probe?s=10" % self.origin_port
        r = run_quiet(["curl", "-s", "-x", "http://127.0.0.1:%d" % self.port, "-o", "/dev/null", "-w", "%{http_code}", url], timeout=20)
        if r.stdout.strip() != "200":
            raise BenchError("traffic_server does not forward (curl: %s):\n%s" % (r.stdout.strip(), tail(self.log_path)))


# ---------------------------------------------------------------- the origin


class Origin(Target):
    """cuttle-origin serving files_dir's files as /files/NAME (a Target for
    its pids() and stop(); nothing is sent through it as a proxy)."""

    key = "cuttle-origin"
    label = "cuttle-origin"
    is_proxy = False

    def __init__(self, binary, files_dir, tmp):
        super().__init__(tmp)
        self.binary = binary
        self.files = files_dir

    def start(self):
        out = os.path.join(self.tmp, "origin.out")
        self.proc = spawn([self.binary, "--listen", "127.0.0.1:0", "--files", self.files], out)

        def listening():
            if self.proc.poll() is not None:
                raise BenchError("cuttle-origin exited at start:\n" + tail(out))
            with open(out) as f:
                m = re.search(r"^listening on 127\.0\.0\.1:(\d+)", f.read(), re.M)
            return int(m.group(1)) if m else None

        self.port = wait_for("cuttle-origin's listening line", listening, 10)

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)


def make_file(origin_binary, path, size):
    with open(path, "wb") as f:
        r = subprocess.run([origin_binary, "--print-body", str(size)], stdout=f, timeout=300, check=False)
    if r.returncode != 0 or os.path.getsize(path) != size:
        raise BenchError("could not write the %d-byte pattern file %s" % (size, path))


# ---------------------------------------------------------------- nginx


class Nginx(Target):
    """nginx with a configuration of its own in tmp (the server blocks are
    the caller's): the HTTPS origin of the TLS section, and a reverse proxy
    with proxy_cache in the disk section. Run in the foreground, as root's
    workers when root (they read the bench's 0700 temp dirs)."""

    def __init__(self, tmp, servers, key="nginx", label="nginx", is_proxy=False, workers="auto"):
        super().__init__(tmp)
        self.servers = servers
        self.key = key
        self.label = label
        self.is_proxy = is_proxy
        self.worker_processes = workers
        self.conf = os.path.join(tmp, "nginx.conf")
        self.log_path = os.path.join(tmp, "error.log")

    def start(self, port=None):
        """port: the one it had before (a restart), else a free one."""
        self.port = port or free_port()
        for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.makedirs(os.path.join(self.tmp, "temp", d), exist_ok=True)
        lines = [
            "daemon off;",
            "worker_processes %s;" % self.worker_processes,
            "error_log %s warn;" % self.log_path,
            "pid %s/nginx.pid;" % self.tmp,
            "events { worker_connections 4096; }",
            "http {",
            "  access_log off;",
            "  default_type application/octet-stream;",
            # no tcp_nopush: with it, a kept-alive connection's small
            # proxy_cache hits each waited 40 ms for a delayed ACK here
            "  sendfile on;",
            "  keepalive_requests 1000000;",
            "  keepalive_timeout 120s;",
        ]
        lines += ["  %s_temp_path %s/temp/%s;" % (("client_body" if d == "body" else d), self.tmp, d) for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi")]
        if os.geteuid() == 0:
            lines.insert(0, "user root;")
        lines += ["  " + line for line in self.servers(self.port)] + ["}"]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.proc = spawn(["nginx", "-p", self.tmp, "-e", self.log_path, "-c", self.conf], os.path.join(self.tmp, "nginx.out"))

        def answers():
            if not self.alive():
                raise BenchError("nginx exited at start:\n" + tail(os.path.join(self.tmp, "nginx.out")) + tail(self.log_path))
            return port_answers(self.port)

        wait_for("nginx's port to answer", answers, 20)

    def url(self, path):
        """A URL of this nginx as an origin (wrk_path's)."""
        return "http://127.0.0.1:%d%s" % (self.port, path)
