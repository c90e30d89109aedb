#!/bin/sh
# cuttle: runs the libFuzzer harnesses of src/fuzz (doc/fuzzing.md).
#
#   run.sh smoke SRCDIR BUILDDIR HARNESS[.fuzz]   replays the harness's regressions and
#       corpus (each input once), then fuzzes it for FUZZ_SMOKE_SECONDS (10) from
#       its corpus in a scratch directory; what `make check-fuzz` and CI run
#   run.sh fuzz SRCDIR BUILDDIR [NAME...]  fuzzes each harness (all, or those
#       named) for FUZZ_SECONDS (60), one at a time and niced, on a corpus kept
#       in BUILDDIR/src/fuzz/work/NAME, then prints a line of execs and coverage
#       a harness; crashes go to BUILDDIR/src/fuzz/artifacts/NAME. With
#       FUZZ_RUNS=N a harness stops after N executions, or FUZZ_SECONDS;
#       with FUZZ_FORK=J it runs as J jobs of one run (libFuzzer's -fork)
#
# A crash, leak, sanitizer report, broken property or timeout (25 s an input)
# fails the run; the input is printed in base64 so that a CI log is enough to
# add it to src/fuzz/regressions/NAME.
set -u
mode=${1:?usage: run.sh smoke|fuzz SRCDIR BUILDDIR ...}
src=${2:?}
build=${3:?}
shift 3

HARNESSES="FuzzRequestParser FuzzReplyParser FuzzChunkedDecoder FuzzCacheControl FuzzRange FuzzDate FuzzUrl FuzzETag FuzzHelperReply FuzzConfigLexer FuzzConfigParser FuzzConnection FuzzClientHello"

dict_of() {
    case $1 in
        FuzzConfig*) echo "$src/src/fuzz/squidconf.dict" ;;
        *) echo "$src/src/fuzz/http.dict" ;;
    esac
}

# files NAME: the committed inputs of a harness, regressions first
files() {
    for d in "$src/src/fuzz/regressions/$1" "$src/src/fuzz/corpus/$1"; do
        [ -d "$d" ] && find "$d" -type f ! -name 'README*' | sort
    done
}

# report LOG: prints the first lines of a failure and the inputs it saved
report() {
    grep -E -m 20 'ERROR|property broken|runtime error|Sanitizer|timeout|Test unit written' "$1"
    for a in "$2"/crash-* "$2"/leak-* "$2"/timeout-* "$2"/oom-*; do
        [ -f "$a" ] || continue
        echo "input $(basename "$a") (base64; add it to src/fuzz/regressions/$name/):"
        base64 "$a"
    done
}

# summary NAME LOG: execs, rate, coverage and corpus of one run
summary() {
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$2" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$2" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$2" | grep 'cov:' | tail -n 1)
    # a -fork run prints no stat:: lines: its last "#N: ... exec/s R" line counts
    [ -n "$execs" ] || execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    [ -n "$rate" ] || rate=$(echo "$last" | sed -n 's/.* exec\/s \([0-9]*\).*/\1/p')
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
    [ -n "$corp" ] || corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\) .*/\1/p')
    printf '%-20s execs: %-10s exec/s: %-7s cov: %-6s ft: %-6s corp: %s\n' "$1" "${execs:-?}" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "${corp:-?}"
}

# max_len_of NAME: heads, bodies, configurations and connections get 4 KB
# inputs; single field values 1 KB (longer ones only slow them down)
max_len_of() {
    case $1 in
        FuzzCacheControl | FuzzRange | FuzzDate | FuzzUrl | FuzzETag | FuzzHelperReply) echo 1024 ;;
        *) echo 4096 ;;
    esac
}

FLAGS="-timeout=25 -rss_limit_mb=2048 -print_final_stats=1"

case $mode in
smoke)
    prog=${1:?}
    prog=${prog%.fuzz}
    name=$(basename "$prog")
    case $prog in /*) ;; *) prog="$build/$prog" ;; esac
    work=$(mktemp -d) || exit 99
    trap 'rm -rf "$work"' EXIT
    inputs=$(files "$name")
    if [ -n "$inputs" ]; then
        echo "replaying $(echo "$inputs" | wc -l) committed inputs"
        # shellcheck disable=SC2086
        if ! "$prog" $FLAGS -artifact_prefix="$work/" $inputs >"$work/replay.log" 2>&1; then
            echo "FAIL: $name failed on a committed input:"
            report "$work/replay.log" "$work"
            tail -n 40 "$work/replay.log"
            exit 1
        fi
    fi
    mkdir "$work/corpus"
    seconds=${FUZZ_SMOKE_SECONDS:-10}
    echo "fuzzing for $seconds s"
    if ! nice -n 19 "$prog" $FLAGS -max_len="$(max_len_of "$name")" -max_total_time="$seconds" -dict="$(dict_of "$name")" \
        -artifact_prefix="$work/" "$work/corpus" "$src/src/fuzz/corpus/$name" >"$work/fuzz.log" 2>&1; then
        echo "FAIL: $name found a problem:"
        report "$work/fuzz.log" "$work"
        tail -n 40 "$work/fuzz.log"
        exit 1
    fi
    summary "$name" "$work/fuzz.log"
    ;;
fuzz)
    names=${*:-$HARNESSES}
    seconds=${FUZZ_SECONDS:-60}
    runs=${FUZZ_RUNS:+-runs=$FUZZ_RUNS}
    fork=${FUZZ_FORK:+-fork=$FUZZ_FORK}
    failed=0
    results=""
    for name in $names; do
        prog="$build/src/fuzz/$name"
        [ -x "$prog" ] || { echo "no harness $prog: make fuzzers"; failed=1; continue; }
        work="$build/src/fuzz/work/$name"
        artifacts="$build/src/fuzz/artifacts/$name"
        log="$build/src/fuzz/$name.fuzz.log"
        mkdir -p "$work" "$artifacts"
        echo "=== $name: $seconds s (log: $log)"
        if nice -n 19 "$prog" $FLAGS -max_len="$(max_len_of "$name")" $runs $fork -max_total_time="$seconds" -dict="$(dict_of "$name")" \
            -artifact_prefix="$artifacts/" "$work" "$src/src/fuzz/corpus/$name" >"$log" 2>&1; then
            line=$(summary "$name" "$log")
        else
            status=$?
            # a signal libFuzzer does not catch ends it without a report
            [ $status -gt 128 ] && echo "$name was killed by signal $((status - 128)) ($(kill -l $((status - 128))))"
            report "$log" "$artifacts"
            line="$(summary "$name" "$log")  FAILED"
            failed=1
        fi
        echo "$line"
        results="$results$line
"
    done
    echo "=== summary ($seconds s each)"
    printf '%s' "$results"
    exit $failed
    ;;
*)
    echo "usage: run.sh smoke|fuzz SRCDIR BUILDDIR ..." >&2
    exit 2
    ;;
esac
