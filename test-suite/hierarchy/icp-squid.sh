#!/bin/sh
# cuttle and Debian's Squid 5.7 as ICP siblings (icp_port, cache_peer ...
# sibling): a URL cached in Squid is fetched by cuttle's client from Squid,
# logged SIBLING_HIT/127.0.0.1, after Squid answered cuttle's ICP_QUERY with
# ICP_HIT (Squid's access.log: ICP_QUERY ... UDP_HIT); a URL cached in cuttle
# is fetched by Squid's client from cuttle (cuttle's access.log: UDP_HIT, then
# the request with only-if-cached); a miss everywhere goes direct after the
# replies (HIER_DIRECT). Then icp_access denial (UDP_DENIED), and a sibling
# that never answers: the request waits icp_query_timeout, then goes direct.
# Then the dynamic timeout (icp_query_timeout 0). It prints the ICP round
# trips and the waits it measures.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
CICP=$(udp_port)
SQUID_ICP=$(udp_port)
export SQUID_ICP
# cuttle first: Squid probes its peers' HTTP ports as it starts
SQPORT=$(closed_port)
CPORT=$(closed_port)
fwd_conf "http_port 127.0.0.1:$CPORT" "icp_port $CICP" "icp_access allow localhost" "icp_access deny all" \
    "cache_peer 127.0.0.1 sibling $SQPORT $SQUID_ICP name=sq" "icp_query_timeout 2000" \
    "refresh_pattern . 60 20% 600" "strip_query_terms off" "http_access allow localhost" "http_access deny all"
cuttle_start
SQUID_PORT=$SQPORT squid_start sq "icp_access allow localhost" "icp_access deny all" \
    "cache_peer 127.0.0.1 sibling $CPORT $CICP name=cuttle no-digest no-netdb-exchange" \
    "minimum_direct_hops 0" "minimum_direct_rtt 0" "refresh_pattern . 60 20% 600" \
    "strip_query_terms off"

# 1. cached in Squid: fetched through Squid first, then through cuttle
U1="http://127.0.0.1:$OPORT/c1?s=100&cc=max-age%3D600"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -x "127.0.0.1:$SQPORT" "$U1")
[ "$code" = 200 ] || fail "through Squid: $code"
wait_until 5 peer_log_has sq/access.log "TCP_MISS/200 .*c1\?s=100&cc=max-age%3D600 " || fail "Squid did not log the miss"
code=$(proxy_get "$U1")
[ "$code" = 200 ] || fail "through cuttle: $code"
wait_until 5 access_log_has "TCP_MISS/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/c1\?s=100&cc=max-age%3D600 - SIBLING_HIT/127\.0\.0\.1 " ||
    fail "no SIBLING_HIT line: $(cat "$T/access.log"; cat "$T/sq/access.log")"
wait_until 5 peer_log_has sq/access.log "UDP_HIT/000 [0-9]+ ICP_QUERY http://127\.0\.0\.1:$OPORT/c1\?s=100&cc=max-age%3D600 - HIER_NONE/- -" ||
    fail "Squid did not log UDP_HIT: $(cat "$T/sq/access.log")"
wait_until 5 peer_log_has sq/access.log "TCP_(MEM_)?HIT/200 .*c1\?s=100&cc=max-age%3D600 " ||
    fail "Squid did not serve cuttle a hit: $(cat "$T/sq/access.log")"
pass "an object cached in Squid 5.7 is an ICP_HIT and cuttle fetches it from Squid (SIBLING_HIT)"

# 2. cached in cuttle: Squid's client gets it from cuttle
U2="http://127.0.0.1:$OPORT/c2?s=100&cc=max-age%3D600"
code=$(proxy_get "$U2")
[ "$code" = 200 ] || fail "through cuttle: $code"
wait_until 5 access_log_has "c2\?s=100&cc=max-age%3D600 - HIER_DIRECT/127\.0\.0\.1 " ||
    fail "a miss everywhere did not go direct: $(cat "$T/access.log")"
wait_until 5 peer_log_has sq/access.log "UDP_MISS/000 [0-9]+ ICP_QUERY http://127\.0\.0\.1:$OPORT/c2\?s=100&cc=max-age%3D600 " ||
    fail "Squid did not answer UDP_MISS: $(cat "$T/sq/access.log")"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -x "127.0.0.1:$SQPORT" "$U2")
[ "$code" = 200 ] || fail "through Squid: $code"
wait_until 5 peer_log_has sq/access.log "TCP_MISS/200 .*c2\?s=100&cc=max-age%3D600 - SIBLING_HIT/127\.0\.0\.1 " ||
    fail "Squid did not fetch from cuttle: $(cat "$T/sq/access.log")"
wait_until 5 access_log_has "UDP_HIT/000 [0-9]+ ICP_QUERY http://127\.0\.0\.1:$OPORT/c2\?s=100&cc=max-age%3D600 - HIER_NONE/- -" ||
    fail "cuttle did not log UDP_HIT: $(cat "$T/access.log")"
wait_until 5 access_log_has "TCP_(MEM_)?HIT/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/c2\?s=100&cc=max-age%3D600 " ||
    fail "cuttle did not serve Squid a hit: $(cat "$T/access.log")"
pass "an object cached in cuttle is an ICP_HIT and Squid 5.7 fetches it from cuttle (SIBLING_HIT)"

