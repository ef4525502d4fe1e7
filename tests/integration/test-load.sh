#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchd under load: 50 concurrent clients (load-client.py: 40 connections as root, 10 as nobody,
# whom a stand-in polkit lets submit but not cancel others' jobs) submit small jobs and invalid
# ones, list and query jobs and runs, read job objects, the Manager's properties and
# GetManagedObjects, and cancel jobs (their own and others', queued, running and ended), for a
# bounded time, in two rounds, while benchctl does a little of the same; in each round a job of the
# test's holds the queue near its bound (hold_queue), so that both bounds are met at any pace. Every
# call must be
# answered, with its reply or with an error that is a defined answer to it (QueueFull, InvalidSpec,
# NotCancellable...): no timeout, no lost connection, no unexpected error. Once the queue has
# drained, benchd's open descriptors are what they were before the load and its memory what it was
# after the first round (the second round does the same work again: what the first one grew is
# warm-up, what the second one grows is a leak), it still answers, the database passes
# integrity_check, and every job queued is in a final state, with its JobRemoved heard.
#
# The answered calls per second are printed for information; nothing here is timed.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 setpriv pgrep
require_binaries "$BENCHCTL_BIN"
/usr/bin/python3 -c 'import dbus, gi.repository.GLib' 2>/dev/null || skip "needs python3-dbus and python3-gi"
NOBODY=$(id -u nobody 2>/dev/null) || skip "needs a user nobody"
# nobody runs its clients from a copy in the test's directory: the source tree may be where nobody
# cannot read (a clone under a 0700 directory, a home directory), and then its clients died at once
# and queued nothing.
NOBODY_CLIENT="$TEST_DIR/load-client.py"
install -m 0644 "$SOURCE_ROOT/tests/integration/load-client.py" "$NOBODY_CLIENT"
setpriv --reuid="$NOBODY" --regid="$(id -g "$NOBODY")" --clear-groups test -r "$NOBODY_CLIENT" ||
        fail "nobody cannot read $NOBODY_CLIENT (the test's directory must be open to other users)"

# How long each round loads benchd, and the clients in it (root, nobody).
ROUND_S=${BENCHD_LOAD_SECONDS:-12}
ROOT_CLIENTS=40
NOBODY_CLIENTS=10
SEED=${BENCHD_LOAD_SEED:-$(date +%s)}
log "seed $SEED (BENCHD_LOAD_SEED=$SEED repeats the clients' choices), $ROUND_S s per round"

RULES="$TEST_DIR/polkit.rules"
PKLOG="$TEST_DIR/polkit.log"
CONF="$TEST_DIR/benchd.conf"
: >"$PKLOG"
cat >"$RULES" <<EOF
org.benchd.benchd1.submit $NOBODY yes
org.benchd.benchd1.cancel $NOBODY no
EOF
# Root has no per-user bound (the queue's own, 64, holds it); nobody's is small, so that its
# QueueFull is met under load as well as the queue's.
printf 'MaxQueuedJobsPerUser=4\n' >"$CONF"

start_bus
scratch_fs 512M
T="$SCRATCH_DIR"
chmod 0777 "$T"

start_standin "$RULES" "$PKLOG"

# glibc's malloc raises its mmap threshold when a large block is freed, after which blocks of that
# size (a ListJobs reply of 1500 jobs) come from the heap and stay resident: RSS would then follow
# the round with the largest burst of big replies, not the memory in use. Fixed thresholds make
# big blocks come and go with mmap and the heap's top go back, so that what is left growing is
# what benchd keeps.
export MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
start_benchd --config="$CONF"
unset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_

fd_count() {
        find "/proc/$BENCHD_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}
# status_kb FIELD: VmRSS, RssAnon... of benchd, in KiB.
status_kb() {
        awk -v f="$1:" '$1 == f { print $2 }' "/proc/$BENCHD_PID/status"
}
fd_list() {
        local fd
        for fd in /proc/"$BENCHD_PID"/fd/*; do
                printf '%s -> %s\n' "${fd##*/}" "$(readlink "$fd")"
        done
}

