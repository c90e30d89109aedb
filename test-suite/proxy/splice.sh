#!/bin/sh
# Spliced replies (doc/design.md "Splice"): an uncacheable reply with a
# Content-Length or close-delimited body goes from the origin socket to the
# client socket through a pipe (the mem page's spliced_replies and
# bytes_spliced prove the path was taken), and keeps every property of the
# path through blocks:
# - a 256 MB no-store download arrives intact (sha256), with no user-space
#   copy and its access.log byte count; a close-delimited one too;
# - a slow client holds no block beyond the baseline (the pipe is the
#   buffer) and cuttle's VmRSS stays within 2 MB of it;
# - an origin that resets mid-body, and one that closes early, are logged
#   and seen by the client exactly as with splice_min_size 0 (blocks);
# - a client that leaves mid-body: the origin connection is not pooled and
#   cuttle comes back to its baseline;
# - a spliced body read to its Content-Length gives its origin connection
#   back: the next request reuses it;
# - the edge-triggered rule: the rest of a body that arrives at once, more
#   than the pipe holds, while the origin keeps the connection open;
# - a reply under splice_min_size is not spliced.
# With workers (CUTTLE_TEST_WORKERS) a mem page adds the other workers'
# figures as they published them, up to 10 ms late: a count that must go up
# is polled; one that must stay (a small reply is not spliced) is read on a
# mem page asked on the request's own client connection, where the serving
# worker's figures are fresh.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start

proxy_conf
cuttle_start

# get_then_mem URL [CURL ARGS] : proxy_get, then (with workers) the mem page
# into $T/mem on the same client connection
get_then_mem() {
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        proxy_get "$@"
        return
    fi
    url=$1
    shift
    curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -o "$T/body" -w '%{http_code}' "$@" "$url" \
        --next -x "127.0.0.1:$PORT" -o "$T/mem" -w ' %{http_code} %{num_connects}' \
        --request-target /squid-internal-mgr/mem "http://127.0.0.1:$PORT/" > "$T/get.w"
    set -- $(cat "$T/get.w")
    [ "${2:-}" = 200 ] && [ "${3:-}" = 0 ] || fail "no mem page on the request's connection: $(cat "$T/get.w")"
    echo "$1"
}
code=$(get_then_mem "$OURL/x?s=1000&first=1")
[ "$code" = 200 ] || fail "first request: status $code"

# spliced_is WHAT N : spliced_replies went up by N since the last call (with
# workers: for N = 0 the fresh figure of $T/mem if get_then_mem left one,
# else polled until it went up by N)
SPLICED=0
spliced_up() { [ "$(mgr_counter spliced_replies)" -ge $((SPLICED + $1)) ]; }
spliced_is() {
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        now=$(mgr_counter spliced_replies)
    elif [ "$2" = 0 ] && [ -f "$T/mem" ]; then
        now=$(sed -n 's/^spliced_replies: //p' "$T/mem")
        rm -f "$T/mem"
    else
        wait_until 5 spliced_up "$2"
        now=$(mgr_counter spliced_replies)
    fi
    [ -n "$now" ] || fail "no spliced_replies on the mem page"
    [ "$((now - SPLICED))" = "$2" ] || problem "$1: spliced_replies went from $SPLICED to $now, expected +$2"
    SPLICED=$now
}
spliced_is "a 1000-byte reply" 0

# a large download, checked by sha256 as it streams
pattern_sha256 256m > "$T/expected" &
hasher=$!
bytes0=$(mgr_counter bytes_spliced)
spliced_bytes_over() { [ $(($(mgr_counter bytes_spliced) - bytes0)) -gt "$1" ]; }
{
    curl -sS --max-time "$(scaled 60)" -x "127.0.0.1:$PORT" -w '%{stderr}%{http_code} %{size_download}\n' \
        "$OURL/large?s=256m&cc=no-store" 2> "$T/large.w"
    echo $? > "$T/large.rc"
} | sha256sum | cut -d ' ' -f 1 > "$T/large.sha"
wait "$hasher"
[ "$(cat "$T/large.rc")" = 0 ] || fail "256 MB: curl failed: $(cat "$T/large.w")"
[ "$(cat "$T/large.w")" = "200 268435456" ] || problem "256 MB: status and size $(cat "$T/large.w")"
[ "$(cat "$T/large.sha")" = "$(cat "$T/expected")" ] || problem "256 MB: the body's sha256 differs from the origin's"
spliced_is "256 MB" 1
[ "$CUTTLE_TEST_WORKERS" = 1 ] || wait_until 5 spliced_bytes_over $((250 << 20))
moved=$(($(mgr_counter bytes_spliced) - bytes0))
[ "$moved" -gt $((250 << 20)) ] || problem "256 MB: only $moved bytes spliced"
copies=$(mgr_counter body_bytes_copied)
[ "$copies" = 0 ] || problem "256 MB: $copies body bytes copied in user space"
wait_until 5 access_log_has " TCP_MISS/200 2684[0-9]{5} GET $OURL/large" ||
    problem "256 MB: no TCP_MISS/200 access.log line with the bytes sent"
