#!/bin/sh
# A 2 GiB download through cuttle arrives intact (sha256 of the stream, no
# file written), as does a 256 MB file the origin sends with sendfile; the
# access.log line counts every byte, and no body byte was copied in user
# space (the manager's mem page, and cache.log at shutdown). The MB/s are printed for
# the record, never asserted.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"
cuttle_setup
origin_start
proxy_conf
cuttle_start

# fetch NAME URL [CURL ARGS] : the body's sha256 in $T/NAME.sha, curl's
# "status size speed" in $T/NAME.w and its exit code in $T/NAME.rc
fetch() {
    name=$1
    url=$2
    shift 2
    {
        curl -sS --max-time "$(scaled 120)" "$@" \
            -w '%{stderr}%{http_code} %{size_download} %{speed_download}\n' "$url" 2> "$T/$name.w"
        echo $? > "$T/$name.rc"
    } | sha256sum | cut -d ' ' -f 1 > "$T/$name.sha"
    [ "$(cat "$T/$name.rc")" = 0 ] || fail "$name: curl failed: $(cat "$T/$name.w")"
}

# check_fetch NAME SIZE EXPECTED_SHA
check_fetch() {
    set -- "$1" "$2" "$3" $(tail -n 1 "$T/$1.w")
    [ "$4" = 200 ] || fail "$1: status $4"
    [ "$5" = "$2" ] || fail "$1: $5 bytes, expected $2"
    [ "$(cat "$T/$1.sha")" = "$3" ] || fail "$1: sha256 $(cat "$T/$1.sha"), expected $3"
    echo "$1: $(awk -v s="$6" 'BEGIN { printf "%.0f", s / 1048576 }') MB/s (hashed while downloading)"
}

# the expected hash is computed while the download runs (2 cores)
pattern_sha256 2g > "$T/expected-2g" &
hasher=$!
fetch via-cuttle-2g "$OURL/download-2g?s=2g" -x "127.0.0.1:$PORT"
wait $hasher || fail "cuttle-origin --print-body 2g failed"
check_fetch via-cuttle-2g 2147483648 "$(cat "$T/expected-2g")"
pass "2 GiB through cuttle: sha256 matches"

make_pattern_file big 256m
expected=$(sha256sum < "$T/files/big" | cut -d ' ' -f 1)
fetch direct-big "$OURL/files/big"
check_fetch direct-big 268435456 "$expected"
fetch via-cuttle-big "$OURL/files/big" -x "127.0.0.1:$PORT"
check_fetch via-cuttle-big 268435456 "$expected"
rm -f "$T/files/big"
pass "256 MB file through cuttle equals the direct download"

# Squid's native format: the size counts the reply head too; the URL is
# matched without its query (strip_query_terms is on by default)
logged_size() {
    awk -v url="$1" '($7 == url || index($7, url "?") == 1) && $4 ~ /^TCP_MISS\/200$/ && $9 == "HIER_DIRECT/127.0.0.1" { print $5 }' \
        "$T/access.log" | tail -n 1
}
has_logged() { [ -n "$(logged_size "$1")" ]; }
for case in "$OURL/download-2g 2147483648" "$OURL/files/big 268435456"; do
    set -- $case
    wait_until 5 has_logged "$1" || fail "no 'TCP_MISS/200 SIZE GET $1 - HIER_DIRECT/127.0.0.1' line"
    size=$(logged_size "$1")
    [ "$size" -gt "$2" ] && [ "$size" -lt $(($2 + 4096)) ] ||
        fail "access.log size $size for $1 (body $2 bytes and a head)"
done
pass "access.log has TCP_MISS/200 with the sizes and HIER_DIRECT/127.0.0.1"

copies=$(mgr_counter body_copies)
[ "$copies" = 0 ] || fail "mem page: body_copies '$copies', expected 0"
pass "mem page: body_copies 0"

cuttle_stop
grep -q 'user-space body copies: 0 ' "$T/cache.log" ||
    fail "cache.log at shutdown: $(grep 'user-space body copies' "$T/cache.log" || echo 'no user-space body copies line')"
pass "cache.log at shutdown: user-space body copies: 0"
