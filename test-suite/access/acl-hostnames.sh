#!/bin/sh
# Host names in address acls (src, dst, localip): resolved when squid.conf is
# read, as Squid does, each name standing for its addresses in the order of
# the values (so Squid's overlap rule drops a later range that holds one of
# them). cuttle resolves them with the file's own hosts_file and
# dns_nameservers (here the suite's fake DNS); Squid with the system
# resolver.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the rows that use `localhost` (from
# /etc/hosts, which both read) against Squid 5.7; the fake-DNS rows and the
# -k parse checks are cuttle's own.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

mark
if [ -z "$CACHE_TEST_SQUID" ]; then
    dns_start origin.test=127.0.0.1 origin.test=::1 elsewhere.test=127.0.0.2
    set -- "hosts_file /etc/hosts" \
        "acl byname dst origin.test" \
        "acl elsewhere dst elsewhere.test" \
        "acl denied urlpath_regex ^/s/denied" \
        "acl to_origin dst 127.0.0.1" \
        "acl viadst urlpath_regex ^/s/via-dst" \
        "http_access deny to_origin viadst" \
        "http_access deny elsewhere !viadst" \
        "http_access deny byname denied"
else
    set --
fi
cache_start "$@" \
    "acl lo dst localhost" \
    "acl lopath urlpath_regex ^/s/lo-denied" \
    "http_access deny lo lopath"
expect_code "dst localhost: a request to 127.0.0.1 matches" 403 "http://$O/s/lo-denied"
expect_code "dst localhost: the rest of the rule does not match" 200 "http://$O/s/lo-other"
pass_if_ok "dst with a name from /etc/hosts (localhost)"

if [ -n "$CACHE_TEST_SQUID" ]; then
    cache_stop
    checks_done
    exit
fi

mark
expect_code "dst name resolved by DNS" 403 "http://$O/s/denied"
expect_code "dst name: the other path" 200 "http://$O/s/fine"
expect_code "dst name of another address does not match" 200 "http://$O/s/x"
pass_if_ok "dst with names from the configured DNS server"

# a request names its origin by a name: the dst acl sees the name's
# addresses (Squid's slow dst acl), so `http_access deny to_localhost`-style
# rules hold for names too
mark
expect_code "dst: a URL whose name resolves into the acl" 403 "http://origin.test:$OPORT/s/via-dst"
expect_code "dst: the same URL by its address" 403 "http://127.0.0.1:$OPORT/s/via-dst"
code=$(proxy_get "http://elsewhere.test:$OPORT/s/via-dst")
[ "$code" != 403 ] || bad "dst: a name that resolves outside the acl was denied"
wait_until 5 access_log_has " TCP_DENIED/403 [0-9]+ GET http://origin.test:$OPORT/s/via-dst " ||
    bad "no TCP_DENIED line for the name that resolved into the dst acl"
pass_if_ok "dst acls see the addresses of a URL's host name"
cache_stop

mark
# a name with no address is an error at its line; a range after a name that
# resolves inside it is ignored (Squid's overlap rule, in the values' order)
printf '127.0.0.9 nine.test\n' > "$T/hosts"
printf '%s\n' "hosts_file $T/hosts" "dns_nameservers 127.0.0.1:$DNSPORT" \
    "acl ov dst nine.test 127.0.0.0/8" > "$T/ok.conf"
"$CUTTLE" -k parse -f "$T/ok.conf" > "$T/ok.out" 2>&1 || bad "a resolvable name was refused: $(cat "$T/ok.out")"
grep -q "ok.conf:3: WARNING: .*'127.0.0.0/8' overlaps 'nine.test (127.0.0.9)'" "$T/ok.out" ||
    bad "no overlap warning for the range after the name: $(cat "$T/ok.out")"
printf '%s\n' "acl nope dst nosuch.test" "hosts_file $T/hosts" "dns_nameservers 127.0.0.1:$DNSPORT" > "$T/bad.conf"
if "$CUTTLE" -k parse -f "$T/bad.conf" > "$T/bad.out" 2>&1; then
    bad "an unknown name was accepted"
fi
grep -q "bad.conf:1: bad acl: acl nope: cannot resolve the host 'nosuch.test'" "$T/bad.out" ||
    bad "no FILE:LINE error for the unknown name: $(cat "$T/bad.out")"
pass_if_ok "-k parse: the overlap rule in the values' order, and an unknown name is an error"

checks_done
