#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The walking skeleton end to end: a private bus, benchd on a temporary database, a dd-style
# write (64 MiB in 32 KiB O_DIRECT blocks, samples every 200 ms) into a directory on an ext4
# filesystem on a loop device, submitted once through raw D-Bus (busctl) and once through
# benchctl --wait, then a read; later the dd profile, metadata, and bonnie++'s per-character putc
# and getc (runs of block_size 1, a latency per batch of 8192 characters, judged plausible by
# benchd). Everything is checked where a user would look: the JobRemoved signal, the SQLite file
# (with sqlite3), and benchctl's JSON.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4
require_binaries "$BENCHCTL_BIN"

SIZE=$((64 << 20))
SAMPLE_MS=200

start_bus
start_monitor
scratch_fs 512M ext4 --direct-io
start_benchd

# check_run JOB_ID WORKLOAD: the job's single run in SQLite is complete and self-consistent.
check_run() {
        local job=$1 workload=$2 run status bytes dur n expected col
        assert_eq succeeded "$(job_state "$job")" "jobs.state of job $job"
        assert_eq 1 "$(sql "select count(*) from runs where job_id = $job")" "runs of job $job"
        run=$(sql "select id from runs where job_id = $job")
        status=$(sql "select status from runs where id = $run")
        assert_eq succeeded "$status" "runs.status of run $run"
        assert_eq "$workload" "$(sql "select workload from runs where id = $run")" "runs.workload"
        assert_eq "$SCRATCH_DIR" "$(sql "select target from runs where id = $run")" "runs.target"
        assert_eq 32768 "$(sql "select block_size from runs where id = $run")" "runs.block_size"
        assert_eq 1 "$(sql "select direct from runs where id = $run")" "runs.direct"
        if [ "$workload" = write ]; then col=bytes_written; else col=bytes_read; fi
        bytes=$(sql "select $col from runs where id = $run")
        assert_eq "$SIZE" "$bytes" "runs.$col of a $workload of 64 MiB"
        assert_eq $((SIZE / 32768)) "$(sql "select ios_${col#bytes_} from runs where id = $run")" \
                "runs.ios_${col#bytes_} (64 MiB / 32 KiB)"
        # The other direction stayed untouched by the measured phase.
        if [ "$workload" = write ]; then
                assert_eq 0 "$(sql "select coalesce(bytes_read, 0) from runs where id = $run")" "runs.bytes_read of a write"
        else
                assert_eq 0 "$(sql "select coalesce(bytes_written, 0) from runs where id = $run")" "runs.bytes_written of a read"
        fi
        # Latency summary: ordered percentiles, all present.
        sql "select lat_min_ns, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_max_ns from runs where id = $run" |
                awk -F'|' '{ for (i = 1; i <= NF; i++) if ($i == "") exit 1;
                             for (i = 2; i <= NF; i++) if ($i + 0 < $(i - 1) + 0) exit 1 }' ||
                fail "latency summary of run $run not ordered min<=p50<=p90<=p99<=max: $(sql "select lat_min_ns, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_max_ns from runs where id = $run")"
        [ "$(sql "select lat_min_ns > 0 from runs where id = $run")" = 1 ] || fail "lat_min_ns of run $run is 0"

        # Samples: one per 200 ms of the measured duration (the last may be partial).
        dur=$(sql "select duration_usec from runs where id = $run")
        [ -n "$dur" ] && [ "$dur" -gt 0 ] || fail "runs.duration_usec of run $run is '$dur'"
        n=$(sql "select count(*) from samples where run_id = $run")
        expected=$(((dur + SAMPLE_MS * 1000 - 1) / (SAMPLE_MS * 1000)))
        log "run $run: $workload ${dur}us, $n samples (expected about $expected)"
        assert_between $((expected - 2)) "$n" $((expected + 2)) "samples of run $run (${dur}us at ${SAMPLE_MS}ms)"
        # The samples add up to the run's total and are spaced by the interval.
        assert_eq "$SIZE" "$(sql "select sum($col) from samples where run_id = $run")" "sum(samples.$col) of run $run"
        [ "$(sql "select count(*) from samples where run_id = $run and (t_ms <= 0 or interval_us <= 0)")" = 0 ] ||
                fail "samples of run $run with t_ms or interval_us <= 0"
        sql "select t_ms from samples where run_id = $run order by t_ms" | awk -v ms=$SAMPLE_MS -v total="$n" '
                NR > 1 && NR < total { d = $1 - prev; if (d < ms * 0.5 || d > ms * 2.5) { print "gap " d " at " $1; exit 1 } }
                { prev = $1 }' || fail "samples of run $run are not ~${SAMPLE_MS}ms apart: $(sql "select group_concat(t_ms) from samples where run_id = $run")"
        # The histogram counts every I/O.
        assert_eq $((SIZE / 32768)) "$(sql "select coalesce(sum(count), 0) from run_histograms where run_id = $run")" \
                "sum(run_histograms.count) of run $run"
        # The convenience view agrees.
        [ "$(sql "select mib_per_s > 0 and iops > 0 from run_summary where id = $run")" = 1 ] ||
                fail "run_summary of run $run: $(sql "select mib_per_s, iops from run_summary where id = $run")"
        # Nothing of benchd's is left in the target directory.
        assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files left after job $job"
        LAST_RUN=$run
}

