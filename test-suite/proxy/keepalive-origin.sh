#!/bin/sh
# Persistent origin connections: sequential requests, from one curl or from
# several, reuse one origin connection (the origin's X-Origin-Conn, cuttle's
# origin_connections_opened); a close-delimited reply or an origin's
# Connection: close makes the next request open a new one; three pipelined
# client requests are answered in order with their own bodies.
# With workers (CUTTLE_TEST_WORKERS) each worker pools its own origin
# connections and the kernel spreads separate curl runs over the workers:
# the separate runs use at most one origin connection a worker, and the
# close cases run on one client connection (one worker's pool).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
# 11,3: cache.log says why an idle origin connection was closed
proxy_conf "debug_options ALL,1 11,3"
cuttle_start

# conns URL... : one curl run; sets $IDS to the X-Origin-Conn of each reply
# and $CONNECTS to how many client connections curl opened for each (0: it
# reused the run's connection to cuttle)
conns() {
    for url in "$@"; do
        set -- "$@" -o /dev/null "$url"
        shift
    done
    curl -sS --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -w '%{http_code} %header{x-origin-conn} %{num_connects}\n' "$@" \
        > "$T/conns" 2> "$T/conns.err" || fail "curl failed: $(cat "$T/conns.err")"
    grep -v '^200 [0-9][0-9]* [0-9][0-9]*$' "$T/conns" && fail "a reply without status 200 or X-Origin-Conn: $(cat "$T/conns")"
    IDS=$(cut -d ' ' -f 2 "$T/conns" | tr '\n' ' ')
    CONNECTS=$(cut -d ' ' -f 3 "$T/conns" | tr '\n' ' ')
}
counter_is() { [ "$(mgr_counter "$1")" = "$2" ]; }
# opened_is N WHAT : origin_connections_opened is N (with workers, once
# every worker's share reached the page)
opened_is() {
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        got=$(mgr_counter origin_connections_opened)
    else
        wait_until 5 counter_is origin_connections_opened "$1"
        got=$(mgr_counter origin_connections_opened)
    fi
    [ "$got" = "$1" ] || problem "$2: origin_connections_opened is '$got', expected $1"
}

conns "$OURL/x?s=100&n=1" "$OURL/x?s=100&n=2" "$OURL/x?s=100&n=3"
first=$(echo $IDS | tr ' ' '\n' | sort -u)
[ "$(echo "$first" | wc -l)" = 1 ] || problem "one curl, three requests: origin connections $(echo $first)"
opened_is 1 "one curl, three requests"
checkpoint "one curl run: three requests on origin connection(s) $(echo $first)"

# separate runs, a little apart (an origin connection idles in the pool between them)
seen=""
for n in 4 5 6 7 8; do
    sleep 0.1
    conns "$OURL/x?s=100&n=$n"
    seen="$seen$IDS"
done
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    [ "$(echo $seen | tr ' ' '\n' | sort -u)" = "$first" ] ||
        problem "five separate curl runs: origin connections$seen, expected $(echo $first) each time"
    opened_is 1 "one curl run and five separate ones"
    idle=$(mgr_counter origin_connections_idle)
    [ "$idle" = 1 ] || problem "origin_connections_idle is '$idle', expected 1"
else
    # each worker's runs reuse its one idle origin connection: the six runs
    # use at most one a worker, and each is opened once and idle now
    distinct=$(echo $first $seen | tr ' ' '\n' | sort -u | wc -l)
    [ "$distinct" -le "$CUTTLE_TEST_WORKERS" ] ||
        problem "one curl run and five separate ones: origin connections $(echo $first $seen)," \
            "more than one for each of the $CUTTLE_TEST_WORKERS workers"
    opened_is "$distinct" "one curl run and five separate ones"
    wait_until 5 counter_is origin_connections_idle "$distinct" ||
        problem "origin_connections_idle is '$(mgr_counter origin_connections_idle)', expected $distinct (one a worker that served)"
fi
checkpoint "separate curl runs: origin connections$seen"

before=$(mgr_counter origin_connections_opened)
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    conns "$OURL/x?s=100&close=1&n=9" "$OURL/x?s=100&n=10"
else
    # the next cases too, on the same client connection (one worker)
    conns "$OURL/x?s=100&close=1&n=9" "$OURL/x?s=100&n=10" "$OURL/x?s=100&h=Connection:close&n=11" "$OURL/x?s=100&n=12"
    [ "$CONNECTS" = "1 0 0 0 " ] ||
        fail "curl opened client connections $CONNECTS for the four requests, expected one for them all"
    LATER=$(echo $IDS | cut -d ' ' -f 3-4)
fi
set -- $IDS
[ "$2" != "$1" ] || fail "after a close-delimited reply the next request reused origin connection $1"
counter_from() { [ "$(mgr_counter "$1")" -ge "$2" ]; }
[ "$CUTTLE_TEST_WORKERS" = 1 ] || wait_until 5 counter_from origin_connections_opened $((before + 1))
opened=$(mgr_counter origin_connections_opened)
[ "$opened" -ge $((before + 1)) ] || fail "after a close-delimited reply: origin_connections_opened $before then $opened"
pass "after close=1 a new origin connection ($1 then $2)"

second=$2
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    conns "$OURL/x?s=100&h=Connection:close&n=11"
else
    IDS=$(echo $LATER | cut -d ' ' -f 1)
fi
set -- $IDS
[ "$1" = "$second" ] || problem "Connection: close request: origin connection $1, expected the idle $second"
used=$1
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    conns "$OURL/x?s=100&n=12"
else
    IDS=$(echo $LATER | cut -d ' ' -f 2)
fi
set -- $IDS
[ "$1" != "$used" ] || fail "after the origin's Connection: close cuttle reused origin connection $1"
checkpoint "after the origin's Connection: close a new origin connection ($used then $1)"

proxy_py "$PORT" "$OPORT" "$(scaled 10)" <<'PY' || fail "pipelined requests (see above)"
import sys
from rawhttp import Conn, request, pattern, check, run

port, oport, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


def main():
    sizes = [10, 200000, 5]
    c = Conn(port, timeout=limit)
    c.send(b"".join(request("GET", "http://127.0.0.1:%d/x?s=%d&h=X-Seq:%d" % (oport, size, i))
                    for i, size in enumerate(sizes)))
    for i, size in enumerate(sizes):
        r = c.read_reply()
        check(r.status == 200, "pipelined reply %d: status %d" % (i, r.status))
        check(r.header("X-Seq") == str(i), "pipelined reply %d is the reply to request %s" % (i, r.header("X-Seq")))
        check(r.body == pattern(size), "pipelined reply %d: body of %d bytes differs" % (i, len(r.body)))
    state = c.state_after(0.3)
    check(state == "open", "after three pipelined replies the connection is %s" % state)
    print("ok: three pipelined requests answered in order with their bodies")


run(main)
PY
cuttle_stop
problems_check
