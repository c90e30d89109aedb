#!/bin/sh
# cache_log none: cuttle opens no cache.log and its messages go to stderr
# (Squid 5.7 would create a file named "none" in its working directory).
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "cache_log none"

stderr_port() {
    grep -o 'Accepting HTTP Socket connections at [^ ]* local=[^ ]*' "$T/stderr" 2>/dev/null |
        tail -n 1 | sed -e 's/.*local=//' -e 's/.*://'
}
stderr_has_port() { [ -n "$(stderr_port)" ]; }

(cd "$T" && exec "$CUTTLE" -N -f "$T/squid.conf" > "$T/stdout" 2> "$T/stderr") &
CUTTLE_PID=$!
wait_until 10 stderr_has_port || fail "cuttle did not report a listening port on stderr: $(cat "$T/stderr")"
PORT=$(stderr_port)
[ "$(proxy_get ftp://127.0.0.1:9/none)" = 501 ] || fail "no 501 through cuttle"
cuttle_stop
grep -q 'Starting cuttle' "$T/stderr" || fail "the start-up messages are not on stderr"
grep -q 'Exiting normally' "$T/stderr" || fail "the shutdown messages are not on stderr"
[ -e "$T/none" ] && fail "cuttle created a file named 'none'"
[ -e "$T/cache.log" ] && fail "cuttle created cache.log"
pass "cache_log none keeps no cache.log and logs to stderr"
