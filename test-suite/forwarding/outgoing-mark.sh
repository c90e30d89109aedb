#!/bin/sh
# tcp_outgoing_mark: the connections to the origin carry the netfilter mark
# of the first matching line (ss shows each socket's fwmark); started as
# root with such a line, cuttle still serves as cache_effective_user and
# keeps CAP_NET_ADMIN (SO_MARK needs it) beside CAP_NET_BIND_SERVICE, and
# nothing else; without one it keeps CAP_NET_BIND_SERVICE only. Needs root.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the privilege drop and CAP_NET_ADMIN)"; exit 77; }
command -v ss > /dev/null 2>&1 || { echo "SKIP: no ss (iproute2)"; exit 77; }
cuttle_setup
origin_start

# marks : the fwmarks of the connections to the origin, sorted
marks() { ss -tne dst "127.0.0.1:$OPORT" | grep -o 'fwmark:0x[0-9a-f]*' | sort -u | tr '\n' ' '; }
# cap_eff : cuttle's effective capabilities, as /proc/PID/status prints them
cap_eff() { awk '$1 == "CapEff:" {print $2}' "/proc/$CUTTLE_PID/status"; }

fwd_conf "acl b urlpath_regex ^/b" "tcp_outgoing_mark 0x2b b" "tcp_outgoing_mark 0x2a" \
    "http_access allow localhost" "http_access deny all"
cuttle_start
[ "$(proxy_get "http://127.0.0.1:$OPORT/a")" = 200 ] || fail "/a: not 200"
[ "$(proxy_get "http://127.0.0.1:$OPORT/b")" = 200 ] || fail "/b: not 200"
# both stay open in the pool, each with its mark
wait_until 5 test "$(marks)" = "fwmark:0x2a fwmark:0x2b " || fail "the origin connections' marks: '$(marks)'"
pass "each origin connection has the mark of its first matching tcp_outgoing_mark line"

uid=$(awk '$1 == "Uid:" {print $2 $3 $4 $5}' "/proc/$CUTTLE_PID/status")
want=$(id -u proxy)
[ "$uid" = "$want$want$want$want" ] || fail "cuttle serves as uid $uid, not proxy's $want"
[ "$(cap_eff)" = 0000000000001400 ] || fail "effective capabilities $(cap_eff), not net_bind_service and net_admin"
grep -q "Dropped root: serving as proxy .* with the capabilities cap_net_bind_service,cap_net_admin$" "$T/cache.log" ||
    fail "cache.log does not say which capabilities stayed"
pass "it serves as proxy with CAP_NET_BIND_SERVICE and CAP_NET_ADMIN only"
cuttle_stop

fwd_conf "http_access allow localhost" "http_access deny all"
cuttle_start
[ "$(cap_eff)" = 0000000000000400 ] || fail "without tcp_outgoing_mark: effective capabilities $(cap_eff)"
pass "without tcp_outgoing_mark only CAP_NET_BIND_SERVICE stays"
cuttle_stop
