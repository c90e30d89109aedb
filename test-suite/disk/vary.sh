#!/bin/sh
# Vary replies on disk, as in memory (RFC 9111 section 4.1): each variant
# is stored under the key of the request fields it varies on, and a request
# is a TCP_HIT only for the variant it selects (another is a miss, stored
# beside it). After a restart the variants are found again; PURGE removes
# them all; Vary: * is never stored; a reply without Vary replaces the
# variants.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
disk_setup
start() {
    cache_start "$DIRLINE" "maximum_object_size_in_memory 64 KB" "maximum_object_size 20 MB" \
        "acl purge method PURGE" "http_access allow purge localhost"
    wait_until 20 is_rebuilt || fail "the cache_dir's index was not rebuilt"
}
start

SIZE=1000000
SHA=$(pattern_sha $SIZE)
mark
script v "cc=max-age=600&s=$SIZE&h=Vary:Accept-Language"
get v -H "Accept-Language: en"
expect "en: first" "$(log_code v 1)" TCP_MISS/200
wait_until 20 has_files 1 || fail "no store file for the first variant"
get v -H "Accept-Language: en"
expect "en: second" "$(log_code v 2)" TCP_HIT/200
expect "en: body" "$(body_sha)" "$SHA"
get v -H "Accept-Language: fr"
expect "fr: first" "$(log_code v 3)" TCP_MISS/200
wait_until 20 has_files 2 || fail "no store file for the second variant"
get v -H "Accept-Language: fr"
expect "fr: second" "$(log_code v 4)" TCP_HIT/200
get v -H "Accept-Language: en"
expect "en: third" "$(log_code v 5)" TCP_HIT/200
get v
expect "none: first" "$(log_code v 6)" TCP_MISS/200
expect "origin requests" "$(seen_count v)" 3
pass_if_ok "each variant of a Vary reply is a disk object of its own"

cache_stop
start
get v -H "Accept-Language: fr"
expect "after a restart: fr" "$(log_code v 7)" TCP_HIT/200
get v -H "Accept-Language: en"
expect "after a restart: en" "$(log_code v 8)" TCP_HIT/200
expect "after a restart: body" "$(body_sha)" "$SHA"
pass_if_ok "the variants are found again after a restart"

code=$(curl -s -o /dev/null -w '%{http_code}' -X PURGE -x "127.0.0.1:$PORT" "$(url v)")
expect "purge: status" "$code" 200
get v -H "Accept-Language: en"
expect "after purge: en" "$(log_code v 9)" TCP_MISS/200
pass_if_ok "PURGE removes every variant"

# a reply without Vary replaces the variants
mark
script w "cc=max-age=600&s=$SIZE&h=Vary:Accept-Language" "cc=max-age=600&s=$((SIZE + 1))"
before=$(stored_files)
get w -H "Accept-Language: en"
wait_until 20 has_files $((before + 1)) || fail "no store file for w"
get w -H "Cache-Control: no-cache" -H "Accept-Language: fr"
plain_hit() {
    get w -H "Accept-Language: en"
    [ "$(header X-Cache)" = "HIT from $CACHE_HOST" ]
}
wait_until 10 plain_hit || bad "the reply without Vary is not a hit"
expect "plain: body" "$(body_sha)" "$(pattern_sha $((SIZE + 1)))"
pass_if_ok "a reply without Vary replaces the variants on disk"

mark
script star "cc=max-age=600&s=$SIZE&h=Vary:*"
get star
get star
expect "Vary *: second" "$(log_code star 2)" TCP_MISS/200
pass_if_ok "Vary: * is not stored on disk"

cache_stop
checks_done
