#!/bin/sh
# external_acl_type and `acl external` with scripted helpers in Squid's
# external acl protocol: OK allows, ERR does not, BH or a helper that dies
# denies whatever the rule says, answers are cached for ttl, the format's
# values and the acl's arguments make the request line, notes returned by
# the helper are matched by note, tag and ext_user acls and the user= is
# logged, a concurrent helper may answer out of order, and Debian's
# ext_file_userip_acl works with %SRC %LOGIN behind basic_ncsa_auth.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
# With workers (CUTTLE_TEST_WORKERS) each worker runs its own helpers and
# caches their answers (as each Squid kid does); replies name their worker
# (access/helpers.sh WORKER_TAG): the answers to cache are asked in every
# worker first, the restarted helper is asked in the worker whose helper
# died, and the fast requests go to every worker while the slow one waits.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
USERIP=/usr/lib/squid/ext_file_userip_acl
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

# concurrency 0: "WHO METHOD [ARG...]" in, one answer out, in order
cat > "$T/who.sh" <<SH
#!/bin/sh
while read -r who method rest; do
    echo "\$who \$method \$rest" >> "$T/who.log"
    case \$who in
    alice) echo "OK user=alice tag=staff grp=red groups=blue,green" ;;
    carol) echo "OK user=carol tag=guest grp=blue" ;;
    broken) echo "BH message=oops" ;;
    sleepy) sleep 2; echo "OK" ;;
    die) exit 1 ;;
    *) echo "ERR message=who%20are%20you" ;;
    esac
done
SH
# concurrency 3: "ID KEY" in, answered when ready: slow ones later
cat > "$T/conc.py" <<'PY'
import sys, threading, time
lock = threading.Lock()
def answer(ident, key):
    if key.startswith("slow"):
        time.sleep(1)
    with lock:
        sys.stdout.write("%s %s\n" % (ident, "OK" if key.endswith("ok") else "ERR"))
        sys.stdout.flush()
for line in sys.stdin:
    parts = line.split()
    if len(parts) >= 2:
        threading.Thread(target=answer, args=(parts[0], parts[1].lstrip("/")), daemon=True).start()
PY
# logs what %SRCPORT gave it, and allows
cat > "$T/port.sh" <<SH
#!/bin/sh
while read -r line; do
    echo "\$line" >> "$T/port.log"
    echo OK
done
SH
chmod 755 "$T/who.sh" "$T/port.sh"
: > "$T/port.log"
chmod 666 "$T/port.log"
: > "$T/who.log"
chmod 666 "$T/who.log"
passwd_file "$T/passwd" alice:secret bob:hunter2
echo "127.0.0.1 alice" > "$T/userip"
chmod 644 "$T/userip"

set --
[ "$CUTTLE_TEST_WORKERS" = 1 ] || set -- "$WORKER_TAG"
cache_start "$@" \
    "auth_param basic program $NCSA $T/passwd" \
    "external_acl_type who ttl=60 negative_ttl=60 children-max=2 %>{X-Who} %METHOD $T/who.sh" \
    "external_acl_type conc concurrency=3 ttl=0 negative_ttl=0 %PATH /usr/bin/python3 $T/conc.py" \
    "external_acl_type userip ttl=60 %SRC %LOGIN $USERIP -f $T/userip" \
    "external_acl_type srcport ttl=0 negative_ttl=0 %SRCPORT $T/port.sh" \
    "acl okport external srcport" \
    "acl pPort urlpath_regex ^/s/port" \
    "acl aliceRx ext_user_regex -i ^ALI" \
    "acl pRx urlpath_regex ^/s/rx" \
    "acl okwho external who first second" \
    "acl okconc external conc" \
    "acl okuserip external userip" \
    "acl red note grp red" \
    "acl listed note -m groups green" \
    "acl staff tag staff" \
    "acl isAlice ext_user alice" \
    "acl pWho urlpath_regex ^/s/who" \
    "acl pRed urlpath_regex ^/s/red" \
    "acl pList urlpath_regex ^/s/list" \
    "acl pTag urlpath_regex ^/s/tag" \
    "acl pUser urlpath_regex ^/s/user" \
    "acl pNot urlpath_regex ^/s/not" \
    "acl pConc urlpath_regex ^/(slow|fast)" \
    "acl pUserip urlpath_regex ^/s/userip" \
    "http_access allow pWho okwho" \
    "http_access allow pRed okwho red" \
    "http_access allow pList okwho listed" \
    "http_access allow pTag okwho staff" \
    "http_access allow pUser okwho isAlice" \
    "http_access allow pNot !okwho" \
    "http_access allow pRx okwho aliceRx" \
    "http_access allow pPort okport" \
    "http_access allow pConc okconc" \
    "http_access allow pUserip okuserip" \
    "http_access deny all"

mark
expect_code "OK" 200 "http://$O/s/who1" -H "X-Who: alice"
wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET http://$O/s/who1 alice HIER_DIRECT/" ||
    bad "no access.log line with the external user alice"
expect_code "ERR" 403 "http://$O/s/who2" -H "X-Who: bob"
expect_code "no header: -" 403 "http://$O/s/who3"
grep -q "^alice GET first second\$" "$T/who.log" || bad "the request line is not the format and arguments: $(cat "$T/who.log")"
grep -q "^- GET first second\$" "$T/who.log" || bad "an absent value is not sent as -: $(cat "$T/who.log")"
pass_if_ok "OK allows, ERR denies, the request line is the format then the acl's arguments"

