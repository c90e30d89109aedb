#!/bin/sh
# cachemgr_passwd as Squid 5.7 applies it: a password from squidclient -w
# (cache_object://HOST/ACTION@PASSWORD) or an Authorization: Basic field;
# a missing or wrong one is 401 ERR_CACHE_MGR_ACCESS_DENIED with
# WWW-Authenticate: Basic realm="ACTION"; `none` needs none; `disable`, an
# unknown action, and a command no line names (hidden) are 404
# ERR_INVALID_URL; the first line naming an action (or `all`) decides; the
# menu shows each action's protection.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/mgr/helpers.sh"
cuttle_setup

cache_start "$MGR_RULES" "cachemgr_passwd s3cret counters config" "cachemgr_passwd none info" \
    "cachemgr_passwd disable mem"

mark
mgr counters
expect "no password" "$MCODE" 401
expect "its page" "$(mgr_header X-Squid-Error)" "ERR_CACHE_MGR_ACCESS_DENIED 0"
expect "its challenge" "$(mgr_header WWW-Authenticate)" 'Basic realm="counters"'
logged ' TCP_MISS/401 [0-9]+ GET cache_object://127\.0\.0\.1/counters - HIER_NONE/- text/html$'
mgr counters -w wrong
expect "a wrong password" "$MCODE" 401
mgr counters -w S3CRET
expect "another case" "$MCODE" 401
mgr counters -w s3cret
expect "the password" "$MCODE" 200
body_has "counters page" '^client_http\.requests = [0-9]+$'
pass_if_ok "a protected action: 401 without its password, served with it (squidclient -w)"

mark
internal counters -u admin:s3cret
expect "Authorization: Basic with the password" "$MCODE" 200
body_has "counters page" '^client_http\.requests = [0-9]+$'
internal counters -u admin:wrong
expect "Authorization: Basic with another" "$MCODE" 401
expect "its challenge" "$(mgr_header WWW-Authenticate)" 'Basic realm="counters"'
internal counters@s3cret
expect "no @PASSWORD in the http form" "$MCODE" 404
pass_if_ok "the password from Authorization: Basic; no @PASSWORD in /squid-internal-mgr/"

mark
mgr info
expect "none" "$MCODE" 200
mgr info -w anything
expect "none, with a password" "$MCODE" 200
mgr mem
expect "disable" "$MCODE" 404
expect "disable's page" "$(mgr_header X-Squid-Error)" "ERR_INVALID_URL 0"
mgr mem -w s3cret
expect "disable, with a password" "$MCODE" 404
mgr shutdown -w s3cret
expect "a command no line names (hidden)" "$MCODE" 404
mgr nosuch -w s3cret
expect "an unknown action" "$MCODE" 404
mgr utilization
expect "a page no line names" "$MCODE" 200
pass_if_ok "none, disable, hidden commands, unknown actions, pages no line names"

mark
mgr menu
expect "menu" "$MCODE" 200
body_has "counters protected" '^ counters +	Traffic and Resource Counters +	protected$'
body_has "info public" '^ info +	General Runtime Information +	public$'
body_has "mem disabled" '^ mem +	Memory Utilization +	disabled$'
body_has "shutdown hidden" '^ shutdown +	Shut Down the Squid Process +	hidden$'
body_has "utilization public" '^ utilization +	Cache Utilization +	public$'
pass_if_ok "the menu shows each action's protection"

mark
# the first line naming an action, or all, decides
cache_start "$MGR_RULES" "cachemgr_passwd none menu" "cachemgr_passwd first all" "cachemgr_passwd later info"
mgr menu
expect "named first: none" "$MCODE" 200
mgr info -w later
expect "all came before the line naming info" "$MCODE" 401
mgr info -w first
expect "all's password" "$MCODE" 200
mgr shutdown
expect "all reveals a command: protected" "$MCODE" 401
pass_if_ok "the first line naming an action, or all, decides"

if [ -z "$CACHE_TEST_SQUID" ]; then
    mark
    # cuttle leaves the password out of access.log (doc/differences.md)
    logged ' TCP_MISS/200 [0-9]+ GET cache_object://127\.0\.0\.1/info - HIER_NONE/- text/plain$'
    grep -q 'cache_object:.*@' "$T/access.log" && bad "a password in access.log: $(grep 'cache_object:.*@' "$T/access.log")"
    # and masks cachemgr_passwd on the config page (Squid 5.7 crashes on mgr:config)
    mgr config -w first
    expect "config" "$MCODE" 200
    body_has "masked" '^cachemgr_passwd XXXXXXXXXX all$'
    body_has "none stays" '^cachemgr_passwd none menu$'
    grep -q 'first\|later' "$T/mgr.body" && bad "a password on the config page"
    pass_if_ok "no password in access.log or on the config page"
fi

cache_stop
checks_done
