#!/bin/sh
# auth_param basic with Debian's basic_ncsa_auth and an htpasswd file made
# here: no credentials or bad ones get 407 with Proxy-Authenticate, good ones
# pass with the user in access.log, Proxy-Authorization is never forwarded,
# proxy_auth user lists and REQUIRED, and a helper that cannot answer denies.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
[ -x "$NCSA" ] || { echo "SKIP: no $NCSA (Debian's squid package)"; exit 77; }
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"
passwd_file "$T/passwd" alice:secret bob:hunter2 carol:upload

cache_start \
    "auth_param basic program $NCSA $T/passwd" \
    "auth_param basic children 2 startup=0 idle=1" \
    "auth_param basic realm cuttle test realm" \
    "auth_param basic credentialsttl 1 minute" \
    "acl users proxy_auth REQUIRED" \
    "acl onlyBob proxy_auth bob" \
    "acl bobPath urlpath_regex ^/s/bob" \
    "acl open urlpath_regex ^/s/open" \
    "http_access allow open" \
    "http_access deny bobPath !onlyBob" \
    "http_access allow users"

mark
expect_code "no credentials" 407 "http://$O/s/a"
grep -qi '^Proxy-Authenticate: Basic realm="cuttle test realm"' "$T/head" 2>/dev/null ||
    curl -s -o /dev/null -D "$T/head" -x "127.0.0.1:$PORT" "http://$O/s/a"
grep -qi '^Proxy-Authenticate: Basic realm="cuttle test realm"' "$T/head" ||
    bad "no Proxy-Authenticate with the realm: $(grep -i proxy-auth "$T/head")"
wait_until 5 access_log_has " TCP_DENIED/407 [0-9]+ GET http://$O/s/a - HIER_NONE/- text/html" ||
    bad "no TCP_DENIED/407 line"
expect_code "bad password" 407 "http://$O/s/a" --proxy-user alice:wrong
expect_code "unknown user" 407 "http://$O/s/a" --proxy-user mallory:secret
expect_code "good password" 200 "http://$O/s/a" --proxy-user alice:secret
wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET http://$O/s/a alice HIER_DIRECT/" ||
    bad "no access.log line with the user alice"
expect_code "a rule before the login needs none" 200 "http://$O/s/open"
pass_if_ok "basic_ncsa_auth: 407 without or with bad credentials, 200 with good ones"

mark
expect_code "user list: the listed user" 200 "http://$O/s/bob1" --proxy-user bob:hunter2
expect_code "user list: another user (a deny ending in proxy_auth asks again)" 407 "http://$O/s/bob2" --proxy-user alice:secret
expect_code "user list: no credentials" 407 "http://$O/s/bob3"
pass_if_ok "proxy_auth with a user list"

# Proxy-Authorization is for the proxy: the origin never sees it
mark
script pa "s=10"
code=$(proxy_get "$(url pa)" --proxy-user alice:secret)
[ "$code" = 200 ] || bad "scripted fetch: $code"
seen pa
grep -qi "Proxy-Authorization" "$T/seen" && bad "the origin saw Proxy-Authorization"
grep -qi "^GET " "$T/seen" || bad "the origin saw no request: $(head -c 300 "$T/seen")"
pass_if_ok "Proxy-Authorization is not forwarded"

# an upload whose credentials are checked first: the head waits for the
# helper with the whole body already in the socket, then the body streams
mark
head -c 300000 /dev/urandom > "$T/upload"
script up "s=10"
code=$(proxy_get "$(url up)" --proxy-user carol:upload -H "Expect:" --data-binary "@$T/upload")
[ "$code" = 200 ] || bad "an upload with credentials not checked yet: $code"
seen up
grep -qi "^Content-Length: 300000" "$T/seen" || bad "the origin did not get the whole body: $(head -c 300 "$T/seen")"
pass_if_ok "an upload waits for the credentials' check, then goes through whole"

# several requests on one connection, the second with credentials cached
mark
out=$(curl -s -o /dev/null -o /dev/null -w '%{http_code} ' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
    --proxy-user alice:secret "http://$O/s/k1" "http://$O/s/k2")
[ "$out" = "200 200 " ] || bad "two requests on one connection: got '$out'"
pass_if_ok "keep-alive with credentials"

cache_stop

# casesensitive off (the default) lowercases the user before the helper
# sees it and in access.log; on keeps it; utf8 on sends a Latin-1 user
# name to the helper in UTF-8 (the password file has it in UTF-8)
echo "$(printf 'jos\303\251'):$(openssl passwd -1 latin)" >> "$T/passwd"
mark
cache_start "auth_param basic program $NCSA $T/passwd" "auth_param basic utf8 on" \
    "acl users proxy_auth REQUIRED" "http_access allow users"
expect_code "an upper-case user, casesensitive off" 200 "http://$O/s/case1" --proxy-user ALICE:secret
wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET http://$O/s/case1 alice HIER_DIRECT/" ||
    bad "the user is not logged lowercased"
expect_code "a Latin-1 user, utf8 on" 200 "http://$O/s/latin1" --proxy-user "$(printf 'jos\351:latin')"
cache_start "auth_param basic program $NCSA $T/passwd" "auth_param basic casesensitive on" \
    "acl users proxy_auth REQUIRED" "http_access allow users"
expect_code "an upper-case user, casesensitive on" 407 "http://$O/s/case2" --proxy-user ALICE:secret
expect_code "the user as written, casesensitive on" 200 "http://$O/s/case3" --proxy-user alice:secret
expect_code "a Latin-1 user, utf8 off" 407 "http://$O/s/latin2" --proxy-user "$(printf 'jos\351:latin')"
cache_stop
pass_if_ok "casesensitive and utf8"

# a helper that cannot run: logins fail closed (407), nothing is let through
if [ -z "$CACHE_TEST_SQUID" ]; then
    mark
    cache_start "auth_param basic program /nonexistent/helper" "acl users proxy_auth REQUIRED" \
        "http_access allow users"
    code=$(proxy_get "http://$O/s/x" --proxy-user alice:secret)
    case $code in 407 | 403) ;; *) bad "a broken helper let a request through: $code" ;; esac
    cache_stop
    pass_if_ok "a helper that cannot run denies"
fi
checks_done
