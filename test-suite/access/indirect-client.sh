#!/bin/sh
# follow_x_forwarded_for with acl_uses_indirect_client and
# log_uses_indirect_client as Squid 5.7: X-Forwarded-For is walked from the
# right while the rules trust the hop; src acls and access.log then see the
# indirect client.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

# log_has REGEX : waits (bounded) for an access.log line
log_has() { wait_until 5 access_log_has "$1"; }

RULES="acl trusted src 127.0.0.1
acl inner src 10.0.0.0/8
acl lan src 192.0.2.0/24
acl good src 198.51.100.0/24
follow_x_forwarded_for allow trusted
follow_x_forwarded_for allow inner
follow_x_forwarded_for deny all
http_access deny lan
http_access allow good"

# start LINE... : the proxy with the rules above and these lines
start() {
    local IFS='
'
    # shellcheck disable=SC2086
    cache_start $RULES "$@"
}

start
mark
expect_code "no X-Forwarded-For" 200 "http://$O/none"
log_has " 127\\.0\\.0\\.1 TCP_MISS/200 [0-9]+ GET http://$O/none " || bad "the direct client is not logged"
expect_code "a trusted hop's client" 403 "http://$O/one" -H "X-Forwarded-For: 192.0.2.9"
log_has " 192\\.0\\.2\\.9 TCP_DENIED/403 [0-9]+ GET http://$O/one " || bad "the indirect client is not logged"
expect_code "two trusted hops" 403 "http://$O/two" -H "X-Forwarded-For: 192.0.2.9, 10.1.1.1"
log_has " 192\\.0\\.2\\.9 TCP_DENIED/403 [0-9]+ GET http://$O/two " || bad "two hops: the client is not logged"
# two fields are one list
expect_code "two fields" 403 "http://$O/fields" -H "X-Forwarded-For: 192.0.2.9" -H "X-Forwarded-For: 10.1.1.1"
expect_code "an untrusted hop is the client" 200 "http://$O/untrusted" \
    -H "X-Forwarded-For: 192.0.2.9, 198.51.100.7"
log_has " 198\\.51\\.100\\.7 TCP_MISS/200 [0-9]+ GET http://$O/untrusted " || bad "the untrusted hop is not logged"
expect_code "an item that is no address" 200 "http://$O/garbage" -H "X-Forwarded-For: 192.0.2.9, unknown"
log_has " 127\\.0\\.0\\.1 TCP_MISS/200 [0-9]+ GET http://$O/garbage " || bad "garbage: the direct client is not logged"
pass_if_ok "follow_x_forwarded_for: the indirect client for src acls and the log"

mark
start "acl_uses_indirect_client off"
expect_code "acls see the direct client" 200 "http://$O/aclsoff" -H "X-Forwarded-For: 192.0.2.9"
log_has " 192\\.0\\.2\\.9 TCP_MISS/200 [0-9]+ GET http://$O/aclsoff " || bad "the log does not show the indirect client"
start "log_uses_indirect_client off"
expect_code "the log sees the direct client" 403 "http://$O/logoff" -H "X-Forwarded-For: 192.0.2.9"
log_has " 127\\.0\\.0\\.1 TCP_DENIED/403 [0-9]+ GET http://$O/logoff " || bad "the log does not show the direct client"
pass_if_ok "acl_uses_indirect_client off, log_uses_indirect_client off"

cache_stop
checks_done
