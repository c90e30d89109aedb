#!/bin/sh
# Every header compiles on its own (STYLE.md: "every header compiles on its own").
# Each src/**/*.h is compiled alone after cuttle.h, with the project's flags.
set -u
cd "${top_srcdir:?}" || exit 99
cxx=${CXX:-g++}
flags="-std=c++20 -fsyntax-only -Wall -Wextra -Werror -I$top_srcdir/include -I${top_builddir:?}/include -I$top_srcdir/src $(pkg-config --cflags cppunit libcares openssl 2>/dev/null)"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
failed=0
count=0
for h in $(find src -name '*.h' | sort); do
    count=$((count + 1))
    printf '#include "cuttle.h"\n#include "%s"\n' "${h#src/}" >"$tmp/check.cc"
    if ! $cxx $flags -x c++ "$tmp/check.cc" -o /dev/null 2>"$tmp/err"; then
        echo "FAIL: $h does not compile on its own:"
        head -n 20 "$tmp/err"
        failed=$((failed + 1))
    fi
done
echo "$count headers checked, $failed not self-contained"
[ "$count" -gt 0 ] && [ "$failed" -eq 0 ]
