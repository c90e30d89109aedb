#!/bin/sh
# What a client connection does, done over TLS: an https_port's connection
# speaks TLS itself (Tls::Accepted, as a bumped one does), so every path of
# Client::Connection runs through it. A miss and its memory hit; a 5 MB
# object stored on disk and its disk hit (TCP_HIT: the file's bytes read
# and written through TLS where a plain client gets sendfile), a Range of
# it; a 1 MB upload with Expect: 100-continue and a chunked one, each read
# whole by the origin; two requests in one TLS record, answered in order.
# Every body is checked by sha256.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
origin_start
chmod -R a+rX "$T/tls"
tls_conf "cache_dir ufs $T/cache 100 4 4" "maximum_object_size_in_memory 512 KB" "maximum_object_size 50 MB" \
    "https_port 127.0.0.1:0 tls-cert=$T/tls/proxy.pem tls-key=$T/tls/proxy.key"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
cuttle_start
HPORT=$(grep -o 'Accepting HTTPS Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" | tail -n 1 | sed 's/.*://')
[ -n "$HPORT" ] || fail "no https_port in cache.log"
is_rebuilt() { grep -q "cache_dir $T/cache: rebuilt its index" "$T/cache.log"; }
wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"

# through_tls ARGS... : curl through the https_port, trusting the test CA: the status
through_tls() {
    curl -s -D "$T/head" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 20)" \
        --proxy "https://127.0.0.1:$HPORT" --proxy-cacert "$T/tls/ca.pem" "$@"
}
sha() { sha256sum | cut -d' ' -f1; }
header() { sed -n "s/^$1: *//ip" "$T/head" | tr -d '\r' | tail -n 1; }
stored_files() { find "$T/cache" -type f ! -name '*.tmp' | wc -l | tr -d ' '; }
has_files() { [ "$(stored_files)" -ge "$1" ]; }

URL="http://127.0.0.1:$OPORT"
small="$URL/small?s=100000&cc=max-age=600"
expect "a miss" "$(through_tls "$small")" 200
expect "its body" "$(sha < "$T/body")" "$("$ORIGIN" --print-body 100000 | sha)"
expect "its memory hit" "$(through_tls "$small")" 200
expect "the hit's body" "$(sha < "$T/body")" "$("$ORIGIN" --print-body 100000 | sha)"
wait_until 5 access_log_has "TCP_MEM_HIT/200 [0-9]+ GET $URL/small\\?" || fail "no TCP_MEM_HIT line"
pass "a miss and its memory hit over TLS"

big="$URL/big?s=5000000&cc=max-age=600"
BIG_SHA=$("$ORIGIN" --print-body 5000000 | sha)
expect "a 5 MB miss" "$(through_tls "$big")" 200
expect "its body" "$(sha < "$T/body")" "$BIG_SHA"
wait_until 20 has_files 1 || fail "the 5 MB object was not stored on disk"
expect "its disk hit" "$(through_tls "$big")" 200
expect "the disk hit's body" "$(sha < "$T/body")" "$BIG_SHA"
wait_until 5 access_log_has "TCP_HIT/200 [0-9]+ GET $URL/big\\?" || fail "no TCP_HIT line: $(tail -n 2 "$T/access.log")"
expect "a Range of the disk object" "$(through_tls -H 'Range: bytes=1000000-1999999' "$big")" 206
expect "its bytes" "$(sha < "$T/body")" "$("$ORIGIN" --print-body 5000000 | tail -c +1000001 | head -c 1000000 | sha)"
wait_until 5 access_log_has "TCP_HIT/206 [0-9]+ GET $URL/big\\?" || fail "no TCP_HIT/206 line"
pass "a disk hit and a Range of it over TLS"

"$ORIGIN" --print-body 1000000 > "$T/upload"
UP_SHA=$(sha < "$T/upload")
expect "an upload with Expect: 100-continue" \
    "$(through_tls -H 'Expect: 100-continue' --data-binary @"$T/upload" "$URL/up")" 200
expect "what the origin read" "$(header X-Body-Sha256)" "$UP_SHA"
expect "a chunked upload" \
    "$(through_tls -H 'Transfer-Encoding: chunked' --data-binary @"$T/upload" "$URL/up?v=2")" 200
expect "what the origin read" "$(header X-Body-Sha256)" "$UP_SHA"
pass "uploads over TLS reach the origin whole"

python3 - "$HPORT" "$T/tls/ca.pem" "$OPORT" > "$T/pipelined" << 'PY' || fail "pipelined: $(cat "$T/pipelined")"
import socket, ssl, sys
port, ca, oport = int(sys.argv[1]), sys.argv[2], sys.argv[3]
context = ssl.create_default_context(cafile=ca)
s = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="proxy.test")
one = "GET http://127.0.0.1:%s/p1?s=10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % oport
two = "GET http://127.0.0.1:%s/p2?s=20 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % oport
s.sendall((one + two).encode())  # one TLS record
got = b""
s.settimeout(10)
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    got += chunk
# each reply: its status and body, in the order they came
while got:
    head, _, rest = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = [int(l.split(":")[1]) for l in lines if l.lower().startswith("content-length:")][0]
    print(lines[0].split(" ")[1], rest[:length].decode("latin-1"))
    got = rest[length:]
PY
expect "the replies, in order" "$(cat "$T/pipelined" | tr '\n' ' ')" "200 $("$ORIGIN" --print-body 10) 200 $("$ORIGIN" --print-body 20) "
pass "two requests in one TLS record are answered in order"
cuttle_stop
