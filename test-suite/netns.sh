# Runs the calling test in a network namespace of its own (unshare -n), for
# the tests that NAT with iptables (forwarding/intercept.sh,
# tls/intercept-bump.sh). Source it first, before lib.sh:
#
#     . "$top_srcdir/test-suite/netns.sh"
#     netns_enter "$0" "$@"            # skips (77) when a namespace or iptables' nat table is not there
#     ...                              # after lib.sh:
#     netns_addresses 10.77.0.1 ...    # lo up, with these IPv4 addresses
#     netns_v6_addresses fd77::1 ...   # and these IPv6 ones: HAVE_V6=yes when
#                                      # they and ip6tables' nat table work
#     netns_redirect DPORT TOPORT      # the client's (10.77.0.9, fd77::9)
#                                      # connections to DPORT go to TOPORT
#
# Needs root (or user namespaces), unshare, ip and iptables
# (bootstrap.sh --install-test-deps installs them).

# netns_enter SCRIPT [ARGS] : runs SCRIPT again inside a new network namespace
# (returns at once when already inside)
netns_enter() {
    [ -n "${CUTTLE_IN_NETNS:-}" ] && return 0
    command -v unshare > /dev/null 2>&1 || { echo "SKIP: no unshare"; exit 77; }
    command -v ip > /dev/null 2>&1 || { echo "SKIP: no ip (iproute2)"; exit 77; }
    command -v iptables > /dev/null 2>&1 || { echo "SKIP: no iptables"; exit 77; }
    unshare -n true 2> /dev/null || { echo "SKIP: cannot make a network namespace (unshare -n)"; exit 77; }
    unshare -n iptables -t nat -L OUTPUT > /dev/null 2>&1 ||
        { echo "SKIP: iptables cannot use the nat table in a network namespace here"; exit 77; }
    CUTTLE_IN_NETNS=1 exec unshare -n "$@"
}

# netns_addresses ADDRESS... : the namespace's lo, up, with these IPv4 addresses
netns_addresses() {
    ip link set lo up || fail "ip link set lo up"
    for a in "$@"; do
        ip addr add "$a/32" dev lo || fail "ip addr add $a"
    done
}

# netns_v6_addresses ADDRESS... : these IPv6 addresses on lo; HAVE_V6=yes
# when they could be added and ip6tables can NAT here, else no
netns_v6_addresses() {
    HAVE_V6=yes
    for a in "$@"; do
        ip -6 addr add "$a/128" dev lo nodad 2> /dev/null || HAVE_V6=no
    done
    if [ $HAVE_V6 = yes ] && ! { command -v ip6tables > /dev/null 2>&1 && ip6tables -t nat -L OUTPUT > /dev/null 2>&1; }; then
        HAVE_V6=no
    fi
}

# netns_redirect DPORT TOPORT : the client's TCP connections to port DPORT
# (from 10.77.0.9, and from fd77::9 with HAVE_V6=yes) are REDIRECTed to
# TOPORT, replacing any earlier rule
netns_redirect() {
    iptables -t nat -F OUTPUT
    iptables -t nat -A OUTPUT -s 10.77.0.9 -p tcp --dport "$1" -j REDIRECT --to-ports "$2" ||
        fail "iptables REDIRECT"
    if [ "${HAVE_V6:-no}" = yes ]; then
        ip6tables -t nat -F OUTPUT
        ip6tables -t nat -A OUTPUT -s fd77::9 -p tcp --dport "$1" -j REDIRECT --to-ports "$2" ||
            fail "ip6tables REDIRECT"
    fi
}
