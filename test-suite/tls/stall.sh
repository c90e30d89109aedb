#!/bin/sh
# An https:// origin that accepts the connection and never answers the
# handshake: connect_timeout ends it with ERR_SECURE_CONNECT_FAIL (504, as
# Squid's negotiation timeout does), and no descriptor stays behind. Then an
# origin whose whole reply is in the socket when the handshake ends (TLS
# 1.2: the server speaks last, and writes the reply at once): no new edge
# announces those bytes, so the forwarder must read them right away.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
tls_origin valid --stall
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" "connect_timeout 2 seconds"
cuttle_start

fds() { ls "/proc/$CUTTLE_PID/fd" | wc -l; }
before=$(fds)
start=$(date +%s)
expect "a stalled handshake" "$(tls_get "body?s=10")" 504
took=$(($(date +%s) - start))
[ "$took" -ge 1 ] && [ "$took" -le "$(scaled 6)" ] || fail "the stalled handshake took $took s, not about 2"
grep -q '^X-Squid-Error: ERR_SECURE_CONNECT_FAIL' "$T/head" || fail "not ERR_SECURE_CONNECT_FAIL: $(cat "$T/head")"
grep -q "Error: <b>SQUID_TLS_ERR_CONNECT</b>" "$T/body" || fail "the page does not name SQUID_TLS_ERR_CONNECT"
wait_until 5 sh -c "[ \$(ls /proc/$CUTTLE_PID/fd | wc -l) -le $before ]" ||
    fail "descriptors left behind: $(fds) now, $before before"
pass "no descriptor left behind"
cuttle_stop

tls_origin valid --burst 200000 --max-tls 1.2
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" "read_timeout 5 seconds"
cuttle_start
expect "a reply already in the socket when the handshake ends" "$(tls_get "body?s=1")" 200
expect "all of it" "$(wc -c < "$T/body")" 200000
cuttle_stop
