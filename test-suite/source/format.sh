#!/bin/sh
# Every C++ file follows the pinned .clang-format, as clang-format 14 (Debian
# 12's) applies it: other versions format some constructs differently, so the
# check runs only with version 14 (clang-format-14 or a clang-format that is 14).
set -u
cd "${top_srcdir:?}" || exit 99
formatter=""
for candidate in clang-format-14 clang-format; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    major=$("$candidate" --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
    if [ "$major" = 14 ]; then formatter=$candidate; break; fi
    echo "$candidate is version ${major:-unknown}, not 14"
done
[ -n "$formatter" ] || { echo "clang-format 14 is not installed: skipped"; exit 77; }
files=$(find src include test-suite -name '*.cc' -o -name '*.h' | grep -v '/autoconf.h$' | sort)
[ -n "$files" ] || exit 99
if "$formatter" --dry-run --Werror $files; then
    echo "$(echo "$files" | wc -l) files formatted as .clang-format says ($formatter)"
else
    echo "FAIL: run $formatter -i on the files above"
    exit 1
fi
