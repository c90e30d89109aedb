#!/bin/sh
# `make install DESTDIR=...` puts every piece where a packager expects it, and
# never overwrites an admin's squid.conf.
. "$top_srcdir/test-suite/lib.sh"
cuttle_setup
stage="$T/stage"
make -s -C "$top_builddir" install DESTDIR="$stage" > "$T/install.log" 2>&1 || {
    cat "$T/install.log"
    fail "make install failed"
}
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
for dir in 'localstatedir = ${prefix}/var' 'sysconfdir = ${prefix}/etc' 'datarootdir = ${prefix}/share'; do
    grep -qxF "$dir" "$top_builddir/Makefile" ||
        { echo "configured with non-default directories: this test checks the default layout only"; exit 77; }
done
root="$stage$prefix"
[ -x "$root/sbin/cuttle" ] || fail "no sbin/cuttle"
[ -f "$root/etc/cuttle/squid.conf.default" ] || fail "no etc/cuttle/squid.conf.default"
[ -f "$root/etc/cuttle/squid.conf" ] || fail "no etc/cuttle/squid.conf"
[ -f "$root/share/man/man8/cuttle.8" ] || fail "no man page"
[ -f "$root/share/cuttle/errors/templates/ERR_ACCESS_DENIED" ] || fail "no error templates"
[ -d "$root/var/log/cuttle" ] || fail "no log directory"
pass "files in place"

# the installed configuration uses the install's absolute paths and parses
grep -q "^access_log stdio:$prefix/var/log/cuttle/access.log" "$root/etc/cuttle/squid.conf" ||
    fail "installed squid.conf does not log under $prefix/var/log/cuttle"
# no error_directory: pages are negotiated, the installed templates being the English default
! grep -q "^error_directory" "$root/etc/cuttle/squid.conf" ||
    fail "installed squid.conf sets error_directory, which turns language negotiation off"
"$root/sbin/cuttle" -k parse -f "$root/etc/cuttle/squid.conf" > "$T/out" 2>&1 ||
    fail "installed squid.conf does not parse: $(cat "$T/out")"
pass "installed squid.conf"

# a second install keeps the admin's squid.conf
echo "# the admin's change" >> "$root/etc/cuttle/squid.conf"
make -s -C "$top_builddir" install DESTDIR="$stage" > "$T/install.log" 2>&1 || fail "second make install failed"
tail -n 1 "$root/etc/cuttle/squid.conf" | grep -q "the admin's change" || fail "make install overwrote squid.conf"
pass "squid.conf kept on reinstall"
