#!/bin/sh
# store_miss: a fetched reply the rules deny is served but not stored, so
# the next request for it is a miss again; the rules see the request and the
# reply (rep_header). What they allow is stored as usual.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl nokeep urlpath_regex ^/s/nokeep" \
    "acl tagged rep_header X-No-Keep ." \
    "store_miss deny nokeep" \
    "store_miss deny tagged" \
    "store_miss allow all"

mark
for i in 1 2; do
    expect_code "a reply store_miss denies ($i)" 200 "http://$O/s/nokeep?cc=max-age=600"
    expect_code "a reply with the header store_miss denies ($i)" 200 "http://$O/s/tag?cc=max-age=600&h=X-No-Keep:1"
    expect_code "a reply store_miss allows ($i)" 200 "http://$O/s/keep?cc=max-age=600"
done
[ "$(seen_count nokeep)" = 2 ] || bad "the denied reply was stored: the origin saw $(seen_count nokeep) requests"
[ "$(seen_count tag)" = 2 ] || bad "the reply with the header was stored: the origin saw $(seen_count tag) requests"
[ "$(seen_count keep)" = 1 ] || bad "the allowed reply was not stored: the origin saw $(seen_count keep) requests"
wait_until 5 access_log_has "HIT/200 [0-9]+ GET http://$O/s/keep\?" || bad "no hit line for the stored reply"
pass_if_ok "store_miss keeps the replies it denies out of the cache"
cache_stop
checks_done
