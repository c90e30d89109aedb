#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The benchmark behind `make bench`: cuttle against Squid 5.7 and Traffic Server.

One run, on this machine, with every process on loopback ports picked free
and its own configuration in a temp dir:

  targets   cuttle with its default configuration (only port, logs and pid
            file set); Squid 5.7 twice (read_ahead_gap 16 KB, its default,
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
  4. small        wrk -c 50 through each proxy for a 4 KB and a 64 KB object:
                  requests/s and CPU seconds per 10,000 requests.
  5. connections  idle-conns.py's measurement (imported): bytes of RSS per
                  idle client connection and per connection holding half a
                  request line, for cuttle, Squid and Traffic Server.

It writes OUT/benchmarks.md, OUT/benchmarks.json, OUT/bench-throughput.png
and OUT/bench-syscalls.png. Missing tools (squid trafficserver wrk strace
gnuplot-nox procps) are installed from Debian first (through sudo when not
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
import importlib.util
import json
import os
import platform
import pwd
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True

import report  # noqa: E402  (this directory's report.py)
from report import fmt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.normpath(os.path.join(HERE, "..", ".."))

KB, MB, GB = 1000, 1000**2, 1000**3
KiB, MiB, GiB = 1024, 1024**2, 1024**3
CLK_TCK = os.sysconf("SC_CLK_TCK")

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

SWEEP_BUFFERS = ["8 KB", "16 KB", "64 KB", "256 KB", "1 MB", "4 MB"]
SWEEP_AUTO = ["auto min=16 KB max=1 MB", "auto min=64 KB max=4 MB"]
SWEEP_GAPS = ["16 KB", "64 KB", "256 KB", "1 MB", "4 MB"]
# the sweep points that the small-object test also runs
WRK_SWEEP_POINTS = [("16 KB", "16 KB"), ("256 KB", "1 MB")]

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


def load_idle_conns():
    spec = importlib.util.spec_from_file_location("idle_conns", os.path.join(HERE, "idle-conns.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ic = load_idle_conns()


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


def ensure_packages(notes):
    """Installs from Debian the packages whose programs are missing."""
    missing = [pkg for pkg, prog in PACKAGES.items() if not shutil.which(prog) and not os.path.exists("/usr/sbin/" + prog)]
    if not missing:
        log("tools: all present (%s)" % " ".join(PACKAGES))
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


# ---------------------------------------------------------------- targets


class Target:
    """One thing curl and wrk send traffic through; stop() is idempotent."""

    key = "?"
    label = "?"
    is_proxy = True

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
    def __init__(self, tmp, binary, buffer=None, gap=None, key="cuttle", label=None):
        super().__init__(tmp)
        self.binary = binary
        self.buffer = buffer
        self.gap = gap
        self.key = key
        self.label = label or "cuttle"
        self.log_path = os.path.join(tmp, "cache.log")

    def start(self):
        conf = os.path.join(self.tmp, "cuttle.conf")
        lines = [
            "http_port 127.0.0.1:0",
            "access_log stdio:%s/access.log" % self.tmp,
            "cache_log %s" % self.log_path,
            "pid_filename %s/cuttle.pid" % self.tmp,
            "error_directory %s/errors/templates" % SRCDIR,
            "http_access allow localhost",
            "http_access deny all",
        ]
        if self.buffer:
            lines.append("request_buffer_size " + self.buffer)
        if self.gap:
            lines.append("read_ahead_gap " + self.gap)
        with open(conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.proc = spawn([self.binary, "-N", "-f", conf], os.path.join(self.tmp, "cuttle.out"))

        def bound_port():
            if not self.alive():
                raise self.died("at start")
            try:
                with open(self.log_path, errors="replace") as f:
                    for line in f:
                        if "Accepting HTTP Socket connections at" in line and "local=127.0.0.1:" in line:
                            return int(line.split("local=127.0.0.1:")[1].split()[0])
            except OSError:
                pass
            return None

        self.port = wait_for("cuttle's port in cache.log", bound_port, 15)


class Squid(Target):
    def __init__(self, tmp, binary, gap):
        super().__init__(tmp)
        self.binary = binary
        self.gap = gap
        self.key = "squid-%s" % short_size(size_bytes(gap)).lower()
        self.label = "Squid, read_ahead_gap %s" % gap
        # -n: a service name of its own, so its shared memory cannot collide
        self.name = "cbench%s%d" % (short_size(size_bytes(gap)).lower(), os.getpid())
        self.conf = os.path.join(tmp, "squid.conf")
        self.log_path = os.path.join(tmp, "cache.log")

    def start(self):
        self.port = free_port()
        # Squid started as root drops to user proxy: let it write here
        os.chmod(self.tmp, 0o777)
        lines = [
            "http_port 127.0.0.1:%d" % self.port,
            "pid_filename %s/squid.pid" % self.tmp,
            "cache_log %s" % self.log_path,
            "access_log stdio:%s/access.log squid" % self.tmp,
            "cache_store_log none",
            "coredump_dir %s" % self.tmp,
            "cache deny all",
            "read_ahead_gap %s" % self.gap,
            "visible_hostname bench.invalid",
            "pinger_enable off",
            "icp_port 0",
            "htcp_port 0",
            "max_filedescriptors 4096",
            "http_access allow localhost",
            "http_access deny all",
            "shutdown_lifetime 1 second",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.proc = spawn([self.binary, "-N", "-f", self.conf, "-n", self.name], os.path.join(self.tmp, "squid.out"))

        def accepting():
            if not self.alive():
                raise self.died("at start")
            try:
                with open(self.log_path, errors="replace") as f:
                    return "Accepting HTTP Socket connections" in f.read()
            except OSError:
                return False

        wait_for("squid to accept connections", accepting, 30)
        wait_for("squid's port to answer", lambda: port_answers(self.port), 10)

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


def ats_records(port, extra):
    return [
        "CONFIG proxy.config.http.server_ports STRING %d:ipv4:ip-in=127.0.0.1" % port,
        "CONFIG proxy.config.url_remap.remap_required INT 0",
        "CONFIG proxy.config.reverse_proxy.enabled INT 0",
        # never cache: the object and everything else (and no storage)
        "CONFIG proxy.config.http.cache.http INT 0",
        "CONFIG proxy.config.diags.logfile.filename STRING diags.log",
    ] + extra


class TrafficServerSetup:
    """A Traffic Server runroot of its own in a temp dir: the configuration
    copied from /etc/trafficserver, logs, runtime and cache dirs in tmp."""

    def __init__(self, tmp, binary):
        self.tmp = tmp
        self.binary = binary
        self.runroot = os.path.join(tmp, "runroot.yaml")

    def write(self, port, extra_records):
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
            f.write("\n".join(ats_records(port, extra_records + ["CONFIG proxy.config.admin.user_id STRING %s" % user])) + "\n")
        # no cache storage at all
        with open(os.path.join(etc, "storage.config"), "w") as f:
            f.write("")
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
    key = "ats"
    label = "Traffic Server"

    def __init__(self, tmp, binary, origin_port):
        super().__init__(tmp)
        self.setup = TrafficServerSetup(tmp, binary)
        self.origin_port = origin_port
        self.log_path = self.setup.diags()

    def start(self):
        self.port = free_port()
        self.setup.write(self.port, [])
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


# ---------------------------------------------------------------- the origin


class Origin:
    def __init__(self, binary, files_dir, tmp):
        self.binary = binary
        self.files = files_dir
        self.tmp = tmp
        self.proc = None
        self.port = None

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

    def stop(self):
        stop_process(self.proc)


def make_file(origin_binary, path, size):
    with open(path, "wb") as f:
        r = subprocess.run([origin_binary, "--print-body", str(size)], stdout=f, timeout=300, check=False)
    if r.returncode != 0 or os.path.getsize(path) != size:
        raise BenchError("could not write the %d-byte pattern file %s" % (size, path))


# ---------------------------------------------------------------- measuring


CURL_FORMAT = "%{http_code} %{size_download} %{speed_download} %{time_total}"


def curl_cmd(target, url, out="/dev/null", max_time=600):
    cmd = ["curl", "-s", "-S", "-o", out, "-w", CURL_FORMAT, "--max-time", str(max_time)]
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


def download(target, url, size):
    """One timed download: MB/s, the proxy's CPU-s/GB and peak RSS."""
    pids = target.pids()
    cpu0 = cpu_seconds(pids)
    with RssSampler(pids) as sampler:
        r = run_quiet(curl_cmd(target, url), timeout=900)
    cpu1 = cpu_seconds(pids)
    speed = parse_curl(r.stdout, size)
    result = {"mbps": speed / MB}
    if target.is_proxy:
        if not target.alive():
            raise target.died("during the download")
        result["cpu_s_per_gb"] = (cpu1 - cpu0) / (size / GB)
        result["peak_rss"] = sampler.peak
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


def perf_count(target, url, size, tmp):
    """Syscalls of the proxy during one download, by kind, per GB (perf stat)."""
    pids = target.pids()
    out = os.path.join(tmp, "perf.%s.csv" % target.key)
    events = ["raw_syscalls:sys_enter"] + ["syscalls:sys_enter_" + k for k in PERF_KINDS]
    perf = spawn(
        ["perf", "stat", "-x,", "-o", out, "-e", ",".join(events), "-p", ",".join(map(str, pids))],
        os.path.join(tmp, "perf.%s.out" % target.key),
    )
    try:
        time.sleep(0.5)  # for perf to open its counters
        if perf.poll() is not None:
            raise BenchError("perf stat exited: " + tail(os.path.join(tmp, "perf.%s.out" % target.key)))
        r = run_quiet(curl_cmd(target, url), timeout=900)
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


WRK_SCRIPT = """wrk.method = "GET"
wrk.path = "%s"
wrk.headers["Host"] = "127.0.0.1:%d"
"""


def wrk_run(target, origin, size_text, duration, tmp):
    path = "/small?s=%s&cc=no-store" % size_text
    script = os.path.join(tmp, "wrk.%s.%s.lua" % (target.key, size_text))
    with open(script, "w") as f:
        f.write(WRK_SCRIPT % (origin.url(path) if target.is_proxy else path, origin.port))
    port = target.port if target.is_proxy else origin.port
    pids = target.pids()
    cpu0 = cpu_seconds(pids)
    r = run_quiet(
        ["wrk", "-t", "1", "-c", "50", "-d", "%ds" % duration, "--timeout", "10s", "-s", script, "http://127.0.0.1:%d/" % port],
        timeout=duration + 60,
    )
    cpu1 = cpu_seconds(pids)
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
    if target.is_proxy and requests:
        result["cpu_s_per_10k"] = (cpu1 - cpu0) / (requests / 10000)
    return result


# ---------------------------------------------------------------- reporting helpers


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
    if args.squid_path:
        v["squid"] = first_line([args.squid_path, "-v"])
    if args.ats_path:
        v["traffic_server"] = first_line([args.ats_path, "-V"], 3)
    if shutil.which("wrk"):
        v["wrk"] = first_line(["wrk", "-v"]).split(" Copyright")[0]
    if shutil.which("strace"):
        v["strace"] = first_line(["strace", "-V"])
    if shutil.which("perf"):
        v["perf"] = first_line(["perf", "--version"])
    return v


def source_state():
    """The commit cuttle was built from, and the files of src/ and include/
    that differed from it when the run started (a shared checkout)."""
    if not os.path.isdir(os.path.join(SRCDIR, ".git")):
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
        self.shm = tempfile.mkdtemp(prefix="cuttle-bench.", dir="/dev/shm")
        st = os.statvfs(self.shm)
        need = self.big + (0 if self.sweep_size == self.big else self.sweep_size)
        if st.f_bavail * st.f_frsize < need + 256 * MiB:
            raise BenchError("/dev/shm has too little room for %d MiB of files" % (need // MiB))
        self.big_name = "body-%s" % short_size(self.big)
        self.sweep_name = "body-%s" % short_size(self.sweep_size)
        log("origin: writing %s of the pattern to %s" % (short_size(self.big), self.shm))
        make_file(self.args.origin, os.path.join(self.shm, self.big_name), self.big)
        if self.sweep_name != self.big_name:
            make_file(self.args.origin, os.path.join(self.shm, self.sweep_name), self.sweep_size)
        self.origin = Origin(self.args.origin, self.shm, self.tmp)
        self.origin.start()
        log("origin: listening on 127.0.0.1:%d" % self.origin.port)

    def target_dir(self, name):
        d = tempfile.mkdtemp(prefix=name + ".", dir=self.tmp)
        return d

    def main_targets(self):
        """direct, cuttle (default), Squid 16 KB / 64 KB, Traffic Server; unstarted."""
        targets = [Direct(self.tmp), Cuttle(self.target_dir("cuttle"), self.args.cuttle)]
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
            self.section_syscalls([t for t in targets if t.is_proxy and t.alive() and t.key not in errors])
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

    def section_small(self):
        if not shutil.which("wrk"):
            self.not_measured["small"] = "wrk is not installed"
            return
        log("4. small objects: wrk -t 1 -c 50 -d %ds, %d rounds, targets alternated" % (self.wrk_duration, self.rounds))
        targets = self.main_targets()
        for buf, gap in WRK_SWEEP_POINTS:
            label = "cuttle, buffer %s, gap %s" % (buf, gap)
            targets.insert(2, Cuttle(self.target_dir("cuttle"), self.args.cuttle, buffer=buf, gap=gap, key="cuttle-%s-%s" % (short_size(size_bytes(buf)).lower(), short_size(size_bytes(gap)).lower()), label=label))
        targets = self.start_targets(targets)
        results = {}
        try:
            for r in range(self.rounds):
                for size_text in ("4k", "64k"):
                    for t in targets:
                        key = (t.key, size_text)
                        try:
                            res = wrk_run(t, self.origin, size_text, self.wrk_duration, self.tmp)
                            results.setdefault(key, []).append(res)
                            log(
                                "  round %d %-3s %-34s %9.0f req/s %s CPU-s/10k%s"
                                % (
                                    r + 1,
                                    size_text,
                                    t.label,
                                    res["rps"],
                                    fmt(res.get("cpu_s_per_10k"), 3),
                                    "  (%d non-2xx, errors: %s)" % (res["non_2xx"], res["socket_errors"]) if res["non_2xx"] or res["socket_errors"] else "",
                                )
                            )
                        except BenchError as e:
                            results.setdefault(key, [])
                            log("  %s %s: %s" % (t.label, size_text, e))
        finally:
            for t in targets:
                t.stop()
        small = []
        for t in targets:
            for size_text in ("4k", "64k"):
                rs = results.get((t.key, size_text), [])
                small.append(
                    {
                        "target": t.key,
                        "label": t.label,
                        "size": size_text,
                        "rounds": rs,
                        "rps": med([x["rps"] for x in rs]),
                        "cpu_s_per_10k": med([x.get("cpu_s_per_10k") for x in rs]),
                        "non_2xx": sum(x["non_2xx"] for x in rs),
                        "socket_errors": "; ".join(x["socket_errors"] for x in rs if x["socket_errors"]),
                    }
                )
        self.data["small"] = small

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

    # -- the whole run

    def run(self):
        self.data["started"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        self.data["machine"] = machine_info()
        self.data["loadavg_start"] = loadavg()
        self.has_perf = perf_available()
        if not self.has_perf:
            self.notes.append("perf stat cannot count syscall tracepoints here: syscall counts come from strace -c only")
        self.data["versions"] = versions(self.args)
        self.data["source"] = source_state()
        sections = self.args.sections.split(",")
        try:
            self.make_files()
            for name, fn in (
                ("throughput", self.section_throughput),
                ("sweep", self.section_sweep),
                ("small", self.section_small),
                ("connections", self.section_connections),
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
    parser.add_argument("--out", required=True, help="where benchmarks.md, benchmarks.json and the plots go (doc/)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each measurement; medians are reported (default 3)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 round, 256 MiB transfers, 2 s wrk, 2000 connections")
    parser.add_argument("--squid", default=None, help="the squid binary (default: Debian's)")
    parser.add_argument("--traffic-server", default=None, help="the traffic_server binary (default: Debian's)")
    parser.add_argument("--no-install", action="store_true", help="do not install missing tools from Debian")
    parser.add_argument("--sections", default="throughput,sweep,small,connections", help="comma-separated sections to run")
    parser.add_argument("--strace-size", type=int, default=1 * GiB, help="bytes of the strace pass (default 1 GiB)")
    parser.add_argument("--wrk-duration", type=int, default=10, help="seconds of each wrk run (default 10)")
    parser.add_argument("--conns", type=int, default=10000, help="connections of the memory test (default 10000)")
    parser.add_argument("--settle", type=float, default=60, help="bound of each wait of the memory test, in seconds")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 15:
        parser.error("--rounds must be within 1..15")

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

    pngs = report.plots(bench.data, args.out, bench.notes)
    bench.data["argv"] = [os.path.relpath(a, SRCDIR) if os.path.isabs(a) and a.startswith(SRCDIR + os.sep) else a for a in sys.argv]
    with open(os.path.join(args.out, "benchmarks.json"), "w") as f:
        json.dump(bench.data, f, indent=1, default=str)
    report.report(bench.data, args.out, pngs)
    log("bench: wrote %s/benchmarks.md, benchmarks.json%s in %.1f minutes" % (args.out, "".join(", " + p for p in pngs), (time.monotonic() - START) / 60))


if __name__ == "__main__":
    main()
