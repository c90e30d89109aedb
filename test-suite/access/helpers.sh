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

# With workers (CUTTLE_TEST_WORKERS), what a worker keeps of its own (helper
# answers, connection counts) is checked per worker: cache_start
# "$WORKER_TAG" ... makes every reply name the worker that answered
# (X-Worker: its ${process_number}), and ask_worker tells it.
WORKER_TAG='reply_header_add X-Worker ${process_number}'

# ask_worker URL [CURL ARGS] : fetches URL through the proxy; $CODE the
# status, $WORKER the worker that answered (fails without X-Worker)
ask_worker() {
    CODE=$(proxy_get "$@" -D "$T/worker.head")
    WORKER=$(tr -d '\r' < "$T/worker.head" | sed -n 's/^X-Worker: //p' | tail -n 1)
    [ -n "$WORKER" ] || fail "no X-Worker in the reply to $1: $(cat "$T/worker.head")"
}

# in_every_worker WHAT EXPECTED URL [CURL ARGS] : fetches URL until every
# worker answered it (at most 64 times), each time with status EXPECTED
in_every_worker() {
    local what=$1 expected=$2 seen="" n=0
    shift 2
    while [ $n -lt 64 ]; do
        n=$((n + 1))
        ask_worker "$@"
        [ "$CODE" = "$expected" ] || bad "$what: worker $WORKER answered $CODE, expected $expected"
        case " $seen " in *" $WORKER "*) ;; *) seen="$seen $WORKER" ;; esac
        [ "$(echo $seen | wc -w)" -lt "$CUTTLE_TEST_WORKERS" ] || return 0
    done
    fail "$what: 64 requests reached the workers$seen only"
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
