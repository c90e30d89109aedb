#!/bin/sh
# Where a miss goes, as Squid 5.7's peer selection decides, seen in the
# logs of two cuttle parents, the origin's requests and the child's
# access.log: always_direct, never_direct, cache_peer_access, a
# non-hierarchical POST (nonhierarchical_direct), prefer_direct, no usable
# parent under never_direct (503 ERR_CANNOT_FORWARD), a CONNECT that
# never_direct sends to the first parent (as Squid 5.7), and proxy-only.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/hierarchy/helpers.sh"
cuttle_setup
origin_start
peer_start pa "cache deny all"
PA=$PEER_PORT
peer_start pb "cache deny all"
PB=$PEER_PORT
fwd_conf "acl b urlpath_regex ^/b/" "acl direct urlpath_regex ^/direct/" "acl forced urlpath_regex ^/(forced|b|nowhere)/" \
    "acl nowhere urlpath_regex ^/nowhere/" "acl cached urlpath_regex ^/cached/" "acl SSL_ports port 443" \
    "cache_peer 127.0.0.1 parent $PA 0 no-query name=pa proxy-only" \
    "cache_peer 127.0.0.1 parent $PB 0 no-query name=pb" \
    "cache_peer_access pa deny b" "cache_peer_access pa deny nowhere" "cache_peer_access pb deny nowhere" \
    "always_direct allow direct" "never_direct allow forced" "never_direct allow CONNECT" \
    "http_access allow localhost" "http_access deny all"
cuttle_start
U="http://127.0.0.1:$OPORT"

# went URL CODE PARENT : the child logged CODE for URL and PARENT (pa, pb or origin) got it
went() {
    wait_until 5 access_log_has " $1 - $2/127\.0\.0\.1 " || { bad "$1: not logged $2: $(log_line "$1")"; return; }
    case $3 in
    pa) other=pb ;;
    pb) other=pa ;;
    *) other="pa pb" ;;
    esac
    [ "$3" = origin ] || peer_log_has "$3/access.log" " $1 " || bad "$1 did not reach $3"
    for o in $other; do
        ! peer_log_has "$o/access.log" " $1 " || bad "$1 reached $o"
    done
}

mark
[ "$(proxy_get "$U/direct/1")" = 200 ] || bad "always_direct request"
went "$U/direct/1" HIER_DIRECT origin
pass_if_ok "always_direct: HIER_DIRECT, no parent sees it"

mark
[ "$(proxy_get "$U/plain/1")" = 200 ] || bad "plain request"
went "$U/plain/1" FIRSTUP_PARENT pa
pass_if_ok "a hierarchical GET goes to the first parent up"

mark
[ "$(proxy_get "$U/b/1")" = 200 ] || bad "cache_peer_access request"
went "$U/b/1" FIRSTUP_PARENT pb
pass_if_ok "cache_peer_access pa deny: the request goes to pb"

mark
[ "$(proxy_get "$U/plain/2" -d x=1)" = 200 ] || bad "POST"
went "$U/plain/2" HIER_DIRECT origin
[ "$(proxy_get "$U/forced/2" -d x=1)" = 200 ] || bad "POST under never_direct"
went "$U/forced/2" FIRSTUP_PARENT pa
pass_if_ok "a POST goes direct (nonhierarchical_direct), unless never_direct"

mark
code=$(proxy_get "$U/nowhere/1")
[ "$code" = 503 ] || bad "no usable parent under never_direct: got $code"
error_page_is "$T/body" ERR_CANNOT_FORWARD || bad "not ERR_CANNOT_FORWARD: $(head -c 300 "$T/body")"
wait_until 5 access_log_has " TCP_MISS/503 [0-9]+ GET $U/nowhere/1 - HIER_NONE/- " ||
    bad "not logged TCP_MISS/503 HIER_NONE: $(log_line nowhere)"
pass_if_ok "never_direct with no usable parent: 503 ERR_CANNOT_FORWARD"

mark
code=$(curl -s -o /dev/null -w '%{http_connect}' --max-time 5 -p -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/" 2>/dev/null)
[ "$code" = 200 ] || bad "CONNECT under never_direct: got $code"
wait_until 5 access_log_has " TCP_TUNNEL/200 [0-9]+ CONNECT 127\.0\.0\.1:$OPORT - FIRSTUP_PARENT/127\.0\.0\.1 " ||
    bad "CONNECT under never_direct: not logged FIRSTUP_PARENT: $(log_line CONNECT)"
wait_until 5 peer_log_has pa/access.log " CONNECT 127\.0\.0\.1:$OPORT " || bad "CONNECT under never_direct: pa did not get it"
pass_if_ok "a CONNECT that never_direct forbids to go direct goes through the first parent, not direct"

# proxy-only: pa's replies are not cached, pb's are
mark
for i in 1 2; do
    [ "$(proxy_get "$U/forced/c?cc=max-age=600")" = 200 ] || bad "proxy-only fetch $i"
done
n=$(grep -c "/forced/c" "$T/pa/access.log")
[ "$n" = 2 ] || bad "pa (proxy-only) got the cacheable object $n times, not twice"
for i in 1 2; do
    [ "$(proxy_get "$U/b/c?cc=max-age=600")" = 200 ] || bad "pb fetch $i"
done
n=$(grep -c "/b/c" "$T/pb/access.log")
[ "$n" = 1 ] || bad "pb's cacheable object was fetched $n times, not once"
pass_if_ok "proxy-only: a parent's replies are not cached; another parent's are"
checks_done
cuttle_stop
