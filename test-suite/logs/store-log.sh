#!/bin/sh
# cache_store_log: Squid 5.7's store.log lines. A stored object that a PURGE
# removes, or that eviction pushes out, gets a RELEASE line with its reply's
# figures; a reply that is never stored gets one when its transaction ends; a
# hit gets none. The lines have Squid's fields (checked against a line Squid
# 5.7 wrote: "1795759303.216 RELEASE -1 FFFFFFFF 04000000000000005A56000000000000
#  501 1795759303        -1        -1 text/html 357/357 POST http://..."), the
# log rotates with -k rotate, and a bad value is refused by -k parse.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
logs_setup
fwd_conf "acl purge method PURGE" "http_access allow localhost purge" "http_access deny purge" \
    "http_access allow localhost" "cache_mem 1 MB" "maximum_object_size_in_memory 400 KB" \
    "cache_store_log stdio:$T/store.log" "strip_query_terms off"
cuttle_start

# the shape of every line: time, action, -1 FFFFFFFF, key, status, three dates, type, lengths, method, URL
SHAPE='^[0-9]{10}\.[0-9]{3} RELEASE -1 FFFFFFFF [0-9A-F]{32} +[0-9]{3} +-?[0-9]+ +-?[0-9]+ +-?[0-9]+ [^ ]+ -?[0-9]+/[0-9]+ [A-Z]+ http://[^ ]+$'
release_of() { grep -E " $1 $2$" "$T/store.log"; }

# 1. a reply that is never stored: its line at the end of the transaction
U1="$OURL/nostore?s=1000&cc=no-store"
[ "$(proxy_get "$U1")" = 200 ] || fail "no-store fetch"
wait_until 5 release_of GET "$(echo "$U1" | sed 's/[?.]/\\&/g')" > /dev/null || fail "no RELEASE of a no-store reply: $(cat "$T/store.log")"
line=$(release_of GET "$(echo "$U1" | sed 's/[?.]/\\&/g')")
echo "$line" | grep -Eq "$SHAPE" || fail "not Squid's store.log line: $line"
echo "$line" | grep -Eq ' 200 +[0-9]{10} +-1 +-1 [^ ]+ 1000/1000 GET ' || fail "the figures of the no-store reply: $line"
pass "a reply that is not stored gets a RELEASE line with its status, Date and lengths"

# 2. a stored object: no line while it is kept, nor for a hit; its line when PURGE removes it
U2="$OURL/kept?s=2000&cc=max-age%3D600"
[ "$(proxy_get "$U2")" = 200 ] && [ "$(proxy_get "$U2")" = 200 ] || fail "cacheable fetches"
wait_until 5 access_log_has "TCP_MEM_HIT/200 [0-9]+ GET $(echo "$U2" | sed 's/[?.]/\\&/g') " || fail "no hit: $(cat "$T/access.log")"
release_of GET "$(echo "$U2" | sed 's/[?.]/\\&/g')" && fail "a kept object was logged released"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -x "127.0.0.1:$PORT" -X PURGE "$U2")
[ "$code" = 200 ] || fail "PURGE: $code"
wait_until 5 release_of GET "$(echo "$U2" | sed 's/[?.]/\\&/g')" > /dev/null || fail "no RELEASE after PURGE: $(cat "$T/store.log")"
[ "$(release_of GET "$(echo "$U2" | sed 's/[?.]/\\&/g')" | wc -l)" = 1 ] || fail "the purged object has more than one line"
release_of GET "$(echo "$U2" | sed 's/[?.]/\\&/g')" | grep -Eq "$SHAPE" || fail "not Squid's line"
pass "a stored object is released once, when PURGE removes it, and a hit logs nothing"

# 3. eviction: 1 MB of memory cache, five 300 KB objects push out the first ones
for i in 1 2 3 4 5; do
    [ "$(proxy_get "$OURL/big$i?s=300k&cc=max-age%3D600")" = 200 ] || fail "big$i"
done
wait_until 5 release_of GET "$OURL/big1\\?s=300k&cc=max-age%3D600" > /dev/null || fail "no RELEASE of an evicted object: $(cat "$T/store.log")"
release_of GET "$OURL/big1\\?s=300k&cc=max-age%3D600" | grep -Eq ' 200 .* 307200/307200 GET ' ||
    fail "the evicted object's figures: $(release_of GET "$OURL/big1\\?s=300k&cc=max-age%3D600")"
pass "an object evicted for room is released with its lengths"

# 4. rotation, and the lines go on in the new file
"$CUTTLE" -k rotate -f "$T/squid.conf" || fail "-k rotate failed"
wait_until 5 test -f "$T/store.log.0" || fail "store.log not rotated: $(ls "$T")"
[ "$(proxy_get "$OURL/after?s=10&cc=no-store")" = 200 ] || fail "after rotation"
wait_until 5 grep -q "/after?s=10&cc=no-store$" "$T/store.log" || fail "no line in the new store.log"
pass "-k rotate rotates the store log"
cuttle_stop

printf '%s\n' "cache_store_log bogus:/x" > "$T/bad.conf"
"$CUTTLE" -k parse -f "$T/bad.conf" > "$T/bad.out" 2>&1 && fail "a bad cache_store_log was accepted"
grep -q "bad.conf:1: .*cache_store_log" "$T/bad.out" || fail "no FILE:LINE error: $(cat "$T/bad.out")"
pass "-k parse refuses a bad cache_store_log with FILE:LINE"
