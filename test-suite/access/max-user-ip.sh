#!/bin/sh
# max_user_ip with authenticate_ip_ttl behind Debian's basic_ncsa_auth: a
# user seen at more addresses than allowed is denied (a deny rule ending in
# it is 403, as in Squid 5.7), and then may go on from the new
# address (the list is flushed); with -s only the new address stays denied.
# The two client addresses are 127.0.0.1 and 127.0.0.2 (curl --interface).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
[ -x "$NCSA" ] || { echo "SKIP: no $NCSA (Debian's squid package)"; exit 77; }
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"
passwd_file "$T/passwd" alice:secret bob:hunter2

cache_start \
    "auth_param basic program $NCSA $T/passwd" \
    "authenticate_ip_ttl 60 seconds" \
    "acl users proxy_auth REQUIRED" \
    "acl toomany max_user_ip 1" \
    "acl strict max_user_ip -s 1" \
    "acl pStrict urlpath_regex ^/s/strict" \
    "http_access deny pStrict strict" \
    "http_access deny !pStrict toomany" \
    "http_access allow users"

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
