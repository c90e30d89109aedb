#!/bin/sh
# System calls per small uncached request on a keep-alive connection, counted
# with strace over 200 sequential 4 KB no-store misses on one client and one
# pooled origin connection: the reply's head and the body that came with it
# go to the client in one writev (Store::Entry::NotificationHold), and no
# read is made that the socket's events say would find nothing (after a
# reply, and after sending a request on a pooled origin connection) -- the
# recv calls that fail with EAGAIN. Bounds, not timings: the counts do not
# depend on the machine's speed.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
command -v strace > /dev/null 2>&1 || {
    echo "SKIP: no strace"
    exit 77
}
cuttle_setup
origin_start
# access.log lines once a second: its writes do not count here
proxy_conf "buffered_logs on"
cuttle_start

N=200
url="$OURL/m?s=4k&cc=no-store"
: > "$T/urls"
i=0
while [ $i -lt $N ]; do
    printf 'url = "%s"\noutput = /dev/null\n' "$url" >> "$T/urls"
    i=$((i + 1))
done
# one request first: the origin connection is then pooled
curl -sS --max-time "$(scaled 10)" -o /dev/null -x "127.0.0.1:$PORT" "$url" || fail "the first request failed"

strace -f -c -o "$T/strace" -p "$CUTTLE_PID" 2> "$T/strace.err" &
tracer=$!
wait_until 10 grep -q attached "$T/strace.err" || fail "strace did not attach: $(cat "$T/strace.err")"
curl -sS --max-time "$(scaled 60)" -x "127.0.0.1:$PORT" -K "$T/urls" -w '%{http_code}\n' > "$T/codes" ||
    fail "curl failed"
kill -INT "$tracer"
wait "$tracer"
[ "$(grep -c '^200$' "$T/codes")" = $N ] || fail "not $N replies with status 200: $(sort "$T/codes" | uniq -c)"
cat "$T/strace"

# calls NAME / errors NAME: from strace's table (the errors column may be empty)
calls() { awk -v n="$1" '$NF == n { c = $4 } END { print c + 0 }' "$T/strace"; }
errors() { awk -v n="$1" '$NF == n && NF == 6 { e = $5 } END { print e + 0 }' "$T/strace"; }
writes=$(( $(calls writev) + $(calls write) + $(calls sendmsg) + $(calls sendto) ))
eagain=$(( $(errors recvfrom) + $(errors read) ))
# two writes a request: the request to the origin, the reply to the client
[ "$writes" -le $((N * 2 + 5)) ] || problem "$writes writes for $N requests: more than 2 each"
# reads that found nothing: only a stray one now and then
[ "$eagain" -le $((N / 10)) ] || problem "$eagain reads that found nothing (EAGAIN) for $N requests"
problems_check
pass "$N keep-alive misses: $writes writes, $eagain reads that found nothing"
