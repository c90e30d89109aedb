#!/bin/sh
# -k rotate rotates every log file: a stdio log keeps logfile_rotate copies
# or its own rotate=N, a daemon log is rotated by its writer thread, and
# rotate=0 only reopens (for logrotate); every log goes on in its new file.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
logs_setup
fwd_conf "http_access allow localhost" "logfile_rotate 2" \
    "access_log stdio:$T/one.log rotate=1" \
    "access_log daemon:$T/daemon.log" \
    "access_log stdio:$T/outside.log rotate=0"
cuttle_start

for round in 1 2 3; do
    proxy_get "$OURL/round$round" > /dev/null
    for f in access one daemon outside; do
        wait_until 5 grep -q "/round$round " "$T/$f.log" || fail "round $round not in $f.log"
    done
    # rotate=0: an outside tool renames the file before the signal
    mv "$T/outside.log" "$T/outside.log.moved$round"
    "$CUTTLE" -k rotate -f "$T/squid.conf" || fail "-k rotate failed in round $round"
    for f in access one daemon outside; do
        wait_until 5 test -f "$T/$f.log" || fail "$f.log not reopened after rotation $round"
    done
done
grep -q '/round3 ' "$T/access.log.0" && grep -q '/round2 ' "$T/access.log.1" && [ ! -f "$T/access.log.2" ] ||
    fail "logfile_rotate 2 on access.log: $(ls "$T")"
grep -q '/round3 ' "$T/one.log.0" && [ ! -f "$T/one.log.1" ] || fail "rotate=1 on one.log: $(ls "$T")"
grep -q '/round3 ' "$T/daemon.log.0" && grep -q '/round2 ' "$T/daemon.log.1" && [ ! -f "$T/daemon.log.2" ] ||
    fail "the daemon log's rotation: $(ls "$T")"
[ ! -f "$T/outside.log.0" ] && grep -q '/round3 ' "$T/outside.log.moved3" || fail "rotate=0 renamed: $(ls "$T")"
pass "-k rotate: logfile_rotate 2, rotate=1, a daemon log and rotate=0 each as configured"

proxy_get "$OURL/after" > /dev/null
for f in access one daemon outside; do
    wait_until 5 grep -q "/after " "$T/$f.log" || fail "no line in the new $f.log"
done
pass "every log goes on in its new file"
cuttle_stop
