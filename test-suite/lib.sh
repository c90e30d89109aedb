# cuttle system test helpers. Source it from a test script:
#
#     . "$top_srcdir/test-suite/lib.sh"
#     cuttle_setup                      # fresh temp dir in $T, cleanup on exit
#     cuttle_conf "http_access allow localhost"  # writes $T/squid.conf
#     cuttle_start                      # runs $CUTTLE -N, sets $PORT and $CUTTLE_PID
#     ... curl -x 127.0.0.1:$PORT ...
#     cuttle_stop
#
# Environment: CUTTLE (the binary; default ../src/cuttle of top_builddir),
# top_srcdir, KEEP_TMP=1 keeps the temp dir, TIMEOUT_MULT scales every wait
# (use 3 or more under sanitizers), CUTTLE_TEST_WORKERS=N runs every cuttle
# of the tests with `workers N` (cuttle_workers_line; unset or 1: one
# worker). Every wait is bounded. On failure the test prints cache.log and
# access.log.

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${CUTTLE:=$top_builddir/src/cuttle}"
: "${TIMEOUT_MULT:=1}"
: "${KEEP_TMP:=}"
: "${CUTTLE_TEST_WORKERS:=1}"

T=""
CUTTLE_PID=""
PORT=""

# seconds scaled by TIMEOUT_MULT (integer)
scaled() { echo $(( $1 * TIMEOUT_MULT )); }

cuttle_dump_logs() {
    for f in "$T/cache.log" "$T/access.log" "$T/stderr"; do
        if [ -f "$f" ]; then
            echo "----- $f -----"
            tail -n 60 "$f"
        fi
    done
}

fail() {
    echo "FAIL: $*"
    cuttle_dump_logs
    exit 1
}

pass() { echo "ok: $*"; }

cuttle_cleanup() {
    if [ -n "$CUTTLE_PID" ] && kill -0 "$CUTTLE_PID" 2>/dev/null; then
        kill -KILL "$CUTTLE_PID" 2>/dev/null
    fi
    # a daemon started without -N is found through its pid file
    if [ -n "$T" ] && [ -f "$T/cuttle.pid" ]; then
        p=$(cat "$T/cuttle.pid" 2>/dev/null)
        [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    fi
    if [ -n "$T" ] && [ -d "$T" ]; then
        if [ -n "$KEEP_TMP" ]; then
            echo "kept $T"
        else
            rm -rf "$T"
        fi
    fi
}

cuttle_setup() {
    [ -x "$CUTTLE" ] || { echo "no cuttle binary at $CUTTLE"; exit 99; }
    T=$(mktemp -d "${TMPDIR:-/tmp}/cuttle-test.XXXXXX")
    trap cuttle_cleanup EXIT
    # Started as root, cuttle serves as cache_effective_user (proxy by
    # default) and must then rename its logs and remove its pid file: $T is
    # the user's, as /var/log/squid is on Debian. The drop itself stays on.
    CUTTLE_ERRORS=$top_srcdir/errors/templates
    if [ "$(id -u)" = 0 ]; then
        chown "${CUTTLE_TEST_USER:-proxy}:" "$T"
        # a reconfigure reloads the templates as that user: a checkout it
        # cannot read (under /root, say) lends them through $T
        if ! setpriv --reuid="${CUTTLE_TEST_USER:-proxy}" --regid="${CUTTLE_TEST_USER:-proxy}" --clear-groups \
            test -r "$CUTTLE_ERRORS/ERR_ACCESS_DENIED" 2> /dev/null; then
            cp -r "$CUTTLE_ERRORS" "$T/error-templates"
            CUTTLE_ERRORS=$T/error-templates
        fi
    fi
    trap 'exit 1' INT TERM
}

# cuttle_workers_line : the squid.conf line for CUTTLE_TEST_WORKERS (none
# for one worker); a test writing its own squid.conf for cuttle adds it
cuttle_workers_line() {
    [ "$CUTTLE_TEST_WORKERS" = 1 ] || echo "workers $CUTTLE_TEST_WORKERS"
}

# kid_label_re : the ERE of the kid label between a cache.log line's time
# and its "|" (" kid2" with several workers, as Squid's SMP kids)
kid_label_re() {
    [ "$CUTTLE_TEST_WORKERS" = 1 ] || echo ' kid[0-9]+'
}

# cuttle_conf LINE... : writes $T/squid.conf listening on 127.0.0.1:0 with
# the logs and pid file in $T, then the given lines (http_access etc.), then
# cuttle_workers_line. With several workers, the workers share the
# cache_dir lines (doc/design.md "Workers"). A test that gives its own
# `workers` line gets no `workers` line from here.
cuttle_conf() {
    local own="" line
    for line in "$@"; do
        case "$line" in "workers "*) own=1 ;; esac
    done
    {
        echo "http_port 127.0.0.1:0"
        echo "access_log stdio:$T/access.log"
        echo "cache_log $T/cache.log"
        echo "pid_filename $T/cuttle.pid"
        # a test that sets CUTTLE_ERRORS empty gets negotiated pages (no error_directory)
        [ -z "$CUTTLE_ERRORS" ] || echo "error_directory $CUTTLE_ERRORS"
        echo "shutdown_lifetime 1 second"
        for line in "$@"; do
            echo "$line"
        done
        # last: the test's lines keep their numbers
        [ -n "$own" ] || cuttle_workers_line
    } > "$T/squid.conf"
}

