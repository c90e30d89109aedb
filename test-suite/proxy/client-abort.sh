#!/bin/sh
# Clients that go away mid-download of an uncacheable 1 GiB object leave
# nothing behind: after each abort cuttle's descriptor count and
# blocks_in_use come back to their baseline, and cuttle serves a new request.
# The aborts: curl --max-time 1; a raw socket closed after reading 1 MB; a raw
# socket reset (SO_LINGER 0); a client gone before the (delayed) reply head.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
proxy_conf
cuttle_start

code=$(proxy_get "$OURL/x?s=1000&first=1")
[ "$code" = 200 ] || fail "first request: status $code"
baseline_take
echo "baseline: $BASE_FDS descriptors, $BASE_BLOCKS blocks in use"

# curl gives up after 1 s (the rate limit makes sure it is mid-body then)
curl -s --max-time 1 --limit-rate 50M -x "127.0.0.1:$PORT" -o /dev/null "$OURL/x?s=1g&cc=no-store&abort=curl"
rc=$?
[ "$rc" = 28 ] || fail "curl --max-time 1 of 1 GiB ended with $rc, expected 28 (a timeout mid-body)"
baseline_check "curl --max-time 1"
pass "curl --max-time 1 mid-body: back to the baseline"

# abort_raw HOW : a raw client of s=1g that goes away as HOW says
abort_raw() {
    proxy_py "$PORT" "$OPORT" "$1" "$(scaled 10)" <<'PY' || fail "raw client ($1)"
import socket, struct, sys, time
from rawhttp import Conn, request, check, run

port, oport, how, limit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])


def main():
    c = Conn(port, timeout=limit)
    if how == "early":
        # gone before the origin (1 s late) sends the reply head
        c.send(request("GET", "http://127.0.0.1:%d/x?s=1g&cc=no-store&t=1s&abort=%s" % (oport, how)))
        time.sleep(0.2)
        c.close()
        return
    c.send(request("GET", "http://127.0.0.1:%d/x?s=1g&cc=no-store&abort=%s" % (oport, how)))
    r = c.read_head()
    check(r.status == 200, "status %d" % r.status)
    want = (1 << 20) if how == "close" else (64 << 10)
    got = len(c.buf)
    while got < want:
        got += len(c.sock.recv(min(1 << 20, want - got)))
    if how == "reset":
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
    print("%s: read %d body bytes, then %s" % (how, got, "reset" if how == "reset" else "closed"))


run(main)
PY
}

abort_raw close
baseline_check "raw socket closed after 1 MB"
pass "raw socket closed after reading 1 MB: back to the baseline"

abort_raw reset
baseline_check "raw socket reset (SO_LINGER 0)"
pass "raw socket reset: back to the baseline"

abort_raw early
sleep 1.2 # the origin's delayed reply head arrives with no client left
baseline_check "client gone before the reply head"
pass "client gone before the reply head: back to the baseline"

code=$(proxy_get "$OURL/x?s=100000&after=aborts")
[ "$code" = 200 ] || fail "after the aborts: status $code"
proxy_py "$T/body" <<'PY' || fail "after the aborts: the body differs from the origin's"
import sys
from rawhttp import pattern
sys.exit(open(sys.argv[1], "rb").read() != pattern(100000))
PY
pass "cuttle still serves a new request"
cuttle_stop
