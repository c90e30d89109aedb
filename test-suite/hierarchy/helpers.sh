# Helpers shared by the cache hierarchy tests (test-suite/hierarchy/*.sh):
# more proxies beside the cuttle under test (lib.sh's $T, $PORT), each in its
# own folder of $T with its own squid.conf, logs and port. Source it after
# lib.sh and forwarding/helpers.sh.
#
#     peer_start p1 "cache_peer ..."   # another cuttle: $PEER_PORT, logs in $T/p1
#     squid_start s1 "cache_peer ..."  # Debian's Squid 5.7: $PEER_PORT, logs in $T/s1
#
# Each allows localhost and denies the rest after the given lines. Every
# process started here is killed on exit.

: "${SQUID:=/usr/sbin/squid}"
SQUID_NAMES=""

hier_cleanup() {
    fwd_cleanup
    for n in $SQUID_NAMES; do
        rm -f /dev/shm/"$n"-* 2>/dev/null
    done
}

# peer_dir NAME : makes $T/NAME, writable by the user a proxy started as root serves as
peer_dir() {
    mkdir -p "$T/$1"
    chmod 777 "$T/$1"
}

# peer_conf NAME LINE... : $T/NAME/squid.conf on 127.0.0.1:${PEER_LISTEN:-0}
peer_conf() {
    local name=$1
    shift
    {
        echo "http_port 127.0.0.1:${PEER_LISTEN:-0}"
        echo "access_log stdio:$T/$name/access.log"
        echo "cache_log $T/$name/cache.log"
        echo "pid_filename $T/$name/proxy.pid"
        echo "shutdown_lifetime 1 second"
        # proxies of one host share its name: each names itself apart in
        # Via, or a request through two of them looks like a forwarding loop
        echo "unique_hostname $name.peer.test"
        for line in "$@"; do
            echo "$line"
        done
        echo "http_access allow localhost"
        echo "http_access deny all"
    } > "$T/$name/squid.conf"
}

# peer_start NAME LINE... : another cuttle with these lines; sets PEER_PORT and PEER_PID
peer_start() {
    local name=$1
    peer_dir "$name"
    peer_conf "$@"
    {
        echo "error_directory $CUTTLE_ERRORS"
        cuttle_workers_line
    } >> "$T/$name/squid.conf"
    "$CUTTLE" -N -f "$T/$name/squid.conf" > "$T/$name/stdout" 2> "$T/$name/stderr" &
    PEER_PID=$!
    FWD_PIDS="$FWD_PIDS $PEER_PID"
    trap hier_cleanup EXIT
    wait_until 10 grep -qs 'Accepting HTTP Socket connections at' "$T/$name/cache.log" ||
        fail "cuttle $name did not start: $(cat "$T/$name/stderr")"
    PEER_PORT=$(grep -o 'Accepting HTTP Socket connections at [^ ]* local=[^ ]*' "$T/$name/cache.log" |
        tail -n 1 | sed -e 's/.*local=//' -e 's/.*://')
}

# squid_start NAME LINE... : Squid 5.7 on a free port (or $SQUID_PORT) with
# these lines (ICP on $SQUID_ICP if set); sets PEER_PORT and PEER_PID
squid_start() {
    local name=$1
    [ -x "$SQUID" ] || { echo "no squid at $SQUID"; exit 77; }
    peer_dir "$name"
    PEER_PORT=${SQUID_PORT:-$(closed_port)}
    PEER_LISTEN=$PEER_PORT peer_conf "$@"
    {
        echo "cache_store_log none"
        echo "coredump_dir $T/$name"
        echo "pinger_enable off"
        echo "icp_port ${SQUID_ICP:-0}"
        echo "htcp_port 0"
        echo "dns_nameservers 127.0.0.1"
        echo "hosts_file none"
    } >> "$T/$name/squid.conf"
    SQUID_NAMES="$SQUID_NAMES $name$$"
    "$SQUID" -N -f "$T/$name/squid.conf" -n "$name$$" > "$T/$name/stdout" 2> "$T/$name/stderr" &
    PEER_PID=$!
    FWD_PIDS="$FWD_PIDS $PEER_PID"
    trap hier_cleanup EXIT
    wait_until 30 grep -qs 'Accepting HTTP Socket connections at' "$T/$name/cache.log" ||
        fail "squid $name did not start: $(cat "$T/$name/stderr" "$T/$name/cache.log" 2>/dev/null | tail -n 20)"
}

# udp_port : prints a loopback UDP port that was just bound and closed
udp_port() {
    python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# peer_log_has FILE REGEX : whether $T/FILE (NAME/access.log...) has a matching line
peer_log_has() { grep -Eq "$2" "$T/$1" 2>/dev/null; }
