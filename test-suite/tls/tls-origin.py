#!/usr/bin/env python3
# A small HTTPS origin for the TLS system tests (test-suite/tls/*.sh).
#
#     tls-origin.py --cert CERT --key KEY [--max-tls 1.2] [--burst N] [--stall]
#
# Listens on 127.0.0.1:0 and prints "listening on 127.0.0.1:PORT" once.
# Each connection: a TLS handshake (session tickets on, so clients may
# resume), then HTTP/1.1 requests, kept alive unless the client closes.
#   /stats         "accepted=N handshakes=H resumed=R" (counts before this connection)
#   /body?s=N      N bytes of "0123456789" repeated, not cacheable
#   /cached        "cacheable\n" with Cache-Control: max-age=600
# --burst N: every connection gets a reply of N bytes written as soon as the
#   handshake ends, before its request is read, then closes (the reply waits
#   in the client's socket when its handshake ends).
# --stall: accept TCP connections and never answer (a stalled handshake).
# Only loopback; the process ends on SIGTERM.
import argparse
import socket
import ssl
import sys
import threading

counts = {"accepted": 0, "handshakes": 0, "resumed": 0}
lock = threading.Lock()


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
    if path == b"/stats":
        with lock:
            text = "accepted=%d handshakes=%d resumed=%d\n" % (
                counts["accepted"], counts["handshakes"], counts["resumed"])
        return reply(b"200 OK", text.encode(), b"Cache-Control: no-store\r\n")
    if path == b"/cached":
        return reply(b"200 OK", b"cacheable\n", b"Cache-Control: max-age=600\r\n")
    if path == b"/body":
        return reply(b"200 OK", body(size), b"Cache-Control: no-store\r\n")
    return reply(b"404 Not Found", b"no such path\n")


def serve(raw, context):
    try:
        raw.settimeout(30)
        conn = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    with lock:
        counts["handshakes"] += 1
        counts["resumed"] += 1 if conn.session_reused else 0
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
            conn.sendall(answer(target))
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
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("listening on 127.0.0.1:%d" % listener.getsockname()[1], flush=True)
    context = None
    if not args.stall:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        if args.max_tls == "1.2":
            context.maximum_version = ssl.TLSVersion.TLSv1_2
    held = []
    while True:
        raw, _ = listener.accept()
        with lock:
            counts["accepted"] += 1
        if args.stall:
            held.append(raw)  # never answered, closed when the process ends
            continue
        if args.burst >= 0:
            threading.Thread(target=burst, args=(raw, context, args.burst), daemon=True).start()
            continue
        threading.Thread(target=serve, args=(raw, context), daemon=True).start()


def burst(raw, context, size):
    try:
        raw.settimeout(30)
        conn = context.wrap_socket(raw, server_side=True)
        conn.sendall(reply(b"200 OK", body(size), b"Connection: close\r\n"))
        conn.recv(65536)  # the request, read after the reply went out
        conn.close()
    except (ssl.SSLError, OSError):
        raw.close()


if __name__ == "__main__":
    sys.exit(main())
