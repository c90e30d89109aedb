#!/bin/sh
# Intercepted TLS, bumped: `https_port ... intercept ssl-bump` as Squid 5
# does it, in a network namespace this test makes (unshare -n): iptables
# REDIRECTs the client's port-443 connections to cuttle's port, which makes
# up a CONNECT to the original destination (http_access and ssl_bump step 1
# see it; no 200 is written), peeks at the ClientHello, and splices or bumps
# by its SNI. A bumped request's URL comes from Host (https://), Host is
# verified against the original destination, and the request goes there
# over TLS checked for Host's name (ORIGINAL_DST): served, logged, cached
# and hit as any other. A spliced client sees the origin's own certificate.
#
# A made-up CONNECT that http_access refuses gets its error page over the
# bumped connection, as Squid bumps a client to show it one.
#
# Addresses (on the namespace's lo): 10.77.0.1 origin.test and 10.77.0.3
# splice.test (HTTPS origins on port 443), 10.77.0.5 a destination
# http_access refuses, 10.77.0.9 the client; fd77::1
# and fd77::9 likewise, when ip6tables can NAT here. Skipped
# (77) where no network namespace with iptables can be made (netns.sh).
. "$top_srcdir/test-suite/netns.sh"
netns_enter "$0" "$@"

. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

netns_addresses 10.77.0.1 10.77.0.3 10.77.0.5 10.77.0.9
netns_v6_addresses fd77::1 fd77::9

tls_bump_setup
# (the last one started is tls_stats's: splice.test's)
[ $HAVE_V6 = no ] || tls_origin valid --listen "[fd77::1]:443" --stats "$T/valid6.stats"
tls_origin valid --listen 10.77.0.1:443
tls_origin splice --listen 10.77.0.3:443
dns_start origin.test=10.77.0.1 splice.test=10.77.0.3 other.test=10.77.0.3
fwd_conf "acl blocked dst 10.77.0.5" "http_access deny blocked" "http_access allow all" \
    "tls_outgoing_options cafile=$d/ca.pem" "request_timeout 5 seconds" \
    "https_port 0 intercept ssl-bump tls-cert=$d/bump.pem tls-key=$d/bump.key generate-host-certificates=on" \
    "acl step1 at_step SslBump1" "acl spliced ssl::server_name splice.test" \
    "ssl_bump peek step1" "ssl_bump splice spliced" "ssl_bump bump all"
cuttle_start
announce='Accepting NAT intercepted SSL bumped HTTPS Socket connections at [^ ]* local=[^ ]*'
grep -q "$announce .* flags=41" "$T/cache.log" || fail "cache.log does not announce the port as Squid does"
IPORT=$(grep -o "$announce" "$T/cache.log" | tail -n 1 | sed -e 's/.*local=//' -e 's/.*://')
netns_redirect 443 "$IPORT"
pass "https_port 0 intercept ssl-bump: port $IPORT"

# get CACERT URL [CURL ARGS] : the client's own HTTPS request (no proxy),
# trusting CACERT only; prints the status; $T/head, $T/body
get() {
    local ca=$1 url=$2
    shift 2
    curl -s -D "$T/head" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" --interface 10.77.0.9 \
        --cacert "$ca" --resolve origin.test:443:10.77.0.1 --resolve splice.test:443:10.77.0.3 \
        --resolve other.test:443:10.77.0.1 "$@" "$url"
}

expect "a bumped GET, trusting only the bump CA" "$(get "$d/bump.pem" "https://origin.test/body?s=20")" 200
expect "its body" "$(cat "$T/body")" 01234567890123456789
wait_until 5 access_log_has ' TCP_MISS/200 [0-9]+ GET https://origin\.test/body\? - ORIGINAL_DST/10\.77\.0\.1 ' ||
    fail "the bumped GET is not logged by its https:// URL to the original destination"
access_log_has ' NONE_NONE/200 0 CONNECT 10\.77\.0\.1:443 - HIER_NONE/- ' ||
    fail "the made-up CONNECT is not logged as Squid logs it"
pass "logged by its https:// URL, with the made-up CONNECT"