checkpoint "256 MB no-store download spliced, intact, logged, no copy"

# close-delimited
code=$(proxy_get "$OURL/x?s=3m&cc=no-store&close=1" -0)
[ "$code" = 200 ] || problem "close-delimited: status $code"
proxy_py "$T/body" <<'PY' || problem "close-delimited: the body differs"
import sys
from rawhttp import pattern
sys.exit(open(sys.argv[1], "rb").read() != pattern(3 << 20))
PY
spliced_is "close-delimited to an HTTP/1.0 client" 1
checkpoint "a close-delimited reply is spliced"

# under the threshold (32 KB by default): blocks
code=$(get_then_mem "$OURL/x?s=20000&cc=no-store")
[ "$code" = 200 ] || problem "20000 bytes: status $code"
spliced_is "20000 bytes (under splice_min_size)" 0
checkpoint "a small reply goes through blocks"

# a slow client: the pipe is the only buffer
baseline_take
base_rss=$(cuttle_rss_kb)
curl -s --max-time "$(scaled 30)" --limit-rate 10M -x "127.0.0.1:$PORT" -o /dev/null \
    "$OURL/slow?s=1g&cc=no-store" &
client=$!
peak=$base_rss
blocks_peak=$BASE_BLOCKS
i=0
while [ $i -lt 40 ]; do
    rss=$(cuttle_rss_kb)
    [ "$rss" -gt "$peak" ] && peak=$rss
    blocks=$(mgr_counter blocks_in_use)
    [ -n "$blocks" ] && [ "$blocks" -gt "$blocks_peak" ] && blocks_peak=$blocks
    sleep 0.1
    i=$((i + 1))
done
is_running "$client" || fail "slow client: curl ended before 4 seconds"
kill -TERM "$client"
wait "$client" 2> /dev/null
echo "slow client: VmRSS $base_rss kB before, peak $peak kB; blocks_in_use $BASE_BLOCKS before, peak $blocks_peak"
[ "$peak" -le $((base_rss + 2048)) ] || problem "slow client: peak VmRSS $peak kB, over $base_rss + 2048 kB"
# the head's read block, while the reply is written
[ "$blocks_peak" -le $((BASE_BLOCKS + 1)) ] ||
    problem "slow client: $blocks_peak blocks in use, more than the baseline $BASE_BLOCKS + the head's"
spliced_is "slow client" 1
baseline_check "slow client killed"
wait_until 5 access_log_has " TCP_MISS_ABORTED/200 [0-9]+ GET $OURL/slow" ||
    problem "slow client: no TCP_MISS_ABORTED/200 line"
checkpoint "a slow client holds the pipe and nothing more"

# a client that leaves mid-body: the origin connection is closed, not pooled
LURL=$OURL
LPORT=$OPORT
if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    # another worker may hold an idle connection to the origin, which the
    # request would take and close: a second origin, to which no worker has
    # a connection, makes the request open a new one (one more descriptor
    # for baseline_check and one more idle connection if it were pooled)
    main_url=$OURL main_port=$OPORT
    origin_start
    LURL=$OURL LPORT=$OPORT OURL=$main_url OPORT=$main_port
fi
idle0=$(mgr_counter origin_connections_idle)
proxy_py "$PORT" "$LPORT" "$(scaled 10)" <<'PY' || problem "client leaving mid-body"
import sys
from rawhttp import Conn, request, check, run

port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


def main():
    c = Conn(port, timeout=limit)
    c.send(request("GET", "http://127.0.0.1:%d/leave?s=100m&cc=no-store" % oport))
    r = c.read_head()
    check(r.status == 200, "status %d" % r.status)
    got = len(c.buf)
    while got < (1 << 20):
        got += len(c.sock.recv(1 << 20))
    c.close()


run(main)
PY
spliced_is "client leaving mid-body" 1
baseline_check "client gone mid-body"
idle=$(mgr_counter origin_connections_idle)
[ "$idle" = "$idle0" ] || problem "client gone mid-body: origin_connections_idle went from $idle0 to $idle"
wait_until 5 access_log_has " TCP_MISS_ABORTED/200 [0-9]+ GET $LURL/leave" ||
    problem "client gone mid-body: no TCP_MISS_ABORTED/200 line"
checkpoint "a client leaving mid-body: origin connection closed, baseline back"

