#!/bin/sh
# Without -N cuttle detaches (the command returns once it serves) and
# -k shutdown stops it. Relative paths are opened relative to the start-up
# directory, and missing parent directories are created.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cd "$T" || fail "cd"
cat > squid.conf <<CONF
http_port 127.0.0.1:0
access_log stdio:var/log/access.log
cache_log var/log/cache.log
pid_filename var/run/cuttle.pid
error_directory $CUTTLE_ERRORS
http_access allow localhost
$(cuttle_workers_line)
CONF
timeout "$(scaled 10)" "$CUTTLE" -f squid.conf > "$T/stderr" 2>&1
rc=$?
[ $rc = 0 ] || fail "start without -N: exit $rc"
[ -f var/run/cuttle.pid ] || fail "no pid file under the start-up directory"
pid=$(cat var/run/cuttle.pid)
CUTTLE_PID=$pid # so that a failure below still stops the daemon
is_running "$pid" || fail "daemon $pid not running"
# the session id is field 6 of /proc/PID/stat (after "(comm)", which has no spaces here)
sid=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f4)
[ "$sid" = "$pid" ] || fail "daemon is not a session leader (no setsid): session $sid"
pass "detached, pid $pid"

port=$(grep -o 'local=[^ ]*' var/log/cache.log | tail -n 1 | sed 's/.*://')
[ -n "$port" ] || fail "no port in var/log/cache.log"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -x "127.0.0.1:$port" ftp://127.0.0.1:9/)
[ "$code" = 501 ] || fail "daemon answered $code"
pass "daemon serves"

"$CUTTLE" -k shutdown -f squid.conf || fail "-k shutdown failed"
wait_until 10 is_stopped "$pid" || fail "daemon did not stop"
CUTTLE_PID=""
[ -f var/run/cuttle.pid ] && fail "pid file left behind"
grep -q 'GET ftp://127.0.0.1:9/ ' var/log/access.log || fail "access.log under the start-up directory lacks the request"
pass "-k shutdown stopped the daemon"
