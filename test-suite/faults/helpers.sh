# Helpers shared by the fault tests (test-suite/faults/*.sh): the data-path
# helpers of test-suite/proxy/origin.sh (the test origin, baseline_take and
# baseline_check, proxy_py) and the fake DNS and background servers of
# test-suite/forwarding/helpers.sh, with one cleanup that stops them all.
# Source it after lib.sh:
#
#     . "$top_srcdir/test-suite/lib.sh"
#     . "$top_srcdir/test-suite/faults/helpers.sh"
#     cuttle_setup
#     origin_start                      # the test origin: $OPORT, $OURL
#     dns_start NAME=IP [--silent NAME] [--servfail NAME]
#     faults_conf "read_timeout 1 second"
#     cuttle_start
#     baseline_take ... baseline_check "what"

. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/proxy/origin.sh"

# one cleanup for both helper sets: bg_start installs fwd_cleanup, origin_start
# proxy_cleanup, and proxy_cleanup stops $FWD_PIDS too (and sees the test's
# exit status, to keep $T on a failure)
fwd_cleanup() { proxy_cleanup; }

# faults_conf LINE... : proxy_conf (localhost and its manager pages allowed)
# with the fake DNS server and no hosts file
faults_conf() {
    [ -n "$DNSPORT" ] || dns_start
    proxy_conf "dns_nameservers 127.0.0.1:$DNSPORT" "hosts_file none" "$@"
}

# liar_start : forwarding/rawserver.py liar, an origin whose replies break
# their own Content-Length; sets LIARPORT
liar_start() {
    rawserver_start liar
    LIARPORT=$RAWPORT
}

# faults_baseline URL : fetches URL through cuttle (200 expected: the first
# origin connection is pooled), then baseline_take
faults_baseline() {
    code=$(proxy_get "$1")
    [ "$code" = 200 ] || fail "first request $1: status $code"
    baseline_take
    echo "baseline: $BASE_FDS descriptors, $BASE_BLOCKS blocks in use"
}

# faults_finish URL : cuttle still serves URL (the origin's s=100k), stops
# cleanly, and the test ends with the checks that failed, if any
faults_finish() {
    code=$(proxy_get "$1")
    [ "$code" = 200 ] && "$ORIGIN" --print-body 100k | cmp -s - "$T/body" ||
        bad "after the faults: status $code, $(wc -c < "$T/body") bytes"
    cuttle_stop
    checks_done
}
