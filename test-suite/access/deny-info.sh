#!/bin/sh
# deny_info as Squid 5.7 applies it, for the last acl the rules evaluated:
# another error page (with its status), a redirect with its %-codes
# expanded (302; 307 for a POST; a given 3xx), TCP_RESET; for http_access
# and http_reply_access denials; the access.log lines.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl page urlpath_regex ^/page" \
    "acl redir urlpath_regex ^/redir" \
    "acl reset urlpath_regex ^/reset" \
    "acl status urlpath_regex ^/status" \
    "acl see urlpath_regex ^/see" \
    "acl first urlpath_regex ^/two" \
    "acl second urlpath_regex -i ^/TWO" \
    "acl js rep_mime_type text/js" \
    "acl nomatch urlpath_regex ^/never" \
    "deny_info ERR_DNS_FAIL page" \
    "deny_info http://example.com/blocked?u=%u&U=%U&H=%H&i=%i&M=%M&p=%p&P=%P&R=%R&a=%a&w=%w&h=%h&A=%A&e=%e&E=%E&pc=%% redir" \
    "deny_info TCP_RESET reset" \
    "deny_info 404:ERR_ACCESS_DENIED status" \
    "deny_info 303:http://example.com/see-other see" \
    "deny_info ERR_CONNECT_FAIL first" \
    "deny_info ERR_READ_ERROR second" \
    "deny_info http://example.com/reply?u=%u js" \
    "http_access deny page" \
    "http_access deny redir" \
    "http_access deny reset" \
    "http_access deny status" \
    "http_access deny see" \
    "http_access deny first second" \
    "http_reply_access deny js" \
    "http_access deny nomatch"

# log_has REGEX : waits (bounded) for an access.log line
log_has() { wait_until 5 access_log_has "$1"; }

mark
expect_code "another page" 403 "http://$O/page"
grep -q ERR_DNS_FAIL "$T/body" || bad "the page is not ERR_DNS_FAIL"
log_has " TCP_DENIED/403 [0-9]+ GET http://$O/page - HIER_NONE/- text/html" || bad "no TCP_DENIED/403 line for the page"
expect_code "a page with its status" 404 "http://$O/status"
grep -q ERR_ACCESS_DENIED "$T/body" || bad "the 404 page is not ERR_ACCESS_DENIED"
log_has " TCP_DENIED/404 [0-9]+ GET http://$O/status - HIER_NONE/- text/html" || bad "no TCP_DENIED/404 line"
# the last acl of the line decides, not the first
expect_code "the last acl of the line" 403 "http://$O/two"
grep -q ERR_READ_ERROR "$T/body" || bad "the page of a two-acl line is not the last acl's"
# a request no deny_info names gets ERR_ACCESS_DENIED
expect_code "no deny_info" 403 "http://$O/never"
grep -q ERR_ACCESS_DENIED "$T/body" || bad "a denial without deny_info is not ERR_ACCESS_DENIED"
pass_if_ok "deny_info ERR_PAGE and NNN:ERR_PAGE"

mark
fetch_url "http://$O/redir?q=a%20b"
[ "$CODE" = 302 ] || bad "the redirect: $CODE"
want="http://example.com/blocked?u=http%3A%2F%2F$(echo "$O" | sed 's/:/%3A/')%2Fredir%3Fq%3Da%2520b"
want="$want&U=http%3A%2F%2F$(echo "$O" | sed 's/:/%3A/')%2Fredir%3F&H=127.0.0.1&i=127.0.0.1&M=GET&p=$OPORT"
want="$want&P=http&R=/redir?q=a%20b&a=-&w=webmaster&h=$CACHE_HOST&A=127.0.0.1&e=0&E=%5BNo%20Error%5D&pc=%25"
[ "$(header Location)" = "$want" ] || bad "Location: '$(header Location)', expected '$want'"
[ "$(header Content-Length)" = 0 ] || bad "the redirect has a body"
[ "$(header X-Squid-Error)" = "403 Access Denied" ] || bad "X-Squid-Error: '$(header X-Squid-Error)'"
log_has " TCP_DENIED/302 [0-9]+ GET http://$O/redir\\? - HIER_NONE/- text/html" || bad "no TCP_DENIED/302 line"
fetch_url "http://$O/redir" -X POST -d x=1
[ "$CODE" = 307 ] || bad "an HTTP/1.1 POST is redirected with $CODE, not 307"
fetch_url "http://$O/redir" -0
[ "$CODE" = 302 ] || bad "an HTTP/1.0 GET is redirected with $CODE, not 302"
fetch_url "http://$O/see"
[ "$CODE" = 303 ] || bad "a 303: URL redirect: $CODE"
[ "$(header Location)" = "http://example.com/see-other" ] || bad "the 303's Location: '$(header Location)'"
[ "$(header X-Squid-Error)" = "303 Access Denied" ] || bad "the 303's X-Squid-Error: '$(header X-Squid-Error)'"
pass_if_ok "deny_info URL: a redirect with its codes expanded"

mark
curl -s -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://$O/reset"
rc=$?
[ "$rc" = 56 ] || [ "$rc" = 52 ] || bad "TCP_RESET: curl exit $rc, not a reset"
log_has " TCP_DENIED/000 0 GET http://$O/reset - HIER_NONE/- -" || bad "no TCP_DENIED/000 line for the reset"
pass_if_ok "deny_info TCP_RESET"

mark
fetch_url "http://$O/js?ct=text/js"
[ "$CODE" = 302 ] || bad "an http_reply_access denial with deny_info: $CODE"
[ "$(header Location)" = "http://example.com/reply?u=http%3A%2F%2F$(echo "$O" | sed 's/:/%3A/')%2Fjs%3Fct%3Dtext%2Fjs" ] ||
    bad "the reply denial's Location: '$(header Location)'"
log_has " TCP_DENIED_REPLY/302 [0-9]+ GET http://$O/js\\? - HIER_DIRECT/127\\.0\\.0\\.1 text/html" ||
    bad "no TCP_DENIED_REPLY/302 line"
pass_if_ok "deny_info for http_reply_access"

cache_stop
checks_done
