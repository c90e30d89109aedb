#!/bin/sh
# http_port ... intercept, as Squid 5.7 does it, in a network namespace this
# test makes (unshare -n): iptables REDIRECTs the test client's port-80
# connections to cuttle's intercept port. Requests arrive in origin-form;
# the URL comes from Host; Host is verified against the original destination
# (it must resolve to it and name its port, if any); every request is
# forwarded to the original destination (ORIGINAL_DST in access.log); one
# whose Host fails is not cached (host_verify_strict off) or gets 409
# ERR_CONFLICT_HOST (on; a CONNECT always); absolute-form is verified by its
# own authority; a connection made straight to the intercept port is
# refused as a loop; forward ports are not checked. Under never_direct with
# a parent, a verified request goes through the parent (FIRSTUP_PARENT) and
# one whose Host fails is refused (503) rather than sent there. IPv6 when
# ip6tables can NAT here.
#
# Addresses (all on the namespace's own lo): 10.77.0.1 (the origin, a.test),
# 10.77.0.2 (b.test: nothing listens there, so a request sent to it by name
# would fail), 10.77.0.9 (the client, whose port-80 traffic is redirected);
# fd77::1 / fd77::9 likewise. Needs root (or user namespaces), unshare and
# iptables (bootstrap.sh --install-test-deps installs them); skipped (77)
# otherwise.
. "$top_srcdir/test-suite/netns.sh"
netns_enter "$0" "$@"

. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"

netns_addresses 10.77.0.1 10.77.0.2 10.77.0.9
netns_v6_addresses fd77::1 fd77::9

cuttle_setup
[ -x "$ORIGIN" ] || { echo "no test origin at $ORIGIN"; exit 99; }
bg_start origin "$ORIGIN" --listen 10.77.0.1:80
if [ $HAVE_V6 = yes ]; then
    bg_start origin6 "$ORIGIN" --listen "[fd77::1]:80"
fi
dns_start a.test=10.77.0.1 b.test=10.77.0.2 v6.test=fd77::1 both.test=10.77.0.2 both.test=10.77.0.1

intercept_port() {
    grep -o 'Accepting NAT intercepted HTTP Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" |
        tail -n 1 | sed -e 's/.*local=//' -e 's/.*://'
}

# start_cuttle [LINE...] : cuttle with a forward port and an intercept port,
# and the client's port-80 connections redirected to the intercept port
start_cuttle() {
    fwd_conf "http_port 0 intercept" "http_access allow all" "$@"
    cuttle_start
    wait_until 5 test -n "$(intercept_port)" || fail "no intercept port in cache.log"
    IPORT=$(intercept_port)
    netns_redirect 80 "$IPORT"
}

# get URL [CURL ARGS] : the client's plain request (no proxy configured); the status
get() {
    url=$1
    shift
    curl -s -o "$T/body" --max-time "$(scaled 10)" --interface 10.77.0.9 -w '%{http_code}' "$@" "$url"
}

# expect WHAT CODE REGEX : the status was CODE and the last access.log line matches REGEX
expect() {
    [ "$code" = "$2" ] || bad "$1: status $code, expected $2"
    wait_until 5 access_log_has "$3" || bad "$1: no access.log line matching '$3'"
}

start_cuttle
grep -q "Accepting NAT intercepted HTTP Socket connections at .* flags=41" "$T/cache.log" ||
    bad "cache.log does not announce the intercept port as Squid does"

# Host names the original destination: the URL from Host, cached, ORIGINAL_DST
code=$(get "http://10.77.0.1/c?cc=max-age=60" -H "Host: a.test")
expect "verified Host" 200 ' TCP_MISS/200 [0-9]+ GET http://a\.test/c\? - ORIGINAL_DST/10\.77\.0\.1 '
code=$(get "http://10.77.0.1/c?cc=max-age=60" -H "Host: a.test")
expect "verified Host, again" 200 ' TCP_MEM_HIT/200 [0-9]+ GET http://a\.test/c\? - HIER_NONE/- '