# quiet: no job queued or running, no helper or worker left, and the descriptors settled.
quiet() {
        [ "$(manager_prop QueueLength)" = "u 0" ] && [ "$(manager_prop RunningJob)" = "t 0" ] &&
                [ -z "$(pgrep -P "$BENCHD_PID")" ] && [ -z "$(sql "select id from jobs where state in ('queued', 'running')")" ]
}
settle() {
        local a b i
        wait_for 120 quiet || fail "benchd did not go quiet after the load: queue $(manager_prop QueueLength), running $(manager_prop RunningJob), children: $(pgrep -P "$BENCHD_PID" | tr '\n' ' ')"
        # A descriptor closed a moment after the last job ended (a helper's pidfd) is not a leak.
        for ((i = 0; i < 20; i++)); do
                a=$(fd_count)
                sleep 0.25
                b=$(fd_count)
                [ "$a" = "$b" ] && quiet && return 0
        done
}

# ---- warm-up: one call of each kind, and a job of each shape, so that what benchd allocates on
# first use (prepared statements, SQLite's page cache, the job objects' vtables) exists ----
w1=$(submit_busctl target s "$T" workload s write size s 1M block_size s 64K sample_ms u 100) || fail "warm-up SubmitJob failed"
w2=$(submit_busctl target s "$T" workload s write size s 4M block_size s 64K runtime_ms u 400 sample_ms u 100) ||
        fail "warm-up SubmitJob failed"
# A running job cancelled: it runs for ten minutes unless cancelled, so it is certainly running when
# CancelJob comes (the cancel waits for the state, not for a guess at how long w1 and w2 take).
w3=$(submit_busctl target s "$T" workload s write size s 4M block_size s 64K runtime_ms u 600000 sample_ms u 100) ||
        fail "warm-up SubmitJob failed"
wait_job_state "$w3" running 120
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$w3" >/dev/null ||
        fail "warm-up CancelJob of the running job $w3 failed (state $(job_state "$w3"))"
benchctl jobs >/dev/null || fail "warm-up benchctl jobs failed"
wait_for 60 bash -c "[ \"\$(sqlite3 '$DB' \"select count(*) from jobs where id in ($w1, $w2, $w3) and state in ('succeeded', 'cancelled')\")\" = 3 ]" ||
        fail "the warm-up jobs did not end: $(sql "select id, state, error from jobs")"
assert_eq cancelled "$(job_state "$w3")" "the warm-up job cancelled while running"
# A history larger than SQLite's page cache (2000 KiB by default): 3000 ended jobs like w1, so
# that the cache is full before the load and what it holds cannot grow with the jobs the load
# adds: ListJobs all=true limit=1500 reads the newest 1500 rows through the primary key, some
# 9 KiB each with their steps (all 3000 do not fit in one reply), far more than the cache holds.
sql "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000)
     INSERT INTO jobs (state, profile, workload, spec, target, label, submitted_by, submitted_usec, started_usec,
                       finished_usec, steps)
     SELECT 'succeeded', profile, workload, spec, target, 'history', submitted_by, submitted_usec - i * 1000000,
            started_usec - i * 1000000, finished_usec - i * 1000000, steps
     FROM jobs, k WHERE jobs.id = $w1"
for i in 1 2; do
        bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 2 all b true limit t 1500 >/dev/null ||
                fail "warm-up ListJobs failed"
done
/usr/bin/python3 "$SOURCE_ROOT/tests/integration/load-client.py" --address "$BUS_ADDRESS" --target "$T" \
        --clients 5 --seconds 2 --seed "$SEED" --wait-jobs 60 >"$TEST_DIR/warmup.json" ||
        fail "the warm-up clients failed"
# A full house of ended jobs before the baseline: benchd keeps up to JOB_LINGER_MAX (256) ended jobs
# as objects, for ten minutes. A fast machine ends more than that in round 1; a slow or loaded one
# fewer, and the list would go on growing in round 2 and pass for a leak. So 300 jobs are queued
# behind a running one and cancelled, and the running one with them.
/usr/bin/python3 - "$BUS_ADDRESS" "$T" 300 <<'PY' || fail "the warm-up could not end 300 jobs"
import dbus, sys, time
address, target, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
bus = dbus.bus.BusConnection(address)
mgr = dbus.Interface(bus.get_object("org.benchd.Benchd1", "/org/benchd/Benchd1"), "org.benchd.Benchd1.Manager")

