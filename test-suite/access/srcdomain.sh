#!/bin/sh
# Domain acls that need the name of an address, by reverse DNS (Squid's
# fqdncache): srcdomain and srcdom_regex test the client's name. The suite's
# fake DNS gives 127.0.0.1 the name client.example.test; an address without
# a name is "none", as in Squid. A name is asked of DNS once and then kept
# (positive_dns_ttl); hosts_file answers first. dstdomain and dstdom_regex
# never look up an address in the URL (doc/differences.md): Squid 5.7 would
# match the rows marked so.
#
# cuttle only: Squid 5.7's dns_nameservers takes no port, so it cannot be
# pointed at the fake DNS (the matching rules follow Squid's
# ACLSourceDomainStrategy and ACLDestinationDomainStrategy).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"
dns_start --ptr=127.0.0.1=Client.Example.Test --log="$T/dns.log"

ptr_queries() { grep -c " PTR$" "$T/dns.log" 2>/dev/null || true; }

mark
cache_start \
    "acl fromclient srcdomain .example.test" \
    "acl src_path urlpath_regex ^/s/src-denied" \
    "http_access deny fromclient src_path" \
    "acl other srcdomain .elsewhere.test none" \
    "acl other_path urlpath_regex ^/s/other" \
    "http_access deny other other_path" \
    "acl rx srcdom_regex -i ^CLIENT\\.example" \
    "acl rx_path urlpath_regex ^/s/rx-denied" \
    "http_access deny rx rx_path" \
    "acl dd dstdomain .example.test" \
    "acl dd_path urlpath_regex ^/s/dst-denied" \
    "http_access deny dd dd_path" \
    "acl ddn dstdomain -n .example.test" \
    "acl ddn_path urlpath_regex ^/s/dstn" \
    "http_access deny ddn ddn_path" \
    "acl drx dstdom_regex ^client\\." \
    "acl drx_path urlpath_regex ^/s/drx-denied" \
    "http_access deny drx drx_path"
expect_code "srcdomain: the client's name is in the domain" 403 "http://$O/s/src-denied"
expect_code "srcdomain: the rest of the rule does not match" 200 "http://$O/s/src-fine"
expect_code "srcdomain: another domain (and none) does not match a named client" 200 "http://$O/s/other"
expect_code "srcdom_regex -i: the client's name matches" 403 "http://$O/s/rx-denied"
expect_code "dstdomain: an address URL is not looked up (Squid: 403)" 200 "http://$O/s/dst-denied"
expect_code "dstdomain -n: an address URL is not looked up" 200 "http://$O/s/dstn"
expect_code "dstdom_regex: an address URL is not looked up (Squid: 403)" 200 "http://$O/s/drx-denied"
pass_if_ok "srcdomain and srcdom_regex match the client's name; dstdomain compares an address as written"

mark
before=$(ptr_queries)
[ "$before" -ge 1 ] || bad "the fake DNS got no PTR query"
for i in 1 2 3; do
    expect_code "srcdomain again ($i)" 403 "http://$O/s/src-denied"
done
[ "$(ptr_queries)" = "$before" ] || bad "the name was asked again: $before then $(ptr_queries) PTR queries"
curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$PORT/squid-internal-mgr/fqdncache" > "$T/fqdncache"
grep -Eq "^127\.0\.0\.1 +[0-9]+ +1 Client\.Example\.Test$" "$T/fqdncache" ||
    bad "the manager's fqdncache page does not list the name: $(cat "$T/fqdncache")"
grep -Eq "^FQDNcache Hits: [1-9]" "$T/fqdncache" || bad "the fqdncache page counts no hit: $(cat "$T/fqdncache")"
pass_if_ok "a name found once is kept: DNS is not asked again, and mgr:fqdncache lists it"
cache_stop

# an address without a name is "none"; hosts_file answers before DNS
mark
: > "$T/dns.log"
printf '127.0.0.1 listed.test\n' > "$T/hosts"
cache_start \
    "hosts_file $T/hosts" \
    "acl listed srcdomain listed.test" \
    "acl listed_path urlpath_regex ^/s/listed" \
    "http_access deny listed listed_path"
expect_code "srcdomain: the name from hosts_file" 403 "http://$O/s/listed"
[ "$(ptr_queries)" = 0 ] || bad "DNS was asked a name that hosts_file has"
cache_stop
dns_start # a second fake DNS, which knows no PTR record: fwd_conf uses the latest
cache_start \
    "acl nameless srcdomain none" \
    "acl nameless_path urlpath_regex ^/s/nameless" \
    "http_access deny nameless nameless_path"
expect_code "srcdomain none: an address without a name" 403 "http://$O/s/nameless"
expect_code "srcdomain none: the rest of the rule" 200 "http://$O/s/fine"
pass_if_ok "hosts_file names, and \"none\" for an address without a name"
cache_stop

mark
printf '%s\n' "acl bad srcdomain -n .example.test" > "$T/bad.conf"
if "$CUTTLE" -k parse -f "$T/bad.conf" > "$T/bad.out" 2>&1; then
    bad "srcdomain -n was accepted (only dstdomain and dstdom_regex take it)"
fi
grep -q "bad.conf:1:" "$T/bad.out" || bad "no FILE:LINE error for srcdomain -n: $(cat "$T/bad.out")"
printf '%s\n' "fqdncache_size -1" "positive_dns_ttl soon" > "$T/bad2.conf"
"$CUTTLE" -k parse -f "$T/bad2.conf" > "$T/bad2.out" 2>&1 && bad "bad fqdncache_size and positive_dns_ttl were accepted"
grep -q "bad2.conf:1: .*fqdncache_size" "$T/bad2.out" || bad "no error for fqdncache_size -1: $(cat "$T/bad2.out")"
grep -q "bad2.conf:2: .*positive_dns_ttl" "$T/bad2.out" || bad "no error for positive_dns_ttl soon: $(cat "$T/bad2.out")"
pass_if_ok "-k parse refuses srcdomain -n and bad name cache values"

checks_done
