#!/bin/sh
# cache_dir's directories, as Squid's: -z makes each cache_dir and its L1/L2
# subdirectories (as cache_effective_user when run as root) and exits 0; a
# cache_dir that is missing, or whose subdirectories are, stops the start
# with a FATAL line naming it; once made, cuttle starts.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup

cuttle_conf "http_access allow localhost" "cache_dir ufs $T/cache1 10 4 8" "cache_dir rock $T/cache2 10"

# a missing cache_dir: start-up fails naming it
"$CUTTLE" -N -f "$T/squid.conf" > "$T/stdout" 2> "$T/stderr" &
pid=$!
wait_until 10 is_stopped "$pid" || fail "cuttle started without its cache_dir"
wait "$pid"
rc=$?
[ "$rc" != 0 ] || fail "a missing cache_dir: exit 0"
grep -q "FATAL: cache_dir $T/cache1: cannot use it" "$T/cache.log" "$T/stderr" ||
    fail "no FATAL line naming the missing cache_dir"
pass "a missing cache_dir stops the start, naming it"

# the directory alone, without the subdirectories -z makes: still refused
mkdir "$T/cache1"
[ "$(id -u)" = 0 ] && chown "${CUTTLE_TEST_USER:-proxy}:" "$T/cache1"
"$CUTTLE" -N -f "$T/squid.conf" > "$T/stdout" 2> "$T/stderr"
[ $? != 0 ] || fail "a cache_dir without its subdirectories: exit 0"
grep -q "FATAL: cache_dir $T/cache1/03/07: cannot use it" "$T/cache.log" "$T/stderr" ||
    fail "no FATAL line naming the missing subdirectory"
pass "a cache_dir without its subdirectories stops the start, naming the first missing one"

# -z makes both, with their subdirectories, and exits 0
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z exited non-zero: $(cat "$T/out")"
[ -d "$T/cache1/03/07" ] || fail "-z did not make $T/cache1/03/07"
[ -d "$T/cache2/0F/FF" ] || fail "-z did not make rock's $T/cache2/0F/FF"
[ ! -d "$T/cache1/04" ] || fail "-z made more first-level directories than L1"
grep -q "Creating missing swap directories in $T/cache1" "$T/out" || fail "-z did not say what it made"
if [ "$(id -u)" = 0 ]; then
    [ "$(stat -c %U "$T/cache2/0F/FF")" = "${CUTTLE_TEST_USER:-proxy}" ] ||
        fail "-z as root made directories owned by $(stat -c %U "$T/cache2/0F/FF")"
fi
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "a second -z exited non-zero: $(cat "$T/out")"
pass "-z makes every cache_dir and its subdirectories, as the effective user"

cuttle_start
[ "$(proxy_get "http://127.0.0.1:9/" )" != 000 ] || fail "no answer once the cache_dirs exist"
cuttle_stop
pass "cuttle starts once the cache_dirs exist"
