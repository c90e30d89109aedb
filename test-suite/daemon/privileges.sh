#!/bin/sh
# cache_effective_user: started as root, cuttle serves as the user (proxy by
# default) with only CAP_NET_BIND_SERVICE, after start-up and after a
# reconfigure (which still binds a port below 1024); -k rotate and shutdown
# still rename the logs and remove the pid file in the directories cuttle
# created as root; a user that does not exist stops the start with FILE:LINE;
# started by another user, cuttle stays that user and says so.
. "$top_srcdir/test-suite/lib.sh"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the privilege drop needs a start as root"
    exit 77
fi
cuttle_setup

user=proxy
uid=$(id -u $user) && gid=$(id -g $user) || { echo "SKIP: no user $user"; exit 77; }
groups=$(id -G $user | tr ' ' '\n' | sort -n | tr '\n' ' ')
kept=0000000000000400 # CAP_NET_BIND_SERVICE alone

# cache.log stays in $T (the harness made it proxy's); access.log and the pid
# file go to directories cuttle must create as root and then hand over
write_conf() {
    cuttle_conf "http_access allow localhost" "logfile_rotate 2" "$@"
    sed -i -e "s|^access_log .*|access_log stdio:$T/logs/access.log|" \
        -e "s|^pid_filename .*|pid_filename $T/run/cuttle.pid|" "$T/squid.conf"
}

# status_field NAME : the field of /proc/CUTTLE_PID/status, tabs folded
status_field() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$CUTTLE_PID/status" | tr -s '\t ' '  ' | sed 's/ *$//'; }

# check_dropped WHEN : the process and each of its threads serve as $user
# with the kept capability only; each worker's thread holds it (a reconfigure
# binds a low port in every worker) with the same bounding set and
# NoNewPrivs (the helpers it starts inherit them)
check_dropped() {
    [ "$(status_field Uid)" = "$uid $uid $uid $uid" ] || fail "$1: Uid $(status_field Uid), wanted $uid"
    [ "$(status_field Gid)" = "$gid $gid $gid $gid" ] || fail "$1: Gid $(status_field Gid), wanted $gid"
    got=$(status_field Groups | tr ' ' '\n' | sort -n | tr '\n' ' ')
    [ "$got" = "$groups" ] || fail "$1: Groups $got, wanted $groups"
    for set in CapPrm CapEff CapBnd; do
        [ "$(status_field $set)" = $kept ] || fail "$1: $set $(status_field $set), wanted $kept"
    done
    [ "$(status_field CapInh)" = 0000000000000000 ] || fail "$1: CapInh $(status_field CapInh)"
    [ "$(status_field CapAmb)" = 0000000000000000 ] || fail "$1: CapAmb $(status_field CapAmb)"
    [ "$(status_field NoNewPrivs)" = 1 ] || fail "$1: NoNewPrivs $(status_field NoNewPrivs)"
    holders=0
    for task in /proc/"$CUTTLE_PID"/task/*; do
        grep -q "^Uid:[[:space:]]*$uid[[:space:]]*$uid[[:space:]]*$uid[[:space:]]*$uid\$" "$task/status" ||
            fail "$1: thread $task is not $user"
        eff=$(sed -n 's/^CapEff:[[:space:]]*//p' "$task/status")
        [ "$eff" = $kept ] || [ "$eff" = 0000000000000000 ] || fail "$1: thread $task has CapEff $eff"
        [ "$eff" = $kept ] || continue
        holders=$((holders + 1))
        grep -q "^CapBnd:[[:space:]]*$kept\$" "$task/status" || fail "$1: thread $task has $(grep CapBnd "$task/status")"
        grep -q "^NoNewPrivs:[[:space:]]*1\$" "$task/status" || fail "$1: thread $task has NoNewPrivs 0"
    done
    [ $holders -ge "$CUTTLE_TEST_WORKERS" ] || fail "$1: $holders threads hold $kept for $CUTTLE_TEST_WORKERS workers"
}

