#!/bin/sh
# The apt check: Debian's own apt-get, through cuttle (Acquire::http::Proxy),
# against a flat repository on loopback (python3's http.server) holding a
# package of 1.5 MB (over maximum_object_size_in_memory: the disk store's)
# and one of 20 KB. The first round fetches the index and both packages from
# the origin; the second, with apt's own lists and archives emptied, gets
# both packages from the cache (TCP_HIT from the cache_dir for the large
# one), whole: apt checks each file's SHA256 against its index, and the
# test against the packages it built.
. "$top_srcdir/test-suite/lib.sh"
. "$top_srcdir/test-suite/cache/helpers.sh"
cuttle_setup
. "$top_srcdir/test-suite/disk/helpers.sh"
for tool in apt-get dpkg-deb python3; do
    command -v "$tool" > /dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done

# --- the repository: two packages, their Packages index and a Release file,
# dated 2020 (a heuristic freshness of days: refresh_pattern's 20% of their age)
repo=$T/repo
mkdir -p "$repo"
make_package() { # NAME PAYLOAD-BYTES
    local dir=$T/build/$1
    mkdir -p "$dir/DEBIAN" "$dir/usr/share/$1"
    head -c "$2" /dev/urandom > "$dir/usr/share/$1/payload"
    printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: cuttle tests <tests@example.invalid>\nDescription: a package of the apt check\n' \
        "$1" > "$dir/DEBIAN/control"
    dpkg-deb -Znone --build "$dir" "$repo/$1_1.0_all.deb" > /dev/null || fail "dpkg-deb $1"
    {
        dpkg-deb -f "$repo/$1_1.0_all.deb"
        echo "Filename: ./$1_1.0_all.deb"
        echo "Size: $(wc -c < "$repo/$1_1.0_all.deb" | tr -d ' ')"
        echo "SHA256: $(sha256sum < "$repo/$1_1.0_all.deb" | cut -d' ' -f1)"
        echo
    } >> "$repo/Packages"
}
make_package cuttle-apt-large 1500000
make_package cuttle-apt-small 20000
{
    echo "Date: $(LC_ALL=C date -u -R -d 2020-01-01)"
    echo "SHA256:"
    echo " $(sha256sum < "$repo/Packages" | cut -d' ' -f1) $(wc -c < "$repo/Packages" | tr -d ' ') Packages"
} > "$repo/Release"
touch -d 2020-01-01 "$repo"/*
large_size=$(wc -c < "$repo/cuttle-apt-large_1.0_all.deb" | tr -d ' ')
[ "$large_size" -gt 524288 ] || fail "the large package is only $large_size bytes"

OPORT=$(closed_port)
python3 -m http.server "$OPORT" --bind 127.0.0.1 --directory "$repo" > "$T/http.log" 2>&1 &
FWD_PIDS="$FWD_PIDS $!" # killed by the helpers' cleanup at exit
trap cache_cleanup EXIT
origin_up() { curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$OPORT/Release"; }
wait_until 10 origin_up || fail "the repository's http.server did not start: $(cat "$T/http.log")"

cuttle_conf "$DIRLINE"
"$CUTTLE" -z -f "$T/squid.conf" > "$T/out" 2>&1 || fail "-z: $(cat "$T/out")"
cache_start "$DIRLINE" "maximum_object_size_in_memory 512 KB" "maximum_object_size 100 MB"
trap cache_cleanup EXIT # (the proxy's start set its own)
wait_until 10 is_rebuilt || fail "the cache_dir's index was not rebuilt"

# round N : apt-get update and apt-get download of both packages into
# $T/round.N, with apt's state, lists and archives of its own (so nothing
# comes from apt's cache), through cuttle
round() {
    local dir=$T/round.$1
    mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/etc/preferences.d" "$dir/get"
    : > "$dir/status"
    echo "deb [trusted=yes] http://127.0.0.1:$OPORT/ ./" > "$dir/etc/sources.list"
    set -- -q -o "Dir::State=$dir/state" -o "Dir::State::status=$dir/status" -o "Dir::Cache=$dir/cache" \
        -o "Dir::Etc::SourceList=$dir/etc/sources.list" -o "Dir::Etc::SourceParts=-" \
        -o "Dir::Etc::Preferences=$dir/etc/preferences" -o "Dir::Etc::PreferencesParts=$dir/etc/preferences.d" \
        -o "Acquire::http::Proxy=http://127.0.0.1:$PORT/" -o "APT::Sandbox::User=root" \
        -o "Acquire::Languages=none" -o "APT::Architecture=amd64" -o "APT::Architectures=amd64"
    timeout "$(scaled 60)" apt-get "$@" update > "$dir/update.out" 2>&1 ||
        bad "round $1: apt-get update: $(tail -n 5 "$dir/update.out")"
    (cd "$dir/get" && timeout "$(scaled 60)" apt-get "$@" download cuttle-apt-large cuttle-apt-small) \
        > "$dir/download.out" 2>&1 || bad "round $1: apt-get download: $(tail -n 5 "$dir/download.out")"
    for deb in cuttle-apt-large_1.0_all.deb cuttle-apt-small_1.0_all.deb; do
        cmp -s "$repo/$deb" "$dir/get/$deb" || bad "round $1: $deb is not the package built"
    done
}
deb_code() { # ROUND-LINE PACKAGE : the Nth access.log code of the package's URL
    grep " http://127.0.0.1:$OPORT/\\./$2_1.0_all.deb \| http://127.0.0.1:$OPORT/$2_1.0_all.deb " \
        "$T/access.log" | sed -n "$1p" | awk '{print $4}'
}

round 1
expect "round 1: the large package from the origin" "$(deb_code 1 cuttle-apt-large)" TCP_MISS/200
expect "round 1: the small package from the origin" "$(deb_code 1 cuttle-apt-small)" TCP_MISS/200
wait_until 10 has_files 1 || bad "round 1: the large package is not on disk"
pass_if_ok "round 1: apt-get fetched the index and both packages through cuttle"

round 2
expect "round 2: the large package is a disk hit" "$(deb_code 2 cuttle-apt-large)" TCP_HIT/200
expect_match "round 2: the small package is a hit" "$(deb_code 2 cuttle-apt-small)" '^TCP_(MEM_)?HIT/200$'
grep -c '"GET /cuttle-apt-large_1.0_all.deb\|"GET /\./cuttle-apt-large_1.0_all.deb' "$T/http.log" > "$T/count"
expect "round 2: the origin served the large package once" "$(cat "$T/count")" 1
pass_if_ok "round 2: apt-get got both packages from the cache, the large one from the disk store"

cache_stop
checks_done
