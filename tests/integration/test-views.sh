#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchctl show --job ID in the shapes of the anchors, and the exports in their formats: every
# shipped profile (dd, bonnie, ping, crystal, quick, iozone) run shortened (--set size=16M and
# short runtimes) on an ext4 loop device of the test, through the real daemon on a private bus.
# Checked against the runs in SQLite: the view's figures (--json and text) are the database's,
# computed the way each tool computes them (KB = 1024 bytes, MB = 10^6, bonnie++'s %CP as percent
# of one CPU); the bonnie++ CSV is read by Debian's own bon_csv2txt and bon_csv2html, whose output
# must carry the same figures (bon_csv2txt's table byte for byte what benchctl shows), and the
# iozone -R report parses back into the runs' KB/s. Then the seed's comparison: the bonnie profile
# as an ext3/ext4 matrix on a scratch loop device: a bonnie++ table per entry (its six metadata
# figures and seeks/s), and one CSV line per entry (named host-ext3 and host-ext4) that
# bon_csv2html draws as two rows of one table, each with its entry's figures; --fs-type on a job
# that is no matrix is refused.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfs.ext3 wipefs bon_csv2txt bon_csv2html
require_binaries "$BENCHCTL_BIN"

start_bus
start_udevd
scratch_fs 512M ext4
# The matrix's device (section 8), marked scratch.
make_loop 256M; MATRIX_DEV=$LOOP_DEV
wipefs -a -q "$MATRIX_DEV"
printf 'ScratchDevices=%s\n' "$MATRIX_DEV" >"$TEST_DIR/benchd.conf"
start_benchd --config="$TEST_DIR/benchd.conf"

# run_profile NAME SET...: runs the profile to its end; sets $job.
run_profile() {
        local name=$1
        shift
        run benchctl run --profile "$name" --target "$SCRATCH_DIR" "$@"
        [ "$RC" = 0 ] || fail "benchctl run --profile $name exited $RC: $OUT"
        job=$(sql "select max(id) from jobs")
        assert_eq succeeded "$(job_state "$job")" "state of the $name job $job"
        assert_eq 0 "$(sql "select count(*) from runs where job_id = $job and status != 'succeeded'")" \
                "runs of job $job that did not succeed"
}

# check_py JSON_FILE SCRIPT: runs python with the test database and the file; fails on its message.
check_py() {
        local out
        out=$(python3 - "$DB" "$1" <<<"$2" 2>&1) || fail "$out"
        [ -z "$out" ] || log "$out"
}

# ---- 1. dd: dd's own closing line per direction, from bytes and duration_usec ----
run_profile dd --set size=16M
run benchctl show --job "$job"
[ "$RC" = 0 ] || fail "show --job $job (dd) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/dd.txt"
check_py "$TEST_DIR/dd.txt" '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); text = open(sys.argv[2]).read()
job = db.execute("select max(id) from jobs").fetchone()[0]
def rate(v):
    e = 0
    while v >= 1000 and e < 6:
        v /= 1000; e += 1
    s = "%.1f" % v
    if len(s) > 4:
        s = "%.0f" % v
    return "%s %sB/s" % (s, ["", "k", "M", "G", "T", "P", "E"][e])
for wl, col in (("write", "bytes_written"), ("read", "bytes_read")):
    b, us = db.execute("select %s, duration_usec from runs where job_id = ? and workload = ?" % col, (job, wl)).fetchone()
    assert b == 16 << 20, (wl, b)
    line = "%d bytes (17 MB, 16 MiB) copied, %s s, %s" % (b, "%g" % (us / 1e6), rate(b / (us / 1e6)))
    assert ("\n" + line + "\n") in text, "dd line %r not in:\n%s" % (line, text)
'
assert_contains "$OUT" "dd if=/dev/zero of=FILE bs=32K count=512 oflag=direct conv=fsync" "dd command of the write step"
assert_contains "$OUT" "benchd: latency p50 " "benchd's extra figures"
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json exited $RC: $OUT"
assert_eq "dd|write,read|1" "$(json_get '"%s|%s|%d" % (d["view"], ",".join(x["workload"] for x in d["directions"]), d["directions"][0]["runs"])' <<<"$OUT")" \
        "show --job --json of the dd job"
DD_JOB=$job

