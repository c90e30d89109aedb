#!/bin/sh
# quick_abort_min, quick_abort_max, quick_abort_pct: when the only client of a
# cacheable miss leaves in the middle of the body, the fetch either goes on
# alone and stores the object (a later client gets a TCP_MEM_HIT with the
# whole body, and the origin saw one request) or stops (nothing is stored: a
# later request is a miss that reaches the origin again). The rule is Squid
# 5.7's (store_client.cc CheckQuickAbortIsReasonable), R being the body bytes
# left to read when the last client left:
#
#     quick_abort_min < 0       finish ("-1 KB": always)
#     R < quick_abort_min       finish
#     R > quick_abort_max       stop   ("0 KB" and "0 KB": never finish)
#     otherwise                 finish when more than quick_abort_pct % was read
#
# Before the rule, a reply of unknown length (chunked) stops, and so does a
# fetch whose reply head has not arrived, -1 KB or not.
#
# The origin paces the body (rate=: 400 KB at 100 KB/s, 4 s) so that a client
# can leave half way: the leaving client is curl piped into head -c N, which
# exits after N bytes, so that curl fails its next write and closes. The
# leaving client is logged TCP_MISS_ABORTED/200 with the bytes it was sent,
# as in Squid 5.7. (A client that leaves before the head resets its
# connection from python: curl would close it with a FIN.)
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same cases against Squid 5.7
# (without the checks of cuttle's manager figures and descriptors).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

SIZE=409600
SHA=$(pattern_sha $SIZE)
# the origin's first reply is paced, a second one (if the proxy asks again) is not
PACED="cc=max-age=60&s=$SIZE&rate=100k"
WHOLE="cc=max-age=60&s=$SIZE"
# how long the paced reply takes (its last step is due at 3.95 s)
PACED_SECONDS=4

# qa_start LINE... : (re)starts the proxy with these quick_abort_* lines (and
# the forwarder's decisions in cache.log); BASE_FDS is its descriptor count
# with no connection
qa_start() {
    cache_start "debug_options ALL,1 11,3 20,3" "$@"
    [ -n "$CACHE_TEST_SQUID" ] || BASE_FDS=$(fd_count "$CUTTLE_PID")
}

# counter NAME : a value from cuttle's figures on the manager's mem page
counter() {
    curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$PORT/squid-internal-mgr/mem" |
        sed -n "s/^$1: //p"
}
idle_origin_connections_are() { [ "$(counter origin_connections_idle)" = "$1" ]; }

# leave ID BYTES : a client fetches /s/ID through the proxy and leaves after
# BYTES body bytes; sets LEFT_BYTES (what it got) and checks they are the
# start of the pattern
leave() {
    curl -s -N --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" "$(url "$1")" 2> /dev/null |
        head -c "$2" > "$T/left.$1"
    LEFT_BYTES=$(wc -c < "$T/left.$1" | tr -d ' ')
    expect "$1: the leaving client's bytes" "$LEFT_BYTES" "$2"
    expect "$1: the leaving client's body" "$(sha256sum < "$T/left.$1" | cut -d' ' -f1)" \
        "$(pattern_sha "$2")"
}

# expect_left_logged ID : the leaving client's line is TCP_MISS_ABORTED/200,
# went to the origin, and counts fewer bytes than the whole reply
expect_left_logged() {
    local line sent
    expect "$1: the leaving client's access.log code" "$(log_code "$1" 1)" TCP_MISS_ABORTED/200
    line=$(log_lines "$(url "$1")" | sed -n 1p)
    expect_match "$1: the leaving client's hierarchy" "$line" ' HIER_DIRECT/127\.0\.0\.1 '
    sent=$(echo "$line" | awk '{print $5}')
    [ "${sent:-0}" -ge "$LEFT_BYTES" ] && [ "${sent:-0}" -lt "$SIZE" ] ||
        bad "$1: the leaving client's line counts $sent bytes (it got $LEFT_BYTES of $SIZE)"
}

# expect_finished ID : the fetch went on alone and stored the object; the
# next client gets a hit with the whole body, and the origin saw one request
expect_finished() {
    if [ -z "$CACHE_TEST_SQUID" ]; then
        # the finished fetch gives its connection back to the pool
        wait_until $((PACED_SECONDS + 10)) idle_origin_connections_are 1 ||
            bad "$1: no idle origin connection after the fetch (counters: $(counter origin_connections_idle))"
    else
        sleep $((PACED_SECONDS + $(scaled 1)))
    fi
    get "$1"
    expect_hit "$1: the next client" "$1" 2 "$SHA"
    expect "$1: the next client's body size" "$(body_size)" $SIZE
    expect "$1: origin requests" "$(seen_count "$1")" 1
}

# expect_stopped ID : the fetch stopped (its origin connection closed, nothing
# stored); the next client's request is a miss that reaches the origin
expect_stopped() {
    if [ -z "$CACHE_TEST_SQUID" ]; then
        # cuttle soon holds no descriptor of the fetch: its origin
        # connection was closed, not read to the end and pooled
        wait_until 2 fds_back_to "$BASE_FDS" ||
            bad "$1: the fetch's descriptors are still open ($(fd_count "$CUTTLE_PID"), $BASE_FDS before)"
        expect "$1: idle origin connections" "$(counter origin_connections_idle)" 0
    else
        sleep $((PACED_SECONDS + $(scaled 1)))
    fi
    get "$1"
    expect "$1: the next client's status" "$CODE" 200
    expect_miss "$1: the next client" "$1" 2 TCP_MISS/200 "$SHA"
    expect "$1: origin requests" "$(seen_count "$1")" 2
}

