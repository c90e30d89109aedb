#!/bin/sh
# Partial objects (doc/caching.md "Partial objects", beyond Squid 5.7): the
# 206 replies to Range misses are kept as parts of their object when they
# share one strong validator (RFC 9111 section 3.4), a later Range that held
# parts cover is a hit (TCP_MEM_HIT/206) without asking the origin, and once
# the parts cover the object it is stored whole: a plain GET is then a hit
# with every byte right, in memory or (larger than memory takes) on disk.
# Another validator drops the parts; weak validators, no-store, If-Range
# that does not match and PURGE are checked too.
#
# Each worker holds its own parts in memory (doc/caching.md), so with
# workers (CUTTLE_TEST_WORKERS) the requests whose memory parts must meet go
# over one client connection (one worker): ask ID ARGS... below. Parts on
# disk are every worker's.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup

# the bytes FIRST..LAST of the origin's pattern body of SIZE
pattern_part() { "$ORIGIN" --print-body "$1" | head -c "$(($3 + 1))" | tail -c "$(($3 - $2 + 1))"; }

# ask ID ARGS... : one request for /s/ID per ARGS (curl arguments with no
# blank inside one, split on blanks: "-r 0-99", "-X PURGE", "" for a plain
# GET), all over one client connection; the Nth reply's status in $T/code.N,
# head (CR removed) in $T/head.N, body in $T/body.N, the statuses in $T/codes
ask() {
    local id=$1 n=0 args="" one
    shift
    rm -f "$T"/code.* "$T"/head.* "$T"/body.*
    for one in "$@"; do
        n=$((n + 1))
        [ "$n" = 1 ] || args="$args -:"
        args="$args -s -x 127.0.0.1:$PORT -D $T/head.$n -o $T/body.$n -w %{http_code}\\n $one $(url "$id")"
    done
    # shellcheck disable=SC2086 # the words are the arguments
    curl --max-time "$(scaled 20)" $args > "$T/codes" || bad "curl of $id: $?"
    n=0
    while read -r code; do
        n=$((n + 1))
        echo "$code" > "$T/code.$n"
        tr -d '\r' < "$T/head.$n" > "$T/head.tmp" && mv "$T/head.tmp" "$T/head.$n"
    done < "$T/codes"
}
# code N, field N NAME, body_is N : the Nth reply of ask() (body_is: its body is stdin)
code() { cat "$T/code.$1" 2>/dev/null; }
field() { grep -i "^$2:" "$T/head.$1" | head -n 1 | sed 's/^[^:]*: *//'; }
body_is() { cmp -s "$T/body.$1" -; }

# --- parts combined until whole, in memory
cache_start "cache_mem 64 MB"
mark
script pa 'cc=max-age=600&s=100000&etag="v1"&ranges=1'
ask pa "-r 0-39999" "-r 100-199" "-r 100-199,300-399" "-r 39990-40009" "-r 40010-99999" "" "-r 50000-50009"
expect "first part: status" "$(code 1)" 206
expect "first part: access.log" "$(log_code pa 1)" TCP_MISS/206
pattern_part 100000 0 39999 | body_is 1 || bad "first part: bytes"
expect "within the part: status" "$(code 2)" 206
expect "within the part: Content-Range" "$(field 2 Content-Range)" "bytes 100-199/100000"
expect "within the part: X-Cache" "$(field 2 X-Cache)" "HIT from $CACHE_HOST"
expect "within the part: access.log" "$(log_code pa 2)" TCP_MEM_HIT/206
pattern_part 100000 100 199 | body_is 2 || bad "within the part: bytes"
expect "two ranges within the part: status" "$(code 3)" 206
expect_match "two ranges within the part: Content-Type" "$(field 3 Content-Type)" '^multipart/byteranges; boundary='
grep -q 'Content-Range: bytes 300-399/100000' "$T/body.3" || bad "two ranges within the part: no second part"
expect "two ranges within the part: access.log" "$(log_code pa 3)" TCP_MEM_HIT/206
expect "past the part: access.log" "$(log_code pa 4)" TCP_MISS/206
expect "the rest: access.log" "$(log_code pa 5)" TCP_MISS/206
pattern_part 100000 40010 99999 | body_is 5 || bad "the rest: bytes"
expect "the origin saw the three misses only" "$(seen_count pa)" 3
expect "then the whole object: status" "$(code 6)" 200
expect "then the whole object: access.log" "$(log_code pa 6)" TCP_MEM_HIT/200
expect "then the whole object: sha256" "$(sha256sum < "$T/body.6" | cut -d' ' -f1)" "$(pattern_sha 100000)"
expect "then the whole object: Content-Length" "$(field 6 Content-Length)" 100000
[ -z "$(field 6 Content-Range)" ] || bad "the whole object has a Content-Range"
expect "a range of the whole object: access.log" "$(log_code pa 7)" TCP_MEM_HIT/206
pattern_part 100000 50000 50009 | body_is 7 || bad "a range of the whole object: bytes"
expect "origin requests in all" "$(seen_count pa)" 3
pass_if_ok "206 replies are combined into the whole object, their parts serving the ranges they cover meanwhile"

