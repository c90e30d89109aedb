#!/bin/sh
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
#
# Runs every NAME.conf of this directory through `$CUTTLE -k parse -f NAME.conf`
# (from this directory, so relative includes and file names are stable) and
# compares with NAME.expect: its first non-comment line is `exit N`, the
# other lines are the expected diagnostics (`FILE:LINE: reason`,
# `FILE:LINE: WARNING: reason`), in order. Only stderr lines that start
# with `FILE:` or `FILE:LINE:` are compared, so other log lines do not matter.
#
# Then Debian's /etc/squid/squid.conf must parse with warnings only, and the
# same file with a typo must fail naming the line. When it is missing and we
# are root, squid-common is installed (with a policy-rc.d that keeps any
# service from starting); otherwise that part is skipped.
#
# Set KEEP=1 to keep the temporary directory.

here=$(cd "$(dirname "$0")" && pwd)
: "${top_builddir:=$here/../..}"
: "${CUTTLE:=$top_builddir/src/cuttle}"

if [ ! -x "$CUTTLE" ]; then
    echo "SKIP: $CUTTLE is not built"
    exit 77
fi

tmp=$(mktemp -d) || exit 99
[ -n "$KEEP" ] && echo "temporary directory: $tmp" || trap 'rm -rf "$tmp"' EXIT

# A cuttle whose main.cc does not implement `-k parse` yet accepts anything.
"$CUTTLE" -k parse -f /nonexistent-cuttle-dir/squid.conf > /dev/null 2>&1
if [ $? = 0 ]; then
    echo "SKIP: $CUTTLE -k parse accepted a missing file: -k parse is not implemented yet"
    exit 77
fi

passed=0
failed=0
skipped=0

diagnostics() {
    grep -E '^[^[:space:]]+(:[0-9]+)?: ' "$1" || true
}

# run NAME CONF EXPECTED_STATUS EXPECTED_LINES_FILE
run() {
    name=$1
    conf=$2
    want_status=$3
    want=$4
    (cd "$here" && "$CUTTLE" -k parse -f "$conf") > "$tmp/$name.stdout" 2> "$tmp/$name.stderr"
    status=$?
    diagnostics "$tmp/$name.stderr" > "$tmp/$name.got"
    if [ "$status" = "$want_status" ] && diff "$want" "$tmp/$name.got" > "$tmp/$name.diff"; then
        echo "PASS: $name"
        passed=$((passed + 1))
    else
        echo "FAIL: $name ($conf)"
        echo "  expected exit $want_status, got $status"
        echo "  expected diagnostics:"
        sed 's/^/    /' "$want"
        echo "  actual stderr:"
        sed 's/^/    /' "$tmp/$name.stderr"
        failed=$((failed + 1))
    fi
}

for conf in "$here"/*.conf; do
    base=$(basename "$conf" .conf)
    expect="$here/$base.expect"
    if [ ! -f "$expect" ]; then
        echo "FAIL: $base.conf has no $base.expect"
        failed=$((failed + 1))
        continue
    fi
    status=$(grep -v '^#' "$expect" | sed -n 's/^exit \([0-9]*\)$/\1/p' | head -1)
    grep -v '^#' "$expect" | grep -v '^exit [0-9]*$' > "$tmp/$base.want"
    run "$base" "$base.conf" "$status" "$tmp/$base.want"
done

# `-n NAME` sets ${service_name} (Parser::setServiceName); "cuttle" without it.
printf 'visible_hostname ${service_name}/x\n' > "$tmp/service.conf"
for args in "-n edge2:edge2" ":cuttle"; do
    option=${args%%:*}
    name=${args#*:}
    # shellcheck disable=SC2086 # $option is empty or two words
    "$CUTTLE" $option -k parse -f "$tmp/service.conf" > /dev/null 2> "$tmp/service.stderr"
    status=$?
    if [ "$status" = 1 ] && grep -q "^$tmp/service.conf:1: bad visible_hostname '$name/x'" "$tmp/service.stderr"; then
        echo "PASS: \${service_name} is $name with '$option'"
        passed=$((passed + 1))
    else
        echo "FAIL: \${service_name} with '$option': expected exit 1 and '$name/x' in the error, got exit $status:"
        sed 's/^/    /' "$tmp/service.stderr"
        failed=$((failed + 1))
    fi
done

# Debian's default squid.conf.
debian=/etc/squid/squid.conf
if [ ! -f "$debian" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "installing squid-common for $debian"
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod +x /usr/sbin/policy-rc.d
        added_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q squid-common > "$tmp/apt.log" 2>&1 ||
        { apt-get update -q > /dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q squid-common > "$tmp/apt.log" 2>&1; }
    [ -n "$added_policy" ] && rm -f /usr/sbin/policy-rc.d
fi
if [ -f "$debian" ]; then
    "$CUTTLE" -k parse -f "$debian" > /dev/null 2> "$tmp/debian.stderr"
    status=$?
    errors=$(diagnostics "$tmp/debian.stderr" | grep -v ': WARNING: ')
    if [ "$status" = 0 ] && [ -z "$errors" ]; then
        echo "PASS: $debian (warnings only)"
        passed=$((passed + 1))
    else
        echo "FAIL: $debian: expected exit 0 with warnings only, got exit $status:"
        sed 's/^/    /' "$tmp/debian.stderr"
        failed=$((failed + 1))
    fi

    # Debian's conf.d/debian.conf sets logfile_rotate 0, which cuttle implements.
    if grep -q "'logfile_rotate'" "$tmp/debian.stderr"; then
        echo "FAIL: $debian: logfile_rotate is reported as not implemented:"
        sed 's/^/    /' "$tmp/debian.stderr"
        failed=$((failed + 1))
    else
        echo "PASS: $debian (logfile_rotate implemented)"
        passed=$((passed + 1))
    fi

    typo="$tmp/debian-typo.conf"
    sed '0,/^http_access deny manager/s//http_acess deny manager/' "$debian" > "$typo"
    line=$(grep -n '^http_acess deny manager' "$typo" | head -1 | cut -d: -f1)
    if [ -z "$line" ]; then
        echo "SKIP: $debian has no 'http_access deny manager' line to misspell"
        skipped=$((skipped + 1))
    else
        "$CUTTLE" -k parse -f "$typo" > /dev/null 2> "$tmp/typo.stderr"
        status=$?
        if [ "$status" = 1 ] && grep -q "^$typo:$line: unknown directive 'http_acess'" "$tmp/typo.stderr"; then
            echo "PASS: $debian with a typo (exit 1, names $typo:$line)"
            passed=$((passed + 1))
        else
            echo "FAIL: $debian with a typo: expected exit 1 and '$typo:$line: unknown directive ...', got exit $status:"
            sed 's/^/    /' "$tmp/typo.stderr"
            failed=$((failed + 1))
        fi
    fi
else
    echo "SKIP: $debian is missing (install squid-common as root to test it)"
    skipped=$((skipped + 2))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
