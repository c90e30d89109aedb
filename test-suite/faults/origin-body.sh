#!/bin/sh
# Origin faults in the reply body leave nothing behind, and a body that does
# not keep to its Content-Length is never passed on as more than it says:
# - a reset and a stall (read_timeout) mid-body: forwarding/origin-errors.sh
#   checks the client's early end and the TCP_MISS/200 line; here
#   descriptors and blocks_in_use come back to their baseline after each;
# - more bytes than Content-Length (a second, unrequested reply in the same
#   write): the client gets exactly the announced body, the extra reply is
#   never forwarded as the answer to the next request (from the same or from
#   another client), and the origin connection is not reused;
# - fewer bytes, then the close: the client's transfer ends early (its
#   connection closes, so it can tell), logged TCP_MISS/200 with the bytes it got.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/faults/helpers.sh"
cuttle_setup
origin_start
liar_start
faults_conf "read_timeout 1 second"
cuttle_start
LIAR="http://127.0.0.1:$LIARPORT"

# a pooled connection to each origin counts in the baseline (with workers,
# one in each worker's pool)
code=$(proxy_get "$OURL/x?s=1000&first=1")
[ "$code" = 200 ] || fail "first request: status $code"
if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    pool_in_every_worker "$OURL/x?s=1000&first=1" X-Origin-Conn
    pool_in_every_worker "$LIAR/ok?first=1" X-Conn
fi
faults_baseline "$LIAR/ok?first=1"

# a reset after 1 MB of 10 MB, and a stall after 1 MB (read_timeout 1 second)
for fault in reset stall; do
    mark
    curl -s -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -w '%{http_code}' \
        "$OURL/$fault?s=10m&cc=no-store&fail=$fault@1000000" > "$T/code" 2> /dev/null
    rc=$?
    got=$(wc -c < "$T/body")
    [ "$(cat "$T/code")" = 200 ] || bad "$fault mid-body: status $(cat "$T/code")"
    [ "$rc" != 0 ] && [ "$rc" != 28 ] || bad "$fault mid-body: curl exit $rc (0: whole, 28: its own timeout)"
    [ "$got" -ge 1000000 ] && [ "$got" -lt 10485760 ] || bad "$fault mid-body: $got bytes"
    wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET $OURL/$fault\? " || bad "$fault mid-body: not logged"
    baseline_check "$fault mid-body"
    pass_if_ok "$fault mid-body: ended after $got bytes (curl exit $rc), back to the baseline"
done

# more bytes than Content-Length, then the next request from the same client
# (one curl, one kept-alive client connection) and from a new client
mark
curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -D "$T/head1" -o "$T/body1" "$LIAR/more" --next \
    -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -D "$T/head2" -o "$T/body2" "$LIAR/ok?after=more" \
    2> /dev/null || bad "more: curl exit $?"
conn_of() { tr -d '\r' < "$1" | sed -n 's/^X-Conn: //p'; }
[ "$(cat "$T/body1")" = hello ] || bad "more: the client got '$(head -c 100 "$T/body1")', not the 5 announced bytes"
[ "$(cat "$T/body2")" = ok ] || bad "more: the next request got '$(head -c 100 "$T/body2")'"
grep -qi '^X-Smuggled' "$T/head2" && bad "more: the extra bytes were forwarded as the next reply"
[ -n "$(conn_of "$T/head2")" ] && [ "$(conn_of "$T/head2")" != "$(conn_of "$T/head1")" ] ||
    bad "more: the origin connection $(conn_of "$T/head1") was reused ($(conn_of "$T/head2") next)"
code=$(proxy_get "$LIAR/ok?after=more2" -D "$T/head3")
[ "$code" = 200 ] && [ "$(cat "$T/body")" = ok ] && ! grep -qi '^X-Smuggled' "$T/head3" ||
    bad "more: a new client got $code '$(head -c 100 "$T/body")'"
wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET $LIAR/more - HIER_DIRECT/127\.0\.0\.1 text/plain\$" ||
    bad "more: no TCP_MISS/200 line: $(log_line "$LIAR/more")"
baseline_check "more bytes than Content-Length"
pass_if_ok "more bytes than Content-Length: 5 bytes forwarded, the rest dropped with the origin connection"

# fewer bytes than Content-Length, then the close
mark
curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -o "$T/body" -w '%{http_code}' "$LIAR/fewer" > "$T/code" 2> /dev/null
rc=$?
got=$(wc -c < "$T/body")
[ "$(cat "$T/code")" = 200 ] || bad "fewer: status $(cat "$T/code")"
[ "$rc" = 18 ] || bad "fewer: curl exit $rc, expected 18 (a partial transfer)"
[ "$got" = 1000 ] || bad "fewer: $got bytes, expected the 1000 sent"
if wait_until 5 access_log_has " GET $LIAR/fewer "; then
    line=$(log_line " GET $LIAR/fewer ")
    check_native_line "$line"
    echo "$line" | grep -Eq " TCP_MISS/200 [0-9]+ GET $LIAR/fewer - HIER_DIRECT/127\.0\.0\.1 text/plain\$" ||
        bad "fewer: expected TCP_MISS/200, logged '$line'"
    sent=$(echo "$line" | awk '{print $5}')
    [ "$sent" -gt 1000 ] && [ "$sent" -lt 2000 ] || bad "fewer: $sent bytes logged (head and 1000 body bytes expected)"
else
    bad "fewer: not logged"
fi
baseline_check "fewer bytes than Content-Length"
pass_if_ok "fewer bytes than Content-Length: the client's transfer ended after $got bytes (curl exit $rc)"

faults_finish "$OURL/x?s=100k&after=faults"
