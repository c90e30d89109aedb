#!/bin/sh
# access.log: every kind of transaction logs exactly one line in Squid's
# native format
#   %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt
# with the right fields: a 200, a 403, a 503 connect failure, a CONNECT
# tunnel, a download the client abandoned, a 400 for a malformed request.
# Squid 5.7 logs the same codes, hierarchy and byte counts (bytes: what the
# client was sent, head included; for CONNECT the "200 Connection
# established" line and the tunnelled bytes).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
rawserver_start echo
fwd_conf "acl blocked port 1" "http_access deny blocked" \
    "http_access allow localhost" "http_access deny all"
cuttle_start
CLOSED=$(closed_port)
BEGIN=$(date +%s)
TRANSACTIONS=0

# the line of a transaction: exactly one access.log line matches " METHOD URL "
line_of() {
    TRANSACTIONS=$((TRANSACTIONS + 1))
    wait_until 5 access_log_has " $1 $2 " || { bad "no line for $1 $2"; LINE=""; return 1; }
    n=$(grep -Ec " $1 $2 " "$T/access.log")
    [ "$n" = 1 ] || bad "$n lines for $1 $2"
    LINE=$(log_line " $1 $2 ")
    check_native_line "$LINE"
    # %ts.%03tu within the test, %6tr right-aligned in six columns
    ts=$(echo "$LINE" | cut -d. -f1)
    [ "$ts" -ge "$BEGIN" ] && [ "$ts" -le $(( $(date +%s) + 1 )) ] || bad "timestamp $ts outside the test: $LINE"
    echo "$LINE" | grep -Eq '^[0-9]+\.[0-9]{3} ( {5}[0-9]| {4}[0-9]{2}| {3}[0-9]{3}| {2}[0-9]{4}| [0-9]{5}|[0-9]{6,}) ' ||
        bad "%6tr is not six columns wide: '$LINE'"
    return 0
}

# field N : the Nth whitespace-separated field of $LINE
field() { echo "$LINE" | awk -v n="$1" '{print $n}'; }

# a 200: bytes are the head and body the client got, the origin's address, the type
set -- $(curl -s -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -w '%{http_code} %{size_header} %{size_download}' "http://127.0.0.1:$OPORT/ok?s=5000&ct=text/x-test")
[ "${1:-}" = 200 ] || fail "200: got ${1:-nothing}"
if line_of GET "http://127\.0\.0\.1:$OPORT/ok\?"; then
    echo "$LINE" | grep -Eq " 127\.0\.0\.1 TCP_MISS/200 $(($2 + $3)) GET http://127\.0\.0\.1:$OPORT/ok\? - HIER_DIRECT/127\.0\.0\.1 text/x-test\$" ||
        bad "200: expected TCP_MISS/200 $(($2 + $3)) ... HIER_DIRECT/127.0.0.1 text/x-test: '$LINE'"
    pass "200: $LINE"
fi

# a 403
set -- $(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -w '%{http_code} %{size_header} %{size_download}' "http://127.0.0.1:1/denied")
[ "${1:-}" = 403 ] || fail "403: got ${1:-nothing}"
if line_of GET "http://127\.0\.0\.1:1/denied"; then
    echo "$LINE" | grep -Eq " 127\.0\.0\.1 TCP_DENIED/403 $(($2 + $3)) GET http://127\.0\.0\.1:1/denied - HIER_NONE/- text/html\$" ||
        bad "403: expected TCP_DENIED/403 $(($2 + $3)) ... HIER_NONE/- text/html: '$LINE'"
    pass "403: $LINE"
fi

# a 503: the origin refused the connection
set -- $(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -w '%{http_code} %{size_header} %{size_download}' "http://127.0.0.1:$CLOSED/refused")
[ "${1:-}" = 503 ] || fail "503: got ${1:-nothing}"
if line_of GET "http://127\.0\.0\.1:$CLOSED/refused"; then
    echo "$LINE" | grep -Eq " TCP_MISS/503 $(($2 + $3)) GET http://127\.0\.0\.1:$CLOSED/refused - HIER_DIRECT/127\.0\.0\.1 text/html\$" ||
        bad "503: expected TCP_MISS/503 $(($2 + $3)) ... HIER_DIRECT/127.0.0.1 text/html: '$LINE'"
    pass "503: $LINE"
