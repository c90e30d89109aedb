#!/bin/sh
# The hostile battery (issue 13): over a thousand hostile requests and some
# sixty hostile replies, one table line each (request_cases.py,
# reply_cases.py), run by hostile.py against one cuttle, one test origin
# and one raw origin. README.md says what each case checks.
# HOSTILE_FILTER=TEXT runs only the cases whose name holds TEXT.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
cuttle_conf "http_access allow localhost" "http_access deny all" "request_header_max_size 8 KB" \
    "visible_hostname hostile.test"
cuttle_start

PYTHONDONTWRITEBYTECODE=1 python3 "$top_srcdir/test-suite/hostile/hostile.py" "$PORT" "$OPORT" \
    "$TIMEOUT_MULT" "${HOSTILE_FILTER:-}" > "$T/hostile.out" 2>&1 ||
    { cat "$T/hostile.out"; fail "the hostile battery: $(tail -n 1 "$T/hostile.out")"; }
pass "the hostile battery: $(tail -n 1 "$T/hostile.out")"
cuttle_stop
