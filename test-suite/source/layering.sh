#!/bin/sh
# Dependencies point one way (doc/design.md "Parts and where they live"):
# each part may include headers of the parts listed for it here and no others.
set -u
cd "${top_srcdir:?}/src" || exit 99

allowed() {
    case $1 in
        base) echo "base" ;;
        sbuf) echo "base sbuf" ;;
        acl) echo "base acl" ;;
        log) echo "base log" ;;
        errors) echo "base sbuf log http errors" ;;
        config) echo "base sbuf acl log config" ;;
        http) echo "base sbuf http" ;;
        comm) echo "base sbuf log comm" ;;
        helper) echo "base log comm helper" ;;
        auth) echo "base sbuf log comm helper auth" ;;
        store) echo "base sbuf http log store" ;;
        disk) echo "base sbuf comm http log config store disk" ;;
        tls) echo "base sbuf comm log tls" ;;
        server) echo "base sbuf comm http store acl config log errors tls server" ;;
        tunnel) echo "base sbuf comm http store acl config log errors tls tunnel" ;;
        mgr) echo "base sbuf http acl log config mgr" ;;
        client) echo "base sbuf comm http store disk acl config log errors tls server tunnel helper auth mgr client" ;;
        proxy) echo "base sbuf comm http store disk acl config log errors tls server tunnel helper auth mgr client proxy" ;;
        fuzz) echo "base sbuf comm http store disk acl config log errors tls server tunnel client proxy helper auth mgr fuzz" ;;
        tests) echo "" ;;
        *) echo "UNKNOWN" ;;
    esac
}

bad=0
checked=0
for part in */; do
    part=${part%/}
    ok=$(allowed "$part")
    [ "$part" = tests ] && continue
    if [ "$ok" = UNKNOWN ]; then
        echo "FAIL: src/$part is not a known part: add it to test-suite/source/layering.sh and doc/design.md"
        bad=$((bad + 1))
        continue
    fi
    for f in $(find "$part" -name '*.h' -o -name '*.cc'); do
        checked=$((checked + 1))
        for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$f" | sort -u); do
            case " $ok " in
                *" $inc "*) ;;
                *) echo "FAIL: src/$f includes $inc/, which $part may not depend on"; bad=$((bad + 1)) ;;
            esac
        done
    done
done
echo "$checked files checked, $bad layering violations"
[ "$checked" -gt 0 ] && [ "$bad" -eq 0 ]