# ---- 1. raw D-Bus: SubmitJob with busctl, wait for the JobRemoved signal ----
touch "$SCRATCH_DIR/user-file"
id=$(submit_busctl target s "$SCRATCH_DIR" workload s write size s 64M block_size s 32K \
        direct b true sync s end sample_ms u $SAMPLE_MS label s e2e-busctl) || fail "SubmitJob failed"
log "submitted job $id through busctl"
assert_eq queued_or_running "$(case "$(job_state "$id")" in queued | running | succeeded) echo queued_or_running ;; *) job_state "$id" ;; esac)" "state right after SubmitJob"
result=$(wait_job_removed "$id" 180)
assert_eq succeeded "$result" "JobRemoved result of job $id"
check_run "$id" write
assert_eq e2e-busctl "$(sql "select label from jobs where id = $id")" "jobs.label"
assert_eq 0 "$(sql "select submitted_by from jobs where id = $id")" "jobs.submitted_by"
[ -f "$SCRATCH_DIR/user-file" ] || fail "benchd removed a file it did not create"
# The job object stays for a while after it ended, with its final state and runs.
assert_eq 's "succeeded"' "$(job_prop "$id" State)" "Job.State after the end"
# Exactly the one run: "contains $LAST_RUN" held for "at 1 1" whatever the run's id.
assert_eq "at 1 $LAST_RUN" "$(job_prop "$id" Runs)" "Job.Runs"
assert_eq 'd 1' "$(job_prop "$id" Progress)" "Job.Progress after the end"
assert_eq "u 0" "$(manager_prop QueueLength)" "QueueLength when idle"
assert_eq "t 0" "$(manager_prop RunningJob)" "RunningJob when idle"

# ---- 2. benchctl submit --wait (exit 0 on success), same workload ----
before=$(sql "select coalesce(max(id), 0) from jobs")
run benchctl submit --workload write --target "$SCRATCH_DIR" --set size=64M --set block_size=32K \
        --set direct=true --set sync=end --set sample_ms=$SAMPLE_MS --set label=e2e-benchctl --wait
[ "$RC" = 0 ] || fail "benchctl submit --wait exited $RC: $OUT"
id2=$(sql "select max(id) from jobs")
[ "$id2" -gt "$before" ] || fail "benchctl submit created no job"
assert_eq succeeded "$(wait_job_removed "$id2" 10)" "JobRemoved result of job $id2"
check_run "$id2" write
write_run=$LAST_RUN

# ---- 3. a read of the same size ----
run benchctl submit --workload read --target "$SCRATCH_DIR" --set size=64M --set block_size=32K \
        --set direct=true --set sample_ms=$SAMPLE_MS --wait
[ "$RC" = 0 ] || fail "benchctl submit --workload read --wait exited $RC: $OUT"
id3=$(sql "select max(id) from jobs")
assert_eq succeeded "$(wait_job_removed "$id3" 10)" "JobRemoved result of job $id3"
check_run "$id3" read
read_run=$LAST_RUN

