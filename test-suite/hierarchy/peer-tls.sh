#!/bin/sh
# cache_peer ... tls: a cuttle child reaches its parent (a cuttle with an
# https_port) over TLS, verified against tls-cafile=, the connection pooled
# and used again; a parent whose certificate the child cannot verify (no
# tls-cafile=, or a tls-domain= it does not name) gets no request and the
# client gets Squid's ERR_SECURE_CONNECT_FAIL; a CONNECT never goes through
# a TLS parent (it is spliced); without `tls` the child speaks plain HTTP to
# the TLS port and fails; `cuttle -k parse` refuses what is not implemented
# and warns about tls- options without tls.
# With workers (CUTTLE_TEST_WORKERS: the child and the parent run that many)
# the idle parent connections are each worker's: the two GETs that share
# one go from one curl run on one client connection (one child worker).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"
cuttle_setup
tls_certs
origin_start
chmod a+r "$T/tls/proxy.key" # the parent serves as cache_effective_user when started as root
peer_start parent "cache deny all" "https_port 127.0.0.1:0 tls-cert=$T/tls/proxy.pem tls-key=$T/tls/proxy.key"
HPORT=$(grep -o 'Accepting HTTPS Socket connections at [^ ]* local=[^ ]*' "$T/parent/cache.log" | tail -n 1 |
    sed 's/.*://')
[ -n "$HPORT" ] || fail "the parent has no https_port: $(cat "$T/parent/cache.log")"

# child NAME CACHE_PEER_OPTIONS... : a cuttle child whose only way out is that parent; sets CPORT
child() {
    local name=$1
    shift
    peer_start "$name" "cache deny all" "never_direct allow all" "debug_options ALL,1 83,3" \
        "cache_peer 127.0.0.1 parent $HPORT 0 no-query name=secure $*"
    CPORT=$PEER_PORT
}
# get PORT URL : the status of a GET of URL through the proxy at PORT; the body in $T/body
get() {
    curl -s -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$1" "$2"
}

child good "tls tls-cafile=$T/tls/ca.pem"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    expect "a GET through the TLS parent" "$(get "$CPORT" "http://127.0.0.1:$OPORT/a?s=100000")" 200
    expect "its body" "$(sha256sum < "$T/body")" "$("$ORIGIN" --print-body 100000 | sha256sum)"
    expect "a second GET" "$(get "$CPORT" "http://127.0.0.1:$OPORT/b?s=10")" 200
else
    curl -s -w '%{http_code} %{num_connects}\n' --max-time "$(scaled 10)" -x "127.0.0.1:$CPORT" \
        -o "$T/body" "http://127.0.0.1:$OPORT/a?s=100000" -o "$T/body2" "http://127.0.0.1:$OPORT/b?s=10" > "$T/two.w"
    expect "the two GETs on one client connection" "$(cut -d ' ' -f 2 "$T/two.w" | tr -d '\n')" 10
    expect "a GET through the TLS parent" "$(sed -n '1s/ .*//p' "$T/two.w")" 200
    expect "its body" "$(sha256sum < "$T/body")" "$("$ORIGIN" --print-body 100000 | sha256sum)"
    expect "a second GET" "$(sed -n '2s/ .*//p' "$T/two.w")" 200
fi
wait_until 5 grep -qs " GET http://127.0.0.1:$OPORT/b? - FIRSTUP_PARENT/127.0.0.1 " "$T/good/access.log" ||
    fail "the child did not log FIRSTUP_PARENT: $(cat "$T/good/access.log")"
wait_until 5 grep -qs " GET http://127.0.0.1:$OPORT/b? - HIER_DIRECT/" "$T/parent/access.log" ||
    fail "the parent did not get the request: $(cat "$T/parent/access.log")"
expect "TLS handshakes with the parent (the second GET used the pooled connection)" \
    "$(grep -c 'TLS with cache_peer secure:' "$T/good/cache.log")" 1