def submit(**spec):
    return int(mgr.SubmitJob(dbus.Dictionary(spec, signature="sv"))[0])

holder = submit(target=target, workload="write", size="4M", block_size="64K", runtime_ms=dbus.UInt32(600000),
                sample_ms=dbus.UInt32(100), label="hold")
job = dbus.Interface(bus.get_object("org.benchd.Benchd1", "/org/benchd/Benchd1/job/%d" % holder),
                     "org.freedesktop.DBus.Properties")
end = time.monotonic() + 120
while str(job.Get("org.benchd.Benchd1.Job", "State")) != "running":
    if time.monotonic() > end:
        sys.exit("job %d did not start running within 120 s" % holder)
    time.sleep(0.05)
for _ in range(n):
    mgr.CancelJob(dbus.UInt64(submit(target=target, workload="write", size="64K", block_size="64K", label="linger")))
mgr.CancelJob(dbus.UInt64(holder))
PY
settle

FD0=$(fd_count)
RSS0=$(status_kb VmRSS)
ANON0=$(status_kb RssAnon)
fd_list >"$TEST_DIR/fds.before"
log "before the load: $FD0 descriptors, VmRSS $RSS0 KiB, RssAnon $ANON0 KiB"

# ---- benchctl in the load: a few verbs in a loop, one process per call; exit codes 0 (done), 1
# (refused: QueueFull, NotCancellable) and 4 (not found) are answers, 3 (unreachable) or a timeout
# is not ----
benchctl_loop() {
        local out=$1 end=$(($(date +%s) + ROUND_S)) id rc n=0 bad=0 e
        : >"$out.err"
        while [ "$(date +%s)" -lt "$end" ]; do
                for verb in submit jobs status cancel results; do
                        case $verb in
                        submit) set -- submit --workload write --target "$T" --set size=1M --set block_size=64K --label benchctl ;;
                        jobs) set -- jobs --no-legend ;;
                        status | cancel) id=$(sql "select max(id) from jobs"); set -- "$verb" "${id:-1}" ;;
                        results) set -- results -n 5 --no-legend ;;
                        esac
                        rc=0
                        e=$(timeout 60 "$BENCHCTL_BIN" --bus-address="$BUS_ADDRESS" --no-pager "$@" 2>&1 >/dev/null) || rc=$?
                        n=$((n + 1))
                        case "$rc:$e" in
                        *"timed out"* | *"not running"* | *"lost the bus"*) bad=$((bad + 1)); printf '%s: %s: %s\n' "$*" "$rc" "$e" >>"$out.err" ;;
                        0:* | 1:* | 4:*) ;;
                        *) bad=$((bad + 1)); printf '%s: %s: %s\n' "$*" "$rc" "$e" >>"$out.err" ;;
                        esac
                done
        done
        printf '%s %s\n' "$n" "$bad" >"$out"
}

