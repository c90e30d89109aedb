#!/bin/sh
# Bounded robustness test: ~2000 randomly mutated request heads (seeded, so
# every run sends the same bytes: byte flips, truncations, huge headers, NULs,
# pipelined garbage) go to a running cuttle over loopback. cuttle must never
# crash, must answer each with a valid HTTP/1.1 status line or just close,
# and must still serve a good request afterwards (and exit cleanly, which
# under the sanitizers also means no error or leak report).
#
# Each head is followed by a half-close (SHUT_WR), so an unfinished head ends
# at once instead of after request_timeout. FUZZ_SEED and FUZZ_CASES change
# the run; an input that fails is written to $T/failed-N.http: add it to
# src/http/tests/corpus/ (whose files are seeds here too) once it is fixed.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "http_access deny all" "request_timeout 5 seconds"
cuttle_start

python3 - "$PORT" "$CUTTLE_PID" "$(scaled 2)" "$(scaled 120)" "${FUZZ_SEED:-9112}" "${FUZZ_CASES:-2000}" \
    "$top_srcdir/src/http/tests/corpus" "$T" <<'PY' || fail "fuzzing found a problem"
import os, random, re, socket, sys, time

port, pid, wait, budget = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
seed, count, corpus, tmp = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8]
rng = random.Random(seed)

seeds = [
    b"GET ftp://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\nUser-Agent: fuzz\r\nAccept: */*\r\n\r\n",
    b"GET http://[::1]:8080/a/b?c=d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    b"CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n",
    b"POST ftp://127.0.0.1:9/form HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
    b"HEAD http://user:pw@127.0.0.1/ HTTP/1.1\r\nReferer: http://x/\r\n\r\n",
    b"GET http://127.0.0.1:81/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
]
if os.path.isdir(corpus):
    for name in sorted(os.listdir(corpus)):
        with open(os.path.join(corpus, name), "rb") as f:
            seeds.append(f.read())

SPECIAL = b"\x00\r\n \t:/@[]%?#\x7f\xff"

def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        if op == 0 and data:  # byte flips
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif op == 1 and data:  # truncation
            del data[rng.randrange(len(data)):]
        elif op == 2:  # special bytes, NULs among them
            for _ in range(rng.randint(1, 4)):
                data.insert(rng.randint(0, len(data)), rng.choice(SPECIAL))
        elif op == 3:  # a huge header value, near or over request_header_max_size
            at = data.find(b"\r\n") + 2 if b"\r\n" in data else len(data)
            data[at:at] = b"X-Big: " + b"a" * rng.choice([100, 8000, 60000, 70000]) + b"\r\n"
        elif op == 4:  # many header lines
            at = data.find(b"\r\n") + 2 if b"\r\n" in data else len(data)
            data[at:at] = b"X: y\r\n" * rng.choice([100, 1000, 12000])
        elif op == 5:  # pipelined garbage or a second request
            data += rng.choice(seeds) if rng.random() < 0.5 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        elif op == 6 and data:  # a duplicated slice
            a = rng.randrange(len(data))
            b = min(len(data), a + rng.randint(1, 200))
            data[b:b] = data[a:b]
        elif op == 7:  # a long URL
            at = data.find(b" ") + 1
            data[at:at] = b"ftp://127.0.0.1:9/" + b"u" * rng.choice([100, 8200, 70000])
        elif op == 8 and data:  # a CRLF removed or turned into a bare CR or LF
            at = data.find(b"\r\n", rng.randrange(len(data)))
            if at >= 0:
                data[at:at + 2] = rng.choice([b"", b"\r", b"\n", b"\n\r", b"\r\r\n"])
        else:  # random bytes
            data = bytearray(rng.randrange(256) for _ in range(rng.randint(1, 300)))
    return bytes(data)

STATUS = re.compile(rb"^HTTP/1\.1 [1-5][0-9][0-9] [^\r\n]*\r\n")

def exchange(data):
    """sends data, half-closes, returns (reply, how it ended)"""
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    try:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # cuttle answered early and closed: the reply is still readable
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return out, "reset"
            except socket.timeout:
                return out, "timeout"
            if not chunk:
                return out, "eof"
            out += chunk
    finally:
        s.close()

def alive():
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False

failures = 0
deadline = time.monotonic() + budget
statuses = {}
sent = 0
for i in range(count):
    if time.monotonic() > deadline:
        print("FAIL: the time budget ran out after %d cases" % i)
        failures += 1
        break
    data = mutate(rng.choice(seeds))
    sent += 1
    reply, end = exchange(data)
    problem = None
    if not alive():
        problem = "cuttle died"
    elif reply and not STATUS.match(reply):
        problem = "not a status line: %r" % reply[:80]
    elif end == "timeout":
        problem = "no answer and no close within %.0f s" % wait
    if reply:
        code = reply[9:12].decode("latin1")
        statuses[code] = statuses.get(code, 0) + 1
    if problem:
        failures += 1
        path = os.path.join(tmp, "failed-%d.http" % i)
        with open(path, "wb") as f:
            f.write(data)
        print("FAIL: case %d (%s): %s; input %r..." % (i, path, problem, data[:120]))
        if not alive() or failures > 5:
            break

if alive():
    reply, end = exchange(b"GET ftp://127.0.0.1:9/after HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
    if not reply.startswith(b"HTTP/1.1 501 "):
        print("FAIL: a good request after the fuzzing got %r" % reply[:80])
        failures += 1
print("sent %d mutated heads; replies by status: %s" % (sent, dict(sorted(statuses.items()))))
sys.exit(1 if failures else 0)
PY
pass "cuttle survived the mutated heads and serves a good request"
cuttle_stop
pass "clean exit"
