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


def main():
    handler = {"reset": reset, "echo": echo, "te": te}[sys.argv[1]]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print("listening on 127.0.0.1:%d" % listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handler, args=(conn,), daemon=True).start()


main()
