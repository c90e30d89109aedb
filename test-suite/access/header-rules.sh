#!/bin/sh
# The header rules: request_header_access (per name, Other, All; acl
# conditions) with request_header_replace, request_header_add with %-codes,
# reply_header_access / reply_header_replace / reply_header_add on misses,
# hits and error pages, httpd_suppress_version_string, and every
# forwarded_for mode. The origin echoes what it got (GET /_seen/ID).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7;
# the rows where cuttle deliberately differs (doc/differences.md) are skipped there.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cache_start \
    "acl c urlpath_regex ^/s/cond" \
    "request_header_access User-Agent deny all" \
    "request_header_replace User-Agent Nutscrape/1.0 (CP/M; 8-bit)" \
    "request_header_replace From nobody" \
    "request_header_access Cookie deny all" \
    "request_header_access Referer allow c" \
    "request_header_access Other deny all" \
    "request_header_access X-Custom allow all" \
    "request_header_add X-Client \"%>a %ru u=%un %{User-Agent}>h %%\" all" \
    "request_header_add X-Method \"%rm\"" \
    "request_header_add X-Tok tok%>a" \
    "request_header_add X-Cond \"yes\" c" \
    "reply_header_access Server deny all" \
    "reply_header_replace Server Foo/1.0" \
    "reply_header_access Set-Cookie deny c" \
    "reply_header_add X-RA \"%>a %{Referer}>h\"" \
    "httpd_suppress_version_string on"

# request_fields ID : one request for /s/ID with the fields the rules act on
request_fields() {
    get "$1" -H "Cookie: c=1" -H "Referer: http://r/" -H "User-Agent: UA/1" -H "X-Custom: cv" \
        -H "X-Unknown: uv" -H "From: me@x" -H "Accept: text/plain"
    [ "$CODE" = 200 ] || bad "/s/$1: status $CODE"
}
# expect_seen ID NAME VALUE : the origin got NAME: VALUE in its first request for /s/ID ("" none)
expect_seen() {
    got=$(seen_field "$1" 1 "$2")
    [ "$got" = "$3" ] || bad "/s/$1: the origin got $2 '$got', expected '$3'"
}
# expect_reply NAME VALUE : the last reply had NAME: VALUE ("" none)
expect_reply() {
    got=$(header "$1")
    [ "$got" = "$2" ] || bad "reply: $1 is '$got', expected '$2'"
}

mark
script p1 "h=X-Rep:one&h=Server:orig/1&h=Set-Cookie:a=b"
request_fields p1
expect_seen p1 Cookie ""
expect_seen p1 User-Agent "Nutscrape/1.0 (CP/M; 8-bit)"
expect_seen p1 Referer ""
expect_seen p1 X-Custom cv
expect_seen p1 X-Unknown ""
expect_seen p1 From me@x
expect_seen p1 Accept text/plain
pass_if_ok "request: removed, replaced, Other, a name's own group first, replace without rules"

mark
expect_seen p1 X-Client "127.0.0.1 http://$O/s/p1 u=- UA/1 %"
# a deliberate difference: Squid 5.7 has no method yet when it adds request fields ("-")
[ -n "$CACHE_TEST_SQUID" ] || expect_seen p1 X-Method GET
expect_seen p1 X-Tok "tok%>a"
expect_seen p1 X-Cond ""
pass_if_ok "request_header_add: %-codes in a quoted value, a token as it is, an acl that does not match"

mark
expect_reply Server Foo/1.0
expect_reply Set-Cookie a=b
expect_reply X-Rep one
expect_reply X-RA "127.0.0.1 http://r/"
pass_if_ok "reply: replaced, kept where the acl does not match, added with %-codes"

mark
script cond "h=Set-Cookie:a=b"
request_fields cond
expect_seen cond Referer http://r/
expect_seen cond Cookie ""
expect_seen cond X-Cond yes
expect_reply Set-Cookie ""
pass_if_ok "acl-conditional rules and additions"

mark
script hit "cc=max-age=600&h=Server:orig/1&s=10"
get hit -H "Referer: http://first/"
get hit -H "Referer: http://second/"
expect_reply X-Cache "HIT from $CACHE_HOST"
expect_reply Server Foo/1.0
expect_reply X-RA "127.0.0.1 http://second/"
pass_if_ok "reply rules on a cache hit"