fi

# a CONNECT tunnel to an echo server: 1000 bytes each way
got=$(python3 - "$PORT" "$RAWPORT" "$(scaled 5)" <<'PY'
import socket, sys
port, target, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (target, target))
data = b""
while b"\r\n\r\n" not in data:
    chunk = s.recv(65536)
    if not chunk:
        raise SystemExit("closed before the CONNECT reply")
    data += chunk
head, rest = data.split(b"\r\n\r\n", 1)
if not head.startswith(b"HTTP/1.1 200 "):
    raise SystemExit("CONNECT: %r" % head)
s.sendall(b"t" * 1000)
while len(rest) < 1000:
    chunk = s.recv(65536)
    if not chunk:
        break
    rest += chunk
s.close()
print(len(head) + 4 + len(rest))
PY
) || fail "CONNECT client: $got"
if line_of CONNECT "127\.0\.0\.1:$RAWPORT"; then
    echo "$LINE" | grep -Eq " 127\.0\.0\.1 TCP_TUNNEL/200 $got CONNECT 127\.0\.0\.1:$RAWPORT - HIER_DIRECT/127\.0\.0\.1 -\$" ||
        bad "CONNECT: expected TCP_TUNNEL/200 $got ... HIER_DIRECT/127.0.0.1 -: '$LINE'"
    pass "CONNECT: $LINE"
fi

# a download the client abandons after 100 KB of 50 MB
python3 - "$PORT" "$OPORT" "$(scaled 5)" <<'PY' || fail "aborting client failed"
import socket, sys
port, origin, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
s.sendall(b"GET http://127.0.0.1:%d/abandoned?s=50m HTTP/1.1\r\nHost: x\r\n\r\n" % origin)
got = 0
while got < 100000:
    chunk = s.recv(65536)
    if not chunk:
        raise SystemExit("closed after %d bytes" % got)
    got += len(chunk)
s.close()
PY
if line_of GET "http://127\.0\.0\.1:$OPORT/abandoned\?"; then
    echo "$LINE" | grep -Eq " 127\.0\.0\.1 TCP_MISS_ABORTED/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/abandoned\? - HIER_DIRECT/127\.0\.0\.1 application/octet-stream\$" ||
        bad "abandoned: expected TCP_MISS_ABORTED/200 ... HIER_DIRECT/127.0.0.1: '$LINE'"
    sent=$(field 5)
    [ "$sent" -ge 100000 ] && [ "$sent" -lt 52428800 ] || bad "abandoned: $sent bytes logged"
    pass "abandoned download: $LINE"
fi

# a 400 for a malformed request (a field without a colon)
got=$(python3 - "$PORT" "$OPORT" "$(scaled 5)" <<'PY'
import socket, sys
port, origin, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(b"GET http://127.0.0.1:%d/malformed HTTP/1.1\r\nHostx\r\n\r\n" % origin)
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
if not data.startswith(b"HTTP/1.1 400 "):
    raise SystemExit("malformed: %r" % data[:40])
print(len(data))
PY
) || fail "malformed request: $got"
if line_of GET "http://127\.0\.0\.1:$OPORT/malformed"; then
    echo "$LINE" | grep -Eq " 127\.0\.0\.1 NONE_NONE/400 $got GET http://127\.0\.0\.1:$OPORT/malformed - HIER_NONE/- text/html\$" ||
        bad "400: expected NONE_NONE/400 $got ... HIER_NONE/- text/html: '$LINE'"
    pass "400: $LINE"
fi

# the whole file: one line per transaction, ten fields each
cuttle_stop
lines=$(wc -l < "$T/access.log")
[ "$lines" = "$TRANSACTIONS" ] || bad "$lines lines for $TRANSACTIONS transactions"
awk 'NF != 10 { print "line " NR " has " NF " fields: " $0; bad = 1 } END { exit bad }' "$T/access.log" ||
    bad "access.log is not ten whitespace-separated fields a line"
while IFS= read -r l; do
    check_native_line "$l"
done < "$T/access.log"
checks_done
pass "access.log: $lines lines in Squid's native format"
