#!/bin/sh
# The cache manager's URLs, answered by the proxy itself as Squid 5.7 does:
# squidclient's cache_object://HOST/ACTION, http://VISIBLE_HOSTNAME:PORT/
# squid-internal-mgr/ACTION in origin-form to the port and in absolute-form
# through the proxy (another host or port is forwarded), gated by http_access
# and the manager acl (Squid's default rules, and a src acl), and the
# access.log lines of each.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/mgr/helpers.sh"
cuttle_setup

cache_start "$MGR_RULES"

mark
mgr info
expect "cache_object info" "$MCODE" 200
expect_match "its type" "$(mgr_header Content-Type)" '^text/plain'
# Squid 5.7's head: it expires as it is made
expect "Expires is Date" "$(mgr_header Expires)" "$(mgr_header Date)"
expect_match "X-Cache" "$(mgr_header X-Cache)" "^MISS from $CACHE_HOST\$"
body_has "info page" '^Squid Object Cache: Version '
logged ' TCP_MISS/200 [0-9]+ GET cache_object://127\.0\.0\.1/info - HIER_NONE/- text/plain$'
mgr ""
expect "cache_object with no action: the menu" "$MCODE" 200
body_has "menu" '^ info +	General Runtime Information +	public$'
pass_if_ok "squidclient mgr:info, mgr: (cache_object URLs)"

mark
internal info
expect "origin-form /squid-internal-mgr/info" "$MCODE" 200
body_has "info page" '^Squid Object Cache: Version '
logged " TCP_MISS/200 [0-9]+ GET http://$CACHE_HOST:$PORT/squid-internal-mgr/info - HIER_NONE/- text/plain\$"
code=$(proxy_get "http://$CACHE_HOST:$PORT/squid-internal-mgr/menu")
expect "absolute-form to visible_hostname:port" "$code" 200
grep -q "^ menu " "$T/body" || bad "absolute-form: no menu in $(head -c 300 "$T/body")"
internal nosuch
expect "unknown action" "$MCODE" 404
expect "unknown action's page" "$(mgr_header X-Squid-Error)" "ERR_INVALID_URL 0"
logged " TCP_MISS/404 [0-9]+ GET http://$CACHE_HOST:$PORT/squid-internal-mgr/nosuch - HIER_NONE/- text/html\$"
pass_if_ok "http://visible_hostname:port/squid-internal-mgr/ACTION"

mark
# the same path on another port is not this proxy's: forwarded (and fails
# here: the name does not resolve), not answered
rm -f "$T/body"
code=$(proxy_get "http://$CACHE_HOST:1/squid-internal-mgr/menu" --max-time "$(scaled 3)")
[ "$code" != 200 ] || bad "another port's manager path was answered"
! grep -qs "^ menu " "$T/body" || bad "another port's manager path got the menu"
pass_if_ok "another host:port's /squid-internal-mgr/ is forwarded"

mark
# Squid's default rules deny the manager to other clients; a src acl picks them
cache_start "acl admin src 127.0.0.2" "http_access allow admin manager" "http_access deny manager"
mgr info
expect "from 127.0.0.1, not admin" "$MCODE" 403
expect "denied page" "$(mgr_header X-Squid-Error)" "ERR_ACCESS_DENIED 0"
logged ' TCP_DENIED/403 [0-9]+ GET cache_object://127\.0\.0\.1/info - HIER_NONE/- text/html$'
mgr info -l 127.0.0.2
expect "from 127.0.0.2, admin" "$MCODE" 200
body_has "info page" '^Squid Object Cache: Version '
internal counters --interface 127.0.0.1
expect "http form from 127.0.0.1" "$MCODE" 403
internal counters --interface 127.0.0.2
expect "http form from 127.0.0.2" "$MCODE" 200
pass_if_ok "http_access with the manager acl: denied 403, allowed"

cache_stop
checks_done
