#!/bin/sh
# ssl_bump with a slow acl (an external_acl_type helper): cuttle waits for
# the helper's answer at the step that needs it rather than skip the rule,
# as Squid 5 does. The host the helper answers OK for is spliced (the
# client is shown the origin's own certificate), another is bumped (a
# certificate from the bump CA); at step 1, and at step 2 after a peek. The
# helper's answers are cached (ttl), so each host is asked once.
# With workers (CUTTLE_TEST_WORKERS=N) each worker runs its own helper and
# caches its answers: the helper logs its worker's number beside each host
# (its argument, ${process_number}); no worker asks for a host twice, and
# "again" is asked N times more, so that one at least reaches a worker that
# asked already (N+1 CONNECTs, N workers) and is answered from its cache.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/forwarding/helpers.sh"
. "$top_srcdir/test-suite/tls/helpers.sh"

cuttle_setup
tls_certs
tls_bump_ca
tls_origin valid
cat > "$T/nobump.sh" << SH
#!/bin/sh
while read -r host rest; do
    echo "\$host\${1:+ \$1}" >> "$T/nobump.log"
    case \$host in
    splice.test | splice2.test) echo OK ;;
    *) echo ERR ;;
    esac
done
SH
chmod 755 "$T/nobump.sh"
chmod 777 "$T"
HELPER_ARG=""
[ "$CUTTLE_TEST_WORKERS" = 1 ] || HELPER_ARG=' ${process_number}'
tls_conf "tls_outgoing_options cafile=$T/tls/ca.pem" \
    "http_port 127.0.0.1:0 ssl-bump tls-cert=$T/tls/bump.pem tls-key=$T/tls/bump.key name=first" \
    "http_port 127.0.0.1:0 ssl-bump tls-cert=$T/tls/bump.pem tls-key=$T/tls/bump.key name=second" \
    "external_acl_type nobump ttl=60 %DST $T/nobump.sh$HELPER_ARG" "acl nobump external nobump" \
    "acl first myportname first" "acl step1 at_step SslBump1" \
    "ssl_bump splice first nobump" "ssl_bump bump first" \
    "ssl_bump peek step1" "ssl_bump splice nobump" "ssl_bump bump all" "debug_options ALL,1 33,3"
echo "127.0.0.1 splice.test bump.test splice2.test bump2.test" >> "$T/hosts"
cuttle_start
PORTS=$(grep -o 'Accepting SSL bumped HTTP Socket connections at [^ ]* local=[^ ]*' "$T/cache.log" | sed 's/.*://')
FIRST=$(echo "$PORTS" | sed -n 1p)
SECOND=$(echo "$PORTS" | sed -n 2p)
[ -n "$FIRST" ] && [ -n "$SECOND" ] || fail "no ssl-bump ports in cache.log"

# issuer PORT HOST : the issuer of the certificate a CONNECT to HOST through PORT is shown
issuer() {
    tls_shown_cert "$1" "$2:$TPORT" > "$T/shown.pem" || fail "no certificate for $2 through $1"
    openssl x509 -in "$T/shown.pem" -noout -issuer -nameopt utf8,sep_comma_plus
}
expect "step 1: the helper's OK host is spliced" "$(issuer "$FIRST" splice.test)" "issuer=CN=cuttle test CA"
expect "step 1: its ERR host is bumped" "$(issuer "$FIRST" bump.test)" "issuer=CN=cuttle test bump CA"
expect "step 2: the helper's OK host is spliced" "$(issuer "$SECOND" splice2.test)" "issuer=CN=cuttle test CA"
expect "step 2: its ERR host is bumped" "$(issuer "$SECOND" bump2.test)" "issuer=CN=cuttle test bump CA"
expect "again, from the helper's cache" "$(issuer "$SECOND" splice2.test)" "issuer=CN=cuttle test CA"
if [ "$CUTTLE_TEST_WORKERS" = 1 ]; then
    expect "the helper's questions" "$(sort "$T/nobump.log" | tr '\n' ' ')" "bump.test bump2.test splice.test splice2.test "
else
    for _ in $(seq $((CUTTLE_TEST_WORKERS - 1))); do
        expect "again, from a worker's helper or its cache" "$(issuer "$SECOND" splice2.test)" "issuer=CN=cuttle test CA"
    done
    expect "the hosts the helpers were asked" "$(cut -d ' ' -f 1 "$T/nobump.log" | sort -u | tr '\n' ' ')" \
        "bump.test bump2.test splice.test splice2.test "
    expect "a host asked twice by one worker's helper" "$(sort "$T/nobump.log" | uniq -d)" ""
    [ "$(grep -c '^splice2\.test ' "$T/nobump.log")" -le "$CUTTLE_TEST_WORKERS" ] ||
        fail "splice2.test asked $(grep -c '^splice2\.test ' "$T/nobump.log") times for $((CUTTLE_TEST_WORKERS + 1)) CONNECTs"
fi
for step in 1 2; do
    grep -q "ssl_bump at step $step: waiting for a lookup" "$T/cache.log" || fail "step $step did not wait for the helper"
done
pass "ssl_bump waits for an external acl's answer at steps 1 and 2"
cuttle_stop
