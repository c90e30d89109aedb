#!/bin/sh
# cuttle: prepare a checkout for ./configure.
#
#   ./bootstrap.sh                      generate configure and the Makefile templates
#   ./bootstrap.sh --install-deps       first install the Debian packages needed to build and run
#   ./bootstrap.sh --install-test-deps  the same, plus what the tests use (curl, python3,
#                                       clang-format, Debian's squid for the squid.conf tests,
#                                       iproute2 and iptables for the interception test,
#                                       openssl for the authentication test's password file
#                                       and the TLS tests' certificates,
#                                       squidguard as a real URL rewriter,
#                                       clang-14 and its libFuzzer for the fuzzers of src/fuzz)
#
# Packages are installed with apt-get, through sudo when not run as root. Debian's
# squid is installed with its service kept from starting, so port 3128 stays free.
set -e
cd "$(dirname "$0")"

BUILD_PACKAGES="g++ make autoconf automake pkg-config libssl-dev libcap-dev libcppunit-dev libc-ares-dev libtcmalloc-minimal4"
TEST_PACKAGES="curl python3 clang-format strace procps squid squidclient python3-prometheus-client squidguard clang-14 libclang-rt-14-dev iproute2 iptables openssl squid-langpack calamaris sarg logrotate"

install_packages() {
    missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    echo "bootstrap: installing:$missing"
    $sudo apt-get update -qq
    # A packaged daemon (squid) must not start: its service would take port 3128.
    made_policy=no
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
        $sudo chmod 755 /usr/sbin/policy-rc.d
        made_policy=yes
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
    [ "$made_policy" = yes ] && $sudo rm -f /usr/sbin/policy-rc.d
    return 0
}

case "${1:-}" in
    --install-deps) install_packages $BUILD_PACKAGES ;;
    --install-test-deps) install_packages $BUILD_PACKAGES $TEST_PACKAGES ;;
    "") ;;
    *) echo "usage: $0 [--install-deps | --install-test-deps]" >&2; exit 2 ;;
esac

autoreconf --force --install