# served WHAT [PORT] : a request through cuttle gets its reply and its access.log line
served() {
    [ "$(PORT=${2:-$PORT} proxy_get "ftp://127.0.0.1:9/$1")" = 501 ] || fail "$1: no 501"
    wait_until 5 grep -q "/$1 " "$T/logs/access.log" || fail "$1: not in access.log"
}

write_conf
cuttle_start
wait_until 5 grep -q "Dropped root" "$T/cache.log" || fail "cache.log does not say that cuttle dropped root"
check_dropped "after start"
for path in "$T/logs" "$T/logs/access.log" "$T/run" "$T/run/cuttle.pid" "$T/cache.log"; do
    [ "$(stat -c %U "$path")" = $user ] || fail "$path belongs to $(stat -c %U "$path"), not $user"
done
grep -q "Dropped root: serving as $user (uid $uid" "$T/cache.log" || fail "cache.log does not say whom cuttle serves as"
served start
pass "started as root, cuttle serves as $user with CAP_NET_BIND_SERVICE only"

# a free port below 1024, for the reconfigure to bind after the drop
low=$(python3 -c '
import socket
for p in range(990, 600, -1):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass
    finally: s.close()')
[ -n "$low" ] || fail "no free port below 1024"
echo "http_port 127.0.0.1:$low" >> "$T/squid.conf"
"$CUTTLE" -k reconfigure -f "$T/squid.conf" || fail "-k reconfigure failed"
bound_low() { [ "$(grep -c "Accepting HTTP Socket connections at .* local=127.0.0.1:$low " "$T/cache.log")" -ge "$CUTTLE_TEST_WORKERS" ]; }
wait_until 10 bound_low || fail "the reconfigure did not bind port $low in every worker"
check_dropped "after -k reconfigure"
served reconfigured
served lowport "$low"
pass "after -k reconfigure: still $user, and port $low is bound"

"$CUTTLE" -k rotate -f "$T/squid.conf" || fail "-k rotate failed"
wait_until 5 test -f "$T/logs/access.log.0" || fail "access.log was not renamed by -k rotate"
wait_until 5 test -f "$T/cache.log.0" || fail "cache.log was not renamed by -k rotate"
wait_until 5 test -f "$T/logs/access.log" || fail "access.log was not reopened"
served rotated
grep -q 'cannot' "$T/cache.log" && fail "errors after the rotation: $(grep cannot "$T/cache.log")"
pass "-k rotate renames and reopens the logs after the drop"

cuttle_stop
[ -e "$T/run/cuttle.pid" ] && fail "the pid file is still there after shutdown"
grep -q 'Exiting normally' "$T/cache.log" || fail "no clean exit"
pass "shutdown removes the pid file"

# a user that does not exist: -k parse names FILE:LINE, and the start fails saying why
write_conf "cache_effective_user cuttle-no-such-user"
line=$(grep -n '^cache_effective_user' "$T/squid.conf" | cut -d: -f1)
"$CUTTLE" -k parse -f "$T/squid.conf" > "$T/out" 2>&1 && fail "-k parse accepted a user that does not exist"
grep -q "^$T/squid.conf:$line: cache_effective_user: no such user 'cuttle-no-such-user'" "$T/out" ||
    fail "-k parse did not name the line: $(cat "$T/out")"
timeout "$(scaled 10)" "$CUTTLE" -N -f "$T/squid.conf" > "$T/out" 2>&1 && fail "started with a user that does not exist"
grep -q "no such user 'cuttle-no-such-user'" "$T/out" || fail "the failed start does not say why: $(cat "$T/out")"
pass "a user that does not exist is a start-up error naming FILE:LINE"

# started as nobody: cuttle stays nobody, with no capability, and says so once
chmod 755 "$T" # nobody reaches its own directory through $T
nobody_dir="$T/nobody"
mkdir "$nobody_dir" && chown nobody: "$nobody_dir"
cat > "$nobody_dir/squid.conf" <<CONF
http_port 127.0.0.1:0
access_log stdio:$nobody_dir/access.log
cache_log $nobody_dir/cache.log
pid_filename $nobody_dir/cuttle.pid
error_directory $CUTTLE_ERRORS
shutdown_lifetime 1 second
http_access allow localhost
$(cuttle_workers_line)
CONF
setpriv --reuid=nobody --regid=nogroup --clear-groups "$CUTTLE" -N -f "$nobody_dir/squid.conf" \
    > "$T/stdout" 2> "$T/stderr" &
CUTTLE_PID=$!
wait_until 10 grep -q 'Accepting HTTP Socket' "$nobody_dir/cache.log" || fail "no start as nobody: $(cat "$T/stderr")"
wait_until 10 grep -q 'Running as nobody' "$nobody_dir/cache.log" || fail "cuttle did not say it runs as nobody"
nuid=$(id -u nobody)
[ "$(status_field Uid)" = "$nuid $nuid $nuid $nuid" ] || fail "as nobody: Uid $(status_field Uid)"
[ "$(status_field CapEff)" = 0000000000000000 ] || fail "as nobody: CapEff $(status_field CapEff)"
[ "$(status_field NoNewPrivs)" = 1 ] || fail "as nobody: NoNewPrivs $(status_field NoNewPrivs)"
[ "$(grep -c "Running as nobody (uid $nuid): not started as root" "$nobody_dir/cache.log")" = 1 ] ||
    fail "cache.log does not say once that cuttle runs as nobody"
PORT=$(grep -o 'Accepting HTTP Socket connections at [^ ]* local=[^ ]*' "$nobody_dir/cache.log" | tail -n 1 | sed 's/.*://')
[ "$(proxy_get ftp://127.0.0.1:9/nobody)" = 501 ] || fail "as nobody: no 501"
cuttle_stop
pass "started as nobody, cuttle runs as nobody and says so"
