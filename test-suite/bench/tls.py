# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The TLS section of `make bench` (issue 17; bench.py imports this).

One run, every target alternated round robin in each round:

  origin    nginx serving HTTPS (TLS 1.3) from the bench's tmpfs dir: the
            big object (1 GiB; 256 MiB with --quick) and a 4 KiB file,
            with an ECDSA P-256 certificate from an "origin CA", and one
            certificate of its own for each never-seen host name.
  targets   direct HTTPS (curl straight to nginx: the limit); Debian's
            Squid 5.7 with SSL bump (the squid-openssl package, downloaded
            with apt-get and unpacked in the temp dir with dpkg -x: it
            would replace the squid package if installed), its
            security_file_certgen helper minting from a "bump CA"; cuttle
            with the same squid.conf lines; Traffic Server (no bump:
            https:// fetches and CONNECT). Names resolve through each
            proxy's hosts file (curl --resolve when direct).

The client trusts only the CA it should meet: the bump CA through a bump,
the origin CA when spliced or direct, so a proxy that splices where it
should bump (or the reverse) fails the row instead of measuring the wrong
thing. Should `cuttle -k parse` refuse the bump configuration (a cuttle
older than its SSL bump), its bump rows are not measured and its CONNECT
and https:// rows run with a plain configuration.

Rows: a big object bumped, spliced (CONNECT) and fetched as an https://
URL by a plain-HTTP client (MB/s, CPU-s/GB of the proxy with its
helpers); 4 KiB objects over bumped keep-alive connections (curl -K,
requests/s, CPU microseconds per request); the time to the first byte of
a 4 KiB object from a host name seen for the first time (the proxy mints
a certificate) and again from the same name on a new connection (the
certificate is cached), with the proxy's CPU for each.

run() returns the figures for benchmarks.json; report_section() and
plot() write its part of doc/benchmarks.md.
"""

import glob
import os
import pwd
import re
import shutil
import statistics
import subprocess
import sys
import time

from reportlib import bar_plot, fmt, human_size, md_table, met, ratio, section_head
from targets import (
    SRCDIR,
    BenchError,
    Cuttle,
    Nginx,
    Squid,
    TrafficServer,
    Target,
    cpu_seconds,
    cpu_seconds_fine,
    download,
    log,
    run_quiet,
    settle,
    short_size,
    spawn,
    stop_process,
    tail,
    wait_for,
)

DOMAIN = "bench.test"  # RFC 2606: never a real name
ORIGIN_HOST = "origin." + DOMAIN
TUNNEL_HOST = "tunnel." + DOMAIN  # the bumping proxies splice this one
SMALL_NAME = "small-4k"
CURL_FORMAT = "%{http_code} %{size_download} %{speed_download} %{time_total}"

# the squid.conf lines of a bumping port and its rules, as Squid 5 has them
# (cuttle gets the same): peek at the client's SNI, splice TUNNEL_HOST, bump the rest
BUMP_RULES = [
    "acl step1 at_step SslBump1",
    "acl tunnelled ssl::server_name " + TUNNEL_HOST,
    "ssl_bump peek step1",
    "ssl_bump splice tunnelled",
    "ssl_bump bump all",
]

KINDS = ("bump", "splice", "https")
# the targets' names under the plot's bars
PLOT_NAMES = {"cuttle": "cuttle", "squid-bump": "Squid (squid-openssl)", "ats": "Traffic Server"}
KIND_LABELS = {
    "bump": "bumped",
    "splice": "spliced (CONNECT)",
    "https": "`https://` URL for a plain client",
}


# ---------------------------------------------------------------- certificates and names


def openssl(args, what):
    r = run_quiet(["openssl"] + args, timeout=60)
    if r.returncode != 0:
        raise BenchError("openssl %s: %s" % (what, r.stdout.strip()[-300:]))


class Pki:
    """Two test CAs in dir (the origin's and the bump's) and the origin's
    certificates: one for ORIGIN_HOST and TUNNEL_HOST, one for each name
    of first_names (so that a proxy mimicking the origin's certificate
    mints a new one for each)."""

    def __init__(self, d, first_names):
        self.dir = d
        self.first_names = first_names
        self.origin_ca = os.path.join(d, "origin-ca.pem")
        self.bump_ca = os.path.join(d, "bump-ca.pem")
        self.bump_key = os.path.join(d, "bump-ca.key")
        self.leaf_key = os.path.join(d, "leaf.key")

    def cert(self, name):
        return os.path.join(self.dir, "cert-%s.pem" % name)

    def make(self):
        for ca, key, cn in ((self.origin_ca, os.path.join(self.dir, "origin-ca.key"), "cuttle bench origin CA"), (self.bump_ca, self.bump_key, "cuttle bench bump CA")):
            openssl(
                ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", ca, "-days", "30", "-subj", "/CN=" + cn,
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                "making " + cn,
            )
        openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", self.leaf_key], "making the origin's key")
        for serial, (name, sans) in enumerate([(ORIGIN_HOST, [ORIGIN_HOST, TUNNEL_HOST])] + [(n, [n]) for n in self.first_names]):
            openssl(
                ["req", "-x509", "-new", "-key", self.leaf_key, "-subj", "/CN=" + name, "-addext", "subjectAltName=" + ",".join("DNS:" + s for s in sans),
                 "-CA", self.origin_ca, "-CAkey", os.path.join(self.dir, "origin-ca.key"), "-set_serial", str(1000 + serial), "-days", "30", "-out", self.cert(name)],
                "certifying " + name,
            )
        for path in glob.glob(os.path.join(self.dir, "*")):
            os.chmod(path, 0o644)


def nginx_servers(pki, root):
    """nginx's server blocks (a function of its port): ORIGIN_HOST's, the
    default, and one per never-seen name, each with its own certificate."""

    def servers(port):
        out = []
        for name, default in [(ORIGIN_HOST, True)] + [(n, False) for n in pki.first_names]:
            out += [
                "server {",
                "  listen 127.0.0.1:%d ssl%s;" % (port, " default_server" if default else ""),
                "  server_name %s;" % (name + (" " + TUNNEL_HOST if default else "")),
                "  ssl_certificate %s;" % pki.cert(name),
                "  ssl_certificate_key %s;" % pki.leaf_key,
                "  ssl_protocols TLSv1.2 TLSv1.3;",
                "  ssl_session_cache shared:tls:10m;",
                "  root %s;" % root,
                "}",
            ]
        return out

    return servers


# ---------------------------------------------------------------- Squid with SSL bump


def unpack_squid_openssl(d):
    """Debian's squid-openssl, downloaded and unpacked into d (beside the
    installed squid, which it would replace if installed): its squid and
    security_file_certgen, which use the installed squid's libraries and
    data (/usr/share/squid). Returns (squid, certgen)."""
    os.makedirs(d, exist_ok=True)
    r = run_quiet(["apt-get", "download", "squid-openssl"], timeout=300, cwd=d)
    debs = glob.glob(os.path.join(d, "squid-openssl_*.deb"))
    if not debs:
        raise BenchError("apt-get download squid-openssl: %s" % r.stdout.strip()[-300:])
    root = os.path.join(d, "root")
    r = run_quiet(["dpkg", "-x", debs[0], root], timeout=120)
    squid, certgen = os.path.join(root, "usr/sbin/squid"), os.path.join(root, "usr/lib/squid/security_file_certgen")
    if r.returncode != 0 or not os.access(squid, os.X_OK) or not os.access(certgen, os.X_OK):
        raise BenchError("dpkg -x %s: %s" % (os.path.basename(debs[0]), r.stdout.strip()[-300:]))
    missing = [line.strip() for line in run_quiet(["ldd", squid]).stdout.splitlines() if "not found" in line]
    if missing:
        raise BenchError("squid-openssl's squid lacks libraries: %s" % "; ".join(missing))
    v = run_quiet([squid, "-v"]).stdout
    if "--with-openssl" not in v or "--enable-ssl-crtd" not in v:
        raise BenchError("the unpacked squid was not built with OpenSSL and ssl_crtd")
    # root's tmp dirs are 0700: Squid's user (proxy) runs the helper
    for p in [d, root] + [os.path.join(root, x) for x in ("usr", "usr/sbin", "usr/lib", "usr/lib/squid")]:
        os.chmod(p, 0o755)
    return squid, certgen, v.splitlines()[0].strip()


class SquidBump(Squid):
    """Squid 5.7 from squid-openssl with an ssl-bump port minting from the
    bump CA through security_file_certgen, BUMP_RULES, the origin CA for
    its TLS to origins, and the names of the run in its hosts file."""

    def __init__(self, tmp, binary, certgen, pki, hosts, dns):
        super().__init__(tmp, binary, key="squid-bump", label="Squid (squid-openssl, ssl-bump)")
        self.name = "cbenchtls%d" % os.getpid()
        self.certgen = certgen
        self.pki = pki
        self.hosts = hosts
        self.dns = dns  # an address of dns_nameservers
        self.db = os.path.join(tmp, "ssl_db")

    def port_line(self):
        return "http_port 127.0.0.1:%d ssl-bump tls-cert=%s tls-key=%s generate-host-certificates=on dynamic_cert_mem_cache_size=4MB" % (
            self.port, self.pki.bump_ca, self.pki.bump_key)

    def extra_lines(self):
        return ["sslcrtd_program %s -s %s -M 16MB" % (self.certgen, self.db), "sslcrtd_children 5"] + BUMP_RULES + [
            "tls_outgoing_options cafile=%s" % self.pki.origin_ca, "hosts_file %s" % self.hosts, "dns_nameservers %s" % self.dns]

    def start(self):
        # the helper's certificate database, made as Squid's user will use it
        if not os.path.exists(self.db):
            r = run_quiet([self.certgen, "-c", "-s", self.db, "-M", "16MB"], timeout=30)
            if r.returncode != 0:
                raise BenchError("security_file_certgen -c: %s" % r.stdout.strip()[-300:])
            if os.geteuid() == 0:
                try:
                    ent = pwd.getpwnam("proxy")
                    for base, dirs, files in os.walk(self.db):
                        for n in dirs + files + [""]:
                            os.chown(os.path.join(base, n) if n else base, ent.pw_uid, ent.pw_gid)
                except KeyError:
                    pass
        super().start()


def cuttle_bump_lines(pki, hosts, dns_port):
    """cuttle's lines beyond the default configuration, Squid's words for a
    bump (the http_port options apart: Cuttle's port_options)."""
    return ["sslcrtd_program /usr/lib/squid/security_file_certgen -s /var/lib/squid/ssl_db -M 4MB", "sslcrtd_children 5"] + BUMP_RULES + [
        "tls_outgoing_options cafile=%s" % pki.origin_ca, "hosts_file %s" % hosts, "dns_nameservers 127.0.0.1:%d" % dns_port, "cache deny all"]


def cuttle_bump_options(pki):
    return "ssl-bump tls-cert=%s tls-key=%s generate-host-certificates=on dynamic_cert_mem_cache_size=4MB" % (pki.bump_ca, pki.bump_key)


def parse_refusal(cuttle):
    """Why `cuttle -k parse` refuses the target's configuration, or None."""
    r = run_quiet([cuttle.binary, "-k", "parse", "-f", cuttle.write_config()], timeout=30)
    if r.returncode == 0:
        return None
    lines = [line.strip() for line in r.stdout.splitlines() if line.strip()]
    # FILE:LINE: reason, without the temp dir
    return lines[0].replace(os.path.dirname(cuttle.conf) + os.sep, "") if lines else "exit %d" % r.returncode


class DirectTls(Target):
    """curl straight to nginx (the limit): no proxy, no proxy CPU."""

    key = "direct"
    label = "direct HTTPS (no proxy)"
    is_proxy = False

    def __init__(self, nginx):
        super().__init__(nginx.tmp)
        self.port = nginx.port

    def start(self):
        pass

    def pids(self):
        return []


# ---------------------------------------------------------------- measuring


class TlsRun:
    def __init__(self, bench):
        self.bench = bench
        self.tmp = bench.target_dir("tls")
        os.chmod(self.tmp, 0o755)
        self.quick = bench.quick
        self.rounds = bench.rounds
        self.size = bench.gib_size
        self.big_name = bench.gib_name
        self.names_per_round = 3 if self.quick else 5
        self.small_conns = 4
        self.small_requests = 300 if self.quick else 2500
        self.nonce = int(time.time()) % 100000
        self.not_measured = {}

    def first_name(self, key, r, i):
        return "f%d-%s-%d-%d.%s" % (self.nonce, key, r, i, DOMAIN)

    # -- curl commands

    def curl(self, ca, target, extra=(), url=None, out=None):
        cmd = ["curl", "-s", "-S", "-o", out or "/dev/null", "-w", CURL_FORMAT, "--max-time", "600", "--cacert", ca]
        if target.is_proxy:
            cmd += ["-x", "http://127.0.0.1:%d" % target.port]
        else:
            cmd += ["--noproxy", "*"] + [x for n in (ORIGIN_HOST, TUNNEL_HOST) for x in ("--resolve", "%s:%d:127.0.0.1" % (n, self.nginx.port))]
        return cmd + list(extra) + ([url] if url else [])

    def big_cmd(self, target, kind):
        path = "/" + self.big_name
        if kind == "bump":
            return self.curl(self.pki.bump_ca, target, url="https://%s:%d%s" % (ORIGIN_HOST, self.nginx.port, path))
        if kind == "splice":
            return self.curl(self.pki.origin_ca, target, url="https://%s:%d%s" % (TUNNEL_HOST, self.nginx.port, path))
        if kind == "https":
            absolute = "https://%s:%d%s" % (ORIGIN_HOST, self.nginx.port, path)
            return self.curl(self.pki.origin_ca, target, ["--request-target", absolute], "http://%s:%d%s" % (ORIGIN_HOST, self.nginx.port, path))
        # direct
        return self.curl(self.pki.origin_ca, target, url="https://%s:%d%s" % (ORIGIN_HOST, self.nginx.port, path))

    # -- the processes

    def setup(self):
        bench = self.bench
        self.targets_planned = ["direct", "cuttle", "squid-bump"]
        names = [self.first_name(k, r, i) for k in self.targets_planned for r in range(self.rounds) for i in range(self.names_per_round)]
        self.pki = Pki(os.path.join(self.tmp, "pki"), names)
        os.makedirs(self.pki.dir)
        os.chmod(self.pki.dir, 0o755)
        log("  certificates: two CAs and %d origin certificates" % (len(names) + 1))
        self.pki.make()
        self.hosts = os.path.join(self.tmp, "hosts")
        with open(self.hosts, "w") as f:
            for n in [ORIGIN_HOST, TUNNEL_HOST] + names:
                f.write("127.0.0.1 %s\n" % n)
        os.chmod(self.hosts, 0o644)
        # and a DNS server on loopback with the same names, for a proxy that
        # asks DNS anyway (Traffic Server): no query leaves this machine
        out = os.path.join(self.tmp, "fakedns.out")
        cmd = [sys.executable, os.path.join(SRCDIR, "test-suite", "fakedns.py"), "--listen", "127.0.0.1:0"]
        for n in [ORIGIN_HOST, TUNNEL_HOST] + names:
            cmd += ["--record", n + "=127.0.0.1"]
        self.dns = spawn(cmd, out)

        def listening():
            if self.dns.poll() is not None:
                raise BenchError("fakedns.py exited: " + tail(out))
            with open(out) as f:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", f.read())
            return int(m.group(1)) if m else None

        self.dns_port = wait_for("fakedns.py's listening line", listening, 10)
        with open(os.path.join(bench.shm, SMALL_NAME), "wb") as f:
            f.write(b"x" * 4096)
        self.nginx = Nginx(bench.target_dir("nginx-tls"), nginx_servers(self.pki, bench.shm), key="nginx", label="nginx (HTTPS origin)")
        self.nginx.start()
        log("  nginx (HTTPS origin) on port %d" % self.nginx.port)
        self.direct = DirectTls(self.nginx)

    def make_targets(self):
        """[(target, kinds it runs)], unstarted; the reasons of those left out in not_measured."""
        bench = self.bench
        out = [(self.direct, ["direct"])]
        cuttle = Cuttle(bench.target_dir("cuttle-tls"), bench.args.cuttle, key="cuttle", label="cuttle", extra=cuttle_bump_lines(self.pki, self.hosts, self.dns_port), port_options=cuttle_bump_options(self.pki))
        refusal = parse_refusal(cuttle)
        if refusal is None:
            out.append((cuttle, list(KINDS)))
        else:
            self.cuttle_refusal = refusal
            for what in ("bump", "small", "first"):
                self.not_measured["cuttle/" + what] = "cuttle -k parse refuses the bump configuration: " + refusal
            plain = [line for line in cuttle_bump_lines(self.pki, self.hosts, self.dns_port) if line.startswith(("tls_outgoing_options", "hosts_file", "dns_nameservers", "cache "))]
            out.append((Cuttle(bench.target_dir("cuttle-tls"), bench.args.cuttle, key="cuttle", label="cuttle (no bump yet: plain http_port)", extra=plain), ["splice", "https"]))
        try:
            squid, certgen, version = unpack_squid_openssl(os.path.join(self.tmp, "squid-openssl"))
            self.squid_version = version
            out.append((SquidBump(bench.target_dir("squid-tls"), squid, certgen, self.pki, self.hosts, "127.0.0.1"), list(KINDS)))
        except BenchError as e:
            self.not_measured["squid-bump"] = str(e)
        if bench.args.ats_path:
            records = [
                "CONFIG proxy.config.http.connect_ports STRING 1-65535",
                "CONFIG proxy.config.hostdb.host_file.path STRING %s" % self.hosts,
                "CONFIG proxy.config.ssl.client.CA.cert.path STRING %s" % self.pki.dir,
                "CONFIG proxy.config.ssl.client.CA.cert.filename STRING %s" % os.path.basename(self.pki.origin_ca),
                "CONFIG proxy.config.ssl.client.verify.server.policy STRING ENFORCED",
                # it refuses a GET https:// from a plain-HTTP client by default
                "CONFIG proxy.config.ssl.client.scheme_proto_mismatch_policy INT 0",
                "CONFIG proxy.config.dns.nameservers STRING 127.0.0.1:%d" % self.dns_port,
                "CONFIG proxy.config.dns.resolv_conf STRING NULL",
            ]
            out.append((TrafficServer(bench.target_dir("ats-tls"), bench.args.ats_path, bench.origin.port, records=records, label="Traffic Server (no bump)"), ["splice", "https"]))
        else:
            self.not_measured["ats"] = "traffic_server is not installed"
        return out

    def start(self, planned):
        started = []
        for t, kinds in planned:
            if t is self.direct:
                started.append((t, kinds))
                continue
            try:
                t.start()
                settle(t)
                started.append((t, kinds))
                log("  %s on port %d (pid %d)" % (t.label, t.port, t.proc.pid))
            except (BenchError, OSError) as e:
                t.stop()
                self.not_measured[t.key] = "%s could not be started: %s" % (t.label, str(e).strip())
                log("  NOT MEASURED: " + self.not_measured[t.key])
        return started

    # -- the rows

    def big_rows(self, targets):
        log("  a %s object: bumped, spliced, https:// for a plain client, %d round(s), targets alternated" % (short_size(self.size), self.rounds))
        results, problems = {}, {}
        for r in range(self.rounds):
            for kind in ("direct",) + KINDS:
                for t, kinds in targets:
                    if kind not in kinds or (t.key, kind) in problems:
                        continue
                    try:
                        res = download(t, None, self.size, cmd=self.big_cmd(t, kind))
                        results.setdefault((t.key, kind), []).append(res)
                        log("  round %d %-18s %-40s %7.0f MB/s  %s CPU-s/GB" % (r + 1, kind, t.label, res["mbps"], fmt(res.get("cpu_s_per_gb"), 2)))
                    except BenchError as e:
                        problems[(t.key, kind)] = str(e).strip()
                        log("  %s %s: %s" % (t.label, kind, e))
        rows = []
        for t, kinds in targets:
            for kind in kinds:
                rs = results.get((t.key, kind), [])
                rows.append({
                    "target": t.key, "label": t.label, "kind": kind, "rounds": rs,
                    "mbps": med([x["mbps"] for x in rs]),
                    "mbps_min": min((x["mbps"] for x in rs), default=None),
                    "mbps_max": max((x["mbps"] for x in rs), default=None),
                    "cpu_s_per_gb": med([x.get("cpu_s_per_gb") for x in rs]),
                    "peak_rss": med([x.get("peak_rss") for x in rs]),
                    "problem": problems.get((t.key, kind), ""),
                })
        return rows

    def small_run(self, t):
        """small_conns curl processes, each small_requests bumped 4 KiB GETs
        on one kept-alive connection (curl -K): requests/s and the proxy's
        CPU per request."""
        url = "https://%s:%d/%s" % (ORIGIN_HOST, self.nginx.port, SMALL_NAME)
        listing = os.path.join(self.tmp, "small.curlrc")
        with open(listing, "w") as f:
            f.write('url = "%s"\noutput = "/dev/null"\n' % url * self.small_requests)
        ca = self.pki.bump_ca if t.is_proxy else self.pki.origin_ca
        cmd = self.curl(ca, t, ["-K", listing])
        # one line per transfer: its status, and whether it opened a connection
        cmd[cmd.index(CURL_FORMAT)] = "%{http_code} %{num_connects}\\n"
        outs = [os.path.join(self.tmp, "small.%d.out" % i) for i in range(self.small_conns)]
        pids = t.pids()
        cpu0 = cpu_seconds(pids)
        t0 = time.monotonic()
        procs = []
        for out in outs:
            procs.append(spawn(cmd, out))
        limit = 120 if self.quick else 600
        for p in procs:
            try:
                p.wait(max(1, limit - (time.monotonic() - t0)))
            except subprocess.TimeoutExpired:
                log("  the 4 KiB clients took over %d s: stopped" % limit)
            stop_process(p, grace=1)
        elapsed = time.monotonic() - t0
        cpu = cpu_seconds(pids) - cpu0
        ok = connects = bad = 0
        for out in outs:
            with open(out, errors="replace") as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2 and parts[0] == "200":
                        ok += 1
                        connects += int(parts[1])
                    elif parts:
                        bad += 1
        if not ok:
            raise BenchError("no 4 KiB reply was a 200 (%d others): %s" % (bad, open(outs[0], errors="replace").read()[-300:]))
        res = {"requests": ok, "failed": bad, "connections": connects, "seconds": elapsed, "rps": ok / elapsed}
        if pids:
            res["cpu_us_per_request"] = cpu / ok * 1e6
        return res

    def small_rows(self, targets):
        log("  4 KiB objects: %d curl clients x %d requests on one bumped connection each, %d round(s)" % (self.small_conns, self.small_requests, self.rounds))
        results, problems = {}, {}
        chosen = [(t, kinds) for t, kinds in targets if "bump" in kinds or t is self.direct]
        for r in range(self.rounds):
            for t, _ in chosen:
                if t.key in problems:
                    continue
                try:
                    res = self.small_run(t)
                    results.setdefault(t.key, []).append(res)
                    log("  round %d %-40s %7.0f requests/s  %s CPU us/request  (%d connections, %d failed)" % (r + 1, t.label, res["rps"], fmt(res.get("cpu_us_per_request")), res["connections"], res["failed"]))
                except (BenchError, OSError) as e:
                    problems[t.key] = str(e).strip()
                    log("  %s: %s" % (t.label, e))
        return [
            {
                "target": t.key, "label": t.label, "rounds": results.get(t.key, []),
                "rps": med([x["rps"] for x in results.get(t.key, [])]),
                "cpu_us_per_request": med([x.get("cpu_us_per_request") for x in results.get(t.key, [])]),
                "connections": sum(x["connections"] for x in results.get(t.key, [])),
                "requests": sum(x["requests"] for x in results.get(t.key, [])),
                "failed": sum(x["failed"] for x in results.get(t.key, [])),
                "problem": problems.get(t.key, ""),
            }
            for t, _ in chosen
        ]

    def first_fetch(self, t, name):
        """One fetch of the 4 KiB file from name on a new connection: time
        to the first byte (ms) and the proxy's CPU (ms)."""
        ca = self.pki.bump_ca if t.is_proxy else self.pki.origin_ca
        cmd = self.curl(ca, t, url="https://%s:%d/%s" % (name, self.nginx.port, SMALL_NAME))
        cmd[cmd.index(CURL_FORMAT)] = "%{http_code} %{time_starttransfer}"
        if not t.is_proxy:
            cmd[-1:-1] = ["--resolve", "%s:%d:127.0.0.1" % (name, self.nginx.port)]
        pids = t.pids()
        cpu0 = cpu_seconds_fine(pids)
        r = run_quiet(cmd, timeout=60)
        cpu = cpu_seconds_fine(t.pids()) - cpu0
        parts = r.stdout.split()
        if len(parts) != 2 or parts[0] != "200":
            raise BenchError("curl https://%s/: %s" % (name, r.stdout.strip()[-300:]))
        return float(parts[1]) * 1000, cpu * 1000 if pids else None

    def first_rows(self, targets):
        log("  first contact: %d never-seen host names per target and round, each fetched twice (new connections)" % self.names_per_round)
        results, problems = {}, {}
        chosen = [(t, kinds) for t, kinds in targets if "bump" in kinds or t is self.direct]
        for r in range(self.rounds):
            for i in range(self.names_per_round):
                for t, _ in chosen:
                    if t.key in problems:
                        continue
                    name = self.first_name(t.key, r, i)
                    try:
                        first = self.first_fetch(t, name)
                        again = self.first_fetch(t, name)
                        results.setdefault(t.key, []).append({"name": name, "ttfb_ms": first[0], "cpu_ms": first[1], "again_ttfb_ms": again[0], "again_cpu_ms": again[1]})
                    except BenchError as e:
                        problems[t.key] = str(e).strip()
                        log("  %s: %s" % (t.label, e))
        rows = []
        for t, _ in chosen:
            rs = results.get(t.key, [])
            row = {"target": t.key, "label": t.label, "names": len(rs), "problem": problems.get(t.key, ""), "fetches": rs}
            for field in ("ttfb_ms", "cpu_ms", "again_ttfb_ms", "again_cpu_ms"):
                row[field] = med([x[field] for x in rs])
            rows.append(row)
            if rs:
                log("  %-40s first contact %s ms to the first byte (%s ms CPU), again %s ms (%s ms CPU)" % (t.label, fmt(row["ttfb_ms"], 1), fmt(row["cpu_ms"], 1), fmt(row["again_ttfb_ms"], 1), fmt(row["again_cpu_ms"], 1)))
        return rows


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def run(bench):
    """The TLS section: its figures, and what it could not measure in bench.not_measured."""
    tr = TlsRun(bench)
    data = {"size": tr.size, "rounds": tr.rounds, "quick": tr.quick, "names_per_round": tr.names_per_round,
            "small_conns": tr.small_conns, "small_requests": tr.small_requests, "bump_rules": BUMP_RULES}
    planned = []
    try:
        if not shutil.which("nginx"):
            raise BenchError("nginx is not installed")
        try:
            tr.setup()
            planned = tr.make_targets()
        except OSError as e:
            raise BenchError("setting up: %s" % e)
        data["cuttle_refusal"] = getattr(tr, "cuttle_refusal", None)
        data["squid_version"] = getattr(tr, "squid_version", None)
        targets = tr.start(planned)
        data["targets"] = {t.key: t.label for t, _ in targets}
        data["kinds"] = {t.key: kinds for t, kinds in targets}
        for part, fn in (("big", tr.big_rows), ("small", tr.small_rows), ("first", tr.first_rows)):
            try:
                data[part] = fn(targets)
            except (BenchError, OSError) as e:
                tr.not_measured[part] = str(e)
                log("  tls/%s: NOT MEASURED: %s" % (part, e))
    finally:
        for t, _ in planned:
            t.stop()
        if getattr(tr, "nginx", None):
            tr.nginx.stop()
        if getattr(tr, "dns", None):
            stop_process(tr.dns)
        for key, why in tr.not_measured.items():
            bench.not_measured["tls/" + key] = why
    return data


# ---------------------------------------------------------------- the report


def plot(data, out_dir, notes):
    """bench-tls.png: the big object's MB/s per target, bumped / spliced / https://."""
    t = data.get("tls") or {}
    big = t.get("big")
    if not big:
        return []
    keys = []
    for b in big:
        if b["target"] not in keys and b["kind"] != "direct":
            keys.append(b["target"])
    by = {(b["target"], b["kind"]): b["mbps"] for b in big}
    rows = [(PLOT_NAMES.get(key, key), [by.get((key, k)) for k in KINDS] + [None]) for key in keys]
    rows.append(("direct HTTPS", [None, None, None, by.get(("direct", "direct"))]))
    return bar_plot(out_dir, "bench-tls.png", "a %s object over TLS (medians)" % human_size(t["size"]), ["bumped", "spliced (CONNECT)", "https:// for a plain client", "direct"], rows, notes)


def report_section(d, w, not_measured, pngs):
    """Section 8: TLS (issue 17)."""
    t = section_head(d, w, "tls", "8. TLS", not_measured, "the section was not run (`--sections tls`)")
    if not t:
        return
    w(
        "nginx is the HTTPS origin (TLS 1.3, an ECDSA P-256 certificate from a test \"origin CA\", files from tmpfs); **direct** is curl "
        "straight to it, the limit. **Squid** is Debian's squid-openssl 5.7, unpacked beside the installed squid (`apt-get download`, "
        "`dpkg -x`), with `http_port ... ssl-bump tls-cert=BUMP_CA generate-host-certificates=on`, its `security_file_certgen` helper, "
        "`cache deny all` and the rules `%s`; **cuttle** gets the same lines; **Traffic Server** does not bump (CONNECT and `https://` "
        "fetches only). Host names resolve through each proxy's hosts file. The client trusts only the CA it should see (the bump CA "
        "through a bump, the origin CA otherwise), so a row whose proxy splices instead of bumping fails rather than measuring the wrong "
        "thing. CPU is the proxy's with its helpers (every process and thread of its tree, from /proc). Medians of %d round(s), the "
        "targets alternated." % ("`, `".join(t["bump_rules"]), t["rounds"])
    )
    if t.get("cuttle_refusal"):
        w("")
        w("cuttle does not bump yet: `cuttle -k parse` refuses the configuration (`%s`), so its bump rows are not measured and its "
          "CONNECT and `https://` rows ran with a plain `http_port`." % t["cuttle_refusal"])
    if t.get("quick"):
        w("")
        w("**A `--quick` run: one round, a smaller object, fewer requests; not the benchmark.**")
    big = t.get("big")
    w("")
    w("### A %s object" % human_size(t["size"]))
    w("")
    if big:
        rows = []
        for b in big:
            rows.append([b["label"], "direct" if b["kind"] == "direct" else KIND_LABELS[b["kind"]], fmt(b["mbps"]), "%s-%s" % (fmt(b["mbps_min"]), fmt(b["mbps_max"])),
                         fmt(b["cpu_s_per_gb"], 2), fmt(b["peak_rss"] / 1e6 if b.get("peak_rss") else None, 1), b["problem"]])
        w(md_table(["target", "how", "MB/s", "range of the rounds", "proxy CPU-s/GB (with helpers)", "peak RSS (MB)", "problem"], rows))
        if "bench-tls.png" in pngs:
            w("")
            w("![MB/s of the %s object over TLS](bench-tls.png)" % human_size(t["size"]))
    else:
        w("Not measured: %s" % not_measured.get("tls/big", "n/m"))
    small = t.get("small")
    w("")
    w("### 4 KiB objects over bumped keep-alive connections")
    w("")
    if small:
        w("%d `curl -K` clients at once, each %s GETs of one 4 KiB file on one kept-alive connection (CONNECT once, then the requests "
          "inside the bumped TLS connection; direct: straight to nginx); requests/s of the whole, and the proxy's CPU per request."
          % (t["small_conns"], fmt(t["small_requests"])))
        w("")
        w(md_table(["target", "requests/s", "proxy CPU per request (us)", "requests", "connections", "failed", "problem"],
                   [[s["label"], fmt(s["rps"]), fmt(s["cpu_us_per_request"]), fmt(s["requests"]), fmt(s["connections"]), fmt(s["failed"]), s["problem"]] for s in small]))
    else:
        w("Not measured: %s" % not_measured.get("tls/small", "n/m"))
    first = t.get("first")
    w("")
    w("### First contact: a host name never seen before")
    w("")
    if first:
        w("A 4 KiB file from a host name the proxy has not seen (the origin has a certificate of its own for each such name, so a proxy "
          "that mimics the origin's certificate mints a new one), %d names per round, then the same name again on a new connection "
          "(its certificate cached): curl's time to the first byte, and the proxy's CPU for that fetch (with its helpers: minting, both "
          "handshakes, the request). Medians over the names." % t["names_per_round"])
        w("")
        w(md_table(["target", "first contact: time to first byte (ms)", "its proxy CPU (ms)", "again: time to first byte (ms)", "its proxy CPU (ms)", "names", "problem"],
                   [[f["label"], fmt(f["ttfb_ms"], 1), fmt(f["cpu_ms"], 1), fmt(f["again_ttfb_ms"], 1), fmt(f["again_cpu_ms"], 1), f["names"], f["problem"]] for f in first]))
    else:
        w("Not measured: %s" % not_measured.get("tls/first", "n/m"))
    targets_table(t, w)


def targets_table(t, w):
    """Issue 17's targets, met or not."""

    def big(target, kind, field="mbps"):
        for b in t.get("big") or []:
            if b["target"] == target and b["kind"] == kind:
                return b[field]
        return None

    def row_of(rows, target, field):
        for x in rows or []:
            if x["target"] == target:
                return x[field]
        return None

    def quot(a, b):
        return a / b if a is not None and b else None

    squid = "squid-bump"
    rows = []
    r = quot(big("cuttle", "bump"), big(squid, "bump"))
    rows.append(["MB/s, bumped %s" % human_size(t["size"]), fmt(big("cuttle", "bump")), fmt(big(squid, "bump")), ratio(big("cuttle", "bump"), big(squid, "bump")), ">= 3x Squid", met(r, 3)])
    rows.append(["proxy CPU-s/GB, bumped", fmt(big("cuttle", "bump", "cpu_s_per_gb"), 2), fmt(big(squid, "bump", "cpu_s_per_gb"), 2), "", "<= 1.0", met(big("cuttle", "bump", "cpu_s_per_gb"), 1.0, at_least=False)])
    r = quot(big("cuttle", "https"), big("ats", "https"))
    rows.append(["MB/s, `https://` for a plain client (against Traffic Server)", fmt(big("cuttle", "https")), fmt(big("ats", "https")), ratio(big("cuttle", "https"), big("ats", "https")), ">= 1.2x Traffic Server", met(r, 1.2)])
    c, a = big("cuttle", "https", "cpu_s_per_gb"), big("ats", "https", "cpu_s_per_gb")
    rows.append(["proxy CPU-s/GB, `https://` (against Traffic Server)", fmt(c, 2), fmt(a, 2), ratio(c, a), "less than Traffic Server", "n/m" if c is None or a is None else ("yes" if c < a else "**no**")])
    first = t.get("first")
    r = quot(row_of(first, "cuttle", "ttfb_ms"), row_of(first, squid, "ttfb_ms"))
    rows.append(["first contact, time to first byte (ms)", fmt(row_of(first, "cuttle", "ttfb_ms"), 1), fmt(row_of(first, squid, "ttfb_ms"), 1), ratio(row_of(first, "cuttle", "ttfb_ms"), row_of(first, squid, "ttfb_ms")), "<= 0.5x Squid", met(r, 0.5, at_least=False)])
    mint = quot(row_of(first, "cuttle", "cpu_ms"), 1)
    again = row_of(first, "cuttle", "again_cpu_ms")
    mint = mint - again if mint is not None and again is not None else None
    rows.append(["CPU per minted certificate (ms: first contact - again)", fmt(mint, 2), fmt(quot(row_of(first, squid, "cpu_ms"), 1) - row_of(first, squid, "again_cpu_ms") if row_of(first, squid, "cpu_ms") is not None and row_of(first, squid, "again_cpu_ms") is not None else None, 2), "", "<= 2 ms", met(mint, 2, at_least=False)])
    cu = row_of(t.get("small"), "cuttle", "cpu_us_per_request")
    rows.append(["proxy CPU per bumped 4 KiB request (us)", fmt(cu), fmt(row_of(t.get("small"), squid, "cpu_us_per_request")), ratio(cu, row_of(t.get("small"), squid, "cpu_us_per_request")), "<= 60 us", met(cu, 60, at_least=False)])
    w("")
    w("### Against the targets of issue 17")
    w("")
    w(md_table(["", "cuttle", "Squid (or Traffic Server where said)", "cuttle / other", "target", "met"], rows))
    d = big("direct", "direct")
    if d:
        w("")
        w("The limit, direct HTTPS from nginx: %s MB/s." % fmt(d))

