#!/bin/sh
# CONNECT through a parent (never_direct), as Squid 5.7 sends it: to Squid
# 5.7 and to a cuttle parent in turn, `CONNECT host:port HTTP/1.1` with
# login= as Proxy-Authorization (the Squid parent logs it); the parent's 200
# opens the tunnel (curl fetches the test origin's page through it, so bytes
# go both ways), logged TCP_TUNNEL/200 ... FIRSTUP_PARENT/127.0.0.1; the
# parent's 403 (a CONNECT to a port it denies) reaches the client with its
# page, logged TCP_TUNNEL/403 ... FIRSTUP_PARENT/127.0.0.1. A parent that
# cannot be reached gets Squid 5.7's answer: 500 ERR_CANNOT_FORWARD, logged
# NONE_NONE/500 ... HIER_NONE/-.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
DENIED=$(closed_port)
DENY="acl CONNECT method CONNECT
acl denied port $DENIED
http_access deny CONNECT denied"

# through PARENT_NAME PARENT_PORT : the checks through the parent on that port
through() {
    fwd_conf "cache_peer 127.0.0.1 parent $2 0 no-query name=$1 login=alice:secret" "never_direct allow all" \
        "acl SSL_ports port $OPORT $DENIED" "acl CONNECT method CONNECT" "http_access deny CONNECT !SSL_ports" \
        "http_access allow localhost" "http_access deny all"
    cuttle_start

    code=$(curl -s -o "$T/body" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -p -w '%{http_connect} %{http_code}' \
        "http://127.0.0.1:$OPORT/tunnelled?s=5000")
    [ "$code" = "200 200" ] || fail "$1: CONNECT through the parent: $code"
    [ "$(stat -c %s "$T/body")" = 5000 ] || fail "$1: a body of $(stat -c %s "$T/body") bytes through the tunnel"
    wait_until 5 access_log_has " TCP_TUNNEL/200 [0-9]+ CONNECT 127\.0\.0\.1:$OPORT - FIRSTUP_PARENT/127\.0\.0\.1 -\$" ||
        fail "$1: no TCP_TUNNEL/200 FIRSTUP_PARENT line"
    wait_until 5 peer_log_has "$1/access.log" "TCP_TUNNEL/200 [0-9]+ CONNECT 127\.0\.0\.1:$OPORT " ||
        fail "$1: the parent did not tunnel: $(cat "$T/$1/access.log")"
    pass "$1: the tunnel goes through the parent, logged FIRSTUP_PARENT"

    reply=$(RAW_TO=127.0.0.1:$PORT raw_send "CONNECT 127.0.0.1:$DENIED HTTP/1.1\r\nHost: 127.0.0.1:$DENIED\r\n\r\n" |
        tr -d '\r')
    echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 403 ' || fail "$1: not the parent's 403: $(echo "$reply" | head -n 5)"
    echo "$reply" | grep -q '^X-Squid-Error: ERR_ACCESS_DENIED' || fail "$1: not the parent's page: $reply"
    echo "$reply" | grep -q '^Connection: close$' || fail "$1: the relayed 403 keeps the connection"
    echo "$reply" | grep -q 'ERR_ACCESS_DENIED' || fail "$1: no page"
    wait_until 5 access_log_has " TCP_TUNNEL/403 [0-9]+ CONNECT 127\.0\.0\.1:$DENIED - FIRSTUP_PARENT/127\.0\.0\.1 -\$" ||
        fail "$1: no TCP_TUNNEL/403 FIRSTUP_PARENT line"
    pass "$1: the parent's 403 reaches the client, logged TCP_TUNNEL/403"
    cuttle_stop
}

# shellcheck disable=SC2086 # one directive per line
IFS='
'
squid_start sq $DENY "logformat withuser %rm %ru [%{Proxy-Authorization}>h] %Ss/%>Hs" \
    "access_log stdio:$T/sq/users.log withuser"
SQPORT=$PEER_PORT
peer_start cu $DENY
CUPORT=$PEER_PORT
unset IFS

through sq "$SQPORT"
peer_log_has sq/users.log "CONNECT 127\.0\.0\.1:$OPORT \[Basic YWxpY2U6c2VjcmV0\] TCP_TUNNEL/200" ||
    fail "Squid did not get alice's credentials: $(cat "$T/sq/users.log")"
pass "login=alice:secret reaches Squid 5.7 as Proxy-Authorization"
through cu "$CUPORT"

# nothing listens where the parent should be
fwd_conf "cache_peer 127.0.0.1 parent $(closed_port) 0 no-query name=gone" "never_direct allow all" \
    "http_access allow localhost" "http_access deny all"
cuttle_start
reply=$(RAW_TO=127.0.0.1:$PORT raw_send "CONNECT 127.0.0.1:$OPORT HTTP/1.1\r\nHost: 127.0.0.1:$OPORT\r\n\r\n" | tr -d '\r')
echo "$reply" | head -n 1 | grep -q '^HTTP/1.1 500 ' || fail "unreachable parent: $(echo "$reply" | head -n 1)"
echo "$reply" | grep -q '^X-Squid-Error: ERR_CANNOT_FORWARD' || fail "unreachable parent: not ERR_CANNOT_FORWARD"
wait_until 5 access_log_has " NONE_NONE/500 [0-9]+ CONNECT 127\.0\.0\.1:$OPORT - HIER_NONE/- " ||
    fail "unreachable parent: not logged NONE_NONE/500 HIER_NONE: $(cat "$T/access.log")"
pass "an unreachable parent: 500 ERR_CANNOT_FORWARD, as Squid 5.7"
cuttle_stop
