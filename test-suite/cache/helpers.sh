# Helpers shared by the memory cache system tests (test-suite/cache/*.sh).
# Source it after lib.sh; it sources test-suite/forwarding/helpers.sh:
#
#     . "$top_srcdir/test-suite/lib.sh"
#     . "$top_srcdir/test-suite/cache/helpers.sh"
#     cuttle_setup
#     origin_start
#     cache_start "cache_mem 1 MB"          # (re)starts the proxy with these lines
#     script hit1 "cc=max-age=60&s=1000"    # the origin's replies to /s/hit1
#     get hit1                              # through the proxy: $CODE, $T/head, $T/body
#     expect "first" "$(log_code hit1 1)" TCP_MISS/200
#     expect "origin" "$(seen_count hit1)" 1
#     cache_stop
#     checks_done
#
# Each test scripts the origin's replies (PUT /_script/ID) and checks both
# what the client got and what the origin saw (GET /_seen/ID), and the
# access.log code of each transaction (Squid 5.7's meanings).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same tests against Squid 5.7
# instead of cuttle (as root, it drops to its effective user): the way to
# check that what a test expects is what Squid does. Squid cannot listen on
# port 0, so it gets a port that was just free.

. "$top_srcdir/test-suite/forwarding/helpers.sh"

: "${CACHE_TEST_SQUID:=}"
# the host name in X-Cache ("HIT from cache-test.example")
CACHE_HOST=cache-test.example
SQUID_NAME="cq$$"

cache_cleanup() {
    fwd_cleanup
    if [ -n "$CACHE_TEST_SQUID" ]; then
        rm -f /dev/shm/"$SQUID_NAME"-* 2>/dev/null
    fi
}

# cache_start LINE... : (re)starts the proxy with "debug_options ALL,1 20,3"
# (store decisions in cache.log), visible_hostname $CACHE_HOST, the given
# lines, then "http_access allow localhost" and "http_access deny all"
cache_start() {
    cache_stop
    set -- "debug_options ALL,1 20,3" "visible_hostname $CACHE_HOST" "$@" \
        "http_access allow localhost" "http_access deny all"
    if [ -z "$CACHE_TEST_SQUID" ]; then
        fwd_conf "$@"
        cuttle_start
        return
    fi
    chmod 777 "$T"
    PORT=$(closed_port)
    cuttle_conf "$@"
    # (CUTTLE_TEST_WORKERS is cuttle's: Squid runs one process under -N)
    sed -i -e "s/^http_port .*/http_port 127.0.0.1:$PORT/" -e '/^workers /d' "$T/squid.conf"
    {
        echo "cache_store_log none"
        echo "coredump_dir $T"
        echo "pinger_enable off"
        echo "icp_port 0"
        echo "htcp_port 0"
        echo "dns_nameservers 127.0.0.1"
        echo "hosts_file none"
    } >> "$T/squid.conf"
    trap cache_cleanup EXIT
    ACCEPTING_BEFORE=$(accepting_lines)
    "$CACHE_TEST_SQUID" -N -f "$T/squid.conf" -n "$SQUID_NAME" > "$T/stdout" 2> "$T/stderr" &
    CUTTLE_PID=$!
    wait_until 30 has_new_port 1 || fail "squid did not start: $(cat "$T/stderr")"
}

# cache_stop : stops the proxy (lib.sh's cuttle_stop: a clean exit is required)
cache_stop() {
    [ -n "$CUTTLE_PID" ] || return 0
    if [ -n "$CACHE_TEST_SQUID" ]; then
        kill -TERM "$CUTTLE_PID" 2>/dev/null
        wait_until 15 is_stopped "$CUTTLE_PID" || kill -KILL "$CUTTLE_PID" 2>/dev/null
        wait "$CUTTLE_PID" 2>/dev/null
        CUTTLE_PID=""
        rm -f /dev/shm/"$SQUID_NAME"-* 2>/dev/null
        return 0
    fi
    cuttle_stop
}

# counter NAME : a value from the manager's mem page (empty if none)
counter() {
    curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$PORT/squid-internal-mgr/mem" |
        tr -d '\r' | awk -F': *' -v n="$1" '$1 == n {print $2; exit}'
}

# url ID : the URL of the scripted resource ID
url() { echo "http://127.0.0.1:$OPORT/s/$1"; }

