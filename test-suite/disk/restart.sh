#!/bin/sh
# The disk cache survives a restart: after -k shutdown and a start, the
# index is rebuilt by scanning the cache_dir (logged once done) and a stored
# object is a TCP_HIT again; requests are answered while it runs. After
# kill -9 in the middle of storing an object, nothing partial is served: the
# rebuild removes the temporary file and the next request is a miss with
# the whole body.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
DIRLINE="cache_dir ufs $T/cache 100 4 4"
cuttle_conf "$DIRLINE"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 20 MB"

rebuilt_count() { grep -c "cache_dir $T/cache: rebuilt its index" "$T/cache.log" 2> /dev/null; }
rebuilt_more() { [ "$(rebuilt_count)" -gt "$1" ]; }
has_store_file() { [ -n "$(find "$T/cache" -type f ! -name '*.tmp')" ]; }
has_temp_file() { [ -n "$(find "$T/cache" -name '*.tmp')" ]; }

mark
script keep "cc=max-age=600&s=3000000"
SHA=$(pattern_sha 3000000)
get keep
expect "first request" "$(log_code keep 1)" TCP_MISS/200
wait_until 20 has_store_file || bad "no store file"
get keep
expect "before the restart" "$(log_code keep 2)" TCP_HIT/200

"$CUTTLE" -k shutdown -f "$T/squid.conf" > "$T/out" 2>&1 || bad "-k shutdown: $(cat "$T/out")"
wait_until 10 is_stopped "$CUTTLE_PID" || fail "cuttle did not stop after -k shutdown"
CUTTLE_PID=""
before=$(rebuilt_count)
cuttle_start
wait_until 20 rebuilt_more "$before" || bad "no 'rebuilt its index' line after the start"
grep -q "cache_dir $T/cache: rebuilt its index: 1 objects" "$T/cache.log" || bad "the rebuild did not count 1 object"
get keep
expect "after the restart: status" "$CODE" 200
expect "after the restart" "$(log_code keep 3)" TCP_HIT/200
expect "after the restart: body sha256" "$(body_sha)" "$SHA"
expect "origin requests" "$(seen_count keep)" 1
pass_if_ok "after -k shutdown and a start, a stored object is still a TCP_HIT"

# kill -9 while an object is being stored (paced: about 4 s)
mark
script torn "cc=max-age=600&s=4000000&rate=1m"
curl -s -o /dev/null --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" "$(url torn)" &
client=$!
wait_until 10 has_temp_file || bad "no temporary store file while storing"
kill -KILL "$CUTTLE_PID"
wait "$CUTTLE_PID" 2> /dev/null
CUTTLE_PID=""
wait "$client" 2> /dev/null
has_temp_file || bad "the temporary file went away with kill -9 (the test proves nothing)"
before=$(rebuilt_count)
cuttle_start
wait_until 20 rebuilt_more "$before" || bad "no 'rebuilt its index' line after kill -9"
has_temp_file && bad "the temporary file of the object cut by kill -9 is still there"
script torn "cc=max-age=600&s=4000000"
get torn
expect "after kill -9: status" "$CODE" 200
expect "after kill -9: the object cut short is a miss" "$(log_code torn 1)" TCP_MISS/200
expect "after kill -9: body sha256" "$(body_sha)" "$(pattern_sha 4000000)"
get keep
expect "after kill -9: the whole object" "$(log_code keep 4)" TCP_HIT/200
pass_if_ok "after kill -9 during a write nothing partial is served, and whole objects stay"

cache_stop
checks_done
