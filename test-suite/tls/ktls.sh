#!/bin/sh
# Kernel TLS (options=KTLS, cuttle's own name for OpenSSL's
# SSL_OP_ENABLE_KTLS): asked for on tls_outgoing_options and on an
# https_port, cache.log says once whether the kernel offers it; every
# connection works either way (the kernel takes a connection only when it
# has the tls module and the cipher suits it, else OpenSSL ciphers it as
# without the option), and the mem page counts the connections that asked
# (tls_kernel_asked) and those the kernel took each way (tls_kernel_send,
# tls_kernel_receive). Without the option nothing asks and nothing is said.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
tls_origin valid

# start_with [LINE...] : cuttle with an https_port and these lines; HPORT
start_with() {
    tls_conf "http_access allow localhost manager" "$@"
    cuttle_start
    HPORT=$(grep -o 'Accepting HTTPS Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" | tail -n 1 |
        sed 's/.*://')
    [ -n "$HPORT" ] || fail "no https_port in cache.log"
}

# fetch : an https:// URL through the https_port: one TLS connection each side
fetch() {
    curl -s -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" --proxy "https://127.0.0.1:$HPORT" \
        --proxy-cacert "$T/tls/ca.pem" --request-target "https://origin.test:$TPORT/body?s=20" \
        "http://origin.test:$TPORT/"
}

said() { grep -c 'kernel TLS (options=KTLS)' "$T/cache.log"; }

start_with "tls_outgoing_options cafile=$T/tls/ca.pem options=KTLS" \
    "https_port 127.0.0.1:0 tls-cert=$T/tls/proxy.pem tls-key=$T/tls/proxy.key options=KTLS"
expect "cache.log says once whether the kernel offers kernel TLS" "$(said)" 1
expect "an https:// fetch through the https_port, both asking for kernel TLS" "$(fetch)" 200
expect "its body" "$(cat "$T/body")" 01234567890123456789
wait_until 5 sh -c "[ \"\$(curl -s http://127.0.0.1:$PORT/squid-internal-mgr/mem | sed -n 's/^tls_kernel_asked: //p')\" -ge 2 ]" ||
    fail "tls_kernel_asked did not count both connections: $(mgr_counter tls_kernel_asked)"
pass "both connections asked (tls_kernel_asked $(mgr_counter tls_kernel_asked))"
if grep -q 'kernel TLS (options=KTLS): not offered' "$T/cache.log"; then
    # this kernel (tcp_available_ulp without tls): OpenSSL ciphered both
    expect "no connection taken by a kernel without the tls module" \
        "$(mgr_counter tls_kernel_send) $(mgr_counter tls_kernel_receive)" "0 0"
else
    # a kernel with the tls module: the bytes above came whole through it;
    # OpenSSL decides per connection and direction (cipher, version), so
    # the counts are only checked to add up
    asked=$(mgr_counter tls_kernel_asked)
    send=$(mgr_counter tls_kernel_send)
    receive=$(mgr_counter tls_kernel_receive)
    [ "$send" -le "$asked" ] && [ "$receive" -le "$asked" ] ||
        fail "kernel TLS counts do not add up: asked $asked, send $send, receive $receive"
    pass "kernel TLS offered: of $asked connections, the kernel sends for $send and receives for $receive"
fi
cuttle_stop

before=$(said) # the same cache.log goes on
start_with "tls_outgoing_options cafile=$T/tls/ca.pem" \
    "https_port 127.0.0.1:0 tls-cert=$T/tls/proxy.pem tls-key=$T/tls/proxy.key"
expect "without options=KTLS: the same fetch" "$(fetch)" 200
expect "without options=KTLS: nothing said" "$(said)" "$before"
expect "without options=KTLS: nothing asked" "$(mgr_counter tls_kernel_asked)" 0
cuttle_stop