# Host names another address: still forwarded to the original destination
# (b.test's 10.77.0.2 has no listener), never cached
code=$(get "http://10.77.0.1/m?cc=max-age=60" -H "Host: b.test")
expect "forged Host" 200 ' TCP_MISS/200 [0-9]+ GET http://b\.test/m\? - ORIGINAL_DST/10\.77\.0\.1 '
code=$(get "http://10.77.0.1/m?cc=max-age=60" -H "Host: b.test")
[ "$(grep -c 'GET http://b\.test/m? .* ORIGINAL_DST/10\.77\.0\.1' "$T/access.log")" = 2 ] ||
    bad "forged Host: the second request was not a miss to the original destination"
grep -q "TCP_MEM_HIT/200 [0-9]* GET http://b\.test/" "$T/access.log" && bad "forged Host: served from the cache"

# two requests on one connection, each Host resolved and verified in turn
code=$(curl -s -o /dev/null -o /dev/null --max-time "$(scaled 10)" --interface 10.77.0.9 -w '%{http_code}%{num_connects} ' \
    -H "Host: a.test" "http://10.77.0.1/k1?cc=max-age=60" "http://10.77.0.1/k2?cc=max-age=60")
[ "$code" = "2001 2000 " ] || bad "keep-alive: '$code', expected two 200s on one connection"
code=$(get "http://10.77.0.1/k2?cc=max-age=60" -H "Host: a.test")
expect "keep-alive, then a hit" 200 ' TCP_MEM_HIT/200 [0-9]+ GET http://a\.test/k2\? - HIER_NONE/- '

# a name with several addresses, one of them the original destination
code=$(get "http://10.77.0.1/both" -H "Host: both.test")
expect "Host with several addresses" 200 ' TCP_MISS/200 [0-9]+ GET http://both\.test/both - ORIGINAL_DST/10\.77\.0\.1 '
# a port other than the original one fails verification; the URL keeps it
code=$(get "http://10.77.0.1/p?cc=max-age=60" -H "Host: a.test:8080")
expect "Host port" 200 ' TCP_MISS/200 [0-9]+ GET http://a\.test:8080/p\? - ORIGINAL_DST/10\.77\.0\.1 '
# a name DNS does not know
code=$(get "http://10.77.0.1/nx" -H "Host: nx.test")
expect "unknown Host" 200 ' TCP_MISS/200 [0-9]+ GET http://nx\.test/nx - ORIGINAL_DST/10\.77\.0\.1 '
# no Host (HTTP/1.0): the URL names the original destination; not verified, not cached
code=$(get "http://10.77.0.1/nohost?cc=max-age=60" -0 -H "Host:")
code=$(get "http://10.77.0.1/nohost?cc=max-age=60" -0 -H "Host:")
expect "no Host" 200 ' TCP_MISS/200 [0-9]+ GET http://10\.77\.0\.1/nohost\? - ORIGINAL_DST/10\.77\.0\.1 '
[ "$(grep -c 'TCP_MISS/200 [0-9]* GET http://10\.77\.0\.1/nohost? - ORIGINAL_DST/' "$T/access.log")" = 2 ] ||
    bad "no Host: not two misses"
# absolute-form is taken as it is, and still goes to the original destination
code=$(get "http://10.77.0.1/" --request-target "http://b.test/abs" -H "Host: b.test")
expect "absolute-form" 200 ' TCP_MISS/200 [0-9]+ GET http://b\.test/abs - ORIGINAL_DST/10\.77\.0\.1 '
# absolute-form is verified by its own authority, not by a Host that would pass
code=$(get "http://10.77.0.1/" --request-target "http://b.test/abs2?cc=max-age=60" -H "Host: a.test")
code=$(get "http://10.77.0.1/" --request-target "http://b.test/abs2?cc=max-age=60" -H "Host: a.test")
expect "absolute-form, Host that would pass" 200 ' TCP_MISS/200 [0-9]+ GET http://b\.test/abs2\? - ORIGINAL_DST/10\.77\.0\.1 '
[ "$(grep -c 'TCP_MISS/200 [0-9]* GET http://b\.test/abs2? - ORIGINAL_DST/' "$T/access.log")" = 2 ] ||
    bad "absolute-form, Host that would pass: not two misses (stored under a name it was not fetched from?)"
