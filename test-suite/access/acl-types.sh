#!/bin/sh
# The request acl types through the real proxy: each denies what it matches
# (403 TCP_DENIED) and lets the rest through (200 from the origin), with
# negation, -i, value files and several values per line.
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7
# (test-suite/cache/helpers.sh): denied requests name hosts no resolver
# knows (an acl decides before any lookup), allowed ones the origin's address.
# With workers (CUTTLE_TEST_WORKERS) maxconn counts the connections of the
# worker that took the request (as in each Squid kid): replies name their
# worker (reply_header_add X-Worker ${process_number}), and connections are
# held until every worker holds one, so that the next request is one too
# many whichever worker takes it.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"
cuttle_setup
origin_start

printf '# blocked domains\n.evil.test\n\nwww.bad.test\nwhole line.test is one value\n' > "$T/domains.txt"
printf '\\.EXE$\n' > "$T/patterns.txt"
chmod 644 "$T/domains.txt" "$T/patterns.txt"
O="127.0.0.1:$OPORT"

set --
[ "$CUTTLE_TEST_WORKERS" = 1 ] || set -- 'reply_header_add X-Worker ${process_number}'
cache_start "$@" \
    "acl blocked dstdomain -n .ads.test www.blocked.test" \
    "acl blocked dstdomain -n \"$T/domains.txt\"" \
    "acl exe url_regex -i \"$T/patterns.txt\"" \
    "acl private urlpath_regex ^/s/private/ \\?secret=" \
    "acl adsrx dstdom_regex -n -i ^ads[0-9]+\\." \
    "acl bots browser ^BadBot" \
    "acl flagged req_header X-Block -i ^yes\$" \
    "acl uploads req_mime_type -i ^multipart/form-data" \
    "acl refs referer_regex ^http://spam\\.test/" \
    "acl ftp proto FTP" \
    "acl everyday time SMTWHFA 00:00-24:00" \
    "acl timed urlpath_regex ^/s/timed" \
    "acl always random 1/1" \
    "acl lucky urlpath_regex ^/s/lucky" \
    "acl post method POST" \
    "acl postUploads all-of post uploads" \
    "acl either any-of bots refs" \
    "acl crowd maxconn 1" \
    "acl crowded urlpath_regex ^/s/crowded" \
    "acl odd localport 1" \
    "acl named myportname 127.0.0.1:0" \
    "acl namedpath urlpath_regex ^/s/named" \
    "http_access deny blocked" \
    "http_access deny exe" \
    "http_access deny private" \
    "http_access deny adsrx" \
    "http_access deny flagged" \
    "http_access deny postUploads" \
    "http_access deny either" \
    "http_access deny ftp" \
    "http_access deny everyday timed" \
    "http_access deny always lucky" \
    "http_access deny crowd crowded" \
    "http_access deny odd" \
    "http_access deny named namedpath"

mark
expect_code "dstdomain .ads.test itself" 403 http://ads.test/
expect_code "dstdomain under .ads.test" 403 http://www.ads.test/x
expect_code "dstdomain name" 403 http://www.blocked.test/
expect_code "dstdomain from the file" 403 http://deep.down.evil.test/
expect_code "dstdomain name from the file" 403 http://www.bad.test/
expect_code "the origin's address" 200 "http://$O/s/ok"
wait_until 5 access_log_has " TCP_DENIED/403 [0-9]+ GET http://www\\.ads\\.test/x - HIER_NONE/- " ||
    bad "no TCP_DENIED line for the dstdomain denial"
pass_if_ok "dstdomain: names, domains and a value file"

mark
expect_code "url_regex -i from a file" 403 "http://$O/s/setup.exe"
expect_code "url_regex -i, other case" 403 "http://$O/s/SETUP.Exe"
expect_code "url_regex no match" 200 "http://$O/s/setup.exe.txt"
expect_code "urlpath_regex path" 403 "http://$O/s/private/x"
expect_code "urlpath_regex query" 403 "http://$O/s/q?secret=1"
expect_code "urlpath_regex no match" 200 "http://$O/s/public"
expect_code "dstdom_regex" 403 http://ADS12.example.test/
pass_if_ok "url_regex, urlpath_regex, dstdom_regex"

mark
expect_code "browser" 403 "http://$O/s/b" -A "BadBot/2.0"
expect_code "browser is case sensitive" 200 "http://$O/s/b" -A "badbot/2.0"
expect_code "req_header -i" 403 "http://$O/s/h" -H "X-Block: YES"
expect_code "req_header no match" 200 "http://$O/s/h" -H "X-Block: no"
expect_code "referer_regex in any-of" 403 "http://$O/s/r" -e "http://spam.test/page"
expect_code "all-of post+upload" 403 "http://$O/s/u" -F "f=@$T/patterns.txt"
expect_code "all-of needs both: a GET" 200 "http://$O/s/u" -H "Content-Type: multipart/form-data; boundary=x"
pass_if_ok "browser, req_header, referer_regex, req_mime_type, any-of, all-of"

mark
expect_code "proto FTP" 403 ftp://ftp.test/x
expect_code "time (every day, all day)" 403 "http://$O/s/timed"
expect_code "random 1/1" 403 "http://$O/s/lucky"
expect_code "localport that is not ours" 200 "http://$O/s/port"
# an http_port's name is its address as written unless name= says otherwise:
# cuttle's is "127.0.0.1:0"; the Squid run's port line names its real port
if [ -z "$CACHE_TEST_SQUID" ]; then
    expect_code "myportname: the port's default name" 403 "http://$O/s/named"
else
    expect_code "myportname: another port's name (Squid 5.7)" 200 "http://$O/s/named"
fi
pass_if_ok "proto, time, random, localport, myportname"

# maxconn 1: a second connection from the same address is one too many
mark
expect_code "maxconn alone" 200 "http://$O/s/crowded"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
python3 -c "
import socket, time
s = socket.create_connection(('127.0.0.1', $PORT))
open('$T/held', 'w').close()
time.sleep($(scaled 3))
" &
HOLDER=$!
wait_until 5 test -f "$T/held" || bad "the holding connection did not open"
sleep 0.3 # the proxy accepts it
else
python3 - "$PORT" "$O" "$T/held" "$CUTTLE_TEST_WORKERS" "$(scaled 3)" > "$T/holder.out" 2>&1 <<'PY' &
import socket, sys, time
port, origin, held_file, workers, hold = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
held = {}
for n in range(64):
    if len(held) == workers:
        break
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(("GET http://%s/s/held%d HTTP/1.1\r\nHost: %s\r\n\r\n" % (origin, n, origin)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        data = s.recv(65536)
        if not data:
            break
        head += data
    worker = [l.split(b":", 1)[1].strip() for l in head.split(b"\r\n") if l.lower().startswith(b"x-worker:")]
    if not worker:
        sys.exit("no X-Worker in %r" % head[:300])
    if worker[0] in held:
        s.close()
    else:
        held[worker[0]] = s
if len(held) < workers:
    sys.exit("64 connections reached the workers %s only" % sorted(held))
open(held_file, "w").close()
time.sleep(hold)
PY
HOLDER=$!
wait_until 5 test -f "$T/held" || bad "no connection held in every worker: $(cat "$T/holder.out")"
fi
expect_code "maxconn with another connection open" 403 "http://$O/s/crowded"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
pass_if_ok "maxconn"

cache_stop
checks_done
