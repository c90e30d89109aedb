#!/bin/sh
# The retry rule (doc/design.md "The origin side"): a request is retried on a new origin connection at
# most once, only when the failed connection was a reused persistent one, no
# reply byte had arrived, and the method is idempotent (RFC 9110 section
# 9.2.2). The origin's script for /s/ID answers 10 bytes (the connection
# persists), then closes without a reply, then answers 20 bytes:
#   GET, GET: the second GET fails on the reused connection and is retried:
#     the client gets the 20 bytes, forward_retries goes up by one;
#   GET, POST: the POST is not retried: 502 ERR_ZERO_SIZE_OBJECT, logged.
# Each case needs the second request on the reused connection; a run whose
# idle connection cuttle closed in between (cache.log "closing idle
# connection") proves nothing, so the case is tried again (at most 5 times).
# With workers (CUTTLE_TEST_WORKERS) the idle origin connection is the
# pool of the worker that served the first request, so each case sends its
# two requests over one client connection (one worker), between two mem
# pages asked on that connection: the serving worker's own forward_retries
# is fresh on them (another worker's share, 10 ms late, does not move).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
# 11,3: cache.log says when an idle origin connection is closed and a request retried
proxy_conf "debug_options ALL,1 11,3"
cuttle_start

# script ID : puts the three-reply script for /s/ID
script() {
    printf 'status=200&s=10\nfail=empty\nstatus=200&s=20\n' |
        curl -s --max-time "$(scaled 5)" -X PUT --data-binary @- -o /dev/null -w '%{http_code}' \
            "$OURL/_script/$1" > "$T/put" || fail "PUT /_script/$1 failed"
    [ "$(cat "$T/put")" = 201 ] || fail "PUT /_script/$1: status $(cat "$T/put")"
}
idle_closes() { grep -c 'closing idle connection' "$T/cache.log"; }
# seen ID : how many requests the origin received for /s/ID
seen() { curl -s --max-time "$(scaled 5)" "$OURL/_seen/$1" | grep -c '^[A-Z][A-Z]* /s/'; }
# get NAME URL [CURL ARGS] : through cuttle; body in $T/NAME, "status size" in $T/NAME.w
get() {
    name=$1
    url=$2
    shift 2
    curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -o "$T/$name" -D "$T/$name.h" \
        -w '%{http_code} %{size_download}' "$@" "$url" > "$T/$name.w" || echo "curl-failed" >> "$T/$name.w"
}
# two NAME1 URL1 NAME2 URL2 [CURL ARGS OF THE SECOND] : get NAME1 then NAME2;
# $retries is forward_retries before them, retries_now prints it after them
two() {
    n1=$1 u1=$2 n2=$3 u2=$4
    shift 4
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        retries=$(mgr_counter forward_retries)
        get "$n1" "$u1"
        get "$n2" "$u2" "$@"
        return
    fi
    # one client connection: the mem page, NAME1, NAME2 (with its curl
    # args), the mem page; '%{num_connects}' 0 says a transfer reused it
    w='%{http_code} %{size_download} %{num_connects}\n'
    mem="http://127.0.0.1:$PORT/"
    curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -w "$w" -o "$T/mem1" \
        --request-target /squid-internal-mgr/mem "$mem" \
        --next -x "127.0.0.1:$PORT" -w "$w" -o "$T/$n1" -D "$T/$n1.h" "$u1" \
        --next -x "127.0.0.1:$PORT" -w "$w" -o "$T/$n2" -D "$T/$n2.h" "$@" "$u2" \
        --next -x "127.0.0.1:$PORT" -w "$w" -o "$T/mem2" \
        --request-target /squid-internal-mgr/mem "$mem" > "$T/two.w" || fail "curl failed: $(cat "$T/two.w")"
    [ "$(sed -n '2,4s/.* //p' "$T/two.w" | tr -d '\n')" = 000 ] ||
        fail "curl did not send the four requests over one connection to cuttle: $(cat "$T/two.w")"
    sed -n '2s/ [0-9]*$//p' "$T/two.w" > "$T/$n1.w"
    sed -n '3s/ [0-9]*$//p' "$T/two.w" > "$T/$n2.w"
    retries=$(sed -n 's/^forward_retries: //p' "$T/mem1")
    [ -n "$retries" ] || fail "no forward_retries on the mem page: $(head -c 300 "$T/mem1")"
}
retries_now() {
    if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
        mgr_counter forward_retries
    else
        sed -n 's/^forward_retries: //p' "$T/mem2"
    fi
}

