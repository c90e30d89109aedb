#!/usr/bin/env python3
# cuttle: epoll against io_uring for small keep-alive replies, without the
# rest of a proxy (doc/tuning.md "io_uring"): builds ioloop.cc (needs g++ and
# liburing-dev), then alternates its two loops under `wrk -t1 -c50`, ROUNDS
# times, on 127.0.0.1, and prints each run and the medians: requests/s and
# the server's CPU-s per 10k requests (from /proc/PID/stat). bench.py's
# small section runs it too (measure()).
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


def measure(rounds, duration, size, log=print):
    """Builds ioloop.cc and alternates its loops ROUNDS times; returns
    {"size", "duration", "epoll": {"rounds": [...], "rps", "cpu_s_per_10k"},
    "uring": {...}}. RuntimeError when it cannot be built or run."""
    for tool in ("g++", "wrk"):
        if not shutil.which(tool):
            raise RuntimeError("%s is needed" % tool)
    tmp = tempfile.mkdtemp(prefix="cuttle-ioloop.")
    binary = os.path.join(tmp, "ioloop-bench")
    build = subprocess.run(["g++", "-O2", "-std=c++20", "-o", binary, os.path.join(HERE, "ioloop.cc"), "-luring"],
                           capture_output=True, text=True)
    if build.returncode:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError("cannot build ioloop.cc (liburing-dev?): " + build.stderr.strip()[-300:])
    data = {"size": size, "duration": duration, "epoll": {"rounds": []}, "uring": {"rounds": []}}
    try:
        for r in range(rounds):
            for mode in ("epoll", "uring"):
                try:
                    rps, cpu = run(binary, mode, size, duration)
                except (OSError, ValueError, AttributeError, subprocess.SubprocessError) as e:
                    raise RuntimeError("%s: %s" % (mode, e)) from e
                data[mode]["rounds"].append({"rps": rps, "cpu_s_per_10k": cpu})
                log("round %d %-5s %9.0f requests/s %.3f CPU-s per 10k requests" % (r + 1, mode, rps, cpu))
                time.sleep(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for mode in ("epoll", "uring"):
        rs = data[mode]["rounds"]
        data[mode]["rps"] = statistics.median(x["rps"] for x in rs)
        data[mode]["cpu_s_per_10k"] = statistics.median(x["cpu_s_per_10k"] for x in rs)
    return data


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", type=int, default=10)
    p.add_argument("--size", type=int, default=4096)
    args = p.parse_args()
    try:
        data = measure(args.rounds, args.duration, args.size, log=lambda line: print(line, flush=True))
    except RuntimeError as e:
        sys.exit("ioloop.py: %s" % e)
    for m in ("epoll", "uring"):
        print("median %-5s %9.0f requests/s %.3f CPU-s per 10k requests" % (m, data[m]["rps"], data[m]["cpu_s_per_10k"]))
    print("uring / epoll: %.3fx requests/s, %.3fx CPU per request"
          % (data["uring"]["rps"] / data["epoll"]["rps"], data["uring"]["cpu_s_per_10k"] / data["epoll"]["cpu_s_per_10k"]))


if __name__ == "__main__":
    main()
