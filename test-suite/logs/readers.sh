#!/bin/sh
# Debian's access.log readers read what cuttle writes: calamaris and sarg
# make their reports from a cuttle access.log (squid format), and the
# figures are those of the traffic sent: 5 requests from 2 hosts, 3 of them
# from 127.0.0.1, all to the test origin.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
command -v calamaris > /dev/null && command -v sarg > /dev/null ||
    { echo "SKIP: calamaris or sarg is missing (bootstrap.sh --install-test-deps)"; exit 77; }
logs_setup
fwd_conf "acl loopback src 127.0.0.0/8" "http_access allow loopback"
cuttle_start

for i in 1 2 3; do
    [ "$(proxy_get "$OURL/one$i?s=1k")" = 200 ] || fail "request $i from 127.0.0.1"
done
for i in 1 2; do
    [ "$(proxy_get "$OURL/two$i?s=2k" --interface 127.0.0.2)" = 200 ] || fail "request $i from 127.0.0.2"
done
wait_until 5 has_lines "$T/access.log" 5 || fail "access.log: $(lines "$T/access.log") lines"
cuttle_stop

# calamaris: -n, no DNS lookups
calamaris -a -n < "$T/access.log" > "$T/calamaris.txt" 2> "$T/calamaris.err" || fail "calamaris: $(cat "$T/calamaris.err")"
grep -Eq '^lines parsed: +lines +5 *$' "$T/calamaris.txt" || fail "calamaris did not parse 5 lines: $(head -20 "$T/calamaris.txt")"
grep -Eq '^invalid lines: +lines +0 *$' "$T/calamaris.txt" || fail "calamaris found invalid lines"
grep -Eq '^unique hosts/users: +hosts +2 *$' "$T/calamaris.txt" || fail "calamaris: not 2 hosts"
grep -Eq '^127\.0\.0\.1 +3 ' "$T/calamaris.txt" && grep -Eq '^127\.0\.0\.2 +2 ' "$T/calamaris.txt" ||
    fail "calamaris' requests by host: $(grep -A5 'TCP-requests by host' "$T/calamaris.txt")"
pass "calamaris: 5 lines parsed, none invalid, 3 requests from 127.0.0.1 and 2 from 127.0.0.2"

mkdir "$T/sarg"
printf 'resolve_ip no\noutput_dir %s/sarg\noverwrite_report yes\ndate_format e\n' "$T" > "$T/sarg.conf"
sarg -f "$T/sarg.conf" -l "$T/access.log" -o "$T/sarg" > "$T/sarg.out" 2>&1 || fail "sarg: $(cat "$T/sarg.out")"
grep -q 'Records in file: 5' "$T/sarg.out" || fail "sarg did not read 5 records: $(cat "$T/sarg.out")"
report=$(dirname "$(find "$T/sarg" -name sarg-general | head -n 1)")
[ -d "$report" ] || fail "no sarg report in $T/sarg"
[ "$(cat "$report/sarg-users")" = 2 ] || fail "sarg counted $(cat "$report/sarg-users") users, not 2"
grep -Eq "^TOTAL	5	" "$report/sarg-general" || fail "sarg's total: $(grep TOTAL "$report/sarg-general")"
grep -Eq "^5	[0-9]+	.*	127.0.0.1:$OPORT$" "$report/sarg-sites" || fail "sarg's sites: $(cat "$report/sarg-sites")"
[ -f "$report/127_0_0_1/127_0_0_1.html" ] && [ -f "$report/127_0_0_2/127_0_0_2.html" ] ||
    fail "sarg made no page per host: $(ls "$report")"
pass "sarg: 5 records, 2 users (127.0.0.1 and 127.0.0.2), 5 requests to the origin"