# --- another validator drops the parts; a weak one or no-store keeps none
mark
script pb 'cc=max-age=600&s=1000&etag="v1"&ranges=1' 'cc=max-age=600&s=1000&etag="v2"&ranges=1'
ask pb "-r 0-99" "-r 200-299" "-r 10-19" "-r 210-219"
expect "new validator: the old part is gone" "$(log_code pb 3)" TCP_MISS/206
expect "new validator: its own part serves" "$(log_code pb 4)" TCP_MEM_HIT/206
expect "new validator: origin requests" "$(seen_count pb)" 3
script pc 'cc=max-age=600&s=1000&etag=W/"w1"&ranges=1'
ask pc "-r 0-99" "-r 10-19"
expect "weak validator: not kept" "$(log_code pc 2)" TCP_MISS/206
script pd 'cc=no-store&s=1000&etag="v1"&ranges=1'
ask pd "-r 0-99" "-r 10-19"
expect "no-store: not kept" "$(log_code pd 2)" TCP_MISS/206
pass_if_ok "parts combine only under one strong validator, and only when the object could be stored"

# --- If-Range that does not match the parts, a stale part, PURGE
mark
script pe 'cc=max-age=600&s=1000&etag="v1"&ranges=1'
ask pe "-r 0-99" "-r 10-19 -H If-Range:\"other\"" "-r 10-19 -H If-Range:\"v1\""
expect "If-Range not matching: forwarded" "$(log_code pe 2)" TCP_MISS/206
expect "If-Range matching: a hit on the part" "$(log_code pe 3)" TCP_MEM_HIT/206
script pf 'cc=max-age=0&s=1000&etag="v1"&ranges=1'
ask pf "-r 0-99" "-r 10-19"
expect "a stale part does not serve" "$(log_code pf 2)" TCP_MISS/206
pass_if_ok "If-Range and freshness decide for parts as for whole objects"

cache_start "cache_mem 64 MB" "acl purge method PURGE" "http_access allow localhost purge" \
    "http_access deny purge"
mark
script pg 'cc=max-age=600&s=1000&etag="v1"&ranges=1'
ask pg "-r 0-99" "-X PURGE" "-r 10-19"
expect "PURGE of parts: status" "$(code 2)" 200
expect "PURGE of parts: then a miss" "$(log_code pg 3)" TCP_MISS/206
pass_if_ok "PURGE removes held parts"

# --- on disk: an object larger than memory takes has its parts written
# into its store file-to-be, serves ranges from there (TCP_HIT/206) and is
# a store file once they cover it. A part is served once its bytes are
# written (cache.log says so), so the steps wait for that (over one client
# connection, to keep the order of the access.log lines)
cache_start "$DIRLINE" "cache_mem 64 MB" "maximum_object_size_in_memory 512 KB" "maximum_object_size 100 MB"
wait_until 10 is_rebuilt || fail "the cache_dir was not rebuilt"
mark
script ph 'cc=max-age=600&s=2m&etag="v1"&ranges=1'
python3 - "$PORT" "$(url ph)" "$T/cache.log" "$(scaled 10)" > "$T/disk.out" 2> "$T/disk.err" <<'PY' ||
import hashlib, http.client, sys, time
port, url, log, limit = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=limit)

def get(name, rng=None):
    conn.request("GET", url, headers={"Range": "bytes=" + rng} if rng else {})
    reply = conn.getresponse()
    body = reply.read()
    print(name, reply.status, reply.getheader("Content-Range", "-"), hashlib.sha256(body).hexdigest())

def logged(text):
    # a line about this URL (other objects' lines are in the same log)
    deadline = time.time() + limit
    while time.time() < deadline:
        with open(log, errors="replace") as f:
            if any(text in line and url in line for line in f):
                return
        time.sleep(0.05)
    sys.exit("cache.log never said: " + text)