# The queue held near its bound for a round, so that the clients' submissions meet QueueFull(queue)
# however fast this machine answers them (a loaded machine answers a few dozen calls a second, and
# the queue, draining as fast as jobs run, would never fill): hold_queue N submits a job that runs
# until released (the clients are told to spare it) and fills the queue to HOLD_FREE places below
# its bound; release_queue N cancels what hold_queue queued that has not ended. The ids, the
# holding job first, in $TEST_DIR/holdN.ids.
QUEUE_MAX=64
HOLD_FREE=16
hold_queue() {
        /usr/bin/python3 - "$BUS_ADDRESS" "$T" "$((QUEUE_MAX - HOLD_FREE))" >"$TEST_DIR/hold$1.ids" \
                2>"$TEST_DIR/hold$1.err" <<'PY' || fail "round $1: could not hold the queue: $(cat "$TEST_DIR/hold$1.err")"
import dbus, sys, time
address, target, fill = sys.argv[1], sys.argv[2], int(sys.argv[3])
bus = dbus.bus.BusConnection(address)
manager = bus.get_object("org.benchd.Benchd1", "/org/benchd/Benchd1")
mgr = dbus.Interface(manager, "org.benchd.Benchd1.Manager")
props = dbus.Interface(manager, "org.freedesktop.DBus.Properties")

def submit(**spec):
    return int(mgr.SubmitJob(dbus.Dictionary(spec, signature="sv"))[0])

holder = submit(target=target, workload="write", size="4M", block_size="64K", runtime_ms=dbus.UInt32(600000),
                sample_ms=dbus.UInt32(100), label="hold")
job = dbus.Interface(bus.get_object("org.benchd.Benchd1", "/org/benchd/Benchd1/job/%d" % holder),
                     "org.freedesktop.DBus.Properties")
end = time.monotonic() + 120
while str(job.Get("org.benchd.Benchd1.Job", "State")) != "running":
    if time.monotonic() > end:
        sys.exit("job %d, holding the queue, did not start running within 120 s" % holder)
    time.sleep(0.05)
print(holder, flush=True)
while int(props.Get("org.benchd.Benchd1.Manager", "QueueLength")) < fill:
    print(submit(target=target, workload="write", size="64K", block_size="64K", label="hold"), flush=True)
PY
        HOLDER=$(head -n1 "$TEST_DIR/hold$1.ids")
        log "round $1: job $HOLDER holds the queue, filled to $(manager_prop QueueLength) of $QUEUE_MAX"
}
release_queue() {
        /usr/bin/python3 - "$BUS_ADDRESS" "$TEST_DIR/hold$1.ids" <<'PY' || fail "round $1: could not release the queue"
import dbus, sys
bus = dbus.bus.BusConnection(sys.argv[1])
mgr = dbus.Interface(bus.get_object("org.benchd.Benchd1", "/org/benchd/Benchd1"), "org.benchd.Benchd1.Manager")
for line in open(sys.argv[2]):
    try:
        mgr.CancelJob(dbus.UInt64(int(line)))
    except dbus.DBusException as e:
        if not e.get_dbus_name().endswith(("NotCancellable", "NotFound")):
            raise
PY
}

# nobody_queued: how many of nobody's jobs are queued.
nobody_queued() {
        sql "select count(*) from jobs where submitted_by = $NOBODY and state = 'queued'"
}

