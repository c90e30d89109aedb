#!/usr/bin/env python3
# A small HTTPS origin for the TLS system tests (test-suite/tls/*.sh).
#
#     tls-origin.py --cert CERT --key KEY --stats FILE [--max-tls 1.2] [--burst N] [--stall]
#
# Listens on 127.0.0.1:0 (or --listen ADDR:PORT, an IPv6 address in
# brackets) and prints "listening on ADDR:PORT" once.
# FILE always holds "accepted=N handshakes=H resumed=R": the TCP connections
# accepted, the TLS handshakes completed and how many of them resumed a session.
# Each connection: a TLS handshake (session tickets on, so clients may
# resume), then HTTP/1.1 requests, kept alive unless the client closes.
#   /body?s=N      N bytes of "0123456789" repeated, not cacheable
#   /cached        "cacheable\n" with Cache-Control: max-age=600
#   /close?s=N     as /body, and the connection closes after it
#   /echo          "got N SHA256" of the request body (Content-Length framed)
# --burst N: every connection gets a reply of N bytes sent with the end of the
#   handshake, before its request is read, and then nothing (the reply waits
#   in the client's socket when its handshake ends; use --max-tls 1.2, where
#   the server's Finished is the last handshake message).
# --stall: accept TCP connections and never answer (a stalled handshake).
# Only loopback; the process ends on SIGTERM.
import argparse
import hashlib
import os
import socket
import ssl
import sys
import threading
import time

counts = {"accepted": 0, "handshakes": 0, "resumed": 0}
lock = threading.Lock()
stats_path = None


def count(name, n=1):
    with lock:
        counts[name] += n
        with open(stats_path + ".new", "w") as f:
            f.write("accepted=%d handshakes=%d resumed=%d\n" % (
                counts["accepted"], counts["handshakes"], counts["resumed"]))
        os.replace(stats_path + ".new", stats_path)


def body(n):
    return (b"0123456789" * (n // 10 + 1))[:n]


def reply(status, payload, extra=b""):
    return (b"HTTP/1.1 " + status + b"\r\nContent-Length: " + str(len(payload)).encode() +
            b"\r\n" + extra + b"\r\n" + payload)


def answer(target):
    path, _, query = target.partition(b"?")
    size = 0
    for part in query.split(b"&"):
        if part.startswith(b"s="):
            size = int(part[2:])
    if path == b"/cached":
        return reply(b"200 OK", b"cacheable\n", b"Cache-Control: max-age=600\r\n")
    if path == b"/body":
        return reply(b"200 OK", body(size), b"Cache-Control: no-store\r\n")
    if path == b"/close":
        return reply(b"200 OK", body(size), b"Cache-Control: no-store\r\nConnection: close\r\n")
    return reply(b"404 Not Found", b"no such path\n")


def serve(raw, context):
    try:
        raw.settimeout(30)
        conn = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    count("handshakes")
    count("resumed", 1 if conn.session_reused else 0)
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            target = head.split(b"\r\n", 1)[0].split(b" ")[1]
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(buf) < length:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
            request_body, buf = buf[:length], buf[length:]
            if target.startswith(b"/echo"):
                text = "got %d %s\n" % (len(request_body), hashlib.sha256(request_body).hexdigest())
                conn.sendall(reply(b"200 OK", text.encode(), b"Cache-Control: no-store\r\n"))
                continue
            conn.sendall(answer(target))
            if target.startswith(b"/close"):
                return
    except (ssl.SSLError, OSError, IndexError, ValueError):
        pass
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--max-tls", default="")
    parser.add_argument("--stall", action="store_true")
    parser.add_argument("--burst", type=int, default=-1)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--listen", default="127.0.0.1:0")
    args = parser.parse_args()
    global stats_path
    stats_path = args.stats
    count("accepted", 0)
    host, port = args.listen.rsplit(":", 1)
    family = socket.AF_INET6 if host.startswith("[") else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host.strip("[]"), int(port)))
    listener.listen(64)
    print("listening on %s:%d" % (host, listener.getsockname()[1]), flush=True)
    context = None
    if not args.stall:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        if args.max_tls == "1.2":
            context.maximum_version = ssl.TLSVersion.TLSv1_2
    held = []
    while True:
        raw, _ = listener.accept()
        count("accepted")
        if args.stall:
            held.append(raw)  # never answered, closed when the process ends
            continue
        if args.burst >= 0:
            threading.Thread(target=burst, args=(raw, context, args.burst), daemon=True).start()
            continue
        threading.Thread(target=serve, args=(raw, context), daemon=True).start()


def burst(raw, context, size):
    # the handshake over memory BIOs, so that its last flight (TLS 1.2: the
    # server's Finished) and the whole reply leave in one send: the reply is
    # in the client's socket before its handshake can end
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_side=True)
    try:
        raw.settimeout(30)
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                raw.sendall(outgoing.read())
                data = raw.recv(65536)
                if not data:
                    return
                incoming.write(data)
        count("handshakes")
        tls.write(reply(b"200 OK", body(size), b"Cache-Control: no-store\r\n"))
        raw.sendall(outgoing.read())
        raw.recv(65536)  # the request, read after the reply went out
        time.sleep(30)  # no FIN either: nothing but the reply could wake the client
    except (ssl.SSLError, OSError):
        pass
    finally:
        raw.close()


if __name__ == "__main__":
    sys.exit(main())
