#!/bin/sh
# Request bodies through cuttle: 200 MB uploads, streamed from a pipe, with
# Content-Length and chunked, reach the origin intact (its X-Body-Sha256);
# with Expect: 100-continue the client gets its 100 Continue at once; a
# small body followed by another request on the same connection works.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
proxy_conf
cuttle_start

size=209715200
pattern_sha256 200m > "$T/expected" &
hasher=$!

# upload NAME URL [CURL ARGS] : streams the 200m pattern through cuttle; the
# reply head in $T/NAME.h
upload() {
    name=$1
    url=$2
    shift 2
    "$ORIGIN" --print-body 200m |
        curl -sS --max-time "$(scaled 60)" -x "127.0.0.1:$PORT" -T - -D "$T/$name.h" -o "$T/$name.body" \
            "$@" "$url" 2> "$T/$name.err" ||
        fail "$name: curl failed: $(cat "$T/$name.err")"
}
field() { tr -d '\r' < "$T/$1.h" | sed -n "s/^$2: *//Ip" | tail -n 1; }

# check_upload NAME : the final reply is 200 and the origin saw the whole body
check_upload() {
    status=$(tr -d '\r' < "$T/$1.h" | grep '^HTTP/' | tail -n 1)
    echo "$status" | grep -q '^HTTP/1\.1 200 ' || fail "$1: $status"
    [ "$(field "$1" X-Body-Length)" = "$size" ] || fail "$1: the origin got $(field "$1" X-Body-Length) bytes"
    [ "$(field "$1" X-Body-Sha256)" = "$(cat "$T/expected")" ] || fail "$1: the origin got a different body"
}

upload length "$OURL/s/up-length?n=1" -H "Content-Length: $size" -H "Transfer-Encoding:" -H "Expect:"
wait $hasher || fail "cuttle-origin --print-body 200m failed"
check_upload length
pass "200 MB upload with Content-Length"

upload chunked "$OURL/s/up-chunked?n=1" -H "Expect:"
check_upload chunked
# what cuttle sent the origin, for the record (a streamed body of unknown length is chunked)
curl -s --max-time "$(scaled 5)" "$OURL/_seen/up-chunked" | grep -Ei '^(PUT|Content-Length|Transfer-Encoding)' |
    tr -d '\r' | sed 's/^/  origin saw: /'
pass "200 MB chunked upload"

# Expect: 100-continue with a 2 MB body: curl waits --expect100-timeout (5 s)
# for the 100 before it sends the body; cuttle must answer it at once, so the
# upload takes under 1 s more than the same upload without Expect
# expect_upload NAME EXPECT-HEADER : the 2 MB upload; its time in $T/NAME.time
expect_upload() {
    "$ORIGIN" --print-body 2m |
        curl -sS -v --max-time "$(scaled 30)" -x "127.0.0.1:$PORT" -T - -H "Content-Length: 2097152" \
            -H "Transfer-Encoding:" -H "$2" --expect100-timeout 5 -D "$T/$1.h" \
            -o /dev/null -w '%{time_total}\n' "$OURL/s/up-$1?n=1" > "$T/$1.time" 2> "$T/$1.err" ||
        fail "$1: curl failed: $(tail -n 5 "$T/$1.err")"
    [ "$(field "$1" X-Body-Length)" = 2097152 ] || fail "$1: the origin got $(field "$1" X-Body-Length) bytes"
}
expect_upload no-expect "Expect:"
expect_upload expect "Expect: 100-continue"
grep -q '^< HTTP/1\.1 100 ' "$T/expect.err" || fail "Expect: 100-continue: no 100 Continue reached the client"
without=$(cat "$T/no-expect.time")
with=$(cat "$T/expect.time")
awk -v a="$with" -v b="$without" -v m="$TIMEOUT_MULT" 'BEGIN { exit !(a - b < 1.0 * m) }' ||
    fail "Expect: 100-continue: the 2 MB upload took $with s, $without s without Expect (the 100 came late)"
pass "Expect: 100-continue answered at once ($with s, $without s without Expect)"

proxy_py "$PORT" "$OPORT" "$(scaled 10)" <<'PY' || fail "raw uploads (see above)"
import hashlib, sys
from rawhttp import Conn, request, pattern, check, run

port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


def url(path):
    return "http://127.0.0.1:%d%s" % (oport, path)


def check_echo(r, body, what):
    check(r.status == 200, "%s: status %d" % (what, r.status))
    check(r.header("X-Body-Length") == str(len(body)),
          "%s: X-Body-Length %r, sent %d" % (what, r.header("X-Body-Length"), len(body)))
    check(r.header("X-Body-Sha256") == hashlib.sha256(body).hexdigest(), "%s: X-Body-Sha256 differs" % what)


def main():
    # Expect: 100-continue, the body held back until the 100 arrives
    c = Conn(port, timeout=limit)
    body = pattern(100000)
    c.send(request("POST", url("/x?expect=raw"), ["Expect: 100-continue", "Content-Length: %d" % len(body)]))
    c.sock.settimeout(3)
    interim = c.read_head()
    c.sock.settimeout(limit)
    check(interim.status == 100, "Expect: the first reply is %d, not 100 Continue" % interim.status)
    c.send(body)
    r = c.read_reply("POST")
    check_echo(r, body, "Expect, raw")
    c.close()
    print("ok: raw Expect: 100-continue: 100 before the body, then the final reply")

    # a small POST, then a GET on the same connection
    c = Conn(port, timeout=limit)
    body = b"hello, origin\n"
    c.send(request("POST", url("/x?small=1"), body=body))
    check_echo(c.read_reply("POST"), body, "small POST")
    c.send(request("GET", url("/x?s=1000&after=post")))
    r = c.read_reply()
    check(r.status == 200 and r.body == pattern(1000), "GET after a POST on the same connection: %r" % r)
    print("ok: small POST, then a GET on the same connection")

    # a chunked POST with the next request in the same write
    chunks = b"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n"
    c.send(request("POST", url("/x?chunked-post=1"), ["Transfer-Encoding: chunked"]) + chunks +
           request("GET", url("/x?s=777&after=chunked")))
    check_echo(c.read_reply("POST"), b"hello, world", "chunked POST")
    r = c.read_reply()
    check(r.status == 200 and r.body == pattern(777), "GET pipelined after a chunked POST: %r" % r)
    state = c.state_after(0.3)
    check(state == "open", "after the pipelined GET the connection is %s" % state)
    c.close()
    print("ok: chunked POST and a GET in one write, both answered")


run(main)
PY
cuttle_stop
