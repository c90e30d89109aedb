#!/bin/sh
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
#
# Runs the same lines through `squid -k parse` (Squid 5.7, when installed)
# and `cuttle -k parse`, and checks that cuttle makes of Squid's old words
# what Squid does:
#   - every alias cuttle knows (doc/directives.md "Squid's aliases") is a
#     word Squid accepts, and cuttle does not call it unknown;
#   - every obsolete directive cuttle knows is one Squid reports as obsolete,
#     and both refuse log_access and log_icap;
#   - `acl manager proto cache_object` gets Squid's UPGRADE note from both;
#   - access_log's format-or-acl rule and logformat's quoted values.
# Skipped (exit 77) without /usr/sbin/squid (SQUID=...) or a built cuttle.
# KEEP=1 keeps the temporary directory.

here=$(cd "$(dirname "$0")" && pwd)
: "${top_builddir:=$here/../..}"
: "${CUTTLE:=$top_builddir/src/cuttle}"
: "${GEN:=$top_builddir/src/config/gen-squid-conf}"
: "${SQUID:=/usr/sbin/squid}"

for tool in "$CUTTLE" "$GEN"; do
    [ -x "$tool" ] || { echo "SKIP: $tool is not built"; exit 77; }
done
[ -x "$SQUID" ] || { echo "SKIP: $SQUID is not installed (apt-get install squid)"; exit 77; }
"$SQUID" -v 2>/dev/null | grep -q 'Version 5\.7' || { echo "SKIP: $SQUID is not Squid 5.7"; exit 77; }

tmp=$(mktemp -d) || exit 99
[ -n "$KEEP" ] && echo "temporary directory: $tmp" || trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # Squid may read it as its own user

passed=0
failed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }

# squid_parse LINE... : Squid's output in $tmp/squid.out, its status in $squid_status
squid_parse() {
    { echo "http_port 127.0.0.1:3128"; echo "cache_log $tmp/squid-cache.log"; echo "pid_filename none"
      printf '%s\n' "$@"; } > "$tmp/squid.conf"
    "$SQUID" -k parse -f "$tmp/squid.conf" > "$tmp/squid.out" 2>&1
    squid_status=$?
}

# cuttle_parse LINE... : cuttle's output in $tmp/cuttle.out, its status in $cuttle_status
cuttle_parse() {
    { echo "http_port 127.0.0.1:3128"; printf '%s\n' "$@"; } > "$tmp/cuttle.conf"
    "$CUTTLE" -k parse -f "$tmp/cuttle.conf" > "$tmp/cuttle.out" 2>&1
    cuttle_status=$?
}

"$GEN" --markdown > "$tmp/directives.md" || exit 99

# Aliases: Squid takes each as a directive (whatever it makes of the value).
aliases=$(sed -n "/^## Squid's aliases/,/^## /s/^| \`\([a-z0-9_.]*\)\` | \`\([a-z0-9_.]*\)\` |$/\1:\2/p" "$tmp/directives.md")
[ -n "$aliases" ] || { fail "no alias table in the generated doc/directives.md"; aliases=""; }
bad=""
for pair in $aliases; do
    alias=${pair%%:*}
    squid_parse "$alias x"
    cuttle_parse "$alias x"
    if grep -q "unrecognized: '$alias'" "$tmp/squid.out"; then
        bad="$bad $alias(Squid: unrecognized)"
    elif grep -q "unknown directive '$alias'" "$tmp/cuttle.out"; then
        bad="$bad $alias(cuttle: unknown)"
    fi
done
[ -z "$bad" ] && pass "$(echo "$aliases" | wc -w) aliases are Squid's and cuttle's" || fail "aliases:$bad"

# A word that looks like an alias but is not one: both refuse it.
squid_parse "redirect_access deny all"
cuttle_parse "redirect_access deny all"
if grep -q "unrecognized: 'redirect_access'" "$tmp/squid.out" && [ "$cuttle_status" = 1 ] &&
    grep -q "unknown directive 'redirect_access'" "$tmp/cuttle.out"; then
    pass "redirect_access is unknown to both"
else
    fail "redirect_access: Squid exit $squid_status, cuttle exit $cuttle_status: $(cat "$tmp/cuttle.out")"
fi

