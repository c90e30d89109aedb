# Helpers shared by the access control system tests (test-suite/access/*.sh).
# Source it after lib.sh; it sources test-suite/cache/helpers.sh, whose
# cache_start runs Squid 5.7 instead of cuttle under CACHE_TEST_SQUID.

. "$top_srcdir/test-suite/cache/helpers.sh"

# expect_code WHAT EXPECTED URL [CURL ARGS] : fetches URL through the proxy
# and records a failure (forwarding/helpers.sh's bad) unless the status is EXPECTED
expect_code() {
    local what=$1 expected=$2 url=$3
    shift 3
    code=$(proxy_get "$url" "$@")
    [ "$code" = "$expected" ] || bad "$what: expected $expected, got $code for $url"
}

# Debian's basic_ncsa_auth, the basic authentication helper the tests use
NCSA=/usr/lib/squid/basic_ncsa_auth

# passwd_file FILE USER:PASSWORD... : writes an htpasswd file (MD5-crypt
# passwords) for basic_ncsa_auth, readable by the proxy's user
passwd_file() {
    local file=$1 entry
    shift
    : > "$file"
    for entry in "$@"; do
        echo "${entry%%:*}:$(openssl passwd -1 "${entry#*:}")" >> "$file"
    done
    chmod 644 "$file"
}