mark
if [ "$CUTTLE_TEST_WORKERS" != 1 ]; then
    in_every_worker "OK in every worker" 200 "http://$O/s/who4" -H "X-Who: alice"
    in_every_worker "ERR in every worker" 403 "http://$O/s/who5" -H "X-Who: bob"
fi
: > "$T/who.log"
expect_code "cached OK" 200 "http://$O/s/who4" -H "X-Who: alice"
expect_code "cached ERR" 403 "http://$O/s/who5" -H "X-Who: bob"
grep -q . "$T/who.log" && bad "cached answers were asked again: $(cat "$T/who.log")"
expect_code "a value with a space is escaped" 403 "http://$O/s/who6" -H "X-Who: d a"
grep -q "^d%20a GET first second\$" "$T/who.log" || bad "the value is not URL-escaped: $(cat "$T/who.log")"
pass_if_ok "answers are cached for ttl and negative_ttl, values are URL-escaped"

mark
expect_code "note matches" 200 "http://$O/s/red" -H "X-Who: alice"
expect_code "note does not match" 403 "http://$O/s/red" -H "X-Who: carol"
expect_code "note -m matches a list member" 200 "http://$O/s/list" -H "X-Who: alice"
expect_code "tag matches" 200 "http://$O/s/tag" -H "X-Who: alice"
expect_code "tag does not match" 403 "http://$O/s/tag" -H "X-Who: carol"
expect_code "ext_user matches" 200 "http://$O/s/user" -H "X-Who: alice"
expect_code "ext_user does not match" 403 "http://$O/s/user" -H "X-Who: carol"
expect_code "ext_user_regex -i matches" 200 "http://$O/s/rx" -H "X-Who: alice"
expect_code "ext_user_regex does not match" 403 "http://$O/s/rx" -H "X-Who: carol"
pass_if_ok "note, tag, ext_user and ext_user_regex match what the helper returned"

mark
expect_code "%SRCPORT" 200 "http://$O/s/port"
grep -Eq "^[1-9][0-9]* -\$" "$T/port.log" || bad "%SRCPORT did not give the client's port, then - for no arguments: $(cat "$T/port.log")"
pass_if_ok "%SRCPORT gives the helper the client's port; an acl without arguments sends -"

mark
expect_code "BH denies" 403 "http://$O/s/who7" -H "X-Who: broken"
expect_code "BH denies a negated acl too" 403 "http://$O/s/not1" -H "X-Who: broken"
expect_code "ERR with a negated acl" 200 "http://$O/s/not2" -H "X-Who: bob"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    expect_code "a dying helper denies" 403 "http://$O/s/who8" -H "X-Who: die"
    expect_code "the helper is restarted" 200 "http://$O/s/who9" -H "X-Who: carol"
else
    ask_worker "http://$O/s/who8" -H "X-Who: die"
    [ "$CODE" = 403 ] || bad "a dying helper denies: expected 403, got $CODE"
    died=$WORKER
    n=0
    while [ $n -lt 64 ]; do
        n=$((n + 1))
        ask_worker "http://$O/s/who9-$n" -H "X-Who: carol"
        [ "$CODE" = 200 ] || bad "the helper is restarted: worker $WORKER answered $CODE"
        [ "$WORKER" != "$died" ] || break
    done
    [ "$WORKER" = "$died" ] || bad "64 requests did not reach worker $died, whose helper died"
fi
pass_if_ok "BH and a dying helper never allow"

# a concurrent helper answers the slow request after the fast one
mark
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://$O/slowok") &&
    echo "$code" > "$T/slow.code" &
SLOW=$!
sleep 0.3
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    expect_code "concurrency: the fast ERR" 403 "http://$O/fastno"
else
    # the slow one waits in one of them
    in_every_worker "concurrency: the fast ERR" 403 "http://$O/fastno"
fi
[ -s "$T/slow.code" ] && bad "the slow answer came before the fast one"
expect_code "concurrency: a fast OK" 200 "http://$O/fastok"
wait "$SLOW"
[ "$(cat "$T/slow.code" 2>/dev/null)" = 200 ] || bad "concurrency: the slow OK got $(cat "$T/slow.code" 2>/dev/null)"
pass_if_ok "a concurrent helper answers out of order"

if [ -z "$CACHE_TEST_SQUID" ]; then
    # a reconfigure while a request waits for the helper: the request is
    # checked again under the new configuration, and the proxy goes on
    mark
    curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://$O/s/who10" \
        -H "X-Who: sleepy" > "$T/sleepy.code" &
    SLEEPY=$!
    sleep 0.5
    kill -HUP "$CUTTLE_PID"
    wait "$SLEEPY"
    [ "$(cat "$T/sleepy.code")" = 200 ] || bad "a request waiting across a reconfigure: $(cat "$T/sleepy.code")"
    is_running "$CUTTLE_PID" || bad "the proxy died in a reconfigure while a helper worked"
    expect_code "after the reconfigure" 200 "http://$O/s/who11" -H "X-Who: alice"
    pass_if_ok "a reconfigure while a request waits for the helper"
fi

if [ -x "$USERIP" ] && [ -x "$NCSA" ]; then
    mark
    expect_code "%LOGIN without credentials asks for them" 407 "http://$O/s/userip1"
    expect_code "ext_file_userip_acl: the user at the address" 200 "http://$O/s/userip2" --proxy-user alice:secret
    expect_code "ext_file_userip_acl: another user" 403 "http://$O/s/userip3" --proxy-user bob:hunter2
    pass_if_ok "Debian's ext_file_userip_acl with %SRC %LOGIN"
fi
cache_stop
checks_done
