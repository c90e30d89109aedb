#!/bin/sh
# The logrotate fragment: `make install` puts it in etc/logrotate.d/cuttle,
# `logrotate -d` reads it without complaint, and run for real (paths made
# this test's) it renames the logs and has cuttle reopen them, so cuttle goes
# on writing in new files (squid.conf says logfile_rotate 0, as installed).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
command -v logrotate > /dev/null || { echo "SKIP: no logrotate (bootstrap.sh --install-test-deps)"; exit 77; }
cuttle_setup
stage="$T/stage"
make -s -C "$top_builddir" install DESTDIR="$stage" > "$T/install.log" 2>&1 || fail "make install: $(cat "$T/install.log")"
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
grep -qxF 'sysconfdir = ${prefix}/etc' "$top_builddir/Makefile" ||
    { echo "SKIP: configured with another sysconfdir: this test checks the default layout only"; exit 77; }
fragment="$stage$prefix/etc/logrotate.d/cuttle"
[ -f "$fragment" ] || fail "make install put no etc/logrotate.d/cuttle"
grep -q "^$prefix/var/log/cuttle/\*.log {" "$fragment" || fail "the fragment does not name the installed logs: $(cat "$fragment")"
grep -q '^logfile_rotate 0$' "$stage$prefix/etc/cuttle/squid.conf" || fail "the installed squid.conf does not leave renaming to logrotate"
logrotate -d -s "$T/state.d" "$fragment" > "$T/logrotate-d.out" 2>&1 || fail "logrotate -d: $(cat "$T/logrotate-d.out")"
grep -qi 'error' "$T/logrotate-d.out" && fail "logrotate -d: $(cat "$T/logrotate-d.out")"
pass "make install ships etc/logrotate.d/cuttle and logrotate -d reads it"

# the same fragment with this test's directories, run for real
mkdir -p "$T/var/log/cuttle" "$T/run" "$T/etc/cuttle"
[ "$(id -u)" = 0 ] && chown -R "${CUTTLE_TEST_USER:-proxy}:" "$T/var" "$T/run"
sed -e "s|@sbindir@|$(dirname "$CUTTLE")|g" -e "s|@sysconfdir@|$T/etc|g" -e "s|@runstatedir@|$T/run|g" \
    -e "s|@localstatedir@|$T/var|g" "$top_srcdir/tools/logrotate/cuttle.in" > "$T/logrotate.conf"
origin_start
OURL=http://127.0.0.1:$OPORT
fwd_conf "http_access allow localhost" "logfile_rotate 0"
sed -e "s|^access_log .*|access_log stdio:$T/var/log/cuttle/access.log|" -e "s|^cache_log .*|cache_log $T/var/log/cuttle/cache.log|" \
    -e "s|^pid_filename .*|pid_filename $T/run/cuttle.pid|" "$T/squid.conf" > "$T/etc/cuttle/squid.conf"
cp "$T/etc/cuttle/squid.conf" "$T/squid.conf"
ACCEPTING_BEFORE=0
"$CUTTLE" -N -f "$T/etc/cuttle/squid.conf" > "$T/stdout" 2> "$T/stderr" &
CUTTLE_PID=$!
LOGS=$T/var/log/cuttle
wait_until 10 grep -q 'Accepting HTTP' "$LOGS/cache.log" || fail "cuttle did not start: $(cat "$T/stderr")"
PORT=$(grep -o 'local=[^ ]*' "$LOGS/cache.log" | tail -n 1 | sed 's/.*://')
proxy_get "$OURL/before" > /dev/null
wait_until 5 grep -q '/before ' "$LOGS/access.log" || fail "no line before the rotation"
logrotate -f -s "$T/state" "$T/logrotate.conf" > "$T/logrotate.out" 2>&1 || fail "logrotate: $(cat "$T/logrotate.out")"
[ -f "$LOGS/access.log.1" ] && grep -q '/before ' "$LOGS/access.log.1" || fail "logrotate did not rename access.log: $(ls "$LOGS")"
wait_until 5 test -f "$LOGS/access.log" || fail "cuttle did not reopen access.log after logrotate's postrotate"
proxy_get "$OURL/after" > /dev/null
wait_until 5 grep -q '/after ' "$LOGS/access.log" || fail "no line in the new access.log"
grep -q '/after ' "$LOGS/access.log.1" && fail "cuttle still writes the renamed file"
[ -f "$LOGS/access.log.0" ] && fail "cuttle renamed the log itself with logfile_rotate 0"
pass "logrotate renames the logs, its postrotate has cuttle reopen them"
cuttle_stop
