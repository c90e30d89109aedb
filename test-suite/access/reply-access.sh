#!/bin/sh
# http_reply_access with the reply acls (rep_mime_type, http_status,
# rep_header, hier_code): a denied reply becomes ERR_ACCESS_DENIED (403),
# logged TCP_DENIED_REPLY/403, for misses and for hits alike; the rest pass.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl js rep_mime_type -i ^application/javascript\$" \
    "acl teapot http_status 418 500-" \
    "acl tagged rep_header X-Tag ^secret" \
    "acl fromCache hier_code HIER_NONE" \
    "acl hitOnly urlpath_regex ^/hitdeny" \
    "http_reply_access deny js" \
    "http_reply_access deny teapot" \
    "http_reply_access deny tagged" \
    "http_reply_access deny fromCache hitOnly" \
    "http_reply_access allow all"

mark
expect_code "rep_mime_type" 403 "http://$O/a?ct=Application/JavaScript"
grep -q ERR_ACCESS_DENIED "$T/body" || bad "the denied reply is not the ERR_ACCESS_DENIED page"
# (strip_query_terms keeps the "?" and drops the query, in Squid too)
wait_until 5 access_log_has " TCP_DENIED_REPLY/403 [0-9]+ GET http://$O/a\\? - HIER_DIRECT/127\\.0\\.0\\.1 text/html" ||
    bad "no TCP_DENIED_REPLY/403 line"
expect_code "rep_mime_type no match" 200 "http://$O/a?ct=text/plain"
expect_code "http_status listed" 403 "http://$O/b?status=418"
expect_code "http_status open range" 403 "http://$O/b?status=503"
expect_code "http_status not listed" 404 "http://$O/b?status=404"
expect_code "rep_header" 403 "http://$O/c?h=X-Tag:secret-1"
expect_code "rep_header no match" 200 "http://$O/c?h=X-Tag:public"
pass_if_ok "rep_mime_type, http_status, rep_header"

# a cacheable reply: the miss (HIER_DIRECT) passes, the hit (HIER_NONE) is denied
mark
expect_code "the miss" 200 "http://$O/hitdeny?cc=max-age=600&s=100"
expect_code "the hit" 403 "http://$O/hitdeny?cc=max-age=600&s=100"
wait_until 5 access_log_has " TCP_DENIED_REPLY/403 [0-9]+ GET http://$O/hitdeny" ||
    bad "no TCP_DENIED_REPLY/403 line for the hit"
expect_code "another path's hit" 200 "http://$O/hitok?cc=max-age=600&s=100"
expect_code "another path's hit" 200 "http://$O/hitok?cc=max-age=600&s=100"
pass_if_ok "hier_code: hits denied, misses sent"

# a keep-alive connection goes on after a denied reply
mark
out=$(curl -s -o /dev/null -o /dev/null -w '%{http_code} ' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    "http://$O/a?ct=application/javascript" "http://$O/a?ct=text/plain")
[ "$out" = "403 200 " ] || bad "two requests on one connection: got '$out'"
pass_if_ok "the connection serves the next request"

cache_stop
checks_done
