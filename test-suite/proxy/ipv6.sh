#!/bin/sh
# An origin on [::1] is reached through http://[::1]:PORT/ URLs: bodies
# intact (Content-Length and chunked), an upload, the access.log line names
# HIER_DIRECT/::1. Skipped (77) where ::1 cannot be bound.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"

python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2> /dev/null || {
    echo "SKIP: ::1 cannot be bound here"
    exit 77
}

cuttle_setup
origin_start "[::1]:0"
[ "$OHOST" = "[::1]" ] || fail "the origin listens on $OHOST, not [::1]"
proxy_conf
cuttle_start

proxy_py "$PORT" "$OPORT" "$(scaled 10)" <<'PY' || fail "requests to [::1] (see above)"
import hashlib, sys
from rawhttp import Conn, request, pattern, check, run

port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


def main():
    base = "http://[::1]:%d" % oport
    c = Conn(port, timeout=limit)
    for query, framing in (("s=100000", "length"), ("s=300000&chunked=1", "chunked")):
        c.send(request("GET", base + "/x?" + query))
        r = c.read_reply()
        check(r.status == 200, "GET %s: status %d" % (query, r.status))
        check(r.framing == framing, "GET %s: framed %s" % (query, r.framing))
        size = int(query.split("&")[0][2:])
        check(r.body == pattern(size), "GET %s: body differs" % query)
        print("ok: GET [::1] %s: %d bytes intact" % (query, size))
    body = pattern(1 << 20, 7)
    c.send(request("POST", base + "/x?upload=1", body=body))
    r = c.read_reply("POST")
    check(r.status == 200 and r.header("X-Body-Sha256") == hashlib.sha256(body).hexdigest(),
          "POST to [::1]: %r, X-Body-Sha256 %r" % (r, r.header("X-Body-Sha256")))
    print("ok: POST of 1 MB to [::1] intact")


run(main)
PY

code=$(proxy_get "http://[::1]:$OPORT/ipv6-curl?s=5000")
[ "$code" = 200 ] || fail "curl through cuttle to [::1]: status $code"
[ "$(wc -c < "$T/body")" = 5000 ] || fail "curl through cuttle to [::1]: $(wc -c < "$T/body") bytes"
wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET http://\\[::1\\]:$OPORT/ipv6-curl[?][^ ]* - HIER_DIRECT/::1 " ||
    fail "no 'TCP_MISS/200 ... GET http://[::1]:$OPORT/... - HIER_DIRECT/::1' line in access.log"
pass "curl to [::1] through cuttle, logged HIER_DIRECT/::1"
cuttle_stop