# (a) quick_abort_min -1 KB: a fetch being stored always goes on
qa_start "quick_abort_min -1 KB"
mark
script qa-always "$PACED" "$WHOLE"
leave qa-always 204800
expect_left_logged qa-always
expect_finished qa-always
pass_if_ok "quick_abort_min -1 KB: a client leaves half way, the fetch goes on, the next client gets a hit"

# (b) quick_abort_min 0 KB and quick_abort_max 0 KB: never goes on
qa_start "quick_abort_min 0 KB" "quick_abort_max 0 KB"
mark
script qa-never "$PACED" "$WHOLE"
leave qa-never 204800
expect_left_logged qa-never
expect_stopped qa-never
pass_if_ok "quick_abort_min 0 KB, quick_abort_max 0 KB: a client leaves half way, the fetch stops"

# (c) quick_abort_pct 50 decides when min and max do not (R is never below
# 0 KB nor above 1 MB): leaving at 75 % goes on, leaving at 25 % stops
# (a fresh proxy for each client, so that the origin connections it holds
# are this client's)
PCT="quick_abort_pct 50"
qa_start "quick_abort_min 0 KB" "quick_abort_max 1 MB" "$PCT"
mark
script qa-pct-low "$PACED" "$WHOLE"
leave qa-pct-low 102400
expect_left_logged qa-pct-low
expect_stopped qa-pct-low
pass_if_ok "quick_abort_pct 50: a client leaves at 25 %, the fetch stops"
qa_start "quick_abort_min 0 KB" "quick_abort_max 1 MB" "$PCT"
mark
script qa-pct-high "$PACED" "$WHOLE"
leave qa-pct-high 307200
expect_left_logged qa-pct-high
expect_finished qa-pct-high
pass_if_ok "quick_abort_pct 50: a client leaves at 75 %, the fetch goes on"

# (d) quick_abort_min 300 KB before quick_abort_max 0 KB: with less than
# 300 KB left (leaving at 50 %) the fetch goes on; with more (leaving at
# 12.5 %, 350 KB left), max stops it (quick_abort_pct 0 would finish any
# fetch it weighed, so the stop is max's)
qa_start "quick_abort_min 300 KB" "quick_abort_max 0 KB" "quick_abort_pct 0"
mark
script qa-min-early "$PACED" "$WHOLE"
leave qa-min-early 51200
expect_left_logged qa-min-early
expect_stopped qa-min-early
pass_if_ok "quick_abort_min 300 KB, max 0 KB: a client leaves with 350 KB left, the fetch stops"
qa_start "quick_abort_min 300 KB" "quick_abort_max 0 KB" "quick_abort_pct 0"
mark
script qa-min-late "$PACED" "$WHOLE"
leave qa-min-late 204800
expect_left_logged qa-min-late
expect_finished qa-min-late
pass_if_ok "quick_abort_min 300 KB, max 0 KB: a client leaves with 200 KB left, the fetch goes on"

# (e) the defaults (16 KB, 16 KB, 95 %): 200 KB left is more than max, so stop
qa_start
mark
script qa-default "$PACED" "$WHOLE"
leave qa-default 204800
expect_left_logged qa-default
expect_stopped qa-default
pass_if_ok "the defaults (16 KB, 16 KB, 95 %): a client leaves half way, the fetch stops"

# (f) a chunked reply has no known length, so nothing is left to weigh: the
# fetch stops unless quick_abort_min is negative, even when quick_abort_pct 0
# would finish any reply of known length
qa_start "quick_abort_min 0 KB" "quick_abort_max 1 MB" "quick_abort_pct 0"
mark
script qa-chunked-stop "$PACED&chunked=1" "$WHOLE"
leave qa-chunked-stop 307200
expect_left_logged qa-chunked-stop
expect_stopped qa-chunked-stop
pass_if_ok "a chunked reply, quick_abort_pct 0: a client leaves at 75 %, the fetch stops (no length to weigh)"
qa_start "quick_abort_min -1 KB"
mark
script qa-chunked-go "$PACED&chunked=1" "$WHOLE"
leave qa-chunked-go 204800
expect_left_logged qa-chunked-go
expect_finished qa-chunked-go
pass_if_ok "a chunked reply, quick_abort_min -1 KB: a client leaves half way, the fetch goes on"

# (g) a client that leaves before the reply head arrived: nothing is stored
# yet, and Squid 5.7 checks this before quick_abort_min, so the fetch stops
# even with -1 KB. The client resets its connection while the origin waits
# (t=), and is logged TCP_MISS_ABORTED/000 with no byte sent.
qa_start "quick_abort_min -1 KB"
mark
script qa-no-head "$WHOLE&t=$(scaled 2)s" "$WHOLE"
python3 - "$PORT" "$(url qa-no-head)" "$(scaled 10)" <<'PY' || bad "qa-no-head: the client failed"
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=float(sys.argv[3]))
s.sendall(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % sys.argv[2].encode())
time.sleep(0.5)
s.setblocking(False)
try:
    early = s.recv(1)
except BlockingIOError:
    early = b""
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()
sys.exit("a reply byte came before the origin's delay ended" if early else 0)
PY
expect "qa-no-head: the leaving client's access.log code" "$(log_code qa-no-head 1)" TCP_MISS_ABORTED/000
expect_stopped qa-no-head
pass_if_ok "quick_abort_min -1 KB: a client that leaves before the reply head, the fetch stops"

cache_stop
checks_done
