#!/bin/sh
# cache_store_log for the disk store, as Squid 5.7 writes it: a SWAPOUT
# line when an object is committed to a cache_dir, naming the directory
# (its place in squid.conf, "00") and the file number ("00000000"), with
# the reply's status, dates, type and lengths; no line for a disk hit (Squid
# 5.7 writes no SWAPIN); a RELEASE line naming the same directory, file
# and key when the object is removed (PURGE), with "?" where the reply's
# figures are (the head is on disk, as Squid prints an entry without its
# memory object).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup
cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 20 MB" \
    "cache_store_log $T/store.log" "acl purge method PURGE" "http_access allow purge localhost"
wait_until 20 is_rebuilt || fail "the cache_dir's index was not rebuilt"

# lines ACTION : the store.log lines of ACTION for /s/sl (RELEASE: for its key)
lines() {
    if [ "$1" = RELEASE ]; then
        grep " RELEASE .* $(lines SWAPOUT | awk '{print $5}') " "$T/store.log" 2> /dev/null
    else
        grep " $1 " "$T/store.log" 2> /dev/null | grep "$(url sl)"
    fi
}
has_line() { [ -n "$(lines "$1")" ]; }
mark
script sl "cc=max-age=600&s=1000000&ct=application/x-test"
get sl
wait_until 20 has_line SWAPOUT || bad "no SWAPOUT line after the object was stored"
expect_match "SWAPOUT line" "$(lines SWAPOUT)" \
    '^[0-9]+\.[0-9]{3} SWAPOUT 00 00000000 [0-9A-F]{32}  200 +[0-9]+ +-1 +-1 application/x-test 1000000/1000000 GET '
get sl
expect "hit" "$(log_code sl 2)" TCP_HIT/200
expect "lines after the hit" "$(grep -c "$(url sl)" "$T/store.log")" 1
code=$(curl -s -o /dev/null -w '%{http_code}' -X PURGE -x "127.0.0.1:$PORT" "$(url sl)")
expect "purge" "$code" 200
wait_until 10 has_line RELEASE || bad "no RELEASE line after PURGE"
expect_match "RELEASE line" "$(lines RELEASE)" '^[0-9]+\.[0-9]{3} RELEASE 00 00000000 [0-9A-F]{32} +\? '
expect "RELEASE lines" "$(lines RELEASE | wc -l | tr -d ' ')" 1
pass_if_ok "cache_store_log: SWAPOUT when a disk object is stored, RELEASE when it is removed"

cache_stop
checks_done
