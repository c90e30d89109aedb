#!/bin/sh
# https_port: clients speak TLS to the proxy (curl --proxy https://...). A
# plain http:// fetch, an https:// one in absolute form and a CONNECT tunnel
# all work through it as through an http_port, logged the same way; the key
# is read before root is dropped (a key only root can read works); a client
# that stalls in its handshake is cut at request_timeout, leaving no
# descriptor behind; a client that does not trust the proxy's CA gets no
# answer.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
origin_start
tls_origin valid
if [ "$(id -u)" = 0 ]; then
    chown root: "$T/tls/proxy.key"
    chmod 600 "$T/tls/proxy.key"
fi
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" "request_timeout 2 seconds" \
    "https_port 127.0.0.1:0 tls-cert=$T/tls/proxy.pem tls-key=$T/tls/proxy.key name=secure"
cuttle_start
HPORT=$(grep -o 'Accepting HTTPS Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" | tail -n 1 | sed 's/.*://')
[ -n "$HPORT" ] || fail "no https_port in cache.log"

# through_tls ARGS... : curl through the https_port, trusting the test CA
through_tls() {
    curl -s -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" --proxy "https://127.0.0.1:$HPORT" \
        --proxy-cacert "$T/tls/ca.pem" "$@"
}

expect "http:// through the https_port" "$(through_tls "http://127.0.0.1:$OPORT/x?s=100000")" 200
expect "its body" "$(sha256sum < "$T/body")" "$("$ORIGIN" --print-body 100000 | sha256sum)"
wait_until 5 access_log_has "TCP_MISS/200 [0-9]+ GET http://127.0.0.1:$OPORT/x\?" || fail "no access.log line"

expect "an https:// URL in absolute form" "$(through_tls --request-target "https://origin.test:$TPORT/body?s=20" \
    "http://origin.test:$TPORT/")" 200
expect "its body" "$(cat "$T/body")" 01234567890123456789

expect "a CONNECT tunnel through the https_port" "$(through_tls --cacert "$T/tls/ca.pem" \
    --resolve "origin.test:$TPORT:127.0.0.1" "https://origin.test:$TPORT/body?s=30")" 200
expect "its body" "$(cat "$T/body")" 012345678901234567890123456789
wait_until 5 access_log_has "TCP_TUNNEL/200 [0-9]+ CONNECT origin.test:$TPORT " || fail "no TCP_TUNNEL line"

code=$(curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" --proxy "https://127.0.0.1:$HPORT" \
    "http://127.0.0.1:$OPORT/x?s=10")
expect "a client that does not trust the proxy's certificate" "$code" 000

fds() { ls "/proc/$CUTTLE_PID/fd" | wc -l; }
before=$(fds)
python3 - "$HPORT" "$(scaled 6)" << 'PY' || fail "the stalled client was not cut"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"\x16\x03\x01")  # the start of a ClientHello, and then nothing
s.settimeout(float(sys.argv[2]))
start = time.time()
try:
    while s.recv(4096):
        pass
except socket.timeout:
    sys.exit(1)
sys.exit(0 if time.time() - start < float(sys.argv[2]) else 1)
PY
pass "a client that stalls in its handshake is cut"
wait_until 5 sh -c "[ \$(ls /proc/$CUTTLE_PID/fd | wc -l) -le $before ]" ||
    fail "descriptors left behind: $(fds) now, $before before"
pass "no descriptor left behind"
cuttle_stop