# no manager pages through an intercept port: the path is the origin's
code=$(get "http://10.77.0.1/squid-internal-mgr/menu" -H "Host: a.test")
expect "manager path" 200 ' TCP_MISS/200 [0-9]+ GET http://a\.test/squid-internal-mgr/menu - ORIGINAL_DST/'
grep -q "^ok$" "$T/body" || bad "manager path: not the origin's reply"
# a CONNECT whose Host fails is refused even with host_verify_strict off
code=$(get "http://10.77.0.1/" -X CONNECT --request-target b.test:80 -H "Host: b.test:80")
expect "CONNECT" 409 ' NONE_NONE/409 [0-9]+ CONNECT b\.test:80 - HIER_NONE/- '
# a CONNECT whose Host verifies is tunnelled to the original destination,
# with no 200 line (Squid 5.7 writes none on an intercept port): the
# client's bytes go through at once
out=$(RAW_FROM=10.77.0.9 RAW_TO=10.77.0.1:80 raw_send 'CONNECT a.test:80 HTTP/1.1\r\nHost: a.test:80\r\n\r\nGET /tunnelled HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n' |
    head -n 1 | tr -d '\r')
[ "$out" = "HTTP/1.1 200 OK" ] || bad "verified CONNECT: the first line back was '$out', expected the origin's"
wait_until 5 access_log_has ' TCP_TUNNEL/200 [0-9]+ CONNECT a\.test:80 - ORIGINAL_DST/10\.77\.0\.1 ' ||
    bad "verified CONNECT: no TCP_TUNNEL line to the original destination"
# straight to the intercept port, no NAT: the original destination is cuttle itself
code=$(curl -s -o /dev/null --max-time "$(scaled 10)" -w '%{http_code}' "http://127.0.0.1:$IPORT/direct" -H "Host: a.test")
expect "no NAT" 403 ' TCP_MISS/403 [0-9]+ GET http://a\.test/direct - HIER_NONE/- '

if [ $HAVE_V6 = yes ]; then
    code=$(curl -s -o /dev/null --max-time "$(scaled 10)" --interface fd77::9 -w '%{http_code}' \
        "http://[fd77::1]/v6?cc=max-age=60" -H "Host: v6.test")
    expect "IPv6" 200 ' TCP_MISS/200 [0-9]+ GET http://v6\.test/v6\? - ORIGINAL_DST/fd77::1 '
    code=$(curl -s -o /dev/null --max-time "$(scaled 10)" --interface fd77::9 -w '%{http_code}' \
        "http://[fd77::1]/v6nohost" -0 -H "Host:")
    expect "IPv6, no Host" 200 ' TCP_MISS/200 [0-9]+ GET http://\[fd77::1\]/v6nohost - ORIGINAL_DST/fd77::1 '
else
    echo "note: IPv6 NAT is not available here: the IPv6 rows were skipped"
fi
# the forward port is unchanged by the intercept port and by Host checks (strict off)
code=$(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -w '%{http_code}' \
    "http://10.77.0.1/fwd" -H "Host: b.test")
expect "forward port" 200 ' TCP_MISS/200 [0-9]+ GET http://10\.77\.0\.1/fwd - HIER_DIRECT/10\.77\.0\.1 '
cuttle_stop

# host_verify_strict on: a Host that fails gets 409 (forward ports check
# nothing: Squid 5.7 takes the URL's authority for Host there)
: > "$T/access.log"
start_cuttle "host_verify_strict on"
code=$(get "http://10.77.0.1/s1" -H "Host: a.test")
expect "strict, verified Host" 200 ' TCP_MISS/200 [0-9]+ GET http://a\.test/s1 - ORIGINAL_DST/10\.77\.0\.1 '
code=$(get "http://10.77.0.1/s2" -H "Host: b.test")
expect "strict, forged Host" 409 ' NONE_NONE/409 [0-9]+ GET http://b\.test/s2 - HIER_NONE/- '
grep -q "ERR_CONFLICT_HOST\|URI Host Conflict" "$T/body" || bad "strict: the 409 is not ERR_CONFLICT_HOST"
grep -q "SECURITY ALERT: Host header forgery detected" "$T/cache.log" || bad "strict: no SECURITY ALERT in cache.log"
code=$(get "http://10.77.0.1/s3" -H "Host: a.test:8080")
expect "strict, Host port" 409 ' NONE_NONE/409 [0-9]+ GET http://a\.test:8080/s3 - HIER_NONE/- '
code=$(get "http://10.77.0.1/s4" -H "Host: nx.test")
expect "strict, unknown Host" 409 ' NONE_NONE/409 [0-9]+ GET http://nx\.test/s4 - HIER_NONE/- '
code=$(get "http://10.77.0.1/" --request-target "http://b.test/s5" -H "Host: a.test")
expect "strict, absolute-form naming another host" 409 ' NONE_NONE/409 [0-9]+ GET http://b\.test/s5 - HIER_NONE/- '
code=$(get "http://10.77.0.1/" -0 --request-target "http://b.test/s6" -H "Host:")
expect "strict, absolute-form without Host (not checked)" 200 ' TCP_MISS/200 [0-9]+ GET http://b\.test/s6 - ORIGINAL_DST/10\.77\.0\.1 '
code=$(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -w '%{http_code}' \
    "http://10.77.0.1/f1" -H "Host: b.test")
