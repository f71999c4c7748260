#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer and runs each for a while.
#
#   Fuzz/fuzz.sh [SECONDS] [TARGET...]     every target when none is named; 60 s each
#   Fuzz/fuzz.sh replay [TARGET...]        each seed and reproducer once (no fuzzing)
#   Fuzz/fuzz.sh build
#
# Seeds are read from Fuzz/Corpus/<target> (kept in the repository) and a few project
# folders; what the fuzzer finds new goes to .build-fuzz/corpus/<target> (kept between
# runs, not committed); crashes, hangs and broken invariants to .build-fuzz/findings/<target>.
# The exit status is 1 when any target found something. Reproduce one with
#   SWITCHBOARD_FUZZ_TARGET=<target> .build-fuzz/debug/switchboard-fuzz <file>
set -euo pipefail
cd "$(dirname "$0")"
BUILD=../.build-fuzz
BINARY=$BUILD/debug/switchboard-fuzz
ALL_TARGETS="bot-file template wire cursor-address webhook http"

build() {
    # -sanitize-coverage is spelled out: at -Onone, -sanitize=fuzzer alone instruments nothing.
    # The linker's warnings about ASan's local symbols are noise.
    mkdir -p "$BUILD"
    if ! swift build --scratch-path "$BUILD" --product switchboard-fuzz --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp > "$BUILD/build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$BUILD/build.log" | tail -40 >&2
        echo "the fuzz build failed (whole log: $BUILD/build.log)" >&2
        exit 1
    fi
}

# Read-only seed folders besides Fuzz/Corpus/<target>: real inputs kept elsewhere.
seeds() {
    local shared=../../shared/testdata
    case $1 in
        bot-file) echo ../bots ../examples ../Tests/IMBotsTests/Fixtures ;;
        webhook) for d in "$shared/alertmanager" "$shared/grafana"; do [ -d "$d" ] && echo "$d"; done ;;
    esac
    true
}

mode=fuzz
seconds=60
case ${1:-} in
    build) build; exit 0 ;;
    replay) mode=replay; shift ;;
    [0-9]*) seconds=$1; shift ;;
esac
targets=${*:-$ALL_TARGETS}
build
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:handle_abort=1
status=0
summary=$BUILD/last-run.txt
echo "fuzz run $(date -u +%Y-%m-%dT%H:%M:%SZ), $mode, ${seconds}s per target" > "$summary"
for target in $targets; do
    work=$BUILD/corpus/$target
    findings=$BUILD/findings/$target
    mkdir -p "$work" "$findings"
    log=$BUILD/$target.log
    flags=(-timeout=20 -rss_limit_mb=4096 -artifact_prefix="$findings/" -print_final_stats=1)
    [ -f "Dictionaries/$target.dict" ] && flags+=(-dict="Dictionaries/$target.dict")
    if [ $mode = replay ]; then flags+=(-runs=0); else flags+=(-max_total_time="$seconds"); fi
    before=$(ls "$findings" | wc -l)
    echo "== $target"
    # shellcheck disable=SC2046
    if SWITCHBOARD_FUZZ_TARGET=$target "$BINARY" "${flags[@]}" "$work" "Corpus/$target" $(seeds "$target") > "$log" 2>&1; then
        result=ok
    else
        result=FOUND
        status=1
    fi
    grep -E "^observation:" "$log" | sort -u | cut -c1-300 || true
    runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
    coverage=$(grep -oE "cov: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+" || echo 0)
    corpus=$(ls "$work" | wc -l)
    after=$(ls "$findings" | wc -l)
    line="$target: $result, $runs executions, coverage $coverage, $corpus inputs in the working corpus, $((after - before)) new findings"
    echo "$line" | tee -a "$summary"
    if [ $result = FOUND ]; then grep -E "ERROR|invariant broken|Fatal error|SUMMARY|Test unit written" "$log" | head -8; fi
done
exit $status
