# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""The report of bench.py: doc/benchmarks.md and the gnuplot plots.

bench.py measures and keeps every number in one dict (written as
doc/benchmarks.json); this module turns that dict into markdown tables,
ratios and PNG plots (gnuplot); the TLS and disk sections are written by
tls.py and disk.py, with the helpers of reportlib.py. It measures nothing.
"""

import os
import shutil
import statistics
import tempfile

import disk  # noqa: E402  (this directory's disk.py: its section's part)
import tls  # noqa: E402  (this directory's tls.py: its section's part)
from reportlib import (  # noqa: E402  (this directory's reportlib.py)
    GB,
    MB,
    GiB,
    KiB,
    MiB,
    busy,
    fmt,
    gnuplot,
    hist_label,
    human_size,
    md_table,
    met,
    provenance,
    ratio,
    rounds_of,
    section_head,
    source_rows,
)


def plots(data, out_dir, notes):
    """Every plot the data has material for; the names of the PNGs made."""
    if not shutil.which("gnuplot"):
        notes.append("gnuplot is not installed: no plots")
        return []
    return sweep_plots(data, out_dir, notes) + cache_plot(data, out_dir, notes) + load_plot(data, out_dir, notes) + tls.plot(data, out_dir, notes) + disk.plot(data, out_dir, notes)


CACHE_PLOT_KINDS = (("uncached", "uncached"), ("miss", "miss that stores"), ("memory hit", "memory hit"))


def cache_plot(data, out_dir, notes):
    """bench-cache.png: the big object's MB/s per proxy, uncached / storing miss / memory hit."""
    big = (data.get("cache") or {}).get("big_results")
    if not big:
        return []
    labels = []
    for b in big:
        if b["label"] not in labels:
            labels.append(b["label"])
    by = {(b["label"], b["kind"]): b["mbps"] for b in big}
    tmp = tempfile.mkdtemp(prefix="cuttle-bench-plot.")
    made = []
    try:
        datafile = os.path.join(tmp, "cache.dat")
        with open(datafile, "w") as f:
            f.write("target %s\n" % " ".join('"%s"' % t for _, t in CACHE_PLOT_KINDS))
            for label in labels:
                values = [by.get((label, kind)) for kind, _ in CACHE_PLOT_KINDS]
                f.write('"%s" %s\n' % (label, " ".join("NaN" if v is None else "%.0f" % v for v in values)))
        png = "bench-cache.png"
        script = "\n".join(
            [
                "set terminal png size 960,600 font ',11' noenhanced",
                "set output '%s'" % os.path.join(out_dir, png),
                "set title 'a %s object through each proxy: uncached, the miss that stores it, its memory hit (medians)'" % human_size(data["cache"]["big"]),
                "set bmargin 4",
                "set style data histograms",
                "set style histogram clustered gap 1",
                "set style fill solid 0.8 border -1",
                "set boxwidth 0.9",
                "set ylabel 'MB/s'",
                "set yrange [0:*]",
                "set grid ytics",
                "set key outside right",
                "set key autotitle columnheader",
                # a label on two lines at its comma ("cuttle,\nshared_memory_locking on")
                "set xtics (%s)" % ", ".join('"%s" %d' % (label.replace(", ", ",\\n"), i) for i, label in enumerate(labels)),
                "plot " + ", ".join("'%s' using %d" % (datafile, i + 2) for i in range(len(CACHE_PLOT_KINDS))),
            ]
        )
        gnuplot(script, png, made, notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return made


def load_plot(data, out_dir, notes):
    """bench-load.png: cuttle's RSS through the mixed load run."""
    mixed = (data.get("load") or {}).get("mixed") or {}
    points = mixed.get("rss_points")
    if not points:
        return []
    tmp = tempfile.mkdtemp(prefix="cuttle-bench-plot.")
    made = []
    try:
        datafile = os.path.join(tmp, "load.dat")
        with open(datafile, "w") as f:
            for at, rss in points:
                f.write("%.1f %.2f\n" % (at, rss / MB))
        png = "bench-load.png"
        script = "\n".join(
            [
                "set terminal png size 960,480 font ',11' noenhanced",
                "set output '%s'" % os.path.join(out_dir, png),
                "set title 'cuttle: RSS during %d s of %d clients, hits and misses (cache_mem %s)'" % (mixed["duration"], mixed["clients"], mixed["cache_mem"]),
                "set xlabel 'seconds'",
                "set ylabel 'VmRSS (MB)'",
                "set yrange [0:*]",
                "set grid",
                "set key off",
                "plot '%s' using 1:2 with lines lw 2" % datafile,
            ]
        )
        gnuplot(script, png, made, notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return made


def sweep_plots(data, out_dir, notes):
    """bench-throughput.png and bench-syscalls.png: the buffer sweep."""
    sweep = data.get("sweep")
    if not sweep:
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
            gnuplot(script, png, made, notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return made


BIG_KINDS = {
    "uncached": "uncached (`cc=no-store`)",
    "miss": "miss that stores",
    "uncached2": "uncached again, after the miss",
    "hit": "first hit",
    "hit2": "second hit",
    "memory hit": "**memory hit** (every hit served from memory)",
}


def cache_section(d, w, not_measured, pngs):
    """Section 6: the memory cache of issue 5 (bench.py's cache section)."""
    c = section_head(d, w, "cache", "6. The memory cache", not_measured)
    if not c:
        return
    w(
        "Each proxy with its memory cache on, the same size for all: **cuttle** with `%s`; **Squid** with `cache_mem %s`, "
        "`maximum_object_size_in_memory %s`, `maximum_object_size %s`, `memory_cache_mode always`, `cache allow all` and no "
        "`cache_dir`; **Traffic Server** with `ram_cache.size` %s, `ram_cache_cutoff` %s, no seen filter and no compression, in front "
        "of a %s storage file on disk (it caches nothing without one), and `insert_response_via_str 2`, whose Via codes say whether "
        "a reply came from its RAM cache (`cR`), its disk (`cH`) or the origin (`cM`). Every object is fresh for a day "
        "(`Cache-Control: max-age=86400` from the origin)."
        % ("`, `".join(c["cuttle_lines"]), c["cache_mem"], c["max_in_memory"], c["max_in_memory"], c["cache_mem"], c["max_in_memory"], c["ats_storage"])
    )
    if c.get("quick"):
        w("")
        w("**A `--quick` run: one round, a smaller object and fewer small objects; not the benchmark.**")
    hits = c.get("hits")
    w("")
    w("### Memory hits, 1 KiB and 64 KiB")
    w("")
    if hits:
        w(
            "`wrk -t 1 -c 50 -d %ds` through each proxy with a Lua script that puts the absolute URL in the request line, for one "
            "cached object (a scripted URL of the origin, `/s/ID`), fetched first on fresh connections until 16 in a row reached "
            "the origin no more: the origin must have been asked once (cuttle's workers share one memory cache: SO_REUSEPORT "
            "hands each connection to one of them, and a worker that did not store the object serves a copy of it); "
            "medians of %d round(s), the targets alternated. \"Origin requests\" counts what the origin received for the URL during "
            "the runs (its `/_seen/ID` log): 0 means every request was a hit. Client connections per event loop: as in section 4. "
            "wrk has one core of the two: a proxy CPU busy well "
            "under 100%% means that wrk, not the proxy, set the pace, and the CPU per request is then the better measure." % (c["wrk_duration"], c["rounds"])
        )
        w("")
        rows = []
        for h in hits:
            rows.append(
                [
                    h["label"],
                    h["size"].upper().replace("K", " KiB"),
                    fmt(h["rps"]),
                    "%s-%s" % (fmt(h["rps_min"]), fmt(h["rps_max"])),
                    fmt(h["cpu_s_per_10k"], 3),
                    busy(h["rps"] and h["cpu_s_per_10k"] and h["rps"] * h["cpu_s_per_10k"] / 10000),
                    "%s of %s" % (fmt(h["origin_requests"]), fmt(h["requests"])),
                    loops_text(h.get("loop_connections")),
                    "; ".join(x for x in (h["problem"], "%d non-2xx" % h["non_2xx"] if h["non_2xx"] else "", h["socket_errors"]) if x),
                ]
            )
        w(md_table(["target", "object", "requests/s", "range of the rounds", "proxy CPU-s per 10k", "proxy CPU busy", "origin requests", "client connections per event loop", "problems"], rows))
    else:
        w("Not measured: %s" % not_measured.get("cache/hits", "n/m"))
    big = c.get("big_results")
    w("")
    w("### A %s object: the miss that stores it, then hits" % human_size(c["big"]))
    w("")
    if big:
        w(
            "`curl -o /dev/null -x PROXY` of `/files/%s?cc=max-age=86400&v=UNIQUE` (sent by the origin with `sendfile` from tmpfs): "
            "the miss that stores it, then the same URL twice; each proxy started afresh for each round, the targets alternated, "
            "medians of %d round(s). cuttle's **uncached** rate is the same file with `cc=no-store`, fetched through the same "
            "cuttle just before its miss and again just after it; the target compares each round's miss with the mean of "
            "those two, since rates drift from round to round on this machine more than they do within one. \"Replies said\" is cache_verdict() of cache-objects.py: X-Cache (cuttle, Squid) or "
            "Traffic Server's Via code; the memory hit is every hit that says it came from memory. Page faults are the proxy's "
            "minor faults (a page of fresh memory touched for the first time is one: 244,141 per GB of 4 KiB pages)."
            % (short_human(c["big"]), c["rounds"])
        )
        w("")
        rows = []
        for b in big:
            rows.append(
                [
                    b["label"],
                    BIG_KINDS.get(b["kind"], b["kind"]),
                    fmt(b["mbps"]),
                    "%s-%s" % (fmt(b["mbps_min"]), fmt(b["mbps_max"])),
                    fmt(b["cpu_s_per_gb"], 2),
                    fmt(b.get("faults_per_gb")),
                    fmt(b["peak_rss"] / MB if b["peak_rss"] else None, 0),
                    ", ".join("%s %d" % (k, v) for k, v in b.get("verdicts", {}).items()),
                    b.get("problem", ""),
                ]
            )
        w(md_table(["target", "fetch", "MB/s", "range of the rounds", "proxy CPU-s/GB", "proxy page faults/GB", "peak RSS (MB)", "replies said", "problem"], rows))
        if "bench-cache.png" in pngs:
            w("")
            w("![MB/s of the %s object: uncached, storing miss, memory hit](bench-cache.png)" % human_size(c["big"]))
        w("")
        w(
            "A miss that stores needs as many new pages as the object has, and "
            "on this virtual machine a page the guest gave back a few seconds before costs a fault in the host too: "
            "populating 512 MiB of fresh memory runs at 0.6-0.9 GB/s here against 4.5 GB/s for memory freed a moment "
            "before. Every proxy is measured once it has been idle for half a second after start. "
            "By default (`memory_populate_ahead auto`: `maximum_object_size_in_memory`, at most `cache_mem`) "
            "a helper thread of cuttle populates that much memory while the proxy is quiet, right after start and "
            "again after a miss, so the miss reads into pages that are already there (few page faults) and cuttle's "
            "peak RSS is about `maximum_object_size_in_memory` from the start. "
            "With `shared_memory_locking on` cuttle maps, populates and locks `cache_mem` at start (its peak RSS is "
            "`cache_mem` from the start) and stores into those pages; Squid 5.7 has the same directive for its shared "
            "memory cache, but it cannot run with it here: it gives up root's capabilities before it locks (even with "
            "`cache_effective_user root`), and this machine's "
            "RLIMIT_MEMLOCK (8 MB) cannot be raised. doc/caching.md says more."
        )
    else:
        w("Not measured: %s" % not_measured.get("cache/big", "n/m"))
    objs = c.get("objects_results")
    w("")
    w("### Memory per cached 1 KiB object")
    w("")
    if objs:
        w(
            "`cache-objects.py`'s measurement (see test-suite/bench/README.md) on a fresh proxy each: a warm-up of a few hundred "
            "objects, the RSS, then %s distinct 1 KiB objects (`/o/TAG/I?s=1k&cc=max-age=86400`) over 4 keep-alive connections, "
            "each object read once more (Traffic Server keeps a small object in RAM only once it is read back from its disk), "
            "the RSS again once steady. Per object: (RSS after - RSS before) / N, and that minus the body and the reply head as "
            "the origin sent them (\"beyond\"). A sample of 100 objects is checked to be hits by the origin's log." % fmt(c["objects"])
        )
        w("")
        rows = []
        for key, o in objs.items():
            if "error" in o:
                rows.append([o["label"]] + ["n/m"] * 7 + [o["error"].splitlines()[0] if o["error"] else ""])
                continue
            rows.append(
                [
                    o["label"],
                    fmt(o["rss_before"] / MB, 1),
                    fmt(o["rss_after"] / MB, 1),
                    fmt(o["rss_per_object"]),
                    fmt(o["body_bytes"] + o["head_bytes"]),
                    "**%s**" % fmt(o["overhead_per_object"]),
                    fmt(o["rss_per_object_fill"]),
                    "%d of %d" % (o["sample_hits"], o["sample"]),
                    o.get("warning", ""),
                ]
            )
        w(
            md_table(
                ["target", "RSS before (MB)", "RSS after (MB)", "RSS per object (B)", "body + head (B)", "beyond body and head (B)", "per object after the fill only (B)", "sample hits", "problem"],
                rows,
            )
        )
    else:
        w("Not measured: %s" % not_measured.get("cache/objects", "n/m"))

    # issue 5's targets
    def hit_rps(target, size):
        for h in hits or []:
            if h["target"] == target and h["size"] == size:
                return h["rps"]
        return None

    def hit_cpu(target, size):
        for h in hits or []:
            if h["target"] == target and h["size"] == size:
                return h["cpu_s_per_10k"]
        return None

    def big_mbps(target, kind):
        for b in big or []:
            if b["target"] == target and b["kind"] == kind:
                return b["mbps"]
        return None

    def pairs_of(target):
        """miss / uncached of each round, the uncached rate the mean of the
        fetches just before and just after the miss on the same proxy process
        (older runs: the one before)."""
        rs = {b["kind"]: b["rounds"] for b in big or [] if b["target"] == target}
        before, after, misses = rs.get("uncached", []), rs.get("uncached2", []), rs.get("miss", [])
        pairs = []
        for i, m in enumerate(misses):
            refs = [x[i]["mbps"] for x in (before, after) if i < len(x) and x[i]["mbps"]]
            if refs:
                pairs.append(m["mbps"] / (sum(refs) / len(refs)))
        return pairs

    def paired_median(target):
        pairs = pairs_of(target)
        return statistics.median(pairs) if pairs else None

    def paired(target):
        """'median (min-max)' of pairs_of(target), or 'n/m'."""
        pairs = pairs_of(target)
        if not pairs:
            return "n/m"
        return "%.2fx (%.2f-%.2f)" % (statistics.median(pairs), min(pairs), max(pairs))

    def overhead(target):
        o = (objs or {}).get(target, {})
        return o.get("overhead_per_object")

    def quot(a, b):
        return a / b if a is not None and b else None

    w("")
    w("### Against the targets of issue 5")
    w("")
    rows = []
    for size, goal in (("1k", 2), ("64k", 4)):
        r = quot(hit_rps("cuttle", size), hit_rps("squid", size))
        rows.append(
            [
                "requests/s, %s memory hits" % size.upper().replace("K", " KiB"),
                fmt(hit_rps("cuttle", size)),
                fmt(hit_rps("squid", size)),
                fmt(hit_rps("ats", size)),
                ratio(hit_rps("cuttle", size), hit_rps("squid", size)),
                ratio(hit_rps("cuttle", size), hit_rps("ats", size)),
                ">= %dx Squid" % goal,
                met(r, goal),
            ]
        )
    for size in ("1k", "64k"):
        rows.append(
            [
                "proxy CPU-s per 10k %s hits (lower is better)" % size.upper().replace("K", " KiB"),
                fmt(hit_cpu("cuttle", size), 3),
                fmt(hit_cpu("squid", size), 3),
                fmt(hit_cpu("ats", size), 3),
                ratio(hit_cpu("cuttle", size), hit_cpu("squid", size)),
                ratio(hit_cpu("cuttle", size), hit_cpu("ats", size)),
                "",
                "",
            ]
        )
    def storing_miss_row(target, label, others):
        """The storing-miss target of one cuttle configuration; others: whether
        the Squid and Traffic Server columns show their misses."""
        miss, uncached = big_mbps(target, "miss"), big_mbps(target, "uncached")
        target_text = ">= 0.90x the uncached rate; each round's miss / its uncached fetches: **%s**; medians' ratio %s (uncached %s MB/s)" % (
            paired(target),
            ratio(miss, uncached),
            fmt(uncached),
        )
        if target != "cuttle":
            target_text += "; x cuttle's default uncached: %s" % ratio(miss, big_mbps("cuttle", "uncached"))
        return [
            "MB/s, %s miss that stores%s" % (human_size(c["big"]), label),
            fmt(miss),
            fmt(big_mbps("squid", "miss")) if others else "",
            fmt(big_mbps("ats", "miss")) if others else "",
            ratio(miss, big_mbps("squid", "miss")),
            ratio(miss, big_mbps("ats", "miss")),
            target_text,
            met(paired_median(target), 0.9),
        ]

    rows.append(storing_miss_row("cuttle", "", True))
    if big_mbps("cuttle-locked", "miss") is not None:
        rows.append(storing_miss_row("cuttle-locked", ", cuttle with `shared_memory_locking on`", False))
    r = quot(big_mbps("cuttle", "memory hit"), big_mbps("squid", "memory hit"))
    rows.append(
        [
            "MB/s, %s memory hit" % human_size(c["big"]),
            fmt(big_mbps("cuttle", "memory hit")),
            fmt(big_mbps("squid", "memory hit")),
            fmt(big_mbps("ats", "memory hit")),
            ratio(big_mbps("cuttle", "memory hit"), big_mbps("squid", "memory hit")),
            ratio(big_mbps("cuttle", "memory hit"), big_mbps("ats", "memory hit")),
            ">= 2x Squid",
            met(r, 2),
        ]
    )
    rows.append(
        [
            "bytes per cached 1 KiB object beyond body and head",
            fmt(overhead("cuttle")),
            fmt(overhead("squid")),
            fmt(overhead("ats")),
            ratio(overhead("cuttle"), overhead("squid")),
            ratio(overhead("cuttle"), overhead("ats")),
            "<= 500",
            met(overhead("cuttle"), 500, at_least=False),
        ]
    )
    w(md_table(["", "cuttle", "Squid", "Traffic Server", "cuttle / Squid", "cuttle / Traffic Server", "target", "met"], rows))


def short_human(n):
    """536870912 -> 'body-512M' (bench.py's file names)."""
    for unit, scale in (("G", GiB), ("M", MiB), ("K", KiB)):
        if n >= scale and n % scale == 0:
            return "body-%d%s" % (n // scale, unit)
    return "body-%d" % n


def worker_keys(keys):
    """{key: N} of the cuttle targets with `workers N` above 1 among keys
    (bench.py's cuttle-wN), in order of N."""
    found = {}
    for key in keys:
        if key.startswith("cuttle-w") and key[len("cuttle-w") :].isdigit():
            found[key] = int(key[len("cuttle-w") :])
    return dict(sorted(found.items(), key=lambda kv: kv[1]))


def loops_text(rounds):
    """Each round's client connections per event loop ([[26, 24], [30, 20]]
    -> '26+24, 30+20'); 'n/m' for a run that did not count them."""
    shown = ["+".join(str(c) for c in loops) for loops in rounds or [] if loops]
    return ", ".join(shown) or "n/m"


def threads_busy(rounds, count, seconds):
    """The busiest `count` threads' share of a core, median of the rounds
    (busiest_threads_cpu_s of each round; seconds: a run's length):
    '88% + 85%'."""
    rounds = [r for r in rounds or [] if r]
    if not rounds or not seconds:
        return "n/m"
    shares = []
    for i in range(count):
        values = [r[i] for r in rounds if i < len(r)]
        if values:
            shares.append(busy(statistics.median(values) / seconds))
    return " + ".join(shares)


def load_section(d, w, not_measured, pngs):
    """Section 7: load.py's three runs."""
    ld = d.get("load")
    w("")
    w("## 7. Load")
    w("")
    if provenance(d, "load"):
        w(provenance(d, "load"))
        w("")
    if not ld:
        w("Not measured: %s" % not_measured.get("load", "section skipped"))
        return
    w("`load.py` (see test-suite/bench/README.md), cuttle only, a fresh cuttle for each run.")
    idle = ld.get("idle") or {}
    w("")
    w("**Idle connections during a download.** %s idle client connections held open while a %s download runs, against the same download alone, the two alternated." % (fmt(idle.get("conns")), human_size(idle.get("size") or 0)))
    w("")
    if "error" in idle or not idle:
        w("Not measured: %s" % idle.get("error", "run skipped"))
    else:
        w(
            md_table(
                ["alone (MB/s)", "with the idle connections (MB/s)", "ratio (target >= 0.9)", "RSS with them held (MB)"],
                [[", ".join(fmt(x) for x in idle["alone_mbps"]), ", ".join(fmt(x) for x in idle["held_mbps"]), fmt(idle["ratio"], 2), fmt(idle["rss_held"] / MB, 1)]],
            )
        )
    mixed = ld.get("mixed") or {}
    w("")
    w(
        "**Many clients, hits and misses.** `wrk -t 2 -c %s -d %ss --timeout 10s` through cuttle (`cache_mem %s`): 70%% of the requests for %d hot objects "
        "of 1 to 64 KiB (`max-age=86400`: memory hits once fetched), 20%% for a new 4 KiB URL each (a miss that is stored, and once `cache_mem` is full "
        "evicts), 10%% for a 16 KiB `no-store` reply. VmRSS every 5 s; growth is from the first sample of the run's second half to the last."
        % (mixed.get("clients"), mixed.get("duration"), mixed.get("cache_mem"), 2000)
    )
    w("")
    if "error" in mixed or not mixed:
        w("Not measured: %s" % mixed.get("error", "run skipped"))
    else:
        lat = mixed.get("latency", {})
        verdicts = mixed.get("verdicts", {})
        w(
            md_table(
                ["requests", "requests/s", "latency p50 / p90 / p99", "non-2xx", "socket errors", "cuttle CPU-s", "RSS at half time (MB)", "RSS at the end (MB)", "growth in the second half (MB)"],
                [
                    [
                        fmt(mixed["requests"]),
                        fmt(mixed["rps"]),
                        "%s / %s / %s" % (lat.get("50", "?"), lat.get("90", "?"), lat.get("99", "?")),
                        fmt(mixed["non_2xx"]),
                        mixed["socket_errors"] or "none",
                        fmt(mixed["cpu_s"], 1),
                        fmt(mixed["rss_half"] / MB, 1),
                        fmt(mixed["rss_end"] / MB, 1),
                        fmt(mixed["rss_growth_second_half"] / MB, 2),
                    ]
                ],
            )
        )
        w("")
        w(
            "access.log's verdicts: %s. The `_ABORTED` and `NONE_NONE/000` lines are the requests wrk had in flight when it stopped at the end of the run."
            % ", ".join("%s %s" % (k, fmt(v)) for k, v in sorted(verdicts.items(), key=lambda kv: -kv[1]))
        )
        if "bench-load.png" in pngs:
            w("")
            w("![cuttle's RSS during the mixed load](bench-load.png)")
    slow = ld.get("slowloris") or {}
    w("")
    w(
        "**Slowloris.** %s clients each send a request head one byte every %s s and never finish it, with `request_timeout %s seconds`; "
        "meanwhile `wrk -t 1 -c 50` fetches a 4 KiB `no-store` object, against the same wrk run just before without them."
        % (fmt(slow.get("clients")), slow.get("step"), slow.get("request_timeout"))
    )
    w("")
    if "error" in slow or not slow:
        w("Not measured: %s" % slow.get("error", "run skipped"))
    else:
        w(
            md_table(
                ["requests/s alone", "requests/s during", "ratio", "slow heads cut off", "cut off after (s): min / median / max"],
                [
                    [
                        ", ".join(fmt(x) for x in slow["rps_alone"]),
                        ", ".join(fmt(x) for x in slow["rps_during"]),
                        fmt(slow["ratio"], 2),
                        "%s of %s" % (fmt(slow["cut_off"]), fmt(slow["attempted"])),
                        "%s / %s / %s" % (fmt(slow["cut_min"], 1), fmt(slow["cut_median"], 1), fmt(slow["cut_max"], 1)),
                    ]
                ],
            )
        )


def small_section(d, w, not_measured):
    """Section 4: a table of each origin, then the ratios of each."""
    sm = section_head(d, w, "small", "4. Many small transfers", not_measured)
    if not sm:
        return
    # a run before issue 19 had cuttle-origin only and no "origin" field
    origins = d.get("small_origins", {"cuttle-origin": "cuttle-origin"})
    sources = ["cuttle-origin's `?s=4k` and `?s=64k` with `cc=no-store` (a thread per connection, the reply in one `sendmsg`)"]
    if "nginx" in origins:
        sources.append("nginx serving static files of the same bytes with `Cache-Control: no-store` (event-driven, `sendfile`)")
    w(
        "`wrk -t 1 -c 50 -d %ds` (an absolute-URI request line through a proxy) for 4 KiB and 64 KiB objects, uncacheable for every proxy, "
        "from %s; medians of %d round(s), the origins, sizes and targets alternated. CPU is the proxy's (and the origin's) per 10,000 requests; "
        "context switches are per request, voluntary (the thread waited) / involuntary (it was preempted while it could run). "
        "Client connections per event loop: wrk's 50 connections as each epoll instance of the proxy watched them halfway "
        "through each round (from /proc/PID/fdinfo), so how SO_REUSEPORT spread them over cuttle's workers. "
        "Why the two origins give different ratios: test-suite/bench/README.md."
        % (d["wrk_duration"], " and from ".join(sources), rounds_of(d, "small"))
    )

    def switches(pair):
        return "n/m" if not pair or pair[0] is None else "%.2f / %.2f" % tuple(pair)

    for origin, label in origins.items():
        rows = []
        for s in sm:
            if s.get("origin", "cuttle-origin") != origin:
                continue
            rows.append(
                [
                    s["label"],
                    s["size"].upper().replace("K", " KiB"),
                    fmt(s["rps"]),
                    fmt(s["cpu_s_per_10k"], 3),
                    busy(s["rps"] and s["cpu_s_per_10k"] and s["rps"] * s["cpu_s_per_10k"] / 10000),
                    switches(s.get("switches_per_request")),
                    fmt(s.get("origin_cpu_s_per_10k"), 3),
                    switches(s.get("origin_switches_per_request")),
                    loops_text(s.get("loop_connections")) if s["target"] != "direct" else "",
                    ("%d non-2xx" % s["non_2xx"] if s["non_2xx"] else "") + (("; " if s["non_2xx"] else "") + s["socket_errors"] if s["socket_errors"] else ""),
                ]
            )
        w("")
        w("### From %s" % label)
        w("")
        w(
            md_table(
                ["target", "object", "requests/s", "proxy CPU-s per 10k requests", "proxy CPU busy", "proxy switches per request",
                 "origin CPU-s per 10k requests", "origin switches per request", "client connections per event loop", "problems"],
                rows,
            )
        )
    if "small/nginx" in not_measured:
        w("")
        w("nginx as the origin: not measured: %s" % not_measured["small/nginx"])
    rows = []
    workers = worker_keys(s["target"] for s in sm)
    for origin in origins:
        for size in ("4k", "64k"):
            rps = {s["target"]: s["rps"] for s in sm if s.get("origin", "cuttle-origin") == origin and s["size"] == size}
            row = [
                origin,
                size.upper().replace("K", " KiB"),
                fmt(rps.get("direct")),
                fmt(rps.get("cuttle")),
                ratio(rps.get("cuttle"), rps.get("squid-16k")),
                ratio(rps.get("cuttle"), rps.get("squid-64k")),
                ratio(rps.get("cuttle"), rps.get("ats")),
            ]
            for key in workers:
                row += [fmt(rps.get(key)), ratio(rps.get(key), rps.get("ats")), ratio(rps.get(key), rps.get("cuttle"))]
            rows.append(row)
    header = ["origin", "object", "direct requests/s", "cuttle requests/s", "cuttle / Squid 16 KB", "cuttle / Squid 64 KB", "cuttle / Traffic Server"]
    for n in workers.values():
        header += ["cuttle, workers %d requests/s" % n, "workers %d / Traffic Server" % n, "workers %d / workers 1" % n]
    w("")
    w(
        "Requests/s of cuttle (`workers 1`, its default%s) against the others, for each origin (direct: wrk straight at the origin, its own rate on this machine):"
        % "".join(", and `workers %d`" % n for n in workers.values())
    )
    w("")
    w(md_table(header, rows))


def workers_section(d, w):
    """The scaling table: cuttle's requests/s per worker count, from the
    small section's runs and the cache section's memory hits."""
    sm = d.get("small") or []
    hits = (d.get("cache") or {}).get("hits") or []
    counts = worker_keys([s["target"] for s in sm] + [h["target"] for h in hits])
    if not counts:
        return
    cores = d["machine"].get("cores", "?")
    w("")
    w("## Workers: requests/s per worker count")
    w("")
    w(
        "cuttle with `workers N` runs N event loops on threads of one process, each accepting on a socket of its own of the same "
        "`http_port` (SO_REUSEPORT: the kernel hands each new connection to one of them by a hash of its addresses), all of them "
        "sharing one memory cache (`memory_cache_shared on`, the default). Its requests/s with the default `workers 1` and with "
        "%s, from the runs of sections 4 and 6 (the same wrk runs, medians of their rounds); CPU is the whole process's, every "
        "thread summed. This machine has **%s cores** (`os.cpu_count()`), which wrk (one thread), the origin and the proxy share: "
        "more workers than the cores left to the proxy can only take CPU from wrk and the origin. \"CPU busy by thread\" is the "
        "share of a core that each of the busiest threads used (as many as the workers), median of the rounds."
        % (" and ".join("`workers %d`" % n for n in counts.values()), cores)
    )
    w("")
    runs = []  # (what, {key: summary}, wrk seconds)
    for origin in d.get("small_origins", {"cuttle-origin": None}):
        for size in ("4k", "64k"):
            by = {s["target"]: s for s in sm if s.get("origin", "cuttle-origin") == origin and s["size"] == size}
            if by:
                runs.append(("%s uncached, from %s" % (size.upper().replace("K", " KiB"), origin), by, d.get("wrk_duration")))
    for size in ("1k", "64k"):
        by = {h["target"]: h for h in hits if h["size"] == size}
        if by:
            runs.append(("%s memory hits" % size.upper().replace("K", " KiB"), by, d["cache"].get("wrk_duration")))
    header = ["workload", "cores", "workers 1: requests/s"]
    for n in counts.values():
        header += ["workers %d: requests/s" % n, "workers %d / workers 1" % n]
    header += ["CPU-s per 10k requests, workers 1"] + ["CPU-s per 10k requests, workers %d" % n for n in counts.values()]
    header += ["CPU busy by thread, workers 1"] + ["CPU busy by thread, workers %d" % n for n in counts.values()]
    header += ["client connections per event loop, workers %d" % n for n in counts.values()]
    rows = []
    for what, by, seconds in runs:
        one = by.get("cuttle") or {}
        row = [what, cores, fmt(one.get("rps"))]
        for key in counts:
            row += [fmt((by.get(key) or {}).get("rps")), ratio((by.get(key) or {}).get("rps"), one.get("rps"))]
        row += [fmt(one.get("cpu_s_per_10k"), 3)] + [fmt((by.get(key) or {}).get("cpu_s_per_10k"), 3) for key in counts]
        row += [threads_busy(one.get("busiest_threads_cpu_s"), 1, seconds)]
        row += [threads_busy((by.get(key) or {}).get("busiest_threads_cpu_s"), n, seconds) for key, n in counts.items()]
        row += [loops_text((by.get(key) or {}).get("loop_connections")) for key in counts]
        rows.append(row)
    w(md_table(header, rows))
    tp = d.get("throughput") or {}
    shown = [key for key in counts if key in tp]
    if "cuttle" in tp and shown:
        w("")
        w(
            "The %s download (section 1) is one connection, so one worker serves it whatever their number (a difference is the idle worker's cost, or noise): %s."
            % (
                human_size(d["sizes"]["download"]),
                "; ".join(
                    "workers %d %s MB/s and %s CPU-s/GB against workers 1's %s and %s"
                    % (counts[key], fmt(tp[key]["mbps"]), fmt(tp[key]["cpu_s_per_gb"], 2), fmt(tp["cuttle"]["mbps"]), fmt(tp["cuttle"]["cpu_s_per_gb"], 2))
                    for key in shown
                ),
            )
        )


def targets_19(d, w):
    """Issue 19's targets against Traffic Server, from sections 1, 4 and 6:
    cuttle with `workers 1` (the default) and with the most workers run."""
    sm = [s for s in d.get("small") or [] if s.get("origin", "cuttle-origin") == "cuttle-origin"]
    hits = (d.get("cache") or {}).get("hits") or []
    tp = d.get("throughput") or {}
    counts = worker_keys([s["target"] for s in sm] + [h["target"] for h in hits])
    many = max(counts, key=counts.get) if counts else None

    def field(rows, target, size, name):
        for r in rows:
            if r["target"] == target and r["size"] == size:
                return r.get(name)
        return None

    def quot(a, b):
        return a / b if a is not None and b else None

    rows = []
    for what, rs, size, name, goal, at_least in (
        ("requests/s, 4 KiB uncached", sm, "4k", "rps", 1.3, True),
        ("requests/s, 64 KiB uncached", sm, "64k", "rps", 1.2, True),
        ("CPU-s per 10k 4 KiB uncached requests", sm, "4k", "cpu_s_per_10k", 0.6, False),
        ("requests/s, 1 KiB memory hits", hits, "1k", "rps", 1.3, True),
    ):
        ats = field(rs, "ats", size, name)
        one = field(rs, "cuttle", size, name)
        row = [what, fmt(one, 3 if name.startswith("cpu") else 0), fmt(ats, 3 if name.startswith("cpu") else 0), ratio(one, ats)]
        if many:
            row.append(ratio(field(rs, many, size, name), ats))
        row += ["%s %.1fx Traffic Server" % (">=" if at_least else "<=", goal), met(quot(one, ats), goal, at_least)]
        rows.append(row)
    gb = (tp.get("cuttle") or {}).get("cpu_s_per_gb")
    row = ["CPU-s/GB, %s uncached download" % human_size(d["sizes"]["download"]) if "sizes" in d else "CPU-s/GB, uncached download",
           fmt(gb, 2), fmt((tp.get("ats") or {}).get("cpu_s_per_gb"), 2), ratio(gb, (tp.get("ats") or {}).get("cpu_s_per_gb"))]
    if many:
        row.append(ratio((tp.get(many) or {}).get("cpu_s_per_gb"), (tp.get("ats") or {}).get("cpu_s_per_gb")))
    row += ["<= 0.25 CPU-s/GB", met(gb, 0.25, at_least=False)]
    rows.append(row)
    # the --enable-pgo build against the plain one, both workers 1 (make bench's bench-pgo/)
    pgo = field(sm, "cuttle-pgo", "4k", "rps")
    plain = field(sm, "cuttle", "4k", "rps")
    if pgo is not None:
        gain = quot(pgo, plain)
        row = ["requests/s, 4 KiB uncached, `--enable-pgo` build", fmt(pgo, 0), "", "%s of the plain build" % ratio(pgo, plain)]
        if many:
            row.append("")
        row += [">= 1.05x the plain build", met(gain, 1.05, True)]
        rows.append(row)
    if not any(r[1] != "n/m" for r in rows):
        return
    header = ["", "cuttle (workers 1)", "Traffic Server", "cuttle / Traffic Server"]
    if many:
        header.append("cuttle, workers %d / Traffic Server" % counts[many])
    header += ["target", "met (workers 1)"]
    w("")
    w("### Against the targets of issue 19")
    w("")
    w(md_table(header, rows))
    io = d.get("ioloop")
    if io:
        ep, ur = io["epoll"], io["uring"]
        w("")
        w(
            "io_uring against epoll, without the rest of a proxy (`test-suite/bench/ioloop.cc`: one thread serving %s keep-alive replies to `wrk -t1 -c50`, "
            "its two loops alternated, doc/tuning.md \"io_uring\"): epoll %s requests/s at %s CPU-s per 10k requests, io_uring %s at %s: "
            "%s the requests/s at %s the CPU per request (the issue asks for io_uring only if it beats epoll)."
            % (human_size(io["size"]), fmt(ep["rps"]), fmt(ep["cpu_s_per_10k"], 3), fmt(ur["rps"]), fmt(ur["cpu_s_per_10k"], 3),
               ratio(ur["rps"], ep["rps"]), ratio(ur["cpu_s_per_10k"], ep["cpu_s_per_10k"]))
        )
    elif "small/ioloop" in d.get("not_measured", {}):
        w("")
        w("io_uring against epoll (`test-suite/bench/ioloop.cc`): not measured: %s" % d["not_measured"]["small/ioloop"])
    if pgo is None:
        w("")
        w("The gain of `--enable-pgo` was not measured in this run (`make bench` builds it in bench-pgo/; see bench-pgo.log): doc/tuning.md \"PGO\" has an earlier measurement.")


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
    for p in d.get("partial_runs", []):
        w("")
        w("Section(s) %s measured again on %s by a partial run of %.1f minutes (said under each):" % (", ".join(p["sections"]), p["started"], p["seconds"] / 60))
        w("")
        w("    " + " ".join(p.get("argv") or []))
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
    w("- **cuttle**: its default configuration; only `http_port`, the logs, the pid file and `error_directory` are set (defaults are what is judged): one worker (`workers 1`).")
    counts = worker_keys(list((d.get("throughput") or {}).keys()) + [s["target"] for s in d.get("small") or []])
    for n in counts.values():
        w(
            "- **cuttle, workers %d**: the same with `workers %d` (%d event-loop threads, each accepting on its own SO_REUSEPORT socket of the port), "
            "in sections 1, 4 and 6's memory hits." % (n, n, n)
        )
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
    if provenance(d, "throughput"):
        w(provenance(d, "throughput"))
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
    if provenance(d, "sweep"):
        w(provenance(d, "sweep"))
        w("")
    if sw:
        by = {(s["request_buffer_size"], s["read_ahead_gap"]): s for s in sw}
        axes = d["sweep_axes"]
        w(
            "Uncached downloads of **%s** (not 2 GiB, to keep the run short), cuttle started afresh for each point with "
            "`request_buffer_size` and `read_ahead_gap` set, medians of %d round(s); syscalls from one untimed download per point "
            "(%s). cuttle's default is `request_buffer_size auto min=16 KB max=1 MB` with `read_ahead_gap 16 KB`."
            % (human_size(d["sizes"]["sweep"]), rounds_of(d, "sweep"), d.get("sweep_syscall_counter"))
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
    small_section(d, w, not_measured)

    # 5
    cn = d.get("connections")
    w("")
    w("## 5. Memory per client connection")
    w("")
    if provenance(d, "connections"):
        w(provenance(d, "connections"))
        w("")
    if cn:
        w(
            "`idle-conns.py`'s measurement (see test-suite/bench/README.md), %s connections, median of %d round(s): growth of the "
            "proxy's VmRSS divided by the connections. Traffic Server runs with `proxy.config.net.defer_accept 0` (otherwise it does "
            "not accept a connection until bytes arrive) and 600 s timeouts." % (fmt(cn["conns"]), rounds_of(d, "connections"))
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

    cache_section(d, w, not_measured, pngs)

    load_section(d, w, not_measured, pngs)

    tls.report_section(d, w, not_measured, pngs)

    disk.report_section(d, w, not_measured, pngs)

    workers_section(d, w)
    targets_19(d, w)

    # ratios
    sm = d.get("small")
    hits = (d.get("cache") or {}).get("hits") or []
    wkeys = worker_keys(list((tp or {}).keys()) + [s["target"] for s in sm or []] + [h["target"] for h in hits])
    w("")
    w("## Ratios")
    w("")
    w(
        "cuttle (default configuration) divided by the other proxy%s. Above 1 is better for MB/s and requests/s; below 1 is better for CPU, syscalls and memory."
        % "".join("; then cuttle with `workers %d` divided by Traffic Server and by cuttle's default (`workers 1`)" % n for n in wkeys.values())
    )
    w("")
    others = [k for k in ("squid-16k", "squid-64k", "ats") if tp and k in tp] or [k for k in ("squid-16k", "squid-64k", "ats")]
    names = {"squid-16k": "Squid (16 KB gap)", "squid-64k": "Squid (64 KB gap)", "ats": "Traffic Server"}
    rows = []

    def get(section, key, field):
        try:
            return section[key][field]
        except (KeyError, TypeError):
            return None

    def cells(value, digits=2, workers=True, other_key=None):
        """The ratios of a row: cuttle / each other proxy, then each worker
        count / Traffic Server and / workers 1 (blank when not workers);
        value(key) is a target's figure, other_key maps the columns' keys
        to the row's (None: "(as 16 KB)")."""
        row = []
        for k in others:
            key = other_key[k] if other_key else k
            row.append(ratio(value("cuttle"), value(key), digits) if key else "(as 16 KB)")
        for key in wkeys:
            row += [ratio(value(key), value("ats"), digits), ratio(value(key), value("cuttle"), digits)] if workers else ["", ""]
        return row

    if tp:
        rows.append(["MB/s, %s download" % human_size(d["sizes"]["download"])] + cells(lambda k: get(tp, k, "mbps")))
        rows.append(["CPU-s/GB"] + cells(lambda k: get(tp, k, "cpu_s_per_gb")))
        rows.append(["peak RSS during the download"] + cells(lambda k: get(tp, k, "peak_rss")))
    if sp:
        rows.append(["syscalls/GB (perf)"] + cells(lambda k: get(sp, k, "total_per_gb"), 3, workers=False))
    if st:
        rows.append(["syscalls/GB (strace -c)"] + cells(lambda k: get(st, k, "total_per_gb"), 3, workers=False))
    if sm:
        by = {(s.get("origin", "cuttle-origin"), s["target"], s["size"]): s for s in sm}
        for origin in d.get("small_origins", {"cuttle-origin": None}):
            for size_text in ("4k", "64k"):
                what = "%s from %s" % (size_text.upper().replace("K", " KiB"), origin)
                rows.append(["requests/s, %s" % what] + cells(lambda k: get(by, (origin, k, size_text), "rps")))
                rows.append(["CPU-s per 10k requests, %s" % what] + cells(lambda k: get(by, (origin, k, size_text), "cpu_s_per_10k")))
    if hits:
        by = {(h["target"], h["size"]): h for h in hits}
        hit_key = {"squid-16k": "squid", "squid-64k": None, "ats": "ats"}
        for size_text in ("1k", "64k"):
            what = "%s memory hits" % size_text.upper().replace("K", " KiB")
            rows.append(["requests/s, %s" % what] + cells(lambda k: get(by, (k, size_text), "rps"), other_key=hit_key))
            rows.append(["CPU-s per 10k requests, %s" % what] + cells(lambda k: get(by, (k, size_text), "cpu_s_per_10k"), other_key=hit_key))
    if cn:
        res = cn["results"]
        conn_key = {"squid-16k": "squid", "squid-64k": None, "ats": "ats"}
        for field, what in (("idle_rss", "RSS per idle connection"), ("half_rss", "RSS per connection with half a request line")):
            rows.append([what] + cells(lambda k: get(res, k, field), workers=False, other_key=conn_key))
    header = ["", *[names[k] for k in others]]
    for n in wkeys.values():
        header += ["cuttle, workers %d / Traffic Server" % n, "cuttle, workers %d / workers 1" % n]
    if rows:
        w(md_table(header, rows))

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


