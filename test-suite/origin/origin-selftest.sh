#!/bin/sh
# The test origin does what test-suite/origin/README.md says, checked with
# curl and raw sockets straight against it (no proxy): pattern bodies and their
# sha256 against --print-body, chunked and close-delimited replies, HEAD,
# status codes, headers, delays, every fail= mode, hsize=, uploads (length,
# chunked, Expect), keep-alive, HTTP/1.0, pipelining, absolute-form targets,
# scripts and _seen, _conns, /files/, IPv6, a few hundred concurrent
# connections, and a clean exit on SIGTERM.
. "$top_srcdir/test-suite/lib.sh"

: "${ORIGIN:=$top_builddir/test-suite/origin/cuttle-origin}"
[ -x "$ORIGIN" ] || { echo "no test origin at $ORIGIN"; exit 99; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed: skipped"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/cuttle-origin-test.XXXXXX")
ORIGIN_PIDS=""
origin_cleanup() {
    for p in $ORIGIN_PIDS; do
        kill -KILL "$p" 2>/dev/null
    done
    cuttle_cleanup
}
trap origin_cleanup EXIT
trap 'exit 1' INT TERM

# start_origin NAME [ARGS] : starts the origin, waits for its "listening on"
# line; sets PORT, ADDR (as printed) and ORIGIN_PID; its stderr goes to $T/stderr
has_listening_line() { [ -s "$T/$1.out" ] && grep -q '^listening on ' "$T/$1.out"; }
start_origin() {
    name=$1
    shift
    "$ORIGIN" "$@" > "$T/$name.out" 2>> "$T/stderr" &
    ORIGIN_PID=$!
    ORIGIN_PIDS="$ORIGIN_PIDS $ORIGIN_PID"
    wait_until 10 has_listening_line "$name" || fail "$name: no 'listening on' line"
    [ "$(wc -l < "$T/$name.out")" -eq 1 ] || fail "$name: more than one line on stdout"
    ADDR=$(sed -n '1s/^listening on //p' "$T/$name.out")
    PORT=${ADDR##*:}
}

# stop_origin PID : SIGTERM, bounded wait, exit status 0
stop_origin() {
    kill -TERM "$1" 2>/dev/null
    wait_until 10 is_stopped "$1" || fail "origin $1 did not stop after SIGTERM"
    wait "$1"
    rc=$?
    [ "$rc" = 0 ] || fail "origin exited with status $rc after SIGTERM"
}

MAX=$(scaled 20)
# get PATH [CURL ARGS] : fetches PATH into $T/body, headers into $T/head; prints the status
get() {
    path=$1
    shift
    curl -s -o "$T/body" -D "$T/head" -w '%{http_code}' --max-time "$MAX" "$@" "http://127.0.0.1:$PORT$path"
}
# header NAME : the value of header NAME in $T/head (the last one)
header() { grep -i "^$1:" "$T/head" | tail -n 1 | sed -e 's/^[^:]*: *//' -e 's/\r$//'; }
has_header() { grep -qi "^$1:" "$T/head"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
pattern_sha() { "$ORIGIN" --print-body "$1" | sha256sum | cut -d' ' -f1; }

timeout "$(scaled 5)" "$ORIGIN" --files "$T/files" > /dev/null 2>&1 && fail "a missing --files directory was accepted"
mkdir -p "$T/files/sub"
start_origin origin --files "$T/files"
MAIN_PORT=$PORT
grep -Eq '^listening on 127\.0\.0\.1:[1-9][0-9]*$' "$T/origin.out" || fail "bad first line: $(cat "$T/origin.out")"
MAIN_PID=$ORIGIN_PID
pass "listening on $ADDR"

# --print-body: the pattern, byte i = alphabet[i % 61]
"$ORIGIN" --print-body 1k > "$T/p1k"
python3 - "$T/p1k" <<'PY' || fail "--print-body is not the documented pattern"
import sys
a = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
want = "".join(a[i % 61] for i in range(1024)).encode()
got = open(sys.argv[1], "rb").read()
sys.exit(0 if got == want else 1)
PY
[ "$("$ORIGIN" --print-body 0 | wc -c)" -eq 0 ] || fail "--print-body 0 printed bytes"
pass "--print-body writes the pattern"

# the default body
code=$(get /)
[ "$code" = 200 ] && [ "$(cat "$T/body")" = ok ] || fail "default reply: $code $(cat "$T/body")"
[ "$(header Content-Length)" = 3 ] || fail "default reply: Content-Length $(header Content-Length)"
has_header Date || fail "no Date header"
header X-Origin-Conn | grep -Eq '^[1-9][0-9]*$' || fail "bad X-Origin-Conn: $(header X-Origin-Conn)"
header X-Origin-Time | grep -Eq '^[0-9]+$' || fail "bad X-Origin-Time: $(header X-Origin-Time)"
pass "default reply ok, with Date, X-Origin-Conn and X-Origin-Time"

# pattern bodies of several sizes, with Content-Length
for s in 0 1 60 61 62 1000 100k 1m 5m; do
    code=$(get "/size?s=$s")
    [ "$code" = 200 ] || fail "s=$s: status $code"
    bytes=$("$ORIGIN" --print-body "$s" | wc -c)
    [ "$(header Content-Length)" = "$bytes" ] || fail "s=$s: Content-Length $(header Content-Length), want $bytes"
    [ "$(sha "$T/body")" = "$(pattern_sha "$s")" ] || fail "s=$s: body differs from --print-body"
done
[ "$(header Content-Type)" = application/octet-stream ] || fail "pattern Content-Type: $(header Content-Type)"
pass "s= bodies match --print-body"

# chunked, close-delimited
code=$(get "/c?s=300k&chunked=1")
[ "$code" = 200 ] && [ "$(header Transfer-Encoding)" = chunked ] || fail "chunked=1: $code, TE $(header Transfer-Encoding)"
has_header Content-Length && fail "chunked=1 sent Content-Length"
[ "$(sha "$T/body")" = "$(pattern_sha 300k)" ] || fail "chunked body differs"
code=$(get "/c?chunked=1")
[ "$code" = 200 ] && [ "$(cat "$T/body")" = ok ] || fail "chunked text body: $(cat "$T/body")"
code=$(get "/c?s=300k&close=1")
[ "$code" = 200 ] && [ "$(header Connection)" = close ] || fail "close=1: $code, Connection $(header Connection)"
has_header Content-Length && fail "close=1 sent Content-Length"
has_header Transfer-Encoding && fail "close=1 sent Transfer-Encoding"
[ "$(sha "$T/body")" = "$(pattern_sha 300k)" ] || fail "close-delimited body differs"
pass "chunked and close-delimited replies"

# status codes and reason phrases; no body and no Content-Length for 204 and 304
for st in 201:Created 404:Not.Found 503:Service.Unavailable 299:Unknown; do
    n=${st%%:*}
    code=$(get "/st?status=$n")
    [ "$code" = "$n" ] || fail "status=$n gave $code"
    head -n 1 "$T/head" | tr -d '\r' | grep -Eq "^HTTP/1.1 $n ${st#*:}$" || fail "status line: $(head -n 1 "$T/head")"
done
for n in 204 304; do
    code=$(get "/st?status=$n&s=100")
    [ "$code" = "$n" ] || fail "status=$n gave $code"
    has_header Content-Length && fail "status=$n sent Content-Length"
    [ -s "$T/body" ] && fail "status=$n sent a body"
done
code=$(get "/st?status=100")
[ "$code" = 400 ] || fail "status=100 was accepted ($code)"
pass "status=, 204 and 304 without body or Content-Length, no 1xx"

# headers: h= (percent-encoded, repeatable) and the shorthands
code=$(get "/h?h=X-One:%20first%20value&h=X-Two:2&h=X-Two:3&cc=max-age%3D60,%20public&etag=%22v1%22&lm=Mon,%2001%20Jan%202024%2000:00:00%20GMT&exp=Tue,%2002%20Jan%202024%2000:00:00%20GMT&ct=text/x-test")
[ "$code" = 200 ] || fail "h=: status $code"
[ "$(header X-One)" = "first value" ] || fail "h=X-One: '$(header X-One)'"
[ "$(grep -ci '^X-Two:' "$T/head")" = 2 ] || fail "a repeated h= was not sent twice"
[ "$(header Cache-Control)" = "max-age=60, public" ] || fail "cc=: $(header Cache-Control)"
[ "$(header ETag)" = '"v1"' ] || fail "etag=: $(header ETag)"
[ "$(header Last-Modified)" = "Mon, 01 Jan 2024 00:00:00 GMT" ] || fail "lm=: $(header Last-Modified)"
[ "$(header Expires)" = "Tue, 02 Jan 2024 00:00:00 GMT" ] || fail "exp=: $(header Expires)"
[ "$(header Content-Type)" = text/x-test ] || fail "ct=: $(header Content-Type)"
[ "$(grep -ci '^Content-Type:' "$T/head")" = 1 ] || fail "ct= did not replace the default Content-Type"
code=$(get "/h?h=Date:%20Thu,%2001%20Jan%201970%2000:00:00%20GMT")
[ "$(grep -ci '^Date:' "$T/head")" = 1 ] && [ "$(header Date)" = "Thu, 01 Jan 1970 00:00:00 GMT" ] ||
    fail "h=Date did not replace Date"
code=$(get "/h?h=NoColon")
[ "$code" = 400 ] || fail "a bad h= was accepted ($code)"
code=$(get "/h?s=bogus")
[ "$code" = 400 ] || fail "a bad s= was accepted ($code)"
code=$(get "/h?unknown=1&v=2")
[ "$code" = 200 ] || fail "unknown parameters were not ignored ($code)"
pass "h=, cc=, etag=, lm=, exp=, ct=, bad parameters"

# t=: the reply waits, and X-Origin-Time counts the wait
start=$(date +%s%N)
code=$(get "/t?t=300ms")
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$code" = 200 ] && [ "$elapsed" -ge 300 ] || fail "t=300ms: $code after ${elapsed} ms"
[ "$(header X-Origin-Time)" -ge 300000 ] || fail "t=300ms: X-Origin-Time $(header X-Origin-Time)"
code=$(get "/t?t=5")
[ "$code" = 400 ] || fail "t= without a unit was accepted ($code)"
pass "t= waits (${elapsed} ms) and X-Origin-Time counts it"

# rate=: the head at once, then the body paced (byte X no earlier than X/rate
# after the head; steps of rate/20 bytes); identity, chunked and close-delimited
# bodies stay whole; with fail=reset@N the N bytes are paced too
# paced_get QUERY : get, and sets ELAPSED and FIRST (ms to the end, to the first byte)
paced_get() {
    start=$(date +%s%N)
    out=$(curl -s -o "$T/body" -D "$T/head" -w '%{http_code} %{time_starttransfer}' --max-time "$MAX" \
        "http://127.0.0.1:$PORT/r?$1")
    ELAPSED=$(( ($(date +%s%N) - start) / 1000000 ))
    FIRST=$(echo "$out" | awk '{printf "%d", $2 * 1000}')
    CODE=${out%% *}
}
for q in "s=100k&rate=200k" "s=100k&rate=200k&chunked=1" "s=100k&rate=200k&close=1"; do
    paced_get "$q"
    # the last step (of 10240 bytes) is due at (102400 - 10240) / 204800 = 0.45 s
    [ "$CODE" = 200 ] && [ "$ELAPSED" -ge 440 ] || fail "$q: $CODE after $ELAPSED ms"
    [ "$ELAPSED" -lt $(( $(scaled 5) * 1000 )) ] || fail "$q: $ELAPSED ms, too slow"
    [ "$FIRST" -lt $((ELAPSED - 200)) ] || fail "$q: the head came after $FIRST of $ELAPSED ms"
    [ "$(sha "$T/body")" = "$(pattern_sha 100k)" ] || fail "$q: body differs"
done
paced_get "s=100k&rate=100k&fail=reset@20k"
[ "$(wc -c < "$T/body")" = 20480 ] && [ "$ELAPSED" -ge 140 ] ||
    fail "rate= with fail=reset@20k: $(wc -c < "$T/body") bytes after $ELAPSED ms"
[ "$(get "/r?s=1k&rate=0")" = 200 ] && [ "$(sha "$T/body")" = "$(pattern_sha 1k)" ] || fail "rate=0 is not full speed"
[ "$(get "/r?rate=fast")" = 400 ] || fail "a bad rate= was accepted"
[ "$(get "/r?s=1m&rate=12")" = 400 ] || fail "rate= taking more than a day was accepted"
pass "rate= paces the body ($ELAPSED ms for 20 KB at 100 KB/s), head at once, every framing"

# fail modes
curl -s -o "$T/body" -D "$T/head" --max-time "$MAX" "http://127.0.0.1:$PORT/f?s=100k&fail=reset@1000"
rc=$?
[ "$rc" != 0 ] || fail "fail=reset: curl saw no error"
[ "$(header Content-Length)" = 102400 ] || fail "fail=reset: Content-Length $(header Content-Length)"
[ "$(wc -c < "$T/body")" = 1000 ] || fail "fail=reset@1000: $(wc -c < "$T/body") body bytes"
curl -s -o "$T/body" --max-time 1 "http://127.0.0.1:$PORT/f?s=100k&fail=stall@500"
rc=$?
[ "$rc" = 28 ] || fail "fail=stall: curl exit $rc, want a timeout (28)"
[ "$(wc -c < "$T/body")" = 500 ] || fail "fail=stall@500: $(wc -c < "$T/body") body bytes"
curl -s -o /dev/null --max-time "$MAX" "http://127.0.0.1:$PORT/f?fail=empty"
rc=$?
[ "$rc" = 52 ] || fail "fail=empty: curl exit $rc, want 52"
curl -s -o /dev/null --max-time "$MAX" "http://127.0.0.1:$PORT/f?fail=garbage"
rc=$?
[ "$rc" != 0 ] || fail "fail=garbage: curl saw no error"
curl -s -o /dev/null --max-time "$MAX" "http://127.0.0.1:$PORT/f?fail=badheader"
rc=$?
[ "$rc" != 0 ] || fail "fail=badheader: curl saw no error"
pass "fail=reset, stall, empty, garbage, badheader (curl side)"

# uploads: Content-Length and chunked, with and without Expect
head -c 3000000 /dev/urandom > "$T/upload"
want=$(sha "$T/upload")
for how in "-H Expect:" "-H Expect:100-continue" "-H Transfer-Encoding:chunked -H Expect:" \
    "-H Transfer-Encoding:chunked -H Expect:100-continue"; do
    # shellcheck disable=SC2086
    code=$(get /up -X POST --data-binary "@$T/upload" $how)
    [ "$code" = 200 ] || fail "upload ($how): status $code"
    [ "$(header X-Body-Length)" = 3000000 ] || fail "upload ($how): X-Body-Length $(header X-Body-Length)"
    [ "$(header X-Body-Sha256)" = "$want" ] || fail "upload ($how): X-Body-Sha256 differs"
    grep -q "$want" "$T/body" || fail "upload ($how): the body does not name the sha256"
    case $how in
    *100-continue*) grep -q '^HTTP/1.1 100 Continue' "$T/head" || fail "upload ($how): no 100 Continue" ;;
    *) grep -q '^HTTP/1.1 100' "$T/head" && fail "upload ($how): 100 Continue without Expect" ;;
    esac
