#!/bin/sh
# Timeouts and a graceful shutdown: request_timeout closes a client that sent
# half a request line, client_idle_pconn_timeout an idle kept-alive client,
# server_idle_pconn_timeout an idle origin connection; SIGTERM lets a transfer
# finish within shutdown_lifetime (and cuttle then exits 0), and cuts one that
# outlasts it (cuttle still exits 0, on time).
# With workers (CUTTLE_TEST_WORKERS) the idle origin connections are each
# worker's: the two requests that reuse one go from one curl run on one
# client connection (one worker); the descriptors counted are the process's
# (every worker's).
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
cuttle_setup
origin_start
fwd_conf "http_access allow localhost" "http_access deny all" \
    "request_timeout 1 second" "client_idle_pconn_timeout 1 second" \
    "server_idle_pconn_timeout $(scaled 1) seconds"
cuttle_start
# the descriptors of a cuttle with no connection
wait_until 5 test "$(fd_count "$CUTTLE_PID")" -gt 0 || fail "no descriptors in /proc"
BASE_FDS=$(fd_count "$CUTTLE_PID")

# seconds_to_close BYTES : connects, sends BYTES (printf escapes), reads until
# the close; prints the seconds from the last byte received (or sent) to the close
seconds_to_close() {
    python3 - "$PORT" "$1" "$(scaled 10)" <<'PY'
import socket, sys, time
port, data, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port), timeout=limit)
s.sendall(data.encode().decode("unicode_escape").encode("latin1"))
last = time.monotonic()
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        last = time.monotonic()
except socket.timeout:
    raise SystemExit("still open after %s s" % limit)
print("%.2f" % (time.monotonic() - last))
PY
}

# within LOW HIGH VALUE : LOW <= VALUE < HIGH (decimal seconds)
within() { python3 -c 'import sys; sys.exit(not float(sys.argv[1]) <= float(sys.argv[3]) < float(sys.argv[2]))' "$@"; }

# request_timeout: half a request line, then silence
took=$(seconds_to_close "GET http://127.0.0.1:$OPORT/half") || bad "request_timeout: $took"
within 0.8 "$(scaled 4)" "$took" && pass "request_timeout closed a half request after $took s" ||
    bad "request_timeout 1 second closed a half request after $took s"

# client_idle_pconn_timeout: a kept-alive client that goes quiet after a reply
took=$(seconds_to_close "GET http://127.0.0.1:$OPORT/idle?s=10 HTTP/1.1\r\nHost: x\r\n\r\n") ||
    bad "client_idle_pconn_timeout: $took"
within 0.8 "$(scaled 4)" "$took" && pass "client_idle_pconn_timeout closed an idle client after $took s" ||
    bad "client_idle_pconn_timeout 1 second closed an idle client after $took s"
wait_until 5 access_log_has " TCP_MISS/200 [0-9]+ GET http://127\.0\.0\.1:$OPORT/idle\? " ||
    bad "the idle client's request was not logged"

# server_idle_pconn_timeout (1 second, scaled so that a slow build still
# reuses the connection): the origin connection is reused at once, and closed
# once it was idle longer than the timeout
origin_conn() {
    curl -s -D - -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/$1" |
        tr -d '\r' | sed -n 's/^X-Origin-Conn: //p'
}
mark
# the origin connection of the request above is closed after the timeout too
wait_until $(( $(scaled 1) + 3 )) fds_back_to "$BASE_FDS" ||
    bad "cuttle holds $(fd_count "$CUTTLE_PID") descriptors, $BASE_FDS at the start"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    first=$(origin_conn pconn1)
    second=$(origin_conn pconn2)
else
    curl -s -D "$T/pconn.h" -o /dev/null -o /dev/null -w '%{num_connects}' --max-time "$(scaled 10)" \
        -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/pconn1" "http://127.0.0.1:$OPORT/pconn2" > "$T/pconn.w"
    [ "$(cat "$T/pconn.w")" = 10 ] || bad "curl opened client connections $(cat "$T/pconn.w") for two requests, not one"
    first=$(tr -d '\r' < "$T/pconn.h" | sed -n 's/^X-Origin-Conn: //p' | sed -n 1p)
    second=$(tr -d '\r' < "$T/pconn.h" | sed -n 's/^X-Origin-Conn: //p' | sed -n 2p)
