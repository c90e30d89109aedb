#!/bin/sh
# The address cache in front of DNS (Squid's ipcache): a name's addresses,
# or its failure, are kept, so a second request for the same host asks the
# DNS server nothing (the fake server's --log counts the queries; the origin
# closes each connection, so that no pooled one spares the lookup); the cache
# manager's ipcache page lists both, the failure flagged N, with their hits.
# With ipcache_size 0 every request asks again.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
dns_start kept.test=127.0.0.1 --log="$T/dns.log"
queries() { grep -c " $1 " "$T/dns.log" 2>/dev/null || true; }
fwd_conf "http_access allow localhost" "http_access deny all"
cuttle_start

[ "$(proxy_get "http://kept.test:$OPORT/a?close=1")" = 200 ] || fail "first request"
asked=$(queries kept.test)
[ "$asked" -ge 1 ] || fail "the first request asked no DNS"
[ "$(proxy_get "http://kept.test:$OPORT/b?close=1")" = 200 ] || fail "second request"
[ "$(queries kept.test)" = "$asked" ] || fail "the second request asked DNS again: $(cat "$T/dns.log")"
pass "a second request for kept.test asks DNS nothing"

[ "$(proxy_get "http://missing.test:$OPORT/a")" = 503 ] || fail "missing.test: not 503"
missed=$(queries missing.test)
[ "$(proxy_get "http://missing.test:$OPORT/b")" = 503 ] || fail "missing.test again: not 503"
error_page_is "$T/body" ERR_DNS_FAIL || fail "missing.test again: not ERR_DNS_FAIL"
[ "$(queries missing.test)" = "$missed" ] || fail "the failure was not kept: $(cat "$T/dns.log")"
pass "a name not found is kept too (negative_dns_ttl): 503 ERR_DNS_FAIL without a query"

# with workers, the other worker's counts reach the page 10 ms after it
# counted them (doc/differences.md); the cache itself is one
[ "$CUTTLE_TEST_WORKERS" = 1 ] || sleep 0.2
page=$(curl -s --max-time 10 "http://127.0.0.1:$PORT/squid-internal-mgr/ipcache" | tr -d '\r')
echo "$page" | grep -Eq "^ kept\.test +  +[0-9]+ +[0-9]+  1\( 0\) +127\.0\.0\.1-OK" ||
    fail "the ipcache page does not list kept.test: $page"
echo "$page" | grep -Eq "^ missing\.test +N  +[0-9]+ +[0-9]+  0\( 0\)" ||
    fail "the ipcache page does not list missing.test flagged N: $page"
echo "$page" | grep -q "^IPcache Hits: *2$" || fail "not 2 hits: $page"
echo "$page" | grep -q "^IPcache Negative Hits: *1$" || fail "not 1 negative hit: $page"
pass "the ipcache page lists the kept names and counts the hits"
cuttle_stop

fwd_conf "http_access allow localhost" "http_access deny all" "ipcache_size 0"
cuttle_start
asked=$(queries kept.test)
[ "$(proxy_get "http://kept.test:$OPORT/c?close=1")" = 200 ] || fail "ipcache_size 0: first request"
[ "$(proxy_get "http://kept.test:$OPORT/d?close=1")" = 200 ] || fail "ipcache_size 0: second request"
[ "$(queries kept.test)" -gt $((asked + 1)) ] || fail "ipcache_size 0 kept the answer: $(cat "$T/dns.log")"
pass "with ipcache_size 0 each request asks DNS"
cuttle_stop