done
code=$(get "/up?s=10k&status=202" -X PUT --data-binary "@$T/upload")
[ "$code" = 202 ] && [ "$(header X-Body-Sha256)" = "$want" ] || fail "upload with s= and status=: $code"
[ "$(sha "$T/body")" = "$(pattern_sha 10k)" ] || fail "upload with s=: the body is not the pattern"
code=$(get /up -X POST --data-binary '')
[ "$code" = 200 ] && [ "$(header X-Body-Length)" = 0 ] || fail "empty upload: $code $(header X-Body-Length)"
pass "uploads: sha256 by Content-Length and chunked, Expect: 100-continue"

# keep-alive: two URLs in one curl share the connection; HTTP/1.0
curl -s -o /dev/null -o /dev/null -D "$T/head" --max-time "$MAX" \
    "http://127.0.0.1:$PORT/k1?s=10k" "http://127.0.0.1:$PORT/k2?s=10k"
[ "$(grep -ci '^X-Origin-Conn:' "$T/head")" = 2 ] || fail "keep-alive: not two replies"
[ "$(grep -i '^X-Origin-Conn:' "$T/head" | sort -u | wc -l)" = 1 ] || fail "keep-alive: two connections used"
code=$(get /k -0)
[ "$code" = 200 ] && [ "$(header Connection)" = close ] || fail "HTTP/1.0: not closed ($(header Connection))"
code=$(get /k -0 -H 'Connection: keep-alive')
[ "$(header Connection)" = keep-alive ] || fail "HTTP/1.0 keep-alive: $(header Connection)"
code=$(get /k -H 'Connection: close')
[ "$(header Connection)" = close ] || fail "Connection: close not honoured"
pass "keep-alive, HTTP/1.0 and Connection: close"