fi
[ -n "$first" ] && [ "$first" = "$second" ] || bad "the origin connection was not reused: $first, $second"
# cuttle holds the idle origin connection, then closes it
[ "$(fd_count "$CUTTLE_PID")" -gt "$BASE_FDS" ] || bad "no pooled origin connection while idle"
sleep "$(scaled 1)"
wait_until 3 fds_back_to "$BASE_FDS" || bad "the idle origin connection is still open after $(scaled 1) s"
third=$(origin_conn pconn3)
[ -n "$third" ] && [ "$third" != "$first" ] || bad "connection $first reused after server_idle_pconn_timeout: $third"
pass_if_ok "server_idle_pconn_timeout: origin connection $first reused once, then closed ($third next)"

# SIGTERM during a 200 MB transfer at 50 MB/s with shutdown_lifetime 10 seconds:
# the transfer completes, new connections are refused, cuttle exits 0
cuttle_stop
fwd_conf "http_access allow localhost" "http_access deny all" "shutdown_lifetime $(scaled 10) seconds"
cuttle_start
# slow_download SIZE RATE : background download through cuttle, sha256 in
# $T/sum, curl's exit status in $T/rc, status and size in $T/curl.out
slow_download() {
    rm -f "$T/sum" "$T/rc" "$T/curl.out"
    { curl -s --max-time "$(scaled 30)" --limit-rate "$2" -x "127.0.0.1:$PORT" \
        -w '%{stderr}%{http_code} %{size_download}' "http://127.0.0.1:$OPORT/big?s=$1" 2> "$T/curl.out"
      echo $? > "$T/rc"; } | sha256sum | cut -d' ' -f1 > "$T/sum" &
    DOWNLOAD=$!
}
expected=$("$ORIGIN" --print-body 200m | sha256sum | cut -d' ' -f1)
mark
slow_download 200m 50M
sleep 1
start=$(date +%s)
kill -TERM "$CUTTLE_PID"
sleep 0.3
curl -s -o /dev/null --max-time 2 -x "127.0.0.1:$PORT" "http://127.0.0.1:$OPORT/late" 2> /dev/null &&
    bad "a new request was served during the shutdown"
wait "$DOWNLOAD"
[ "$(cat "$T/rc")" = 0 ] || bad "the transfer did not complete: curl exit $(cat "$T/rc"), $(cat "$T/curl.out")"
[ "$(cat "$T/sum")" = "$expected" ] || bad "the transfer's sha256 differs ($(cat "$T/curl.out"))"
wait_until 5 is_stopped "$CUTTLE_PID" || { kill -KILL "$CUTTLE_PID"; fail "cuttle did not exit after the transfer"; }
wait "$CUTTLE_PID"
rc=$?
CUTTLE_PID=""
[ "$rc" = 0 ] || bad "cuttle exited $rc after SIGTERM"
took=$(( $(date +%s) - start ))
pass_if_ok "SIGTERM: the 200 MB transfer completed ($(cat "$T/curl.out")), cuttle exited 0 after $took s"
grep -q ' TCP_MISS/200 [0-9]* GET http://127\.0\.0\.1:[0-9]*/big? ' "$T/access.log" ||
    bad "the transfer finished during the shutdown was not logged"

# shutdown_lifetime 1 second and a 1 GB transfer at 50 MB/s: cut after about
# a second, cuttle exits 0
fwd_conf "http_access allow localhost" "http_access deny all" "shutdown_lifetime 1 second"
cuttle_start
mark
slow_download 1g 50M
sleep 1
start=$(date +%s)
kill -TERM "$CUTTLE_PID"
wait_until 5 is_stopped "$CUTTLE_PID" || { kill -KILL "$CUTTLE_PID"; fail "cuttle still runs 5 s after SIGTERM with shutdown_lifetime 1 second"; }
wait "$CUTTLE_PID"
rc=$?
CUTTLE_PID=""
took=$(( $(date +%s) - start ))
[ "$rc" = 0 ] || bad "cuttle exited $rc after SIGTERM"
wait "$DOWNLOAD"
[ "$(cat "$T/rc")" != 0 ] || bad "the 1 GB transfer was not cut: $(cat "$T/curl.out")"
[ "$(cat "$T/rc")" != 28 ] || bad "the 1 GB transfer ran into curl's own --max-time"
pass_if_ok "shutdown_lifetime 1 second: transfer cut (curl exit $(cat "$T/rc"), $(cat "$T/curl.out")), cuttle exited 0 after $took s"
checks_done
