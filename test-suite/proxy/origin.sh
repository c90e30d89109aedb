# cuttle system tests of the data path (test-suite/proxy): the test origin and
# shared helpers. Source it after lib.sh:
#
#     . "$top_srcdir/test-suite/lib.sh"
#     . "$top_srcdir/test-suite/proxy/origin.sh"
#     cuttle_setup
#     origin_start                  # cuttle-origin on 127.0.0.1:0, sets $OPORT and $OURL
#     proxy_conf "read_ahead_gap 1 MB"   # cuttle_conf with the manager allowed
#     cuttle_start
#     curl -x 127.0.0.1:$PORT "$OURL/x?s=10" ...
#
# The origin's files directory is $T/files (served as $OURL/files/NAME). On
# failure the temp dir is kept (without $T/files) and the origin's stderr is
# printed after cuttle's logs.

: "${ORIGIN:=$top_builddir/test-suite/origin/cuttle-origin}"

ORIGIN_PIDS=""
ORIGIN_COUNT=0
OPORT=""
OHOST=""
OURL=""

proxy_cleanup() {
    rc=$?
    # FWD_PIDS: test-suite/forwarding/helpers.sh's servers, when both are sourced
    for p in $ORIGIN_PIDS ${FWD_PIDS:-}; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in $ORIGIN_PIDS ${FWD_PIDS:-}; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 20 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -KILL "$p" 2>/dev/null
    done
    if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "$T" ] && [ -d "$T" ]; then
        for f in "$T"/origin*.err; do
            if [ -s "$f" ]; then
                echo "----- $f -----"
                tail -n 20 "$f"
            fi
        done
        rm -rf "$T/files"
        KEEP_TMP=1
    fi
    cuttle_cleanup
}

origin_listening() { grep -q '^listening on ' "$1" 2> /dev/null; }

# origin_start [ADDR:PORT] : starts cuttle-origin (default 127.0.0.1:0) serving
# $T/files; sets $OPORT, $OHOST (127.0.0.1 or [::1]), $OURL and $ORIGIN_PID
origin_start() {
    [ -x "$ORIGIN" ] || { echo "no test origin at $ORIGIN (make builds it)"; exit 99; }
    mkdir -p "$T/files"
    ORIGIN_COUNT=$((ORIGIN_COUNT + 1))
    out="$T/origin$ORIGIN_COUNT.out"
    : > "$out"
    "$ORIGIN" --listen "${1:-127.0.0.1:0}" --files "$T/files" > "$out" 2> "$T/origin$ORIGIN_COUNT.err" &
    ORIGIN_PID=$!
    ORIGIN_PIDS="$ORIGIN_PIDS $ORIGIN_PID"
    trap proxy_cleanup EXIT
    wait_until 10 origin_listening "$out" || fail "cuttle-origin did not start: $(cat "$T/origin$ORIGIN_COUNT.err")"
    address=$(sed -n 's/^listening on //p' "$out" | head -n 1)
    OPORT=${address##*:}
    OHOST=${address%:*}
    OURL="http://$OHOST:$OPORT"
}

# proxy_conf [LINE...] : cuttle_conf allowing localhost (and its manager pages)
proxy_conf() {
    cuttle_conf "http_access allow localhost manager" "http_access allow localhost" "$@"
}

# proxy_py [ARGS] <<'PY' ... : python3 reading the script from stdin, with rawhttp importable
proxy_py() {
    PYTHONPATH="$top_srcdir/test-suite/proxy${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
        python3 - "$@"
}

# mgr_counters : prints the manager's mem page (cuttle's figures)
mgr_counters() {
    curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$PORT/squid-internal-mgr/mem"
}

# mgr_counter NAME : prints one value of the mem page (empty if absent)
mgr_counter() {
    mgr_counters | sed -n "s/^$1: //p"
}

# cuttle_fds : how many descriptors cuttle holds
cuttle_fds() { ls "/proc/$CUTTLE_PID/fd" 2> /dev/null | wc -l; }

# cuttle_rss_kb : cuttle's resident set size in KB
cuttle_rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$CUTTLE_PID/status"; }

# pattern_sha256 SIZE : the sha256 of the origin's s=SIZE body
pattern_sha256() { "$ORIGIN" --print-body "$1" | sha256sum | cut -d ' ' -f 1; }

# make_pattern_file NAME SIZE : $T/files/NAME holding the s=SIZE pattern
make_pattern_file() {
    mkdir -p "$T/files"
    "$ORIGIN" --print-body "$2" > "$T/files/$1" || fail "cannot write $T/files/$1"
}

# conf_bytes NAME [FILE] : the size directive NAME of FILE ($T/squid.conf) in
# bytes; "auto ... max=SIZE" gives the max. Commented lines count too (so that
# squid.conf.default's "# read_ahead_gap 16 KB" gives the default) but an
# uncommented line wins.
conf_bytes() {
    python3 - "$1" "${2:-$T/squid.conf}" <<'PY'
import re, sys
name, path = sys.argv[1], sys.argv[2]
units = {"": 1, "b": 1, "byte": 1, "bytes": 1, "kb": 1 << 10, "k": 1 << 10, "mb": 1 << 20,
         "m": 1 << 20, "gb": 1 << 30, "g": 1 << 30}
def size(text):
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2).lower() not in units:
        raise SystemExit("cannot read size %r of %s" % (text, name))
    return int(m.group(1)) * units[m.group(2).lower()]
found = commented = None
for line in open(path):
    m = re.match(r"(#\s*)?" + re.escape(name) + r"\s+((?:\d|auto).*\S)", line)
    if not m:
        continue
    value = m.group(2)
    if value.startswith("auto"):
        mx = re.search(r"max=(\d+\s*[A-Za-z]*)", value)
        if not mx:
            raise SystemExit("%s: auto without max= in %s" % (name, path))
        value = mx.group(1)
    if m.group(1):
        commented = commented if commented is not None else size(value)
    else:
        found = size(value)
if found is None:
    found = commented
if found is None:
    raise SystemExit("no %s in %s" % (name, path))
print(found)
PY
}

