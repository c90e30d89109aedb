#!/bin/sh
# Signals through -k: shutdown (pid file removed), reconfigure (a broken file
# keeps the old configuration; a good one applies), rotate (access.log
# reopened after a rename); a bind failure is fatal; a second copy refuses to start.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
# logfile_rotate 0: -k rotate only reopens, for logrotate (Debian sets this)
cuttle_conf "acl p81 port 81" "http_access deny p81" "http_access allow localhost" "logfile_rotate 0"
cuttle_start
[ -f "$T/cuttle.pid" ] || fail "no pid file"
[ "$(cat "$T/cuttle.pid")" = "$CUTTLE_PID" ] || fail "pid file does not hold $CUTTLE_PID"
pass "pid file written"

"$CUTTLE" -k check -f "$T/squid.conf" || fail "-k check with a running copy failed"
pass "-k check"

# a second copy refuses to start while the first one holds the pid file
"$CUTTLE" -N -f "$T/squid.conf" > "$T/second" 2>&1
rc=$?
[ $rc = 1 ] || fail "second copy: exit $rc, wanted 1"
grep -q 'already running' "$T/second" || fail "second copy: $(cat "$T/second")"
pass "second copy refused"

# rotate: rename access.log away, -k rotate, the next line goes to a new file
[ "$(proxy_get ftp://127.0.0.1:9/before)" = 501 ] || fail "no 501 before rotate"
wait_until 5 access_log_has '/before ' || fail "first line not logged"
mv "$T/access.log" "$T/access.log.0"
"$CUTTLE" -k rotate -f "$T/squid.conf" || fail "-k rotate failed"
wait_until 5 test -f "$T/access.log" || fail "access.log not reopened by -k rotate"
[ "$(proxy_get ftp://127.0.0.1:9/after)" = 501 ] || fail "no 501 after rotate"
wait_until 5 access_log_has '/after ' || fail "line after rotate not in the new access.log"
grep -q '/after ' "$T/access.log.0" && fail "line after rotate went to the renamed file"
pass "-k rotate"

# reconfigure with a broken file: still running, old rules still apply
cp "$T/squid.conf" "$T/good.conf"
echo "http_acess deny all" >> "$T/squid.conf"
# -k reconfigure checks the file first, as Squid does, and signals nothing
"$CUTTLE" -k reconfigure -f "$T/squid.conf" > "$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "-k reconfigure with a broken file: exit $rc, wanted 1"
grep -q 'squid.conf:[0-9]*: ' "$T/out" || fail "-k reconfigure did not say what is wrong: $(cat "$T/out")"
# the daemon itself, given SIGHUP, rejects the file and keeps going
kill -HUP "$CUTTLE_PID"
has_kept() { grep -q 'keeping the old configuration' "$T/cache.log"; }
wait_until 5 has_kept || fail "broken reconfigure not reported"
is_running "$CUTTLE_PID" || fail "died on a broken reconfigure"
[ "$(proxy_get ftp://127.0.0.1:9/x)" = 501 ] || fail "old configuration lost"
pass "broken reconfigure keeps the old configuration"

# reconfigure with a good file that denies everything
cp "$T/good.conf" "$T/squid.conf"
sed -i 's/^http_access allow localhost$/http_access deny all/' "$T/squid.conf"
"$CUTTLE" -k reconfigure -f "$T/squid.conf" || fail "-k reconfigure failed"
is_denied() { [ "$(proxy_get ftp://127.0.0.1:9/y)" = 403 ]; }
wait_until 5 is_denied || fail "good reconfigure not applied"
[ "$(cuttle_port_from_log)" = "$PORT" ] || fail "port changed although http_port did not"
pass "good reconfigure applied, port kept"

# shutdown through the pid file
"$CUTTLE" -k shutdown -f "$T/squid.conf" || fail "-k shutdown failed"
wait_until 10 is_stopped "$CUTTLE_PID" || fail "did not stop after -k shutdown"
wait "$CUTTLE_PID"
rc=$?
[ $rc = 0 ] || fail "exit code $rc after shutdown"
CUTTLE_PID=""
[ -f "$T/cuttle.pid" ] && fail "pid file left behind"
pass "-k shutdown removes the pid file"

# a port that cannot be bound is fatal with a clear message
python3 -c 'import socket,time,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' > "$T/busy" &
holder=$!
wait_until 5 test -s "$T/busy" || fail "port holder did not start"
busy=$(cat "$T/busy")
sed -i "s/^http_port .*/http_port 127.0.0.1:$busy/" "$T/squid.conf"
"$CUTTLE" -N -f "$T/squid.conf" > "$T/out" 2>&1
rc=$?
kill "$holder" 2>/dev/null
[ $rc = 1 ] || fail "bind failure: exit $rc, wanted 1"
grep -q "127.0.0.1:$busy" "$T/out" "$T/cache.log" || fail "bind failure message does not name the port: $(cat "$T/out")"
[ -f "$T/cuttle.pid" ] && fail "pid file written although start-up failed"
pass "bind failure is fatal"
