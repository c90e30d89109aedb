#!/bin/sh
# Failover between parents, as Squid 5.7: a request whose first parent
# refuses the connection goes on to the next candidate (ANY_OLD_PARENT) in
# the same request; after connect-fail-limit failures the parent is dead
# (cache.log: "Detected DEAD Parent") and skipped; forward_max_tries 1 stops
# at the first failure (502 ERR_READ_ERROR, as Squid 5.7 answers); once something listens on the dead parent's
# port again, a probe connect revives it ("Detected REVIVED Parent") and
# requests go back to it. A parent that does not answer at all costs a
# request its connect-timeout= before the next one is tried. Prints the time
# a failover costs.
# With workers (CUTTLE_TEST_WORKERS) each worker counts its own failures and
# knows its own dead parents (as each Squid kid does): the three requests
# that kill p1 go from one curl run on one client connection (one worker);
# the probes go on until every worker that logged p1 dead (its cache.log kid
# label) logged it revived, and the request that must reach p1 again is
# asked until such a worker answers it (replies name their worker:
# reply_header_add X-Worker ${process_number}).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
DEAD=$(closed_port)
peer_start p2 "cache deny all"
P2=$PEER_PORT
PARENTS="cache_peer 127.0.0.1 parent $DEAD 0 no-query name=p1 connect-fail-limit=2 connect-timeout=1"
set --
[ "$CUTTLE_TEST_WORKERS" = 1 ] || set -- 'reply_header_add X-Worker ${process_number}'
fwd_conf "$PARENTS" "cache_peer 127.0.0.1 parent $P2 0 no-query name=p2" \
    "never_direct allow all" "cache deny all" "http_access allow localhost" "http_access deny all" "$@"
cuttle_start

if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    w='%{http_code} %{time_total} %{num_connects}\n'
    curl -s --max-time 10 -x "127.0.0.1:$PORT" -o /dev/null -w "$w" "http://127.0.0.1:$OPORT/f/1" \
        -o /dev/null -w "$w" "http://127.0.0.1:$OPORT/f/2" -o /dev/null -w "$w" "http://127.0.0.1:$OPORT/f/3" > "$T/three"
    [ "$(cut -d ' ' -f 3 "$T/three" | tr -d '\n')" = 100 ] ||
        fail "the three requests went on more than one client connection: $(cat "$T/three")"
    took=$(sed -n '1s/ [0-9]*$//p' "$T/three")
else
    took=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -x "127.0.0.1:$PORT" \
        "http://127.0.0.1:$OPORT/f/1")
fi
[ "${took% *}" = 200 ] || fail "with p1 refusing, got ${took% *}"
wait_until 5 access_log_has "/f/1 - ANY_OLD_PARENT/127\.0\.0\.1 " || fail "the failover was not logged ANY_OLD_PARENT"
grep -q "TCP connection to 127.0.0.1/$DEAD failed" "$T/cache.log" || fail "no failed connection in cache.log"
pass "p1 refused, the request went on to p2 in ${took#* } s"

if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    [ "$(proxy_get "http://127.0.0.1:$OPORT/f/2")" = 200 ] || fail "second request"
else
    [ "$(sed -n '2s/ .*//p' "$T/three")" = 200 ] || fail "second request"
fi
wait_until 5 grep -q "Detected DEAD Parent: p1" "$T/cache.log" || fail "p1 was not declared dead after 2 failures"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    took=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -x "127.0.0.1:$PORT" \
        "http://127.0.0.1:$OPORT/f/3")
else
    took=$(sed -n '3s/ [0-9]*$//p' "$T/three")
fi
[ "${took% *}" = 200 ] || fail "with p1 dead, got ${took% *}"
wait_until 5 access_log_has "/f/3 - FIRSTUP_PARENT/127\.0\.0\.1 " || fail "a dead p1 was not skipped"
pass "after connect-fail-limit=2 failures p1 is dead and skipped (${took#* } s)"

