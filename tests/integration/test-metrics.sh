#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchd's results in Prometheus, through the real pieces: benchd with MetricsTextfileDir= a temp
# directory writes benchd.prom at start-up and after each run; promtool accepts it; its values are
# the database's; a run imported from another host (newer, in the same series) is not in it, nor
# counted; after a restart on a history with many series, a free-text filesystem name and
# an old run, the file is made again from the database, bounded to 1000 series, newest first, with
# escaped label values. Debian's node_exporter serves it from its textfile collector, and a
# Prometheus server scraping that node_exporter answers a PromQL query with the run's throughput.
# The Grafana dashboard's metric names are all names the file has.

. "$(dirname "$0")/lib.sh"
. "$SOURCE_ROOT/scripts/deps.sh"

require_root
require_cmd dbus-daemon python3 sqlite3 losetup mkfs.ext4
require_binaries "$BENCHCTL_BIN"
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null ||
        ! command -v prometheus-node-exporter >/dev/null; then
        ensure_deps prometheus prometheus-node-exporter >&2 ||
                skip "needs promtool, prometheus and prometheus-node-exporter (apt-get install prometheus prometheus-node-exporter)"
        require_cmd promtool prometheus prometheus-node-exporter
fi

TEXTFILE_DIR="$TEST_DIR/textfile"
PROM_FILE="$TEXTFILE_DIR/benchd.prom"
mkdir -p "$TEXTFILE_DIR"
printf '[benchd]\nMetricsTextfileDir=%s\n' "$TEXTFILE_DIR" >"$TEST_DIR/benchd.conf"

start_bus
scratch_fs 256M ext4 --direct-io
start_benchd --config="$TEST_DIR/benchd.conf"

# --- at start-up: the families are there, no series yet --------------------------------------
wait_for 10 test -s "$PROM_FILE" || fail "benchd did not write $PROM_FILE at start-up: $(tail -n 20 "$BENCHD_LOG")"
assert_contains "$(cat "$PROM_FILE")" 'benchd_runs_total{status="succeeded"} 0' "the start-up file"
run promtool check metrics <"$PROM_FILE"
[ "$RC" = 0 ] || fail "promtool check metrics refused the start-up file: $OUT"

# --- a run: the file follows, and says what SQLite says ---------------------------------------
run benchctl run --workload write --target "$SCRATCH_DIR" --set size=16M --set block_size=64K --set direct=true
[ "$RC" = 0 ] || fail "benchctl run exited $RC: $OUT"
RUN=$(sql "select max(id) from runs")
wait_for 10 grep -q 'workload="write"' "$PROM_FILE" || fail "run $RUN is not in $PROM_FILE: $(cat "$PROM_FILE")"
run promtool check metrics <"$PROM_FILE"
[ "$RC" = 0 ] || fail "promtool check metrics refused the file after run $RUN: $OUT"
log "benchd.prom after run $RUN: $(grep -c -v '^#' "$PROM_FILE") samples"

# check_values FILE RUN: every figure of RUN's series in FILE equals the database's.
check_values() {
        python3 - "$1" "$DB" "$2" <<'PY'
import math, re, sqlite3, sys
path, db, run = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = sqlite3.connect(db)
r = c.execute("""SELECT (bytes_read + bytes_written) * 1e6 / duration_usec, (ios_read + ios_written) * 1e6 / duration_usec,
                        lat_p50_ns / 1e9, lat_p99_ns / 1e9, lat_p999_ns / 1e9, iowait_pct / 100.0, dev_util_pct / 100.0,
                        started_usec / 1e6, workload, block_size, COALESCE(fs_type, ''),
                        CASE WHEN lat_mean_ns IS NOT NULL THEN ios_read + ios_written END,
                        (SELECT identity FROM devices WHERE id = runs.device_id)
                 FROM runs WHERE id = ?""", (run,)).fetchone()
want = {
    "benchd_run_throughput_bytes_per_second": r[0], "benchd_run_iops": r[1],
    'benchd_run_latency_seconds{quantile="0.5"}': r[2], 'benchd_run_latency_seconds{quantile="0.99"}': r[3],
    'benchd_run_latency_seconds{quantile="0.999"}': r[4], "benchd_run_iowait_ratio": r[5],
    "benchd_run_device_utilization_ratio": r[6], "benchd_run_timestamp_seconds": r[7],
    "benchd_run_latency_seconds_count": r[11],
    'benchd_run_regression{metric="mb_per_s"}': 0, 'benchd_run_regression{metric="lat_p99_ns"}': 0,
}
line_re = re.compile(r'^([a-z_]+)\{(.*)\} (\S+)$')
label_re = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')
got = {}
for line in open(path):
    m = line_re.match(line.strip())
    if not m:
        continue
    labels = {k: re.sub(r'\\(.)', lambda e: "\n" if e.group(1) == "n" else e.group(1), v)
              for k, v in label_re.findall(m.group(2))}
    if labels.get("workload") != r[8] or labels.get("block_size") != str(r[9]) or labels.get("fs_type") != r[10]:
        continue
    assert labels.get("device_identity") == (r[12] or ""), (labels, r[12])
    extra = "".join('{%s="%s"}' % (k, labels[k]) for k in ("quantile", "metric") if k in labels)
    got[m.group(1) + extra] = float(m.group(3))
bad = []
for k, v in want.items():
    if v is None:
        if k in got:
            bad.append("%s: %s in the file, NULL in the database" % (k, got[k]))
        continue
    if k not in got:
        bad.append("%s: missing (database: %r)" % (k, v))
    elif not math.isclose(got[k], v, rel_tol=1e-12, abs_tol=1e-12):
        bad.append("%s: file %r, database %r" % (k, got[k], v))
if bad:
    sys.exit("run %d: %s" % (run, "; ".join(bad)))
print("run %d: %d figures equal the database's" % (run, len(got)))
PY
}
run check_values "$PROM_FILE" "$RUN"
[ "$RC" = 0 ] || fail "$OUT"
log "$OUT"
SUCCEEDED=$(sql "select count(*) from runs where status = 'succeeded'")
assert_contains "$(cat "$PROM_FILE")" "benchd_runs_total{status=\"succeeded\"} $SUCCEEDED" "runs_total"

