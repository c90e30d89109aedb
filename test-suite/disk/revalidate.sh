#!/bin/sh
# A stale disk object is revalidated as a memory one is (RFC 9111 4.3): a
# conditional request with its ETag goes to the origin; its 304 freshens the
# head stored in the file without rewriting the body (the same inode and
# size, the body's bytes the same), and the client gets the stored body,
# logged TCP_REFRESH_UNMODIFIED. The next request is a TCP_HIT, and after a
# restart the freshened head is still there (a TCP_HIT again, no request to
# the origin). A 200 to the conditional replaces the object
# (TCP_REFRESH_MODIFIED), and a reload is TCP_CLIENT_REFRESH_MISS. With
# collapsed_forwarding, clients that find the stale object while its
# conditional is out wait for it (one conditional, TCP_CF_REFRESH_UNMODIFIED);
# with stale-while-revalidate the stale object is served at once
# (TCP_STALE_HIT) and a background 304 freshens its file.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup
start() { cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 20 MB"; }
start

wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"
store_file() { find "$T/cache" -type f ! -name '*.tmp' | head -n 1; }
has_store_file() { [ -n "$(store_file)" ]; }
# has_in_file TEXT : the store file holds TEXT (its head)
has_in_file() { grep -qa "$1" "$(store_file)"; }

SIZE=1000000
SHA=$(pattern_sha $SIZE)
mark
script old "cc=max-age=1&s=$SIZE&etag=%22v1%22" \
    "status=304&etag=%22v1%22&cc=max-age=600&h=X-Freshened:yes"
get old
expect "first request" "$(log_code old 1)" TCP_MISS/200
wait_until 20 has_store_file || fail "no store file after the miss"
FILE=$(store_file)
INODE=$(stat -c %i "$FILE")
FSIZE=$(stat -c %s "$FILE")
BODY_BEFORE=$(tail -c $SIZE "$FILE" | sha256sum | cut -d' ' -f1)
expect "the stored body" "$BODY_BEFORE" "$SHA"
sleep 2 # stale

get old
expect "stale: status" "$CODE" 200
expect "stale: access.log" "$(log_code old 2)" TCP_REFRESH_UNMODIFIED/200
expect "stale: body sha256" "$(body_sha)" "$SHA"
expect "stale: the 304's field" "$(header X-Freshened)" yes
expect "stale: origin requests" "$(seen_count old)" 2
expect "stale: the conditional" "$(seen_field old 2 If-None-Match)" '"v1"'
wait_until 10 has_in_file X-Freshened || bad "the store file's head was not freshened"
expect "the file's inode" "$(stat -c %i "$FILE")" "$INODE"
expect "the file's size" "$(stat -c %s "$FILE")" "$FSIZE"
expect "the file's body" "$(tail -c $SIZE "$FILE" | sha256sum | cut -d' ' -f1)" "$SHA"
pass_if_ok "a stale disk object is revalidated; the 304 freshens its head on disk, not its body"

get old
expect "freshened: access.log" "$(log_code old 3)" TCP_HIT/200
expect "freshened: body sha256" "$(body_sha)" "$SHA"
expect "freshened: the 304's field" "$(header X-Freshened)" yes
expect "freshened: origin requests" "$(seen_count old)" 2
pass_if_ok "the freshened disk object is a TCP_HIT"

cache_stop
start
wait_until 20 is_rebuilt || fail "no rebuild after the restart"
get old
expect "after a restart: access.log" "$(log_code old 4)" TCP_HIT/200
expect "after a restart: body sha256" "$(body_sha)" "$SHA"
expect "after a restart: origin requests" "$(seen_count old)" 2
pass_if_ok "after a restart the freshened head is the stored one"

# a new reply to the conditional replaces the disk object
mark
script changed "cc=max-age=1&s=$SIZE&etag=%22a%22" "cc=max-age=600&s=$((SIZE + 1))&etag=%22b%22"
get changed
wait_until 20 has_files 2 || bad "no store file for the second object"
sleep 2
get changed
expect "modified: access.log" "$(log_code changed 2)" TCP_REFRESH_MODIFIED/200
expect "modified: body sha256" "$(body_sha)" "$(pattern_sha $((SIZE + 1)))"
hit_changed() {
    get changed
    [ "$(header X-Cache)" = "HIT from $CACHE_HOST" ]
}
wait_until 10 hit_changed || bad "the new object was not a hit"
expect "modified: hit body sha256" "$(body_sha)" "$(pattern_sha $((SIZE + 1)))"
get changed -H "Cache-Control: no-cache"
expect "reload: access.log" "$(log_lines "$(url changed)" | tail -n 1 | awk '{print $4}')" \
    TCP_CLIENT_REFRESH_MISS/200
pass_if_ok "a changed reply to the conditional replaces the disk object; a reload is forwarded"

# stale-while-revalidate: the stale disk object is served at once from its
# file (TCP_STALE_HIT) while a background conditional freshens its head
mark
script swr "cc=max-age=1,%20stale-while-revalidate=60&s=$SIZE&etag=%22w%22" \
    "status=304&etag=%22w%22&cc=max-age=600&h=X-Freshened:swr"
get swr
wait_until 20 has_files 3 || bad "no store file for the stale-while-revalidate object"
sleep 2
get swr
expect "stale-while-revalidate: access.log" "$(log_code swr 2)" TCP_STALE_HIT/200
expect "stale-while-revalidate: body sha256" "$(body_sha)" "$SHA"
wait_until 10 seen_reaches swr 2 || bad "no background conditional"
expect "stale-while-revalidate: the conditional" "$(seen_field swr 2 If-None-Match)" '"w"'
freshened_swr() {
    get swr
    [ "$(header X-Freshened)" = swr ]
}
wait_until 10 freshened_swr || bad "the background 304 did not freshen the disk object"
expect "stale-while-revalidate: afterwards" "$(log_lines "$(url swr)" | tail -n 1 | awk '{print $4}')" TCP_HIT/200
expect "stale-while-revalidate: origin requests" "$(seen_count swr)" 2
pass_if_ok "stale-while-revalidate: a stale disk object is served while a background 304 freshens it"

# collapsed_forwarding: clients that find the same stale disk object while
# the first one's conditional waits at the origin (t=) wait for it too: the
# origin sees one conditional, and every client gets the body
cache_stop
cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 20 MB" "collapsed_forwarding on"
wait_until 20 is_rebuilt || fail "no rebuild after the restart"
mark
script cf "cc=max-age=1&s=$SIZE&etag=%22c%22" "status=304&etag=%22c%22&cc=max-age=600&t=$(scaled 1)s"
get cf
wait_until 20 has_files 4 || bad "no store file for the collapsed object"
sleep 2
pids=""
for i in 1 2 3; do
    curl -s -o "$T/cf.$i" -w '%{http_code}' --max-time "$(scaled 20)" -x "127.0.0.1:$PORT" "$(url cf)" \
        > "$T/cf.$i.code" &
    pids="$pids $!"
    [ $i -gt 1 ] || wait_until 10 seen_reaches cf 2 || bad "the first conditional did not reach the origin"
done
# shellcheck disable=SC2086 # the clients' pids
wait $pids
for i in 1 2 3; do
    expect "collapsed, client $i: status" "$(cat "$T/cf.$i.code")" 200
    expect "collapsed, client $i: body sha256" "$(sha256sum < "$T/cf.$i" | cut -d' ' -f1)" "$SHA"
done
expect "collapsed: origin requests" "$(seen_count cf)" 2
wait_until 5 has_log_lines cf 4 || true
expect "collapsed: access.log" "$(log_lines "$(url cf)" | sed -n 2,4p | awk '{print $4}' | sort | tr '\n' ' ')" \
    "TCP_CF_REFRESH_UNMODIFIED/200 TCP_CF_REFRESH_UNMODIFIED/200 TCP_REFRESH_UNMODIFIED/200 "
pass_if_ok "collapsed_forwarding: one conditional about a stale disk object answers every client"

cache_stop
checks_done