# ---- 2. bonnie: the table bon_csv2txt prints; the CSV line bon_csv2txt and bon_csv2html read ----
# (1M: the per-character steps make a system call per character, as bonnie++ does)
run_profile bonnie --set size=1M --set runtime_ms=0 --set file_count=1024
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json (bonnie) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/bonnie.json"
check_py "$TEST_DIR/bonnie.json" '
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); d = json.load(open(sys.argv[2])); f = d["fields"]
job = d["job"]
cpus, host = db.execute("select json_extract(environment, \"$.cpus\"), json_extract(environment, \"$.host\") "
                        "from runs where job_id = ? order by step limit 1", (job,)).fetchone()
assert cpus >= 1 and d["cpus"] == cpus, (cpus, d.get("cpus"))
def lat(ns):
    if not ns: return ""
    if ns > 99999999000: return "%ds" % int(ns / 1e9)
    if ns > 99999000: return "%dms" % int(ns / 1e6)
    return "%dus" % int(ns / 1e3)
def run(wl):
    return db.execute("select coalesce(bytes_read, 0) + coalesce(bytes_written, 0), duration_usec, process_cpu_pct, "
                      "served_from, lat_max_ns, ops_per_s, ops, jobs, size, bytes_written from run_summary "
                      "where job_id = ? and workload = ?", (job, wl)).fetchone()
want = {"format_version": "1.98", "name": host, "concurrency": "1", "file_size": "1M", "io_chunk_size": "",
        "num_files": "1", "max_size": "64", "min_size": "4", "file_chunk_size": "", "num_dirs": "4"}
# %CP: the CPU time of the worker itself; +++++ and +++ for a test a cache served (served_from), as
# bonnie++ marks a test it could not time. Rewrite is the read-modify-write of bonnie++, counted once.
for name, wl in (("putc", "putc"), ("put_block", "write"), ("rewrite", "read-modify-write"), ("getc", "getc"),
                 ("get_block", "read")):
    b, us, cp, served, mx = run(wl)[:5]
    if wl == "read-modify-write":
        b = run(wl)[9]
    cached = served in ("page-cache", "backing-file")
    want[name] = "+++++" if cached else str(int(b / (us / 1e6) / 1024.0))
    want[name + "_cpu"] = "+++" if cached else str(int(cp))
    want[name + "_latency"] = lat(mx)
b, us, cp, served, mx, ops_s, ops, jobs, size = run("seeks")[:9]
cached = served in ("page-cache", "backing-file")
want["seeks"] = "+++++" if cached else ("%.0f" if ops_s >= 1000 else "%.1f") % ops_s
want["seeks_cpu"] = "+++" if cached else str(int(cp)); want["seeks_latency"] = lat(mx)
# the 8192 seeks of bonnie++ 2.00, shared by its 5 seekers
assert (ops, jobs) == (8192, 5), (ops, jobs)
want["seek_count"] = str(ops); want["seek_proc_count"] = str(jobs)
cp = run("metadata")[2]
for name, phase in (("seq_create", "create-seq"), ("seq_stat", "stat-seq"), ("seq_del", "delete-seq"),
                    ("ran_create", "create-rand"), ("ran_stat", "stat-rand"), ("ran_del", "delete-rand")):
    ops_s, mx = db.execute("select p.ops_per_s, p.lat_max_ns from run_phase_summary p join runs r on r.id = p.run_id "
                           "where r.job_id = ? and p.phase = ?", (job, phase)).fetchone()
    want[name] = str(int(ops_s)); want[name + "_cpu"] = str(int(cp)); want[name + "_latency"] = lat(mx)