expect "a bumped GET of a cacheable object" "$(get "$d/bump.pem" "https://origin.test/cached")" 200
expect "again, from the cache" "$(get "$d/bump.pem" "https://origin.test/cached")" 200
expect "its body" "$(cat "$T/body")" cacheable
grep -qi '^X-Cache: HIT' "$T/head" || fail "no X-Cache: HIT: $(cat "$T/head")"
wait_until 5 access_log_has ' TCP_MEM_HIT/200 [0-9]+ GET https://origin\.test/cached ' || fail "no TCP_MEM_HIT"
pass "a bumped hit"

# the client's SNI picks splice: the tunnel goes to the original
# destination, and the client sees that origin's own certificate
expect "a spliced client sees the origin's own certificate" \
    "$(get "$d/ca.pem" "https://splice.test/body?s=30")" 200
expect "its body" "$(cat "$T/body")" 012345678901234567890123456789
wait_until 5 access_log_has ' TCP_TUNNEL/200 [0-9]+ CONNECT 10\.77\.0\.3:443 - ORIGINAL_DST/10\.77\.0\.3 ' ||
    fail "no TCP_TUNNEL line to the original destination"
expect "the spliced site refuses the bump CA" "$(get "$d/bump.pem" "https://splice.test/body?s=3")" 000

# a Host that does not resolve to the original destination (other.test is
# 10.77.0.3; the client went to 10.77.0.1): still fetched from where the
# client was going (not cached: host_verify_strict off), over TLS for
# other.test, whose certificate the origin there does not have: an error
# page, and no request to 10.77.0.3
before=$(tls_stats)
code=$(get "$d/bump.pem" "https://other.test/body?s=5")
expect "a forged Host: Squid's error page" "$code" 503
wait_until 5 access_log_has ' [A-Z_]+/503 [0-9]+ GET https://other\.test/body\? - ORIGINAL_DST/10\.77\.0\.1 ' ||
    fail "forged Host: no 503 line to the original destination"
expect "forged Host: the other origin saw nothing" "$(tls_stats)" "$before"

# a destination http_access refuses: the client is bumped with a
# certificate for its SNI, and its first request gets the error page
expect "a refused destination: the error page over TLS" \
    "$(get "$d/bump.pem" "https://blocked.test/x" --resolve blocked.test:443:10.77.0.5)" 403
grep -qi '^X-Squid-Error: ERR_ACCESS_DENIED' "$T/head" || fail "no ERR_ACCESS_DENIED page: $(cat "$T/head")"
grep -q 'ERR_ACCESS_DENIED' "$T/body" || fail "the page is not ERR_ACCESS_DENIED's: $(head -c 300 "$T/body")"
wait_until 5 access_log_has ' TCP_DENIED/403 [0-9]+ GET https://blocked\.test/x - HIER_NONE/- ' ||
    fail "the bumped request is not logged TCP_DENIED/403 by its https:// URL"
access_log_has ' TCP_DENIED/403 0 CONNECT 10\.77\.0\.5:443 ' || fail "the refused made-up CONNECT is not logged"
pass "a refused made-up CONNECT: the error page over the bumped connection"

# IPv6: the made-up CONNECT names the original destination in brackets
if [ $HAVE_V6 = yes ]; then
    code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" --interface fd77::9 \
        --cacert "$d/bump.pem" --resolve "origin.test:443:[fd77::1]" "https://origin.test/body?s=6")
    expect "IPv6: a bumped GET" "$code" 200
    wait_until 5 access_log_has ' TCP_MISS/200 [0-9]+ GET https://origin\.test/body\? - ORIGINAL_DST/fd77::1 ' ||
        fail "IPv6: no line to the original destination"
    access_log_has ' NONE_NONE/200 0 CONNECT \[fd77::1\]:443 ' || fail "IPv6: the made-up CONNECT is not logged"
else
    echo "# IPv6: not tried (no ip6tables nat in the namespace)"
fi

# a client that stalls before its ClientHello is cut at request_timeout
python3 - "$IPORT" << 'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("10.77.0.9", 0))
s.connect(("10.77.0.1", 443))
time.sleep(8)
PY
stalled=$!
wait_until 12 access_log_has ' NONE_NONE/000 0 CONNECT 10\.77\.0\.1:443 ' || fail "a stalled client is not cut"
wait "$stalled" 2> /dev/null
pass "a client that sends no ClientHello is cut at request_timeout"
cuttle_stop
