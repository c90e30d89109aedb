#!/bin/sh
# tcp_outgoing_address, as Squid 5.7 picks it (getOutgoingAddress): the
# first line whose address is of the destination's family and whose acls
# match. An origin that names the address each connection came from shows
# it: 127.0.0.2 for /two, 127.0.0.3 for the rest (the ::1 line before it is
# skipped for an IPv4 origin), 127.0.0.4 for a CONNECT; a pooled connection
# goes only to a request that picks the same address; without a line the
# kernel picks 127.0.0.1.
# With workers (CUTTLE_TEST_WORKERS) the pooled connections are each
# worker's: the four requests of the first part go from one curl run on one
# client connection (one worker); from_run gives their results in turn.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
rawserver_start peer
fwd_conf "acl two urlpath_regex ^/two" "acl tunnel method CONNECT" "http_access allow localhost" \
    "http_access deny all" "tcp_outgoing_address 127.0.0.4 tunnel" "tcp_outgoing_address 127.0.0.2 two" \
    "tcp_outgoing_address ::1" "tcp_outgoing_address 127.0.0.3"
cuttle_start

from() { # PATH [CURL ARGS]: the source address the origin saw, and its connection
    local path=$1
    shift
    curl -s -D "$T/head" --max-time 10 -x "127.0.0.1:$PORT" "$@" "http://127.0.0.1:$RAWPORT$path"
    printf ' %s' "$(tr -d '\r' < "$T/head" | sed -n 's/^X-Conn: //p' | tail -n 1)"
}
FIRST=from
if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    FIRST=from_run
    n=0
    for path in /two/a /other /two/b /other2; do
        n=$((n + 1))
        echo "$path" >> "$T/paths"
        [ $n = 1 ] || set -- "$@" --next
        set -- "$@" -x "127.0.0.1:$PORT" -D "$T/head.$n" -o "$T/body.$n" -w '%{num_connects}' \
            "http://127.0.0.1:$RAWPORT$path"
    done
    curl -s --max-time 10 "$@" > "$T/connects"
    [ "$(cat "$T/connects")" = 1000 ] ||
        fail "curl opened client connections $(cat "$T/connects") for the four requests, not one for all"
    echo 0 > "$T/from_n"
    from_run() { # PATH: the next result of the curl run (called in $(...), it counts in a file)
        n=$(($(cat "$T/from_n") + 1))
        echo "$n" > "$T/from_n"
        [ "$(sed -n "${n}p" "$T/paths")" = "$1" ] || fail "request $n of the run is not $1"
        cat "$T/body.$n"
        printf ' %s' "$(tr -d '\r' < "$T/head.$n" | sed -n 's/^X-Conn: //p' | tail -n 1)"
    }
fi
got=$($FIRST /two/a)
[ "$got" = "127.0.0.2 1" ] || fail "/two/a came from '$got', not 127.0.0.2 on connection 1"
got=$($FIRST /other)
[ "$got" = "127.0.0.3 2" ] || fail "/other came from '$got', not 127.0.0.3 on a new connection 2"
got=$($FIRST /two/b)
[ "$got" = "127.0.0.2 1" ] || fail "/two/b came from '$got', not the pooled connection 1 from 127.0.0.2"
got=$($FIRST /other2)
[ "$got" = "127.0.0.3 2" ] || fail "/other2 came from '$got', not the pooled connection 2 from 127.0.0.3"
pass "the first matching line of the destination's family picks the source; pooled connections keep to it"

got=$(from /two/tunnel -p)
[ "${got% *}" = "127.0.0.4" ] || fail "the CONNECT tunnel came from '$got', not 127.0.0.4"
pass "a CONNECT tunnel leaves from its line's address"
cuttle_stop

fwd_conf "http_access allow localhost" "http_access deny all"
cuttle_start
got=$(from /two/c)
[ "${got% *}" = "127.0.0.1" ] || fail "without tcp_outgoing_address: '$got'"
pass "without tcp_outgoing_address the kernel picks 127.0.0.1"
cuttle_stop