# Obsolete directives: Squid says so for each; both refuse the fatal ones.
obsolete=$(sed -n "/^## Obsolete Squid directives/,\$s/^| \`\([a-z0-9_.]*\)\` | .*/\1/p" "$tmp/directives.md")
[ -n "$obsolete" ] || fail "no obsolete table in the generated doc/directives.md"
bad=""
for name in $obsolete; do
    squid_parse "$name on"
    cuttle_parse "$name on"
    grep -q "ERROR: Directive '$name' is obsolete." "$tmp/squid.out" || bad="$bad $name(Squid: not obsolete)"
    grep -q "'$name' is obsolete" "$tmp/cuttle.out" || bad="$bad $name(cuttle: not obsolete)"
    case $name in
    log_access | log_icap)
        [ "$squid_status" != 0 ] && [ "$cuttle_status" = 1 ] || bad="$bad $name(not refused by both)" ;;
    esac
done
[ -z "$bad" ] && pass "$(echo "$obsolete" | wc -w) obsolete directives are Squid's and cuttle's" ||
    fail "obsolete:$bad"

# check NAME EXPECTED_STATUS CUTTLE_PATTERN SQUID_PATTERN LINE... : both exit
# with EXPECTED_STATUS (0, or non-zero) and say what the patterns say ('' for none).
check() {
    name=$1 want=$2 cuttle_says=$3 squid_says=$4
    shift 4
    squid_parse "$@"
    cuttle_parse "$@"
    ok=1
    if [ "$want" = 0 ]; then
        [ "$squid_status" = 0 ] && [ "$cuttle_status" = 0 ] || ok=0
    else
        [ "$squid_status" != 0 ] && [ "$cuttle_status" != 0 ] || ok=0
    fi
    [ -z "$cuttle_says" ] || grep -q -- "$cuttle_says" "$tmp/cuttle.out" || ok=0
    [ -z "$squid_says" ] || grep -q -- "$squid_says" "$tmp/squid.out" || ok=0
    if [ "$ok" = 1 ]; then
        pass "$name"
    else
        fail "$name: expected exit $want; Squid exit $squid_status, cuttle exit $cuttle_status"
        sed 's/^/    squid: /' "$tmp/squid.out"
        sed 's/^/    cuttle: /' "$tmp/cuttle.out"
    fi
}

upgrade="UPGRADE: ACL 'manager' is now a built-in ACL. Remove it from your config file."
check "acl manager proto: Squid's UPGRADE note" 0 "cuttle.conf:2: WARNING: $upgrade" "$upgrade" \
    "acl manager proto cache_object" "http_access deny manager"
check "access_log PATH ACL: the acl, format squid" 0 "" "" \
    "acl lan src 10.0.0.0/8" "access_log stdio:$tmp/a.log lan"
check "access_log PATH FORMAT ACL" 0 "" "" "acl lan src 10.0.0.0/8" "access_log daemon:$tmp/b.log squid lan"
check "access_log PATH ACL FORMAT: the format is an undefined acl" 1 "acl squid is not defined" "ACL not found: squid" \
    "acl lan src 10.0.0.0/8" "access_log stdio:$tmp/c.log lan squid"
check "access_log PATH OPTION= FORMAT: an undefined acl" 1 "acl common is not defined" "ACL not found: common" \
    "access_log stdio:$tmp/d.log rotate=2 common"
check "logformat with quotes and '#' in its format" 0 "" "" \
    "logformat mine %>a \"%{User-Agent}>h\"x \"%rm # kept"
check "logformat redefining squid is ignored" 0 "logformat squid is already defined" \
    "logformat squid is already defined" "logformat squid %ts"
check "cache_log none is accepted" 0 "cache_log none" "" "cache_log none"
check "logformat with an unknown %-code" 1 "unsupported %-code '%zz'" "Unsupported %code: '%zz'" \
    "logformat mine %>a %zz"
check "access_log with every option and acls" 0 "" "" "acl lan src 10.0.0.0/8" \
    "access_log stdio:$tmp/e.log logformat=combined buffer-size=8KB on-error=drop rotate=3 lan"
check "access_log none with an acl" 0 "" "" "acl lan src 10.0.0.0/8" "access_log none lan"
check "access_log with a bad on-error" 1 "bad access_log on-error 'retry'" "" \
    "access_log stdio:$tmp/f.log on-error=retry"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
exit 0
