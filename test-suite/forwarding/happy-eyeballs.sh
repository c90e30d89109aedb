#!/bin/sh
# Happy Eyeballs as Squid 5 (happy_eyeballs_connect_timeout): dual.test
# resolves (hosts_file) to ::1 first, where a listener with a full accept
# queue drops the SYNs, then to 127.0.0.1, where the test origin serves. A
# GET and a CONNECT both succeed through 127.0.0.1 once the delay has passed,
# far within connect_timeout. With nothing on ::1, its refusal starts
# 127.0.0.1 at once, long before the delay.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
dns_start
printf '::1 dual.test\n127.0.0.1 dual.test\n' > "$T/hosts"

# ::1 on the origin's port: backlog 0, its queue filled by a connect of its own
BG_READY='^listening on ' bg_start blackhole6 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s.bind(("::1", int(sys.argv[1])))
s.listen(0)
fillers = [socket.create_connection(("::1", int(sys.argv[1])))]
time.sleep(0.2)
print("listening on [::1]:%s" % sys.argv[1], flush=True)
time.sleep(120)' "$OPORT"
BLACKHOLE_PID=$BG_PID

# seconds_through CURL_ARGS... : "STATUS SECONDS" of a request through cuttle
seconds_through() {
    curl -s -o "$T/body" --max-time "$(scaled 15)" -x "127.0.0.1:$PORT" -w '%{http_code} %{time_total}' "$@"
}
# within LOW HIGH SECONDS : whether LOW <= SECONDS < HIGH
within() { awk -v lo="$1" -v hi="$2" -v s="$3" 'BEGIN { exit !(s >= lo && s < hi) }'; }

# start_with_delay MS : cuttle with happy_eyeballs_connect_timeout MS
start_with_delay() {
    cuttle_conf "dns_nameservers 127.0.0.1:$DNSPORT" "hosts_file $T/hosts" \
        "acl SSL_ports port $OPORT" "acl CONNECT method CONNECT" "http_access deny CONNECT !SSL_ports" \
        "http_access allow localhost" "http_access deny all" \
        "happy_eyeballs_connect_timeout $1" "connect_timeout 20 seconds"
    cuttle_start
}

start_with_delay 300

set -- $(seconds_through "http://dual.test:$OPORT/slow-v6?close=1")
[ "$1" = 200 ] || fail "GET with ::1 silent: $1"
within 0.29 3 "$2" || fail "GET took $2 s, not about happy_eyeballs_connect_timeout (0.3 s)"
wait_until 5 access_log_has " GET http://dual\.test:$OPORT/slow-v6\? - HIER_DIRECT/127\.0\.0\.1 " ||
    fail "no HIER_DIRECT/127.0.0.1 line for the GET"
pass "GET: ::1 gets no answer, 127.0.0.1 serves after $2 s (happy_eyeballs_connect_timeout 300)"

set -- $(seconds_through -p "http://dual.test:$OPORT/tunnelled?close=1")
[ "$1" = 200 ] || fail "CONNECT with ::1 silent: $1"
within 0.29 3 "$2" || fail "CONNECT with ::1 silent took $2 s"
wait_until 5 access_log_has " TCP_TUNNEL/200 [0-9]+ CONNECT dual\.test:$OPORT - HIER_DIRECT/127\.0\.0\.1 " ||
    fail "no TCP_TUNNEL/200 line through 127.0.0.1"
pass "CONNECT: the tunnel goes through 127.0.0.1 after $2 s"
cuttle_stop

kill "$BLACKHOLE_PID"
wait_until 5 is_stopped "$BLACKHOLE_PID" || fail "the ::1 listener did not stop"
start_with_delay 5000
set -- $(seconds_through "http://dual.test:$OPORT/refused-v6?close=1")
[ "$1" = 200 ] || fail "GET with ::1 refusing: $1"
within 0 2 "$2" || fail "GET with ::1 refusing took $2 s: the spare waited for happy_eyeballs_connect_timeout"
pass "GET: ::1 refuses, 127.0.0.1 is dialed at once ($2 s, happy_eyeballs_connect_timeout 5000)"
cuttle_stop
