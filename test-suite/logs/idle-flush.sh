#!/bin/sh
# A proxy that goes idle right after a request still finishes its logs: a
# line held by buffered_logs is written within a second or two. (That it
# notices a log writer thread's failure while idle is modules.sh's
# on-error=die check: nothing follows its one request.)
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
