#!/bin/sh
# client_ip_max_connections: a client address may keep that many connections
# open; one more is closed as soon as it is accepted, unanswered, with one
# warning in cache.log; once one of them closes, a new one is served.
# -1 (the default) is no limit.
# With workers (CUTTLE_TEST_WORKERS=N) each worker counts its own
# connections (as each Squid kid does), and the kernel picks the worker: the
# first two connections are served, then more until 2N are (every worker at
# its limit: the others, whichever worker took them, are closed unanswered),
# then 2N more are all closed unanswered; once one closes, a new one is
# served (when it reaches that worker).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start "client_ip_max_connections 2"

mark
python3 - "$PORT" "$O" "$CUTTLE_TEST_WORKERS" > "$T/conns.out" 2>&1 <<'PY' || bad "connection checks: $(cat "$T/conns.out")"
import socket, sys, time
port, origin, workers = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
request = ("GET http://%s/s/c HTTP/1.1\r\nHost: %s\r\n\r\n" % (origin, origin)).encode()

def served(s):
    """whether a request on s gets a status line (the connection stays open)"""
    try:
        s.sendall(request)
        return s.recv(12).startswith(b"HTTP/1.1 ")
    except OSError:
        return False

def fresh():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s

def unanswered(s):
    try:
        s.sendall(request)
        return s.recv(100)
    except OSError:
        return b""

kept = [fresh(), fresh()]
for i, s in enumerate(kept):
    assert served(s), "connection %d of 2 was not served" % (i + 1)
if workers == 1:
    extra = fresh()
    got = unanswered(extra)
    assert got == b"", "a third connection was answered: %r" % got[:40]
else:
    tries = 0
    while len(kept) < 2 * workers:
        tries += 1
        assert tries <= 64, "64 more connections did not reach 2 served in each of %d workers: %d served" % (
            workers, len(kept))
        s = fresh()
        if served(s):
            kept.append(s)
        else:
            s.close()
    for i in range(2 * workers):
        extra = fresh()
        got = unanswered(extra)
        assert got == b"", "every worker serves 2, yet connection %d of %d more was answered: %r" % (
            i + 1, 2 * workers, got[:40])
        extra.close()
kept[0].close()
deadline = time.monotonic() + 5
while True:  # the proxy learns of the close when it reads it
    again = fresh()
    if served(again):
        break
    again.close()
    assert time.monotonic() < deadline, "no connection was served after one of two closed"
    time.sleep(0.1)
print("ok")
PY
wait_until 5 grep -Eq "WARNING: 127.0.0.1:[0-9]+ attempting more than 2 connections" "$T/cache.log" ||
    bad "no warning in cache.log"
pass_if_ok "two connections served, a third closed unanswered, then one more once one closed"
cache_stop

mark
printf '%s\n' "client_ip_max_connections many" "client_ip_max_connections -2" > "$T/bad.conf"
"$CUTTLE" -k parse -f "$T/bad.conf" > "$T/bad.out" 2>&1 && bad "bad client_ip_max_connections values were accepted"
grep -q "bad.conf:1: bad client_ip_max_connections value 'many'" "$T/bad.out" || bad "no error for 'many': $(cat "$T/bad.out")"
grep -q "bad.conf:2: bad client_ip_max_connections value '-2'" "$T/bad.out" || bad "no error for '-2': $(cat "$T/bad.out")"
printf '%s\n' "client_ip_max_connections -1" "client_ip_max_connections 0" > "$T/good.conf"
"$CUTTLE" -k parse -f "$T/good.conf" > "$T/good.out" 2>&1 || bad "-1 and 0 were refused: $(cat "$T/good.out")"
pass_if_ok "-k parse: a count or -1"
checks_done
