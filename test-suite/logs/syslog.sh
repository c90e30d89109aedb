#!/bin/sh
# access_log syslog:FACILITY.PRIORITY: each line is one syslog message with
# that priority. cuttle runs in a mount namespace where /dev/log is the
# test's receiver (SKIP when one cannot be made).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
command -v unshare > /dev/null || { echo "SKIP: no unshare"; exit 77; }
logs_setup
mkdir "$T/realdev"
BG_READY="^listening on " bg_start syslog python3 "$top_srcdir/test-suite/logs/syslog-receiver.py" "$T/log.sock" "$T/messages.log" "$(scaled 30)"
# cuttle, under its own pid, with /dev/log the receiver and the real null and random devices
cat > "$T/cuttle-ns" << WRAP
#!/bin/sh
exec unshare -m sh -c 'mount --make-rprivate / && mount --bind /dev "$T/realdev" && mount -t tmpfs tmpfs /dev &&
    for d in null zero random urandom; do touch /dev/\$d && mount --bind "$T/realdev/\$d" /dev/\$d || exit 1; done &&
    touch /dev/log && mount --bind "$T/log.sock" /dev/log && exec "\$0" "\$@"' "$CUTTLE" "\$@"
WRAP
chmod +x "$T/cuttle-ns"
"$T/cuttle-ns" -v > /dev/null 2>&1 || { echo "SKIP: cannot make a mount namespace here"; exit 77; }
fwd_conf "http_access allow localhost" "access_log syslog:local4.notice squid" "access_log syslog logformat=referrer"
CUTTLE="$T/cuttle-ns" cuttle_start
proxy_get "$OURL/to-syslog" -e http://ref.example/ > /dev/null
wait_until 5 grep -q '/to-syslog' "$T/access.log" || fail "no access.log line"
wait_until 5 has_lines "$T/messages.log" 2 || fail "the receiver got $(lines "$T/messages.log") messages: $(cat "$T/messages.log")"
# local4 (20) * 8 + notice (5) = 165; user (1) * 8 + info (6) = 14
grep -Eq '^<165>.* cuttle\[[0-9]+\]: [0-9]+\.[0-9]{3} +[0-9]+ 127.0.0.1 TCP_MISS/200 .*/to-syslog ' "$T/messages.log" ||
    fail "no local4.notice message in the squid format: $(cat "$T/messages.log")"
grep -Eq '^<14>.* cuttle\[[0-9]+\]: [0-9.]+ 127.0.0.1 http://ref.example/ http://127.0.0.1:[0-9]+/to-syslog$' "$T/messages.log" ||
    fail "no user.info message in the referrer format: $(cat "$T/messages.log")"
pass "syslog: one message per line, with the facility and priority of each access_log"
cuttle_stop
