#!/usr/bin/env python3
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.

"""A small fake DNS server for cuttle's system tests (python3 stdlib only).

    python3 test-suite/fakedns.py --listen 127.0.0.1:0 \\
        --record www.example.test=192.0.2.10 --record www.example.test=2001:db8::10 \\
        [--ptr 192.0.2.10=www.example.test] \\
        [--delay-ms N] [--silent NAME] [--servfail NAME] [--log FILE]

Binds UDP and TCP on one port (port 0: a free one, the same for both), prints
one line `listening on 127.0.0.1:PORT` (`[::1]:PORT` for IPv6) and flushes,
then answers until SIGTERM or SIGINT:

- A and AAAA queries for a --record name get its IPv4 (A) or IPv6 (AAAA)
  records; a query of a type the name has no record of (AAAA for an
  IPv4-only name, MX, ...) gets NOERROR with no answer (NODATA);
- PTR queries for the reverse name of a --ptr address (10.2.0.192.in-addr.arpa,
  or the ip6.arpa nibbles) get its name;
- unknown names get NXDOMAIN;
- --silent names get no answer at all (the client times out);
- --servfail names get SERVFAIL (the server could not answer);
- --delay-ms N sends every answer N milliseconds late;
- --log FILE appends one line per query, `udp|tcp NAME TYPE`, so a test can
  tell that cuttle asked (or did not ask) DNS.

Names match case-insensitively, with or without a trailing dot. A UDP answer
over 512 bytes is truncated (TC) and the client asks again over TCP, as with
a real server. Point cuttle at it with `dns_nameservers 127.0.0.1:PORT`.
"""

import argparse
import heapq
import ipaddress
import selectors
import signal
import socket
import struct
import sys
import time

TYPE_A = 1
TYPE_AAAA = 28
TYPE_PTR = 12
TYPE_NAMES = {1: "A", 28: "AAAA", 5: "CNAME", 12: "PTR", 15: "MX", 16: "TXT", 33: "SRV", 65: "HTTPS"}
UDP_LIMIT = 512


def parse_listen(text):
    """'127.0.0.1:0', '[::1]:5353' -> (family, host, port)"""
    if text.startswith("["):
        host, sep, port = text[1:].partition("]:")
        if not sep:
            raise argparse.ArgumentTypeError("IPv6 listen address must be [ADDR]:PORT")
    else:
        host, sep, port = text.rpartition(":")
        if not sep:
            raise argparse.ArgumentTypeError("listen address must be ADDR:PORT")
    try:
        address = ipaddress.ip_address(host)
        port = int(port)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("bad port %d" % port)
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    return family, str(address), port


def parse_record(text):
    """'NAME=IP' -> (name, ip_address)"""
    name, sep, ip = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError("a record is NAME=IP")
    try:
        return normalize(name), ipaddress.ip_address(ip)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def parse_ptr(text):
    """'IP=NAME' -> (reverse name of IP, NAME)"""
    ip, sep, name = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError("a PTR record is IP=NAME")
    try:
        return normalize(ipaddress.ip_address(ip).reverse_pointer), name
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def encode_name(name):
    """RFC 1035 labels of a dotted name"""
    return b"".join(bytes([len(label)]) + label.encode() for label in name.split(".") if label) + b"\0"


def normalize(name):
    name = name.lower()
    return name[:-1] if name.endswith(".") and len(name) > 1 else name


def parse_question(query):
    """the (name, qtype, end offset of the question) of a query, or None"""
    if len(query) < 12:
        return None
    flags, qdcount = struct.unpack("!HH", query[2:6])
    if flags & 0x8000 or qdcount < 1:  # an answer, or no question
        return None
    pos = 12
    labels = []
    while True:
        if pos >= len(query):
            return None
        length = query[pos]
        if length == 0:
            pos += 1
            break
        if length > 63 or pos + 1 + length > len(query):
            return None  # compression is not used in questions
        labels.append(query[pos + 1:pos + 1 + length].decode("ascii", "replace"))
        pos += 1 + length
    if pos + 4 > len(query):
        return None
    qtype = struct.unpack("!H", query[pos:pos + 2])[0]
    return normalize(".".join(labels)) or ".", qtype, pos + 4


