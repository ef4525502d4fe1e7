#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Filesystem matrices (issue 11), through the real daemon on loop devices marked scratch:
#   1. ext4, xfs and btrfs on one device, running the dd profile shortened: every run records how
#      its filesystem was made and what it held after mkfs; nothing is ever mounted on the host;
#      compare --job's % row is the hand-computed one, in the right direction;
#   2. btrfs raid1 over two devices: both carry the same btrfs afterwards;
#   3. bad input, refused at SubmitJob with the device unchanged: an option mkfs rejects (its
#      message quoted), a device that is not scratch and carries data, an unknown filesystem, a
#      device listed twice (also through a symlink), too few devices for the layout, a layout the
#      filesystem cannot do, md RAID on a kernel without md;
#   4. kill -9 of the worker mid-matrix: the job fails naming the entry, nothing stays mounted;
#   5. a blank device that is not scratch (destructive=true): the entry's later steps accept the
#      filesystem its first step made, and afterwards the device, now carrying it, is refused;
#   6. ext4 and btrfs with repeat=3 run in rounds: the runs' order and round numbers in SQLite (A B,
#      B A, A B, each visit on a filesystem made afresh), the run lines and the log naming entry and
#      round; compare --job marks each difference as the paired t-test over the rounds says (worked
#      out here from the runs) at 95% and at another --confidence; show --job gives dd's lines per
#      entry; the anchors' files are one per entry (two bonnie++ lines bon_csv2txt shows as two rows,
#      named host-ENTRY, with each entry's own figures; two iozone reports titled by their entry), and
#      --entry/--fs-type choose entries or say what there is.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfs.xfs mkfs.btrfs blkid sha256sum wipefs
require_loop
require_fs ext4 xfs btrfs
require_binaries

INVALID=org.benchd.Benchd1.Error.InvalidSpec
UNSAFE=org.benchd.Benchd1.Error.Unsafe

start_bus
start_udevd

# Three scratch devices (xfs needs 300 MB), and one that is not scratch and holds an ext4.
make_loop 320M; L1=$LOOP_DEV
make_loop 320M; L2=$LOOP_DEV
make_loop 320M; L3=$LOOP_DEV
make_loop 64M; DATA=$LOOP_DEV
make_loop 320M; BLANK=$LOOP_DEV
for d in "$L1" "$L2" "$L3" "$BLANK"; do wipefs -a -q "$d"; done
mkfs.ext4 -q -F "$DATA" >/dev/null
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s %s %s\n' "$L1" "$L2" "$L3" >"$CONF"
start_benchd --config="$CONF"

# nothing_mounted DEV...: no mount namespace on the machine has any of them mounted.
nothing_mounted() {
        local d majmin
        for d in "$@"; do
                majmin=$(lsblk -dno MAJ:MIN "$d" | tr -d ' ')
                if grep -l " $majmin " /proc/[0-9]*/mountinfo 2>/dev/null | grep -q .; then
                        fail "$d ($majmin) is mounted somewhere: $(grep -h " $majmin " /proc/[0-9]*/mountinfo | head -3)"
                fi
        done
}

# ---- 1. ext4, xfs, btrfs on one device, the dd profile ----
log "1. a matrix of ext4, xfs and btrfs on $L1 running the dd profile"
out=$(benchctl run --profile dd --set filesystems=ext4,xfs,btrfs --set devices="$L1" --set destructive=true \
        --set size=16M --set mkfs_options.ext4="-E lazy_itable_init=0,lazy_journal_init=0" \
        --set mount_options.ext4=noatime 2>&1) || fail "the matrix job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "matrix job state"
assert_eq "6" "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" "runs of 3 entries × 2 steps"
assert_eq "0|ext4|write
0|ext4|read
1|xfs|write
1|xfs|read
2|btrfs|write
2|btrfs|read" "$(sql "select matrix_entry, fs_type, workload from runs where job_id = $job order by step")" "entries in order"
assert_eq "mkfs.ext4 -E lazy_itable_init=0,lazy_journal_init=0 /dev/$(basename "$L1")" \
        "$(sql "select mkfs_command from runs where job_id = $job and step = 0")" "the exact mkfs command"
