#!/bin/sh
# url_rewrite_program with a scripted rewriter in Squid's helper protocol:
# rewrite-url fetches another URL, url= with status= redirects the client
# (TCP_REDIRECT), ERR keeps the URL, the old bare-URL and 30N:URL replies
# work, url_rewrite_access picks the requests, and a rewriter that answers
# BH or dies fails the request (500), never letting it through unfiltered.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7
# (but for the failures, where Squid 5.7 goes on with the URL unchanged).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

cat > "$T/rewriter.sh" <<SH
#!/bin/sh
# concurrency 0: one "URL extras..." line in, one answer line out
while read -r url rest; do
    echo "\$url \$rest" >> "$T/rewriter.log"
    case \$url in
    */s/old*) echo "OK rewrite-url=http://$O/s/new" ;;
    */s/bare*) echo "http://$O/s/new" ;;
    */s/go*) echo "OK status=301 url=http://elsewhere.test/landing" ;;
    */s/old302*) echo "302:http://elsewhere.test/old" ;;
    */s/broken*) echo "BH message=oops" ;;
    */s/slow*) sleep 2; echo "ERR" ;;
    */s/die*) exit 1 ;;
    *) echo "ERR" ;;
    esac
done
SH
chmod 755 "$T/rewriter.sh"
: > "$T/rewriter.log"
chmod 666 "$T/rewriter.log"

cache_start \
    "url_rewrite_program $T/rewriter.sh" \
    "url_rewrite_children 2 startup=1 idle=1" \
    "acl skip urlpath_regex ^/s/skip" \
    "url_rewrite_access deny skip" \
    "url_rewrite_access allow all"

mark
code=$(proxy_get "http://$O/s/old")
[ "$code" = 200 ] || bad "rewrite-url: expected 200, got $code"
seen new
grep -q "^GET /s/new" "$T/seen" || bad "the origin did not get /s/new"
code=$(proxy_get "http://$O/s/bare")
[ "$code" = 200 ] || bad "an old bare URL reply: expected 200, got $code"
pass_if_ok "rewrite-url and the old bare URL"

mark
code=$(curl -s -o /dev/null -D "$T/head" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://$O/s/go")
[ "$code" = 301 ] || bad "url= status=301: expected 301, got $code"
grep -qi '^Location: http://elsewhere.test/landing' "$T/head" || bad "no Location: $(cat "$T/head")"
wait_until 5 access_log_has " TCP_REDIRECT/301 [0-9]+ GET http://$O/s/go " || bad "no TCP_REDIRECT/301 line"
pass_if_ok "url= with status= redirects"

# an upload that waits for the rewriter with its whole body in the socket
mark
head -c 300000 /dev/urandom > "$T/upload"
expect_code "an upload through the rewriter" 200 "http://$O/s/old" -H "Expect:" --data-binary "@$T/upload"
seen new
grep -qi "^Content-Length: 300000" "$T/seen" || bad "the rewritten upload lost its body: $(head -c 300 "$T/seen")"
pass_if_ok "an upload waits for the rewriter, then goes through whole"

# an upload whose body comes while the rewriter thinks, after the head was
# read to the end of the socket: no later edge announces the body
mark
python3 - "$PORT" "http://$O/s/slow-upload" "$(scaled 10)" > "$T/late.out" 2>&1 <<'PY'
import socket, sys, time
port, url, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\n" % url).encode())
time.sleep(0.5)
s.sendall(b"hello")
reply = b""
try:
    while True:
        data = s.recv(65536)
        if not data:
            break
        reply += data
except socket.timeout:
    print("timed out")
print(reply.decode("latin1"))
PY
head -n 1 "$T/late.out" | grep -q '^HTTP/1.1 200' || bad "an upload whose body came during the rewrite: $(head -n 1 "$T/late.out")"
grep -qi '^X-Body-Length: 5' "$T/late.out" || bad "the late body did not reach the origin whole"
pass_if_ok "an upload's body that comes while the rewriter thinks is read"

mark
expect_code "ERR keeps the URL" 200 "http://$O/s/kept"
: > "$T/rewriter.log"
expect_code "url_rewrite_access deny" 200 "http://$O/s/skip"
grep -q "/s/skip" "$T/rewriter.log" && bad "a request url_rewrite_access denies reached the rewriter"
expect_code "extras are Squid's default" 200 "http://$O/s/extras" -X GET
grep -Eq "^http://$O/s/extras 127\\.0\\.0\\.1/127\\.0\\.0\\.1 - GET myip=127\\.0\\.0\\.1 myport=$PORT\$" "$T/rewriter.log" ||
    bad "the rewriter's line is not Squid's: $(cat "$T/rewriter.log")"
pass_if_ok "ERR, url_rewrite_access, the request line"

# a client that leaves while the rewriter thinks: nothing is sent to a
# closed connection, and the next client is served
mark
curl -s -o /dev/null --max-time 0.5 -x "127.0.0.1:$PORT" "http://$O/s/slow"
sleep 2.5
is_running "$CUTTLE_PID" || bad "the proxy died after a client left during a rewrite"
expect_code "after a client left mid-rewrite" 200 "http://$O/s/later"
pass_if_ok "a client may leave while the rewriter works"

if [ -z "$CACHE_TEST_SQUID" ]; then
    mark
    expect_code "BH fails closed" 500 "http://$O/s/broken"
    grep -q ERR_GATEWAY_FAILURE "$T/body" || bad "the BH answer is not ERR_GATEWAY_FAILURE"
    expect_code "a dying rewriter fails closed" 500 "http://$O/s/die"
    expect_code "the rewriter is restarted" 200 "http://$O/s/after"
    pass_if_ok "a broken rewriter never lets a request through unchanged"

    # a reconfigure that drops the rewriter while a request waits for it:
    # the request is handled again under the configuration now in force (no
    # rewriter), and the proxy goes on without one
    mark
    curl -s -o /dev/null -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://$O/s/slow" \
        > "$T/slow.code" &
    SLOW=$!
    sleep 0.5
    grep -v '^url_rewrite' "$T/squid.conf" > "$T/squid.conf.new" && mv "$T/squid.conf.new" "$T/squid.conf"
    kill -HUP "$CUTTLE_PID"
    wait "$SLOW"
    [ "$(cat "$T/slow.code")" = 200 ] || bad "a request whose rewriter was dropped: $(cat "$T/slow.code")"
    is_running "$CUTTLE_PID" || bad "the proxy died when the rewriter was dropped"
    : > "$T/rewriter.log"
    expect_code "no rewriter after the reconfigure" 200 "http://$O/s/old"
    grep -q . "$T/rewriter.log" && bad "the dropped rewriter was still asked"
    pass_if_ok "a reconfigure that drops the rewriter"
fi
cache_stop
checks_done
