#!/bin/sh
# SSL bump (doc/tls.md "SSL bump"): on an `http_port ... ssl-bump`, ssl_bump
# peeks at step 1, then splices or bumps by the client's SNI at step 2. A
# bumped client sees a certificate minted from the bump CA; its requests go
# through the normal path: logged by https:// URL, cached and hit, fetched
# over verified TLS (an origin with a bad certificate gives the bumped
# client ERR_SECURE_CONNECT_FAIL). A spliced client sees the origin's own
# certificate. terminate closes; a client without SNI is bumped with a
# certificate for the CONNECT's address; after a stare, the verified look at
# the origin carries the first bumped request; a client that stalls before
# its ClientHello is cut at request_timeout, leaving no descriptor; a 64 MB
# bumped download arrives whole.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

# the bump CA has its own key, which cuttle reads once at start
tls_bump_setup
if [ "$(id -u)" = 0 ]; then
    chown root: "$d/bump.key"
    chmod 600 "$d/bump.key"
fi
tls_origin valid
VPORT=$TPORT
tls_origin splice
SPORT=$TPORT
tls_origin expired
EPORT=$TPORT
tls_origin proxy # its certificate names 127.0.0.1: for the client without SNI
PPORT=$TPORT
tls_origin valid # stared at by port: its certificate is good for origin.test
LPORT=$TPORT
LSTATS=$TSTATS
echo "127.0.0.1 splice.test terminate.test stare.test" > "$T/hosts.more"
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" "request_timeout 2 seconds" \
    "http_port 127.0.0.1:0 ssl-bump tls-cert=$d/bump.pem tls-key=$d/bump.key generate-host-certificates=on dynamic_cert_mem_cache_size=1MB" \
    "acl step1 at_step SslBump1" "acl spliced ssl::server_name splice.test" \
    "acl doomed ssl::server_name_regex ^terminate\\." "acl step2 at_step SslBump2" \
    "acl stared ssl::server_name stare.test" "acl staredHost dstdomain stare.test" \
    "sslproxy_cert_error allow staredHost" "acl lookedAt port $LPORT" \
    "ssl_bump peek step1" "ssl_bump splice spliced" "ssl_bump terminate doomed" "ssl_bump stare step2 stared" \
    "ssl_bump stare step2 lookedAt" \
    "ssl_bump bump all" \
    "sslcrtd_program /usr/lib/squid/security_file_certgen -s /var/lib/squid/ssl_db -M 4MB" \
    "sslcrtd_children 5"
cat "$T/hosts.more" >> "$T/hosts"
cuttle_start
BPORT=$(grep -o 'Accepting SSL bumped HTTP Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" | sed -n 1p | sed 's/.*://')
[ -n "$BPORT" ] || fail "no ssl-bump port in cache.log"
[ "$(cat "$T/cache.log" "$T/stderr" | grep -c 'needs no certificate helper')" = 1 ] || fail "not one warning about sslcrtd_*"
pass "sslcrtd_program and sslcrtd_children: one warning"

# bumped CACERT URL [CURL ARGS] : GET URL through the ssl-bump port with CONNECT,
# trusting CACERT only; prints the status; $T/head, $T/body
bumped() {
    local ca=$1 url=$2
    shift 2
    curl -s -D "$T/head" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 20)" -x "127.0.0.1:$BPORT" \
        --cacert "$ca" "$@" "$url"
}

expect "a bumped GET, trusting only the bump CA" "$(bumped "$d/bump.pem" "https://origin.test:$VPORT/body?s=20")" 200
expect "its body" "$(cat "$T/body")" 01234567890123456789
wait_until 5 access_log_has "TCP_MISS/200 [0-9]+ GET https://origin.test:$VPORT/body\? - HIER_DIRECT/" ||
    fail "the bumped GET is not logged by its https:// URL"
access_log_has "NONE_NONE/200 [0-9]+ CONNECT origin.test:$VPORT " || fail "the bumped CONNECT is not logged"
pass "logged by its https:// URL"

expect "a bumped GET of a cacheable object" "$(bumped "$d/bump.pem" "https://origin.test:$VPORT/cached")" 200
expect "again, from the cache" "$(bumped "$d/bump.pem" "https://origin.test:$VPORT/cached")" 200
expect "its body" "$(cat "$T/body")" cacheable
grep -qi '^X-Cache: HIT' "$T/head" || fail "no X-Cache: HIT: $(cat "$T/head")"
wait_until 5 access_log_has "TCP_MEM_HIT/200 [0-9]+ GET https://origin.test:$VPORT/cached" || fail "no TCP_MEM_HIT"
pass "a bumped hit"

expect "a spliced client sees the origin's own certificate" \
    "$(bumped "$d/ca.pem" "https://splice.test:$SPORT/body?s=30")" 200
expect "its body" "$(cat "$T/body")" 012345678901234567890123456789
wait_until 5 access_log_has "TCP_TUNNEL/200 [0-9]+ CONNECT splice.test:$SPORT " || fail "no TCP_TUNNEL line"
expect "the spliced site refuses the bump CA" "$(bumped "$d/bump.pem" "https://splice.test:$SPORT/body?s=3")" 000

expect "terminate closes" "$(bumped "$d/bump.pem" "https://terminate.test:$VPORT/body?s=3" \
    --resolve "terminate.test:$VPORT:127.0.0.1")" 000

expect "a client without SNI (an address) is bumped" "$(bumped "$d/bump.pem" "https://127.0.0.1:$PPORT/body?s=10")" 200
expect "its body" "$(cat "$T/body")" 0123456789
wait_until 5 access_log_has "TCP_MISS/200 [0-9]+ GET https://127.0.0.1:$PPORT/body\? " || fail "no https:// line"

