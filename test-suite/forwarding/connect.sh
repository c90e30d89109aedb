#!/bin/sh
# CONNECT: curl reaches an openssl s_server through cuttle; a CONNECT to a
# port outside SSL_ports is denied 403 (Squid's default rules); to a closed
# port 503; a raw tunnel to an echo server carries bytes both ways and relays
# a half-close; TCP_TUNNEL/200 lines with the bytes; no descriptor is left.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
rawserver_start echo
ECHOPORT=$RAWPORT
CLOSED=$(closed_port)

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -days 1 -keyout "$T/key.pem" -out "$T/cert.pem" > "$T/openssl-req.out" 2>&1 ||
    fail "openssl req: $(cat "$T/openssl-req.out")"
BG_READY='^ACCEPT ' bg_start tls openssl s_server -www -accept 127.0.0.1:0 \
    -cert "$T/cert.pem" -key "$T/key.pem" < /dev/null
TLSPORT=$BG_PORT

# Squid's default CONNECT rules, with the test's ports as SSL ports
fwd_conf "acl SSL_ports port 443 $TLSPORT $ECHOPORT $CLOSED" "acl CONNECT method CONNECT" \
    "http_access deny CONNECT !SSL_ports" "http_access allow localhost" "http_access deny all" \
    "read_timeout 5 seconds"
cuttle_start
wait_until 5 test "$(fd_count "$CUTTLE_PID")" -gt 0 || fail "no descriptors in /proc"
BASE_FDS=$(fd_count "$CUTTLE_PID")

# TLS through the tunnel
code=$(curl -s -k -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -w '%{http_connect} %{http_code}' "https://127.0.0.1:$TLSPORT/")
[ "$code" = "200 200" ] || fail "https through CONNECT: $code"
grep -q 's_server' "$T/body" || fail "https through CONNECT: not s_server's page: $(head -c 200 "$T/body")"
wait_until 5 access_log_has " TCP_TUNNEL/200 [0-9]+ CONNECT 127\.0\.0\.1:$TLSPORT - HIER_DIRECT/127\.0\.0\.1 -\$" ||
    fail "no TCP_TUNNEL/200 line for the TLS tunnel"
line=$(log_line " CONNECT 127\.0\.0\.1:$TLSPORT ")
check_native_line "$line"
bytes=$(echo "$line" | awk '{print $5}')
# the 200 line, the server's TLS handshake and its page: several kilobytes
[ "$bytes" -gt "$(wc -c < "$T/body")" ] || bad "TLS tunnel: $bytes bytes logged, the page alone is $(wc -c < "$T/body")"
pass "https through CONNECT ($line)"

# a port that is not an SSL port: 403, no connection made
code=$(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -w '%{http_connect}' "https://127.0.0.1:$OPORT/")
[ "$code" = 403 ] || bad "CONNECT to a port outside SSL_ports: $code"
wait_until 5 access_log_has " TCP_DENIED/403 [0-9]+ CONNECT 127\.0\.0\.1:$OPORT - HIER_NONE/- text/html\$" ||
    bad "no TCP_DENIED/403 line for the CONNECT to $OPORT"
pass "CONNECT to a port outside SSL_ports denied"

# a closed port: 503 (Squid 5.7 logs it NONE_NONE/503 0 ... HIER_DIRECT/127.0.0.1 -)
code=$(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -w '%{http_connect}' "https://127.0.0.1:$CLOSED/")
[ "$code" = 503 ] || bad "CONNECT to a closed port: $code"
wait_until 5 access_log_has "/503 [0-9]+ CONNECT 127\.0\.0\.1:$CLOSED - HIER_DIRECT/127\.0\.0\.1 " ||
    bad "no .../503 ... HIER_DIRECT line for the CONNECT to the closed port"
pass "CONNECT to a closed port: 503"

# a raw tunnel to the echo server: 1 MB each way while both sides send, then
# the client shuts down its side and still gets the whole echo, then EOF
got=$(python3 - "$PORT" "$ECHOPORT" "$(scaled 10)" <<'PY'
import socket, sys, threading
port, target, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
# the first bytes ride in the same segment as the CONNECT head
first = b"early bytes\n"
s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (target, target) + first)
data = b""
while b"\r\n\r\n" not in data:
    chunk = s.recv(65536)
    if not chunk:
        raise SystemExit("closed before the CONNECT reply")
    data += chunk
head, rest = data.split(b"\r\n\r\n", 1)
if not head.startswith(b"HTTP/1.1 200 "):
    raise SystemExit("CONNECT: %r" % head)
payload = first + bytes((i * 7 + i // 251) % 256 for i in range(1 << 20))

def send():
    s.sendall(payload[len(first):])
    s.shutdown(socket.SHUT_WR)  # the half-close

sender = threading.Thread(target=send)
sender.start()
received = bytearray(rest)
while True:
    chunk = s.recv(1 << 16)
    if not chunk:
        break
    received += chunk
sender.join()
if bytes(received) != payload:
    raise SystemExit("echo: %d bytes back of %d, equal prefix: %s" %
                     (len(received), len(payload), bytes(received) == payload[:len(received)]))
print(len(head) + 4 + len(received))
PY
) || fail "tunnel to the echo server: $got"
pass "tunnel: 1 MB each way, half-close relayed, then EOF"
if wait_until 5 access_log_has " TCP_TUNNEL/200 [0-9]+ CONNECT 127\.0\.0\.1:$ECHOPORT "; then
    line=$(log_line " CONNECT 127\.0\.0\.1:$ECHOPORT ")
    check_native_line "$line"
    echo "$line" | grep -Eq " 127\.0\.0\.1 TCP_TUNNEL/200 $got CONNECT 127\.0\.0\.1:$ECHOPORT - HIER_DIRECT/127\.0\.0\.1 -\$" ||
        bad "echo tunnel: expected TCP_TUNNEL/200 $got ... HIER_DIRECT/127.0.0.1 -, logged '$line'"
else
    bad "no TCP_TUNNEL/200 line for the echo tunnel"
fi

# every tunnel and origin socket is closed again
wait_until 5 fds_back_to "$BASE_FDS" ||
    bad "cuttle holds $(fd_count "$CUTTLE_PID") descriptors, $BASE_FDS at the start: $(ls -l "/proc/$CUTTLE_PID/fd" | tail -n +2)"
is_running "$CUTTLE_PID" || fail "cuttle died"
cuttle_stop
checks_done
pass "descriptors back to $BASE_FDS"
