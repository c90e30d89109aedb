#!/bin/sh
# A client that goes away at any stage leaves nothing behind (descriptors and
# blocks_in_use back to their baseline) and gets the access.log line of its
# stage; a pooled origin connection the client left mid-reply is not put
# back in the pool. Stages: during the request head, during the request body,
# while waiting for the origin's head, mid reply body on a pooled origin
# connection. (proxy/client-abort.sh checks the descriptors and blocks of
# more mid-body aborts of a 1 GiB download: curl --max-time, close, reset;
# forwarding/no-request.sh the line of a connection closed before its head.)
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/faults/helpers.sh"
cuttle_setup
origin_start
faults_conf
cuttle_start

faults_baseline "$OURL/x?s=1000&first=1"

# abort STAGE : a raw client that goes away at STAGE; prints what it saw
abort() {
    proxy_py "$PORT" "$OPORT" "$1" "$(scaled 10)" > "$T/abort.out" <<'PY' || bad "raw client ($1): $(cat "$T/abort.out")"
import socket, sys, time
from rawhttp import Conn, request, check, run

port, oport, stage, limit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
origin = "http://127.0.0.1:%d" % oport


def main():
    c = Conn(port, timeout=limit)
    if stage == "head":
        c.send(request("GET", origin + "/head?s=10")[:-10])
    elif stage == "body":
        c.send(request("POST", origin + "/body?abort=body", headers=["Content-Length: 10000000"]))
        c.send(b"x" * (1 << 20))
        time.sleep(0.5)  # cuttle has sent the head and part of the body on
    elif stage == "wait":
        c.send(request("GET", origin + "/wait?s=1g&cc=no-store&t=2s"))
        time.sleep(0.5)
    elif stage == "pooled":
        c.send(request("GET", origin + "/pooled?s=10"))
        first = c.read_reply()
        c.send(request("GET", origin + "/pooled?s=1g&cc=no-store"))
        r = c.read_head()
        check(r.status == 200, "status %d" % r.status)
        check(r.header("X-Origin-Conn") == first.header("X-Origin-Conn"),
              "the 1 GiB reply came on origin connection %s, not the pooled %s"
              % (r.header("X-Origin-Conn"), first.header("X-Origin-Conn")))
        got = len(c.buf)
        while got < (1 << 20):
            got += len(c.sock.recv(1 << 20))
        print("pooled: origin connection %s, read %d body bytes" % (r.header("X-Origin-Conn"), got))
    c.close()


run(main)
PY
}

# origin_conn NAME : the X-Origin-Conn of a small reply through cuttle
origin_conn() {
    curl -s -D - -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "$OURL/$1?s=10" |
        tr -d '\r' | sed -n 's/^X-Origin-Conn: //p'
}

# logged REGEX WHAT : the access.log has a line for WHAT
logged() { wait_until 5 access_log_has "$1" || bad "$2: no line like '$1': $(tail -n 1 "$T/access.log")"; }

mark
abort head
logged ' NONE_NONE/000 0 - error:transaction-end-before-headers - HIER_NONE/- -$' "during the head"
baseline_check "during the head"
pass_if_ok "gone during the request head"

mark
abort body
logged " TCP_MISS_ABORTED/000 0 POST $OURL/body\? - HIER_DIRECT/127\.0\.0\.1 -\$" "during the request body"
baseline_check "during the request body"
pass_if_ok "gone during the request body"

mark
abort wait
sleep 2 # the origin's late head finds no client
# as Squid 5.7, the client's close is seen when its reply is written: logged
# when the head came, with the bytes the kernel took before the reset
logged " TCP_MISS_ABORTED/(000|200) [0-9]+ GET $OURL/wait\? - HIER_DIRECT/127\.0\.0\.1 " "waiting for the origin's head"
baseline_check "waiting for the origin's head"
pass_if_ok "gone while waiting for the origin's head"

mark
abort pooled
logged " TCP_MISS_ABORTED/200 [0-9]+ GET $OURL/pooled\? - HIER_DIRECT/127\.0\.0\.1 application/octet-stream\$" "mid-body"
baseline_check "mid-body on a pooled origin connection"
# the abandoned connection is closed, not pooled: the next request opens one
used=$(sed -n 's/^pooled: origin connection \([^,]*\),.*/\1/p' "$T/abort.out")
next=$(origin_conn next)
[ -n "$used" ] && [ -n "$next" ] && [ "$used" != "$next" ] ||
    bad "the origin connection left mid-reply ($used) was pooled and reused ($next)"
pass_if_ok "gone mid-body on a pooled origin connection"

faults_finish "$OURL/x?s=100k&after=aborts"