# round N: with the queue held, the nobody clients until they have queued as many jobs as their
# bound lets them (so that they meet QueueFull(user), not the queue's), then the root clients and
# benchctl, for ROUND_S seconds each; the queue is released once the root clients' calls are all
# answered, and the round ends when every job queued has ended.
round() {
        local n=$1 root_pid nobody_pid bc_pid
        hold_queue "$n"
        log "round $n: $ROOT_CLIENTS root and $NOBODY_CLIENTS nobody clients, and benchctl, for $ROUND_S s"
        setpriv --reuid="$NOBODY" --regid="$(id -g "$NOBODY")" --clear-groups \
                /usr/bin/python3 "$NOBODY_CLIENT" --address "$BUS_ADDRESS" --target "$T" \
                --clients "$NOBODY_CLIENTS" --seconds "$ROUND_S" --seed "$((SEED + 100 + n))" --wait-jobs 150 --user-bound 4 \
                --spare "$HOLDER" >"$TEST_DIR/round$n.nobody.json" 2>"$TEST_DIR/round$n.nobody.err" &
        nobody_pid=$!
        defer kill_wait "$nobody_pid"
        nobody_full() { [ "$(nobody_queued)" -ge 4 ]; }
        wait_for 60 nobody_full ||
                fail "round $n: nobody's clients queued $(nobody_queued) jobs in 60 s, not 4; the holder is" \
                     "$(sql "select state from jobs where id = $HOLDER"), nobody's jobs by state:" \
                     "$(sql "select group_concat(state || ' ' || n) from (select state, count(*) n from jobs where submitted_by = $NOBODY group by state)")," \
                     "their clients said: $(tail -n 5 "$TEST_DIR/round$n.nobody.err"), the polkit stand-in: $(tail -n 5 "$PKLOG")"
        /usr/bin/python3 "$SOURCE_ROOT/tests/integration/load-client.py" --address "$BUS_ADDRESS" --target "$T" \
                --clients "$ROOT_CLIENTS" --seconds "$ROUND_S" --seed "$((SEED + n))" --wait-jobs 150 \
                --spare "$HOLDER" --loaded-file "$TEST_DIR/round$n.root.loaded" \
                >"$TEST_DIR/round$n.root.json" 2>"$TEST_DIR/round$n.root.err" &
        root_pid=$!
        defer kill_wait "$root_pid"
        benchctl_loop "$TEST_DIR/round$n.benchctl" &
        bc_pid=$!
        defer kill_wait "$bc_pid"
        root_loaded() { [ -e "$TEST_DIR/round$n.root.loaded" ] || ! pid_running "$root_pid"; }
        wait_for $((ROUND_S + 180)) root_loaded || fail "round $n: the root clients' calls were not all answered"
        release_queue "$n"
        wait "$root_pid" || fail "round $n: the root clients failed: $(tail -n 20 "$TEST_DIR/round$n.root.err")"
        wait "$nobody_pid" || fail "round $n: the nobody clients failed: $(tail -n 20 "$TEST_DIR/round$n.nobody.err")"
        wait "$bc_pid" || fail "round $n: the benchctl loop failed"
        _REAPED+="$root_pid $nobody_pid $bc_pid "
        benchd_alive || fail "benchd died in round $n"

        # What the clients saw; every failure is printed, and fails the test.
        python3 - "$TEST_DIR/round$n.root.json" "$TEST_DIR/round$n.nobody.json" "$TEST_DIR/round$n.benchctl" "$n" <<'PY' ||
import json, sys
root, nobody = (json.load(open(p)) for p in sys.argv[1:3])
bc_calls, bc_bad = map(int, open(sys.argv[3]).read().split())
ok = True
for who, d in (("root", root), ("nobody", nobody)):
    print("round %s %s: %d clients, %d calls in %.1f s, %d answered (%.0f/s), latency p50 %.1f ms p99 %.1f ms max %.1f ms"
          % (sys.argv[4], who, d["clients"], d["total_calls"], d["seconds"], d["total_answered"], d["answered_per_s"],
             d["latency_ms"]["p50"], d["latency_ms"]["p99"], d["latency_ms"]["max"]))
    for kind in sorted(d["calls"]):
        errs = ", ".join("%s %d" % (k.rsplit(".", 1)[-1], v) for k, v in sorted(d["errors"].get(kind, {}).items()))
        print("  %-16s %6d calls %6d answered%s" % (kind, d["calls"][kind], d["answers"].get(kind, 0),
                                                  "; errors: " + errs if errs else ""))
    print("  jobs queued %d, ended: %s" % (len(d["queued"]), d["job_results"]))
    for f in d["failures"]:
        print("  FAILURE: " + f)
        ok = False
    if d["total_calls"] != d["total_answered"]:
        print("  FAILURE: %d calls, %d answered" % (d["total_calls"], d["total_answered"]))
        ok = False
    if d["not_removed"]:
        print("  FAILURE: no JobRemoved for %d queued job(s): %s" % (len(d["not_removed"]), d["not_removed"][:20]))
        ok = False
    bad = {r: n for r, n in d["job_results"].items() if r not in ("succeeded", "cancelled")}
    if bad:
        print("  FAILURE: jobs ended otherwise than succeeded or cancelled: %s" % bad)
        ok = False
print("round %s benchctl: %d calls, %d not answered" % (sys.argv[4], bc_calls, bc_bad))
if bc_bad:
    ok = False
# The load must have been load: jobs queued and run, submissions refused by each bound.
if len(root["queued"]) < 10 or len(nobody["queued"]) < 2:
    print("  FAILURE: too few jobs queued (root %d, nobody %d) for the load to mean anything"
          % (len(root["queued"]), len(nobody["queued"])))
    ok = False
for who, d, bound in (("root", root, "(queue)"), ("nobody", nobody, "(user)")):
    if not d["errors"].get("submit", {}).get("org.benchd.Benchd1.Error.QueueFull" + bound):
        print("  FAILURE: %s's submissions never met the bound QueueFull%s" % (who, bound))
        ok = False
print("round %s: %.0f calls/s answered by benchd (information, not a limit)"
      % (sys.argv[4], (root["total_answered"] + nobody["total_answered"]) / max(root["seconds"], nobody["seconds"])))
sys.exit(0 if ok else 1)
PY
                { cat "$TEST_DIR/round$n.benchctl.err" >&2; fail "round $n: calls were not answered (above)"; }
        settle
}

