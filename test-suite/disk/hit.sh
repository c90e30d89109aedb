#!/bin/sh
# The disk cache (cache_dir ufs): a 5 MB and a 100 MB object, over
# maximum_object_size_in_memory and within maximum_object_size, are a
# TCP_MISS that is stored on disk, then a disk hit (TCP_HIT, as Squid logs a
# cache_dir hit) with the same sha256, sent with sendfile(2) (strace sees it);
# a Range request is served from the file by offset (206, TCP_HIT/206); an
# object over maximum_object_size is not stored; PURGE removes a disk
# object; a client that leaves a miss leaves nothing on disk. Store files
# are whole: no .tmp file is left once stored.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cuttle_conf "cache_dir ufs $T/cache 400 4 4"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
cache_start "cache_dir ufs $T/cache 400 4 4" "maximum_object_size_in_memory 512 KB" \
    "maximum_object_size 150 MB" "acl purge method PURGE" "http_access allow purge localhost"

# the index is rebuilt (from an empty directory) before anything is stored
is_rebuilt() { grep -q "cache_dir $T/cache: rebuilt its index" "$T/cache.log"; }
wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"

# stored_files : the complete store files in the cache_dir
stored_files() { find "$T/cache" -type f ! -name '*.tmp' | wc -l | tr -d ' '; }
has_files() { [ "$(stored_files)" -ge "$1" ]; }

for size in 5000000 100000000; do
    id=big$size
    mark
    script "$id" "cc=max-age=600&s=$size&etag=%22$id%22"
    SHA=$(pattern_sha "$size")
    before=$(stored_files)
    get "$id"
    expect "$size: first request: status" "$CODE" 200
    expect_miss "$size: first request" "$id" 1 TCP_MISS/200 "$SHA"
    wait_until 20 has_files $((before + 1)) || bad "$size: no store file after the miss"
    get "$id"
    expect "$size: second request: status" "$CODE" 200
    expect "$size: second request: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
    expect "$size: second request: access.log" "$(log_code "$id" 2)" TCP_HIT/200
    expect "$size: second request: body sha256" "$(body_sha)" "$SHA"
    expect "$size: second request: Content-Length" "$(header Content-Length)" "$size"
    expect "$size: origin requests" "$(seen_count "$id")" 1
    pass_if_ok "a $size-byte object is a miss stored on disk, then a TCP_HIT with the same bytes"
done

# a Range from the disk object: by offset in its file
mark
get big5000000 -H "Range: bytes=1000000-1000099"
expect "range: status" "$CODE" 206
expect "range: Content-Range" "$(header Content-Range)" "bytes 1000000-1000099/5000000"
expect "range: access.log" "$(log_code big5000000 3)" TCP_HIT/206
"$ORIGIN" --print-body 5000000 | tail -c +1000001 | head -c 100 > "$T/want"
cmp -s "$T/body" "$T/want" || bad "range: the bytes differ from the object's 1000000-1000099"
get big5000000 -H "Range: bytes=10-19,4999990-"
expect "two ranges: status" "$CODE" 206
expect_match "two ranges: type" "$(header Content-Type)" '^multipart/byteranges'
pass_if_ok "a Range request is served from the disk object (TCP_HIT/206)"

# sendfile(2) sends the hit: strace the running proxy through one disk hit
if command -v strace > /dev/null 2>&1; then
    strace -f -e trace=sendfile -o "$T/strace" -p "$CUTTLE_PID" 2> /dev/null &
    tracer=$!
    sleep 1
    get big5000000
    expect "traced hit: body sha256" "$(body_sha)" "$(pattern_sha 5000000)"
    kill "$tracer" 2> /dev/null
    wait "$tracer" 2> /dev/null
    grep -q 'sendfile(' "$T/strace" || bad "no sendfile call during a disk hit"
    pass_if_ok "a disk hit is sent with sendfile"
else
    echo "SKIP: no strace: sendfile not checked"
fi

# over maximum_object_size: not stored
mark
script huge "cc=max-age=600&s=160000000"
get huge
get huge
expect "too big: second request" "$(log_code huge 2)" TCP_MISS/200
expect "too big: origin requests" "$(seen_count huge)" 2
pass_if_ok "an object over maximum_object_size is not stored"

# PURGE removes a disk object
mark
code=$(curl -s -o /dev/null -w '%{http_code}' -X PURGE -x "127.0.0.1:$PORT" "$(url big5000000)")
expect "purge: status" "$code" 200
get big5000000
expect "after purge" "$(log_code big5000000 6)" TCP_MISS/200
pass_if_ok "PURGE removes a disk object"

# a client that leaves in the middle: the fetch stops, nothing is kept
mark
script left "cc=max-age=600&s=3000000&rate=1m"
curl -s -o /dev/null --max-time 1 -x "127.0.0.1:$PORT" "$(url left)"
no_temp_file() { [ -z "$(find "$T/cache" -name '*.tmp')" ]; }
wait_until 10 no_temp_file || bad "the temporary file of an object whose client left stayed"
script left "cc=max-age=600&s=3000000"
get left
expect "after the client left: next request" "$(log_code left 2)" TCP_MISS/200
expect "after the client left: body sha256" "$(body_sha)" "$(pattern_sha 3000000)"
pass_if_ok "a client leaving a disk miss stops the fetch and leaves nothing on disk"

[ -z "$(find "$T/cache" -name '*.tmp')" ] || bad "a temporary store file was left"
cache_stop
checks_done