# /_conns counts accepted connections (each curl below opens one)
c1=$(curl -s --max-time "$MAX" "http://127.0.0.1:$PORT/_conns")
c2=$(curl -s --max-time "$MAX" "http://127.0.0.1:$PORT/_conns")
[ "$c2" -eq $((c1 + 1)) ] || fail "/_conns: $c1 then $c2"
pass "/_conns counts connections ($c2)"

# /files/
head -c 3000000 /dev/urandom > "$T/files/blob"
echo nested > "$T/files/sub/n.txt"
code=$(get /files/blob)
[ "$code" = 200 ] && [ "$(header Content-Length)" = 3000000 ] || fail "/files/blob: $code $(header Content-Length)"
[ "$(sha "$T/body")" = "$(sha "$T/files/blob")" ] || fail "/files/blob: body differs"
code=$(get /files/blob -I)
[ "$code" = 200 ] && [ "$(header Content-Length)" = 3000000 ] || fail "HEAD /files/blob: $code"
code=$(get /files/sub/n.txt)
[ "$code" = 200 ] && [ "$(cat "$T/body")" = nested ] || fail "/files/sub/n.txt: $code"
code=$(get "/files/blob?chunked=1")
[ "$(header Transfer-Encoding)" = chunked ] && [ "$(sha "$T/body")" = "$(sha "$T/files/blob")" ] ||
    fail "/files/ chunked: body differs"
