#!/bin/sh
# send_hit as Squid 5.7 applies it: a hit the rules deny (request acls, or
# reply acls on the stored reply) is forwarded as a TCP_MISS; others are hits.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl nohit urlpath_regex ^/nohit" \
    "acl tagged rep_header X-Tag secret" \
    "send_hit deny nohit" \
    "send_hit deny tagged"

# codes PATH N : waits (bounded) until access.log has N lines for PATH, prints their codes
lines_for() { [ "$(grep -c " GET http://$O$1? " "$T/access.log" 2>/dev/null)" -ge "$2" ]; }
codes() {
    wait_until 5 lines_for "$1" "$2"
    grep " GET http://$O$1? " "$T/access.log" | awk '{print $4}' | tr '\n' ' '
}

mark
for path in /nohit /tag /ok; do
    q="cc=max-age=600"
    [ "$path" = /tag ] && q="$q&h=X-Tag:secret"
    expect_code "$path, first" 200 "http://$O$path?$q"
    expect_code "$path, second" 200 "http://$O$path?$q"
done
[ "$(codes /nohit 2)" = "TCP_MISS/200 TCP_MISS/200 " ] || bad "send_hit deny by a request acl: $(codes /nohit 2)"
[ "$(codes /tag 2)" = "TCP_MISS/200 TCP_MISS/200 " ] || bad "send_hit deny by a reply acl: $(codes /tag 2)"
[ "$(codes /ok 2)" = "TCP_MISS/200 TCP_MEM_HIT/200 " ] || bad "a hit send_hit allows: $(codes /ok 2)"
pass_if_ok "send_hit: denied hits are forwarded as misses"

cache_stop
checks_done