assert_eq "noatime" "$(sql "select mount_options from runs where job_id = $job and step = 0")" "ext4's mount options"
assert_eq "single|[\"$L1\"]" "$(sql "select distinct layout, members from runs where job_id = $job")" "layout and members"
# Every run carries its entry's mkfs figures; capacity is sane and the same within an entry.
assert_eq "0" "$(sql "select count(*) from runs where job_id = $job and not (mkfs_usec > 0 and fs_size_bytes > 0
        and fs_used_bytes > 0 and fs_used_bytes < fs_size_bytes and fs_avail_bytes <= fs_size_bytes
        and length(fs_uuid) > 0)")" "runs without sane mkfs figures"
assert_eq "3" "$(sql "select count(distinct fs_uuid) from runs where job_id = $job")" "one filesystem per entry"
assert_eq "0" "$(sql "select count(*) from (select matrix_entry from runs where job_id = $job group by matrix_entry
        having count(distinct fs_used_bytes) > 1 or count(distinct mkfs_command) > 1)")" "entries whose runs disagree"
# The device is left with the last entry's filesystem, which the last run recorded.
assert_eq "btrfs $(sql "select fs_uuid from runs where job_id = $job and step = 5")" \
        "$(blkid -o value -s TYPE "$L1") $(blkid -o value -s UUID "$L1")" "what $L1 carries afterwards"
nothing_mounted "$L1"

# compare --job: one row per workload, one column per filesystem, % against ext4.
table=$(benchctl compare --job "$job")
log "compare --job $job:"$'\n'"$table"
assert_contains "$table" "the difference against ext4" "the % against the first filesystem"
json=$(benchctl compare --job "$job" --json)
# By hand, from the database: MiB/s of each run, (x - ext4) / ext4.
expect=$(sql "select r.workload, r.fs_type, (r.bytes_read + r.bytes_written) * 1000000.0 / r.duration_usec / 1048576.0
        from runs r where r.job_id = $job order by r.step" | python3 -c '
import sys
v = {}
for line in sys.stdin:
    w, fs, x = line.strip().split("|")
    v[(w, fs)] = float(x)
for w in ("write", "read"):
    for fs in ("xfs", "btrfs"):
        print("%s %s %.4f" % (w, fs, (v[(w, fs)] - v[(w, "ext4")]) / v[(w, "ext4")] * 100))')
got=$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["baseline"] == "ext4" and d["groups"] == ["ext4", "xfs", "btrfs"], (d["baseline"], d["groups"])
cells = {(c["workload"], c["group"]): c["mib_per_s"] for c in d["cells"]}
for w in ("write", "read"):
    for fs in ("xfs", "btrfs"):
        print("%s %s %.4f" % (w, fs, cells[(w, fs)]["diff_pct"]))')
assert_eq "$expect" "$got" "compare --job % differences against ext4"
# --baseline moves the reference: btrfs against xfs.
got=$(benchctl compare --job "$job" --baseline xfs --json |
        json_get '[round(c["mib_per_s"]["diff_pct"], 4) for c in d["cells"] if c["group"] == "btrfs" and c["workload"] == "write"][0]')
want=$(sql "select round(((select (bytes_read + bytes_written) * 1.0 / duration_usec from runs where job_id = $job and step = 4)
        / (select (bytes_read + bytes_written) * 1.0 / duration_usec from runs where job_id = $job and step = 2) - 1) * 100, 4)")
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) < 0.001 else 1)" "$got" "$want" ||
        fail "compare --baseline xfs: btrfs is $got%, by hand $want%"
assert_failure benchctl compare --job "$job" --baseline zfs
show=$(benchctl show --job "$job")
log "show --job $job:"$'\n'"$show"
assert_contains "$show" "USE%" "show --job's capacity table"
assert_contains "$show" "entry 2 of 3, xfs on $(basename "$L1"): 2 succeeded runs: dd's closing lines" "show --job: xfs's dd view"

