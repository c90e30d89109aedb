#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""Memory a proxy holds per client connection: idle, and with half a request line.

For each round the proxy is started afresh with a configuration of its own
in a temp dir, listening on a loopback port. The script then

  1. reads the proxy's memory (VmRSS; Pss and Private from smaps_rollup),
  2. opens N connections to it and keeps them idle, waits until the proxy
     has accepted them all (its descriptor count) and its RSS is steady,
     reads the memory again: idle cost = (after - before) / N,
  3. sends half a request line (`GET http://127.0.0.1:1/ab`, no end) on each
     of those connections, waits until the proxy has read every byte (no
     unread bytes left in its sockets' receive queues, from /proc/net/tcp)
     and its RSS is steady, reads again: half-request cost = (after - before) / N,
     the whole cost of such a connection, measured from the same "before",
  4. closes them all and reads again, to see how much comes back,
  5. on a second fresh proxy, sends one whole request on each of N
     connections, one at a time, reads each reply (an error page: nothing
     listens on port 1) and leaves the connections idle: the cost of an
     idle kept-alive connection.

A warm-up request goes first on each proxy, so that what it loads once
(error pages, log buffers) is not counted per connection.

It does this for cuttle and, as the baseline, for Debian's Squid
(`squid -N -f CONF -n benchsquid`), and prints the median of the rounds.
Kernel socket memory is not in a process's RSS, so it is not counted for
either proxy.

All traffic is on 127.0.0.1; every wait is bounded; the proxies are stopped
at the end, even on failure or Ctrl-C.

    test-suite/bench/idle-conns.py --cuttle BUILD/src/cuttle [--conns 10000] [--rounds 3] [--no-squid]
"""

import argparse
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

from targets import BenchError, wait_for  # noqa: E402,F401  (this directory's targets.py; BenchError is bench.py's ic.BenchError)

SRCDIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HALF_LINE = b"GET http://127.0.0.1:1/ab"
# a whole request, answered by an error (nothing listens on port 1), after
# which the connection stays open and idle (keep-alive)
FULL_REQUEST = (
    b"GET http://127.0.0.1:1/ab HTTP/1.1\r\n"
    b"Host: 127.0.0.1:1\r\n"
    b"User-Agent: idle-conns/1.0\r\n"
    b"Accept: */*\r\n"
    b"Accept-Language: en\r\n"
    b"Accept-Encoding: identity\r\n"
    b"Cache-Control: no-cache\r\n"
    b"X-Bench-1: a\r\n"
    b"X-Bench-2: b\r\n"
    b"X-Bench-3: c\r\n"
    b"\r\n"
)
MAX_CONNS = 50000
LONG = "10 minutes"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def memory(pid):
    """VmRSS, Pss and Private (clean + dirty) of pid, in bytes."""
    result = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                result["rss"] = int(line.split()[1]) * 1024
    private = 0
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "Pss:":
                result["pss"] = int(parts[1]) * 1024
            elif parts[0] in ("Private_Clean:", "Private_Dirty:"):
                private += int(parts[1]) * 1024
    result["private"] = private
    return result


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def tcp_rows(port):
    """(state, rx_queue) of every TCP socket whose local port is port."""
    rows = []
    wanted = ":%04X" % port
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    # sl local_address rem_address st tx_queue:rx_queue ...
                    fields = line.split()
                    if fields[1].endswith(wanted):
                        rows.append((fields[3], int(fields[4].split(":")[1], 16)))
        except FileNotFoundError:
            pass
    return rows


LISTEN, ESTABLISHED = "0A", "01"


def accept_queue(port):
    """Connections waiting in the listening socket's accept queue."""
    return sum(rx for state, rx in tcp_rows(port) if state == LISTEN)


def unread_sockets(port):
    """Established server-side sockets holding bytes the proxy has not read."""
    return sum(1 for state, rx in tcp_rows(port) if state == ESTABLISHED and rx > 0)


def open_sockets(port):
    """Server-side sockets of port other than the listening one."""
    return sum(1 for state, rx in tcp_rows(port) if state != LISTEN)


def steady_memory(pid, limit, quiet=1.0):
    """Memory once VmRSS has not changed for `quiet` seconds (bounded by limit)."""
    deadline = time.monotonic() + limit
    last = memory(pid)
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = memory(pid)
        if now["rss"] != last["rss"]:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
    log("  warning: RSS still changing after %.0f s" % limit)
    return last


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nofile_limiter(n):
    def apply():
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
        except (ValueError, OSError):
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    return apply


class Proxy:
    """A proxy process started for one round; stop() is idempotent."""

    name = "?"

    def __init__(self, tmp, fds):
        self.tmp = tmp
        self.fds = fds
        self.proc = None
        self.port = None

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.alive():
            self.proc.kill()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass

    def wait_exit(self, limit):
        try:
            self.proc.wait(limit)
            return True
        except subprocess.TimeoutExpired:
            return False

    def tail(self, path):
        try:
            with open(path, errors="replace") as f:
                return "".join(f.readlines()[-20:])
        except OSError:
            return ""


class Cuttle(Proxy):
    name = "cuttle"

    def __init__(self, binary, tmp, fds):
        super().__init__(tmp, fds)
        self.binary = binary
        self.log = os.path.join(tmp, "cache.log")

    def start(self):
        conf = os.path.join(self.tmp, "cuttle.conf")
        with open(conf, "w") as f:
            f.write(
                "\n".join(
                    [
                        "http_port 127.0.0.1:0",
                        "access_log stdio:%s/access.log" % self.tmp,
                        "cache_log %s" % self.log,
                        "pid_filename %s/cuttle.pid" % self.tmp,
                        "error_directory %s/errors/templates" % SRCDIR,
                        "http_access allow localhost",
                        "http_access deny all",
                        "request_timeout " + LONG,
                        "client_idle_pconn_timeout " + LONG,
                        "read_timeout " + LONG,
                        "shutdown_lifetime 1 second",
                        "",
                    ]
                )
            )
        out = open(os.path.join(self.tmp, "cuttle.out"), "w")
        self.proc = subprocess.Popen(
            [self.binary, "-N", "-f", conf],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=nofile_limiter(self.fds),
        )
        out.close()

        def bound_port():
            if not self.alive():
                raise BenchError("cuttle exited at start:\n" + self.tail(self.log))
            try:
                with open(self.log, errors="replace") as f:
                    for line in f:
                        if "Accepting HTTP Socket connections at" in line and "local=127.0.0.1:" in line:
                            return int(line.split("local=127.0.0.1:")[1].split()[0])
            except OSError:
                pass
            return None

        self.port = wait_for("cuttle's listening port in cache.log", bound_port, 15)

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            if not self.wait_exit(10):
                log("  cuttle did not stop after SIGTERM; killing it")
        self.kill()


class Squid(Proxy):
    name = "squid"

    def __init__(self, binary, tmp, fds):
        super().__init__(tmp, fds)
        self.binary = binary
        self.conf = os.path.join(tmp, "squid.conf")
        self.log = os.path.join(tmp, "cache.log")

    def start(self):
        self.port = free_port()
        # squid started as root drops to its cache_effective_user: let it write here
        os.chmod(self.tmp, 0o777)
        with open(self.conf, "w") as f:
            f.write(
                "\n".join(
                    [
                        "http_port 127.0.0.1:%d" % self.port,
                        "pid_filename %s/squid.pid" % self.tmp,
                        "cache_log %s" % self.log,
                        "access_log none",
                        "cache_store_log none",
                        "coredump_dir %s" % self.tmp,
                        "visible_hostname bench.invalid",
                        "pinger_enable off",
                        "icp_port 0",
                        "htcp_port 0",
                        "max_filedescriptors %d" % self.fds,
                        "http_access allow localhost",
                        "http_access deny all",
                        "request_timeout " + LONG,
                        "client_idle_pconn_timeout " + LONG,
                        "read_timeout " + LONG,
                        "shutdown_lifetime 1 second",
                        "",
                    ]
                )
            )
        out = open(os.path.join(self.tmp, "squid.out"), "w")
        self.proc = subprocess.Popen(
            [self.binary, "-N", "-f", self.conf, "-n", "benchsquid"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=nofile_limiter(self.fds),
        )
        out.close()

        def accepting():
            if not self.alive():
                raise BenchError("squid exited at start:\n" + self.tail(self.log))
            try:
                with open(self.log, errors="replace") as f:
                    return "Accepting HTTP Socket connections" in f.read()
            except OSError:
                return False

        wait_for("squid to accept connections", accepting, 30)
        # make sure it answers (it may still be finishing its start-up)
        def answers():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2):
                    return True
            except OSError:
                return False

        wait_for("squid's port to answer", answers, 10)

    def stop(self):
        if self.alive():
            subprocess.run(
                [self.binary, "-k", "shutdown", "-f", self.conf, "-n", "benchsquid"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=15,
                check=False,
            )
            if not self.wait_exit(15):
                log("  squid did not stop after -k shutdown; killing it")
        self.kill()


def open_connections(port, n, limit):
    """n connected, non-blocking sockets to 127.0.0.1:port (bounded in time)."""
    socks = []
    deadline = time.monotonic() + limit
    try:
        for _ in range(n):
            if time.monotonic() > deadline:
                raise BenchError("opening %d connections took over %.0f s" % (n, limit))
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
    except BaseException:
        close_connections(socks)
        raise
    return socks


def close_connections(socks):
    for s in socks:
        try:
            # reset rather than leave thousands of TIME_WAIT entries behind
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
        except OSError:
            pass
    socks.clear()


def warm_up(proxy, settle):
    """One request first, so that what a proxy loads once (error pages, log
    buffers) is not counted per connection."""
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
        s.sendall(FULL_REQUEST)
        read_reply(s, 10)
    wait_for("%s to close the warm-up connection" % proxy.name, lambda: open_sockets(proxy.port) == 0, settle)


def one_round(proxy, n, settle):
    """Returns a dict of byte figures for one started proxy."""
    pid = proxy.pid
    warm_up(proxy, settle)
    # start from a quiet proxy: no connection (e.g. a start-up probe) left
    wait_for("%s to close its earlier connections" % proxy.name, lambda: open_sockets(proxy.port) == 0, settle)
    base_fds = fd_count(pid)
    before = steady_memory(pid, settle)
    socks = open_connections(proxy.port, n, settle)
    try:
        wait_for(
            "%s to accept %d connections" % (proxy.name, n),
            lambda: accept_queue(proxy.port) == 0 and fd_count(pid) >= base_fds + n,
            settle,
            step=0.2,
        )
        idle = steady_memory(pid, settle)
        if not proxy.alive():
            raise BenchError("%s died with %d idle connections" % (proxy.name, n))

        for s in socks:
            s.send(HALF_LINE)
        wait_for(
            "%s to read every half request line" % proxy.name,
            lambda: unread_sockets(proxy.port) == 0,
            settle,
            step=0.2,
        )
        half = steady_memory(pid, settle)
        still_open = fd_count(pid) - base_fds
        if still_open < n:
            raise BenchError("%s closed %d connections holding half a request" % (proxy.name, n - still_open))
    finally:
        close_connections(socks)

    wait_for(
        "%s to close the connections" % proxy.name,
        lambda: fd_count(pid) <= base_fds,
        settle,
        step=0.2,
    )
    after = steady_memory(pid, settle)
    figures = {}
    for key in ("rss", "pss", "private"):
        figures["idle_" + key] = (idle[key] - before[key]) / n
        figures["half_" + key] = (half[key] - before[key]) / n
        figures["kept_" + key] = (after[key] - before[key]) / n
    figures["base_rss"] = before["rss"]
    figures["peak_rss"] = half["rss"]
    figures["after_rss"] = after["rss"]
    return figures


def read_reply(s, limit):
    """Reads one reply with a Content-Length body from blocking socket s."""
    s.settimeout(limit)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise BenchError("the proxy closed a connection before replying")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
        if name.strip().lower() == b"connection" and b"close" in value.lower():
            raise BenchError("the proxy closes the connection after: " + head.split(b"\r\n")[0].decode("latin1"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise BenchError("the proxy closed a connection in the middle of a reply")
        body += chunk


def keepalive_round(proxy, n, settle):
    """Per-connection bytes of connections that are idle after one request."""
    pid = proxy.pid
    warm_up(proxy, settle)
    before = steady_memory(pid, settle)
    socks = open_connections(proxy.port, n, settle)
    try:
        deadline = time.monotonic() + settle
        # one at a time, so that the proxy never holds more than one reply
        for s in socks:
            if time.monotonic() > deadline:
                raise BenchError("%d requests took over %.0f s" % (n, settle))
            s.setblocking(True)
            s.sendall(FULL_REQUEST)
            read_reply(s, 10)
        after = steady_memory(pid, settle)
    finally:
        close_connections(socks)
    return {"keepalive_" + key: (after[key] - before[key]) / n for key in ("rss", "pss", "private")}


def run_rounds(make_proxy, rounds, n, settle):
    results = []
    for r in range(rounds):
        tmp = tempfile.mkdtemp(prefix="idle-conns.")
        proxy = make_proxy(tmp)
        try:
            proxy.start()
            figures = one_round(proxy, n, settle)
            proxy.stop()
            # idle after a request, on a fresh proxy so that memory freed by
            # the first part is not counted as reused
            shutil.rmtree(tmp, ignore_errors=True)
            os.mkdir(tmp)
            proxy = make_proxy(tmp)
            proxy.start()
            figures.update(keepalive_round(proxy, n, settle))
            results.append(figures)
            log(
                "  %s round %d: idle %.0f B, half %.0f B, idle after a request %.0f B per connection (RSS %d kB -> %d kB -> %d kB after close)"
                % (
                    proxy.name,
                    r + 1,
                    figures["idle_rss"],
                    figures["half_rss"],
                    figures["keepalive_rss"],
                    figures["base_rss"] // 1024,
                    figures["peak_rss"] // 1024,
                    figures["after_rss"] // 1024,
                )
            )
        finally:
            proxy.stop()
            shutil.rmtree(tmp, ignore_errors=True)
    return results


def median(results, key):
    return statistics.median(r[key] for r in results)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuttle", default=os.environ.get("CUTTLE", "src/cuttle"), help="the cuttle binary")
    parser.add_argument("--squid", default=shutil.which("squid") or "/usr/sbin/squid", help="the squid binary")
    parser.add_argument("--no-squid", action="store_true", help="measure cuttle only")
    parser.add_argument("--no-cuttle", action="store_true", help="measure squid only")
    parser.add_argument("--conns", "-n", type=int, default=10000, help="connections per round (default 10000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per proxy; the median is reported")
    parser.add_argument("--settle", type=float, default=60, help="bound of each wait, in seconds")
    args = parser.parse_args()

    # SIGTERM/SIGHUP end the run like Ctrl-C, so the proxies are stopped
    def interrupted(signum, frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)

    n = args.conns
    if not 1 <= n <= MAX_CONNS:
        parser.error("--conns must be within 1..%d" % MAX_CONNS)
    if not 1 <= args.rounds <= 15:
        parser.error("--rounds must be within 1..15")

    # this process holds n sockets; each proxy n plus its own
    want = n + 256
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
        except (ValueError, OSError):
            if hard < want:
                sys.exit("RLIMIT_NOFILE hard limit %d is below the %d descriptors needed; use fewer --conns" % (hard, want))
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    # twice N: Squid stops keeping connections alive once under a quarter
    # of its descriptors are free ("fdUsageHigh")
    proxy_fds = 2 * n + 1024

    rows = []
    try:
        if not args.no_cuttle:
            cuttle = os.path.abspath(args.cuttle)
            if not os.access(cuttle, os.X_OK):
                sys.exit("no cuttle binary at %s (use --cuttle)" % cuttle)
            log("cuttle: %d rounds of %d connections" % (args.rounds, n))
            rows.append(("cuttle", run_rounds(lambda t: Cuttle(cuttle, t, proxy_fds), args.rounds, n, args.settle)))
        if not args.no_squid:
            log("squid: %d rounds of %d connections" % (args.rounds, n))
            rows.append(("squid", run_rounds(lambda t: Squid(args.squid, t, proxy_fds), args.rounds, n, args.settle)))
    except BenchError as e:
        sys.exit("idle-conns: " + str(e))
    except KeyboardInterrupt:
        sys.exit("idle-conns: interrupted")

    print()
    print("bytes per client connection, median of %d rounds of %d connections" % (args.rounds, n))
    print("(VmRSS delta / N; Pss and Private from smaps_rollup; 'after close': what stays once")
    print("the connections closed; 'kept-alive': RSS per connection left idle after one request)")
    print()
    header = "%-8s %10s %10s %10s %10s %10s %12s %12s" % (
        "proxy",
        "idle RSS",
        "idle Priv",
        "half RSS",
        "half Priv",
        "half Pss",
        "after close",
        "kept-alive",
    )
    print(header)
    print("-" * len(header))
    for name, results in rows:
        print(
            "%-8s %10.0f %10.0f %10.0f %10.0f %10.0f %12.0f %12.0f"
            % (
                name,
                median(results, "idle_rss"),
                median(results, "idle_private"),
                median(results, "half_rss"),
                median(results, "half_private"),
                median(results, "half_pss"),
                median(results, "kept_rss"),
                median(results, "keepalive_rss"),
            )
        )


if __name__ == "__main__":
    main()
