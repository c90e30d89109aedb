# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""What the parts of the report share: number formats, markdown tables,
the provenance line of a section, gnuplot, and a clustered bar plot.

report.py and the section modules that write their own part of
doc/benchmarks.md (tls.py, disk.py) import it. It measures nothing.
"""

import os
import shutil
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


def rounds_of(d, name):
    """The rounds of a section, which a later partial run may have measured."""
    return d.get("section_info", {}).get(name, {}).get("rounds", d["rounds"])


def provenance(d, name):
    """A line saying that a section comes from a later partial run, or None."""
    info = d.get("section_info", {}).get(name)
    if not info or not info.get("started") or info.get("started") == d.get("started"):
        return None
    src = info.get("source") or {}
    return "*This section comes from a later run (%s): started %s, %d round(s)%s; the checkout was at commit `%s`%s%s." % (
        "`%s`" % " ".join(info["argv"]) if info.get("argv") else "a partial run",
        info["started"],
        info.get("rounds") or 0,
        ", **quick**" if info.get("quick") else "",
        src.get("commit", "?"),
        " with %s changed in the work tree" % ", ".join(src["modified"]) if src.get("modified") else "",
        ", cuttle built %s" % info["cuttle_built"] if info.get("cuttle_built") else "",
    ) + (" The load average (1, 5, 15 min) as it started: %s." % info["loadavg"] if info.get("loadavg") else "") + "*"


def section_head(d, w, name, title, not_measured, absent="section skipped"):
    """Writes a section's title and provenance; returns its data, or None
    after a "Not measured" line when the run has none."""
    w("")
    w("## " + title)
    w("")
    if provenance(d, name):
        w(provenance(d, name))
        w("")
    if not d.get(name):
        w("Not measured: %s" % not_measured.get(name, absent))
        return None
    return d[name]


def gnuplot(script, png, made, notes):
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, timeout=60, check=False)
    if r.returncode == 0:
        made.append(png)
    else:
        notes.append("gnuplot failed for %s: %s" % (png, r.stderr.strip()[-200:]))


def met(value, goal, at_least=True):
    if value is None:
        return "n/m"
    return "yes" if (value >= goal if at_least else value <= goal) else "**no**"


def bar_plot(out_dir, png, title, series, rows, notes):
    """A clustered bar plot of MB/s: one cluster per row label, one bar per
    series; rows is [(label, [value or None per series])]. Returns [png]
    when gnuplot made it, else [] (and a note)."""
    if not shutil.which("gnuplot") or not any(v for _, values in rows for v in values):
        return []
    tmp = tempfile.mkdtemp(prefix="cuttle-bench-plot.")
    made = []
    try:
        datafile = os.path.join(tmp, "bars.dat")
        with open(datafile, "w") as f:
            f.write("target %s\n" % " ".join('"%s"' % s for s in series))
            for label, values in rows:
                f.write('"%s" %s\n' % (label, " ".join("NaN" if v is None else "%.0f" % v for v in values)))
        script = "\n".join(
            [
                "set terminal png size 1100,600 font ',11' noenhanced",
                "set output '%s'" % os.path.join(out_dir, png),
                "set title '%s'" % title.replace("'", ""),
                "set bmargin 5",
                "set style data histograms",
                "set style histogram clustered gap 1",
                "set style fill solid 0.8 border -1",
                "set boxwidth 0.9",
                "set ylabel 'MB/s'",
                "set yrange [0:*]",
                "set grid ytics",
                "set key outside right",
                "set key autotitle columnheader",
                # a label on lines of its own at its comma and its parenthesis
                "set xtics (%s)" % ", ".join('"%s" %d' % (label.replace(", ", ",\\n").replace(" (", "\\n("), i) for i, (label, _) in enumerate(rows)),
                "plot " + ", ".join("'%s' using %d" % (datafile, i + 2) for i in range(len(series))),
            ]
        )
        gnuplot(script, png, made, notes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return made
