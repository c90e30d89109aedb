#!/bin/sh
# cuttle: the training run of --enable-pgo (doc/tuning.md "PGO").
# Usage: pgo-train.sh CUTTLE CUTTLE_ORIGIN
#
# Runs the instrumented cuttle against cuttle-origin, both on 127.0.0.1 with
# ports picked by the kernel, through what a forward proxy spends its life
# on: small uncached requests (4 KB and 64 KB, no-store) over keep-alive
# connections from a few clients at once, small memory hits, and large
# downloads (one spliced no-store, one stored and hit). Every count is fixed
# and every client has a time limit; cuttle is stopped with SIGINT (it exits
# at once, writing the .gcda profiles beside its objects).
set -u
cuttle=$1
origin=$2
command -v curl > /dev/null || { echo "pgo-train.sh: curl is needed" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuttle-pgo.XXXXXX") || exit 1
origin_pid=""
cuttle_pid=""
cleanup() {
    [ -n "$cuttle_pid" ] && kill "$cuttle_pid" 2> /dev/null
    [ -n "$origin_pid" ] && kill "$origin_pid" 2> /dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() {
    echo "pgo-train.sh: $*" >&2
    [ -f "$dir/cache.log" ] && tail -n 20 "$dir/cache.log" >&2
    exit 1
}

# wait_for FILE REGEX : until FILE has a line matching REGEX (10 s at most)
wait_for() {
    i=0
    while ! grep -Eq "$2" "$1" 2> /dev/null; do
        i=$((i + 1))
        [ $i -le 100 ] || return 1
        sleep 0.1
    done
}

"$origin" --listen 127.0.0.1:0 > "$dir/origin.out" 2>&1 &
origin_pid=$!
wait_for "$dir/origin.out" '^listening on ' || fail "cuttle-origin did not start"
oport=$(sed -n 's/^listening on .*://p' "$dir/origin.out" | head -n 1)
o="http://127.0.0.1:$oport"

cat > "$dir/squid.conf" << CONF
http_port 127.0.0.1:0
http_access allow localhost manager
http_access allow localhost
cache_mem 64 MB
maximum_object_size_in_memory 32 MB
cache_log $dir/cache.log
access_log $dir/access.log
pid_filename $dir/cuttle.pid
coredump_dir $dir
CONF
# cuttle started as root runs as cache_effective_user, which may not write
# beside the objects: the profiles go to a directory it may write to
# (GCOV_PREFIX), and are copied beside the objects at the end
mkdir -m 777 "$dir/gcda" && chmod 755 "$dir" || fail "cannot make $dir/gcda"
GCOV_PREFIX="$dir/gcda" "$cuttle" -N -f "$dir/squid.conf" > "$dir/cuttle.out" 2>&1 &
cuttle_pid=$!
wait_for "$dir/cache.log" 'Accepting HTTP Socket' || fail "cuttle did not start"
port=$(sed -n 's/.*Accepting HTTP Socket.* local=127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$dir/cache.log" | head -n 1)
[ -n "$port" ] || fail "no port in cache.log"

# client NAME COUNT URL-PREFIX : one curl, COUNT requests on keep-alive
# connections, URL-PREFIX followed by a request number
client() {
    n=0
    : > "$dir/$1.curl"
    while [ $n -lt "$2" ]; do
        printf 'url = "%s%d"\noutput = "/dev/null"\n' "$3" $n >> "$dir/$1.curl"
        n=$((n + 1))
    done
    curl -s --max-time 120 -x "127.0.0.1:$port" -K "$dir/$1.curl" || echo "pgo-train.sh: $1: curl failed" >&2
}

# clients NAME COUNT URL-PREFIX [same] : four clients at once, each with
# its own URLs, or the same ones with `same`; waited for by their ids (a bare
# wait would wait for cuttle and the origin too)
clients() {
    pids=""
    for c in a b c d; do
        tag="&c=$c"
        [ -n "${4:-}" ] && tag=""
        client "$1-$c" "$2" "$3$tag&n=" &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p"; done
}

clients miss4k 1500 "$o/small?s=4k&cc=no-store"
clients miss64k 300 "$o/small?s=64k&cc=no-store"
# 1000 objects, stored on their first request, then hit by four clients
client fill 1000 "$o/hit?s=1k&cc=max-age=3600&n="
clients hit 1000 "$o/hit?s=1k&cc=max-age=3600" same
curl -s --max-time 120 -x "127.0.0.1:$port" -o /dev/null "$o/large?s=512m&cc=no-store" || echo "pgo-train.sh: large: curl failed" >&2
for r in 1 2 3; do # stored, then two memory hits
    curl -s --max-time 60 -x "127.0.0.1:$port" -o /dev/null "$o/stored?s=16m&cc=max-age=3600"
done
curl -s --max-time 10 -o /dev/null "http://127.0.0.1:$port/squid-internal-mgr/info"

kill -INT "$cuttle_pid"
i=0
while kill -0 "$cuttle_pid" 2> /dev/null; do
    i=$((i + 1))
    [ $i -le 100 ] || fail "cuttle did not stop after SIGINT"
    sleep 0.1
done
wait "$cuttle_pid" || fail "cuttle exited with status $?"
cuttle_pid=""
# (the object paths are absolute, GCOV_PREFIX put them under it)
profiles="$dir/gcda$(cd "$(dirname "$cuttle")/.." && pwd)"
[ -d "$profiles" ] || fail "the instrumented cuttle wrote no profile under $dir/gcda"
(cd "$profiles" && find . -name '*.gcda') | while read -r f; do
    cp "$profiles/$f" "$(dirname "$cuttle")/../$f" || exit 1
done || fail "cannot copy the profiles beside the objects"
echo "pgo-train.sh: $(find "$profiles" -name '*.gcda' | wc -l) profiles"
echo "pgo-train.sh: $(grep -c " TCP_" "$dir/access.log") requests trained, $(grep -c " TCP_MEM_HIT/" "$dir/access.log") of them memory hits"
