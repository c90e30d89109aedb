#!/bin/sh
# The disk holding access.log fills up (a 64 KB tmpfs mounted here; SKIP when
# it cannot be mounted): requests are still served, the loss is reported once
# in cache.log, and lines are written again once there is room.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/faults/helpers.sh"
cuttle_setup
mkdir "$T/logs"
mount -t tmpfs -o size=64k,mode=0755 tmpfs "$T/logs" 2> /dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
origin_start
dns_start
# lazy: cuttle may still hold the file when the cleanup runs
trap 'rc=$?; umount -l "$T/logs" 2> /dev/null; (exit $rc); proxy_cleanup' EXIT
[ "$(id -u)" = 0 ] && chown "${CUTTLE_TEST_USER:-proxy}:" "$T/logs"
faults_conf "access_log stdio:$T/logs/access.log"
cuttle_start

code=$(proxy_get "$OURL/x?s=10&first=1")
[ "$code" = 200 ] || fail "first request: status $code"
wait_until 5 grep -q '/x?' "$T/logs/access.log" || fail "access.log on the tmpfs not written"
# fill the disk to the last byte
dd if=/dev/zero of="$T/logs/filler" bs=4k 2> /dev/null
mark
for i in $(seq 1 300); do
    code=$(proxy_get "$OURL/x?s=10&full=$i")
    [ "$code" = 200 ] || { bad "request $i with the log disk full: status $code"; break; }
done
reports=$(grep -c 'ERROR: access.log: cannot write .*No space left on device' "$T/cache.log")
# (once by each worker that wrote)
[ "$reports" -ge 1 ] && [ "$reports" -le "$CUTTLE_TEST_WORKERS" ] ||
    bad "the full log disk was reported $reports times in cache.log, not once"
is_running "$CUTTLE_PID" || fail "cuttle died with the log disk full"
pass_if_ok "300 requests served with the log disk full, reported once: $(grep 'ERROR: access.log' "$T/cache.log" | head -n 1)"

mark
rm -f "$T/logs/filler"
for i in 1 2 3; do
    code=$(proxy_get "$OURL/x?s=10&room=$i")
    [ "$code" = 200 ] || bad "after the room came back: status $code"
done
code=$(proxy_get "$OURL/after-room?s=10")
wait_until 5 grep -q '/after-room' "$T/logs/access.log" || bad "no line written once there was room again"
pass_if_ok "access.log written again once there was room"
cuttle_stop
checks_done