[ "$(get /files/missing)" = 404 ] || fail "/files/missing is not 404"
[ "$(get /files/sub)" = 404 ] || fail "/files/ of a directory is not 404"
[ "$(get /files/../origin.out --path-as-is)" = 404 ] || fail "/files/.. escaped"
[ "$(get /files/sub/../../origin.out --path-as-is)" = 404 ] || fail "/files/sub/../.. escaped"
pass "/files/ with sendfile, HEAD, 404, no .. escape"
head -c 20000 /dev/urandom > "$T/files/paced"
start=$(date +%s%N)
code=$(get "/files/paced?rate=40000")
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
# steps of 2000 bytes: the last is due at 18000 / 40000 = 0.45 s
[ "$code" = 200 ] && [ "$elapsed" -ge 440 ] || fail "/files/ with rate=: $code after $elapsed ms"
[ "$(sha "$T/body")" = "$(sha "$T/files/paced")" ] || fail "/files/ with rate=: body differs"
pass "/files/ with rate= is paced ($elapsed ms)"

# raw-socket checks: HEAD sends no body, pipelining in order, absolute-form,
# chunk sizes, close-delimited EOF, reset and badheader/garbage bytes, hsize=,
# Expect before the body, scripts and _seen, paced bodies never ahead of their
# schedule, concurrency
python3 - "$PORT" "$(scaled 10)" <<'PY' || fail "raw-socket checks failed"
import hashlib, socket, sys, threading, time
port, limit = int(sys.argv[1]), float(sys.argv[2])
ALPHA = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

