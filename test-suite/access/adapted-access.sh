#!/bin/sh
# adapted_http_access: http_access again after url_rewrite_program, on the
# rewritten request (Squid's clientAccessCheck2), with the same answers as
# http_access (403 and deny_info); without a rewriter, a second http_access.
# The later rules (here http_reply_access) see the rewritten URL too.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cat > "$T/rewriter.sh" <<SH
#!/bin/sh
while read -r url rest; do
    case \$url in
    */s/to-blocked*) echo "OK rewrite-url=http://$O/s/blocked-after" ;;
    */s/to-fine*) echo "OK rewrite-url=http://$O/s/fine-after" ;;
    */s/to-hidden*) echo "OK rewrite-url=http://$O/s/hidden-reply" ;;
    *) echo "ERR" ;;
    esac
done
SH
chmod 755 "$T/rewriter.sh"

cache_start \
    "url_rewrite_program $T/rewriter.sh" \
    "url_rewrite_children 1 startup=1 idle=1" \
    "acl after urlpath_regex ^/s/blocked-after" \
    "acl second urlpath_regex ^/s/second" \
    "acl rewritten_hidden urlpath_regex ^/s/hidden-reply" \
    "deny_info ERR_FORWARDING_DENIED second" \
    "adapted_http_access deny after" \
    "adapted_http_access deny second" \
    "adapted_http_access allow all" \
    "http_reply_access deny rewritten_hidden" \
    "http_reply_access allow all"

mark
expect_code "a request rewritten into a denied URL" 403 "http://$O/s/to-blocked"
wait_until 5 access_log_has " TCP_DENIED/403 [0-9]+ GET http://$O/s/blocked-after " ||
    bad "no TCP_DENIED line with the rewritten URL"
expect_code "a request rewritten into an allowed URL" 200 "http://$O/s/to-fine"
expect_code "the denied URL asked directly (not rewritten: the rewriter says ERR)" 403 "http://$O/s/blocked-after"
expect_code "a URL the rules do not name" 200 "http://$O/s/other"
pass_if_ok "adapted_http_access sees the rewritten request"

mark
curl -s -o "$T/page" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://$O/s/second" > /dev/null
grep -q "ERR_FORWARDING_DENIED" "$T/page" || bad "deny_info did not choose the page of a denial by adapted_http_access"
expect_code "http_reply_access sees the rewritten URL" 403 "http://$O/s/to-hidden"
pass_if_ok "deny_info for its denials, and the later rules see the rewritten URL"
cache_stop

if [ -z "$CACHE_TEST_SQUID" ]; then
    mark
    printf '%s\n' "adapted_http_access allow nosuch" "adapted_http_access maybe all" > "$T/bad.conf"
    "$CUTTLE" -k parse -f "$T/bad.conf" > "$T/bad.out" 2>&1 && bad "bad adapted_http_access lines were accepted"
    grep -q "bad.conf:1: .*nosuch" "$T/bad.out" || bad "no error for the undefined acl: $(cat "$T/bad.out")"
    grep -q "bad.conf:2: .*maybe" "$T/bad.out" || bad "no error for the bad action: $(cat "$T/bad.out")"
    pass_if_ok "-k parse refuses bad adapted_http_access lines"
fi
checks_done
