#!/bin/sh
# A proxy that goes idle right after a request still finishes its logs:
# a line held by buffered_logs is written within a second or two, and the
# failure of a log writer thread (a tcp log whose receiver is gone, with
# on-error=die) is noticed without waiting for the next request.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
logs_setup
fwd_conf "http_access allow localhost" "buffered_logs on" "access_log stdio:$T/buffered.log squid"
cuttle_start
# two requests in the same second: the second's line waits in the buffer
proxy_get "$OURL/first" > /dev/null
proxy_get "$OURL/second" > /dev/null
wait_until 5 grep -q "/second " "$T/buffered.log" ||
    fail "an idle proxy kept the buffered line: $(cat "$T/buffered.log")"
pass "a line buffered by buffered_logs is written while the proxy is idle"
cuttle_stop

CLOSED=$(closed_port)
fwd_conf "http_access allow localhost" "access_log tcp://127.0.0.1:$CLOSED on-error=die"
cuttle_start
proxy_get "$OURL/dies" > /dev/null
wait_until 10 is_stopped "$CUTTLE_PID" || fail "cuttle still runs with a dead on-error=die log"
CUTTLE_PID=""
grep -q "FATAL: access.log: cannot connect to tcp://127.0.0.1:$CLOSED" "$T/cache.log" || fail "no FATAL line in cache.log"
pass "an idle proxy notices its log writer's failure (on-error=die)"
