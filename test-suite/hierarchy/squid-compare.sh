#!/bin/sh
# The same squid.conf lines in a cuttle child and in Debian's Squid 5.7 as a
# child, the same requests through each: every request gets the same
# hierarchy code in both access.logs, and goes to the same parent
# (round-robin with weights: the same turns from the first request,
# cache_peer_access, the default parent, never_direct, a POST and a request
# with Authorization, which are not hierarchical). Squid's netdb would send
# requests for a loopback origin direct, so it is turned off there
# (minimum_direct_hops 0, minimum_direct_rtt 0): cuttle has none
# (doc/differences.md "Peers"). Skipped without /usr/sbin/squid.
# With workers (CUTTLE_TEST_WORKERS: the cuttle child runs that many) each
# worker takes its own round-robin turns (as each Squid kid does): the
# cuttle child's requests go from one curl run on one client connection
# (one worker), in the same order.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
[ -x "$SQUID" ] || { echo "no $SQUID"; exit 77; }
cuttle_setup
origin_start
peer_start pa "cache deny all" "strip_query_terms off"
PA=$PEER_PORT
peer_start pb "cache deny all" "strip_query_terms off"
PB=$PEER_PORT
peer_start pc "cache deny all" "strip_query_terms off"
PC=$PEER_PORT
set -- "acl b urlpath_regex ^/b/" "acl n urlpath_regex ^/n/" \
    "cache_peer 127.0.0.1 parent $PA 0 no-query no-digest name=pa round-robin" \
    "cache_peer 127.0.0.1 parent $PB 0 no-query no-digest name=pb round-robin weight=2" \
    "cache_peer 127.0.0.1 parent $PC 0 no-query no-digest name=pc default" \
    "cache_peer_access pa deny b" "cache_peer_access pb deny b" "never_direct allow n" "cache deny all"
squid_start sq "$@" "minimum_direct_hops 0" "minimum_direct_rtt 0"
SQ=$PEER_PORT
peer_start cu "$@"
CU=$PEER_PORT
for child in sq cu; do
    port=$SQ
    [ $child = cu ] && port=$CU
    if [ $child = cu ] && [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
        set --
        for u in a/1 a/2 a/3 b/1 a/4 n/1 b/2 a/5 a/6 a/7; do
            set -- "$@" --next -x "127.0.0.1:$port" -o /dev/null -w '%{num_connects}' "http://127.0.0.1:$OPORT/$u?via=$child"
        done
        set -- "$@" --next -x "127.0.0.1:$port" -o /dev/null -w '%{num_connects}' -d x=1 \
            "http://127.0.0.1:$OPORT/post/1?via=$child"
        set -- "$@" --next -x "127.0.0.1:$port" -o /dev/null -w '%{num_connects}' -d x=1 \
            "http://127.0.0.1:$OPORT/n/post?via=$child"
        set -- "$@" --next -x "127.0.0.1:$port" -o /dev/null -w '%{num_connects}' -H "Authorization: Basic eDp5" \
            "http://127.0.0.1:$OPORT/auth/1?via=$child"
        shift
        curl -s --max-time 10 "$@" > "$T/connects"
        [ "$(cat "$T/connects")" = 1000000000000 ] ||
            fail "the cuttle child's 13 requests went on more than one client connection: $(cat "$T/connects")"
        continue
    fi
    for u in a/1 a/2 a/3 b/1 a/4 n/1 b/2 a/5 a/6 a/7; do
        curl -s -o /dev/null --max-time 10 -x "127.0.0.1:$port" "http://127.0.0.1:$OPORT/$u?via=$child"
    done
    curl -s -o /dev/null --max-time 10 -x "127.0.0.1:$port" -d x=1 "http://127.0.0.1:$OPORT/post/1?via=$child"
    curl -s -o /dev/null --max-time 10 -x "127.0.0.1:$port" -d x=1 "http://127.0.0.1:$OPORT/n/post?via=$child"
    curl -s -o /dev/null --max-time 10 -x "127.0.0.1:$port" -H "Authorization: Basic eDp5" \
        "http://127.0.0.1:$OPORT/auth/1?via=$child"
done
codes() { awk '{print $6, $7, $9}' "$T/$1/access.log" | sed -e "s|127\.0\.0\.1:$OPORT||" -e 's|?via=..||'; }
# parents CHILD : "PATH PARENT" for each request of CHILD the parents got
parents() {
    for p in pa pb pc; do
        grep -o "/[a-z]*/[a-z0-9]*?via=$1" "$T/$p/access.log" | sed -e "s|?via=..| $p|"
    done | sort
}
wait_until 10 sh -c "[ \$(wc -l < '$T/sq/access.log') -ge 13 ] && [ \$(wc -l < '$T/cu/access.log') -ge 13 ]" ||
    fail "not every request was logged"
codes sq > "$T/squid-codes"
codes cu > "$T/cuttle-codes"
grep -q "ROUNDROBIN_PARENT" "$T/squid-codes" || fail "Squid sent nothing round-robin: $(cat "$T/squid-codes")"
diff "$T/squid-codes" "$T/cuttle-codes" || fail "the hierarchy codes differ (Squid 5.7 <, cuttle >)"
pass "cuttle and Squid 5.7 give the same hierarchy code to each of 13 requests"
parents sq > "$T/squid-parents"
parents cu > "$T/cuttle-parents"
[ "$(wc -l < "$T/squid-parents")" = 11 ] || fail "the parents got $(wc -l < "$T/squid-parents") of Squid's requests, not 11"
diff "$T/squid-parents" "$T/cuttle-parents" || fail "the requests went to other parents (Squid 5.7 <, cuttle >)"
pass "and each request that goes to a parent goes to the same one"
cat "$T/cuttle-codes"
cuttle_stop
