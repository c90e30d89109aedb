#!/bin/sh
# Interim (1xx) replies (RFC 9110 section 15.2): an origin's 103 Early Hints
# and 102 Processing reach an HTTP/1.1 client before the final reply, with
# the fields their Connection lists removed, as Squid 5.7 forwards them; an
# HTTP/1.0 client gets the final reply alone; the final reply is stored
# without the interim fields, and a hit carries no interim reply.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
rawserver_start interim
cuttle_conf "http_access allow localhost"
cuttle_start

PYTHONPATH="$top_srcdir/test-suite/proxy" PYTHONDONTWRITEBYTECODE=1 python3 - "$PORT" "$RAWPORT" <<'PY' ||
import sys, rawhttp
from rawhttp import check

port, raw = int(sys.argv[1]), int(sys.argv[2])


def main():
    url = "http://127.0.0.1:%d/" % raw
    c = rawhttp.Conn(port, timeout=5)
    c.send(rawhttp.request("GET", url + "a"))
    r = c.read_reply()
    check(r.status == 200 and r.body == b"hello", "HTTP/1.1: final reply %r" % r)
    check([i.status for i in r.interim] == [103, 102], "HTTP/1.1: interim replies %s" % [i.status for i in r.interim])
    early = r.interim[0]
    check(early.header("Link") == "</style.css>; rel=preload", "103: Link %r" % early.header("Link"))
    check(early.header("X-Hop") is None, "103: the field its Connection lists was forwarded")
    check(r.header("Link") is None, "the final reply got the 103's Link field")
    # the same connection goes on; the stored reply is a hit without interim replies
    c.send(rawhttp.request("GET", url + "a"))
    r = c.read_reply()
    check(r.status == 200 and not r.interim, "the hit: %r with interim %s" % (r, [i.status for i in r.interim]))
    check("HIT" in (r.header("X-Cache") or ""), "the second request was no hit: X-Cache %r" % r.header("X-Cache"))
    check(r.header("Link") is None, "the stored reply has the 103's Link field")
    c.close()
    # an HTTP/1.0 client never gets a 1xx
    c = rawhttp.Conn(port, timeout=5)
    c.send(rawhttp.request("GET", url + "b", version="1.0"))
    r = c.read_reply()
    check(r.status == 200 and not r.interim, "HTTP/1.0: %r with interim %s" % (r, [i.status for i in r.interim]))
    c.close()


rawhttp.run(main)
PY
    fail "interim replies"
pass "103 and 102 forwarded to HTTP/1.1 clients before the 200, never to HTTP/1.0 ones, never stored"
cuttle_stop
