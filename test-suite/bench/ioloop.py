#!/usr/bin/env python3
# cuttle: epoll against io_uring for small keep-alive replies, without the
# rest of a proxy (doc/tuning.md "io_uring"): builds ioloop.cc (needs g++ and
# liburing-dev), then alternates its two loops under `wrk -t1 -c50`, ROUNDS
# times, on 127.0.0.1, and prints each run and the medians: requests/s and
# the server's CPU-s per 10k requests (from /proc/PID/stat).
#
#     test-suite/bench/ioloop.py [--rounds 3] [--duration 10] [--size 4096]
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(binary, mode, size, duration):
    proc = subprocess.Popen([binary, mode, str(size)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        port = int(line.rsplit(":", 1)[1])
        before = cpu_seconds(proc.pid)
        out = subprocess.run(
            ["wrk", "-t1", "-c50", "-d%ds" % duration, "http://127.0.0.1:%d/" % port],
            capture_output=True, text=True, timeout=duration + 30,
        ).stdout
        cpu = cpu_seconds(proc.pid) - before
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        return rps, cpu / requests * 10000 if requests else None
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=int, default=10)
    p.add_argument("--size", type=int, default=4096)
    args = p.parse_args()
    for tool in ("g++", "wrk"):
        if not shutil.which(tool):
            sys.exit("ioloop.py: %s is needed" % tool)
    tmp = tempfile.mkdtemp(prefix="cuttle-ioloop.")
    binary = os.path.join(tmp, "ioloop-bench")
    build = subprocess.run(["g++", "-O2", "-std=c++20", "-o", binary, os.path.join(HERE, "ioloop.cc"), "-luring"],
                           capture_output=True, text=True)
    if build.returncode:
        sys.exit("ioloop.py: cannot build ioloop.cc (liburing-dev?): " + build.stderr.strip()[-300:])
    results = {"epoll": [], "uring": []}
    try:
        for r in range(args.rounds):
            for mode in ("epoll", "uring"):
                rps, cpu = run(binary, mode, args.size, args.duration)
                results[mode].append((rps, cpu))
                print("round %d %-5s %9.0f requests/s %.3f CPU-s per 10k requests" % (r + 1, mode, rps, cpu), flush=True)
                time.sleep(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = {m: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for m, v in results.items()}
    for m, (rps, cpu) in med.items():
        print("median %-5s %9.0f requests/s %.3f CPU-s per 10k requests" % (m, rps, cpu))
    print("uring / epoll: %.3fx requests/s, %.3fx CPU per request" % (med["uring"][0] / med["epoll"][0], med["uring"][1] / med["epoll"][1]))


if __name__ == "__main__":
    main()