# wait_until SECONDS COMMAND... : polls COMMAND every 0.1 s; false on timeout
wait_until() {
    local limit=$(( $(scaled "$1") * 10 ))
    shift
    local i=0
    while [ $i -lt $limit ]; do
        if "$@"; then
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# the port of the Nth "Accepting HTTP Socket connections" line (default: the last)
cuttle_port_from_log() {
    grep -o 'Accepting HTTP Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" 2>/dev/null |
        tail -n 1 | sed -e 's/.*local=//' -e 's/.*://'
}

has_port() { [ -n "$(cuttle_port_from_log)" ]; }

# how many "Accepting" lines cache.log holds (an earlier run's stay in the file)
accepting_lines() {
    n=$(grep -c 'Accepting HTTP Socket connections at' "$T/cache.log" 2>/dev/null)
    echo "${n:-0}"
}
# has_new_port [N] : N more lines than ACCEPTING_BEFORE (default: one a
# cuttle worker, so that the start is over once every worker listens)
has_new_port() { [ "$(accepting_lines)" -ge $((ACCEPTING_BEFORE + ${1:-$CUTTLE_TEST_WORKERS})) ]; }

# cuttle_start [EXTRA ARGS] : starts cuttle -N in the background and waits
# until this run (not an earlier one sharing cache.log) reports its port
cuttle_start() {
    ACCEPTING_BEFORE=$(accepting_lines)
    "$CUTTLE" -N -f "$T/squid.conf" "$@" > "$T/stdout" 2> "$T/stderr" &
    CUTTLE_PID=$!
    wait_until 10 has_new_port || fail "cuttle did not report a listening port"
    PORT=$(cuttle_port_from_log)
}

is_running() { kill -0 "$1" 2>/dev/null; }
is_stopped() { ! kill -0 "$1" 2>/dev/null; }

# cuttle_stop : SIGTERM, bounded wait, then SIGKILL (a failure)
cuttle_stop() {
    [ -n "$CUTTLE_PID" ] || return 0
    kill -TERM "$CUTTLE_PID" 2>/dev/null
    if ! wait_until 10 is_stopped "$CUTTLE_PID"; then
        kill -KILL "$CUTTLE_PID" 2>/dev/null
        fail "cuttle did not stop after SIGTERM"
    fi
    # a clean exit: under the sanitizers a leak or an error report makes it non-zero
    wait "$CUTTLE_PID" 2>/dev/null
    rc=$?
    CUTTLE_PID=""
    [ "$rc" = 0 ] || fail "cuttle exited with status $rc after SIGTERM"
}

# proxy_get URL [CURL ARGS] : prints the status code of URL fetched through cuttle
proxy_get() {
    local url=$1
    shift
    curl -s -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "$@" "$url"
}

# raw_send BYTES : sends BYTES (printf escapes) on one connection, prints the
# reply; to 127.0.0.1:$PORT unless RAW_TO=ADDR:PORT, from RAW_FROM=ADDR if set
raw_send() {
    python3 - "${RAW_TO:-127.0.0.1:$PORT}" "$1" "$(scaled 5)" "${RAW_FROM:-}" <<'PY'
import socket, sys
to, data, limit, src = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
host, port = to.rsplit(":", 1)
s = socket.create_connection((host.strip("[]"), int(port)), timeout=limit,
                             source_address=(src, 0) if src else None)
s.sendall(data.encode().decode("unicode_escape").encode("latin1"))
out = b""
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
except (socket.timeout, ConnectionResetError):
    pass
sys.stdout.write(out.decode("latin1"))
PY
}

# access_log_has REGEX : whether access.log has a matching line (after a flush)
access_log_has() { grep -Eq "$1" "$T/access.log" 2>/dev/null; }