bad = {k: (v, f.get(k)) for k, v in want.items() if f.get(k) != v}
assert not bad, "bonnie fields differ from the database (want, got): %r" % bad
assert d["csv"] == ",".join(f.values()), d["csv"]
'
run benchctl show --job "$job"
[ "$RC" = 0 ] || fail "show --job $job (bonnie) exited $RC: $OUT"
printf '%s\n' "$OUT" | sed -n '/^Version /,/^Latency /p' | sed -n '1,/^Latency /p' >"$TEST_DIR/view-io.txt"
printf '%s\n' "$OUT" | sed -n '/Sequential Create/,/^Latency /p' >"$TEST_DIR/view-file.txt"
assert_contains "$OUT" "percent of one CPU" "the %CP note"
benchctl export --format bonnie-csv --job "$job" >"$TEST_DIR/bonnie.csv" || fail "export --format bonnie-csv failed"
assert_eq 1 "$(wc -l <"$TEST_DIR/bonnie.csv")" "lines of the bonnie++ CSV"
assert_eq 50 "$(awk -F, '{ print NF }' "$TEST_DIR/bonnie.csv")" "fields of the bonnie++ CSV line"
assert_eq "$(json_get 'd["csv"]' <"$TEST_DIR/bonnie.json")" "$(cat "$TEST_DIR/bonnie.csv")" "export line = show --json csv"
bon_csv2txt <"$TEST_DIR/bonnie.csv" >"$TEST_DIR/csv2txt.txt" 2>"$TEST_DIR/csv2txt.err" || fail "bon_csv2txt failed"
[ -s "$TEST_DIR/csv2txt.err" ] && fail "bon_csv2txt complained: $(cat "$TEST_DIR/csv2txt.err")"
# The view is bon_csv2txt's table of the export, line for line.
assert_eq "$(cat "$TEST_DIR/csv2txt.txt")" "$(cat "$TEST_DIR/view-io.txt" "$TEST_DIR/view-file.txt")" \
        "bon_csv2txt's table of the export vs benchctl show --job"
bon_csv2html <"$TEST_DIR/bonnie.csv" >"$TEST_DIR/bonnie.html" 2>"$TEST_DIR/csv2html.err" || fail "bon_csv2html failed"
check_py "$TEST_DIR/bonnie.html" '
import json, re, sys
html = open(sys.argv[2]).read()
f = json.load(open(sys.argv[2].replace(".html", ".json")))["fields"]
cells = re.findall(r"<td[^>]*>([^<]*)</td>", html)
assert "Bonnie++ Benchmark results" in html and cells, html[:300]
# Its figures in its order: M/sec of the blocks, the seeks, the six metadata rates, the latencies.
# M/sec: K/sec ÷ 1024 rounded half up, as bon_csv2html rounds (141824 K/sec is 139, where
# round() in Python would give 138).
# bon_csv2html divides +++++ as Perl does: to 0.
def msec(k):
    return "0" if k.startswith("+") else str(int(int(k) / 1024 + 0.5))
want = [msec(f["put_block"]), f["put_block_cpu"], msec(f["rewrite"]), f["rewrite_cpu"],
        msec(f["get_block"]), f["get_block_cpu"], f["seeks"], f["seeks_cpu"]]
want += [f[k] for k in ("seq_create", "seq_create_cpu", "seq_stat", "seq_stat_cpu", "seq_del", "seq_del_cpu",
                        "ran_create", "ran_create_cpu", "ran_stat", "ran_stat_cpu", "ran_del", "ran_del_cpu")]
want += [f[k + "_latency"] for k in ("put_block", "rewrite", "get_block", "seeks", "seq_create", "seq_stat", "seq_del",
                                     "ran_create", "ran_stat", "ran_del")]
got = [c for c in cells if c.strip()]
i = 0
for w in want:
    while i < len(got) and got[i] != w:
        i += 1
    assert i < len(got), "bon_csv2html does not show %r (in order) among %r" % (w, got)
    i += 1
'
BONNIE_JOB=$job

# ---- 3. ping: ioping's summary of the ping run ----
run_profile ping --set size=1M --set runtime_ms=2000 --set sample_ms=100
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json (ping) exited $RC: $OUT"
assert_eq "$(sql "select ios_read || '|' || bytes_read || '|' || lat_min_ns || '|' || lat_max_ns || '|' || duration_usec
                  from runs where job_id = $job")" \
        "$(json_get '"%d|%d|%d|%d|%d" % (d["requests"], d["bytes"], d["lat_min_ns"], d["lat_max_ns"], d["wall_usec"])' <<<"$OUT")" \
        "ping view: requests|bytes|min|max|wall vs the run"
assert_eq "$(sql "select round(lat_mean_ns) from runs where job_id = $job")" \
        "$(json_get '"%.1f" % round(d["lat_avg_ns"])' <<<"$OUT")" "ping view: avg = the run's mean latency"