# script ID LINE... : the origin answers the requests for /s/ID with these
# replies (one line each, in the origin's query syntax; the last repeats);
# this also clears what the origin saw of ID
script() {
    local id=$1 code
    shift
    code=$(printf '%s\n' "$@" | curl -s -o "$T/script.out" -w '%{http_code}' --max-time "$(scaled 5)" \
        -X PUT --data-binary @- "http://127.0.0.1:$OPORT/_script/$id")
    [ "$code" = 201 ] || fail "PUT /_script/$id: $code $(cat "$T/script.out")"
}

# get ID [CURL ARGS] : one request for /s/ID through the proxy; sets CODE, the
# head (CR removed) in $T/head, the body in $T/body
get() {
    local id=$1
    shift
    fetch_url "$(url "$id")" "$@"
}

# fetch_url URL [CURL ARGS] : get, for any URL
fetch_url() {
    local u=$1
    shift
    rm -f "$T/head" "$T/body"
    CODE=$(curl -s -D "$T/head.raw" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" \
        -x "127.0.0.1:$PORT" "$@" "$u")
    tr -d '\r' < "$T/head.raw" > "$T/head" 2>/dev/null
}

# header NAME : the value of the first NAME field of the last reply (empty if none)
header() { grep -i "^$1:" "$T/head" | head -n 1 | sed 's/^[^:]*: *//'; }
# has_header NAME : whether the last reply had a NAME field
has_header() { grep -qi "^$1:" "$T/head"; }

# body_size : the number of body bytes the last reply had
body_size() { if [ -f "$T/body" ]; then wc -c < "$T/body" | tr -d ' '; else echo 0; fi; }
# body_sha : the sha256 of the last reply's body
body_sha() { cat "$T/body" 2>/dev/null | sha256sum | cut -d' ' -f1; }
# pattern_sha SIZE : the sha256 of the origin's pattern body of SIZE (s=SIZE)
pattern_sha() { "$ORIGIN" --print-body "$1" | sha256sum | cut -d' ' -f1; }

# seen ID : every request head the origin received for /s/ID, CR removed, in $T/seen
seen() {
    curl -s --max-time "$(scaled 5)" "http://127.0.0.1:$OPORT/_seen/$1" | tr -d '\r' > "$T/seen"
}
# seen_count ID : how many requests for /s/ID reached the origin
seen_count() {
    seen "$1"
    grep -Ec "^[A-Z]+ [^ ]*/s/$1(\?[^ ]*)? HTTP/" "$T/seen"
}
# seen_reaches ID N : whether the origin has received N requests for /s/ID;
# a test waits for it (wait_until) before its other clients start, so that
# the first client's request is the one in flight however loaded the machine
seen_reaches() { [ "$(seen_count "$1")" -ge "$2" ]; }
# seen_field ID N NAME : the value of NAME in the Nth request the origin got
# for /s/ID (empty when it had none)
seen_field() {
    seen "$1"
    awk -v n="$2" -v name="$3" '
        /^[A-Z]+ [^ ]+ HTTP\// { i++; next }
        i == n {
            p = index($0, ":")
            if (p && tolower(substr($0, 1, p - 1)) == tolower(name)) {
                v = substr($0, p + 1); sub(/^[ \t]+/, "", v); print v; exit
            }
        }' "$T/seen"
}
# seen_method ID N : the method of the Nth request the origin got for /s/ID
seen_method() {
    seen "$1"
    grep -E "^[A-Z]+ [^ ]*/s/$1(\?[^ ]*)? HTTP/" "$T/seen" | sed -n "${2}p" | cut -d' ' -f1
}

# log_lines URL : access.log lines of URL (exactly, query stripped or not)
log_lines() {
    awk -v u="$1" '$7 == u || $7 == u "?"' "$T/access.log" 2>/dev/null
}
# log_count ID : how many access.log lines /s/ID has
log_count() { log_lines "$(url "$1")" | wc -l | tr -d ' '; }
has_log_lines() { [ "$(log_count "$1")" -ge "$2" ]; }
# log_code ID N : the code (%Ss/%03>Hs) of the Nth access.log line of /s/ID,
# after waiting (bounded) for it to be written
log_code() {
    wait_until 5 has_log_lines "$1" "$2" || { echo "(no line $2)"; return; }
    log_lines "$(url "$1")" | sed -n "${2}p" | awk '{print $4}'
}
# log_codes ID : every code of /s/ID, in order, space-separated (waits for N lines first)
log_codes() {
    wait_until 5 has_log_lines "$1" "$2" || true
    log_lines "$(url "$1")" | awk '{print $4}' | tr '\n' ' ' | sed 's/ $//'
}

# expect WHAT GOT WANTED : records a failure (bad) unless GOT is WANTED
expect() {
    [ "$2" = "$3" ] || bad "$1: expected '$3', got '$2'"
}
# expect_match WHAT GOT REGEX : records a failure unless GOT matches REGEX (ERE)
expect_match() {
    printf '%s\n' "$2" | grep -Eq "$3" || bad "$1: expected /$3/, got '$2'"
}

# expect_hit WHAT ID N [SHA] : the last reply was a 200 hit served from the
# cache (X-Cache: HIT, an Age field, the Nth log line TCP_MEM_HIT/200) with
# the body of sha256 SHA
expect_hit() {
    expect "$1: status" "$CODE" 200
    expect "$1: X-Cache" "$(header X-Cache)" "HIT from $CACHE_HOST"
    has_header Age || bad "$1: no Age field in a hit"
    expect "$1: access.log" "$(log_code "$2" "$3")" TCP_MEM_HIT/200
    [ -z "${4:-}" ] || expect "$1: body sha256" "$(body_sha)" "$4"
}
# expect_miss WHAT ID N CODE [SHA] : the last reply came from the origin
# (X-Cache: MISS, the Nth log line CODE) with the body of sha256 SHA
expect_miss() {
    expect "$1: X-Cache" "$(header X-Cache)" "MISS from $CACHE_HOST"
    expect "$1: access.log" "$(log_code "$2" "$3")" "$4"
    [ -z "${5:-}" ] || expect "$1: body sha256" "$(body_sha)" "$5"
}

# expect_stored_stale ID WHAT REPLY : a reply REPLY (a script line; an ETag
# and a 100-byte body are added) is stored stale: the second request for ID
# is a validation with its ETag, which the origin answers 304, and the client
# gets the stored body (TCP_REFRESH_UNMODIFIED/200)
expect_stored_stale() {
    script "$1" "$3&etag=%22v%22&s=100" "status=304&etag=%22v%22"
    get "$1"
    expect_miss "$2, first" "$1" 1 TCP_MISS/200 "$(pattern_sha 100)"
    get "$1"
    expect "$2, second: status" "$CODE" 200
    expect "$2, second: body" "$(body_sha)" "$(pattern_sha 100)"
    expect "$2, second: access.log" "$(log_code "$1" 2)" TCP_REFRESH_UNMODIFIED/200
    expect "$2, second: the revalidation's If-None-Match" "$(seen_field "$1" 2 If-None-Match)" '"v"'
    expect "$2: origin requests" "$(seen_count "$1")" 2
}
# expect_stored_fresh ID WHAT REPLY [NOHIT] : a reply REPLY (a script line; a
# 100-byte body is added) is stored fresh: the second request for ID is a hit
# and the origin (which would answer 500) sees one request; with NOHIT, only
# the first request is checked (for a proxy known to differ)
expect_stored_fresh() {
    script "$1" "$3&s=100" "status=500"
    get "$1"
    expect_miss "$2, first" "$1" 1 TCP_MISS/200 "$(pattern_sha 100)"
    get "$1"
    [ -z "${4:-}" ] || return 0
    expect_hit "$2, second" "$1" 2 "$(pattern_sha 100)"
    expect "$2: origin requests" "$(seen_count "$1")" 1
}

# expect_hit_unless_squid WHAT ID N SQUID_CODE : the last reply, the Nth
# request for ID, was a hit with the 100-byte pattern body, and the origin saw
# N-1 requests; against Squid 5.7 (CACHE_TEST_SQUID), where cuttle differs,
# the Nth access.log code is SQUID_CODE instead
expect_hit_unless_squid() {
    if [ -z "$CACHE_TEST_SQUID" ]; then
        expect_hit "$1" "$2" "$3" "$(pattern_sha 100)"
        expect "$1: origin requests" "$(seen_count "$2")" $(($3 - 1))
    else
        expect "$1 (Squid 5.7): access.log" "$(log_code "$2" "$3")" "$4"
    fi
}

# cache_log_says REGEX : the store decisions cache.log has (debug section 20)
cache_log_about() { grep -E "$1" "$T/cache.log" 2>/dev/null | tail -n 5; }

# reset_after URL SECONDS : a client that asks the proxy for URL and resets
# the connection (SO_LINGER 0) SECONDS later, before the reply
reset_after() {
    python3 - "$PORT" "$1" "$2" <<'EOF'
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % sys.argv[2]).encode())
time.sleep(float(sys.argv[3]))
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()
EOF
}