# idle_fds : the fewest descriptors cuttle held over five samples 0.1 s apart
# (a connection that a finished client just closed may still be counted)
idle_fds() {
    best=""
    for _ in 1 2 3 4 5; do
        n=$(cuttle_fds)
        if [ -z "$best" ] || [ "$n" -lt "$best" ]; then
            best=$n
        fi
        sleep 0.1
    done
    echo "$best"
}

# pool_in_every_worker URL FIELD : with workers, fetches URL (its origin
# keeps the connection) in separate curl runs until the replies named
# CUTTLE_TEST_WORKERS distinct origin connections (in the reply field FIELD:
# X-Origin-Conn for the test origin); the runs go one at a time, so a worker
# pools at most one, and now each pools one (as one run does with one worker)
pool_in_every_worker() {
    : > "$T/pooled"
    for _ in $(seq 64); do
        [ "$(sort -u "$T/pooled" | wc -l)" -lt "$CUTTLE_TEST_WORKERS" ] || return 0
        curl -s -D - -o /dev/null --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" "$1" |
            tr -d '\r' | sed -n "s/^$2: //Ip" >> "$T/pooled"
    done
    fail "64 runs of $1 reached the origin connections $(sort -u "$T/pooled" | tr '\n' ' ')," \
        "not one for each of the $CUTTLE_TEST_WORKERS workers"
}

# baseline_take : records $BASE_FDS and $BASE_BLOCKS while cuttle is idle
baseline_take() {
    BASE_BLOCKS=$(mgr_counter blocks_in_use)
    [ -n "$BASE_BLOCKS" ] || fail "no blocks_in_use on the mem page"
    BASE_FDS=$(idle_fds)
    BASE_IDLE=$(mgr_counter origin_connections_idle)
}

# extra_idle : with BASELINE_POOLED_OK set, the idle pooled origin connections
# beyond the baseline's (a test whose transfers overlap ends with more of
# them, kept by design and closed at server_idle_pconn_timeout); else 0
extra_idle() {
    extra=0
    [ -z "${BASELINE_POOLED_OK:-}" ] || extra=$(($(mgr_counter origin_connections_idle) - BASE_IDLE))
    echo $((extra > 0 ? extra : 0))
}

at_baseline() {
    [ "$(cuttle_fds)" -le $((BASE_FDS + $(extra_idle))) ] && [ "$(mgr_counter blocks_in_use)" -le "$BASE_BLOCKS" ]
}

# baseline_check WHAT : fails unless descriptors and blocks_in_use come back to the baseline
baseline_check() {
    if ! wait_until 5 at_baseline; then
        fail "$1: cuttle holds $(cuttle_fds) descriptors (baseline $BASE_FDS) and" \
            "$(mgr_counter blocks_in_use) blocks in use (baseline $BASE_BLOCKS); $(ls -l "/proc/$CUTTLE_PID/fd" 2>&1 | tail -n +2 | sed 's/.* -> //' | tr '\n' ' ')"
    fi
}

# problem WHAT : notes a broken expectation and lets the test go on, so that
# one run shows every one; problems_check at the end fails if any was noted
problem() {
    echo "PROBLEM: $*"
    echo "$*" >> "$T/problems"
}
problems_count() { cat "$T/problems" 2> /dev/null | wc -l; }
problems_check() {
    [ ! -s "$T/problems" ] || fail "$(cat "$T/problems")"
}

# checkpoint WHAT : "ok: WHAT" unless a problem was noted since the last checkpoint
PROBLEMS_SEEN=0
checkpoint() {
    n=$(problems_count)
    if [ "$n" = "$PROBLEMS_SEEN" ]; then
        pass "$1"
    else
        echo "not ok: $1"
    fi
    PROBLEMS_SEEN=$n
}
