#!/bin/sh
# Keep-alive and pipelining: several requests on one connection are all
# answered, in order, and the connection stays open between them.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "acl p81 port 81" "http_access deny p81" "http_access allow localhost"
cuttle_start

python3 - "$PORT" "$(scaled 5)" <<'PY' || fail "keep-alive client failed"
import socket, sys
port, limit = int(sys.argv[1]), float(sys.argv[2])

def read_replies(s, n):
    """reads n complete replies (headers + Content-Length body)"""
    data, replies = b"", []
    while len(replies) < n:
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("connection closed after %d replies" % len(replies))
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, v = line.split(b":", 1)
            if k.strip().lower() == b"content-length":
                length = int(v)
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("short body")
            rest += chunk
        replies.append(head)
        data = rest[length:]
    return replies

s = socket.create_connection(("127.0.0.1", port), timeout=limit)
# two requests, one after the other, on the same connection
for i in range(2):
    s.sendall(b"GET ftp://127.0.0.1:9/%d HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n" % i)
    (head,) = read_replies(s, 1)
    if not head.startswith(b"HTTP/1.1 501 "):
        raise SystemExit("request %d: %r" % (i, head[:40]))
    if b"Connection: keep-alive" not in head:
        raise SystemExit("request %d: not kept alive" % i)
print("ok: two sequential requests on one connection")

# three pipelined requests in one write: answered in order
s.sendall(b"GET ftp://127.0.0.1:9/a HTTP/1.1\r\n\r\n"
          b"GET http://127.0.0.1:81/b HTTP/1.1\r\n\r\n"
          b"GET ftp://127.0.0.1:9/c HTTP/1.1\r\nConnection: close\r\n\r\n")
heads = read_replies(s, 3)
codes = [h.split(b" ")[1] for h in heads]
if codes != [b"501", b"403", b"501"]:
    raise SystemExit("pipelined replies out of order: %r" % codes)
if s.recv(1) != b"":
    raise SystemExit("connection not closed after Connection: close")
print("ok: pipelined replies in order, close honoured")
PY

# curl reuses the connection for two URLs
curl -s -o /dev/null -o /dev/null --max-time 10 -x "127.0.0.1:$PORT" \
    ftp://127.0.0.1:9/one ftp://127.0.0.1:9/two -w '%{num_connects}\n' > "$T/connects" 2>&1
[ "$(cat "$T/connects" | tr -d '\n')" = "10" ] || fail "curl opened more than one connection: $(cat "$T/connects")"
pass "curl reused the connection"
wait_until 5 access_log_has 'GET ftp://127.0.0.1:9/two ' || fail "second curl request not logged"
cuttle_stop
