#!/bin/sh
# Error pages as Squid 5.7 serves them: without error_directory the page's
# language is negotiated from Accept-Language over Debian's squid-langpack
# (de, ja; de-CH through the pack's de-ch link; an unknown language gets
# error_default_language), with Content-Language and Vary: Accept-Language;
# a deny_info page of Squid's set is negotiated too; error_directory set to
# one language gives that language and neither field; every %-code is
# filled (cache_mgr, err_html_text, err_page_stylesheet, email_err_data).
#
# CACHE_TEST_SQUID=/usr/sbin/squid runs the same checks against Squid 5.7.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/access/helpers.sh"

PACK=/usr/share/squid-langpack
[ -f "$PACK/de/ERR_ACCESS_DENIED" ] && [ -f "$PACK/ja/ERR_ACCESS_DENIED" ] || {
    echo "SKIP: no squid-langpack (bootstrap.sh --install-test-deps)"
    exit 77
}
cuttle_setup
origin_start
O="127.0.0.1:$OPORT"

# title FILE : the <title> of an error page or template
title() { grep -o '<title>.*</title>' "$1" | head -n 1; }
# expect_page WHAT TEMPLATE : the last reply's page is TEMPLATE's (by its title)
expect_page() {
    [ -n "$(title "$2")" ] || bad "$1: $2 has no title"
    expect "$1: page" "$(title "$T/body")" "$(title "$2")"
}
# no_stray_codes WHAT : no %-code of Squid's is left in the last page (URL
# escapes, %XX with hex digits, are values, not codes)
no_stray_codes() {
    left=$(sed -e 's/%[0-9A-F][0-9A-F]//g' "$T/body" | grep -o '%[aAbBcDeEfFghHiIlLmMoOpPRsStTuUwWxzZ%]' | sort -u | tr '\n' ' ')
    expect "$1: %-codes left" "$left" ""
}