# ---- 3b. the dd profile through benchctl run (what scripts/demo does): two steps, two runs ----
run benchctl run --profile dd --target "$SCRATCH_DIR" --set size=64M --set sample_ms=$SAMPLE_MS --label e2e-dd
[ "$RC" = 0 ] || fail "benchctl run --profile dd exited $RC: $OUT"
idp=$(sql "select max(id) from jobs")
assert_eq succeeded "$(wait_job_removed "$idp" 10)" "JobRemoved result of the dd job $idp"
assert_eq dd "$(sql "select profile from jobs where id = $idp")" "jobs.profile"
assert_eq "0|write|end:fsync|$SIZE|0
1|read|none|0|$SIZE" "$(sql "select step, workload, sync, bytes_written, bytes_read from runs where job_id = $idp order by step")" \
        "steps of the dd profile (step|workload|sync|bytes_written|bytes_read)"
assert_eq "2" "$(sql "select count(*) from run_summary where job_id = $idp and profile = 'dd' and status = 'succeeded' and direct = 1 and block_size = 32768")" \
        "run_summary rows of the dd job"
assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files after the dd job"

# ---- 4. a time-bounded write: the number of samples follows the duration ----
id4=$(submit_busctl target s "$SCRATCH_DIR" workload s write size s 64M block_size s 32K \
        direct b true runtime_ms u 3000 sample_ms u $SAMPLE_MS label s e2e-timed) || fail "SubmitJob (timed) failed"
assert_eq succeeded "$(wait_job_removed "$id4" 60)" "JobRemoved result of the timed job $id4"
run4=$(sql "select id from runs where job_id = $id4")
dur=$(sql "select duration_usec from runs where id = $run4")
n=$(sql "select count(*) from samples where run_id = $run4")
log "timed run $run4: ${dur}us, $n samples"
assert_between 2900000 "$dur" 4000000 "duration_usec of a runtime_ms=3000 write"
assert_between 13 "$n" 17 "samples of a 3 s run at ${SAMPLE_MS} ms"
assert_eq "$(sql "select bytes_written from runs where id = $run4")" \
        "$(sql "select sum(bytes_written) from samples where run_id = $run4")" "sum of the timed run's samples"
assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files after the timed job"
# The job object published each sample as it came (PropertiesChanged of Live and Progress).
lives=$(job_changes "$id4" Live | grep -c t_ms || true)
log "timed job $id4: $lives PropertiesChanged with a Live sample"
assert_between $((n - 2)) "$lives" $((n + 2)) "PropertiesChanged(Live) of the timed job ($n samples)"
job_changes "$id4" Progress | python3 -c '
import sys
v = [float(l) for l in sys.stdin if l.strip()]
assert len(v) >= 5, "only %d Progress changes" % len(v)
assert all(0 <= x <= 1 for x in v), "Progress outside 0..1: %r" % v
assert all(a <= b for a, b in zip(v, v[1:])), "Progress went backwards: %r" % v
assert v[-1] == 1, "last Progress %r, expected 1" % v[-1]
' || fail "Progress of the timed job: $(job_changes "$id4" Progress | tr '\n' ' ')"
assert_eq '"succeeded"' "$(job_changes "$id4" State | tail -n1)" "last State change of the timed job"

# ---- 4b. on a terminal, benchctl --wait shows a live line with MiB/s, IOPS, p99 and iowait ----
if command -v script >/dev/null; then
        live=$(script -qec "stty cols 200; '$BENCHCTL_BIN' --bus-address='$BUS_ADDRESS' submit --workload write \
                --target '$SCRATCH_DIR' --set size=64M --set block_size=32K --set direct=true \
                --set runtime_ms=2000 --set sample_ms=$SAMPLE_MS --wait" /dev/null </dev/null | tr '\r' '\n')
        line=$(grep -a 'iowait' <<<"$live" | tail -n1)
        log "live line: $line"
        [[ "$line" =~ [0-9.]+\ MiB/s.*[0-9.k]+\ IOPS.*p99\ [0-9.]+.*s.*iowait\ [0-9.]+% ]] ||
                fail "benchctl --wait on a terminal showed no live MiB/s, IOPS, p99 and iowait: $(tail -n5 <<<"$live")"
        assert_contains "$live" "succeeded" "benchctl --wait on a terminal"