def pattern(n, start=0):
    return "".join(ALPHA[i % 61] for i in range(start, start + n)).encode()

def connect():
    return socket.create_connection(("127.0.0.1", port), timeout=limit)

class Reader:
    def __init__(self, s):
        self.s, self.buf = s, b""
    def more(self):
        d = self.s.recv(1 << 20)
        if not d:
            raise EOFError
        self.buf += d
    def head(self):
        while b"\r\n\r\n" not in self.buf:
            self.more()
        h, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = h.split(b"\r\n")
        fields = {}
        for line in lines[1:]:
            k, v = line.split(b":", 1)
            fields.setdefault(k.strip().lower().decode(), []).append(v.strip().decode())
        return lines[0].decode(), fields, h + b"\r\n\r\n"
    def take(self, n):
        while len(self.buf) < n:
            self.more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out
    def line(self):
        while b"\r\n" not in self.buf:
            self.more()
        out, self.buf = self.buf.split(b"\r\n", 1)
        return out
    def reply(self, head_request=False):
        status, fields, raw = self.head()
        code = int(status.split()[1])
        if head_request or code in (204, 304):
            return status, fields, b"", []
        if "transfer-encoding" in fields:
            body, sizes = b"", []
            while True:
                size = int(self.line().split(b";")[0], 16)
                if size == 0:
                    while self.line() != b"":
                        pass
                    return status, fields, body, sizes
                sizes.append(size)
                body += self.take(size)
                if self.take(2) != b"\r\n":
                    raise SystemExit("no CRLF after a chunk")
        if "content-length" in fields:
            return status, fields, self.take(int(fields["content-length"][0])), []
        while True:
            try:
                self.more()
            except EOFError:
                body, self.buf = self.buf, b""
                return status, fields, body, []

def check(cond, what):
    if not cond:
        raise SystemExit("FAIL: " + what)

