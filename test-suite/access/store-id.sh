#!/bin/sh
# store_id_program with a scripted helper in Squid's helper protocol: `OK
# store-id=ID` keys the object by ID, so one object on two mirrors is fetched
# once and hit under both URLs (each logged as requested); ERR keeps the URL
# as the key; a helper that answers BH or dies leaves the request served,
# keyed by its URL; store_id_access picks the requests; only GET and HEAD go
# to the helper; a URL rewriter configured too is asked once a request.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7
# (which also asks the helper about a POST).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start

cat > "$T/storeid.sh" <<'SH'
#!/bin/sh
# concurrency 0: one "URL extras..." line in, one answer line out
while read -r url rest; do
    echo "$url $rest" >> "$LOG"
    case $url in
    */s/mirror[AB]-file*|*/s/noid[AB]*) echo "OK store-id=http://file.squid.internal/${url##*-}" ;;
    */s/broken*) echo "BH message=oops" ;;
    */s/die*) exit 1 ;;
    *) echo "ERR" ;;
    esac
done
SH
sed -i "s#\$LOG#$T/storeid.log#" "$T/storeid.sh"
chmod 755 "$T/storeid.sh"
: > "$T/storeid.log"
chmod 666 "$T/storeid.log"
# a URL rewriter beside it, which keeps every URL: it must be asked once a request
printf '#!/bin/sh\nwhile read -r url rest; do echo "$url" >> %s; echo ERR; done\n' "$T/rewriter.log" > "$T/rewriter.sh"
chmod 755 "$T/rewriter.sh"
: > "$T/rewriter.log"
chmod 666 "$T/rewriter.log"

cache_start \
    "maximum_object_size_in_memory 512 KB" \
    "url_rewrite_program $T/rewriter.sh" \
    "store_id_program $T/storeid.sh" \
    "store_id_children 2 startup=1 idle=1" \
    "acl noid urlpath_regex ^/s/noid" \
    "store_id_access deny noid" \
    "store_id_access allow all"

mark
SHA=$(pattern_sha 1000)
script mirrorA-file "cc=max-age=60&s=1000"
script mirrorB-file "status=500"
get mirrorA-file
expect "first mirror: status" "$CODE" 200
expect_miss "first mirror" mirrorA-file 1 TCP_MISS/200 "$SHA"
get mirrorB-file
expect_hit "the other mirror's URL, same store ID" mirrorB-file 1 "$SHA"
expect "origin requests for the other mirror" "$(seen_count mirrorB-file)" 0
grep -q "/s/mirrorA-file 127.0.0.1/127.0.0.1 - GET myip=127.0.0.1 myport=$PORT" "$T/storeid.log" ||
    bad "the helper's line is not Squid's: $(cat "$T/storeid.log")"
expect "the URL rewriter's questions about the first mirror" "$(grep -c /s/mirrorA-file "$T/rewriter.log")" 1
pass_if_ok "OK store-id= keys both mirrors' URLs as one object"

mark
script noidA-x "cc=max-age=60&s=100"
script noidB-x "cc=max-age=60&s=100"
get noidA-x
get noidB-x
expect_miss "store_id_access deny: the second URL" noidB-x 1 TCP_MISS/200
expect "store_id_access deny: origin requests" "$(seen_count noidB-x)" 1
grep -q "/s/noid" "$T/storeid.log" && bad "a request store_id_access denies went to the helper"
script plain1 "cc=max-age=60&s=100"
get plain1
get plain1
expect_hit "ERR keeps the URL as the key" plain1 2
pass_if_ok "store_id_access and ERR"

mark
script broken1 "cc=max-age=60&s=100"
get broken1
expect "BH: status" "$CODE" 200
script die1 "cc=max-age=60&s=100"
get die1
expect "a helper that dies: status" "$CODE" 200
script post1 "s=10"
code=$(proxy_get "$(url post1)" -d x=1)
expect "POST: status" "$code" 200
# Squid 5.7 asks about every request; cuttle only about those with a cache key
[ -n "$CACHE_TEST_SQUID" ] || ! grep -q "/s/post1" "$T/storeid.log" || bad "a POST went to the store-ID helper"
pass_if_ok "BH and a dying helper leave the request served; POST is not asked about"

cache_stop
checks_done
