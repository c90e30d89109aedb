#!/bin/sh
# access_log modules and acls: daemon (a writer thread), tcp and udp
# receivers, several logs each taking the requests its acls match, `none ACL`
# ending the list for what it matches, and on-error=die stopping cuttle.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
logs_setup
receiver_start tcp "$T/tcp.out"
TCP=$RECEIVER_PORT
receiver_start udp "$T/udp.out"
UDP=$RECEIVER_PORT
fwd_conf "http_access allow localhost" \
    "acl posts method POST" "acl quiet urlpath_regex ^/quiet" "acl missing http_status 404" \
    "access_log daemon:$T/daemon.log common" \
    "access_log tcp://127.0.0.1:$TCP squid" \
    "access_log udp://127.0.0.1:$UDP logformat=referrer" \
    "access_log stdio:$T/posts.log squid posts" \
    "access_log stdio:$T/404.log logformat=squid buffer-size=1KB missing" \
    "access_log none quiet" \
    "access_log stdio:$T/after.log squid"
cuttle_start

proxy_get "$OURL/get1" > /dev/null
proxy_get "$OURL/post1" -d 'x=1' > /dev/null
proxy_get "$OURL/gone?status=404" > /dev/null
proxy_get "$OURL/quiet/1" > /dev/null
proxy_get "$OURL/get2" > /dev/null
wait_until 5 has_lines "$T/after.log" 4 || fail "after.log: $(lines "$T/after.log") lines"
wait_until 5 has_lines "$T/daemon.log" 5 || fail "daemon.log: $(lines "$T/daemon.log") lines"
grep -Eq '^127.0.0.1 - - \[.*\] "POST http://127.0.0.1:[0-9]+/post1 HTTP/1.1" 200 ' "$T/daemon.log" ||
    fail "the daemon log's common line: $(cat "$T/daemon.log")"
pass "daemon: the writer thread wrote all 5 lines in the common format"
wait_until 5 has_lines "$T/tcp.out" 5 || fail "tcp receiver: $(lines "$T/tcp.out") lines"
grep -Eq ' TCP_MISS/404 [0-9]+ GET http://127.0.0.1:[0-9]+/gone\? ' "$T/tcp.out" || fail "tcp: $(cat "$T/tcp.out")"
wait_until 5 has_lines "$T/udp.out" 5 || fail "udp receiver: $(lines "$T/udp.out") lines"
grep -Eq '^[0-9.]+ 127.0.0.1 - http://127.0.0.1:[0-9]+/get2$' "$T/udp.out" || fail "udp: $(cat "$T/udp.out")"
pass "tcp and udp receivers got every line"

[ "$(lines "$T/posts.log")" = 1 ] && grep -q ' POST .*/post1 ' "$T/posts.log" ||
    fail "posts.log should hold the POST alone: $(cat "$T/posts.log")"
[ "$(lines "$T/404.log")" = 1 ] && grep -q '/404 ' "$T/404.log" ||
    fail "404.log should hold the 404 alone: $(cat "$T/404.log")"
pass "a method acl and an http_status acl choose the lines of their logs"
grep -q '/quiet/' "$T/after.log" && fail "'access_log none quiet' did not stop the quiet request: $(cat "$T/after.log")"
grep -q '/quiet/' "$T/daemon.log" || fail "the logs before 'none quiet' lost the quiet request"
pass "'access_log none ACL' ends the list for the requests it matches, the logs before it get them"
cuttle_stop

# on-error=die: a log that cannot be written stops cuttle, as in Squid
CLOSED=$(closed_port)
fwd_conf "http_access allow localhost" "access_log tcp://127.0.0.1:$CLOSED on-error=die"
cuttle_start
proxy_get "$OURL/dies" > /dev/null
wait_until 10 is_stopped "$CUTTLE_PID" || fail "cuttle still runs with a dead on-error=die log"
CUTTLE_PID=""
grep -q "FATAL: access.log: cannot connect to tcp://127.0.0.1:$CLOSED" "$T/cache.log" || fail "no FATAL line in cache.log"
pass "on-error=die: cuttle stops, saying why"
