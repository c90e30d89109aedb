#!/bin/sh
# Every C++ file follows the pinned .clang-format (clang-format 14, Debian 12).
set -u
cd "${top_srcdir:?}" || exit 99
command -v clang-format >/dev/null 2>&1 || { echo "clang-format is not installed: skipped"; exit 77; }
files=$(find src include test-suite -name '*.cc' -o -name '*.h' | grep -v '/autoconf.h$' | sort)
[ -n "$files" ] || exit 99
if clang-format --dry-run --Werror $files; then
    echo "$(echo "$files" | wc -l) files formatted as .clang-format says"
else
    echo "FAIL: run clang-format -i on the files above"
    exit 1
fi