# mgr:counters counts that traffic as Squid's icp.* lines: two queries each
# way, each answered, and the one SIBLING_HIT an ICP reply chose
icp_counter() {
    curl -s --max-time 5 "http://127.0.0.1:$CPORT/squid-internal-mgr/counters" | sed -n "s/^icp\.$1 = //p"
}
# (with workers, another worker's figures reach the page within 10 ms of its count: Board)
icp_counted() {
    for c in queries_sent replies_recv queries_recv replies_sent; do
        [ "$(icp_counter "$c")" -ge 2 ] 2>/dev/null || return 1
    done
    [ "$(icp_counter times_used)" = 1 ]
}
wait_until 2 icp_counted || fail "icp.* is not counted: $(curl -s "http://127.0.0.1:$CPORT/squid-internal-mgr/counters" | grep '^icp')"
[ "$(icp_counter q_kbytes_sent)" = 0 ] || fail "icp.q_kbytes_sent: $(icp_counter q_kbytes_sent)"
pass "mgr:counters counts the ICP queries and replies, both ways, and the one selection they made"

# garbage, then a burst of queries sent while cuttle is stopped, so all are
# queued at its first read (one edge): each answered (ICP_HIT, opcode 2); and
# cuttle's ICP round trip against Squid's
probe="$top_srcdir/test-suite/hierarchy/icp-probe.py"
kill -STOP "$CUTTLE_PID"
out=$(python3 "$probe" "$CICP" "$U2" 200 "$CUTTLE_PID") || { kill -CONT "$CUTTLE_PID"; fail "cuttle's ICP answers: $out"; }
echo "$out" | grep -qx "opcodes 2" || fail "cuttle's burst replies: $out"
sq=$(python3 "$probe" "$SQUID_ICP" "$U2") || fail "Squid's ICP answers: $sq"
echo "# ICP round trip on loopback (median, p99 in microseconds): cuttle $(echo "$out" | sed -n 's/rtt_us //p'), Squid 5.7 $(echo "$sq" | sed -n 's/rtt_us //p')"
pass "malformed datagrams are dropped and a burst of 20 queued queries is answered whole"
cuttle_stop

# 3. icp_access denies Squid: cuttle answers ICP_DENIED, Squid goes direct
fwd_conf "http_port 127.0.0.1:$CPORT" "icp_port $CICP" "icp_access deny all" \
    "refresh_pattern . 60 20% 600" "strip_query_terms off" "http_access allow localhost" "http_access deny all"
cuttle_start
U3="http://127.0.0.1:$OPORT/c3?s=100&cc=max-age%3D600"
proxy_get "$U3" > /dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -x "127.0.0.1:$SQPORT" "$U3")
[ "$code" = 200 ] || fail "through Squid: $code"
wait_until 5 access_log_has "UDP_DENIED/000 [0-9]+ ICP_QUERY http://127\.0\.0\.1:$OPORT/c3\?s=100&cc=max-age%3D600 " ||
    fail "cuttle did not deny the query: $(cat "$T/access.log")"
# Squid ignores ICP_DENIED: it waits its timeout, then logs TIMEOUT_HIER_DIRECT
wait_until 5 peer_log_has sq/access.log "c3\?s=100&cc=max-age%3D600 - TIMEOUT_HIER_DIRECT/127\.0\.0\.1 " ||
    fail "Squid did not go direct after ICP_DENIED: $(cat "$T/sq/access.log")"
pass "icp_access deny all: UDP_DENIED, and Squid goes direct"
cuttle_stop

# 4. a sibling that never answers (a bound UDP socket that reads nothing)
python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
open("'"$T"'/silent.port", "w").write(str(s.getsockname()[1]))
time.sleep(60)' &
FWD_PIDS="$FWD_PIDS $!"
wait_until 5 test -s "$T/silent.port" || fail "no silent socket"
SILENT=$(cat "$T/silent.port")
fwd_conf "icp_port $CICP" "cache_peer 127.0.0.1 sibling 1 $SILENT name=silent" "icp_query_timeout 300" \
    "logformat timed %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %un %Sh/%<a %mt" "access_log stdio:$T/timed.log timed" \
    "http_access allow localhost" "http_access deny all"
cuttle_start
start=$(date +%s%N)
code=$(proxy_get "http://127.0.0.1:$OPORT/ok?s=1")
end=$(date +%s%N)
[ "$code" = 200 ] || fail "past the silent sibling: $code"
ms=$(( (end - start) / 1000000 ))
[ "$ms" -ge 290 ] || fail "the request did not wait for the ICP timeout: ${ms} ms"
wait_until 5 access_log_has "/ok\? - TIMEOUT_HIER_DIRECT/127\.0\.0\.1 " || fail "not direct: $(cat "$T/access.log")"
echo "# a silent sibling with icp_query_timeout 300: the request took ${ms} ms"
query_timeouts() {
    curl -s --max-time 5 "http://127.0.0.1:$PORT/squid-internal-mgr/counters" | sed -n 's/^icp\.query_timeouts = //p'
}
one_query_timeout() { [ "$(query_timeouts)" = 1 ]; }
wait_until 2 one_query_timeout || fail "icp.query_timeouts is not 1: $(query_timeouts)"
pass "a sibling that does not answer: the timeout, then direct"
cuttle_stop

# the same with Squid's dynamic timeout (icp_query_timeout 0): no round trip
# measured yet, so twice 0 ms, raised to minimum_icp_query_timeout (5 ms)
fwd_conf "icp_port $CICP" "cache_peer 127.0.0.1 sibling 1 $SILENT name=silent" \
    "http_access allow localhost" "http_access deny all"
cuttle_start
start=$(date +%s%N)
code=$(proxy_get "http://127.0.0.1:$OPORT/ok?s=2")
end=$(date +%s%N)
[ "$code" = 200 ] || fail "past the silent sibling: $code"
us=$(( (end - start) / 1000 ))
[ "$us" -ge 5000 ] || fail "the request did not wait the 5 ms minimum: ${us} us"
echo "# the same with the dynamic timeout: ${us} us"
pass "the dynamic ICP timeout is minimum_icp_query_timeout before any round trip is measured"
cuttle_stop
