#!/bin/sh
# Per-hop heads, as the origin saw them (/_seen) and as the client gets them:
# hop-by-hop fields are not forwarded either way, Via is appended (none added
# with "via off"), X-Forwarded-For follows forwarded_for
# on|off|transparent|truncate|delete, Host is the URL's authority.
# Each expectation is what Squid 5.7 forwards for the same request.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start

# start_with FORWARDED_FOR VIA : (re)starts cuttle with those settings
start_with() {
    cuttle_stop
    fwd_conf "http_access allow localhost" "http_access deny all" \
        "visible_hostname fwd-test.example" "forwarded_for $1" "via $2"
    cuttle_start
}

N=0
# fetch_seen [CURL ARGS] : one request to a new /s/ID through cuttle; the
# head the origin received goes to $T/seen (CR removed)
fetch_seen() {
    N=$((N + 1))
    code=$(curl_proxy -o /dev/null "$@" "http://127.0.0.1:$OPORT/s/req$N")
    [ "$code" = 200 ] || fail "request $N: status $code"
    curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$OPORT/_seen/req$N" | tr -d '\r' > "$T/seen"
    grep -q "^GET /s/req$N HTTP/1.1\$" "$T/seen" || fail "request $N: the origin saw $(cat "$T/seen")"
}

# seen_field NAME : the values of NAME the origin received, one a line
seen_field() { grep -i "^$1:" "$T/seen" | sed 's/^[^:]*: *//'; }

# expect_field NAME VALUE : exactly one NAME field with VALUE (none if VALUE is empty)
expect_field() {
    got=$(seen_field "$1")
    [ "$got" = "$2" ] || bad "forwarded_for $MODE, via $VIA, request $N: expected $1 '$2', the origin got '$got'"
}

MODE=on VIA=on
start_with on on
VERSION=$("$CUTTLE" -v | head -n 1 | sed -n 's/.*[Vv]ersion \([^ ]*\).*/\1/p')
[ -n "$VERSION" ] || fail "no version in cuttle -v: $("$CUTTLE" -v | head -n 1)"
OWN_VIA="1.1 fwd-test.example (cuttle/$VERSION)"

# request side: hop-by-hop fields (and the ones Connection names) stay here
fetch_seen -H 'Connection: X-Foo, X-Bar' -H 'X-Foo: 1' -H 'X-Bar: 2' -H 'Keep-Alive: 300' \
    -H 'Proxy-Connection: keep-alive' -H 'TE: trailers' -H 'Trailer: X-T' -H 'Upgrade: websocket' \
    -H 'Proxy-Authorization: Basic eDp5' -H 'X-End-To-End: yes' -H 'Host: other.example'
for name in X-Foo X-Bar Keep-Alive Proxy-Connection TE Trailer Upgrade Proxy-Authorization; do
    [ -z "$(seen_field $name)" ] || bad "hop-by-hop $name was forwarded: $(seen_field $name)"
done
seen_field Connection | grep -qi 'x-foo\|x-bar' && bad "Connection still names X-Foo: $(seen_field Connection)"
expect_field X-End-To-End yes
expect_field Host "127.0.0.1:$OPORT"
expect_field Via "$OWN_VIA"
expect_field X-Forwarded-For 127.0.0.1
pass "request: hop-by-hop removed, Host from the URL, Via and X-Forwarded-For added"

fetch_seen -H 'Via: 1.0 earlier' -H 'X-Forwarded-For: 10.1.2.3'
expect_field Via "1.0 earlier, $OWN_VIA"
expect_field X-Forwarded-For "10.1.2.3, 127.0.0.1"
pass "forwarded_for on appends the client; Via appended to the client's"

# reply side: the origin's hop-by-hop fields stay at cuttle, Via is appended
reply_url="http://127.0.0.1:$OPORT/?h=Connection:foo&h=Foo:bar&h=Keep-Alive:timeout%3D5&h=X-Ok:1&h=Trailer:X-T&h=Upgrade:y&h=Proxy-Connection:x"
code=$(curl_proxy -D "$T/head" -o /dev/null "$reply_url")
[ "$code" = 200 ] || fail "reply: status $code"
tr -d '\r' < "$T/head" > "$T/head.txt"
for name in Foo Keep-Alive Trailer Upgrade Proxy-Connection; do
    grep -qi "^$name:" "$T/head.txt" && bad "reply: hop-by-hop $name reached the client"
done
grep -i '^Connection:' "$T/head.txt" | grep -qi foo && bad "reply: Connection still names foo"
grep -q '^X-Ok: 1$' "$T/head.txt" || bad "reply: X-Ok lost"
[ "$(grep -i '^Via:' "$T/head.txt")" = "Via: $OWN_VIA" ] || bad "reply: Via is '$(grep -i '^Via:' "$T/head.txt")'"
code=$(curl_proxy -D "$T/head" -o /dev/null "http://127.0.0.1:$OPORT/?h=Via:1.0%20originside")
[ "$(grep -i '^Via:' "$T/head" | tr -d '\r')" = "Via: 1.0 originside, $OWN_VIA" ] ||
    bad "reply: Via is '$(grep -i '^Via:' "$T/head" | tr -d '\r')'"
pass "reply: hop-by-hop removed, Via appended"

# forwarded_for off: "unknown" instead of the address; via off adds no Via
# but keeps the client's and the origin's
MODE=off VIA=off
start_with off off
fetch_seen
expect_field X-Forwarded-For unknown
expect_field Via ""
fetch_seen -H 'Via: 1.0 earlier' -H 'X-Forwarded-For: 10.1.2.3'
expect_field X-Forwarded-For "10.1.2.3, unknown"
expect_field Via "1.0 earlier"
code=$(curl_proxy -D "$T/head" -o /dev/null "http://127.0.0.1:$OPORT/?s=10")
grep -qi '^Via:' "$T/head" && bad "via off: the reply has $(grep -i '^Via:' "$T/head")"
code=$(curl_proxy -D "$T/head" -o /dev/null "http://127.0.0.1:$OPORT/?h=Via:1.0%20originside")
[ "$(grep -i '^Via:' "$T/head" | tr -d '\r')" = "Via: 1.0 originside" ] ||
    bad "via off: the reply's Via is '$(grep -i '^Via:' "$T/head" | tr -d '\r')'"
pass "forwarded_for off, via off"

MODE=transparent VIA=on
start_with transparent on
fetch_seen
expect_field X-Forwarded-For ""
fetch_seen -H 'X-Forwarded-For: 10.1.2.3'
expect_field X-Forwarded-For 10.1.2.3
pass "forwarded_for transparent"

MODE=truncate
start_with truncate on
fetch_seen -H 'X-Forwarded-For: 10.1.2.3, 10.4.5.6'
expect_field X-Forwarded-For 127.0.0.1
pass "forwarded_for truncate"

MODE=delete
start_with delete on
fetch_seen -H 'X-Forwarded-For: 10.1.2.3'
expect_field X-Forwarded-For ""
fetch_seen
expect_field X-Forwarded-For ""
pass "forwarded_for delete"

cuttle_stop
checks_done
