#!/usr/bin/env python3
# icp-probe.py PORT URL [ROUNDS [STOPPED-PID]]: an ICP client for
# test-suite/hierarchy. Sends malformed datagrams, then a burst of 20
# ICP_QUERY datagrams before reading any reply; with STOPPED-PID (a proxy the
# caller stopped with SIGSTOP) it then sends it SIGCONT, so that all of them
# are queued in its socket at its first read,
# checks that each gets one reply with its request number and the URL, then
# times ROUNDS queries one at a time. Prints "opcodes OP..." (the burst's
# reply opcodes, sorted and unique) and "rtt_us MEDIAN P99".
import os
import signal
import socket
import struct
import sys
import time

port, url = int(sys.argv[1]), sys.argv[2].encode()
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 200
stopped = int(sys.argv[4]) if len(sys.argv) > 4 else 0
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
to = ("127.0.0.1", port)


def query(reqnum):
    body = b"\0\0\0\0" + url + b"\0"
    return struct.pack("!BBHIIII", 1, 2, 20 + len(body), reqnum, 0, 0, 0) + body


# garbage first: a length field that lies, then a header cut short
s.sendto(struct.pack("!BBHIIII", 1, 2, 999, 7, 0, 0, 0) + b"\0\0\0\0x\0", to)
s.sendto(b"\x01\x02\x00", to)
for n in range(1, 21):
    s.sendto(query(n), to)
if stopped:
    os.kill(stopped, signal.SIGCONT)
seen, opcodes = set(), set()
for _ in range(20):
    reply = s.recv(65536)
    op, version, length, reqnum = struct.unpack("!BBHI", reply[:8])
    if length != len(reply) or reply[20:-1] != url or reqnum in seen or not 1 <= reqnum <= 20:
        sys.exit("bad reply %r" % reply)
    seen.add(reqnum)
    opcodes.add(op)
print("opcodes", " ".join(str(o) for o in sorted(opcodes)))
times = []
for n in range(100, 100 + rounds):
    start = time.perf_counter()
    s.sendto(query(n), to)
    while True:
        reply = s.recv(65536)
        if struct.unpack("!I", reply[4:8])[0] == n:
            break
    times.append((time.perf_counter() - start) * 1e6)
times.sort()
print("rtt_us %d %d" % (times[len(times) // 2], times[int(len(times) * 0.99) - 1]))
