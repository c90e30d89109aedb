#!/bin/sh
# A reply to POST with explicit freshness and a Content-Location naming the
# POST's own URL (absolute, or as an absolute path) is stored and answers a
# later GET of that URL from the cache (RFC 9110 section 9.3.3, RFC 9111
# section 4); the POST itself always goes to the origin, and a second POST
# replaces the stored reply. Without explicit freshness (public alone is
# not), or with a Content-Location naming another URL, or with no-store,
# the GET is a miss. Squid 5.7 (CACHE_TEST_SQUID) stores no reply to POST:
# there each GET is a miss (doc/differences.md).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
origin_start
cache_start

SHA100=$(pattern_sha 100)
SHA200=$(pattern_sha 200)
SHA300=$(pattern_sha 300)

# post ID [CURL ARGS] : a POST with a small body to /s/ID through the proxy
post() {
    local id=$1
    shift
    get "$id" --data-binary 'form=1' "$@"
}

# stored ID WHAT CONTENT-LOCATION : the POST's reply (max-age=60, that
# Content-Location) answers the GET that follows
stored() {
    mark
    script "$1" "cc=max-age=60&h=Content-Location:$3&s=100" "status=500"
    post "$1"
    expect "$2, POST: status" "$CODE" 200
    expect "$2, POST: body" "$(body_sha)" "$SHA100"
    expect "$2, POST: access.log" "$(log_code "$1" 1)" TCP_MISS/200
    get "$1"
    expect_hit_unless_squid "$2, GET" "$1" 2 TCP_MISS/500
    pass_if_ok "a POST reply with max-age=60 and $2 answers a later GET"
}
# not_stored ID WHAT REPLY : the POST's reply REPLY (a script line) does not
# answer the GET that follows
not_stored() {
    mark
    script "$1" "$3&s=100" "cc=max-age=60&s=200"
    post "$1"
    get "$1"
    expect_miss "$2, GET" "$1" 2 TCP_MISS/200 "$SHA200"
    expect "$2: origin requests" "$(seen_count "$1")" 2
    pass_if_ok "a POST reply with $2 does not answer a later GET"
}

stored p-abs "Content-Location: its URL" "$(url p-abs)"
stored p-path "Content-Location: its path" "/s/p-path"
not_stored p-nofresh "Content-Location: its URL and no explicit freshness" \
    "lm=Mon,%2001%20Jan%202024%2000:00:00%20GMT&h=Content-Location:$(url p-nofresh)"
not_stored p-public "Content-Location: its URL and public alone" \
    "cc=public&h=Content-Location:$(url p-public)"
not_stored p-other "Content-Location: another URL" "cc=max-age=60&h=Content-Location:$(url p-other)x"
not_stored p-none "no Content-Location" "cc=max-age=60"
not_stored p-nostore "no-store" "cc=max-age=60,%20no-store&h=Content-Location:$(url p-nostore)"

# the POST itself is always forwarded, and its new reply replaces the stored one
mark
script p-again "cc=max-age=60&h=Content-Location:$(url p-again)&s=100" \
    "cc=max-age=60&h=Content-Location:$(url p-again)&s=300" "status=500"
post p-again
post p-again
expect "second POST: body" "$(body_sha)" "$SHA300"
expect "second POST: access.log" "$(log_code p-again 2)" TCP_MISS/200
expect "second POST: origin methods" "$(seen_method p-again 1) $(seen_method p-again 2)" "POST POST"
get p-again
[ -n "$CACHE_TEST_SQUID" ] || expect_hit "GET after two POSTs" p-again 3 "$SHA300"
pass_if_ok "a POST is forwarded even when its URL is stored; its new reply replaces the stored one"

cache_stop
checks_done
