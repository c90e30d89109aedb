# Helpers shared by the forwarding system tests (test-suite/forwarding/*.sh).
# Source it after lib.sh:
#
#     . "$top_srcdir/test-suite/lib.sh"
#     . "$top_srcdir/test-suite/forwarding/helpers.sh"
#     cuttle_setup
#     origin_start                      # the test origin: $OPORT, $ORIGIN_PID
#     dns_start NAME=IP ... [--silent NAME]   # the fake DNS server: $DNSPORT
#     fwd_conf "http_access allow localhost"  # cuttle_conf + DNS lines
#     cuttle_start
#
# Every helper process started here is killed on exit (lib.sh's cleanup is
# wrapped, so the temp dir is still removed and cuttle still killed).

: "${FAKEDNS:=$top_srcdir/test-suite/fakedns.py}"
ORIGIN="$top_builddir/test-suite/origin/cuttle-origin"

FWD_PIDS=""
OPORT=""
ORIGIN_PID=""
DNSPORT=""

fwd_cleanup() {
    for p in $FWD_PIDS; do
        kill -KILL "$p" 2>/dev/null
    done
    cuttle_cleanup
}

# bg_start NAME COMMAND... : starts COMMAND in the background with its output
# in $T/NAME.out, waits for its "listening on 127.0.0.1:PORT" line (or one
# matching $BG_READY, ending in :PORT) and sets BG_PORT and BG_PID; the
# process is killed on exit
bg_start() {
    local name=$1 ready=${BG_READY:-^listening on }
    shift
    "$@" > "$T/$name.out" 2> "$T/$name.err" &
    BG_PID=$!
    FWD_PIDS="$FWD_PIDS $BG_PID"
    trap fwd_cleanup EXIT
    wait_until 10 grep -qs "$ready" "$T/$name.out" ||
        fail "$name did not start: $(cat "$T/$name.err")"
    BG_PORT=$(grep "$ready" "$T/$name.out" | head -n 1 | sed -n 's/.*:\([0-9]*\)$/\1/p')
    [ -n "$BG_PORT" ] || fail "$name: no port in $(cat "$T/$name.out")"
}

# origin_start [ARGS] : the test origin on 127.0.0.1:0; sets OPORT, ORIGIN_PID
origin_start() {
    [ -x "$ORIGIN" ] || { echo "no test origin at $ORIGIN"; exit 99; }
    bg_start origin "$ORIGIN" --listen 127.0.0.1:0 "$@"
    OPORT=$BG_PORT
    ORIGIN_PID=$BG_PID
}

# dns_start [--record NAME=IP | NAME=IP | --silent NAME]... : the fake DNS
# server; any other name gets NXDOMAIN. Sets DNSPORT.
dns_start() {
    [ -f "$FAKEDNS" ] || { echo "no fake DNS server at $FAKEDNS"; exit 99; }
    local args=""
    for a in "$@"; do
        case $a in
        --*) args="$args $a" ;;
        *=*) args="$args --record $a" ;;
        *) args="$args $a" ;;
        esac
    done
    # shellcheck disable=SC2086 # names and addresses have no spaces
    bg_start fakedns python3 "$FAKEDNS" --listen 127.0.0.1:0 $args
    DNSPORT=$BG_PORT
}

# fwd_conf LINE... : cuttle_conf with the fake DNS server (dns_start first)
# and no hosts file: cuttle never asks the machine's resolver
fwd_conf() {
    [ -n "$DNSPORT" ] || dns_start
    cuttle_conf "dns_nameservers 127.0.0.1:$DNSPORT" "hosts_file none" "$@"
}

# closed_port : prints a loopback TCP port that was just bound and closed
closed_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# fd_count PID : the number of open descriptors of PID
fd_count() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# fds_back_to N : whether cuttle holds at most N descriptors
fds_back_to() { [ "$(fd_count "$CUTTLE_PID")" -le "$1" ]; }

# log_line REGEX : the last access.log line matching REGEX (empty if none)
log_line() { grep -E "$1" "$T/access.log" 2>/dev/null | tail -n 1; }

# check_native_line LINE : fails unless LINE is in Squid's native format
# %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt
NATIVE_RE='^[0-9]{9,}\.[0-9]{3} +[0-9]+ [0-9a-fA-F.:]+ [A-Z_]+/[0-9]{3} [0-9]+ [^ ]+ [^ ]+ [^ ]+ [A-Z_]+/[^ ]+ [^ ]+$'
check_native_line() {
    echo "$1" | grep -Eq "$NATIVE_RE" || fail "not Squid's native format: '$1'"
}

# curl_proxy ARGS... : curl through cuttle, bounded, status code on stdout
curl_proxy() {
    curl -s --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" -w '%{http_code}' "$@"
}

# rawserver_start MODE : test-suite/forwarding/rawserver.py MODE; sets RAWPORT
rawserver_start() {
    bg_start "raw-$1" python3 "$top_srcdir/test-suite/forwarding/rawserver.py" "$1"
    RAWPORT=$BG_PORT
}

# Failures that let the test go on to its other rows: bad WHAT records one,
# checks_done fails the test at the end if any was recorded.
BAD=""
bad() {
    echo "FAIL: $*"
    BAD="$BAD
  $*"
}
# mark, then pass_if_ok WHAT: passes WHAT unless bad was called in between
MARK=""
mark() { MARK=$BAD; }
pass_if_ok() { [ "$BAD" != "$MARK" ] || pass "$*"; }
checks_done() {
    [ -z "$BAD" ] || fail "these checks failed:$BAD"
}

# error_page_is FILE ERR_NAME : whether FILE (an error page body) is cuttle's
# page ERR_NAME: its <body id> names it and its title is the template's
error_page_is() {
    local title
    grep -Eq "<body id=\"?$2\"?>" "$1" || return 1
    title=$(grep -o '<title>[^<]*</title>' "$top_srcdir/errors/templates/$2")
    grep -qF "$title" "$1"
}