# ---- 2. btrfs raid1 over two devices ----
log "2. btrfs raid1 over $L2 and $L3"
out=$(benchctl run --workload write --set filesystems=btrfs --set layout=raid1 --set devices="$L2,$L3" \
        --set destructive=true --set size=16M --set block_size=64K 2>&1) || fail "the raid1 job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "btrfs|raid1|[\"$L2\",\"$L3\"]" "$(sql "select fs_type, layout, members from runs where job_id = $job")" "raid1 run"
uuid=$(sql "select fs_uuid from runs where job_id = $job")
assert_eq "btrfs $uuid btrfs $uuid" "$(blkid -o value -s TYPE "$L2") $(blkid -o value -s UUID "$L2") $(blkid -o value -s TYPE "$L3") $(blkid -o value -s UUID "$L3")" \
        "both members carry the same btrfs"
assert_contains "$(sql "select mkfs_command from runs where job_id = $job")" "-d raid1 -m raid1" "mkfs.btrfs's profile options"
nothing_mounted "$L2" "$L3"

# ---- 3. bad input: refused at submit, the devices unchanged ----
log "3. bad input"
wipefs -a -q "$L3"
sum1=$(sha256sum <"$L1"); sum3=$(sha256sum <"$L3"); sumd=$(sha256sum <"$DATA")
# refused NEEDLE KEY=VALUE...: SubmitJob refuses the job, saying NEEDLE.
refused() {
        local needle=$1 args=() a
        shift
        for a in "$@"; do args+=(--set "$a"); done
        out=$(benchctl submit --workload write --set destructive=true --set size=8M "${args[@]}" 2>&1) &&
                fail "accepted: $* ($out)"
        assert_contains "$out" "$needle" "refusal of $*"
}
refused "mkfs.ext4" filesystems=ext4 devices="$L1" mkfs_options.ext4="-O no_such_feature"
refused "nosuchfs" filesystems=nosuchfs devices="$L1"
refused "given twice" filesystems=ext4 devices="$L1,$L1"
ln -s "$L1" "$TEST_DIR/same-as-l1"
refused "same device" filesystems=ext4 devices="$L1,$TEST_DIR/same-as-l1"
refused "at least 2 devices" filesystems=btrfs layout=raid1 devices="$L1"
refused "btrfs's own RAID" filesystems=ext4,btrfs layout=raid1 devices="$L1,$L3"
refused "md" filesystems=ext4 layout=md-raid1 devices="$L1,$L3"
refused "ext4 signature" filesystems=ext4 devices="$DATA"
refused "destructive" filesystems=ext4 devices="$L1" destructive=false
assert_eq "$sum1 $sum3 $sumd" "$(sha256sum <"$L1") $(sha256sum <"$L3") $(sha256sum <"$DATA")" "devices after the refusals"
# And the mkfs message is quoted.
out=$(benchctl submit --workload write --set filesystems=ext4 --set devices="$L3" --set destructive=true \
        --set mkfs_options.ext4="-O no_such_feature" 2>&1) || true
assert_contains "$out" "Invalid filesystem option set: no_such_feature" "mkfs.ext4's own words"

# ---- 4. kill -9 of the worker mid-matrix ----
log "4. kill -9 of the worker mid-matrix"
id=$(benchctl submit --workload write --set filesystems=ext4,xfs --set devices="$L3" --set destructive=true \
        --set size=64M --set runtime_ms=60000 --set block_size=4K | awk '{print $NF}' | tr -dc '0-9')
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
entry_made() { [ "$(sql "select count(*) from runs where job_id = $id and fs_uuid is not null")" = 1 ]; }
job_failed() { [ "$(sql "select state from jobs where id = $id")" = failed ]; }
wait_for 30 entry_made ||
        fail "the first entry's filesystem was not made: $(sql "select state, error from jobs where id = $id")"
pids=$(worker_pids)
[ -n "$pids" ] || fail "no worker to kill"
# Mounted in the worker's namespace, and only there.
for p in $pids; do
        grep -q " $(lsblk -dno MAJ:MIN "$L3" | tr -d ' ') " "/proc/$p/mountinfo" && inside=1
done
[ "${inside:-0}" = 1 ] || fail "the worker's namespace does not have $L3 mounted"
grep -q " $(lsblk -dno MAJ:MIN "$L3" | tr -d ' ') " /proc/self/mountinfo && fail "$L3 is mounted in the host namespace"
kill -9 $pids
wait_for 30 job_failed ||
        fail "job $id did not fail after kill -9 of its worker: $(sql "select state, error from jobs where id = $id")"
err=$(sql "select error from jobs where id = $id")
log "job $id: $err"
assert_contains "$err" "ext4" "the failed job names its entry"
nothing_mounted "$L3"

# ---- 5. a blank device, not scratch ----
log "5. a blank device that is not marked scratch: $BLANK"
out=$(benchctl run --profile dd --set filesystems=ext4 --set devices="$BLANK" --set destructive=true \
        --set size=8M 2>&1) || fail "the matrix job on blank $BLANK failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "2" "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" \
        "both steps, the second on the ext4 the first made"
assert_eq "ext4" "$(blkid -o value -s TYPE "$BLANK")" "what $BLANK carries afterwards"
sum=$(sha256sum <"$BLANK")
refused "ext4 signature" filesystems=ext4 devices="$BLANK"
assert_eq "$sum" "$(sha256sum <"$BLANK")" "$BLANK after the refusal"
nothing_mounted "$BLANK"

# ---- 6. ext4 and btrfs in rounds ----
log "6. ext4 and btrfs on $L1, the dd profile with repeat=3: in rounds"
wipefs -a -q "$L1"
# On a terminal (script(1) gives it one), so that benchctl draws its progress line as it goes.
script -qec "$(printf '%q ' "$BENCHCTL_BIN" --bus-address="$BUS_ADDRESS" run --profile dd --set filesystems=ext4,btrfs \
        --set devices="$L1" --set destructive=true --set size=8M --set repeat=3)" /dev/null >"$TEST_DIR/rounds.tty" ||
        fail "the matrix job in rounds failed: $(tr '\r' '\n' <"$TEST_DIR/rounds.tty" | tail -5)"
out=$(tr '\r' '\n' <"$TEST_DIR/rounds.tty" | sed 's/\x1b\[K//g')
log "$(grep -v 'running, ' <<<"$out")"
job=$(sql "select max(id) from jobs")
L1N=$(basename "$L1")
# In run order: round 0 ext4 (write, read) then btrfs; round 1 btrfs first; round 2 ext4 first.
assert_eq "0|0|0|0|write
0|0|0|1|read
0|0|1|2|write
0|0|1|3|read
1|1|1|2|write
1|1|1|3|read
1|1|0|0|write
1|1|0|1|read
2|2|0|0|write
2|2|0|1|read
2|2|1|2|write
2|2|1|3|read" "$(sql "select round, \"repeat\", matrix_entry, step, workload from runs where job_id = $job order by id")" \
        "the runs' order and rounds"
# A filesystem made afresh at every visit (the two entries share the device): 6 of them, one per visit.
assert_eq "6" "$(sql "select count(distinct fs_uuid) from runs where job_id = $job")" "filesystems made"
assert_eq "0" "$(sql "select count(*) from (select round, matrix_entry from runs where job_id = $job
        group by round, matrix_entry having count(distinct fs_uuid) != 1)")" "visits whose steps were on two filesystems"
assert_contains "$out" "run $(sql "select id from runs where job_id = $job and round = 1 and step = 2"): btrfs on $L1N: write 32 KiB (round 2):" \
        "the run line names the entry and the round"
# The progress line says which entry runs, which step of the job and which round.
# (On a narrow terminal the line starts at the state: "running, ext4 on ...".)
grep -Eq "^(Job $job )?running, (ext4|btrfs) on $L1N, step [1-4] of 4 (write|read), round [1-3]/3" <<<"$out" ||
        fail "no progress line naming entry, step and round: $(grep "running" <<<"$out" | head -3)"
grep -q "job $job: round 2 (of 3), btrfs on $L1N, step 3/4 (write) on a filesystem made afresh, started as run" "$BENCHD_LOG" ||
        fail "benchd's log does not name round 2's first visit: $(grep "job $job:" "$BENCHD_LOG" | head -5)"

# check_paired LEVEL T_CRIT JSON: each difference is the paired t-test's over the rounds, worked out
# here from the runs' MiB/s: the mean of the per-round differences in % of ext4's mean, significant
# when |t| exceeds Student's t quantile for 2 degrees of freedom at that level.
check_paired() {
        sql "select round, matrix_entry, workload, (bytes_read + bytes_written) * 1000000.0 / duration_usec / 1048576.0
             from runs where job_id = $job order by id" | python3 -c '
import json, math, statistics, sys
level, tcrit, d = float(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3])
v = {}
for line in sys.stdin:
    r, e, w, x = line.strip().split("|")
    v[(int(r), int(e), w)] = float(x)
assert d["groups"] == ["ext4", "btrfs"] and d["baseline"] == "ext4" and abs(d["level"] - level) < 1e-9, d
cells = {(c["workload"], c["group"]): c["mib_per_s"] for c in d["cells"]}
for w in ("write", "read"):
    a = [v[(r, 0, w)] for r in range(3)]
    b = [v[(r, 1, w)] for r in range(3)]
    diff = [y - x for x, y in zip(a, b)]
    t = statistics.mean(diff) / (statistics.stdev(diff) / math.sqrt(3))
    f = cells[(w, "btrfs")]
    assert f["test"] == "paired" and f["pairs"] == 3, f
    assert abs(f["diff_pct"] - statistics.mean(diff) / statistics.mean(a) * 100) < 1e-6, (f, diff, a)
    assert f["significant"] == (abs(t) > tcrit), (w, t, tcrit, f)
    assert f["diff_ci_low_pct"] < f["diff_pct"] < f["diff_ci_high_pct"], f
    print("%s: btrfs %+.1f%% of ext4, paired t = %.2f (df 2), %s at %g%%" %
          (w, f["diff_pct"], t, "significant" if f["significant"] else "not significant", level * 100))' \
                "$1" "$2" "$3"
}
json=$(benchctl compare --job "$job" --json) || fail "compare --job $job --json failed"
check_paired 0.95 4.302652729749464 "$json" || fail "compare --job $job: not the paired test's differences"
json=$(benchctl compare --job "$job" --confidence 80 --json) || fail "compare --job $job --confidence 80 failed"
check_paired 0.8 1.8856180831641267 "$json" || fail "compare --job $job --confidence 80: not the paired test's"
table=$(benchctl compare --job "$job")
log "compare --job $job:"$'\n'"$table"
assert_contains "$table" "the paired t-test over the 3 rounds" "the legend names the test"
line=$(grep '^write 32 KiB Q1×1' <<<"$table" | sed -n 2p)   # the MiB/s table (the first is RUNS)
sig=$(json_get '[c["mib_per_s"]["significant"] for c in d["cells"] if c["workload"] == "write" and c["group"] == "btrfs"][0]' \
        <<<"$(benchctl compare --job "$job" --json)")
