#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
"""A scripted Squid helper for src/helper/tests/TestPool.cc.

usage: fake-helper.py [--concurrency] [--batch N] [--crash-at-start]
                      [--ignore-eof] [--starts FILE]

Reads request lines ("[channel SP] command", the channel when --concurrency)
and answers "[channel SP] reply" per command:

  say TEXT            reply TEXT (OK/ERR/BH lines, old-style URLs, anything)
  sleep MS TEXT       reply TEXT after MS milliseconds
  slow-once FILE MS TEXT  the first time (FILE missing: made) sleep MS ms; reply TEXT
  exit                exit(3) at once, no reply (a crash mid-request)
  garbage TEXT        first write lines no request matches, then reply TEXT
  split TEXT          write the reply in two pieces 100 ms apart, ended by CRLF
  fds                 reply "OK fds=LIST": open descriptors above 2
  pid                 reply "OK pid=N"
  big N               reply "OK n=N pad=<1000 x's>"
  anything else       reply "OK echo=<the request, %-escaped spaces>"

--batch N collects N requests and answers them in reverse order with ONE
write (out of order, and a burst of replies already in the socket).
--crash-at-start exits at once. --ignore-eof keeps running after stdin
closes (the pool must kill it). --starts FILE appends a line per start.
"""

import os
import sys
import time


def main():
    args = sys.argv[1:]
    concurrency = "--concurrency" in args
    batch = int(args[args.index("--batch") + 1]) if "--batch" in args else 0
    if "--starts" in args:
        with open(args[args.index("--starts") + 1], "a") as f:
            f.write("%d\n" % os.getpid())
    if "--crash-at-start" in args:
        sys.exit(1)

    pending = []
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            break
        line = raw.decode("latin-1").rstrip("\n")
        channel = ""
        if concurrency:
            channel, _, line = line.partition(" ")
            channel += " "
        replies = answer(line)
        if replies is None:
            os._exit(3)
        if replies and isinstance(replies[0], SplitReply):
            half = len(replies[0].text) // 2
            os.write(1, (channel + replies[0].text[:half]).encode("latin-1"))
            time.sleep(0.1)
            os.write(1, (replies[0].text[half:] + "\r\n").encode("latin-1"))
            continue
        out = "".join(channel + r + "\n" for r in replies)
        if batch:
            pending.append(out)
            if len(pending) == batch:
                os.write(1, "".join(reversed(pending)).encode("latin-1"))
                pending = []
        else:
            os.write(1, out.encode("latin-1"))
    if "--ignore-eof" in args:
        time.sleep(60)


class SplitReply:
    def __init__(self, text):
        self.text = text


def answer(line):
    command, _, rest = line.partition(" ")
    if command == "say":
        return [rest]
    if command == "sleep":
        ms, _, text = rest.partition(" ")
        time.sleep(int(ms) / 1000.0)
        return [text]
    if command == "slow-once":
        path, ms, text = rest.split(" ", 2)
        if not os.path.exists(path):
            open(path, "w").close()
            time.sleep(int(ms) / 1000.0)
        return [text]
    if command == "exit":
        return None
    if command == "garbage":
        # lines no request can match, then the real answer
        os.write(1, b"no channel at all\n9999 OK user=nobody\n")
        return [rest]
    if command == "split":
        # the caller's channel prefix goes first: only the text is split
        return [SplitReply(rest)]
    if command == "fds":
        fds = []
        for fd in range(3, 256):
            try:
                os.fstat(fd)
                fds.append(str(fd))
            except OSError:
                pass
        return ["OK fds=" + ",".join(fds)]
    if command == "pid":
        return ["OK pid=%d" % os.getpid()]
    if command == "big":
        return ["OK n=%s pad=%s" % (rest, "x" * 1000)]
    return ["OK echo=" + line.replace("%", "%25").replace(" ", "%20")]


main()