n=$(sql "select ios_read from runs where job_id = $job")
assert_between 10 "$n" 30 "ping requests in 2 s at 100 ms"
run benchctl show --job "$job"
assert_contains "$OUT" "$n requests completed in " "ioping's first line"
assert_contains "$OUT" "generated $n requests in " "ioping's second line"
assert_contains "$OUT" "min/avg/max/mdev = " "ioping's latency line"
PING_JOB=$job

# ---- 4. crystal: CrystalDiskMark's grid ----
run_profile crystal --set size=16M --set runtime_ms=1000
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json (crystal) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/crystal.json"
check_py "$TEST_DIR/crystal.json" '
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); d = json.load(open(sys.argv[2]))
assert [t["test"] for t in d["tests"]] == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"], d["tests"]
for t in d["tests"]:
    for side in ("read", "write"):
        # the sequential writes overwrite a laid-out file, as those of KDiskMark do
        wl = ("rand" + side) if t["test"].startswith("RND") else "read" if side == "read" else "rewrite"
        mb, iops, lat = db.execute("select mb_per_s, iops, lat_mean_ns from run_summary where job_id = ? and workload = ? "
                                   "and block_size = ? and queue_depth = ? and jobs = ?",
                                   (d["job"], wl, t["block_size"], t["queue_depth"], t["jobs"])).fetchone()
        c = t[side]
        assert c["runs"] == 1, c
        assert math.isclose(c["mb_per_s"], mb, rel_tol=1e-9), (t["test"], side, c["mb_per_s"], mb)
        assert math.isclose(c["iops"], iops, rel_tol=1e-9), (t["test"], side, c["iops"], iops)
        assert math.isclose(c["lat_mean_us"], lat / 1e3, rel_tol=1e-9), (t["test"], side, c["lat_mean_us"], lat)
'
row=$(json_get '"SEQ1M Q8T1 +%.2f +%.2f +%.2f +%.2f" % (d["tests"][0]["read"]["mb_per_s"], d["tests"][0]["read"]["iops"], d["tests"][0]["read"]["lat_mean_us"], d["tests"][0]["write"]["mb_per_s"])' <"$TEST_DIR/crystal.json")
run benchctl show --job "$job"
printf '%s\n' "$OUT" | grep -qE "^$row " || fail "crystal grid has no row '$row': $OUT"
assert_contains "$OUT" "RND4K Q1T1" "crystal grid"

# ---- 5. quick (no view of its own): the per-step table ----
run_profile quick --set size=16M --set runtime_ms=1000
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json (quick) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/quick.json"
check_py "$TEST_DIR/quick.json" '
import json, math, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); d = json.load(open(sys.argv[2]))
assert d["view"] == "steps" and [s["workload"] for s in d["steps"]] == ["write", "read", "randread"], d
for s in d["steps"]:
    mb, iops = db.execute("select mb_per_s, iops from run_summary where job_id = ? and step = ?", (d["job"], s["step"])).fetchone()
    assert s["n"] == 1 and math.isclose(s["mb_per_s"]["mean"], mb, rel_tol=1e-9), (s, mb)
    assert math.isclose(s["iops"]["mean"], iops, rel_tol=1e-9), (s, iops)
'
run benchctl show --job "$job"
assert_contains "$OUT" "MB/s OF EACH RUN" "per-step table header"
mb=$(json_get '"%.1f" % d["steps"][2]["mb_per_s"]["mean"]' <"$TEST_DIR/quick.json")
printf '%s\n' "$OUT" | grep -qE "^ +3 +randread +4 KiB +1 +$mb " || fail "per-step table has no randread row with $mb MB/s: $OUT"

# Repeats (a feature of another branch, simulated here): a second succeeded run of step 1 that
# took twice as long. The view averages the two and lists both.
python3 - "$DB" "$job" <<'PY' || fail "cannot add a repeat of step 1"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=5)
cols = [c[1] for c in db.execute("pragma table_info(runs)") if c[1] not in ("id", "uuid")]  # uuid: unique, the copy has none
db.execute("insert into runs (%s) select %s from runs where job_id = ? and step = 0" %
           (", ".join(cols), ", ".join("duration_usec * 2" if c == "duration_usec" else c for c in cols)), (sys.argv[2],))