if [ "$sig" = True ]; then assert_not_contains "$line" "~" "a significant write difference unmarked"
else assert_contains "$line" "~)" "a write difference within the noise marked"; fi
assert_eq "btrfs" "$(benchctl compare --job "$job" --baseline btrfs --json | json_get 'd["baseline"]')" "--baseline btrfs"

# show --job: dd's lines of each entry, three runs each, then the comparison.
show=$(benchctl show --job "$job")
assert_contains "$show" "entry 1 of 2, ext4 on $L1N: 6 succeeded runs: dd's closing lines" "ext4's dd view"
assert_contains "$show" "entry 2 of 2, btrfs on $L1N: 6 succeeded runs: dd's closing lines" "btrfs's dd view"
assert_contains "$show" "mean of 3 runs" "dd's lines per run, and their mean"
assert_eq 12 "$(grep -c ' bytes (8.4 MB, 8.0 MiB) copied, ' <<<"$show")" "a dd line per run"
assert_contains "$show" "the paired t-test over the 3 rounds" "show --job ends with the comparison"
json=$(benchctl show --job "$job" --json)
assert_eq "matrix|ext4,btrfs|dd,dd|3,3" "$(json_get '"%s|%s|%s|%s" % (d["view"], ",".join(e["name"] for e in d["entries"]), ",".join(e["view"]["view"] for e in d["entries"]), ",".join(str(e["filesystems_made"]) for e in d["entries"]))' <<<"$json")" \
        "show --job --json: entries, their views, filesystems made"

