#!/bin/sh
# client_persistent_connections and server_persistent_connections, as in
# Squid 5.7: off, a client gets `Connection: close` and no answer to a
# pipelined second request (its connection closes after the first reply);
# off, each request goes to the origin with `Connection: close` on a
# connection of its own (the origin numbers them: X-Origin-Conn). On, both
# stay open.
# With workers (CUTTLE_TEST_WORKERS=N) the idle origin connections are each
# worker's: "on" sends its two requests from one curl run on one client
# connection (one worker); "off" makes N+1 separate curl runs, so that two
# of them at least meet in one worker, and each gets an origin connection
# of its own.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
two_requests() { # the replies to two pipelined requests on one connection
    raw_send "GET http://127.0.0.1:$OPORT/ok?n=1 HTTP/1.1\r\nHost: 127.0.0.1:$OPORT\r\n\r\nGET http://127.0.0.1:$OPORT/ok?n=2 HTTP/1.1\r\nHost: 127.0.0.1:$OPORT\r\n\r\n" |
        tr -d '\r'
}
origin_conns() { # the X-Origin-Conn of two requests in a row (separate curl runs: RUNS of them)
    for n in $(seq "${RUNS:-2}"); do
        curl -s -D - -o /dev/null --max-time 10 -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/ok?c=$n" |
            tr -d '\r' | sed -n 's/^X-Origin-Conn: //p'
    done | tr '\n' ' '
}
one_run_conns() { # the X-Origin-Conn of two requests from one curl run (one client connection)
    curl -s -D - -o /dev/null -o /dev/null --max-time 10 -x "127.0.0.1:$PORT" \
        -w '%{num_connects}\n' "http://127.0.0.1:$OPORT/ok?c=1" "http://127.0.0.1:$OPORT/ok?c=2" > "$T/one-run"
    [ "$(tail -n 1 "$T/one-run")" = 0 ] || fail "curl opened a second client connection: $(cat "$T/one-run")"
    tr -d '\r' < "$T/one-run" | sed -n 's/^X-Origin-Conn: //p' | tr '\n' ' '
}

fwd_conf "http_access allow localhost" "http_access deny all" "client_persistent_connections off" \
    "server_persistent_connections off"
cuttle_start
replies=$(two_requests)
[ "$(echo "$replies" | grep -c '^HTTP/1.1 200')" = 1 ] || fail "not one reply to two pipelined requests: $replies"
echo "$replies" | grep -q '^Connection: close$' || fail "no Connection: close: $replies"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    first=$(origin_conns)
    set -- $first
    [ "$#" = 2 ] && [ "$1" != "$2" ] || fail "server_persistent_connections off: origin connections '$first'"
else
    runs=$((CUTTLE_TEST_WORKERS + 1))
    first=$(RUNS=$runs origin_conns)
    set -- $first
    [ "$#" = "$runs" ] && [ "$(echo $first | tr ' ' '\n' | sort -u | wc -l)" = "$runs" ] ||
        fail "server_persistent_connections off: origin connections '$first' for $runs curl runs"
fi
pass "off: one reply and Connection: close to the client; a new origin connection per request"
cuttle_stop

fwd_conf "http_access allow localhost" "http_access deny all"
cuttle_start
replies=$(two_requests)
[ "$(echo "$replies" | grep -c '^HTTP/1.1 200')" = 2 ] || fail "on: not two replies: $replies"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    conns=$(origin_conns)
else
    conns=$(one_run_conns)
fi
set -- $conns
[ "$#" = 2 ] && [ "$1" = "$2" ] || fail "on: origin connections '$conns'"
pass "on: both pipelined requests answered; the origin connection is reused"
cuttle_stop
