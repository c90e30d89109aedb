#!/bin/sh
# https:// URLs asked by a plain-HTTP client (absolute-form) are fetched over
# TLS, verified against tls_outgoing_options cafile=: the body arrives whole,
# a request body goes out whole, a cacheable reply is a hit the second time, the TLS connection is pooled
# and reused, and a new connection to the same origin resumes the session.
# With workers (CUTTLE_TEST_WORKERS) the idle TLS connections are each
# worker's: the requests all go at once from one curl run on one client
# connection (one worker), and tls_get gives their results in turn; the
# origin's counts are read at the end only (the five requests before the
# close on one connection, then one more, resumed: accepted=2).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
tls_origin valid
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" "debug_options ALL,1 83,3"
cuttle_start

if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    head -c 1000000 /dev/urandom > "$T/upload"
    n=0
    for path in 'body?s=300000' cached cached echo 'body?s=10' 'close?s=10' 'body?s=10'; do
        n=$((n + 1))
        echo "$path" >> "$T/paths"
        [ $n = 1 ] || set -- "$@" --next
        [ "$path" != echo ] || set -- "$@" --data-binary "@$T/upload" -H 'Content-Type: application/octet-stream'
        set -- "$@" -x "127.0.0.1:$PORT" -D "$T/head.$n" -o "$T/body.$n" -w '%{http_code} %{num_connects}\n' \
            --request-target "https://origin.test:$TPORT/$path" "http://origin.test:$TPORT/"
    done
    curl -s --max-time "$(scaled 20)" "$@" > "$T/run.w"
    expect "seven requests on one client connection" "$(cut -d ' ' -f 2 "$T/run.w" | tr -d '\n')" 1000000
    echo 0 > "$T/tls_n"
    # tls_get PATH [CURL ARGS] : the next result of the curl run (for PATH;
    # called in $(...), it counts in a file)
    tls_get() {
        TLS_N=$(($(cat "$T/tls_n") + 1))
        echo "$TLS_N" > "$T/tls_n"
        [ "$(sed -n "${TLS_N}p" "$T/paths")" = "$1" ] || fail "request $TLS_N of the run is not $1"
        cp "$T/head.$TLS_N" "$T/head"
        cp "$T/body.$TLS_N" "$T/body"
        sed -n "${TLS_N}s/ .*//p" "$T/run.w"
    }
fi

expect "a 300 kB body over TLS" "$(tls_get 'body?s=300000')" 200
expect "its length" "$(wc -c < "$T/body")" 300000
expect "its bytes" "$(sha256sum < "$T/body")" \
    "$(python3 -c 'import sys; sys.stdout.write(("0123456789" * 30000))' | sha256sum)"
grep -q "TLS with origin.test:$TPORT: TLSv1.3" "$T/cache.log" || fail "cache.log does not name the TLS version"

expect "a cacheable reply" "$(tls_get cached)" 200
expect "the same again" "$(tls_get cached)" 200
expect "its body" "$(cat "$T/body")" cacheable
wait_until 5 access_log_has "TCP_MEM_HIT/200 [0-9]+ GET https://origin.test:$TPORT/cached " ||
    fail "the second https:// fetch was not a hit"
expect "the first was a miss" "$(grep -c "TCP_MISS/200 [0-9]* GET https://origin.test:$TPORT/cached " "$T/access.log")" 1

# a request body of 1 MB goes out over TLS whole
[ -f "$T/upload" ] || head -c 1000000 /dev/urandom > "$T/upload"
expect "a 1 MB POST" "$(tls_get echo --data-binary "@$T/upload" -H 'Content-Type: application/octet-stream')" 200
expect "the origin got it whole" "$(cat "$T/body")" "got 1000000 $(sha256sum < "$T/upload" | cut -d' ' -f1)"

# misses, a hit and a POST so far, all on the first connection
expect "another miss" "$(tls_get 'body?s=10')" 200
[ "$CUTTLE_TEST_WORKERS" != 1 ] || expect "one TLS connection for all" "$(tls_stats)" "accepted=1 handshakes=1 resumed=0"

# the origin closes after this one: the next request opens a connection that resumes
expect "a reply that closes" "$(tls_get 'close?s=10')" 200
expect "after it" "$(tls_get 'body?s=10')" 200
expect "a second connection, resumed" "$(tls_stats)" "accepted=2 handshakes=2 resumed=1"
grep -q "TLS with origin.test:$TPORT: TLSv1.3, session resumed" "$T/cache.log" ||
    fail "cache.log does not say the session was resumed"

cuttle_stop