expect "strict, forward port, other Host" 200 ' TCP_MISS/200 [0-9]+ GET http://10\.77\.0\.1/f1 - HIER_DIRECT/10\.77\.0\.1 '
# a reconfigure that drops `intercept` keeps the socket and changes its mode
sed -i 's/^http_port 0 intercept$/http_port 0/' "$T/squid.conf"
kill -HUP "$CUTTLE_PID"
wait_until 10 grep -q "is now a forward proxy port" "$T/cache.log" || bad "reconfigure: no change of mode logged"
code=$(curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$IPORT" -w '%{http_code}' "http://10.77.0.1/after")
expect "reconfigured to a forward port" 200 ' TCP_MISS/200 [0-9]+ GET http://10\.77\.0\.1/after - HIER_DIRECT/'
cuttle_stop

# never_direct with a parent (another cuttle on 127.0.0.1, resolving with
# the same fake DNS): a verified request goes to the parent, as in Squid;
# one whose Host fails is refused rather than sent to a parent that would
# resolve its Host
mkdir -p "$T/parent" && chmod 777 "$T/parent"
printf '%s\n' "http_port 127.0.0.1:0" "access_log stdio:$T/parent/access.log" "cache_log $T/parent/cache.log" \
    "pid_filename $T/parent/cuttle.pid" "dns_nameservers 127.0.0.1:$DNSPORT" "hosts_file none" \
    "unique_hostname parent.test" "error_directory $CUTTLE_ERRORS" "http_access allow all" "$(cuttle_workers_line)" > "$T/parent/squid.conf"
"$CUTTLE" -N -f "$T/parent/squid.conf" > "$T/parent/stdout" 2>&1 &
FWD_PIDS="$FWD_PIDS $!"
wait_until 10 grep -qs 'Accepting HTTP Socket connections at' "$T/parent/cache.log" || fail "the parent did not start"
PPORT=$(grep -o 'Accepting HTTP Socket connections at [^ ]* local=[^ ]*' "$T/parent/cache.log" | tail -n 1 | sed -e 's/.*://')
: > "$T/access.log"
start_cuttle "cache_peer 127.0.0.1 parent $PPORT 0 no-query name=par" "never_direct allow all"
code=$(get "http://10.77.0.1/par1" -H "Host: a.test")
expect "verified Host, never_direct" 200 ' TCP_MISS/200 [0-9]+ GET http://a\.test/par1 - FIRSTUP_PARENT/127\.0\.0\.1 '
wait_until 5 grep -q ' GET http://a\.test/par1 ' "$T/parent/access.log" ||
    bad "verified Host, never_direct: the parent did not get it"
code=$(get "http://10.77.0.1/par2" -H "Host: b.test")
expect "forged Host, never_direct" 503 ' TCP_MISS/503 [0-9]+ GET http://b\.test/par2 - HIER_NONE/- '
grep -q ' http://b\.test/par2 ' "$T/parent/access.log" && bad "forged Host, never_direct: sent to the parent"
cuttle_stop

checks_done
pass "intercept ports: URL from Host, Host verification (strict off and on), ORIGINAL_DST, no NAT (IPv6: $HAVE_V6)"