db.commit()
PY
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json (quick with a repeat) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/quick2.json"
check_py "$TEST_DIR/quick2.json" '
import json, math, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1]); d = json.load(open(sys.argv[2]))
s = d["steps"][0]
vals = [r[0] for r in db.execute("select mb_per_s from run_summary where job_id = ? and step = 0 order by id", (d["job"],))]
assert len(vals) == 2 and s["n"] == 2 and len(s["runs"]) == 2, (s, vals)
assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(s["mb_per_s"]["values"], vals)), (s, vals)
assert math.isclose(s["mb_per_s"]["mean"], statistics.mean(vals), rel_tol=1e-9), (s, vals)
assert math.isclose(s["mb_per_s"]["stddev"], statistics.stdev(vals), rel_tol=1e-9), (s, vals)
assert d["steps"][1]["n"] == 1
'
run benchctl show --job "$job"
each=$(json_get '" ".join("%.1f" % v for v in d["steps"][0]["mb_per_s"]["values"])' <"$TEST_DIR/quick2.json")
mean=$(json_get '"%.1f  +%.1f" % (d["steps"][0]["mb_per_s"]["mean"], d["steps"][0]["mb_per_s"]["stddev"])' <"$TEST_DIR/quick2.json")
printf '%s\n' "$OUT" | grep -qE "^ +1 +write +1 MiB +2 +$mean .* $each\$" ||
        fail "per-step table has no write row with n 2, $mean and the runs' $each: $OUT"

# ---- 6. iozone: the record-size matrix and the -R report ----
run_profile iozone --set size=16M
assert_eq 104 "$(sql "select count(*) from runs where job_id = $job")" "runs of the iozone profile"
run benchctl show --job "$job" --json
[ "$RC" = 0 ] || fail "show --job $job --json (iozone) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/iozone.json"
run benchctl show --job "$job"
printf '%s\n' "$OUT" >"$TEST_DIR/iozone.txt"
benchctl export --format iozone --job "$job" >"$TEST_DIR/iozone.tsv" || fail "export --format iozone failed"
check_py "$TEST_DIR/iozone.json" '
import json, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); d = json.load(open(sys.argv[2]))
text = open(sys.argv[2].replace(".json", ".txt")).read(); tsv = open(sys.argv[2].replace(".json", ".tsv")).read()
tests = ["write", "rewrite", "read", "reread", "randread", "randwrite", "backward-read", "stride-read"]
titles = ["Writer", "Re-writer", "Reader", "Re-Reader", "Random read", "Random write", "Backward read", "Stride read"]
want = {}
for wl, bs, b, us in db.execute("select workload, block_size, coalesce(bytes_read, 0) + coalesce(bytes_written, 0), "
                                "duration_usec from runs where job_id = ?", (d["job"],)):
    want[(bs, wl)] = int(b / (us / 1e6) / 1024.0)
