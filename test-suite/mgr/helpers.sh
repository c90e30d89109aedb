# Helpers shared by the cache manager system tests (test-suite/mgr/*.sh).
# Source it after lib.sh; it sources test-suite/access/helpers.sh, whose
# cache_start runs Squid 5.7 instead of cuttle under CACHE_TEST_SQUID:
#
#     . "$top_srcdir/test-suite/lib.sh"
#     . "$top_srcdir/test-suite/mgr/helpers.sh"
#     cuttle_setup
#     cache_start "http_access allow localhost manager" "http_access deny manager"
#     mgr info -w PASSWORD               # squidclient: $MCODE, $T/mgr.head, $T/mgr.body
#     expect "info" "$MCODE" 200
#     checks_done

. "$top_srcdir/test-suite/access/helpers.sh"

command -v squidclient > /dev/null 2>&1 || { echo "SKIP: squidclient is not installed"; exit 77; }

# the lines of Squid's default squid.conf for the manager
MGR_RULES="http_access allow localhost manager
http_access deny manager"

# mgr ACTION [SQUIDCLIENT ARGS] : asks for ACTION as squidclient 5.7 does
# (GET cache_object://127.0.0.1/ACTION[@PASSWORD]); sets MCODE (the status),
# $T/mgr.head and $T/mgr.body
mgr() {
    local action=$1
    shift
    timeout "$(scaled 10)" squidclient -h 127.0.0.1 -p "$PORT" "$@" "mgr:$action" > "$T/mgr.out" 2> "$T/mgr.err"
    tr -d '\r' < "$T/mgr.out" | sed '/^$/q' > "$T/mgr.head"
    tr -d '\r' < "$T/mgr.out" | sed '1,/^$/d' > "$T/mgr.body"
    MCODE=$(head -n 1 "$T/mgr.head" | cut -d' ' -f2)
}

# internal PATH [CURL ARGS] : GET http://127.0.0.1:PORT/squid-internal-mgr/PATH
# straight to the proxy's port (origin-form); same results as mgr
internal() {
    local path=$1
    shift
    MCODE=$(curl -s -D "$T/mgr.raw" -o "$T/mgr.body" -w '%{http_code}' --max-time "$(scaled 10)" "$@" \
        "http://127.0.0.1:$PORT/squid-internal-mgr/$path")
    tr -d '\r' < "$T/mgr.raw" > "$T/mgr.head"
}

# mgr_header NAME : the value of a field of the last reply
mgr_header() { grep -i "^$1:" "$T/mgr.head" | head -n 1 | sed 's/^[^:]*: *//'; }

# body_has WHAT REGEX : records a failure unless a line of the last body matches
body_has() {
    grep -Eq "$2" "$T/mgr.body" || bad "$1: no line matches /$2/ in: $(head -c 600 "$T/mgr.body")"
}

# logged REGEX : records a failure unless a line of access.log matches
logged() {
    wait_until 5 access_log_has "$1" || bad "access.log has no line matching /$1/: $(tail -n 3 "$T/access.log")"
}
