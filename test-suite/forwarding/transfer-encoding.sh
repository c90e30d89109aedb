#!/bin/sh
# Transfer-Encoding by RFC 9112 (sections 6.1 and 6.3), the TE.TE desync
# closed: a request whose Transfer-Encoding is not exactly one final
# `chunked` gets 400 (501 for a coding before chunked), the connection is
# closed, and neither the request nor the bytes after its body (a smuggled
# request) reach the origin; a valid chunked request and the request
# pipelined after it are both answered. A reply with a coding cuttle cannot
# decode gets 502 ERR_INVALID_RESP, as from Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
rawserver_start te
cuttle_conf "http_access allow localhost"
cuttle_start

python3 - "$PORT" "$OPORT" "$(scaled 3)" <<'PY' > "$T/te.out" 2>&1 || { cat "$T/te.out"; fail "Transfer-Encoding requests"; }
import socket, sys
port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
body = b"5\r\nhello\r\n0\r\n\r\n"
# (the Transfer-Encoding field lines, the version, the status, whether the connection stays open)
cases = [
    (b"Transfer-Encoding: chunked\r\n", b"1.1", 200, True),
    (b"Transfer-Encoding: Chunked\r\n", b"1.1", 200, True),
    (b"Transfer-Encoding: ,chunked\r\n", b"1.1", 200, True),
    (b"Transfer-Encoding: chunked,\r\n", b"1.1", 200, True),
    (b"Transfer-Encoding: xchunked\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: \xa0chunked\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked\xa0\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: blegh\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked, chunked\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked, gzip\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked;x=1\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: \r\n", b"1.1", 400, False),
    (b"Transfer-Encoding : chunked\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding:\r\n chunked\r\n", b"1.1", 400, False),
    (b"X: y\nTransfer-Encoding: chunked\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked\r\nContent-Length: 15\r\n", b"1.1", 400, False),
    (b"Transfer-Encoding: chunked\r\n", b"1.0", 400, False),
    (b"Transfer-Encoding: gzip, chunked\r\n", b"1.1", 501, False),
    (b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", b"1.1", 501, False),
]


def seen(name):
    s = socket.create_connection(("127.0.0.1", oport), timeout=limit)
    s.sendall(b"GET /_seen/" + name + b" HTTP/1.1\r\nHost: o\r\nConnection: close\r\n\r\n")
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
    return out.split(b"\r\n\r\n", 1)[1]


def statuses(data):
    # the status lines of the replies in data (the origin's bodies end in a bare LF)
    return [int(line.split(b" ")[1]) for line in data.split(b"\n") if line.startswith(b"HTTP/1.1 ")]


failed = 0
for n, (fields, version, status, stays_open) in enumerate(cases):
    post, smuggled = b"te%d" % n, b"smuggled%d" % n
    req = (b"POST http://127.0.0.1:%d/s/%s HTTP/%s\r\nHost: 127.0.0.1:%d\r\n" % (oport, post, version, oport) +
           fields + b"\r\n" + body +
           b"GET http://127.0.0.1:%d/s/%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (oport, smuggled, oport))
    s = socket.create_connection(("127.0.0.1", port), timeout=limit)
    s.sendall(req)
    got, closed = b"", False
    try:
        while True:
            d = s.recv(65536)
            if not d:
                closed = True
                break
            got += d
    except socket.timeout:
        pass
    s.close()
    codes = statuses(got)
    problems = []
    if not codes or codes[0] != status:
        problems.append("status %s, expected %d" % (codes, status))
    if stays_open:
        if codes != [status, 200] or closed:
            problems.append("the pipelined request: statuses %s, closed %s" % (codes, closed))
    else:
        if not closed:
            problems.append("the connection stayed open")
        if len(codes) != 1:
            problems.append("replies after the error: %s" % codes)
        if seen(post) or seen(smuggled):
            problems.append("the origin saw %r / %r" % (seen(post), seen(smuggled)))
    if problems:
        failed += 1
        print("PROBLEM: %r HTTP/%s: %s" % (fields, version.decode(), "; ".join(problems)))
print("%d cases, %d failed" % (len(cases), failed))
sys.exit(1 if failed else 0)
PY
pass "Transfer-Encoding requests: $(tail -n 1 "$T/te.out")"

# replies: only `chunked` alone is forwarded
for value in chunked "gzip,%20chunked" gzip "chunked,%20gzip" identity; do
    code=$(curl_proxy -o "$T/te-body" "http://127.0.0.1:$RAWPORT/te?te=$value")
    if [ "$value" = chunked ]; then
        [ "$code" = 200 ] && [ "$(cat "$T/te-body")" = hello ] || fail "a chunked reply: $code $(cat "$T/te-body")"
    else
        [ "$code" = 502 ] || fail "a reply with Transfer-Encoding $value: status $code, expected 502"
        grep -q ERR_INVALID_RESP "$T/te-body" || fail "a reply with Transfer-Encoding $value: not ERR_INVALID_RESP"
    fi
done
wait_until 5 access_log_has " TCP_MISS/502 [0-9]+ GET http://127\.0\.0\.1:$RAWPORT/te\? " || fail "no access.log line for the 502"
pass "replies: chunked forwarded, gzip/identity codings refused with 502 ERR_INVALID_RESP"

# after all that, a normal request is still answered
[ "$(curl_proxy -o /dev/null "http://127.0.0.1:$OPORT/x?s=10")" = 200 ] || fail "a normal request afterwards"
cuttle_stop
