#!/bin/sh
# miss_access: whether a request the cache cannot answer may be forwarded,
# as Squid 5.7's FwdState::Start checks it: a denied miss gets
# ERR_FORWARDING_DENIED (403, or the deny_info page), logged TCP_MISS/403; a
# hit is served whatever miss_access says (a sibling may take hits only).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl sibling req_header X-Sibling -i ^yes$" \
    "acl quiet req_header X-Quiet -i ^yes$" \
    "deny_info ERR_DNS_FAIL quiet" \
    "miss_access deny sibling" \
    "miss_access deny quiet" \
    "miss_access allow all"

URL="http://$O/s/ma?cc=max-age=600"
mark
curl -s -o "$T/page" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -H "X-Sibling: yes" "$URL" > "$T/code"
[ "$(cat "$T/code")" = 403 ] || bad "a denied miss: expected 403, got $(cat "$T/code")"
grep -q "ERR_FORWARDING_DENIED" "$T/page" || bad "a denied miss did not get ERR_FORWARDING_DENIED"
wait_until 5 access_log_has " TCP_MISS/403 [0-9]+ GET http://$O/s/ma\?" || bad "no TCP_MISS/403 line for the denied miss"
[ "$(seen_count ma)" = 0 ] || bad "the denied miss reached the origin"
expect_code "the same URL for a client miss_access allows" 200 "$URL"
expect_code "a hit for the client whose misses are denied" 200 "$URL" -H "X-Sibling: yes"
[ "$(seen_count ma)" = 1 ] || bad "the origin saw $(seen_count ma) requests, not 1"
pass_if_ok "a denied miss is refused; the allowed miss and then the hit are served"

mark
curl -s -o "$T/page" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    -H "X-Quiet: yes" "http://$O/s/other" > "$T/code"
[ "$(cat "$T/code")" = 403 ] || bad "deny_info: expected 403, got $(cat "$T/code")"
grep -q "ERR_DNS_FAIL" "$T/page" || bad "deny_info did not choose the page of a miss_access denial"
pass_if_ok "deny_info names the page of a miss_access denial"
cache_stop
checks_done
