#!/bin/sh
# The manager's commands as Squid 5.7 runs them: rotate, reconfigure and
# shutdown do what `-k rotate|reconfigure|shutdown` does, only with the
# password a cachemgr_passwd line gives them (`none`: without one); with no
# line naming them they are hidden (404).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/mgr/helpers.sh"
cuttle_setup

mark
cache_start "$MGR_RULES"
for command in shutdown reconfigure rotate; do
    mgr "$command"
    expect "$command without a cachemgr_passwd line" "$MCODE" 404
done
is_running "$CUTTLE_PID" || bad "the proxy stopped"
pass_if_ok "commands no cachemgr_passwd line names are hidden"

cache_start "$MGR_RULES" "cachemgr_passwd adm1n shutdown reconfigure rotate" "logfile_rotate 3"
mark
mgr shutdown
expect "shutdown without the password" "$MCODE" 401
mgr shutdown -w wrong
expect "shutdown with another" "$MCODE" 401
mgr rotate -w wrong
expect "rotate with another" "$MCODE" 401
is_running "$CUTTLE_PID" || bad "the proxy stopped"
[ -e "$T/access.log.0" ] && bad "rotated without the password"
pass_if_ok "commands need their password"

mark
mgr rotate -w adm1n
expect "rotate" "$MCODE" 200
expect "rotate's words" "$(cat "$T/mgr.body")" "Rotating Squid Process Logs ...."
wait_until 5 test -e "$T/access.log.0" || bad "rotate: no access.log.0"
# (Squid logs it in the new file, cuttle in the old one: both are the log)
rotate_logged() { cat "$T/access.log" "$T/access.log.0" | grep -Eq ' TCP_MISS/200 [0-9]+ GET cache_object://127\.0\.0\.1/rotate'; }
wait_until 5 rotate_logged || bad "rotate was not logged"
pass_if_ok "rotate rotates the logs"

mark
before=$(grep -c 'Reconfigur' "$T/cache.log")
mgr reconfigure -w adm1n
expect "reconfigure" "$MCODE" 200
expect "reconfigure's words" "$(cat "$T/mgr.body")" "Reconfiguring Squid Process ...."
reconfigured() { [ "$(grep -c 'Reconfigur' "$T/cache.log")" -gt "$before" ]; }
wait_until 10 reconfigured || bad "reconfigure: cache.log says nothing of it"
is_running "$CUTTLE_PID" || bad "the proxy stopped"
mgr info
expect "serving after reconfigure" "$MCODE" 200
pass_if_ok "reconfigure reconfigures"

mark
mgr shutdown -w adm1n
expect "shutdown" "$MCODE" 200
wait_until 15 is_stopped "$CUTTLE_PID" || bad "shutdown: still running"
pass_if_ok "shutdown stops the proxy"

mark
cache_start "$MGR_RULES" "cachemgr_passwd none shutdown"
mgr shutdown
expect "shutdown with none" "$MCODE" 200
wait_until 15 is_stopped "$CUTTLE_PID" || bad "shutdown (none): still running"
pass_if_ok "none: shutdown without a password"

cache_stop
checks_done
