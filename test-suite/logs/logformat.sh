#!/bin/sh
# logformat: a format of Squid 5.7's %-codes and modifiers fills each field
# from the real transaction; the built-in referrer, useragent and icap_squid
# formats; log_mime_hdrs appends the heads to the squid line.
# With workers (CUTTLE_TEST_WORKERS) %sn numbers the requests of the worker
# that logs them: the first two requests go from one curl run on one client
# connection (one worker), so they are 0 and 1 as with one worker.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/logs/helpers.sh"
logs_setup
fwd_conf "http_access allow localhost" \
    "logformat fields %>a|%>p|%>la|%>lp|%<a|%<p|%rm|%>ru|%ru|%>rd|%>rP|%>rp|%rv|%>Hs|%<Hs|%03>Hs|%-6Ss|%.3Sh|%{X-Tag}>h|%{X-List:;b}>h|%\"{User-Agent}>h|%#{X-Tag}>h|%{Content-Type}<h|%mt|%err_code|%sn|%%" \
    "access_log stdio:$T/fields.log fields" \
    "logformat sizes %>st %>sh %st %<st %<sh %rm" "access_log stdio:$T/sizes.log sizes" \
    "access_log stdio:$T/referrer.log referrer" \
    "access_log stdio:$T/useragent.log useragent" \
    "access_log stdio:$T/icap.log icap_squid" \
    "log_mime_hdrs on"
cuttle_start

if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    code=$(proxy_get "$OURL/a?ct=text/html;%20charset=utf-8&h=X-Rep:one" -H 'X-Tag: a b%' -H 'X-List: a=1, x=2;b=3' \
        -A 'Agent "007"' -e 'http://ref.example/p')
    [ "$code" = 200 ] || fail "status $code"
    proxy_get "http://127.0.0.1:$(closed_port)/down" > /dev/null
else
    w='%{http_code} %{num_connects}\n'
    curl -s -o "$T/body" -w "$w" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
        "$OURL/a?ct=text/html;%20charset=utf-8&h=X-Rep:one" -H 'X-Tag: a b%' -H 'X-List: a=1, x=2;b=3' \
        -A 'Agent "007"' -e 'http://ref.example/p' \
        --next -s -o /dev/null -w "$w" --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
        "http://127.0.0.1:$(closed_port)/down" > "$T/two.w"
    code=$(sed -n '1s/ .*//p' "$T/two.w")
    [ "$code" = 200 ] || fail "status $code"
    [ "$(sed -n '2s/.* //p' "$T/two.w")" = 0 ] || fail "the two requests went on two client connections: $(cat "$T/two.w")"
fi
wait_until 5 has_lines "$T/fields.log" 2 || fail "fields.log has $(lines "$T/fields.log") lines"

first=$(sed -n 1p "$T/fields.log")
CPORT=$PORT
expected="127.0.0.1|[0-9]+|127.0.0.1|$CPORT|127.0.0.1|$OPORT|GET|http://127.0.0.1:$OPORT/a\\?ct=text/html;%20charset=utf-8&h=X-Rep:one|http://127.0.0.1:$OPORT/a\\?|127.0.0.1|$OPORT|/a\\?ct=text/html;%20charset=utf-8&h=X-Rep:one|1.1|200|200|200|TCP_MISS|HIE|a%20b%|3|Agent \\\\\"007\\\\\"|a%20b%25|text/html;%20charset=utf-8|text/html|-|0|%"
echo "$first" | grep -Eq "^$expected\$" || fail "the fields line: $first"
pass "every field of a logformat line: $first"
second=$(sed -n 2p "$T/fields.log")
echo "$second" | grep -Eq '\|GET\|.*\|503\|-\|503\|TCP_MISS\|HIE\|-\|-\|curl/[0-9.]+\|-\|text/html;charset=utf-8\|text/html\|ERR_CONNECT_FAIL\|1\|%$' ||
    fail "the line of a connect failure: $second"
pass "a connect failure: no status from the next hop, its error page, the next %sn: $second"

ref=$(sed -n 1p "$T/referrer.log")
echo "$ref" | grep -Eq "^[0-9]+\.[0-9]{3} 127.0.0.1 http://ref.example/p http://127.0.0.1:$OPORT/a\\?\$" || fail "referrer: $ref"
ua=$(sed -n 1p "$T/useragent.log")
echo "$ua" | grep -Eq '^127.0.0.1 \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:]{8} [+-][0-9]{4}\] "Agent "007""$' || fail "useragent: $ua"
icap=$(sed -n 1p "$T/icap.log")
echo "$icap" | grep -Eq '^[0-9]+\.[0-9]{3}      0 127.0.0.1 ICAP_ERR_UNKNOWN/000 0 NONE \(null\) - -/:: -$' || fail "icap_squid: $icap"
pass "the built-in referrer, useragent and icap_squid lines, as Squid 5.7 writes them"

sq=$(grep ' http://127.0.0.1:[0-9]*/a? ' "$T/access.log")
for part in ' text/html [Host: 127.0.0.1:' 'X-Tag: a b%25\r\n' '] [HTTP/1.1 200 OK\r\n' 'X-Rep: one\r\n' '\r\n\r\n]'; do
    printf "%s\n" "$sq" | grep -qF -- "$part" || fail "log_mime_hdrs: no '$part' in $sq"
done
pass "log_mime_hdrs: the request fields and the reply head end the squid line"

# %>st: the request head and its body without chunk framing
proxy_get "$OURL/post" -d "$(printf '%01000d' 0)" > /dev/null
proxy_get "$OURL/chunked" -H 'Transfer-Encoding: chunked' -d 'abc' > /dev/null
wait_until 5 grep -q ' POST$' "$T/sizes.log" || fail "no sizes line for the POSTs"
grep ' POST$' "$T/sizes.log" | {
    read -r st sh total sent replyHead method
    [ "$st" = $((sh + 1000)) ] && [ "$total" = $((st + sent)) ] && [ "$replyHead" -lt "$sent" ] ||
        fail "the sizes of a 1000-byte POST: $st $sh $total $sent $replyHead"
    read -r st sh total sent replyHead method
    [ "$st" = $((sh + 3)) ] || fail "the sizes of a chunked 3-byte POST: $st $sh"
} || exit 1
pass "%>st counts the request body (without chunk framing), %st both ways"
cuttle_stop