def get(path, extra=b""):
    s = connect()
    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: o\r\n" + extra + b"\r\n")
    r = Reader(s)
    out = r.reply()
    s.close()
    return out

# HEAD: the same headers as GET, no body (the next reply follows at once)
s = connect()
r = Reader(s)
s.sendall(b"HEAD /x?s=5000&cc=max-age%3D1 HTTP/1.1\r\nHost: o\r\n\r\nGET /x?s=7 HTTP/1.1\r\nHost: o\r\n\r\n")
st, f, _, _ = r.reply(head_request=True)
check(f["content-length"] == ["5000"] and f["cache-control"] == ["max-age=1"], "HEAD headers %r" % f)
st, f, body, _ = r.reply()
check(body == pattern(7), "the reply after HEAD: %r" % body)
s.sendall(b"HEAD /x?s=5000&chunked=1 HTTP/1.1\r\nHost: o\r\n\r\nGET /x?s=3 HTTP/1.1\r\nHost: o\r\n\r\n")
st, f, _, _ = r.reply(head_request=True)
check(f.get("transfer-encoding") == ["chunked"], "HEAD chunked: %r" % f)
check(r.reply()[2] == pattern(3), "after a chunked HEAD")
print("ok: HEAD sends the GET headers and no body")

# pipelining in order, absolute-form targets
s.sendall(b"GET /p?s=1 HTTP/1.1\r\nHost: o\r\n\r\n"
          b"GET http://127.0.0.1:%d/p?s=2&t=50ms HTTP/1.1\r\nHost: o\r\n\r\n"
          b"POST /p?s=3 HTTP/1.1\r\nHost: o\r\nContent-Length: 5\r\n\r\nhello"
          b"GET http://example.invalid/p?s=4 HTTP/1.1\r\nHost: o\r\nConnection: close\r\n\r\n" % port)
bodies = [r.reply()[2] for _ in range(4)]
check(bodies == [pattern(n) for n in (1, 2, 3, 4)], "pipelined replies: %r" % bodies)
try:
    r.more()
    check(False, "not closed after Connection: close")
except EOFError:
    pass
print("ok: pipelined requests answered in order, absolute-form targets")

# chunk sizes vary and stay within 64 KB
st, f, body, sizes = get(b"/c?s=1m&chunked=1")
check(body == pattern(1 << 20), "chunked body")
check(len(set(sizes)) > 3 and max(sizes) <= 65536, "chunk sizes %r" % sorted(set(sizes)))
print("ok: %d chunks of %d sizes" % (len(sizes), len(set(sizes))))

# a close-delimited reply ends with EOF
st, f, body, _ = get(b"/c?s=100k&close=1")
check(body == pattern(100 << 10) and f["connection"] == ["close"], "close-delimited body")

# reset: the head, N bytes, then a reset; chunked reset: N payload bytes in chunks, no last chunk
for query, n in ((b"/f?s=100k&fail=reset@1000", 1000), (b"/f?s=100k&fail=reset@0", 0)):
    s = connect()
    s.sendall(b"GET " + query + b" HTTP/1.1\r\nHost: o\r\n\r\n")
    r = Reader(s)
    st, f, raw = r.head()
    check(f["content-length"] == ["102400"], "reset: %r" % f)
    try:
        while True:
            r.more()
    except EOFError:
        check(False, "fail=reset closed without a reset")
    except ConnectionResetError:
        pass
    check(r.buf == pattern(n), "fail=reset@%d sent %d bytes" % (n, len(r.buf)))
print("ok: fail=reset sends N bytes, then a TCP reset")

def raw_reply(path):
    s = connect()
    s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: o\r\n\r\n")
    data = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except ConnectionResetError:
        pass
    return data

data = raw_reply(b"/f?fail=badheader")
check(data.startswith(b"HTTP/1.1 200 OK\r\n") and b"\r\nBad Header Line Without Colon\r\n" in data, "badheader: %r" % data)
check(raw_reply(b"/f?fail=garbage") == b"this is not http\r\n\r\n", "garbage")
check(raw_reply(b"/f?fail=empty") == b"", "empty")
print("ok: badheader, garbage and empty bytes")

# hsize=: the head is exactly N bytes (when N is not tiny)
for n in (500, 4000, 65536, 70000, 200000):
    s = connect()
    s.sendall(b"GET /h?hsize=%d HTTP/1.1\r\nHost: o\r\n\r\n" % n)
    st, f, raw = Reader(s).head()
    check(len(raw) == n, "hsize=%d: head of %d bytes" % (n, len(raw)))
    s.close()