class FakeDns:
    def __init__(self, records, silent, delay, log, servfail=(), ptrs=()):
        self.records = {}  # name -> [ip_address]
        self.ptrs = dict(ptrs)  # reverse name -> name
        for name, ip in records:
            self.records.setdefault(name, [])
            if ip not in self.records[name]:
                self.records[name].append(ip)
        self.silent = {normalize(n) for n in silent}
        self.servfail = {normalize(n) for n in servfail}
        self.delay = delay
        self.log = log
        self.selector = selectors.DefaultSelector()
        self.pending = []  # heap of (due, sequence, action)
        self.sequence = 0
        self.connections = {}  # socket -> [unparsed input, unsent output]

    def bind(self, family, host, port):
        """UDP and TCP on one port; with port 0 the kernel's pick for UDP may
        be taken for TCP, so try again"""
        for _ in range(100):
            udp = socket.socket(family, socket.SOCK_DGRAM)
            udp.bind((host, port))
            chosen = udp.getsockname()[1]
            tcp = socket.socket(family, socket.SOCK_STREAM)
            tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                tcp.bind((host, chosen))
                tcp.listen(64)
            except OSError:
                tcp.close()
                udp.close()
                if port != 0:
                    raise
                continue
            udp.setblocking(False)
            tcp.setblocking(False)
            self.udp, self.tcp = udp, tcp
            self.selector.register(udp, selectors.EVENT_READ, self.read_udp)
            self.selector.register(tcp, selectors.EVENT_READ, self.accept)
            return chosen
        raise OSError("no port free for both UDP and TCP")

    def answer(self, query, transport):
        """the reply to query, or None to stay silent"""
        question = parse_question(query)
        if question is None:
            return None
        name, qtype, end = question
        if self.log:
            with open(self.log, "a") as f:
                f.write("%s %s %s\n" % (transport, name, TYPE_NAMES.get(qtype, str(qtype))))
        if name in self.silent:
            return None
        flags = 0x8000 | (struct.unpack("!H", query[2:4])[0] & 0x7900) | 0x0400 | 0x0080  # QR, opcode+RD, AA, RA
        answers = []
        if name in self.servfail:
            flags |= 2  # SERVFAIL
        elif name in self.ptrs:
            if qtype == TYPE_PTR:
                target = encode_name(self.ptrs[name])
                answers.append(struct.pack("!HHHIH", 0xC00C, TYPE_PTR, 1, 60, len(target)) + target)
        elif name not in self.records:
            flags |= 3  # NXDOMAIN
        else:
            for ip in self.records[name]:
                if qtype == TYPE_A and ip.version == 4:
                    answers.append(struct.pack("!HHHIH", 0xC00C, TYPE_A, 1, 60, 4) + ip.packed)
                elif qtype == TYPE_AAAA and ip.version == 6:
                    answers.append(struct.pack("!HHHIH", 0xC00C, TYPE_AAAA, 1, 60, 16) + ip.packed)
        question_bytes = query[12:end]
        if transport == "udp":
            room = UDP_LIMIT - 12 - len(question_bytes)
            kept = []
            for a in answers:
                if len(a) > room:
                    flags |= 0x0200  # TC: ask again over TCP
                    break
                kept.append(a)
                room -= len(a)
            answers = kept
        header = query[0:2] + struct.pack("!HHHHH", flags, 1, len(answers), 0, 0)
        return header + question_bytes + b"".join(answers)

    def later(self, action):
        if self.delay <= 0:
            action()
            return
        self.sequence += 1
        heapq.heappush(self.pending, (time.monotonic() + self.delay / 1000.0, self.sequence, action))

    def read_udp(self, sock):
        for _ in range(64):
            try:
                query, peer = sock.recvfrom(65535)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            reply = self.answer(query, "udp")
            if reply is not None:
                self.later(lambda reply=reply, peer=peer: self.send_udp(reply, peer))

    def send_udp(self, reply, peer):
        try:
            self.udp.sendto(reply, peer)
        except OSError:
            pass

    def accept(self, sock):
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        conn.setblocking(False)
        self.connections[conn] = [bytearray(), bytearray()]
        self.selector.register(conn, selectors.EVENT_READ, self.handle_tcp)

    def close(self, conn):
        if conn in self.connections:
            del self.connections[conn]
            self.selector.unregister(conn)
            conn.close()

    def handle_tcp(self, conn):
        if self.connections[conn][1]:
            self.flush(conn)
        if conn in self.connections:
            self.read_tcp(conn)

    def read_tcp(self, conn):
        try:
            data = conn.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.close(conn)
            return
        buf = self.connections[conn][0]
        buf += data
        if len(buf) > 1 << 20:
            self.close(conn)
            return
        while len(buf) >= 2:
            length = struct.unpack("!H", buf[0:2])[0]
            if len(buf) < 2 + length:
                break
            query = bytes(buf[2:2 + length])
            del buf[0:2 + length]
            reply = self.answer(query, "tcp")
            if reply is not None:
                framed = struct.pack("!H", len(reply)) + reply
                self.later(lambda conn=conn, framed=framed: self.send_tcp(conn, framed))

    def send_tcp(self, conn, framed):
        if conn not in self.connections:
            return
        self.connections[conn][1] += framed
        self.flush(conn)

    def flush(self, conn):
        out = self.connections[conn][1]
        try:
            sent = conn.send(out)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self.close(conn)
            return
        del out[0:sent]
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if out else 0)
        self.selector.modify(conn, events, self.handle_tcp)

    def run(self):
        while True:
            timeout = None
            if self.pending:
                timeout = max(0.0, self.pending[0][0] - time.monotonic())
            for key, _ in self.selector.select(timeout):
                key.data(key.fileobj)
            now = time.monotonic()
            while self.pending and self.pending[0][0] <= now:
                _, _, action = heapq.heappop(self.pending)
                action()


def main():
    parser = argparse.ArgumentParser(description="A fake DNS server for cuttle's system tests.")
    parser.add_argument("--listen", type=parse_listen, default=parse_listen("127.0.0.1:0"),
                        help="ADDR:PORT or [ADDR]:PORT to bind, UDP and TCP (default 127.0.0.1:0)")
    parser.add_argument("--record", type=parse_record, action="append", default=[],
                        help="NAME=IP: an A (IPv4) or AAAA (IPv6) record; repeatable")
    parser.add_argument("--ptr", type=parse_ptr, action="append", default=[],
                        help="IP=NAME: a PTR record for IP's reverse name; repeatable")
    parser.add_argument("--delay-ms", type=int, default=0, help="send every answer this late")
    parser.add_argument("--silent", action="append", default=[], help="never answer NAME; repeatable")
    parser.add_argument("--servfail", action="append", default=[], help="answer SERVFAIL for NAME; repeatable")
    parser.add_argument("--log", help="append 'udp|tcp NAME TYPE' per query to this file")
    args = parser.parse_args()

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    family, host, port = args.listen
    server = FakeDns(args.record, args.silent, args.delay_ms, args.log, args.servfail, args.ptr)
    port = server.bind(family, host, port)
    shown = "[%s]" % host if family == socket.AF_INET6 else host
    print("listening on %s:%d" % (shown, port), flush=True)
    server.run()


if __name__ == "__main__":
    main()
