#!/bin/sh
# cuttle: a caching forward HTTP proxy that reads squid.conf.
# Copyright (C) 2026 The cuttle developers. GPL-2.0-or-later.
#
# Fails when the committed squid.conf.default or doc/directives.md differ
# from what gen-squid-conf prints from the directive table.

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../../..}"
: "${top_builddir:=$top_srcdir}"
gen="$top_builddir/src/config/gen-squid-conf"

if [ ! -x "$gen" ]; then
    echo "check-generated: $gen is not built (run make first)"
    exit 99
fi

failed=0
check() {
    option=$1
    file=$2
    out=$(mktemp) || exit 99
    if ! "$gen" "$option" > "$out"; then
        echo "FAIL: $gen $option failed"
        failed=1
    elif ! diff -u "$top_srcdir/$file" "$out"; then
        echo "FAIL: $file differs from the directive table's output (diff above: - committed, + generated)."
        echo "      Regenerate it with: make regen-config-docs   (then commit $file)"
        failed=1
    else
        echo "ok: $file matches gen-squid-conf $option"
    fi
    rm -f "$out"
}

check --conf squid.conf.default
check --markdown doc/directives.md

if [ $failed = 0 ]; then
    echo "2 passed, 0 failed"
else
    exit 1
fi
