#!/bin/sh
# An https:// origin whose certificate does not verify (expired, issued for
# another name, self-signed, or by a CA cuttle was not told to trust) gets
# Squid's ERR_SECURE_CONNECT_FAIL page, 503, with the error's name (%x) and
# detail (%D), and the access.log line Squid writes; sslproxy_cert_error lets
# a chosen error through and only that one.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs

# check_failure CERT TRUST NAME DETAIL : an origin with CERT, cuttle trusting
# TRUST (a cafile= or default-ca=off), the page naming NAME with DETAIL
check_failure() {
    tls_origin "$1"
    tls_conf "tls_outgoing_options $2"
    cuttle_start
    expect "$1: status" "$(tls_get "body?s=10")" 503
    grep -q '^X-Squid-Error: ERR_SECURE_CONNECT_FAIL 0' "$T/head" || fail "$1: not ERR_SECURE_CONNECT_FAIL: $(cat "$T/head")"
    grep -q "Error: <b>$3</b>" "$T/body" || fail "$1: the page does not name $3"
    grep -qF "Details: $4" "$T/body" || fail "$1: the page's detail is not '$4': $(grep Details "$T/body")"
    wait_until 5 access_log_has \
        "TCP_MISS/503 [0-9]+ GET https://origin.test:$TPORT/body\? - HIER_DIRECT/127.0.0.1 text/html" ||
        fail "$1: the access.log line: $(tail -n 1 "$T/access.log")"
    pass "$1: the access.log line"
    cuttle_stop
}

check_failure expired "cafile=$T/tls/ca.pem" X509_V_ERR_CERT_HAS_EXPIRED \
    "SSL Certificate expired on: Feb  1 00:00:00 2020 GMT"
check_failure wrongname "cafile=$T/tls/ca.pem" SQUID_X509_V_ERR_DOMAIN_MISMATCH \
    "Certificate does not match domainname: /CN=other.test"
check_failure self "cafile=$T/tls/ca.pem" X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT \
    "Self-signed SSL Certificate: /CN=origin.test"
check_failure valid "default-ca=off" X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY \
    "SSL Certificate error: certificate issuer (CA) not known: /CN=cuttle test CA"

# sslproxy_cert_error allows the expired certificate, not the wrong name
tls_origin expired
EXPIRED_PORT=$TPORT
tls_origin wrongname
WRONG_PORT=$TPORT
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" \
    "acl expired ssl_error X509_V_ERR_CERT_HAS_EXPIRED" \
    "sslproxy_cert_error allow expired" "sslproxy_cert_error deny all"
cuttle_start
TPORT=$EXPIRED_PORT
expect "an allowed error: fetched" "$(tls_get "body?s=10")" 200
expect "its body" "$(cat "$T/body")" 0123456789
TPORT=$WRONG_PORT
expect "another error is still refused" "$(tls_get "body?s=10")" 503
grep -q "Error: <b>SQUID_X509_V_ERR_DOMAIN_MISMATCH</b>" "$T/body" || fail "the page does not name the mismatch"
cuttle_stop
