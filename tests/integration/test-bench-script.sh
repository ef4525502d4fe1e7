#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# scripts/bench, the one command that runs a benchmark of tests/bench/ on a fresh machine: it
# lists every benchmark there, refuses a name that is not one (naming those that are), installs
# only what the named benchmark needs (scripts/deps.sh's bench_deps), and runs it against the
# build it is pointed at: here tests/bench/history, which needs the build alone, on a small
# history.

. "$(dirname "$0")/lib.sh"

bench="$SOURCE_ROOT/scripts/bench"

# The list: every executable of tests/bench/ but its modules, each with its description's first line.
run "$bench"
[ "$RC" = 0 ] || fail "scripts/bench (the list) exited $RC: $OUT"
for f in "$SOURCE_ROOT"/tests/bench/*; do
        b=$(basename "$f")
        if [ -x "$f" ] && [ "${b%.py}" = "$b" ]; then
                grep -qE "^  $b +[A-Za-z]" <<<"$OUT" || fail "the list has no line for tests/bench/$b:
$OUT"
        else
                grep -qE "^  $b " <<<"$OUT" && fail "the list names tests/bench/$b, which is not a benchmark:
$OUT"
        fi
done
assert_contains "$OUT" "vs-fio         benchd-worker side by side with fio" "the list"

# A name that is not a benchmark: exit 2, naming it and the benchmarks.
run "$bench" no-such-bench --pairs 1
assert_eq 2 "$RC" "exit status for an unknown benchmark"
assert_contains "$OUT" "no benchmark 'no-such-bench' in tests/bench/" "the refusal"
assert_contains "$OUT" "anchors fleet fs-matrix" "the refusal's list"

# Each benchmark's own packages, and none for those that need the build alone.
. "$SOURCE_ROOT/scripts/deps.sh"
assert_eq "fio ioping bonnie++ coreutils" "$(bench_deps anchors | paste -sd ' ')" "anchors' packages"
assert_eq "" "$(bench_deps history)" "history's packages"
for p in $(bench_deps anchors) $(bench_deps fs-matrix) $(bench_deps fleet) $(bench_deps uring-lat) $(bench_deps fuzz); do
        [[ " ${BENCHD_BENCH_DEPS[*]} " == *" $p "* ]] || fail "bench_deps names $p, which BENCHD_BENCH_DEPS lacks"
done

# A real run against this build, its arguments passed through.
run env BENCHD_BUILD_DIR="$BUILD_ROOT" "$bench" history --filler "$BUILD_ROOT/tests/bench/history-fill" \
        --runs 200 --samples 10 --tries 1 --page-sizes 4096
[ "$RC" = 0 ] || fail "scripts/bench history exited $RC: $OUT"
assert_contains "$OUT" "200 runs x 10 samples, 20 devices" "history's header (its arguments passed through)"
assert_contains "$OUT" "targets: under 64 bytes per sample" "history's closing line"

log "PASS"