# --- a run imported from another host is that host's to export, not this one's -----------------
# The run again as another host measured it a minute later: the newest of the same series (the
# same device identity, workload, block size, ...), so in the file it would stand for this host's.
run benchctl export --format benchd "$RUN"
[ "$RC" = 0 ] || fail "benchctl export --format benchd $RUN exited $RC: $OUT"
printf '%s\n' "$OUT" >"$TEST_DIR/run.json"
python3 - "$TEST_DIR/run.json" "$TEST_DIR/other.json" <<'PY' || fail "cannot make the other host's document"
import json, sys, uuid
d = json.load(open(sys.argv[1]))
d["host"] = "other-host"
for r in d["runs"]:
    r["uuid"] = str(uuid.uuid4())
    r["started_usec"] += 60 * 1000000
    env = json.loads(r["environment"])
    env["host"] = "other-host"
    r["environment"] = json.dumps(env)
json.dump(d, open(sys.argv[2], "w"))
PY
run benchctl import "$TEST_DIR/other.json"
[ "$RC" = 0 ] || fail "benchctl import exited $RC: $OUT"
IMPORTED=$(sql "select id from runs where origin_host = 'other-host'")
[ -n "$IMPORTED" ] || fail "no imported run: $OUT"
assert_eq "$(sql "select device_id from runs where id = $RUN")" "$(sql "select device_id from runs where id = $IMPORTED")" \
        "the imported run's device"
# Written again at start-up, from the database.
stop_benchd
rm -f "$PROM_FILE"
start_benchd --config="$TEST_DIR/benchd.conf"
wait_for 10 test -s "$PROM_FILE" || fail "benchd did not write $PROM_FILE after the import"
run promtool check metrics <"$PROM_FILE"
[ "$RC" = 0 ] || fail "promtool check metrics refused the file after the import: $OUT"
run check_values "$PROM_FILE" "$RUN"
[ "$RC" = 0 ] || fail "after importing run $IMPORTED of other-host: $OUT"
assert_contains "$(cat "$PROM_FILE")" "benchd_runs_total{status=\"succeeded\"} $SUCCEEDED" "runs_total after the import"
assert_eq 1 "$(grep -c '^benchd_run_throughput_bytes_per_second{' "$PROM_FILE")" "series after the import"
log "the run imported from other-host ($IMPORTED) is not in benchd.prom"

# --- restart on a bigger history: the file comes from the database, bounded and escaped --------
stop_benchd
rm -f "$PROM_FILE"
# 1100 older series (block sizes 1..1100 of a workload no real run has), and one newer than every
# other with a filesystem name that needs escaping.
sql "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 1100)
     INSERT INTO runs (step, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct, device_id,
                       device_name, target, fs_type, started_usec, duration_usec, status, bytes_read, bytes_written,
                       ios_read, ios_written)
     SELECT 0, 'randread', i * 512, size, runtime_ms, ramp_ms, queue_depth, jobs, direct, device_id, device_name, target,
            fs_type, started_usec - 1000000000 - i, duration_usec, 'succeeded', bytes_written, 0, ios_written, 0
     FROM runs, k WHERE runs.id = $RUN"
sql "INSERT INTO runs (step, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct, device_id,
                       device_name, target, fs_type, started_usec, duration_usec, status, bytes_read, bytes_written,
                       ios_read, ios_written)
     SELECT 0, 'read', block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct, device_id, device_name, target,
            'odd\"fs\\x', started_usec + 1000, duration_usec, 'succeeded', bytes_written, 0, ios_written, 0
     FROM runs WHERE id = $RUN"