print("ok: hsize= pads the reply head")

# Expect: 100-continue comes before the body is sent
s = connect()
s.sendall(b"PUT /e HTTP/1.1\r\nHost: o\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
r = Reader(s)
check(r.line() == b"HTTP/1.1 100 Continue" and r.line() == b"", "no 100 Continue before the body")
s.sendall(b"abcd")
st, f, body, _ = r.reply()
check(f["x-body-length"] == ["4"] and f["x-body-sha256"] == [hashlib.sha256(b"abcd").hexdigest()], "Expect upload")
# a chunked upload with extensions and trailers, bare-LF lines
s.sendall(b"POST /e HTTP/1.1\r\nHost: o\r\nTransfer-Encoding: chunked\r\n\r\n"
          b"3;ext=1\r\nabc\r\n1\r\nd\r\n0\r\nX-Trailer: t\r\n\r\n"
          b"GET /e?s=2 HTTP/1.1\nHost: o\n\n")
st, f, body, _ = r.reply()
check(f["x-body-length"] == ["4"] and f["x-body-sha256"] == [hashlib.sha256(b"abcd").hexdigest()], "chunked upload")
check(r.reply()[2] == pattern(2), "after a chunked upload")
print("ok: 100 Continue before the body; chunked upload with extensions and trailers")

# scripts and _seen
script = b"status=200&cc=max-age%3D10&s=10\r\nstatus=304&etag=%22v2%22\n\nh=X-Third:3&s=5&chunked=1\n"
s = connect()
r = Reader(s)
s.sendall(b"PUT /_script/one HTTP/1.1\r\nHost: o\r\nContent-Length: %d\r\n\r\n%s" % (len(script), script))
st, f, body, _ = r.reply()
check(st.startswith("HTTP/1.1 201"), "PUT /_script: %s" % st)
heads = [b"GET /s/one HTTP/1.1\r\nHost: o\r\nX-Seq: 1\r\n\r\n",
         b"GET http://127.0.0.1:%d/s/one?s=99 HTTP/1.1\r\nHost: o\r\nIf-None-Match: \"v1\"\r\n\r\n" % port,
         b"HEAD /s/one HTTP/1.1\r\nHost: o\r\nVia: 1.1 test\r\n\r\n",
         b"POST /s/one HTTP/1.1\r\nHost: o\r\nContent-Length: 2\r\n\r\n",
         b"GET /s/one?x=1 HTTP/1.1\r\nhost:   o  \r\n\r\n"]
for i, h in enumerate(heads):
    s.sendall(h + (b"hi" if h.startswith(b"POST") else b""))
    st, f, body, _ = r.reply(head_request=h.startswith(b"HEAD"))
    code = int(st.split()[1])
    if i == 0:
        check(code == 200 and f["cache-control"] == ["max-age=10"] and body == pattern(10), "script line 1")
    elif i == 1:
        check(code == 304 and f["etag"] == ['"v2"'] and "content-length" not in f, "script line 2: %s %r" % (st, f))
    else:
        check(code == 200 and f["x-third"] == ["3"] and f["transfer-encoding"] == ["chunked"], "script line 3")
        check(h.startswith(b"HEAD") or body == pattern(5), "script line 3 body")
s.sendall(b"GET /_seen/one HTTP/1.1\r\nHost: o\r\n\r\n")
st, f, seen, _ = r.reply()
check(seen == b"".join(heads), "_seen differs:\n%r\n%r" % (seen, b"".join(heads)))
def put(id, text):
    s.sendall(b"PUT /_script/%s HTTP/1.1\r\nHost: o\r\nContent-Length: %d\r\n\r\n%s" % (id, len(text), text))
put(b"one", b"status=418\n")
check(r.reply()[0].startswith("HTTP/1.1 201"), "second PUT")
s.sendall(b"GET /_seen/one HTTP/1.1\r\nHost: o\r\n\r\n")
check(r.reply()[2] == b"", "a new script did not clear _seen")
s.sendall(b"GET /s/one HTTP/1.1\r\nHost: o\r\n\r\n")
check(r.reply()[0] == "HTTP/1.1 418 Unknown", "the new script is not used")
put(b"two", b"status=200\ns=banana")
check(r.reply()[0].startswith("HTTP/1.1 400"), "a bad script line was accepted")
s.sendall(b"GET /s/unscripted?s=6&status=203 HTTP/1.1\r\nHost: o\r\n\r\n")
st, f, body, _ = r.reply()
check(st.startswith("HTTP/1.1 203") and body == pattern(6), "/s/ID without a script uses the query")
print("ok: scripts, _seen, a new PUT replaces the script and clears _seen")

# rate=: the head comes before the body (whose schedule starts after it); at
# every moment the bytes received (chunk framing included) are at most
# rate * (time since the request) + one step; the body is whole and the chunk
# sizes are those of the same reply unpaced
RATE, STEP = 80 * 1024, 4 * 1024
for query, size in ((b"s=40k", 40 * 1024), (b"s=70k&chunked=1", 70 * 1024)):
    chunked = b"chunked" in query
    s = connect()
    start = time.time()
    s.sendall(b"GET /paced?%s&rate=80k HTTP/1.1\r\nHost: o\r\n\r\n" % query)
    r = Reader(s)
    st, f, raw = r.head()
    head_time = time.time() - start
    received, arrivals = len(r.buf), 0
    while not (r.buf.endswith(b"0\r\n\r\n") if chunked else received >= size):
        d = s.recv(1 << 20)
        check(d, "rate=: the connection ended after %d bytes" % received)
        r.buf += d
        received += len(d)
        arrivals += 1
        elapsed = time.time() - start
        check(received <= RATE * elapsed + STEP, "rate=: %d bytes after %.3f s" % (received, elapsed))
    s.close()
    check(elapsed >= (size - STEP) / RATE * 0.98, "rate=: %d bytes in %.3f s" % (size, elapsed))
    check(head_time < elapsed - 0.2, "rate=: the head came after %.3f of %.3f s" % (head_time, elapsed))
    check(arrivals >= 5, "rate=: the body came in %d pieces" % arrivals)
    if chunked:
        r2 = Reader(None)
        r2.buf = raw + r.buf
        st, f, body, sizes = r2.reply()
        _, _, _, unpaced = get(b"/paced?s=70k&chunked=1")
        check(body == pattern(size) and sizes == unpaced, "rate= with chunked=1: %r vs %r" % (sizes, unpaced))
    else:
        check(r.buf == pattern(size), "rate=: body differs")
print("ok: rate= never runs ahead of its schedule")

# a few hundred concurrent connections, each answered after a delay
N = 300
results = [None] * N
def client(i):
    try:
        st, f, body, _ = get(b"/many?s=%d&t=200ms" % (1000 + i))
        results[i] = body == pattern(1000 + i)
    except Exception as e:
        results[i] = repr(e)
start = time.time()
threads = [threading.Thread(target=client, args=(i,)) for i in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
bad = [r for r in results if r is not True]
check(not bad, "%d of %d concurrent clients failed: %r" % (len(bad), N, bad[:3]))
print("ok: %d concurrent connections in %.2f s" % (N, time.time() - start))
PY
pass "raw-socket checks"

# IPv6, when the loopback has it
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
    start_origin origin6 --listen '[::1]:0'
    grep -Eq '^listening on \[::1\]:[1-9][0-9]*$' "$T/origin6.out" || fail "IPv6: bad first line: $(cat "$T/origin6.out")"
    body=$(curl -s -g --max-time "$MAX" "http://[::1]:$PORT/v6?s=5")
    [ "$body" = 01234 ] || fail "IPv6: got '$body'"
    stop_origin "$ORIGIN_PID"
    pass "IPv6: $ADDR"
else
    echo "skipped: no IPv6 on the loopback"
fi

# SIGTERM ends it with status 0 while a reply stalls, another waits and a
# third is paced
PORT=$MAIN_PORT
curl -s -o /dev/null --max-time "$MAX" "http://127.0.0.1:$PORT/f?s=1m&fail=stall@10" &
c1=$!
curl -s -o /dev/null --max-time "$MAX" "http://127.0.0.1:$PORT/f?t=60s" &
c2=$!
curl -s -o /dev/null --max-time "$MAX" "http://127.0.0.1:$PORT/f?s=10m&rate=1k" &
c3=$!
sleep 0.5
start=$(date +%s)
stop_origin "$MAIN_PID"
[ $(($(date +%s) - start)) -le $(scaled 5) ] || fail "SIGTERM took too long"
wait "$c1" "$c2" "$c3"
[ -s "$T/stderr" ] && fail "the origin wrote to stderr: $(head -n 5 "$T/stderr")"
pass "SIGTERM stops it (status 0) with a stalled, a waiting and a paced reply"
