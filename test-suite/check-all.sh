#!/bin/sh
# cuttle: build four times and run every test; the README's test command and CI run this.
#
# Pass 1: an optimised build (-O2) runs `make check` (unit and system tests),
#         then `make check-workers`: the system tests again with `workers 2`,
#         but those test-suite/workers-skip.txt names (they need what the
#         workers do not share yet).
# Pass 2: an ASan+UBSan build runs `make check` too (every unit and system test).
# Pass 3: a ThreadSanitizer build runs `make check-threads`: the daemon tests
#         with `workers 2` (a concurrent load on `workers 4` among them) and
#         the unit tests of what the workers' threads touch; a data race fails.
# Pass 4: a clang build of the libFuzzer harnesses (src/fuzz) runs `make check-fuzz`:
#         each harness replays its regressions and corpus, then fuzzes for 10 s
#         (FUZZ_SMOKE_SECONDS); one test a harness. Without clang++-14 (which
#         ./bootstrap.sh --install-test-deps installs) its build fails: one failure.
# The last line sums the passes as `N passed, M failed` (FAIL, XPASS and ERROR
# count as failed) and the exit status is non-zero when anything failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
passed=0
failed=0
status=0

# tally LOG: adds the automake harness summary of one `make check` output.
tally() {
    for key in PASS FAIL XPASS ERROR; do
        n=$(sed -n "s/^# $key: *\([0-9][0-9]*\)\$/\1/p" "$1" | awk '{s+=$1} END {print s+0}')
        if [ "$key" = PASS ]; then passed=$((passed + n)); else failed=$((failed + n)); fi
    done
}

# pass NAME CONFIGURE_ARGS MAKE_TARGET TIMEOUT_MULT [BUILD_TARGET]
pass() {
    name=$1; args=$2; target=$3; mult=$4; build=${5:-all}
    dir="$top/build/$name"
    mkdir -p "$dir"
    echo "=== $name: configure $args && make $build"
    if ! (cd "$dir" && "$top/configure" -q $args && make -j"$jobs" -s $build) >"$top/build/$name.build.log" 2>&1; then
        tail -n 60 "$top/build/$name.build.log"
        echo "=== $name: BUILD FAILED"
        failed=$((failed + 1)); status=1
        return
    fi
    run "$name" "$target" "$mult" "$name"
}

# run BUILD_NAME MAKE_TARGET TIMEOUT_MULT LOG_NAME: one `make TARGET` in a build, tallied
run() {
    dir="$top/build/$1"; target=$2; mult=$3
    log="$top/build/$4.check.log"
    echo "=== $1: make $target"
    (cd "$dir" && make -j"$jobs" $target TIMEOUT_MULT=$mult) >"$log" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL|XPASS|XFAIL|SKIP|ERROR|# )' "$log"
    if [ $rc -ne 0 ]; then
        status=1
        [ -f "$dir/test-suite.log" ] && tail -n 300 "$dir/test-suite.log"
        grep -q '^# ' "$log" || { tail -n 40 "$log"; failed=$((failed + 1)); }
    fi
    tally "$log"
}

cd "$top" || exit 1
[ -x configure ] || ./bootstrap.sh
# The builds below are out of the source tree, which automake refuses while
# the tree itself is configured (`./configure && make` run in it).
if [ -f config.status ]; then
    echo "=== the source tree is configured in place: make distclean there first"
    make -s distclean >/dev/null 2>&1 || rm -f config.status
fi
pass release "CXXFLAGS=-O2" check 1
[ -f "$top/build/release/Makefile" ] && run release check-workers 2 workers
pass sanitizers "--enable-sanitizers CXXFLAGS=-O1" check 4
# a data race makes cuttle exit 66 and print its report (the tests fail on it)
TSAN_OPTIONS=${TSAN_OPTIONS:-"halt_on_error=0 exitcode=66"}
export TSAN_OPTIONS
pass tsan "--enable-tsan CXXFLAGS=-O1" check-threads 4
pass fuzzers "--enable-fuzzers CXX=${FUZZ_CXX:-clang++-14} CXXFLAGS=-O1" check-fuzz 1 fuzzers

echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