fi

# ---- 5. benchctl's JSON agrees with SQLite ----
run benchctl results --json
[ "$RC" = 0 ] || fail "benchctl results --json exited $RC: $OUT"
printf '%s' "$OUT" >"$TEST_DIR/results.json"
python3 - "$TEST_DIR/results.json" "$DB" <<'EOF' || fail "benchctl results --json disagrees with sqlite"
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
rows = doc if isinstance(doc, list) else doc.get("runs")
assert isinstance(rows, list), "results --json is neither a list nor {runs: [...]}: %r" % (doc,)
db = sqlite3.connect(sys.argv[2])
want = [r[0] for r in db.execute("select id from runs order by started_usec desc, id desc")]
got = [int(r["id"]) for r in rows]
assert got == want, "run ids (newest first): sqlite %r, benchctl %r" % (want, got)
for r in rows:
    bw, br, st = db.execute("select bytes_written, bytes_read, status from runs where id = ?", (r["id"],)).fetchone()
    assert int(r["bytes_written"]) == bw, "run %s bytes_written: sqlite %s, json %s" % (r["id"], bw, r["bytes_written"])
    assert int(r["bytes_read"]) == br, "run %s bytes_read: sqlite %s, json %s" % (r["id"], br, r["bytes_read"])
    assert r["status"] == st, "run %s status: sqlite %s, json %s" % (r["id"], st, r["status"])
print("results --json: %d runs agree" % len(rows))
EOF

for r in "$write_run" "$read_run"; do
        run benchctl show "$r" --json
        [ "$RC" = 0 ] || fail "benchctl show $r --json exited $RC: $OUT"
        printf '%s' "$OUT" >"$TEST_DIR/show.json"
        python3 - "$TEST_DIR/show.json" "$DB" "$r" <<'EOF' || fail "benchctl show $r --json disagrees with sqlite"
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
run_id = int(sys.argv[3])
run = doc.get("run", doc)
db = sqlite3.connect(sys.argv[2])
db.row_factory = sqlite3.Row
row = db.execute("select * from runs where id = ?", (run_id,)).fetchone()
assert int(run["id"]) == run_id, "id %r" % run.get("id")
for k in ("bytes_written", "bytes_read", "ios_written", "ios_read", "duration_usec", "lat_p99_ns"):
    assert int(run[k]) == row[k], "%s: sqlite %s, json %s" % (k, row[k], run[k])
samples = doc.get("samples")
assert isinstance(samples, list), "show --json has no samples list"
n = db.execute("select count(*) from samples where run_id = ?", (run_id,)).fetchone()[0]
assert len(samples) == n, "samples: sqlite %d, json %d" % (n, len(samples))
print("show %d --json agrees (%d samples)" % (run_id, n))
EOF
done

# The human forms work too.
assert_success "benchctl results" benchctl results
assert_contains "$OUT" "write" "benchctl results"
assert_success "benchctl show $write_run" benchctl show "$write_run"
assert_success "benchctl jobs --json" benchctl jobs --json
printf '%s' "$OUT" | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "benchctl jobs --json is not JSON: $OUT"
assert_success "benchctl status $id3" benchctl status "$id3"
assert_contains "$OUT" succeeded "benchctl status $id3"

# ---- 5b. metadata (bonnie++ -n) through benchd: each of its six phases reaches SQLite ----
run benchctl submit --workload metadata --target "$SCRATCH_DIR" --set file_count=2000 \
        --set file_size_max=4K --set dirs=4 --wait
[ "$RC" = 0 ] || fail "benchctl submit --workload metadata --wait exited $RC: $OUT"
idm=$(sql "select max(id) from jobs")
assert_eq succeeded "$(wait_job_removed "$idm" 10)" "JobRemoved result of the metadata job $idm"
runm=$(sql "select id from runs where job_id = $idm")
log "metadata run $runm: $(sql "select group_concat(phase || ' ' || ops || ' ops ' || cast(ops_per_s as integer) || '/s', ', ')
                               from (select * from run_phase_summary where run_id = $runm order by seq)")"