round 1
FD1=$(fd_count)
RSS1=$(status_kb VmRSS)
ANON1=$(status_kb RssAnon)
log "after round 1: $FD1 descriptors, VmRSS $RSS1 KiB, RssAnon $ANON1 KiB"
round 2
FD2=$(fd_count)
RSS2=$(status_kb VmRSS)
ANON2=$(status_kb RssAnon)
fd_list >"$TEST_DIR/fds.after"
log "after round 2: $FD2 descriptors, VmRSS $RSS2 KiB, RssAnon $ANON2 KiB; database $(($(stat -c %s "$DB") >> 10)) KiB"
log "memory: round 1 grew VmRSS by $((RSS1 - RSS0)) KiB (warm-up), round 2 by $((RSS2 - RSS1)) KiB"

if [ "$FD1" != "$FD0" ] || [ "$FD2" != "$FD0" ]; then
        fail "benchd's open descriptors: $FD0 before the load, $FD1 after round 1, $FD2 after round 2: $(diff "$TEST_DIR/fds.before" "$TEST_DIR/fds.after")"
fi
# Memory. Round 1 may grow benchd by what a full house costs once: up to JOB_LINGER_MAX (256)
# ended jobs kept as objects, and malloc's arenas sized for the peak of 64 queued jobs and 16
# checks in flight; SQLite's page cache is at its bound already (full of the history since the
# warm-up: without that history it grew with the database in both rounds, by up to 600 KiB in the
# second). That is bounded, about 0.5 to 1 MiB measured here, and checked only against WARM_KB.
# Round 2 does the same work again on the same bounded structures, so what it grows is
# fragmentation and the odd page first touched late: 4 to 30 KiB measured (with malloc's
# thresholds fixed, above; without, a loaded machine showed 730 KiB in one round 2 of three). LEAK_KB is what a leak
# of about 50 bytes a call (some 10000 calls a round) or 800 bytes a job (some 600) would add; a
# leaked message, spec or job object is far larger than that (1 KiB leaked per SubmitJob call
# showed as 3 MiB).
LEAK_KB=512
WARM_KB=16384
assert_le $((RSS1 - RSS0)) "$WARM_KB" "KiB of VmRSS the first round grew benchd by (warm-up bound)"
assert_le $((RSS2 - RSS1)) "$LEAK_KB" "KiB of VmRSS the second round grew benchd by (leak bound)"
assert_le $((ANON2 - ANON1)) "$LEAK_KB" "KiB of RssAnon the second round grew benchd by (leak bound)"

# Still answering, on every kind of call, with nothing queued.
assert_eq "u 0" "$(manager_prop QueueLength)" "QueueLength after the load"
assert_success "ListJobs after the load" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 0
assert_success "benchctl jobs after the load" benchctl jobs
id=$(submit_busctl target s "$T" workload s write size s 1M block_size s 64K sample_ms u 100) || fail "SubmitJob after the load failed"
wait_job_state "$id" succeeded 60

# The load cancelled jobs while they ran and while they were queued.
assert_le 1 "$(sql "select count(*) from jobs where state = 'cancelled' and started_usec > 0")" "jobs cancelled while running"
assert_le 1 "$(sql "select count(*) from jobs where state = 'cancelled' and coalesce(started_usec, 0) = 0")" "jobs cancelled while queued"

# The database: whole, every job in a final state, every job the clients queued in it.
assert_eq ok "$(sql 'pragma integrity_check')" "integrity_check after the load"
assert_eq "" "$(sql "select id || ' ' || state from jobs where state not in ('succeeded', 'failed', 'cancelled', 'interrupted')")" \
        "jobs not in a final state"
python3 - "$DB" "$TEST_DIR"/round*.json <<'PY' || fail "jobs the clients queued are missing from the database (above)"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
states = dict(db.execute("select id, state from jobs"))
missing = [j for p in sys.argv[2:] for j in json.load(open(p))["queued"] if j not in states]
if missing:
    print("missing: %s" % missing[:20])
    sys.exit(1)
PY
wait_for 30 bash -c "[ -z \"\$(find '$T' -maxdepth 2 -name '.benchd-*')\" ]" ||
        fail ".benchd-* files left after the load: $(benchd_files "$T")"
stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status after the load"
log "PASS"
