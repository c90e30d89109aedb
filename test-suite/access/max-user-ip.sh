#!/bin/sh
# max_user_ip with authenticate_ip_ttl behind Debian's basic_ncsa_auth: a
# user seen at more addresses than allowed is denied (a deny rule ending in
# it is 403, as in Squid 5.7), and then may go on from the new
# address (the list is flushed); with -s only the new address stays denied.
# The two client addresses are 127.0.0.1 and 127.0.0.2 (curl --interface).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
# With workers (CUTTLE_TEST_WORKERS) each worker keeps its own users'
# addresses (as each Squid kid does), and the kernel picks the worker of a
# connection: every reply names its worker (reply_header_add X-Worker
# ${process_number}); the user's first request picks worker X, and each
# later step is asked until it reaches X, while the other workers answer
# what their own lists say (they see the user from one address first).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
[ -x "$NCSA" ] || { echo "SKIP: no $NCSA (Debian's squid package)"; exit 77; }
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"
passwd_file "$T/passwd" alice:secret bob:hunter2

set --
[ "$CUTTLE_TEST_WORKERS" = 1 ] || set -- 'reply_header_add X-Worker ${process_number}'
cache_start "$@" \
    "auth_param basic program $NCSA $T/passwd" \
    "authenticate_ip_ttl 60 seconds" \
    "acl users proxy_auth REQUIRED" \
    "acl toomany max_user_ip 1" \
    "acl strict max_user_ip -s 1" \
    "acl pStrict urlpath_regex ^/s/strict" \
    "http_access deny pStrict strict" \
    "http_access deny !pStrict toomany" \
    "http_access allow users"

if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    mark
    expect_code "alice from one address" 200 "http://$O/s/a1" --proxy-user alice:secret
    expect_code "alice from a second address" 403 "http://$O/s/a2" --proxy-user alice:secret --interface 127.0.0.2
    expect_code "alice again from the second (the list was flushed)" 200 "http://$O/s/a3" --proxy-user alice:secret --interface 127.0.0.2
    pass_if_ok "max_user_ip: a second address is denied once, then the user moved"

    mark
    expect_code "bob from one address" 200 "http://$O/s/strict1" --proxy-user bob:hunter2
    expect_code "bob from a second address" 403 "http://$O/s/strict2" --proxy-user bob:hunter2 --interface 127.0.0.2
    expect_code "bob again from the second (strict)" 403 "http://$O/s/strict3" --proxy-user bob:hunter2 --interface 127.0.0.2
    expect_code "bob from the first" 200 "http://$O/s/strict4" --proxy-user bob:hunter2
    pass_if_ok "max_user_ip -s: the second address stays denied"
    cache_stop
    checks_done
    exit
fi

# workers: ask WHAT PATH USER:PASSWORD ADDRESS : one request; $CODE its
# status, $WORKER the worker that answered
ask() {
    CODE=$(proxy_get "http://$O$2" --proxy-user "$3" --interface "$4" -D "$T/head")
    WORKER=$(tr -d '\r' < "$T/head" | sed -n 's/^X-Worker: //p' | tail -n 1)
    [ -n "$WORKER" ] || fail "$1: no X-Worker in the reply: $(cat "$T/head")"
}
# on_x WHAT PATH USER:PASSWORD ADDRESS X_CODE OTHERS_CODE : asks (PATH-1,
# PATH-2...) until a request reaches worker $X, which must answer X_CODE;
# another worker must answer OTHERS_CODE, or, with OTHERS_CODE "seen", 403
# if it saw the user from 127.0.0.2 before (in $SEEN2) and 200 if not
on_x() {
    n=0
    while [ $n -lt 64 ]; do
        n=$((n + 1))
        ask "$1" "$2-$n" "$3" "$4"
        if [ "$WORKER" = "$X" ]; then
            [ "$CODE" = "$5" ] || bad "$1: worker $X (the user's first) answered $CODE, expected $5"
            return
        fi
        want=$6
        if [ "$want" = seen ]; then
            case " $SEEN2 " in *" $WORKER "*) want=403 ;; *) want=200 ;; esac
        fi
        [ "$CODE" = "$want" ] || bad "$1: worker $WORKER (not the user's first) answered $CODE, expected $want"
        [ "$4" != 127.0.0.2 ] || SEEN2="$SEEN2 $WORKER"
    done
    fail "$1: 64 requests did not reach worker $X"
}

# first WHAT PATH USER:PASSWORD : the user's first request, from 127.0.0.1,
# must be served; its worker is $X, and no worker saw the user from 127.0.0.2
first() {
    SEEN2=""
    ask "$1" "$2" "$3" 127.0.0.1
    [ "$CODE" = 200 ] || bad "$1: expected 200, got $CODE"
    X=$WORKER
}

mark
first "alice from one address" /s/a1 alice:secret
on_x "alice from a second address" /s/a2 alice:secret 127.0.0.2 403 200
on_x "alice again from the second (the list was flushed)" /s/a3 alice:secret 127.0.0.2 200 200
pass_if_ok "max_user_ip: a second address is denied once by the worker that saw the first, then the user moved"

mark
first "bob from one address" /s/strict1 bob:hunter2
on_x "bob from a second address" /s/strict2 bob:hunter2 127.0.0.2 403 200
on_x "bob again from the second (strict)" /s/strict3 bob:hunter2 127.0.0.2 403 200
on_x "bob from the first" /s/strict4 bob:hunter2 127.0.0.1 200 seen
pass_if_ok "max_user_ip -s: the second address stays denied by the worker that saw the first"
cache_stop
checks_done