ODD=$(sql "select max(id) from runs")
start_benchd --config="$TEST_DIR/benchd.conf"
wait_for 10 test -s "$PROM_FILE" || fail "benchd did not write $PROM_FILE after the restart"
run promtool check metrics <"$PROM_FILE"
[ "$RC" = 0 ] || fail "promtool check metrics refused the file of 1100+ series: $OUT"
N=$(grep -c '^benchd_run_throughput_bytes_per_second{' "$PROM_FILE")
assert_eq 1000 "$N" "series in the file (bounded to the newest 1000)"
assert_contains "$(cat "$PROM_FILE")" 'fs_type="odd\"fs\\x"' "the escaped filesystem name"
assert_contains "$(cat "$PROM_FILE")" 'workload="write"' "the real run's series after the restart"
# The oldest seeded series fall off: block_size=1100*512 is the oldest of all.
assert_not_contains "$(cat "$PROM_FILE")" 'block_size="563200"' "the oldest series"
run check_values "$PROM_FILE" "$RUN"
[ "$RC" = 0 ] || fail "after the restart: $OUT"
run check_values "$PROM_FILE" "$ODD"
[ "$RC" = 0 ] || fail "the escaped series: $OUT"
log "after the restart: $N series (of $(sql "select count(*) from runs where status = 'succeeded'") runs), the newest kept"

# Keep the history small again for the scrape (the real run and the odd one).
stop_benchd
sql "DELETE FROM runs WHERE workload = 'randread' OR id = $ODD"
start_benchd --config="$TEST_DIR/benchd.conf"
wait_for 10 sh -c "! grep -q 'workload=\"randread\"' '$PROM_FILE'" || fail "the file still has the deleted series"

# --- the dashboard asks only for metrics benchd writes -----------------------------------------
run python3 "$SOURCE_ROOT/tests/docs/grafana-metrics.py" "$SOURCE_ROOT/contrib/grafana/benchd.json" "$PROM_FILE"
[ "$RC" = 0 ] || fail "contrib/grafana/benchd.json: $OUT"
log "$OUT"

# --- node_exporter's textfile collector serves it ------------------------------------------------
free_port() {
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
http_get() {
        python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"
}
NE_PORT=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NE_PORT" --collector.disable-defaults \
        --collector.textfile --collector.textfile.directory="$TEXTFILE_DIR" >"$TEST_DIR/node-exporter.log" 2>&1 &
NE_PID=$!
defer kill_wait "$NE_PID"
_LOGS+=("$TEST_DIR/node-exporter.log")
wait_for 15 http_get "http://127.0.0.1:$NE_PORT/metrics" || fail "node_exporter did not answer on 127.0.0.1:$NE_PORT"
SCRAPE=$(http_get "http://127.0.0.1:$NE_PORT/metrics")
assert_contains "$SCRAPE" 'node_textfile_scrape_error 0' "node_exporter's textfile collector"
EXCERPT=$(grep -E '^benchd_(run_throughput_bytes_per_second|run_latency_seconds|run_regression|runs_total)' <<<"$SCRAPE" | head -n 12)
[ -n "$EXCERPT" ] || fail "node_exporter's /metrics has no benchd_ metrics: $(head -c 2000 <<<"$SCRAPE")"
assert_contains "$EXCERPT" 'workload="write"' "the scrape"
log "node_exporter 127.0.0.1:$NE_PORT /metrics (excerpt):"
sed 's/^/    /' <<<"$EXCERPT" >&2

# --- a Prometheus server scraping it answers PromQL -----------------------------------------------
PROM_PORT=$(free_port)
cat >"$TEST_DIR/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$NE_PORT']
EOF
prometheus --config.file="$TEST_DIR/prometheus.yml" --storage.tsdb.path="$TEST_DIR/tsdb" \
        --web.listen-address="127.0.0.1:$PROM_PORT" >"$TEST_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
defer kill_wait "$PROM_PID"
_LOGS+=("$TEST_DIR/prometheus.log")
QUERY="http://127.0.0.1:$PROM_PORT/api/v1/query?query=benchd_run_throughput_bytes_per_second"
ANSWER=
for ((i = 0; i < 300; i++)); do
        ANSWER=$(http_get "$QUERY" 2>/dev/null) || ANSWER=
        grep -q '"workload":"write"' <<<"$ANSWER" && break
        pid_running "$PROM_PID" || fail "prometheus exited: $(tail -n 20 "$TEST_DIR/prometheus.log")"
        sleep 0.1
done
grep -q '"workload":"write"' <<<"$ANSWER" || fail "Prometheus did not return run $RUN's throughput within 30 s: $ANSWER"
log "PromQL benchd_run_throughput_bytes_per_second on 127.0.0.1:$PROM_PORT:"
printf '    %s\n' "$ANSWER" >&2
WANT=$(sql "select (bytes_read + bytes_written) * 1e6 / duration_usec from runs where id = $RUN")
run python3 -c '
import json, math, sys
d = json.loads(sys.argv[1])
assert d["status"] == "success", d
vals = [float(r["value"][1]) for r in d["data"]["result"] if r["metric"].get("workload") == "write"]
assert len(vals) == 1 and math.isclose(vals[0], float(sys.argv[2]), rel_tol=1e-9), (vals, sys.argv[2])
assert all(r["metric"].get("instance") for r in d["data"]["result"]), "no instance label"
' "$ANSWER" "$WANT"
[ "$RC" = 0 ] || fail "the PromQL answer is not run $RUN's throughput ($WANT B/s): $OUT"

log "PASS"