mark
fetch_url "http://127.0.0.1:$(closed_port)/"
[ "$CODE" = 503 ] || bad "error page: status $CODE"
expect_reply Server Foo/1.0
expect_reply X-RA "127.0.0.1 -"
grep -q "by $CACHE_HOST ([a-z]*)</p>" "$T/body" || bad "the error page names the version: $(grep 'Generated' "$T/body")"
header Via | grep -Eq '^1\.1 '"$CACHE_HOST"' \([a-z]+\)$' || bad "Via names the version: $(header Via)"
pass_if_ok "error pages: reply rules; httpd_suppress_version_string on"

mark
# origin-form, to the proxy itself (through it, the page would be a forwarded reply)
CODE=$(curl -s -D "$T/head.raw" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" \
    "http://127.0.0.1:$PORT/squid-internal-mgr/menu")
tr -d '\r' < "$T/head.raw" > "$T/head"
# (Squid 5.7 denies it here, and its 403 gets the rules too)
[ -n "$CACHE_TEST_SQUID" ] || [ "$CODE" = 200 ] || bad "manager menu: status $CODE"
expect_reply X-RA "127.0.0.1 -"
pass_if_ok "the manager page: reply rules"

# a URL rewriter's redirect gets the reply rules too
mark
cat > "$T/rewriter.sh" <<'SH'
#!/bin/sh
while read -r url rest; do
    case $url in
    */s/go*) echo "OK status=302 url=http://elsewhere.test/landing" ;;
    *) echo "ERR" ;;
    esac
done
SH
chmod 755 "$T/rewriter.sh"
cache_start "url_rewrite_program $T/rewriter.sh" "url_rewrite_children 1" "reply_header_add X-RA \"%>a\""
get go
[ "$CODE" = 302 ] || bad "redirect: status $CODE"
expect_reply X-RA 127.0.0.1
pass_if_ok "a rewriter's redirect: reply rules"

if [ -z "$CACHE_TEST_SQUID" ]; then
    # a deliberate difference: the hop's framing stays (Squid removes
    # Content-Length and Connection, and the client waits for the end)
    mark
    cache_start "request_header_access All deny all" "reply_header_access All deny all"
    script all "s=1000"
    code=$(curl -s -o "$T/body" -D "$T/head.raw" -w '%{http_code}' --max-time "$(scaled 10)" \
        -x "127.0.0.1:$PORT" --data-binary "0123456789" "$(url all)")
    [ "$code" = 200 ] || bad "All deny all: status $code"
    [ "$(body_size)" = 1000 ] || bad "All deny all: $(body_size) body bytes"
    tr -d '\r' < "$T/head.raw" > "$T/head"
    [ "$(header Content-Length)" = 1000 ] || bad "All deny all: the reply lost Content-Length"
    expect_seen all Content-Length 10
    expect_seen all Host ""
    expect_seen all Via ""
    expect_seen all X-Forwarded-For ""
    pass_if_ok "All deny all keeps the hop's framing (cuttle only)"
fi

mark
cache_start
fetch_url "http://127.0.0.1:$(closed_port)/"
header Server | grep -q / || bad "no version in Server: $(header Server)"
header Via | grep -Eq '^1\.1 '"$CACHE_HOST"' \([a-z]+/[0-9.]+\)$' || bad "no version in Via: $(header Via)"
pass_if_ok "httpd_suppress_version_string off names the version"

# forwarded_for, each mode as Squid 5.7 has it
for mode in on off transparent truncate delete; do
    mark
    cache_start "forwarded_for $mode"
    script "xff$mode" "s=1"
    get "xff$mode"
    get "xff$mode" -H "X-Forwarded-For: 10.1.2.3, 10.4.5.6"
    case $mode in
    on) want1=127.0.0.1 want2="10.1.2.3, 10.4.5.6, 127.0.0.1" ;;
    off) want1=unknown want2="10.1.2.3, 10.4.5.6, unknown" ;;
    transparent) want1="" want2="10.1.2.3, 10.4.5.6" ;;
    truncate) want1=127.0.0.1 want2=127.0.0.1 ;;
    delete) want1="" want2="" ;;
    esac
    [ "$(seen_field "xff$mode" 1 X-Forwarded-For)" = "$want1" ] ||
        bad "forwarded_for $mode: '$(seen_field "xff$mode" 1 X-Forwarded-For)' without one, expected '$want1'"
    [ "$(seen_field "xff$mode" 2 X-Forwarded-For)" = "$want2" ] ||
        bad "forwarded_for $mode: '$(seen_field "xff$mode" 2 X-Forwarded-For)' after one, expected '$want2'"
    pass_if_ok "forwarded_for $mode"
done

cache_stop
checks_done
