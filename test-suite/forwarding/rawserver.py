#!/usr/bin/env python3
# Small TCP servers for the forwarding tests, for what the test origin cannot
# do. Prints "listening on 127.0.0.1:PORT" first, then serves until killed.
#
#   rawserver.py reset   reads a request head, then resets the connection
#                        (SO_LINGER 0) without sending a byte
#   rawserver.py echo    echoes every byte back; when the client shuts down
#                        its side, echoes what is left and then closes
#   rawserver.py te      reads a request head and replies with the
#                        Transfer-Encoding field of its ?te= query
#                        (percent-decoded) and a chunked body "hello", then
#                        closes
#   rawserver.py interim reads a request head and replies 103 Early Hints
#                        (with a Link field and a field its Connection lists),
#                        102 Processing, then a storable 200 "hello"; the
#                        connection stays open for the next request
#   rawserver.py peer    answers each request on a connection with a body
#                        naming the address the connection came from
#                        (X-Conn: N, from 1); the connection stays open
#   rawserver.py liar    an origin whose replies break their own
#                        Content-Length (test-suite/faults/origin-body.sh).
#                        Every reply names its connection (X-Conn: N, from 1)
#                        and the request's number on it (X-Request: N); the
#                        path picks the lie:
#                        /more: Content-Length: 5 and "hello", then in the
#                        same write an unrequested reply (X-Smuggled: yes,
#                        "smuggled"); the connection stays open
#                        /fewer: Content-Length: 100000, 1000 pattern bytes,
#                        then close
#                        anything else: Content-Length: 2 and "ok", kept open
import itertools
import socket
import struct
import sys
import threading
import urllib.parse


def read_head(conn):
    """the bytes received until the end of a request head, EOF or 10 s"""
    conn.settimeout(10)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def reset(conn):
    read_head(conn)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def echo(conn):
    conn.settimeout(60)
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            conn.sendall(chunk)
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    conn.close()


def te(conn):
    data = read_head(conn)
    try:
        target = data.split(b" ", 2)[1].decode("latin1")
        value = urllib.parse.unquote_to_bytes(urllib.parse.urlsplit(target).query.partition("te=")[2])
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: " + value + b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    except (OSError, IndexError):
        pass
    conn.close()


INTERIM = (b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nConnection: X-Hop\r\n"
           b"X-Hop: 1\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
           b"HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 5\r\n\r\nhello")


def interim(conn):
    while read_head(conn).endswith(b"\r\n\r\n"):
        try:
            conn.sendall(INTERIM)
        except OSError:
            break
    conn.close()


LIAR_CONNECTIONS = itertools.count(1)
PATTERN = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY"


def pattern(n):
    return bytes(PATTERN[i % len(PATTERN)] for i in range(n))


def liar_reply(conn_id, request_no, length, body, extra=b""):
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
            b"X-Conn: %d\r\nX-Request: %d\r\n\r\n" % (length, conn_id, request_no)) + body + extra


def liar(conn):
    conn_id = next(LIAR_CONNECTIONS)
    conn.settimeout(60)
    data = b""
    try:
        for request_no in itertools.count(1):
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, data = data.partition(b"\r\n\r\n")
            target = head.split(b" ", 2)[1]
            path = target.split(b"?")[0]
            path = b"/" + path.split(b"/", 3)[3] if path.startswith(b"http://") else path
            if path == b"/more":
                smuggled = b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nX-Smuggled: yes\r\n\r\nsmuggled"
                conn.sendall(liar_reply(conn_id, request_no, 5, b"hello", smuggled))
            elif path == b"/fewer":
                conn.sendall(liar_reply(conn_id, request_no, 100000, pattern(1000)))
                return
            else:
                conn.sendall(liar_reply(conn_id, request_no, 2, b"ok"))
    except (OSError, IndexError):
        pass
    finally:
        conn.close()


PEER_CONNECTIONS = itertools.count(1)


def peer(conn):
    conn_id = next(PEER_CONNECTIONS)
    body = conn.getpeername()[0].encode()
    while read_head(conn).endswith(b"\r\n\r\n"):
        try:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                         b"Cache-Control: no-store\r\nX-Conn: %d\r\n\r\n%s" % (len(body), conn_id, body))
        except OSError:
            break
    conn.close()


def main():
    handler = {"reset": reset, "echo": echo, "te": te, "interim": interim, "liar": liar, "peer": peer}[sys.argv[1]]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("listening on 127.0.0.1:%d" % listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handler, args=(conn,), daemon=True).start()


main()
