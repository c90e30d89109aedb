#!/bin/sh
# collapsed_forwarding and revalidation: with it on, clients that find the
# same stale stored object while its conditional request is at the origin
# wait for that request instead of sending their own (the origin sees one
# conditional, with the stored ETag / Last-Modified), and are logged with
# Squid 5.7's CF_ codes:
# - a 304 freshens the stored object and every client gets its body
#   (TCP_REFRESH_UNMODIFIED, the joiners TCP_CF_REFRESH_UNMODIFIED), a
#   joiner's own matching If-None-Match a 304;
# - a new 200 replaces the stored object and every client reads it as it
#   arrives (TCP_REFRESH_MODIFIED, TCP_CF_REFRESH_MODIFIED);
# - a 5xx, or an origin that closes without a reply, serves the stale object
#   where max_stale / stale-if-error allow it (TCP_REFRESH_FAIL_OLD,
#   TCP_CF_REFRESH_FAIL_OLD);
# - a 5xx that the stale object may not replace (must-revalidate) reaches
#   every client (TCP_REFRESH_FAIL_ERR, TCP_CF_REFRESH_FAIL_ERR);
# - a reply that is not stored (private) is the first client's alone: every
#   joiner gets a reply of its own from the origin;
# - when the first client resets before the 304 comes, the others still get
#   the freshened object.
# With collapsed_forwarding off, each client revalidates on its own.
#
# The first client's conditional waits t=1s at the origin (longer under
# TIMEOUT_MULT); the other clients start once it reached the origin.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs it against Squid 5.7, which logs
# every code above. Guarded (deliberate departures, doc/differences.md):
# - a joiner's matching If-None-Match gets a 304; Squid sends the whole 200;
# - a joiner of a reply that is not stored sends its own conditional, logged
#   as a lone revalidation; Squid sends a plain miss, logged TCP_CF_MISS;
# - when the origin sends no reply at all, every joiner gets the stale object
#   where a lone revalidation would; Squid's joiners each ask the origin
#   again as a plain miss (TCP_CF_MISS/502 here);
# - the revalidations of a Vary variant are collapsed too; Squid does not
#   collapse them (and here passes the origin's 304 on to clients that sent
#   no conditional);
# - a client that resets is logged TCP_MISS_ABORTED; Squid says TCP_REFRESH_ABORTED.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start

SLOW=$(scaled 1)
LM='Mon, 01 Jan 2024 00:00:00 GMT'
LM_Q='Mon,%2001%20Jan%202024%2000:00:00%20GMT'
# http_date SECONDS_AGO : an HTTP-date that long ago, percent-encoded for a script line
http_date() {
    date -u -d "@$(( $(date +%s) - $1 ))" '+%a,%%20%d%%20%b%%20%Y%%20%H:%M:%S%%20GMT'
}