expect "an origin with an expired certificate" "$(bumped "$d/bump.pem" "https://origin.test:$EPORT/body?s=10")" 503
grep -q '^X-Squid-Error: ERR_SECURE_CONNECT_FAIL' "$T/head" || fail "not ERR_SECURE_CONNECT_FAIL: $(cat "$T/head")"
grep -q "X509_V_ERR_CERT_HAS_EXPIRED" "$T/body" || fail "the page does not name the error"
wait_until 5 access_log_has "TCP_MISS/503 [0-9]+ GET https://origin.test:$EPORT/body" || fail "no 503 line"
pass "the bumped client gets the error page over its bumped connection"

# stared at step 2, bumped at step 3: the minted certificate mimics the
# origin's names and validity (origin.test, from 2020), not the SNI (the
# name's mismatch allowed by sslproxy_cert_error, which makes every bump at
# step 2 look at its origin first)
python3 - "$BPORT" "$VPORT" "$d/bump.pem" "$(scaled 10)" << 'PY' || fail "the stared site's certificate"
import socket, ssl, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=float(sys.argv[4]))
s.sendall(b"CONNECT stare.test:%s HTTP/1.1\r\nHost: stare.test\r\n\r\n" % sys.argv[2].encode())
got = b""
while b"\r\n\r\n" not in got:
    got += s.recv(4096)
assert got.startswith(b"HTTP/1.1 200"), got
ctx = ssl.create_default_context(cafile=sys.argv[3])
ctx.check_hostname = False  # the mimicked names are the origin's, not stare.test
tls = ctx.wrap_socket(s, server_hostname="stare.test")
cert = tls.getpeercert()
assert cert["subjectAltName"] == (("DNS", "origin.test"),), cert
assert cert["notBefore"] == "Jan  1 00:00:00 2020 GMT", cert
assert dict(x[0] for x in cert["issuer"])["commonName"] == "cuttle test bump CA", cert
PY
pass "a bump after stare mimics the origin's certificate"

# stared at step 2 and bumped at step 3, an origin whose certificate is
# good: the look at it was a verified connection, and the bumped GET goes
# over it (the origin sees one connection, one handshake)
expect "a bumped GET after stare" "$(bumped "$d/bump.pem" "https://origin.test:$LPORT/body?s=20")" 200
expect "its body" "$(cat "$T/body")" 01234567890123456789
expect "the origin's connections" "$(cat "$LSTATS")" "accepted=1 handshakes=1 resumed=0"
pass "the look at the origin carries the first bumped request"

# a ClientHello split across two writes (the peek waits for the rest) and a
# GET in the same write as the client's Finished
python3 - "$BPORT" "$VPORT" "$d/bump.pem" "$(scaled 10)" << 'PY' || fail "a hello in two pieces"
import socket, ssl, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=float(sys.argv[4]))
s.sendall(b"CONNECT origin.test:%s HTTP/1.1\r\nHost: origin.test\r\n\r\n" % sys.argv[2].encode())
got = b""
while b"\r\n\r\n" not in got:
    got += s.recv(4096)
assert got.startswith(b"HTTP/1.1 200"), got
ctx = ssl.create_default_context(cafile=sys.argv[3])
inb, outb = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(inb, outb, server_hostname="origin.test")
first = True
while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        data = outb.read()
        if first:
            s.sendall(data[:20])
            time.sleep(0.3)
            s.sendall(data[20:])
            first = False
        elif data:
            s.sendall(data)
        inb.write(s.recv(65536))
tls.write(b"GET /body?s=5 HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n")
s.sendall(outb.read())
reply = b""
while True:
    data = s.recv(65536)
    if not data:
        break
    inb.write(data)
    try:
        while True:
            chunk = tls.read(65536)
            if not chunk:
                break
            reply += chunk
    except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
        pass
    if reply.endswith(b"01234"):
        break
assert reply.startswith(b"HTTP/1.1 200") and reply.endswith(b"01234"), reply
PY
pass "a ClientHello split across reads is peeked whole, then bumped"

# a 64 MB download through a bump, checked by its sha256
size=67108864
want=$(python3 -c "import hashlib,sys; n=$size; print(hashlib.sha256((b'0123456789'*(n//10+1))[:n]).hexdigest())")
expect "a bumped 64 MB download" "$(bumped "$d/bump.pem" "https://origin.test:$VPORT/body?s=$size")" 200
expect "its sha256" "$(sha256sum < "$T/body" | cut -d' ' -f1)" "$want"

fds() { ls "/proc/$CUTTLE_PID/fd" | wc -l; }
before=$(fds)
python3 - "$BPORT" "$VPORT" "$(scaled 6)" << 'PY' || fail "the stalled client was not cut"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"CONNECT origin.test:%s HTTP/1.1\r\nHost: origin.test\r\n\r\n" % sys.argv[2].encode())
s.settimeout(float(sys.argv[3]))
got = b""
while b"\r\n\r\n" not in got:
    got += s.recv(4096)
assert got.startswith(b"HTTP/1.1 200"), got
s.sendall(b"\x16\x03\x01")  # the start of a ClientHello, and then nothing
start = time.time()
try:
    while s.recv(4096):
        pass
except socket.timeout:
    sys.exit(1)
except ConnectionResetError:
    pass  # closed with the peeked bytes unread: a reset
sys.exit(0 if time.time() - start < float(sys.argv[3]) else 1)
PY
pass "a client that stalls before its ClientHello is cut"
wait_until 5 sh -c "[ \$(ls /proc/$CUTTLE_PID/fd | wc -l) -le $before ]" ||
    fail "descriptors left behind: $(fds) now, $before before"
pass "no descriptor left behind"
cuttle_stop