# forward_max_tries 1: the first failure ends the request
peer_start c2 "$PARENTS" "cache_peer 127.0.0.1 parent $P2 0 no-query name=p2" "never_direct allow all" \
    "forward_max_tries 1"
code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 -x "127.0.0.1:$PEER_PORT" "http://127.0.0.1:$OPORT/f/4")
# Squid 5.7 answers 502 ERR_READ_ERROR when its last parent cannot be reached, logged HIER_NONE/-
[ "$code" = 502 ] || fail "forward_max_tries 1: got $code"
error_page_is "$T/body" ERR_READ_ERROR || fail "not ERR_READ_ERROR: $(head -c 300 "$T/body")"
wait_until 5 peer_log_has c2/access.log " TCP_MISS/502 [0-9]+ GET http://127\.0\.0\.1:$OPORT/f/4 - HIER_NONE/- " ||
    fail "not logged TCP_MISS/502 HIER_NONE/-: $(cat "$T/c2/access.log")"
pass "forward_max_tries 1 stops at the refused parent (502 ERR_READ_ERROR, HIER_NONE/-, as Squid 5.7)"

# something listens on p1's port again: a probe revives it
PEER_LISTEN=$DEAD peer_start p1 "cache deny all"
# revived : whether p1 is revived (with workers: in each worker that logged it dead)
kids_of() { grep "$1" "$T/cache.log" | sed -n 's/^[^|]* kid\([0-9]*\)|.*/\1/p' | sort -u | tr '\n' ' '; }
revived() {
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        grep -q "Detected REVIVED Parent: p1" "$T/cache.log"
    else
        [ "$(kids_of "Detected DEAD Parent: p1")" = "$(kids_of "Detected REVIVED Parent: p1")" ]
    fi
}
i=0
while [ $i -lt 30 ] && ! revived; do
    proxy_get "http://127.0.0.1:$OPORT/f/probe$i" > /dev/null
    sleep 0.2
    i=$((i + 1))
done
revived || fail "p1 was not revived"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    [ "$(proxy_get "http://127.0.0.1:$OPORT/f/5")" = 200 ] || fail "after the revival"
    wait_until 5 peer_log_has p1/access.log "/f/5 " || fail "requests did not go back to p1"
else
    # until a worker that knew p1 dead answers: every request goes to p1
    dead_kids=" $(kids_of "Detected DEAD Parent: p1")"
    [ -n "${dead_kids# }" ] || fail "no kid label on the 'Detected DEAD Parent: p1' lines"
    i=0
    while [ $i -lt 64 ]; do
        i=$((i + 1))
        [ "$(proxy_get "http://127.0.0.1:$OPORT/f/5-$i" -D "$T/f5.head")" = 200 ] || fail "after the revival"
        wait_until 5 peer_log_has p1/access.log "/f/5-$i " || fail "requests did not go back to p1"
        kid=$(tr -d '\r' < "$T/f5.head" | sed -n 's/^X-Worker: //p')
        case "$dead_kids" in *" $kid "*) break ;; esac
    done
    case "$dead_kids" in *" $kid "*) ;; *) fail "64 requests did not reach a worker that knew p1 dead ($dead_kids)" ;; esac
fi
pass "a probe connect revived p1 and requests go to it again"

# a parent that never answers: each request waits its connect-timeout=1, then fails over
bg_start hole python3 "$top_srcdir/test-suite/hierarchy/blackhole.py"
peer_start c3 "cache_peer 127.0.0.1 parent $BG_PORT 0 no-query name=hole connect-timeout=1" \
    "cache_peer 127.0.0.1 parent $P2 0 no-query name=p2" "never_direct allow all"
took=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -x "127.0.0.1:$PEER_PORT" \
    "http://127.0.0.1:$OPORT/f/6")
[ "${took% *}" = 200 ] || fail "with a parent that does not answer, got ${took% *}"
awk -v t="${took#* }" 'BEGIN { exit !(t >= 0.9 && t < 3) }' || fail "the failover took ${took#* } s, not about 1 s"
pass "a parent that does not answer fails over after its connect-timeout=1 (${took#* } s)"
cuttle_stop
