#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The retention of samples through the daemon: `benchctl prune --older-than=TIME` (the Manager's
# PruneSamples) removes the samples of the runs older than TIME and nothing else (runs, their
# summaries and histograms stay), says how many, gives the pages back (the file's page count
# falls, no free pages are left), and is refused to anyone but root; SampleRetentionDays= in
# benchd.conf does the same by itself when benchd starts. The runs are written straight into
# benchd's database with sqlite3, so the test needs no disk time: old ones (400 and 40 days ago),
# and recent ones (10 days, 1 hour ago), 3000 samples each.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 setpriv
require_binaries

CONF="$TEST_DIR/benchd.conf"
: >"$CONF"

start_bus
start_benchd --config="$CONF"

NOW_USEC=$(($(date +%s) * 1000000))
DAY_USEC=$((86400 * 1000000))

# add_run AGE_USEC N: a finished run that started AGE_USEC ago, with N samples and a histogram;
# prints its id.
add_run() {
        sql "INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct,
                               target, started_usec, duration_usec, status, bytes_written, ios_written)
             VALUES ('write', 4096, 1048576, 0, 0, 1, 1, 1, '/srv/bench', $((NOW_USEC - $1)), 1000000 * $2,
                     'succeeded', 4096 * 10 * $2, 10 * $2);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
             INSERT INTO sample_data (run_id, t_ms, interval_us, bytes_read, bytes_written, ios_read,
                                      ios_written, ops, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns,
                                      iowait_bp, cpu_user_bp, cpu_sys_bp, dev_util_bp, dev_queue_milli)
             SELECT (SELECT max(id) FROM runs), 1000 * i, NULL, NULL, NULL, 0, 10, 0,
                    123456 + i, 120000, 900000, 1234567 + i, 1250, 325, 775, 9950, 31500
             FROM n;
             INSERT INTO run_histograms (run_id, upper_ns, count)
             SELECT (SELECT max(id) FROM runs), 1000 * i, i FROM (SELECT 1 AS i UNION SELECT 2 UNION SELECT 3);
             SELECT max(id) FROM runs;"
}

N=3000
old1=$(add_run $((400 * DAY_USEC)) $N)
old2=$(add_run $((40 * DAY_USEC)) $N)
new1=$(add_run $((10 * DAY_USEC)) $N)
new2=$(add_run 3600000000 $N)
log "runs $old1 $old2 (old), $new1 $new2 (recent), $N samples each"
assert_eq $((4 * N)) "$(sql "SELECT count(*) FROM samples")" "samples written"
sql "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
pages_before=$(sql "PRAGMA page_count")

# ---- refused: without --older-than, to anyone but root ----
run benchctl prune
assert_eq 2 "$RC" "benchctl prune without --older-than: exit status ($OUT)"
assert_contains "$OUT" "--older-than" "benchctl prune without --older-than"
run setpriv --reuid=65534 --regid=65534 --clear-groups "$BENCHCTL_BIN" --bus-address="$BUS_ADDRESS" prune --older-than=30d
[ "$RC" != 0 ] || fail "benchctl prune as nobody succeeded: $OUT"
assert_contains "$OUT" "needs root" "benchctl prune as nobody"
assert_eq $((4 * N)) "$(sql "SELECT count(*) FROM samples")" "samples after the refused prunes"

# ---- nothing older than a date before every run ----
run benchctl prune --older-than=2000-01-01
assert_eq 0 "$RC" "benchctl prune --older-than=2000-01-01 ($OUT)"
assert_contains "$OUT" "Removed 0 samples of 0 runs" "prune of nothing"

# ---- 30 days: the two old runs lose their samples, nothing else goes ----
out=$(benchctl --json=short prune --older-than=30d) || fail "benchctl prune --older-than=30d failed: $out"
assert_eq "2 $((2 * N))" "$(json_get '"%d %d" % (d["runs"], d["samples"])' <<<"$out")" "runs and samples removed"
assert_eq 0 "$(sql "SELECT count(*) FROM samples WHERE run_id IN ($old1, $old2)")" "samples of the old runs"
assert_eq $((2 * N)) "$(sql "SELECT count(*) FROM samples WHERE run_id IN ($new1, $new2)")" "samples of the recent runs"
assert_eq 4 "$(sql "SELECT count(*) FROM runs")" "runs after the prune"
assert_eq 12 "$(sql "SELECT count(*) FROM run_histograms")" "histogram buckets after the prune"
assert_eq "$((4096 * 10 * N))" "$(sql "SELECT bytes_written FROM run_summary WHERE id = $old1")" \
        "the old run's summary"
# The recent samples read as they were written.
assert_eq "1000000|40960|12.5|31.5" \
        "$(sql "SELECT interval_us, bytes_written, iowait_pct, dev_queue FROM samples WHERE run_id = $new2 AND t_ms = 2000")" \
        "a recent sample through the samples view"

# ---- the space is given back ----
assert_eq 0 "$(sql "PRAGMA freelist_count")" "free pages after the prune"
pages_after=$(sql "PRAGMA page_count")
log "pages: $pages_before before, $pages_after after"
[ $((pages_after * 10)) -lt $((pages_before * 7)) ] ||
        fail "the database has $pages_after pages after pruning half its samples, $pages_before before"

# ---- SampleRetentionDays=: at start-up, by itself ----
old3=$(add_run $((50 * DAY_USEC)) $N)
stop_benchd
printf '[Daemon]\nSampleRetentionDays=45\n' >"$CONF"
start_benchd --config="$CONF"
old3_pruned() { [ "$(sql "SELECT count(*) FROM samples WHERE run_id = $old3")" = 0 ]; }
wait_for 30 old3_pruned || fail "SampleRetentionDays=45 left the samples of a run 50 days old"
assert_eq $((2 * N)) "$(sql "SELECT count(*) FROM samples WHERE run_id IN ($new1, $new2)")" \
        "samples of the recent runs after SampleRetentionDays=45"
wait_for 10 grep -q "SampleRetentionDays=45: removed $N samples of 1 runs" "$BENCHD_LOG" ||
        fail "benchd did not log the removal: $(tail -n 5 "$BENCHD_LOG")"

# ---- a value that is not a number of days: benchd keeps everything and says why ----
old4=$(add_run $((50 * DAY_USEC)) 10)
stop_benchd
printf 'SampleRetentionDays=45d\n' >"$CONF"
start_benchd --config="$CONF"
wait_for 10 grep -q "SampleRetentionDays=45d is not a number of days" "$BENCHD_LOG" ||
        fail "benchd did not refuse SampleRetentionDays=45d: $(tail -n 5 "$BENCHD_LOG")"
# Prunes run one after the other: one asked for now (of runs older than 60 days: none) is answered
# after any start-up prune would have been done, instead of after a guess at how long that takes.
assert_success "PruneSamples of nothing" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" PruneSamples t \
        $(($(date +%s%6N) - 60 * DAY_USEC))
assert_eq "tt 0 0" "$OUT" "PruneSamples of runs older than 60 days"
assert_eq 10 "$(sql "SELECT count(*) FROM samples WHERE run_id = $old4")" "samples kept with a bad SampleRetentionDays="

log "ok"