pass "GETs go to the parent over TLS, verified, on one pooled connection"

# a CONNECT is spliced: no TLS parent can take it, and never_direct leaves nothing
code=$(curl -s -o /dev/null -w '%{http_connect}' --max-time "$(scaled 10)" -x "127.0.0.1:$CPORT" \
    -p "http://127.0.0.1:$OPORT/" 2> /dev/null)
expect "CONNECT with only a TLS parent" "$code" 503
pass "a CONNECT is not sent through a TLS parent"

before=$(grep -c . "$T/parent/access.log")
child nocafile "tls"
expect "a parent whose CA is not trusted" "$(get "$CPORT" "http://127.0.0.1:$OPORT/c")" 503
grep -q "ERR_SECURE_CONNECT_FAIL" "$T/body" || fail "no ERR_SECURE_CONNECT_FAIL page: $(head -c 300 "$T/body")"
child wrongname "tls tls-cafile=$T/tls/ca.pem tls-domain=other.test"
expect "a parent whose certificate does not name tls-domain=" "$(get "$CPORT" "http://127.0.0.1:$OPORT/d")" 503
grep -q "ERR_SECURE_CONNECT_FAIL" "$T/body" || fail "no ERR_SECURE_CONNECT_FAIL page: $(head -c 300 "$T/body")"
child named "tls tls-cafile=$T/tls/ca.pem tls-domain=proxy.test"
expect "a parent whose certificate names tls-domain=" "$(get "$CPORT" "http://127.0.0.1:$OPORT/e")" 200
child plain "tls-cafile=$T/tls/ca.pem"
code=$(get "$CPORT" "http://127.0.0.1:$OPORT/f")
[ "$code" != 200 ] || fail "plain HTTP to the parent's TLS port got 200"
cat "$T/plain/cache.log" "$T/plain/stderr" | grep -q "tls-cafile=.* without tls" || fail "no warning about tls-cafile= without tls"
expect "requests the parent got from the failing children" \
    "$(grep -c " GET http://127.0.0.1:$OPORT/[cdf] " "$T/parent/access.log")" 0
expect "and from the named one" "$(grep -c " GET http://127.0.0.1:$OPORT/e " "$T/parent/access.log")" 1
[ "$(grep -c . "$T/parent/access.log")" -gt "$before" ] || fail "the parent's log did not grow"
pass "an unverified parent gets no request, and the client gets ERR_SECURE_CONNECT_FAIL"

# -k parse
printf 'http_port 127.0.0.1:3128\ncache_peer 127.0.0.1 parent 3129 0 tls tls-crlfile=/x.pem\n' > "$T/crl.conf"
out=$("$CUTTLE" -k parse -f "$T/crl.conf" 2>&1) && fail "tls-crlfile= was accepted"
echo "$out" | grep -q "crl.conf:2: .*tls-crlfile=/x.pem.* refused" || fail "tls-crlfile=: $out"
printf 'http_port 127.0.0.1:3128\ncache_peer 127.0.0.1 parent 3129 0 tls tls-min-version=1.7\n' > "$T/ver.conf"
out=$("$CUTTLE" -k parse -f "$T/ver.conf" 2>&1) && fail "tls-min-version=1.7 was accepted"
echo "$out" | grep -q "ver.conf:2: .*min-version '1.7'" || fail "tls-min-version=1.7: $out"
printf 'http_port 127.0.0.1:3128\ncache_peer 127.0.0.1 parent 3129 0 ssl sslcafile=/etc/ssl/certs/ca-certificates.crt sslflags=DONT_VERIFY_DOMAIN ssldomain=p.test tls-no-npn\n' > "$T/ssl.conf"
"$CUTTLE" -k parse -f "$T/ssl.conf" > "$T/ssl.out" 2>&1 || fail "Squid's ssl names refused: $(cat "$T/ssl.out")"
pass "-k parse refuses tls-crlfile= and a bad min-version, and takes Squid's ssl names"