assert len(want) == 104, len(want)
[fs] = d["file_sizes"]
assert fs["size"] == 16 << 20
got = {(r["block_size"], t): r[t] for r in fs["records"] for t in tests}
assert got == want, "iozone --json differs from the runs: %r" % {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
# The text matrix: one row per record size, the values in the tests order.
assert "File size 16 MiB (16384 kB)" in text, text
for bs in sorted({k[0] for k in want}):
    row = "%16d%8d" % (16384, bs // 1024) + "".join("%10d" % want[(bs, t)] for t in tests)
    assert row in text.split("\n"), "no matrix row %r in:\n%s" % (row, text)
# The -R report: a block per test, the record sizes (kB) as columns, the file size (kB) as the row.
assert "Output is in kBytes/sec" in tsv and "Excel output is below:" in tsv, tsv[:300]
blocks = re.findall(r"^\"(.+) report\"\n(.*)\n(.*)$", tsv, re.M)
assert [b[0] for b in blocks] == titles, [b[0] for b in blocks]
for (title, head, row), t in zip(blocks, tests):
    recs = [int(x.strip("\"")) for x in head.split("\t")[1:]]
    cells = row.split("\t")
    assert cells[0] == "\"16384\"", cells
    for rec, v in zip(recs, cells[1:]):
        assert int(v) == want[(rec * 1024, t)], (title, rec, v, want[(rec * 1024, t)])
    assert len(recs) == 13 and len(cells) == 14, (head, row)
'

# ---- 6b. iozone at two record sizes (iozone -a -y 4k -q 64k): record_sizes ----
run_profile iozone --set record_sizes=4K,64K --set size=1M
assert_eq "16|2|4096|65536" "$(sql "select count(*), count(distinct block_size), min(block_size), max(block_size) from runs
        where job_id = $job")" \
        "runs of the iozone job of record_sizes=4K,64K (2 × 8 tests)"
assert_eq '["4K","64K"]' "$(sql "select json_extract(spec, '\$.record_sizes') from jobs where id = $job")" \
        "the job's record_sizes, as the jobs table keeps its spec"
run benchctl show --job "$job"
[ "$RC" = 0 ] || fail "show --job $job (iozone, record_sizes) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/iozone2.txt"
benchctl export --format iozone --job "$job" >"$TEST_DIR/iozone2.tsv" || fail "export --format iozone (record_sizes) failed"
check_py "$TEST_DIR/iozone2.txt" '
import re, sys
text = open(sys.argv[2]).read(); tsv = open(sys.argv[2].replace(".txt", ".tsv")).read()
rows = [l for l in text.split("\n") if re.match(r"^ +1024 +[0-9]+ ", l)]
assert [int(l.split()[1]) for l in rows] == [4, 64], "matrix rows %r in:\n%s" % (rows, text)
heads = re.findall(r"^\"(.+) report\"\n(.*)\n(.*)$", tsv, re.M)
assert len(heads) == 8, tsv
for title, head, row in heads:
    assert head.split("\t")[1:] == ["\"4\"", "\"64\""], (title, head)
    assert len(row.split("\t")) == 3 and row.split("\t")[0] == "\"1024\"", (title, row)
'
run benchctl submit --profile iozone --target "$SCRATCH_DIR" --set record_sizes=4K,3K
assert_eq 2 "$RC" "exit code of record_sizes=4K,3K (InvalidSpec)"
assert_contains "$OUT" "record_sizes: 3K is not the block_size of any of its steps; use some of 4K, 8K, 16K, 32K, 64K, 128K, 256K, 512K, 1M, 2M, 4M, 8M, 16M" \
        "the refusal of a record size iozone does not have"
run benchctl submit --workload write --target "$SCRATCH_DIR" --set record_sizes=4K
assert_eq 2 "$RC" "exit code of record_sizes without a profile"
assert_contains "$OUT" "record_sizes: given without profile" "the refusal of record_sizes without a profile"

# ---- 7. what is refused ----
run benchctl show
assert_eq 2 "$RC" "exit code of show without a run or --job"
assert_contains "$OUT" "--job ID" "show without arguments says what to give"
run benchctl export --format bonnie-csv
assert_eq 2 "$RC" "exit code of export --format bonnie-csv without --job"
run benchctl export --format iozone --job "$PING_JOB"
assert_eq 1 "$RC" "exit code of export --format iozone of a ping job"
assert_contains "$OUT" "no succeeded run of an iozone test" "export --format iozone of a ping job"
run benchctl export --format bonnie-csv --job "$PING_JOB"
assert_eq 1 "$RC" "exit code of export --format bonnie-csv of a ping job"
run benchctl show --job 9999
assert_eq 4 "$RC" "exit code of show --job of a job without runs"
# A dd job exported as bonnie++: its write and read are bonnie's block tests, the rest blank.
benchctl export --format bonnie-csv --job "$DD_JOB" >"$TEST_DIR/dd-bonnie.csv" || fail "export of the dd job as bonnie-csv"
bon_csv2txt <"$TEST_DIR/dd-bonnie.csv" >/dev/null 2>"$TEST_DIR/csv2txt.err" && [ ! -s "$TEST_DIR/csv2txt.err" ] ||
        fail "bon_csv2txt on the dd job's line: $(cat "$TEST_DIR/csv2txt.err")"
assert_eq ",,,,," "$(cut -d, -f22-27 "$TEST_DIR/dd-bonnie.csv")" "blank metadata fields of the dd job"
# Entries of a job that is no matrix: nothing to choose, said so.
run benchctl export --format bonnie-csv --job "$DD_JOB" --fs-type ext4
assert_eq 2 "$RC" "--fs-type on a job that is no matrix: exit code"
assert_contains "$OUT" "job $DD_JOB is not a filesystem matrix" "--fs-type on a job that is no matrix says so"
run benchctl show --job "$DD_JOB" --entry ext4
assert_eq 2 "$RC" "--entry on a job that is no matrix: exit code"

# ---- 8. the seed's ext3 against ext4: the bonnie profile as a matrix ----
log "8. bonnie on ext3 and ext4 ($MATRIX_DEV)"
run benchctl run --profile bonnie --set filesystems=ext3,ext4 --set devices="$MATRIX_DEV" --set destructive=true \
        --set size=1M --set runtime_ms=0 --set file_count=256
[ "$RC" = 0 ] || fail "the bonnie matrix exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq 14 "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" "runs of the bonnie matrix"
run benchctl show --job "$job"
[ "$RC" = 0 ] || fail "show --job $job (bonnie matrix) exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/matrix-view.txt"
DEVN=$(basename "$MATRIX_DEV")
assert_contains "$OUT" "entry 1 of 2, ext3 on $DEVN: 7 succeeded runs: bonnie++'s table" "ext3's bonnie table"
assert_contains "$OUT" "entry 2 of 2, ext4 on $DEVN: 7 succeeded runs: bonnie++'s table" "ext4's bonnie table"
assert_eq 2 "$(grep -c -- '------Sequential Create------' "$TEST_DIR/matrix-view.txt")" "metadata tables, one per entry"
run benchctl show --job "$job" --json
printf '%s\n' "$OUT" >"$TEST_DIR/matrix-view.json"
benchctl export --format bonnie-csv --job "$job" >"$TEST_DIR/matrix.csv" || fail "export --format bonnie-csv of the matrix"
bon_csv2html <"$TEST_DIR/matrix.csv" >"$TEST_DIR/matrix.html" 2>"$TEST_DIR/csv2html.err" || fail "bon_csv2html failed"
[ -s "$TEST_DIR/csv2html.err" ] && fail "bon_csv2html complained: $(cat "$TEST_DIR/csv2html.err")"
check_py "$TEST_DIR/matrix-view.json" '
import json, re, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); d = json.load(open(sys.argv[2]))
lines = open(sys.argv[2].replace("-view.json", ".csv")).read().splitlines()
html = open(sys.argv[2].replace("-view.json", ".html")).read()
host = db.execute("select json_extract(environment, \"$.host\") from runs where job_id = ? limit 1", (d["job"],)).fetchone()[0]
assert d["view"] == "matrix" and [e["name"] for e in d["entries"]] == ["ext3", "ext4"], d
assert len(lines) == 2, lines
for e, line in zip(d["entries"], lines):
    f = e["view"]["fields"]
    # Each entry its own: the name says which, the line is its view, the block write its runs.
    assert f["name"] == host + "-" + e["name"], (f["name"], host, e["name"])
    assert e["view"]["csv"] == line, (e["view"]["csv"], line)
    b, us, served = db.execute("select bytes_written, duration_usec, served_from from runs where job_id = ? and workload = \"write\" and fs_type = ?",
                               (d["job"], e["name"])).fetchone()
    want = "+++++" if served in ("page-cache", "backing-file") else str(int(b / (us / 1e6) / 1024.0))
    assert f["put_block"] == want, (e["name"], f["put_block"], b, us, served)
    # The six metadata figures and the seeks a second, all there.
    for k in ("seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del", "seeks"):
        assert f[k] not in ("", None), (e["name"], k, f[k])
    # On a 1M file the page cache serves the seeks as often as not: +++++ then, as bonnie++ marks them.
    ops, served = db.execute("select ops_per_s, served_from from run_summary where job_id = ? and workload = \"seeks\" and fs_type = ?",
                             (d["job"], e["name"])).fetchone()
    want = "+++++" if served in ("page-cache", "backing-file") else ("%.0f" if ops >= 1000 else "%.1f") % ops
    assert f["seeks"] == want, (f["seeks"], ops, served)
# bon_csv2html draws the two lines as two rows, named by host and entry: the seed table.
names = re.findall(r"class=\"rowheader\">(?:<font[^>]*>)?(" + re.escape(host) + r"-ext[34])</td>", html)
assert names == [host + "-ext3", host + "-ext4"], names
'
log "views passed (jobs dd $DD_JOB, bonnie $BONNIE_JOB, ping $PING_JOB, bonnie matrix $job)"