get("first", "0-524287")
logged("bytes 0-524287 of ")
get("third", "1048576-1572863")
logged("bytes 1048576-1572863 of ")
get("within", "1000-1999")
get("two-within", "1000-1999,3000-3999")
get("gap", "400000-1100000")
logged("bytes 400000-1100000 of ")
get("rest", "1572864-")
logged(", from its parts")
get("whole")
get("range-of-whole", "2000000-2000099")
PY
    bad "disk parts: $(cat "$T/disk.err")"
line() { grep "^$1 " "$T/disk.out" | cut -d' ' -f2-; }
sha_of() { pattern_part 2m "$1" "$2" | sha256sum | cut -d' ' -f1; }
expect "disk: first part" "$(line first)" "206 bytes 0-524287/2097152 $(sha_of 0 524287)"
expect "disk: within the first part" "$(line within)" "206 bytes 1000-1999/2097152 $(sha_of 1000 1999)"
expect "disk: within the first part: access.log" "$(log_code ph 3)" TCP_HIT/206
expect_match "disk: two ranges within the first part" "$(line two-within)" '^206 - '
expect "disk: two ranges within the first part: access.log" "$(log_code ph 4)" TCP_HIT/206
expect "disk: a range over a gap: access.log" "$(log_code ph 5)" TCP_MISS/206
expect "disk: the rest" "$(line rest)" "206 bytes 1572864-2097151/2097152 $(sha_of 1572864 2097151)"
expect "disk: then the whole object" "$(line whole)" "200 - $(pattern_sha 2m)"
expect "disk: then the whole object: access.log" "$(log_code ph 7)" TCP_HIT/200
expect "disk: a range of it" "$(line range-of-whole)" "206 bytes 2000000-2000099/2097152 $(sha_of 2000000 2000099)"
expect "disk: a range of it: access.log" "$(log_code ph 8)" TCP_HIT/206
expect "disk: origin requests" "$(seen_count ph)" 4
wait_until 10 has_files 1 || bad "disk: no store file"
expect "disk: no part file is left" "$(find "$T/cache" -name '*.tmp' | wc -l | tr -d ' ')" 0
pass_if_ok "parts of an object larger than memory takes are written into its store file, serve the ranges they cover and make it a disk object"

# --- a download the client left, resumed: the bytes the disk store wrote
# of the miss before its fetch stopped (quick_abort) are its first part; the
# resume's Range fetches the rest, which completes the object (with workers,
# whichever worker each connection reaches: the disk store's parts are
# every worker's)
cache_start "$DIRLINE" "cache_mem 64 MB" "maximum_object_size_in_memory 512 KB" "maximum_object_size 100 MB"
wait_until 10 is_rebuilt || fail "the cache_dir was not rebuilt"
mark
script pr 'cc=max-age=600&s=4m&etag="v1"&ranges=1&rate=2m' 'cc=max-age=600&s=4m&etag="v1"&ranges=1'
curl -s -o "$T/download" --max-time 1 -x "127.0.0.1:$PORT" "$(url pr)"
expect "resume: curl left mid-download" "$?" 28
kept() { grep -q "of .*$(url pr) are on disk, kept as a part of it" "$T/cache.log"; }
wait_until 10 kept || bad "resume: the bytes written were not kept as a part"
storedir() { curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$PORT/squid-internal-mgr/storedir"; }
expect "resume: mgr:storedir counts the part" "$(storedir | grep '^partial objects:')" "partial objects: 1"
curl -s -C - -o "$T/download" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "$(url pr)" ||
    bad "resume: curl -C - failed: $?"
expect "resume: the file is whole" "$(sha256sum < "$T/download" | cut -d' ' -f1)" "$(pattern_sha 4m)"
expect "resume: access.log" "$(log_codes pr 2)" "TCP_MISS_ABORTED/200 TCP_MISS/206"
completed() { grep -q "stored .*$(url pr) in .*, from its parts" "$T/cache.log"; }
wait_until 10 completed || bad "resume: the object was not completed from its parts"
expect "resume: mgr:storedir counts no part" "$(storedir | grep '^partial objects:')" "partial objects: 0"
get pr
expect "resume: then a hit" "$(log_code pr 3)" TCP_HIT/200
expect "resume: then a hit: sha256" "$(body_sha)" "$(pattern_sha 4m)"
expect "resume: origin requests" "$(seen_count pr)" 2
pass_if_ok "a download the client left keeps what was written as a part, and its resume completes the object"

cache_stop
checks_done
