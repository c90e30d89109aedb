# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The report of bench.py: doc/benchmarks.md and the gnuplot plots.

bench.py measures and keeps every number in one dict (written as
doc/benchmarks.json); this module turns that dict into markdown tables,
ratios and two PNG plots of the buffer sweep. It measures nothing.
"""

import os
import shutil
import statistics
import subprocess
import tempfile

MB, GB = 1000**2, 1000**3
KiB, MiB, GiB = 1024, 1024**2, 1024**3


def source_rows(source):
    if not source:
        return []
    changed = ", ".join(source["modified"]) if source["modified"] else "none"
    return [["cuttle's source", "commit `%s`; files of src/ and include/ changed in the work tree then: %s" % (source["commit"], changed)]]


def busy(share):
    """0.35 -> '35%'."""
    return "n/m" if not share else "%.0f%%" % (100 * share)


def human_size(n):
    """2147483648 -> '2 GiB' (whole units only, else bytes)."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= scale and n % scale == 0:
            return "%d %s" % (n // scale, unit)
    return "%d bytes" % n


def fmt(value, digits=0, thousands=True):
    if value is None:
        return "n/m"
    if digits == 0:
        return "{:,.0f}".format(value) if thousands else "%.0f" % value
    return "{:,.{d}f}".format(value, d=digits)


def ratio(a, b, digits=2):
    if a is None or b is None or b == 0:
        return "n/m"
    return "%.*fx" % (digits, a / b)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


def hist_label(b):
    """Bucket b holds sizes 2^(b-1) <= n < 2^b (b = n.bit_length())."""
    if b == 0:
        return "0 (EOF)"
    return "%s to < %s" % (power_of_two(1 << (b - 1)), power_of_two(1 << b))


def power_of_two(n):
    for unit, scale in (("M", MiB), ("K", KiB)):
        if n >= scale:
            return "%d%s" % (n // scale, unit)
    return "%d" % n


def plots(data, out_dir, notes):
    sweep = data.get("sweep")
    if not sweep or not shutil.which("gnuplot"):
        if sweep:
            notes.append("gnuplot is not installed: no plots")
        return []
    tmp = tempfile.mkdtemp(prefix="cuttle-bench-plot.")
    made = []
    try:
        buffers, autos, gaps = (data["sweep_axes"][k] for k in ("buffers", "auto", "gaps"))
        xs = buffers + autos
        xlabels = [b.replace(" ", "") for b in buffers] + ["auto\\n%s" % a.replace("auto min=", "").replace(" max=", "-").replace(" ", "") for a in autos]
        by = {(s["request_buffer_size"], s["read_ahead_gap"]): s for s in sweep}
        for field, png, ylabel, title, logy in (
            ("mbps", "bench-throughput.png", "MB/s (median)", "cuttle: download throughput against request_buffer_size", False),
            ("syscalls_per_gb", "bench-syscalls.png", "syscalls per GB", "cuttle: syscalls per GB against request_buffer_size", True),
        ):
            datafile = os.path.join(tmp, field + ".dat")
            with open(datafile, "w") as f:
                for gi, gap in enumerate(gaps):
                    # block 2*gi: the fixed sizes (a line); 2*gi+1: the auto modes (points)
                    for i, buf in enumerate(buffers):
                        v = by.get((buf, gap), {}).get(field)
                        f.write("%d %s\n" % (i, "NaN" if v is None else v))
                    f.write("\n\n")
                    for j, buf in enumerate(autos):
                        v = by.get((buf, gap), {}).get(field)
                        f.write("%d %s\n" % (len(buffers) + j, "NaN" if v is None else v))
                    f.write("\n\n")
            tics = ", ".join('"%s" %d' % (lbl, i) for i, lbl in enumerate(xlabels))
            plot = []
            for gi, gap in enumerate(gaps):
                plot.append("'%s' index %d using 1:2 with linespoints lt %d pt 7 title 'read_ahead_gap %s'" % (datafile, 2 * gi, gi + 1, gap))
                plot.append("'%s' index %d using 1:2 with points lt %d pt 9 ps 1.6 notitle" % (datafile, 2 * gi + 1, gi + 1))
            script = "\n".join(
                [
                    "set terminal png size 960,600 font ',11' noenhanced",
                    "set output '%s'" % os.path.join(out_dir, png),
                    "set title '%s (%s downloads)'" % (title, human_size(data["sizes"]["sweep"])),
                    "set xlabel 'request_buffer_size (not to scale; auto: adaptive between min and max, triangles)'",
                    "set xlabel offset 0,-1.2",
                    "set bmargin 5.5",
                    "set format y '%.0f'",
                    "set ylabel '%s'" % ylabel,
                    "set xtics (%s)" % tics,
                    "set xrange [-0.5:%f]" % (len(xs) - 0.5),
                    "set grid",
                    "set key outside right",
                    "set logscale y" if logy else "set yrange [0:*]",
                    "plot " + ", ".join(plot),
                ]
            )
            r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, timeout=60, check=False)
            if r.returncode == 0:
                made.append(png)
            else:
                notes.append("gnuplot failed for %s: %s" % (png, r.stderr.strip()[-200:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return made


def report(d, out_dir, pngs):
    """Writes OUT/benchmarks.md from bench.py's data."""
    not_measured = d.get("not_measured", {})
    lines = []
    w = lines.append
    m = d["machine"]
    v = d["versions"]
    w("# Benchmarks")
    w("")
    w("Written by `test-suite/bench/bench.py` (`make bench`) on %s; the run took %.1f minutes." % (d["started"], d["seconds"] / 60))
    w("Do not edit: run `make bench` again. The raw numbers are in [benchmarks.json](benchmarks.json).")
    if d["quick"]:
        w("")
        w("**A `--quick` smoke run: one round of 256 MiB transfers. These numbers are not the benchmark.**")
    w("")
    w("    " + " ".join(d.get("argv", [])))
    w("")
    w("## The machine and the programs")
    w("")
    w(
        md_table(
            ["what", "value"],
            [
                ["CPU", m.get("cpu", "?")],
                ["cores", m.get("cores", "?")],
                ["kernel", m.get("kernel", "?")],
                ["memory", "%s GiB" % m.get("memory_gib", "?")],
                ["Debian", m.get("debian", "?")],
                ["load average (1, 5, 15 min) at start / end", "%s / %s" % (d["loadavg_start"], d["loadavg_end"])],
                ["load average (1 min) as each section started", ", ".join("%s %s" % (k, v.split()[0]) for k, v in d.get("loadavg_sections", {}).items()) or "n/m"],
            ]
            + [[k, "`%s`" % val] for k, val in v.items()]
            + source_rows(d.get("source")),
        )
    )
    w("")
    w(
        "Everything runs on this one machine over loopback: the origin (`cuttle-origin`, "
        "files from tmpfs with `sendfile`), the proxy and the client share its %s cores, so a "
        "proxy competes with curl for CPU. MB and GB are 10^6 and 10^9 bytes. Medians of %d "
        "round(s), the targets alternated round robin in each round." % (m.get("cores", "?"), d["rounds"])
    )
    w("")
    w("Targets:")
    w("")
    w("- **cuttle**: its default configuration; only `http_port`, the logs, the pid file and `error_directory` are set (defaults are what is judged).")
    w("- **Squid 5.7** (Debian's) as a forward proxy: `squid -N -n NAME`, `cache deny all`, `access_log` to a file, `read_ahead_gap 16 KB` (its default) and `64 KB`.")
    w(
        "- **Traffic Server** (Debian's) as a forward proxy: `traffic_server --run-root` with /etc/trafficserver copied to a temp dir, "
        "`url_remap.remap_required 0`, `reverse_proxy.enabled 0`, `http.cache.http 0` and no cache storage; everything else as shipped "
        "(2 exec threads on 2 cores)."
    )
    w("- **direct**: curl straight from the origin.")

    # 1
    tp = d.get("throughput")
    w("")
    w("## 1. Uncached download of %s" % human_size(d["sizes"]["download"]))
    w("")
    if tp:
        w("`curl -o /dev/null` (`-x` through a proxy). CPU is the proxy's utime + stime, all its processes and threads, per GB moved; peak RSS is the sum of its processes' VmRSS sampled every 50 ms.")
        w("")
        rows = []
        for key, s in tp.items():
            rows.append(
                [
                    s["label"],
                    fmt(s["mbps"]),
                    "%s-%s" % (fmt(s["mbps_min"]), fmt(s["mbps_max"])),
                    fmt(s["cpu_s_per_gb"], 2),
                    busy(s["mbps"] and s["cpu_s_per_gb"] and s["mbps"] * MB / GB * s["cpu_s_per_gb"]),
                    fmt(s["peak_rss"] / MB if s["peak_rss"] else None, 1),
                    s.get("error", ""),
                ]
            )
        w(md_table(["target", "MB/s", "range of the rounds", "proxy CPU-s/GB", "proxy CPU busy", "peak RSS (MB)", "problem"], rows))
        w("")
        w("\"CPU busy\" is MB/s x CPU-s/GB: the share of one core the proxy used while it moved the bytes (well under 100% means it was waiting, not computing).")
    else:
        w("Not measured: %s" % not_measured.get("throughput", "section skipped"))

    # 2
    sp = d.get("syscalls_perf") or {}
    st = d.get("syscalls_strace") or {}
    labels = d.get("targets", {})
    if sp or st:
        w("")
        w("## 2. System calls")
    if sp:
        w("")
        w(
            "Counted with `perf stat -e raw_syscalls:sys_enter,syscalls:sys_enter_read,... -p PIDS` during one untimed %s download "
            "(counting in the kernel does not slow the proxy the way strace does). Calls per GB, every kind above 1%% of a proxy's total:"
            % human_size(d["sizes"]["download"])
        )
        w("")
        keys = [k for k in sp if "error" not in sp[k]]
        kinds = set()
        for k in keys:
            total = sp[k]["total_per_gb"]
            kinds.update(n for n, c in sp[k]["by_kind_per_gb"].items() if c >= 0.01 * total)
        kinds = sorted(kinds, key=lambda n: -max(sp[k]["by_kind_per_gb"].get(n, 0) for k in keys))
        rows = [[n] + [fmt(sp[k]["by_kind_per_gb"].get(n, 0)) for k in keys] for n in kinds]
        rows.append(["**total**"] + ["**%s**" % fmt(sp[k]["total_per_gb"]) for k in keys])
        rows.append(["bytes per syscall"] + [fmt(GB / sp[k]["total_per_gb"]) if sp[k]["total_per_gb"] else "n/m" for k in keys])
        w(md_table(["syscall"] + [labels.get(k, k) for k in keys], rows))
        for k in sp:
            if "error" in sp[k]:
                w("")
                w("%s: not counted: %s" % (labels.get(k, k), sp[k]["error"]))
    if st:
        w("")
        w(
            "Traced with `strace -f -C -s 0 -p TIDS` during one untimed %s download (strace slows the proxy, so the reads find more "
            "bytes waiting than they would untraced: these are the sizes under strace). `strace -c`'s total and the bytes that each "
            "read-like (read, readv, recvfrom, recvmsg) and write-like (write, writev, sendto, sendmsg) call returned:" % human_size(d["sizes"]["strace"])
        )
        w("")
        keys = [k for k in st if "error" not in st[k]]
        rows = []
        rows.append(["strace -c calls/GB (all kinds)"] + [fmt(st[k]["total_per_gb"]) for k in keys])
        top = set()
        for k in keys:
            top.update(sorted(st[k]["calls_per_gb"], key=lambda n: -st[k]["calls_per_gb"][n])[:5])
        for n in sorted(top, key=lambda n: -max(st[k]["calls_per_gb"].get(n, 0) for k in keys)):
            rows.append(["  %s /GB" % n] + [fmt(st[k]["calls_per_gb"].get(n, 0)) for k in keys])
        for kind in ("read", "write", "splice"):
            if any(kind in st[k]["sizes"] for k in keys):
                rows.append(["%s calls (returning >= 0)" % kind] + [fmt(st[k]["sizes"].get(kind, {}).get("calls")) for k in keys])
                rows.append(["%s EAGAIN" % kind] + [fmt(st[k]["sizes"].get(kind, {}).get("eagain")) for k in keys])
                rows.append(["%s median bytes" % kind] + [fmt(st[k]["sizes"].get(kind, {}).get("median")) for k in keys])
                rows.append(["%s mean bytes" % kind] + [fmt(st[k]["sizes"].get(kind, {}).get("mean")) for k in keys])
        w(md_table(["", *[labels.get(k, k) for k in keys]], rows))
        for kind in ("read", "write"):
            buckets = set()
            for k in keys:
                buckets.update(int(b) for b in st[k]["sizes"].get(kind, {}).get("histogram", {}))
            if not buckets:
                continue
            w("")
            w("Size distribution of %ss (calls per size range, powers of two):" % kind)
            w("")
            rows = []
            for b in sorted(buckets):
                rows.append([hist_label(b)] + [fmt(st[k]["sizes"].get(kind, {}).get("histogram", {}).get(str(b), 0)) for k in keys])
            w(md_table(["bytes returned"] + [labels.get(k, k) for k in keys], rows))
        for k in st:
            if "error" in st[k]:
                w("")
                w("%s: not traced: %s" % (labels.get(k, k), st[k]["error"]))

    # 3
    sw = d.get("sweep")
    w("")
    w("## 3. cuttle's buffer sweep")
    w("")
    if sw:
        by = {(s["request_buffer_size"], s["read_ahead_gap"]): s for s in sw}
        axes = d["sweep_axes"]
        w(
            "Uncached downloads of **%s** (not 2 GiB, to keep the run short), cuttle started afresh for each point with "
            "`request_buffer_size` and `read_ahead_gap` set, medians of %d round(s); syscalls from one untimed download per point "
            "(%s). cuttle's default is `request_buffer_size auto min=16 KB max=1 MB` with `read_ahead_gap 16 KB`."
            % (human_size(d["sizes"]["sweep"]), d["rounds"], d.get("sweep_syscall_counter"))
        )
        for field, title, digits in (
            ("mbps", "MB/s", 0),
            ("cpu_s_per_gb", "CPU seconds per GB", 2),
            ("syscalls_per_gb", "syscalls per GB", 0),
        ):
            w("")
            w("%s (rows: request_buffer_size; columns: read_ahead_gap):" % title)
            w("")
            rows = []
            for buf in axes["buffers"] + axes["auto"]:
                rows.append(["`%s`" % buf] + [fmt(by.get((buf, gap), {}).get(field), digits) for gap in axes["gaps"]])
            w(md_table(["request_buffer_size"] + axes["gaps"], rows))
        spreads = [(max(x["mbps"] for x in s["rounds"]) - min(x["mbps"] for x in s["rounds"])) / s["mbps"] for s in sw if s["mbps"] and len(s["rounds"]) > 1]
        if spreads:
            w("")
            w(
                "Noise: the rounds of one point spread (max - min) by %.0f%% of its median MB/s (the median over the points; the worst %.0f%%). "
                "Differences between neighbouring points smaller than that are not results." % (100 * statistics.median(spreads), 100 * max(spreads))
            )
        good = [s for s in sw if s["mbps"]]
        if good:
            best = max(good, key=lambda s: s["mbps"])
            w("")
            w(
                "Fastest point: `request_buffer_size %s`, `read_ahead_gap %s`: %s MB/s, %s CPU-s/GB, %s syscalls/GB."
                % (best["request_buffer_size"], best["read_ahead_gap"], fmt(best["mbps"]), fmt(best["cpu_s_per_gb"], 2), fmt(best["syscalls_per_gb"]))
            )
            counted = [s for s in good if s["syscalls_per_gb"]]
            if counted:
                low = min(counted, key=lambda s: s["syscalls_per_gb"])
                w(
                    "Fewest syscalls: `request_buffer_size %s`, `read_ahead_gap %s`: %s syscalls/GB, %s MB/s, %s CPU-s/GB."
                    % (low["request_buffer_size"], low["read_ahead_gap"], fmt(low["syscalls_per_gb"]), fmt(low["mbps"]), fmt(low["cpu_s_per_gb"], 2))
                )
        errs = [s for s in sw if s.get("error")]
        for s in errs:
            w("")
            w("`%s` / `%s`: %s" % (s["request_buffer_size"], s["read_ahead_gap"], s["error"]))
        for png, alt in (("bench-throughput.png", "MB/s against request_buffer_size"), ("bench-syscalls.png", "syscalls per GB against request_buffer_size")):
            if png in pngs:
                w("")
                w("![%s](%s)" % (alt, png))
    else:
        w("Not measured: %s" % not_measured.get("sweep", "section skipped"))

    # 4
    sm = d.get("small")
    w("")
    w("## 4. Many small transfers")
    w("")
    if sm:
        w(
            "`wrk -t 1 -c 50 -d %ds` (an absolute-URI request line through a proxy) for `?s=4k` and `?s=64k` objects with "
            "`cc=no-store` (uncacheable for every proxy); medians of %d round(s). CPU is the proxy's, per 10,000 requests."
            % (d["wrk_duration"], d["rounds"])
        )
        w("")
        rows = []
        for s in sm:
            rows.append(
                [
                    s["label"],
                    s["size"].upper().replace("K", " KiB"),
                    fmt(s["rps"]),
                    fmt(s["cpu_s_per_10k"], 3),
                    busy(s["rps"] and s["cpu_s_per_10k"] and s["rps"] * s["cpu_s_per_10k"] / 10000),
                    ("%d non-2xx" % s["non_2xx"] if s["non_2xx"] else "") + (("; " if s["non_2xx"] else "") + s["socket_errors"] if s["socket_errors"] else ""),
                ]
            )
        w(md_table(["target", "object", "requests/s", "proxy CPU-s per 10k requests", "proxy CPU busy", "problems"], rows))
    else:
        w("Not measured: %s" % not_measured.get("small", "section skipped"))

    # 5
    cn = d.get("connections")
    w("")
    w("## 5. Memory per client connection")
    w("")
    if cn:
        w(
            "`idle-conns.py`'s measurement (see test-suite/bench/README.md), %s connections, median of %d round(s): growth of the "
            "proxy's VmRSS divided by the connections. Traffic Server runs with `proxy.config.net.defer_accept 0` (otherwise it does "
            "not accept a connection until bytes arrive) and 600 s timeouts." % (fmt(cn["conns"]), d["rounds"])
        )
        w("")
        rows = []
        for key, c in cn["results"].items():
            if "error" in c:
                rows.append([c["label"], "n/m", "n/m", "n/m", "n/m", c["error"].strip().splitlines()[0] if c["error"].strip() else ""])
            else:
                rows.append([c["label"], fmt(c["idle_rss"]), fmt(c["half_rss"]), fmt(c["kept_rss"]), fmt(c["keepalive_rss"]), ""])
        w(md_table(["proxy", "idle (B)", "half a request line (B)", "after close (B)", "idle after a request (B)", "problem"], rows))
    else:
        w("Not measured: %s" % not_measured.get("connections", "section skipped"))

    # ratios
    w("")
    w("## Ratios")
    w("")
    w("cuttle (default configuration) divided by the other proxy. Above 1 is better for MB/s and requests/s; below 1 is better for CPU, syscalls and memory.")
    w("")
    others = [k for k in ("squid-16k", "squid-64k", "ats") if tp and k in tp] or [k for k in ("squid-16k", "squid-64k", "ats")]
    names = {"squid-16k": "Squid (16 KB gap)", "squid-64k": "Squid (64 KB gap)", "ats": "Traffic Server"}
    rows = []

    def get(section, key, field):
        try:
            return section[key][field]
        except (KeyError, TypeError):
            return None

    if tp:
        rows.append(["MB/s, %s download" % human_size(d["sizes"]["download"])] + [ratio(get(tp, "cuttle", "mbps"), get(tp, k, "mbps")) for k in others])
        rows.append(["CPU-s/GB"] + [ratio(get(tp, "cuttle", "cpu_s_per_gb"), get(tp, k, "cpu_s_per_gb")) for k in others])
        rows.append(["peak RSS during the download"] + [ratio(get(tp, "cuttle", "peak_rss"), get(tp, k, "peak_rss")) for k in others])
    if sp:
        rows.append(["syscalls/GB (perf)"] + [ratio(get(sp, "cuttle", "total_per_gb"), get(sp, k, "total_per_gb"), 3) for k in others])
    if st:
        rows.append(["syscalls/GB (strace -c)"] + [ratio(get(st, "cuttle", "total_per_gb"), get(st, k, "total_per_gb"), 3) for k in others])
    if sm:
        by = {(s["target"], s["size"]): s for s in sm}
        for size_text in ("4k", "64k"):
            rows.append(["requests/s, %s objects" % size_text.upper().replace("K", " KiB")] + [ratio(get(by, ("cuttle", size_text), "rps"), get(by, (k, size_text), "rps")) for k in others])
            rows.append(["CPU-s per 10k requests, %s" % size_text.upper().replace("K", " KiB")] + [ratio(get(by, ("cuttle", size_text), "cpu_s_per_10k"), get(by, (k, size_text), "cpu_s_per_10k")) for k in others])
    if cn:
        res = cn["results"]
        conn_key = {"squid-16k": "squid", "squid-64k": None, "ats": "ats"}
        for field, what in (("idle_rss", "RSS per idle connection"), ("half_rss", "RSS per connection with half a request line")):
            rows.append([what] + [ratio(get(res, "cuttle", field), get(res, conn_key[k], field)) if conn_key[k] else "(as 16 KB)" for k in others])
    if rows:
        w(md_table(["", *[names[k] for k in others]], rows))

    # what could not be measured
    w("")
    w("## Not measured, and notes")
    w("")
    if not_measured or d.get("notes", []):
        for key, why in not_measured.items():
            w("- %s: %s" % (key, why.strip().replace("\n", " ")[:600]))
        for note in d.get("notes", []):
            w("- " + note)
    else:
        w("Everything listed above was measured.")
    w("")
    w("Section times (s): %s." % ", ".join("%s %s" % (k, v) for k, v in d.get("section_seconds", {}).items()))
    w("")
    with open(os.path.join(out_dir, "benchmarks.md"), "w") as f:
        f.write("\n".join(lines))