assert_eq "create-seq|2000
stat-seq|2000
delete-seq|2000
create-rand|2000
stat-rand|2000
delete-rand|2000" "$(sql "select phase, ops from run_phases where run_id = $runm order by seq")" \
        "run_phases of metadata run $runm (phase|ops)"
assert_eq 6 "$(sql "select count(*) from run_phase_summary where run_id = $runm and ops > 0 and ops_per_s > 0
                    and lat_min_ns <= lat_p50_ns and lat_p50_ns <= lat_p99_ns and lat_p99_ns <= lat_max_ns")" \
        "phases of run $runm with ops > 0, a rate and ordered latencies"
assert_eq "$(sql "select ops from runs where id = $runm")" "$(sql "select sum(ops) from run_phases where run_id = $runm")" \
        "the run's ops are its phases' ops"
run benchctl show "$runm" --json
[ "$RC" = 0 ] || fail "benchctl show $runm --json exited $RC: $OUT"
printf '%s' "$OUT" | python3 -c '
import json, sys
p = json.load(sys.stdin)["phases"]
assert [x["phase"] for x in p] == ["create-seq", "stat-seq", "delete-seq", "create-rand", "stat-rand", "delete-rand"], p
assert all(x["ops"] == 2000 and x["ops_per_s"] > 0 for x in p), p
' || fail "benchctl show $runm --json: no six phases: $OUT"
assert_success "benchctl show $runm" benchctl show "$runm"
assert_contains "$OUT" "stat-rand" "benchctl show of a metadata run"
printf '%s\n' "$OUT" | sed -n '/^Phases:/,/^$/p' >&2
assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files after the metadata job"

# ---- 5c. bonnie++'s per-character tests through benchd: what the run rows say ----
# benchd judges every frame (proto-plausible.c): a character is an I/O of one byte, and the
# histogram holds a latency per batch of 8192 of them (a system call each: 2 MiB of them).
CHARS=$((2 << 20))
for w in putc getc; do
        run benchctl submit --workload "$w" --target "$SCRATCH_DIR" --set size=$CHARS --set sample_ms=$SAMPLE_MS --wait
        [ "$RC" = 0 ] || fail "benchctl submit --workload $w --wait exited $RC: $OUT"
        idc=$(sql "select max(id) from jobs")
        assert_eq succeeded "$(wait_job_removed "$idc" 10)" "JobRemoved result of the $w job $idc"
        runc=$(sql "select id from runs where job_id = $idc")
        if [ "$w" = putc ]; then col=written; sync=end:fsync; else col=read; sync=none; fi
        assert_eq "$w|1|0|1|$sync|$CHARS|$CHARS|0" \
                "$(sql "select workload, block_size, direct, queue_depth, sync, bytes_$col, ios_$col, coalesce(ops, 0)
                        from runs where id = $runc")" \
                "run $runc of $w (workload|block_size|direct|queue_depth|sync|bytes|ios|ops)"
        assert_eq $((CHARS / 8192)) "$(sql "select sum(count) from run_histograms where run_id = $runc")" \
                "latencies of $w run $runc: one per batch of 8192 characters"
        assert_eq "$CHARS" "$(sql "select sum(bytes_$col) from samples where run_id = $runc")" \
                "the samples of $w run $runc add up to its characters"
        assert_eq 1 "$(sql "select abs(iops - mb_per_s * 1000000) < 1 from run_summary where id = $runc")" \
                "IOPS of $w run $runc are characters (bytes) a second"
        log "$w run $runc: $(sql "select cast(iops as integer) || ' characters/s, batch max ' || lat_max_ns || ' ns'
                                  from run_summary where id = $runc")"
        assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files after the $w job"
done
run benchctl submit --workload putc --target "$SCRATCH_DIR" --set direct=true
[ "$RC" = 2 ] || [ "$RC" = 1 ] || fail "putc with direct=true exited $RC: $OUT"
assert_contains "$OUT" "direct: true given, but workload putc moves one character per system call" "putc with direct=true refused"

# ---- 6. the daemon stops cleanly and the database stays readable ----
stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status after SIGTERM"
assert_eq ok "$(sql 'pragma integrity_check')" "integrity_check"
assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files after shutdown"

log "PASS"