# the idempotent case
done=""
for i in 1 2 3 4 5; do
    script "g$i"
    closes=$(idle_closes)
    two g1 "$OURL/s/g$i?n=1" g2 "$OURL/s/g$i?n=2"
    [ "$(cat "$T/g1.w")" = "200 10" ] || fail "GET 1 of script g$i: $(cat "$T/g1.w")"
    if [ "$(idle_closes)" != "$closes" ] && [ "$(seen "g$i")" = 2 ]; then
        echo "attempt $i: cuttle closed the idle origin connection before GET 2 (no reuse, so no retry to test); again"
        continue
    fi
    [ "$(cat "$T/g2.w")" = "200 20" ] ||
        fail "GET 2 of script g$i (the reused connection closed without a reply): '$(cat "$T/g2.w")'," \
            "expected '200 20' from one retry; $(tr -d '\r' < "$T/g2.h" | grep -i '^X-Squid-Error')"
    [ "$(cat "$T/g2")" = "$(printf '0123456789abcdefghij')" ] || fail "GET 2: the body is not the 20-byte reply"
    now=$(retries_now)
    [ "$now" = $((retries + 1)) ] || fail "forward_retries went from $retries to $now, expected one retry"
    [ "$(seen "g$i")" = 3 ] || fail "the origin saw $(seen "g$i") requests for /s/g$i, expected 3 (GET, GET, the retry)"
    done=yes
    break
done
[ -n "$done" ] || fail "five times cuttle closed the idle origin connection before the second GET (see cache.log)"
# the next case's mem pages add the other workers' shares: this retry's
# worker published it once every worker's page has it
retries_published() { [ "$(mgr_counter forward_retries)" = "$1" ]; }
wait_until 5 retries_published "$now" || fail "forward_retries $now did not reach every worker's mem page"
pass "GET on a reused connection closed without a reply: retried once, the client got the 20-byte reply"

done=""
for i in 1 2 3 4 5; do
    script "p$i"
    closes=$(idle_closes)
    two p1 "$OURL/s/p$i?n=1" p2 "$OURL/s/p$i?n=2" --data-binary 'name=value&post=body'
    [ "$(cat "$T/p1.w")" = "200 10" ] || fail "GET 1 of script p$i: $(cat "$T/p1.w")"
    if [ "$(idle_closes)" != "$closes" ]; then
        echo "attempt $i: cuttle closed the idle origin connection before the POST; again"
        continue
    fi
    set -- $(cat "$T/p2.w")
    [ "$1" = 502 ] || fail "POST on the reused connection that closed without a reply: status '$1', expected 502"
    grep -qi '^X-Squid-Error: ERR_ZERO_SIZE_OBJECT' "$T/p2.h" ||
        fail "POST: the 502 is not ERR_ZERO_SIZE_OBJECT: $(tr -d '\r' < "$T/p2.h" | grep -i '^X-Squid-Error')"
    now=$(retries_now)
    [ "$now" = "$retries" ] || fail "POST: forward_retries went from $retries to $now: a POST was retried"
    [ "$(seen "p$i")" = 2 ] || fail "the origin saw $(seen "p$i") requests for /s/p$i, expected 2 (no retry of the POST)"
    wait_until 5 access_log_has " [A-Z_]+/502 [0-9]+ POST http://127\\.0\\.0\\.1:$OPORT/s/p$i[? ]" ||
        fail "no access.log line with 502 for the POST"
    done=yes
    break
done
[ -n "$done" ] || fail "five times cuttle closed the idle origin connection before the POST (see cache.log)"
pass "POST on a reused connection closed without a reply: not retried, 502 ERR_ZERO_SIZE_OBJECT, logged"
cuttle_stop
