#!/bin/sh
# logfile_rotate N: -k rotate renames access.log and cache.log to .0, shifting
# older ones up to N-1 and dropping the oldest, then opens new files (Squid's scheme).
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
cuttle_conf "http_access allow localhost" "logfile_rotate 2"
cuttle_start

for round in 1 2 3; do
    [ "$(proxy_get "ftp://127.0.0.1:9/round$round")" = 501 ] || fail "no 501 in round $round"
    wait_until 5 access_log_has "/round$round " || fail "round $round not logged"
    "$CUTTLE" -k rotate -f "$T/squid.conf" || fail "-k rotate failed in round $round"
    # this round's line moved to access.log.0 (a rotation not done yet, or
    # two -k rotate signals pending at once, would leave it elsewhere)
    wait_until 5 grep -q "/round$round " "$T/access.log.0" || fail "round $round not in access.log.0 after rotate $round"
    wait_until 5 test -f "$T/access.log" || fail "access.log not reopened after rotate $round"
done
# after three rotations with logfile_rotate 2: .0 holds round 3, .1 round 2, round 1 is gone
grep -q '/round3 ' "$T/access.log.0" || fail "access.log.0 does not hold the newest round"
grep -q '/round2 ' "$T/access.log.1" || fail "access.log.1 does not hold the round before"
[ -f "$T/access.log.2" ] && fail "logfile_rotate 2 kept a third old file"
[ -f "$T/cache.log.0" ] || fail "cache.log was not rotated"
pass "logfile_rotate 2 keeps two old files of each log"

# the daemon still logs to the new files
[ "$(proxy_get ftp://127.0.0.1:9/after)" = 501 ] || fail "no 501 after rotations"
wait_until 5 access_log_has '/after ' || fail "no line in the new access.log"
cuttle_stop
grep -q 'Exiting normally' "$T/cache.log" || fail "the shutdown messages did not reach the new cache.log"
pass "logging goes on after rotation"
