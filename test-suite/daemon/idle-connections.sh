#!/bin/sh
# 100 idle connections break nothing: requests are still served, and the
# idle connections are closed by request_timeout.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "request_timeout 2 seconds"
cuttle_start

python3 - "$PORT" "$(scaled 10)" <<'PY' || fail "idle connections client failed"
import socket, sys, time
port, limit = int(sys.argv[1]), float(sys.argv[2])
idle = [socket.create_connection(("127.0.0.1", port), timeout=limit) for _ in range(100)]
# a request on a new connection is still served
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(b"GET ftp://127.0.0.1:9/ HTTP/1.1\r\nConnection: close\r\n\r\n")
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
if not data.startswith(b"HTTP/1.1 501 "):
    raise SystemExit("request among idle connections: %r" % data[:40])
print("ok: served among 100 idle connections")
# request_timeout closes them all (each recv returns EOF)
deadline = time.time() + limit
closed = 0
for c in idle:
    c.settimeout(max(0.1, deadline - time.time()))
    try:
        if c.recv(1) == b"":
            closed += 1
    except socket.timeout:
        pass
if closed != 100:
    raise SystemExit("only %d of 100 idle connections were closed by request_timeout" % closed)
print("ok: request_timeout closed the idle connections")
PY
cuttle_stop
