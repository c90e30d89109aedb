#!/bin/sh
# sslproxy_cert_sign and sslproxy_cert_adapt (doc/tls.md "When the origin's
# certificate is bad"): with `sslproxy_cert_error allow all`, a bump (at
# step 2, after a look at the origin) shows the client a certificate that
# the bump CA does not sign when the origin's was untrusted (signed by the
# untrusted CA cuttle makes) or self-signed (self-signed too), and one the
# bump CA signs for a trusted origin. An sslproxy_cert_adapt line renames
# the certificate and gives it the CA's "Not After"; a sslproxy_cert_sign
# line overrides the defaults. sslproxy_cert_sign_hash sha384 signs them all
# with SHA-384; a digest OpenSSL does not know is refused by -k parse.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
d=$T/tls
tls_bump_ca
# a CA nobody trusts, and origin.test's certificate from it
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/rogue-ca.key" \
    -out "$d/rogue-ca.pem" -days 3 -subj "/CN=rogue CA" 2>> "$d/openssl.err" &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/rogue.key" -out "$d/rogue.pem" \
        -CA "$d/rogue-ca.pem" -CAkey "$d/rogue-ca.key" -days 3 -subj "/CN=origin.test" \
        -addext "subjectAltName=DNS:origin.test" 2>> "$d/openssl.err" || fail "openssl: the rogue certificate"
chmod -R a+rX "$d"
tls_origin valid
VPORT=$TPORT
tls_origin rogue
RPORT=$TPORT
tls_origin self
SELFPORT=$TPORT
tls_conf "tls_outgoing_options cafile=$d/ca.pem" \
    "http_port 127.0.0.1:0 ssl-bump tls-cert=$d/bump.pem tls-key=$d/bump.key" \
    "acl step1 at_step SslBump1" "ssl_bump peek step1" "ssl_bump bump all" \
    "sslproxy_cert_error allow all" "sslproxy_cert_sign_hash sha384" \
    "acl adapted ssl::server_name --client-requested adapt.test" \
    "acl forced ssl::server_name --client-requested forced.test" \
    "sslproxy_cert_sign signTrusted forced" \
    "sslproxy_cert_adapt setValidAfter adapted" "sslproxy_cert_adapt setCommonName{renamed.test} adapted"
echo "127.0.0.1 adapt.test forced.test" >> "$T/hosts"
cuttle_start
BPORT=$(grep -o 'Accepting SSL bumped HTTP Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" | sed -n 1p | sed 's/.*://')
[ -n "$BPORT" ] || fail "no ssl-bump port in cache.log"

# minted HOST PORT NAME : the certificate a client bumped on CONNECT
# HOST:PORT sees, in $T/NAME.pem
minted() { tls_shown_cert "$BPORT" "$1:$2" > "$T/$3.pem" || fail "no certificate for $1:$2"; }
# field NAME -issuer|-subject|-enddate : that field of $T/NAME.pem
field() { openssl x509 -in "$T/$1.pem" -noout "$2" -nameopt utf8,sep_comma_plus; }
# verifies NAME HOST : whether a client that trusts the bump CA alone accepts $T/NAME.pem for HOST
verifies() { openssl verify -CAfile "$d/bump.pem" -verify_hostname "$2" "$T/$1.pem" > /dev/null 2>&1; }

minted origin.test "$VPORT" trusted
verifies trusted origin.test || fail "a trusted origin's minted certificate does not verify: $(field trusted -issuer)"
expect "its issuer" "$(field trusted -issuer)" "issuer=CN=cuttle test bump CA"
pass "a trusted origin's certificate is signed by the bump CA"
expect "sslproxy_cert_sign_hash sha384" \
    "$(openssl x509 -in "$T/trusted.pem" -noout -text | sed -n 's/^ *Signature Algorithm: //p' | sort -u)" \
    ecdsa-with-SHA384

minted origin.test "$RPORT" untrusted
verifies untrusted origin.test && fail "an untrusted origin's minted certificate verifies with the bump CA"
expect "its issuer" "$(field untrusted -issuer)" 'issuer=CN=Not trusted by "cuttle test bump CA"'
pass "an untrusted origin's certificate is signed by the untrusted CA (signUntrusted ssl::certUntrusted)"
expect "curl trusting the bump CA refuses it" \
    "$(curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$BPORT" \
        --cacert "$d/bump.pem" "https://origin.test:$RPORT/body?s=5")" 000
expect "curl -k gets the page sslproxy_cert_error lets through" \
    "$(curl -s -k -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$BPORT" \
        "https://origin.test:$RPORT/body?s=5")" 200

minted origin.test "$SELFPORT" self
verifies self origin.test && fail "a self-signed origin's minted certificate verifies with the bump CA"
expect "its issuer is its subject" "$(field self -issuer | sed 's/^issuer=//')" \
    "$(field self -subject | sed 's/^subject=//')"
pass "a self-signed origin's certificate is self-signed (signSelf ssl::certSelfSigned)"

minted forced.test "$RPORT" forced
expect "sslproxy_cert_sign signTrusted comes before the defaults" "$(field forced -issuer)" \
    "issuer=CN=cuttle test bump CA"

# adapt.test's certificate names origin.test (a domain mismatch, allowed):
# setCommonName{renamed.test} and setValidAfter
minted adapt.test "$VPORT" adapted
expect "setCommonName{renamed.test}" "$(field adapted -subject)" "subject=CN=renamed.test"
verifies adapted renamed.test || fail "the adapted certificate does not verify for renamed.test"
verifies adapted origin.test && fail "the adapted certificate still names origin.test"
expect "setValidAfter: the CA's Not After" "$(field adapted -enddate)" \
    "$(openssl x509 -in "$d/bump.pem" -noout -enddate)"
pass "sslproxy_cert_adapt renames the certificate and gives it the CA's Not After"
cuttle_stop

printf 'http_port 127.0.0.1:3128\nsslproxy_cert_sign_hash sha257\n' > "$T/hash.conf"
out=$("$CUTTLE" -k parse -f "$T/hash.conf" 2>&1) && fail "sslproxy_cert_sign_hash sha257 was accepted"
echo "$out" | grep -q "hash.conf:2: sslproxy_cert_sign_hash: OpenSSL knows no digest 'sha257'" ||
    fail "sslproxy_cert_sign_hash sha257: $out"
pass "-k parse refuses a digest OpenSSL does not know"