# The anchors' files, one per entry: the dd runs' write and read are bonnie++'s block tests and
# iozone's writer and reader.
benchctl export --format bonnie-csv --job "$job" >"$TEST_DIR/matrix.csv" || fail "export --format bonnie-csv of the matrix"
host=$(sql "select json_extract(environment, '$.host') from runs where job_id = $job limit 1")
assert_eq "$host-ext4
$host-btrfs" "$(cut -d, -f3 "$TEST_DIR/matrix.csv")" "bonnie++'s name field: host and entry"
want=$(sql "select group_concat(k, ',') from (select cast(avg(bytes_written * 1000000.0 / duration_usec / 1024.0) as integer) as k
        from runs where job_id = $job and workload = 'write' group by matrix_entry order by matrix_entry)")
assert_eq "$want" "$(cut -d, -f12 "$TEST_DIR/matrix.csv" | paste -sd,)" "each line's block write: its entry's mean K/sec"
bon_csv2txt <"$TEST_DIR/matrix.csv" >"$TEST_DIR/matrix.txt" 2>"$TEST_DIR/csv2txt.err" || fail "bon_csv2txt failed"
[ -s "$TEST_DIR/csv2txt.err" ] && fail "bon_csv2txt complained: $(cat "$TEST_DIR/csv2txt.err")"
log "bon_csv2txt of the matrix:"$'\n'"$(cat "$TEST_DIR/matrix.txt")"
assert_eq 2 "$(grep -c '^Latency ' "$TEST_DIR/matrix.txt")" "bon_csv2txt's rows (each with its latency row)"
assert_eq 2 "$(grep -c "^$(cut -c1-4 <<<"$host")" "$TEST_DIR/matrix.txt")" "bon_csv2txt's rows named by host and entry"
benchctl export --format iozone --job "$job" >"$TEST_DIR/matrix.iozone" || fail "export --format iozone of the matrix"
assert_eq 2 "$(grep -c '^Excel output is below:' "$TEST_DIR/matrix.iozone")" "iozone reports"
assert_eq "	ext4 on $L1N
	btrfs on $L1N" "$(grep -o "^	[a-z0-9]* on $L1N" "$TEST_DIR/matrix.iozone")" "iozone reports titled by their entry"
benchctl export --format iozone --job "$job" --fs-type btrfs >"$TEST_DIR/btrfs.iozone" || fail "export --fs-type btrfs"
assert_eq 1 "$(grep -c '^Excel output is below:' "$TEST_DIR/btrfs.iozone")" "--fs-type btrfs: one report"
assert_contains "$(cat "$TEST_DIR/btrfs.iozone")" "btrfs on $L1N" "--fs-type btrfs: btrfs's"
run benchctl export --format bonnie-csv --job "$job" --entry xfs
assert_eq 4 "$RC" "--entry of no entry: exit code"
assert_contains "$OUT" "has no entry 'xfs'; its entries are 'ext4', 'btrfs'" "--entry of no entry names the entries"
run benchctl show --job "$job" --workload write
assert_eq 2 "$RC" "--workload on show --job: exit code"
assert_contains "$OUT" "--workload does not apply" "--workload on show --job says so"
nothing_mounted "$L1"

log "ok"