# keep-alive after a spliced body: one curl, two requests, one origin
# connection (the connection is back in the pool before the client hears
# that its reply is complete: curl's second request may come at once)
opened0=$(mgr_counter origin_connections_opened)
curl -sS --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" -w '%{http_code} %{size_download} %header{x-origin-conn} %{num_connects}\n' \
    -o /dev/null "$OURL/ka1?s=5m&cc=no-store" -o /dev/null "$OURL/ka2?s=5m&cc=no-store" > "$T/ka" 2>&1 ||
    problem "keep-alive: curl failed: $(cat "$T/ka")"
[ "$(cut -d ' ' -f 1,2 "$T/ka" | sort -u)" = "200 5242880" ] || problem "keep-alive: replies $(cat "$T/ka")"
spliced_is "keep-alive" 2
[ "$(cut -d ' ' -f 4 "$T/ka" | tr '\n' ' ')" = "1 0 " ] ||
    problem "keep-alive: curl did not reuse its connection (code, size, origin connection, connects): $(tr '\n' ' ' < "$T/ka")"
[ "$(cut -d ' ' -f 3 "$T/ka" | sort -u | wc -l)" = 1 ] ||
    problem "keep-alive: two origin connections (code, size, origin connection, connects): $(tr '\n' ' ' < "$T/ka")"
opened=$(mgr_counter origin_connections_opened)
[ "$((opened - opened0))" -le 1 ] || problem "keep-alive: $((opened - opened0)) origin connections opened"
checkpoint "a spliced body gives its origin connection back to the pool"

# the rest of a body, more than a pipe holds, arriving at once on a connection the origin keeps open
cat > "$T/burst.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(4)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
data = b""
while b"\r\n\r\n" not in data:
    data += c.recv(65536)
body = bytes(i % 251 for i in range(1 << 20))
c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nCache-Control: no-store\r\n\r\n" % len(body) + body[:1000])
time.sleep(0.5)  # cuttle has read the head and waits on an empty socket
c.sendall(body[1000:])
time.sleep(10)
PY
python3 "$T/burst.py" > "$T/burst.port" &
burst=$!
wait_until 5 test -s "$T/burst.port" || fail "the burst origin did not start"
code=$(proxy_get "http://127.0.0.1:$(cat "$T/burst.port")/burst" --max-time "$(scaled 5)")
kill "$burst" 2> /dev/null
[ "$code" = 200 ] || problem "burst: status $code"
python3 - "$T/body" <<'PY' || problem "burst: the body differs"
import sys
sys.exit(open(sys.argv[1], "rb").read() != bytes(i % 251 for i in range(1 << 20)))
PY
spliced_is "burst" 1
checkpoint "a body that arrives at once past the pipe's size, on an open connection"

# origin failures mid-body, spliced and not: the same for the client and access.log
# failures NAME : curl's exit code and size, and the access.log code, of each failure
failures() {
    for f in "reset@3m" "stall@3m"; do
        curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -o /dev/null -w "%{http_code} %{size_download}" \
            "$OURL/$1-$f?s=10m&cc=no-store&fail=$f" > "$T/$1.$f"
        echo " rc $?" >> "$T/$1.$f"
        wait_until 5 access_log_has "GET $OURL/$1-$f" || problem "$1 $f: no access.log line"
        sed -n "s|.* \([A-Z_]*/[0-9]*\) \([0-9]*\) GET $OURL/$1-$f.*|\1|p" "$T/access.log" >> "$T/$1.$f"
        # the bytes sent, head included: the origin's X-Origin-Time and
        # X-Origin-Conn vary in width from one request to the next
        sed -n "s|.* [A-Z_]*/[0-9]* \([0-9]*\) GET $OURL/$1-$f.*|\1|p" "$T/access.log" > "$T/$1.$f.bytes"
    done
}
proxy_conf "read_timeout 2 seconds"
cuttle_stop
cuttle_start
SPLICED=0
failures spliced
spliced_is "origin failures" 2
proxy_conf "read_timeout 2 seconds" "splice_min_size 0"
cuttle_stop
cuttle_start
SPLICED=0
failures blocks
# (the stall waited out read_timeout: every worker published its counts since)
spliced_is "origin failures, splice_min_size 0" 0
for f in "reset@3m" "stall@3m"; do
    a=$(cat "$T/spliced.$f.bytes")
    b=$(cat "$T/blocks.$f.bytes")
    echo "origin $f: spliced: $(tr '\n' ' ' < "$T/spliced.$f") $a bytes; blocks: $(tr '\n' ' ' < "$T/blocks.$f") $b bytes"
    cmp -s "$T/spliced.$f" "$T/blocks.$f" || problem "origin $f: spliced and not, the client and the log differ"
    [ $((a - b)) -le 8 ] && [ $((b - a)) -le 8 ] ||
        problem "origin $f: access.log's bytes, $a spliced and $b not, differ by more than the heads can"
done
checkpoint "origin failures mid-body: as with blocks"
cuttle_stop

problems_check