# client I ID [CURL ARGS] : client I asks for /s/ID through the proxy; its
# status, head (CR removed) and body in $T/c.I.code, .head, .body
client() {
    local i=$1 id=$2
    shift 2
    curl -s -D "$T/c.$i.raw" -o "$T/c.$i.body" -w '%{http_code}' --max-time "$(scaled 20)" \
        -x "127.0.0.1:$PORT" "$@" "$(url "$id")" > "$T/c.$i.code"
    tr -d '\r' < "$T/c.$i.raw" > "$T/c.$i.head"
}
# resetter ID : a client that asks for /s/ID and resets the connection
# (SO_LINGER 0) 0.6 s later, before the reply
resetter() { reset_after "$(url "$1")" 0.6; }
# overlap ID N [CURL ARGS] : client 1 asks for /s/ID, and once its request
# reached the origin (where it waits) clients 2..N at once, client N with
# CURL ARGS; with FIRST=reset, client 1 is a resetter
overlap() {
    local id=$1 n=$2 i=2 pids before
    shift 2
    rm -f "$T"/c.*
    before=$(seen_count "$id")
    if [ "${FIRST:-}" = reset ]; then
        resetter "$id" &
    else
        client 1 "$id" &
    fi
    pids=$!
    wait_until 10 seen_reaches "$id" $((before + 1)) || fail "client 1's request for $id did not reach the origin"
    while [ $i -le "$n" ]; do
        if [ $i -eq "$n" ]; then
            client $i "$id" "$@" &
        else
            client $i "$id" &
        fi
        pids="$pids $!"
        i=$((i + 1))
    done
    for p in $pids; do
        wait "$p"
    done
}
# c_code I, c_header I NAME, c_sha I : client I's status, field, body sha256
c_code() { cat "$T/c.$1.code"; }
c_header() { grep -i "^$2:" "$T/c.$1.head" | head -n 1 | sed 's/^[^:]*: *//'; }
c_sha() { sha256sum < "$T/c.$1.body" | cut -d' ' -f1; }
c_size() { if [ -f "$T/c.$1.body" ]; then wc -c < "$T/c.$1.body" | tr -d ' '; else echo 0; fi; }
# codes_after ID SKIP N : the codes of the N access.log lines of /s/ID after
# the first SKIP, sorted (their order is the order the clients finished)
codes_after() {
    wait_until 5 has_log_lines "$1" $(($2 + $3)) || true
    log_lines "$(url "$1")" | sed -n "$(($2 + 1)),$(($2 + $3))p" | awk '{print $4}' | sort |
        tr '\n' ' ' | sed 's/ $//'
}
# direct_after ID SKIP : how many access.log lines of /s/ID after the first
# SKIP went to the origin (HIER_DIRECT)
direct_after() { log_lines "$(url "$1")" | sed -n "$(($2 + 1)),\$p" | grep -c HIER_DIRECT/; }
# repeat N WORD : WORD N times, space-separated
repeat() { for _ in $(seq 1 "$1"); do printf '%s ' "$2"; done | sed 's/ $//'; }
# expect_bodies WHAT N STATUS SHA [FIELD VALUE] : clients FROM..N (FROM is
# 1 unless set) got STATUS with the body of sha256 SHA, and FIELD: VALUE
expect_bodies() {
    local i=${FROM:-1}
    while [ $i -le "$2" ]; do
        expect "$1, client $i: status" "$(c_code $i)" "$3"
        expect "$1, client $i: body sha256" "$(c_sha $i)" "$4"
        [ $# -lt 6 ] || expect "$1, client $i: $5" "$(c_header $i "$5")" "$6"
        i=$((i + 1))
    done
}

cache_start "collapsed_forwarding on" "refresh_pattern . 0 20% 4320"

# a 304 shared by 5 clients; the conditional carries both validators
mark
script r304 "cc=max-age=0&etag=%22v1%22&lm=$LM_Q&s=300k" \
    "status=304&etag=%22v1%22&cc=max-age=60&t=${SLOW}s" "status=500"
get r304
expect_miss "304 shared, first" r304 1 TCP_MISS/200 "$(pattern_sha 300k)"
overlap r304 5
expect_bodies "304 shared" 5 200 "$(pattern_sha 300k)"
expect "304 shared, client 5: Cache-Control (from the 304)" "$(c_header 5 Cache-Control)" max-age=60
expect "304 shared: origin requests" "$(seen_count r304)" 2
expect "304 shared: the conditional's If-None-Match" "$(seen_field r304 2 If-None-Match)" '"v1"'
expect "304 shared: the conditional's If-Modified-Since" "$(seen_field r304 2 If-Modified-Since)" "$LM"
expect "304 shared: access.log" "$(codes_after r304 1 5)" \
    "$(repeat 4 TCP_CF_REFRESH_UNMODIFIED/200) TCP_REFRESH_UNMODIFIED/200"
expect "304 shared: access.log lines that went to the origin" "$(direct_after r304 1)" 1
get r304
expect_hit "304 shared, afterwards" r304 7 "$(pattern_sha 300k)"
expect "304 shared: origin requests after a hit" "$(seen_count r304)" 2
pass_if_ok "collapsed_forwarding on: a 304 to one conditional serves every waiting client"

# a joiner's own conditional is answered from the freshened object
mark
script r304c "cc=max-age=0&etag=%22c1%22&s=1000" "status=304&etag=%22c1%22&cc=max-age=60&t=${SLOW}s" \
    "status=500"
get r304c
overlap r304c 3 -H 'If-None-Match: "c1"'
expect_bodies "304 shared, conditional joiner" 2 200 "$(pattern_sha 1000)"
expect "304 shared, conditional joiner: origin requests" "$(seen_count r304c)" 2
# Squid 5.7 answers a client's matching If-None-Match after a 304 with the
# whole 200 (revalidate.sh); cuttle with the 304 (RFC 9111 section 4.3.2)
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect "304 shared, conditional joiner: status" "$(c_code 3)" 304
    expect "304 shared, conditional joiner: body bytes" "$(c_size 3)" 0
    expect "304 shared, conditional joiner: ETag" "$(c_header 3 ETag)" '"c1"'
    expect "304 shared, conditional joiner: access.log" "$(codes_after r304c 1 3)" \
        "TCP_CF_REFRESH_UNMODIFIED/200 TCP_CF_REFRESH_UNMODIFIED/304 TCP_REFRESH_UNMODIFIED/200"
fi
pass_if_ok "collapsed_forwarding on: a joiner's matching If-None-Match gets a 304 after the shared 304"

# a new 200 shared by 5 clients, which replaces the stored object
mark
script r200 "cc=max-age=0&etag=%22a%22&s=1000" "cc=max-age=60&etag=%22b%22&s=400k&t=${SLOW}s" "status=500"
get r200
overlap r200 5
expect_bodies "200 shared" 5 200 "$(pattern_sha 400k)"
expect "200 shared, client 1: ETag" "$(c_header 1 ETag)" '"b"'
expect "200 shared, client 5: ETag" "$(c_header 5 ETag)" '"b"'
expect "200 shared: origin requests" "$(seen_count r200)" 2
expect "200 shared: the conditional's If-None-Match" "$(seen_field r200 2 If-None-Match)" '"a"'
expect "200 shared: access.log" "$(codes_after r200 1 5)" \
    "$(repeat 4 TCP_CF_REFRESH_MODIFIED/200) TCP_REFRESH_MODIFIED/200"
expect "200 shared: access.log lines that went to the origin" "$(direct_after r200 1)" 1
get r200
expect_hit "200 shared, afterwards" r200 7 "$(pattern_sha 400k)"
expect "200 shared: origin requests after a hit" "$(seen_count r200)" 2
pass_if_ok "collapsed_forwarding on: a new 200 to one conditional is shared by every waiting client"

# a joiner's own conditional is answered from the new reply
mark
script r200c "cc=max-age=0&etag=%22a%22&s=1000" "cc=max-age=60&etag=%22b%22&s=2000&t=${SLOW}s" "status=500"
get r200c
overlap r200c 3 -H 'If-None-Match: "b"'
expect_bodies "200 shared, conditional joiner" 2 200 "$(pattern_sha 2000)"
expect "200 shared, conditional joiner: origin requests" "$(seen_count r200c)" 2
# as after a 304, Squid 5.7 sends the whole 200
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect "200 shared, conditional joiner: status" "$(c_code 3)" 304
    expect "200 shared, conditional joiner: body bytes" "$(c_size 3)" 0
    expect "200 shared, conditional joiner: ETag" "$(c_header 3 ETag)" '"b"'
    expect "200 shared, conditional joiner: access.log" "$(codes_after r200c 1 3)" \
        "TCP_CF_REFRESH_MODIFIED/200 TCP_CF_REFRESH_MODIFIED/304 TCP_REFRESH_MODIFIED/200"
fi
pass_if_ok "collapsed_forwarding on: a joiner's matching If-None-Match gets a 304 from the shared 200"

# the client that sent the conditional resets its connection before the
# 304 comes: the others still get the freshened object
mark
script rrst "cc=max-age=0&etag=%22r%22&s=1000" "status=304&etag=%22r%22&cc=max-age=60&t=${SLOW}s" "status=500"
get rrst
FIRST=reset overlap rrst 4
# (Cache-Control from the 304)
FROM=2 expect_bodies "first client reset" 4 200 "$(pattern_sha 1000)" Cache-Control max-age=60
expect "first client reset: origin requests" "$(seen_count rrst)" 2
# the client that reset is logged TCP_MISS_ABORTED by cuttle, as any
# transaction its client resets before the reply; Squid 5.7 says TCP_REFRESH_ABORTED
expect_match "first client reset: access.log" "$(codes_after rrst 1 4)" \
    "^$(repeat 3 TCP_CF_REFRESH_UNMODIFIED/200) TCP_(MISS|REFRESH)_ABORTED/000\$"
get rrst
expect_hit "first client reset, afterwards" rrst 6 "$(pattern_sha 1000)"
pass_if_ok "collapsed_forwarding on: the others are served when the client that asked resets"

# the client that sent the conditional resets before a new 200 comes: the
# new object replaces the stale one for the others (it is stored as that
# client's would have been), and the next client gets it from the cache
mark
script rmod "cc=max-age=0&etag=%22a%22&s=1000" "cc=max-age=60&etag=%22b%22&s=2000&t=${SLOW}s" "status=500"
get rmod
FIRST=reset overlap rmod 4
FROM=2 expect_bodies "first client reset, a new 200" 4 200 "$(pattern_sha 2000)" ETag '"b"'
expect "first client reset, a new 200: origin requests" "$(seen_count rmod)" 2
[ -n "$CACHE_TEST_SQUID" ] ||
    expect_match "first client reset, a new 200: access.log" "$(codes_after rmod 1 4)" \
        "^$(repeat 3 TCP_CF_REFRESH_MODIFIED/200) TCP_MISS_ABORTED/000\$"
get rmod
expect_hit "first client reset, a new 200, afterwards" rmod 6 "$(pattern_sha 2000)"
pass_if_ok "collapsed_forwarding on: a new reply is stored for the others when the client that asked resets"

# Vary: clients of the same stale variant share its conditional; another
# variant is another stored object, revalidated with its own. Not run
# against Squid 5.7, which does not collapse the revalidations of a Vary
# reply ("TODO: support collapsed revalidation for Vary-controlled
# entries") and here sends the origin's 304 on to clients that sent no
# conditional (logged TCP_MISS/304, TCP_CF_HIT/304, TCP_CF_MISS/304)
if [ -z "$CACHE_TEST_SQUID" ]; then
    mark
    script rvary "cc=max-age=0&etag=%22va%22&s=100&h=Vary:Accept-Encoding" \
        "cc=max-age=0&etag=%22vb%22&s=200&h=Vary:Accept-Encoding" \
        "status=304&cc=max-age=60&h=Vary:Accept-Encoding&t=${SLOW}s"
    get rvary
    get rvary -H 'Accept-Encoding: br'
    overlap rvary 4 -H 'Accept-Encoding: br'
    expect_bodies "Vary" 3 200 "$(pattern_sha 100)"
    expect "Vary, the other variant: status" "$(c_code 4)" 200
    expect "Vary, the other variant: body" "$(c_sha 4)" "$(pattern_sha 200)"
    expect "Vary: origin requests" "$(seen_count rvary)" 4
    expect "Vary: the shared conditional's If-None-Match" "$(seen_field rvary 3 If-None-Match)" '"va"'
    expect "Vary: the other variant's If-None-Match" "$(seen_field rvary 4 If-None-Match)" '"vb"'
    expect "Vary: access.log" "$(codes_after rvary 2 4)" \
        "$(repeat 2 TCP_CF_REFRESH_UNMODIFIED/200) $(repeat 2 TCP_REFRESH_UNMODIFIED/200)"
    pass_if_ok "collapsed_forwarding on: clients of one stale variant share its conditional, another variant has its own"
fi

# a private 200: every joiner gets a reply of its own
mark
script rpriv "cc=max-age=0&etag=%22p%22&s=1000" "cc=private&s=2001&t=${SLOW}s" \
    "cc=private&s=2002&t=${SLOW}s" "cc=private&s=2003&t=${SLOW}s" "cc=private&s=2004&t=${SLOW}s"
get rpriv
overlap rpriv 4
i=1
while [ $i -le 4 ]; do
    expect "private, client $i: status" "$(c_code $i)" 200
    expect "private, client $i: body" "$(c_sha $i)" "$(pattern_sha "$(c_header $i Content-Length)")"
    i=$((i + 1))
done
expect "private: distinct replies (none shared)" \
    "$(for i in 1 2 3 4; do c_size $i; done | sort -u | wc -l | tr -d ' ')" 4
expect "private: origin requests" "$(seen_count rpriv)" 5
expect "private: access.log lines that went to the origin" "$(direct_after rpriv 1)" 4
# Squid 5.7 sends each joiner's request again as a plain miss, logged
# TCP_CF_MISS; cuttle sends its conditional (the stale object is still
# stored), logged as a lone revalidation
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect "private: access.log" "$(codes_after rpriv 1 4)" "$(repeat 4 TCP_REFRESH_MODIFIED/200)"
    expect "private: the joiners' If-None-Match" "$(grep -ci '^If-None-Match: "p"$' "$T/seen")" 4
else
    expect "private: access.log" "$(codes_after rpriv 1 4)" "$(repeat 3 TCP_CF_MISS/200) TCP_REFRESH_MODIFIED/200"
fi
pass_if_ok "collapsed_forwarding on, a private reply to the conditional: every client gets its own"

# a 500 to the conditional, with max_stale (refresh_pattern . ...) allowing
# the stale object: every client gets the stale object
mark
script r500 "cc=max-age=0&etag=%22f%22&s=100&h=Date:$(http_date 30)" "status=500&s=10&t=${SLOW}s" \
    "cc=max-age=60&etag=%22g%22&s=200"
get r500
overlap r500 4
expect_bodies "500, stale allowed" 4 200 "$(pattern_sha 100)"
expect "500, stale allowed: origin requests" "$(seen_count r500)" 2
expect "500, stale allowed: access.log" "$(codes_after r500 1 4)" \
    "$(repeat 3 TCP_CF_REFRESH_FAIL_OLD/200) TCP_REFRESH_FAIL_OLD/200"
pass_if_ok "collapsed_forwarding on: a 500 to one conditional serves every waiting client the stale object"

# the origin closes without a reply, stale allowed: the same (the
# conditional went out on a persistent connection, so it is sent once more
# on a new one, which fails too)
mark
script rempty "cc=max-age=0&etag=%22e%22&s=100&h=Date:$(http_date 30)" "fail=empty&t=${SLOW}s" "fail=empty"
get rempty
overlap rempty 4
# Squid 5.7 serves the stale object to the first client only: each joiner
# then asks the origin itself as a plain miss and gets its 502
# (TCP_CF_MISS/502); cuttle applies a lone revalidation's rules to every
# client (and Squid tries again more often than once)
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect_bodies "no reply, stale allowed" 4 200 "$(pattern_sha 100)"
    expect "no reply, stale allowed: origin requests" "$(seen_count rempty)" 3
    expect "no reply, stale allowed: access.log" "$(codes_after rempty 1 4)" \
        "$(repeat 3 TCP_CF_REFRESH_FAIL_OLD/200) TCP_REFRESH_FAIL_OLD/200"
else
    expect_bodies "no reply, stale allowed" 1 200 "$(pattern_sha 100)"
    expect "no reply, stale allowed: access.log" "$(codes_after rempty 1 4)" \
        "$(repeat 3 TCP_CF_MISS/502) TCP_REFRESH_FAIL_OLD/200"
fi
pass_if_ok "collapsed_forwarding on: no reply to one conditional serves every waiting client the stale object"

# a 500 that may not be replaced by the stale object (must-revalidate): it
# reaches every client, as Squid 5.7 shares it
mark
script rerr "cc=max-age=0,%20must-revalidate&etag=%22m%22&s=100" "status=500&s=10&t=${SLOW}s"
get rerr
overlap rerr 4
expect_bodies "500, must-revalidate" 4 500 "$(pattern_sha 10)"
expect "500, must-revalidate: origin requests" "$(seen_count rerr)" 2
expect "500, must-revalidate: access.log" "$(codes_after rerr 1 4)" \
    "$(repeat 3 TCP_CF_REFRESH_FAIL_ERR/500) TCP_REFRESH_FAIL_ERR/500"
pass_if_ok "collapsed_forwarding on: a 500 to a must-revalidate object reaches every client"

# off: each client revalidates on its own
cache_stop
cache_start "collapsed_forwarding off" "refresh_pattern . 0 20% 4320"
mark
script roff "cc=max-age=0&etag=%22o%22&s=1000" "status=304&etag=%22o%22&cc=max-age=60&t=${SLOW}s"
get roff
overlap roff 5
expect_bodies "collapsed off" 5 200 "$(pattern_sha 1000)"
expect "collapsed off: origin requests" "$(seen_count roff)" 6
expect "collapsed off: every conditional's If-None-Match" \
    "$(grep -ci '^If-None-Match: "o"$' "$T/seen")" 5
expect "collapsed off: access.log" "$(codes_after roff 1 5)" "$(repeat 5 TCP_REFRESH_UNMODIFIED/200)"
pass_if_ok "collapsed_forwarding off: $((5)) clients of a stale object send $((5)) conditionals"

cache_stop
checks_done
