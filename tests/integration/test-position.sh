#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The position workload end to end: throughput at evenly spread offsets of a block device (GNOME
# Disks' benchmark), on a 64 MiB loop device backed by an image file of the test, through the real
# daemon on a private bus. It only reads, so the device needs no scratch mark. Checked where a user
# would look: run_positions and run_position_summary in SQLite (8 offsets from 0 to the device's
# end, increasing, aligned, none overlapping, MB/s > 0, adding up to the run), benchctl show's table
# and its --json, and what the daemon refuses (a directory target, too many positions for the
# device).

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup blockdev
require_binaries "$BENCHCTL_BIN"

DEV_SIZE=$((64 << 20))
PER=$((4 << 20))
N=8

start_bus
make_loop 64M --direct-io
DEV=$LOOP_DEV
start_benchd

# ---- 1. benchctl run --workload position: 8 offsets of 4 MiB ----
run benchctl run --workload position --target "$DEV" --set positions=$N --set size=4M --set sample_ms=100 \
        --label e2e-position
[ "$RC" = 0 ] || fail "benchctl run --workload position exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq succeeded "$(job_state "$job")" "jobs.state of the position job $job"
run_id=$(sql "select id from runs where job_id = $job")
assert_eq position "$(sql "select workload from runs where id = $run_id")" "runs.workload"
assert_eq succeeded "$(sql "select status from runs where id = $run_id")" "runs.status"
assert_eq $((1 << 20)) "$(sql "select block_size from runs where id = $run_id")" "runs.block_size (position defaults to 1M)"
assert_eq 1 "$(sql "select direct from runs where id = $run_id")" "runs.direct (position defaults to O_DIRECT)"
assert_eq $N "$(sql "select json_extract(spec, '\$.positions') from jobs where id = $job")" "jobs.spec positions"

# The rows: one per offset, seq 0..7, the first at 0 and the last ending at the device's end.
assert_eq $N "$(sql "select count(*) from run_positions where run_id = $run_id")" "run_positions rows"
assert_eq "0|$((N - 1))" "$(sql "select min(seq), max(seq) from run_positions where run_id = $run_id")" "seq range"
assert_eq 0 "$(sql "select offset_bytes from run_positions where run_id = $run_id and seq = 0")" "first offset"
assert_eq $DEV_SIZE "$(sql "select offset_bytes + bytes from run_positions where run_id = $run_id and seq = $((N - 1))")" \
        "end of the last position (the device's size)"
assert_eq "$PER" "$(sql "select group_concat(distinct bytes) from run_positions where run_id = $run_id")" \
        "bytes read at each offset (size=4M)"
# Evenly spread: offset i = floor(i × (64M − 4M) / 7) aligned down to 1 MiB.
expected=$(python3 -c "print(','.join(str(i * ($DEV_SIZE - $PER) // ($N - 1) // 1048576 * 1048576) for i in range($N)))")
assert_eq "$expected" "$(sql "select group_concat(offset_bytes, ',') from (select offset_bytes from run_positions where run_id = $run_id order by seq)")" \
        "offsets of the positions"
assert_eq 0 "$(sql "select count(*) from run_positions a join run_positions b on b.run_id = a.run_id and b.seq = a.seq + 1
                   where a.run_id = $run_id and b.offset_bytes < a.offset_bytes + a.bytes")" "overlapping positions"
assert_eq 0 "$(sql "select count(*) from run_positions where run_id = $run_id and offset_bytes % 1048576 != 0")" \
        "offsets not aligned to block_size"
assert_eq $N "$(sql "select count(*) from run_position_summary where run_id = $run_id and mb_per_s > 0
                    and lat_mean_ns > 0 and lat_max_ns >= lat_mean_ns")" "positions with MB/s > 0 and latencies"
assert_eq 1 "$(sql "select abs(mb_per_s - bytes * 1.0 / duration_usec) < 1e-9 from run_position_summary
                   where run_id = $run_id and seq = 0")" "mb_per_s is bytes / duration_usec (10^6 B/s)"
# The run is the total over the offsets, and its histogram counts every read.
assert_eq $((N * PER)) "$(sql "select bytes_read from runs where id = $run_id")" "runs.bytes_read"
assert_eq "$(sql "select sum(bytes) from run_positions where run_id = $run_id")" \
        "$(sql "select bytes_read from runs where id = $run_id")" "sum of the positions' bytes"
assert_eq $((N * PER >> 20)) "$(sql "select sum(count) from run_histograms where run_id = $run_id")" \
        "sum(run_histograms.count): one per 1 MiB read"
assert_eq 0 "$(sql "select coalesce(bytes_written, 0) from runs where id = $run_id")" "bytes written by position"

# ---- 2. benchctl show prints the table and the slowest/fastest line; --json has the rows ----
run benchctl show "$run_id"
[ "$RC" = 0 ] || fail "benchctl show $run_id exited $RC: $OUT"
assert_contains "$OUT" "POSITION" "benchctl show header"
assert_contains "$OUT" "LAT-AVG" "benchctl show header"
assert_contains "$OUT" "LAT-MAX" "benchctl show header"
assert_contains "$OUT" "slowest " "benchctl show slowest/fastest line"
assert_contains "$OUT" "fastest " "benchctl show slowest/fastest line"
assert_contains "$OUT" "60 MiB" "benchctl show offset of the last position"
rows=$(printf '%s\n' "$OUT" | grep -cE '^ *[0-9]+% +[0-9.]+ [KMG]?i?B +[0-9.]+ ' || true)
assert_eq $N "$rows" "rows of benchctl show's positions table: $OUT"
run benchctl show "$run_id" --json
[ "$RC" = 0 ] || fail "benchctl show --json exited $RC: $OUT"
got=$(json_get '"%d|%d|%d" % (len(d["positions"]), d["positions"][0]["offset_bytes"], d["positions"][-1]["offset_bytes"])' <<<"$OUT")
assert_eq "$N|0|$((DEV_SIZE - PER))" "$got" "benchctl show --json positions (count|first offset|last offset)"

# ---- 3. refusals at SubmitJob: a directory, a device too small for the positions ----
run benchctl submit --workload position --target "$TEST_DIR"
[ "$RC" != 0 ] || fail "a position job on a directory was accepted: $OUT"
assert_contains "$OUT" "workload position measures a block device's surface; give a block device as target" \
        "refusal of a directory target"
run benchctl submit --workload position --target "$DEV" --set positions=100
[ "$RC" != 0 ] || fail "100 positions of 1 MiB on a 64 MiB device were accepted: $OUT"
assert_contains "$OUT" "positions=64 or less" "refusal of too many positions"

# ---- 4. the default size (64M) is capped at the device / positions ----
run benchctl run --workload position --target "$DEV" --set positions=16
[ "$RC" = 0 ] || fail "benchctl run --workload position (default size) exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
run_id=$(sql "select id from runs where job_id = $job")
assert_eq "16|$((4 << 20))|$DEV_SIZE" "$(sql "select count(*), max(bytes), max(offset_bytes + bytes) from run_positions where run_id = $run_id")" \
        "16 positions of the capped default size"
log "position workload passed"
