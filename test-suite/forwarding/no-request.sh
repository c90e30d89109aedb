#!/bin/sh
# A connection that ends before any request head is logged as Squid 5.7 logs
# it (NONE_NONE/000 error:transaction-end-before-headers); one that carried a
# request gets no extra line when it closes.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
fwd_conf "http_access allow localhost"
cuttle_start

python3 - "$PORT" "$OPORT" "$(scaled 5)" <<'PY' || fail "raw clients failed"
import socket, sys
port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
# connect and close at once
socket.create_connection(("127.0.0.1", port), timeout=limit).close()
# half a request line, then close
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(b"GET http://127.0.0.1:1/ab")
s.close()
# a whole request, its reply, then close
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(b"GET http://127.0.0.1:%d/whole HTTP/1.1\r\nHost: x\r\n\r\n" % oport)
data = b""
while b"\r\n\r\n" not in data:
    chunk = s.recv(65536)
    if not chunk:
        raise SystemExit("no reply")
    data += chunk
s.close()
PY

line='^[0-9]+\.[0-9]{3} +[0-9]+ 127\.0\.0\.1 NONE_NONE/000 0 - error:transaction-end-before-headers - HIER_NONE/- -$'
has_two() { [ "$(grep -Ec "$line" "$T/access.log" 2>/dev/null)" = 2 ]; }
wait_until 5 has_two || fail "expected two transaction-end-before-headers lines"
pass "connections without a request head are logged as Squid logs them"
wait_until 5 access_log_has ' TCP_MISS/200 [0-9]+ GET http://127\.0\.0\.1:[0-9]+/whole ' || fail "the request was not logged"
cuttle_stop
[ "$(grep -c . "$T/access.log")" = 3 ] || fail "extra access.log lines: $(cat "$T/access.log")"
pass "a connection that carried a request adds no line when it closes"
