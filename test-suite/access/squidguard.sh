#!/bin/sh
# Debian's squidGuard as a real URL rewriter (url_rewrite_program): it answers
# Squid's helper protocol with quoted values (`OK status=302 url="..."`) for a
# blocked domain or URL, which the client gets as a redirect
# (TCP_REDIRECT/302), and ERR for the rest, which is fetched unchanged.
# Skipped where squidGuard is not installed (bootstrap.sh
# --install-test-deps installs it).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
SQUIDGUARD=$(command -v squidGuard) || { echo "SKIP: squidGuard is not installed"; exit 77; }
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

mkdir -p "$T/sg/db/bad" "$T/sg/log"
printf 'blocked.test\nads.test\n' > "$T/sg/db/bad/domains"
printf '127.0.0.1/s/private\n' > "$T/sg/db/bad/urls"
cat > "$T/sg/squidGuard.conf" <<CONF
dbhome $T/sg/db
logdir $T/sg/log
dest bad {
    domainlist bad/domains
    urllist bad/urls
}
acl {
    default {
        pass !bad all
        redirect 302:http://denied.test/blocked?url=%u
    }
}
CONF
chmod -R a+rwX "$T/sg"

cache_start \
    "url_rewrite_program $SQUIDGUARD -c $T/sg/squidGuard.conf" \
    "url_rewrite_children 2 startup=1 idle=1"

mark
code=$(curl -s -o /dev/null -D "$T/head" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    "http://www.blocked.test/page")
[ "$code" = 302 ] || bad "a blocked domain: expected 302, got $code"
tr -d '\r' < "$T/head" | grep -qi '^Location: http://denied.test/blocked?url=http://www.blocked.test/page$' ||
    bad "no squidGuard Location: $(cat "$T/head")"
wait_until 5 access_log_has " TCP_REDIRECT/302 [0-9]+ GET http://www.blocked.test/page " ||
    bad "no TCP_REDIRECT/302 line for the blocked domain"
expect_code "a subdomain of a blocked domain" 302 "http://ads.test/x"
pass_if_ok "squidGuard redirects blocked domains"

mark
expect_code "a blocked URL" 302 "http://$O/s/private/x"
expect_code "an allowed URL" 200 "http://$O/s/fine"
pass_if_ok "squidGuard: a blocked URL is redirected, the rest fetched"

cache_stop
checks_done
