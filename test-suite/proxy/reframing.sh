#!/bin/sh
# Reply framing between the origin and each client (RFC 9112 section 6):
# chunked and close-delimited origin replies reach HTTP/1.1 clients chunked
# and HTTP/1.0 clients never chunked (close-delimited or Content-Length, then
# the connection closes); Content-Length replies keep it; HEAD gets no body
# but the origin's Content-Length; 204 and 304 get no body and the connection
# stays usable. Every body is checked byte for byte.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
proxy_conf
cuttle_start

size=3145728
expected=$(pattern_sha256 "$size")

# curl_case NAME QUERY [CURL ARGS] : fetches $OURL/x?QUERY through cuttle; the
# reply head in $T/NAME.h, the body's sha256 in $T/NAME.sha
curl_case() {
    name=$1
    query=$2
    shift 2
    {
        curl -sS --max-time "$(scaled 30)" -x "127.0.0.1:$PORT" -D "$T/$name.h" "$@" "$OURL/x?$query" 2> "$T/$name.err"
        echo $? > "$T/$name.rc"
    } | sha256sum | cut -d ' ' -f 1 > "$T/$name.sha"
    [ "$(cat "$T/$name.rc")" = 0 ] || fail "$name: curl failed: $(cat "$T/$name.err")"
    head -n 1 "$T/$name.h" | grep -q '^HTTP/1\.[01] 200 ' || fail "$name: $(head -n 1 "$T/$name.h")"
    [ "$(cat "$T/$name.sha")" = "$expected" ] || fail "$name: body differs from the origin's"
}
has_field() { grep -Eqi "^$2:[[:space:]]*$3[[:space:]]*\$" "$T/$1.h"; }

for origin in chunked close; do
    curl_case "curl11-$origin" "s=3m&$origin=1"
    has_field "curl11-$origin" Transfer-Encoding 'chunked' ||
        fail "HTTP/1.1 client, $origin origin reply: not chunked: $(tr -d '\r' < "$T/curl11-$origin.h")"
    pass "HTTP/1.1 curl, $origin origin reply: chunked, body intact"

    curl_case "curl10-$origin" "s=3m&$origin=1" -0
    ! grep -qi '^Transfer-Encoding:' "$T/curl10-$origin.h" ||
        fail "HTTP/1.0 client, $origin origin reply: Transfer-Encoding sent: $(tr -d '\r' < "$T/curl10-$origin.h")"
    pass "HTTP/1.0 curl, $origin origin reply: not chunked, body intact"
done

curl_case curl11-length "s=3m"
has_field curl11-length Content-Length "$size" || fail "HTTP/1.1 client: Content-Length lost"
! grep -qi '^Transfer-Encoding:' "$T/curl11-length.h" || fail "HTTP/1.1 client: Content-Length reply chunked"
curl_case curl10-length "s=3m" -0
has_field curl10-length Content-Length "$size" || fail "HTTP/1.0 client: Content-Length lost"
pass "curl 1.1 and 1.0: Content-Length kept"

proxy_py "$PORT" "$OPORT" "$(scaled 10)" <<'PY' || fail "raw client framing (see above)"
import sys
from rawhttp import Conn, request, pattern, check, run

port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
SIZE = 3 << 20
BODY = pattern(SIZE)


def url(query):
    return "http://127.0.0.1:%d/x?%s" % (oport, query)


def fetch(version, query, method="GET"):
    c = Conn(port, timeout=limit)
    c.send(request(method, url(query), version=version))
    return c, c.read_reply(method)


def still_usable(c, what):
    """a second request on the same connection gets its own, intact reply"""
    state = c.state_after(0.3)
    check(state == "open", "%s: after the reply the connection is %s" % (what, state))
    c.send(request("GET", url("s=1000&again=1")))
    r = c.read_reply()
    check(r.status == 200 and r.body == pattern(1000),
          "%s: the next request on the connection got %r" % (what, r))


def main():
    for origin in ("chunked", "close", "length"):
        query = "s=3m" + ("" if origin == "length" else "&%s=1" % origin)

        c, r = fetch("1.1", query)
        what = "raw HTTP/1.1, %s origin reply" % origin
        check(r.status == 200, "%s: status %d" % (what, r.status))
        want = "length" if origin == "length" else "chunked"
        check(r.framing == want, "%s: framed %s, expected %s" % (what, r.framing, want))
        if origin == "length":
            check(r.header("Content-Length") == str(SIZE), "%s: Content-Length %r" % (what, r.header("Content-Length")))
        check(r.body == BODY, "%s: body differs (%d bytes)" % (what, len(r.body)))
        still_usable(c, what)
        c.close()
        print("ok: %s: %s, body intact, connection reusable" % (what, want))

        c, r = fetch("1.0", query)
        what = "raw HTTP/1.0, %s origin reply" % origin
        check(r.status == 200, "%s: status %d" % (what, r.status))
        check(r.framing in ("close", "length"), "%s: framed %s" % (what, r.framing))
        if origin == "length":
            check(r.framing == "length" and r.header("Content-Length") == str(SIZE),
                  "%s: Content-Length %r" % (what, r.header("Content-Length")))
        check(r.body == BODY, "%s: body differs (%d bytes)" % (what, len(r.body)))
        state = c.state_after(limit)
        check(state == "closed", "%s: connection %s after the reply" % (what, state))
        c.close()
        print("ok: %s: %s, body intact, connection closed" % (what, r.framing))

    for query in ("s=12345", "s=12345&chunked=1"):
        c, r = fetch("1.1", query, "HEAD")
        what = "HEAD %s" % query
        check(r.status == 200, "%s: status %d" % (what, r.status))
        if "chunked" in query:
            check(r.header("Content-Length") is None, "%s: Content-Length %r" % (what, r.header("Content-Length")))
        else:
            check(r.header("Content-Length") == "12345",
                  "%s: Content-Length %r, expected the origin's 12345" % (what, r.header("Content-Length")))
        still_usable(c, what)
        c.close()
        print("ok: %s: no body, Content-Length %s, connection reusable" % (what, r.header("Content-Length")))

    for status in (204, 304):
        c, r = fetch("1.1", "status=%d" % status)
        what = "status=%d" % status
        check(r.status == status, "%s: status %d" % (what, r.status))
        check(r.header("Transfer-Encoding") is None,
              "%s: Transfer-Encoding %r" % (what, r.header("Transfer-Encoding")))
        if status == 204:
            # RFC 9110 section 8.6: no Content-Length in a 204
            check(r.header("Content-Length") is None, "%s: Content-Length %r" % (what, r.header("Content-Length")))
        still_usable(c, what)
        c.close()
        print("ok: %s: no body, connection reusable" % what)


run(main)
PY
cuttle_stop