cat > "$T/style.css" <<'CSS'
body { color: #123456 }
CSS
chmod 644 "$T/style.css"

CUTTLE_ERRORS="" # no error_directory: negotiated pages
cache_start \
    "acl denied urlpath_regex ^/denied" \
    "acl fwd urlpath_regex ^/fwd" \
    "deny_info ERR_FORWARDING_DENIED fwd" \
    "http_access deny denied" \
    "http_access deny fwd" \
    "error_default_language fr" \
    "cache_mgr admin@example.org" \
    "email_err_data on" \
    "err_page_stylesheet $T/style.css" \
    "err_html_text <p id=\"site-note\">call 555</p>"

mark
fetch_url "http://$O/denied" -H "Accept-Language: de"
expect "de: status" "$CODE" 403
expect_page "de" "$PACK/de/ERR_ACCESS_DENIED"
expect "de: Content-Language" "$(header Content-Language)" de
expect "de: Vary" "$(header Vary)" Accept-Language
no_stray_codes "de"
grep -q 'body { color: #123456 }' "$T/body" || bad "de: err_page_stylesheet is not in the page"
grep -q 'mailto:admin@example.org?subject=CacheErrorInfo%20-%20ERR_ACCESS_DENIED&amp;body=' "$T/body" ||
    bad "de: no cache_mgr mailto link with email_err_data"
pass_if_ok "Accept-Language: de gets squid-langpack's German page"

mark
fetch_url "http://$O/denied" -H "Accept-Language: xx, ja;q=0.5, de"
expect_page "ja" "$PACK/ja/ERR_ACCESS_DENIED"
expect "ja: Content-Language" "$(header Content-Language)" ja
expect "ja: Vary" "$(header Vary)" Accept-Language
no_stray_codes "ja"
pass_if_ok "the first listed language with pages wins (ja), q-values aside"

mark
fetch_url "http://$O/denied" -H "Accept-Language: de-CH"
expect_page "de-CH" "$PACK/de/ERR_ACCESS_DENIED"
expect "de-CH: Content-Language" "$(header Content-Language)" de-ch
pass_if_ok "de-CH gets the German page, through the pack's de-ch"

mark
fetch_url "http://$O/denied" -H "Accept-Language: tlh"
expect_page "unknown language" "$PACK/fr/ERR_ACCESS_DENIED"
expect "unknown: Content-Language" "$(header Content-Language)" fr
expect "unknown: Vary" "$(header Vary)" Accept-Language
no_stray_codes "unknown language"
wait_until 5 grep -q "Error Pages Missing Language: tlh" "$T/cache.log" ||
    bad "error_log_languages: no cache.log line for tlh"
pass_if_ok "an unknown language gets error_default_language (fr), and is logged"

mark
fetch_url "http://$O/fwd" -H "Accept-Language: ja"
expect "deny_info: status" "$CODE" 403
expect_page "deny_info" "$PACK/ja/ERR_FORWARDING_DENIED"
expect "deny_info: Content-Language" "$(header Content-Language)" ja
no_stray_codes "deny_info"
pass_if_ok "a deny_info page of Squid's set is negotiated too"

# a reconfigure reads the pages again: the new error_default_language applies
mark
sed -i 's/^error_default_language fr$/error_default_language ja/' "$T/squid.conf"
kill -HUP "$CUTTLE_PID"
default_is_ja() {
    fetch_url "http://$O/denied" -H "Accept-Language: tlh"
    [ "$(header Content-Language)" = ja ]
}
wait_until 10 default_is_ja || bad "reconfigure: error_default_language ja not in force"
expect_page "reconfigured default" "$PACK/ja/ERR_ACCESS_DENIED"
is_running "$CUTTLE_PID" || bad "the proxy died in the reconfigure"
pass_if_ok "a reconfigure reads the pages again (error_default_language fr, then ja)"

# error_directory: that directory's language, no negotiation
CUTTLE_ERRORS=$PACK/de
cache_start "acl denied urlpath_regex ^/denied" "http_access deny denied"
mark
fetch_url "http://$O/denied" -H "Accept-Language: ja"
expect_page "error_directory de" "$PACK/de/ERR_ACCESS_DENIED"
has_header Content-Language && bad "error_directory: a Content-Language field"
has_header Vary && bad "error_directory: a Vary field"
pass_if_ok "error_directory $PACK/de gives German pages to a Japanese client, without Content-Language or Vary"

# every %-code of Squid 5.7 is filled, in a deny_info page of the admin's
mkdir "$T/codes"
{
    for c in a A b B c D e E f F g h H i I l L m M o O p P R s t T u U w W x z Z; do
        printf '[%s]=<%%%s>\n' "$c" "$c"
    done
    printf '[percent]=<%%%%>\n'
} > "$T/codes/ERR_CODES"
chmod -R a+rX "$T/codes"
passwd_file "$T/passwd" alice:wonder
CUTTLE_ERRORS=$T/codes
cache_start \
    "auth_param basic program $NCSA $T/passwd" \
    "acl auth proxy_auth REQUIRED" \
    "acl codes urlpath_regex ^/codes" \
    "deny_info ERR_CODES codes" \
    "http_access deny auth codes" \
    "cache_mgr admin@example.org" \
    "email_err_data on" \
    "err_page_stylesheet $T/style.css" \
    "err_html_text <p id=\"site-note\">call 555</p>"
mark
fetch_url "http://user:secret@$O/codes/x?q=1" -U alice:wonder -H "Accept-Language: de" -H "X-Test: <b>&"
expect "codes: status" "$CODE" 403
no_stray_codes "codes"
grep -q '^\[percent\]=<%>$' "$T/body" || bad "codes: %% is not %"
field() { sed -n "s/^\\[$1\\]=<\\(.*\\)>\$/\\1/p" "$T/body" | head -n 1; }
expect "%c" "$(field c)" ERR_CODES
expect "%w" "$(field w)" admin@example.org
expect "%h" "$(field h)" "$CACHE_HOST"
expect "%L" "$(field L)" '<p id="site-note">call 555</p>'
expect "%H" "$(field H)" 127.0.0.1
expect "%p" "$(field p)" "$OPORT"
expect "%M" "$(field M)" GET
expect "%P" "$(field P)" http
expect "%i" "$(field i)" 127.0.0.1
expect "%a" "$(field a)" alice
expect "%B" "$(field B)" ""
expect "%U" "$(field U)" "http://$O/codes/x?"
expect "%u" "$(field u)" "http://$O/codes/x?q=1"
expect "%E" "$(field E)" "[No Error]"
expect "%x" "$(field x)" "[Unknown Error Code]"
expect "%z" "$(field z)" "[unknown]"
expect_match "%T" "$(field T)" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT$'
grep -q 'body { color: #123456 }' "$T/body" || bad "codes: %l is not err_page_stylesheet"
grep -q '^X-Test: &lt;b&gt;&amp;' "$T/body" || bad "codes: %R does not show the request, escaped"
grep -q '^Authorization: \*\* NOT DISPLAYED \*\*' "$T/body" || bad "codes: %R shows the credentials"
grep -q '^Proxy-Authorization: \*\* NOT DISPLAYED \*\*' "$T/body" || bad "codes: %R shows the proxy credentials"
grep -Eq 'secret|wonder|YWxpY2U6d29uZGVy' "$T/body" && bad "codes: a password is in the page"
grep -q 'body=CacheHost%3A%20' "$T/body" || bad "codes: %W has no mailto details"
has_header Content-Language && bad "codes: a Content-Language field with error_directory"
pass_if_ok "every %-code is filled, with cache_mgr, err_html_text, err_page_stylesheet and email_err_data"

cache_stop
checks_done
