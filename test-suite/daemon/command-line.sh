#!/bin/sh
# The command line: -v, -h, unknown options, bad -k words, -k parse.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup

out=$("$CUTTLE" -v) || fail "-v exited non-zero"
echo "$out" | grep -q '^cuttle version [0-9]' || fail "-v: $out"
echo "$out" | grep -q '^configure options: ' || fail "-v: no configure options"
pass "-v"

"$CUTTLE" -h > "$T/help" 2>&1 || fail "-h exited non-zero"
grep -q '^Usage: cuttle' "$T/help" || fail "-h: no usage"
pass "-h"

"$CUTTLE" -Q > "$T/out" 2>&1
rc=$?
[ $rc = 2 ] || fail "unknown option: exit $rc, wanted 2"
grep -q 'Usage:' "$T/out" || fail "unknown option: no usage"
pass "unknown option exits 2"

"$CUTTLE" -k bogus > "$T/out" 2>&1
rc=$?
[ $rc = 2 ] || fail "-k bogus: exit $rc, wanted 2"
pass "bad -k word exits 2"

cuttle_conf "http_access allow localhost"
"$CUTTLE" -k parse -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-k parse of a good file: $(cat "$T/out")"
pass "-k parse of a good file"

printf 'http_port 127.0.0.1:0\nhttp_acess allow all\n' > "$T/bad.conf"
"$CUTTLE" -k parse -f "$T/bad.conf" > "$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "-k parse of a bad file: exit $rc, wanted 1"
grep -q "bad.conf:2: " "$T/out" || fail "-k parse of a bad file: no FILE:LINE message: $(cat "$T/out")"
pass "-k parse of a bad file"

# a bad file refuses to start, with the reason
"$CUTTLE" -N -f "$T/bad.conf" > "$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "start with a bad file: exit $rc, wanted 1"
pass "start with a bad file exits 1"

# -k shutdown with no running copy: a clear message and exit 1
"$CUTTLE" -k shutdown -f "$T/squid.conf" > "$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "-k shutdown without a running copy: exit $rc"
grep -qi 'no running copy' "$T/out" || fail "-k shutdown without a running copy: $(cat "$T/out")"
pass "-k without a running copy"
