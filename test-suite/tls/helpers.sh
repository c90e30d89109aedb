# Helpers shared by the TLS system tests (test-suite/tls/*.sh). Source it
# after lib.sh and forwarding/helpers.sh:
#
#     tls_certs                          # $T/tls: ca.pem and, each with its .key,
#                                        # valid.pem, expired.pem, wrongname.pem, self.pem,
#                                        # proxy.pem (proxy.test and 127.0.0.1)
#     tls_bump_ca                        # $T/tls/bump.pem and .key: an ssl-bump CA
#     tls_bump_setup                     # cuttle_setup, both of the above and splice.pem
#     tls_shown_cert PORT HOST:PORT      # the certificate a CONNECT there is shown
#     tls_origin valid [ARGS]            # an HTTPS origin serving valid.pem: $TPORT
#     tls_conf "LINE" ...                # cuttle's squid.conf: origin.test is 127.0.0.1
#     tls_get PATH [CURL ARGS]           # GET https://origin.test:$TPORT/PATH through
#                                        # cuttle (absolute-form, from a plain client):
#                                        # prints the status; $T/head, $T/body
#
# The certificates are made at run time with openssl: a throw-away CA, and
# for origin.test a certificate it signs (valid), one that expired in 2020,
# one for other.test (wrongname), and a self-signed one.

TLS_ORIGIN="$top_srcdir/test-suite/tls/tls-origin.py"

# tls_bump_ca : $T/tls/bump.pem and bump.key, a CA of its own for ssl-bump
# ports (after tls_certs)
tls_bump_ca() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/tls/bump.key" \
        -out "$T/tls/bump.pem" -days 3 -subj "/CN=cuttle test bump CA" 2>> "$T/tls/openssl.err" ||
        fail "openssl: the bump CA"
}
TPORT=""
TSTATS=""

# tls_bump_setup : cuttle_setup, the certificates (tls_certs), the bump CA
# (tls_bump_ca) and splice.pem for splice.test, readable by cuttle; d=$T/tls
tls_bump_setup() {
    cuttle_setup
    tls_certs
    d=$T/tls
    tls_bump_ca
    tls_leaf splice splice.test 20200101000000Z 20991231000000Z
    chmod -R a+rX "$d"
}

tls_certs() {
    command -v openssl > /dev/null || { echo "no openssl"; exit 77; }
    local d="$T/tls"
    mkdir -p "$d/db"
    : > "$d/db/index"
    echo 01 > "$d/db/serial"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/ca.key" -out "$d/ca.pem" \
        -days 3 -subj "/CN=cuttle test CA" 2> "$d/openssl.err" || fail "openssl: the CA"
    cat > "$d/ca.cnf" << CNF
[ca]
default_ca = test
[test]
dir = $d
database = \$dir/db/index
new_certs_dir = \$dir/db
serial = \$dir/db/serial
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
[any]
commonName = supplied
CNF
    # NAME CN START END: a certificate for CN signed by the CA, valid from START to END
    tls_leaf() {
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/$1.key" -out "$d/$1.csr" \
            -subj "/CN=$2" -addext "subjectAltName=DNS:$2" 2>> "$d/openssl.err" &&
            openssl ca -batch -config "$d/ca.cnf" -cert "$d/ca.pem" -keyfile "$d/ca.key" -in "$d/$1.csr" \
                -out "$d/$1.pem" -notext -startdate "$3" -enddate "$4" 2>> "$d/openssl.err" ||
            fail "openssl: $1: $(tail -n 3 "$d/openssl.err")"
    }
    tls_leaf valid origin.test 20200101000000Z 20991231000000Z
    tls_leaf expired origin.test 20200101000000Z 20200201000000Z
    tls_leaf wrongname other.test 20200101000000Z 20991231000000Z
    # the proxy's own certificate, for https_port (curl --proxy https://127.0.0.1:PORT)
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/proxy.key" -out "$d/proxy.csr" \
        -subj "/CN=proxy.test" -addext "subjectAltName=DNS:proxy.test,IP:127.0.0.1" 2>> "$d/openssl.err" &&
        openssl ca -batch -config "$d/ca.cnf" -cert "$d/ca.pem" -keyfile "$d/ca.key" -in "$d/proxy.csr" \
            -out "$d/proxy.pem" -notext -startdate 20200101000000Z -enddate 20991231000000Z 2>> "$d/openssl.err" ||
        fail "openssl: the proxy's certificate"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/self.key" -out "$d/self.pem" \
        -days 3 -subj "/CN=origin.test" -addext "subjectAltName=DNS:origin.test" 2>> "$d/openssl.err" ||
        fail "openssl: the self-signed certificate"
    chmod -R a+rX "$d"
}

# tls_shown_cert PORT HOST:PORT : prints (PEM) the certificate that a client
# CONNECTing to HOST:PORT through the proxy at PORT is shown (bumped: one
# minted; spliced: the origin's), without judging it
tls_shown_cert() {
    python3 - "$1" "$2" "$(scaled 10)" << 'PY'
import socket, ssl, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=float(sys.argv[3]))
s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (sys.argv[2].encode(), sys.argv[2].encode()))
got = b""
while b"\r\n\r\n" not in got:
    got += s.recv(4096)
assert got.startswith(b"HTTP/1.1 200"), got
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE  # the caller judges it
tls = ctx.wrap_socket(s, server_hostname=sys.argv[2].split(":")[0])
print(ssl.DER_cert_to_PEM_cert(tls.getpeercert(binary_form=True)), end="")
PY
}

# tls_origin NAME [ARGS] : an HTTPS origin with $T/tls/NAME.pem; sets TPORT
# (and BG_PID); its counts go to $T/NAME.stats (tls_stats)
tls_origin() {
    local name=$1
    shift
    bg_start "origin-$name" python3 "$TLS_ORIGIN" --cert "$T/tls/$name.pem" --key "$T/tls/$name.key" \
        --stats "$T/$name.stats" "$@"
    TPORT=$BG_PORT
    TSTATS=$T/$name.stats
}

# tls_conf LINE... : cuttle_conf with origin.test at 127.0.0.1 (hosts_file) and the lines
tls_conf() {
    echo "127.0.0.1 origin.test" > "$T/hosts"
    cuttle_conf "hosts_file $T/hosts" "dns_nameservers 127.0.0.1:9" "http_access allow localhost" "$@"
}

# tls_get PATH [CURL ARGS] : GET https://origin.test:$TPORT/PATH in absolute-form
# through cuttle; prints the status code; the reply's head in $T/head, body in $T/body
tls_get() {
    local path=$1
    shift
    curl -s -D "$T/head" -o "$T/body" -w '%{http_code}' --max-time "$(scaled 10)" -x "127.0.0.1:$PORT" \
        --request-target "https://origin.test:$TPORT/$path" "$@" "http://origin.test:$TPORT/"
}

# tls_stats : the last origin's "accepted=N handshakes=H resumed=R"
tls_stats() { cat "$TSTATS"; }

# expect WHAT GOT WANTED : fails unless GOT = WANTED
expect() {
    [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
    pass "$1"
}
