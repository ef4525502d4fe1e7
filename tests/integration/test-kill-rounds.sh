#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# kill -9 of benchd at random moments, 20 rounds (BENCHD_KILL_ROUNDS; test-kill-rounds-long of the
# slow suite runs 50) on one database and one target directory. Each
# round starts benchd, submits a few small jobs (one runs, the others queue behind it, the last
# one's SubmitJob still unanswered at the kill when the kill comes early) and kills benchd after a
# random delay; some rounds kill it during its start-up, while it settles what the previous life
# left. The moments are drawn from a seeded RNG whose seed is printed (and taken
# from BENCHD_KILL_SEED), so a failing round can be repeated. After each kill:
#   - no process benchd started (worker, its stream processes, file removal, target checks) is
#     alive 2 s later;
#   - sqlite3's integrity_check says ok, and every job whose SubmitJob was answered is in the
#     database;
# and once benchd has started again:
#   - the jobs that were running are settled (interrupted, unless their runs say they had ended),
#     no run is left "running" but the new life's;
#   - the jobs that were queued are still there: restored (ListJobs shows them), queued, running or
#     done;
#   - no .benchd-* file is in the target but the running job's.
# Then two kills held still at a moment no random delay finds reliably: during the start-up removal
# of the files of the job the previous life was running (the filesystem frozen), and during the
# removal of an ended job's files (the removal process stopped): both are removed at the next start.
# test-restart.sh checks one clean stop and one crash in detail; this one looks for the moments
# in between.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 pgrep fsfreeze
require_loop
require_fs ext4
require_binaries

ROUNDS=${BENCHD_KILL_ROUNDS:-20}
SEED=${BENCHD_KILL_SEED:-$(date +%s)}
RANDOM=$SEED
log "seed $SEED (BENCHD_KILL_SEED=$SEED repeats these rounds), $ROUNDS rounds"

start_bus
scratch_fs 256M
T="$SCRATCH_DIR"
MNT=$(dirname "$T")
# Runs before the unmount (newest first), also when the test fails while the filesystem is frozen.
defer fsfreeze --unfreeze "$MNT"
WORKER_EXE=$(realpath "$WORKER_BIN")
BENCHD_EXE=$(realpath "$BENCHD_BIN")
ANSWERED="$TEST_DIR/answered"
: >"$ANSWERED"

# ours: the processes running benchd's or the worker's executable (benchd's helpers are forks of
# benchd, the worker's stream processes forks of the worker), with the other descendants of the
# benchd that was killed, as noted before the kill. Nothing else runs these build-tree binaries.
ours() {
        local p
        find /proc -mindepth 2 -maxdepth 2 -path '/proc/[0-9]*/exe' \( -lname "$WORKER_EXE" -o -lname "$BENCHD_EXE" \) \
                2>/dev/null | cut -d/ -f3
        for p in $DESCENDANTS; do
                pid_running "$p" && printf '%s\n' "$p"
        done
        true
}

# descendants PID: every process below PID.
descendants() {
        ps -e -o pid=,ppid= | awk -v root="$1" '
                { parent[$1] = $2 }
                END {
                        n = 1; q[1] = root
                        for (i = 1; i <= n; i++)
                                for (p in parent)
                                        if (parent[p] == q[i]) { q[++n] = p; print p }
                }'
}

# submit_bg NAME SPEC...: SubmitJob through busctl in the background, its answer in $TEST_DIR/NAME.json;
# the pid is added to $SUBMITS. collect_submits: waits for them and notes the ids of those answered.
SUBMITS=
submit_bg() {
        local name=$1
        shift
        busctl --address="$BUS_ADDRESS" --json=short call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob \
                'a{sv}' $((5 + $# / 3)) target s "$T" workload s write block_size s 64K sample_ms u 100 label s "$name" "$@" \
                >"$TEST_DIR/$name.json" 2>/dev/null &
        SUBMITS+="$! "
}
collect_submits() {
        local p
        for p in $SUBMITS; do
                wait "$p" 2>/dev/null || true
        done
        SUBMITS=
        for p in "$TEST_DIR"/kill-*.json; do
                [ -e "$p" ] || continue
                python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])' <"$p" >>"$ANSWERED" 2>/dev/null || true
                rm -f "$p"
        done
}

# job_ids: the ids of the jobs benchd has as objects (ListJobs without filter: queued, running,
# and those that ended lately).
job_ids() {
        bus --json=short call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 0 |
                python3 -c 'import json,sys; print("\n".join(str(j["Id"]["data"]) for j in json.load(sys.stdin)["data"][0]))'
}

# stray_files: .benchd-* files in the target that are not the running job's.
stray_files() {
        local running f
        running=$(manager_prop RunningJob | sed 's/^t //')
        for f in $(benchd_files "$T"); do
                case "${f##*/}" in
                ".benchd-$running-"*) [ "$running" != 0 ] && continue ;;
                esac
                printf '%s\n' "$f"
        done
}

not_running() {
        [ "$(job_state "$1")" != running ]
}

no_stray_files() {
        [ -z "$(stray_files)" ]
}

# launch_benchd: starts benchd as start_benchd does, without waiting for it to take its name.
launch_benchd() {
        printf -- '--- start (to be killed during start-up) %s\n' "$(date +%T.%N)" >>"$BENCHD_LOG"
        "$BENCHD_BIN" --bus-address="$BUS_ADDRESS" --db="$DB" --worker="$WORKER_BIN" --profiles-dir="$PROFILES_DIR" \
                >>"$BENCHD_LOG" 2>&1 &
        BENCHD_PID=$!
        defer kill_wait "$BENCHD_PID"
}

# The checks after a start, for the jobs the previous life left (see the top).
check_after_start() {
        local round=$1 id st restored
        # The first answer comes once manager_load() is done: calls wait for the event loop.
        manager_prop Version >/dev/null || fail "round $round: benchd does not answer after its start"
        for id in $RUNNING_AT_KILL; do
                # Settled once its files are removed, in the background, which takes a moment.
                wait_for 10 not_running "$id" || true
                st=$(job_state "$id")
                case "$st" in
                interrupted) N_INTERRUPTED=$((N_INTERRUPTED + 1)) ;;
                succeeded | failed | cancelled) N_SETTLED_OTHER=$((N_SETTLED_OTHER + 1)) ;;
                *) fail "round $round: job $id, running at the kill, is '$st' after the start (expected interrupted, or the end its runs tell): $(sql "select * from jobs where id = $id")" ;;
                esac
        done
        [ -z "$(sql "select runs.id from runs join jobs on jobs.id = runs.job_id where runs.status = 'running' and jobs.state != 'running'")" ] ||
                fail "round $round: runs left running after the start: $(sql "select runs.id, runs.job_id, jobs.state from runs join jobs on jobs.id = runs.job_id where runs.status = 'running'")"
        restored=" $(job_ids | tr '\n' ' ') "
        for id in $QUEUED_AT_KILL; do
                st=$(job_state "$id")
                case "$st" in
                queued | running | succeeded) ;;
                *) fail "round $round: job $id, queued at the kill, is '$st' after the start: $(sql "select * from jobs where id = $id")" ;;
                esac
                case "$restored" in
                *" $id "*) N_KEPT=$((N_KEPT + 1)) ;;
                *) fail "round $round: job $id, queued at the kill ($st in the database), is not among benchd's jobs after the start: $restored" ;;
                esac
        done
        # Files of the jobs the previous life was running go in the background, before any job
        # starts; only the job running now may have files.
        wait_for 10 no_stray_files ||
                fail "round $round: .benchd-* files not of the running job after the start: $(stray_files) (jobs: $(sql "select id, state from jobs where state != 'succeeded' order by id desc limit 10" | tr '\n' ' '))"
}

# The checks after a kill, with benchd gone.
check_after_kill() {
        local round=$1 i left missing
        left=
        for ((i = 0; i < 20; i++)); do
                left=$(ours)
                [ -z "$left" ] && break
                sleep 0.1
        done
        [ -z "$left" ] || fail "round $round: processes of benchd alive 2 s after the kill: $(ps -o pid,ppid,stat,comm,args -p "$(tr '\n' , <<<"$left")")"
        assert_eq ok "$(sql 'pragma integrity_check')" "round $round: integrity_check after the kill"
        missing=$(python3 - "$DB" "$ANSWERED" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
have = {r[0] for r in db.execute("select id from jobs")}
print(" ".join(l.strip() for l in open(sys.argv[2]) if l.strip() and int(l) not in have))
PY
)
        [ -z "$missing" ] || fail "round $round: jobs whose SubmitJob was answered are not in the database: $missing"
        RUNNING_AT_KILL=$(sql "select id from jobs where state = 'running'" | tr '\n' ' ')
        QUEUED_AT_KILL=$(sql "select id from jobs where state = 'queued'" | tr '\n' ' ')
}

N_INTERRUPTED=0
N_SETTLED_OTHER=0
N_KEPT=0
N_EARLY=0
RUNNING_AT_KILL=
QUEUED_AT_KILL=
DESCENDANTS=
start_s=$(date +%s)
for ((round = 1; round <= ROUNDS; round++)); do
        kind=$((RANDOM % 8))
        delay_ms=$((RANDOM % 1200))
        runtime_ms=$((800 + RANDOM % 1200))
        if [ "$kind" = 0 ]; then
                # During its start-up: opening the database, taking its name, settling what the
                # previous life left running (and removing its files), restoring the queue.
                delay_ms=$((delay_ms % 150))
                launch_benchd
                N_EARLY=$((N_EARLY + 1))
        else
                start_benchd
                check_after_start "$round"
                if [ "$(sql "select count(*) from jobs where state = 'queued'")" -ge 6 ]; then
                        # The queue is long enough: let it drain, with one more job whose answer
                        # may race the kill.
                        submit_bg "kill-$round-d" size s 1M
                else
                        # One that runs for a while, and small ones queued behind it, all
                        # submitted at once.
                        submit_bg "kill-$round-a" size s 4M runtime_ms u "$runtime_ms"
                        submit_bg "kill-$round-b" size s 1M
                        submit_bg "kill-$round-c" size s 1M
                        submit_bg "kill-$round-d" size s 2M
                fi
        fi
        sleep "$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"
        DESCENDANTS=$(descendants "$BENCHD_PID")
        log "round $round: kill -9 after $delay_ms ms ($(sql "select state || ' ' || count(*) from jobs where state in ('queued', 'running') group by state" | tr '\n' ' ')children: $(tr '\n' ' ' <<<"$DESCENDANTS"))"
        stop_benchd KILL
        collect_submits
        check_after_kill "$round"
done
log "$ROUNDS rounds in $(($(date +%s) - start_s)) s: $N_INTERRUPTED running jobs interrupted, $N_SETTLED_OTHER settled from their runs, $N_KEPT queued jobs kept, $N_EARLY kills at start-up"

# ---- a kill while benchd removes the files of the job the previous life was running ----
# The removal is held still, without timing: the target's filesystem is frozen before benchd
# starts, so that the removal process blocks in its first unlink. The job must not look settled
# while its files are still there: its row says running until they are gone, so that the benchd
# after the kill removes them. (Marked interrupted first, its files were left for ever.)
start_benchd
check_after_start freeze
wait_for 120 bash -c "[ -z \"\$(sqlite3 -cmd '.timeout 5000' '$DB' \"select id from jobs where state in ('queued', 'running')\")\" ]" ||
        fail "the queue did not drain after the rounds: $(sql "select id, state from jobs where state in ('queued', 'running')")"
x=$(submit_busctl target s "$T" workload s write size s 4M block_size s 64K runtime_ms u 60000 sample_ms u 100 \
        label s kill-during-removal) || fail "SubmitJob of the job to crash failed"
printf '%s\n' "$x" >>"$ANSWERED"
wait_for 30 bash -c "[ -n \"\$(find '$T' -maxdepth 1 -name '.benchd-$x-*')\" ]" || fail "job $x wrote no file (state $(job_state "$x"))"
DESCENDANTS=$(descendants "$BENCHD_PID")
stop_benchd KILL
check_after_kill freeze
assert_eq "$x " "$RUNNING_AT_KILL" "the job running at the kill"
fsfreeze --freeze "$MNT"
start_benchd
manager_prop Version >/dev/null || fail "benchd does not answer with its target frozen"
has_cleanup() { [ -n "$(cleanup_pids)" ]; }
wait_for 60 has_cleanup || fail "benchd did not start removing the files of job $x (children: $(pgrep -P "$BENCHD_PID" -l))"
# Until the removal is stuck in the frozen filesystem (state D), not for a guess at how long that takes.
cleanup_blocked() {
        local p
        for p in $(cleanup_pids); do
                [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" = D ] && return 0
        done
        return 1
}
wait_for 30 cleanup_blocked || fail "the removal of job $x's files did not block on the frozen filesystem"
assert_eq running "$(job_state "$x")" "the state of job $x while its files are being removed"
[ -n "$(find "$T" -maxdepth 1 -name ".benchd-$x-*")" ] || fail "the files of job $x are gone while the filesystem is frozen"
DESCENDANTS=$(descendants "$BENCHD_PID")
stop_benchd KILL
# The removal process dies of its parent's death once it leaves the frozen filesystem.
fsfreeze --unfreeze "$MNT"
check_after_kill thawed
case " $RUNNING_AT_KILL " in *" $x "*) ;; *) fail "job $x is not running in the database after a kill during its removal: $(job_state "$x")" ;; esac
start_benchd
wait_job_state "$x" interrupted 30
wait_for 10 bash -c "[ -z \"\$(find '$T' -maxdepth 1 -name '.benchd-$x-*')\" ]" ||
        fail "the files of job $x are left after a kill during their removal: $(benchd_files "$T")"
log "job $x: its files, whose removal was killed, removed at the next start"
stop_benchd KILL
check_after_kill removed

# ---- a kill while benchd removes the files of a job that has ended ----
# A job's end is stored without waiting for its files to go; the removal is recorded in
# pending_removals, so the benchd after a kill removes them even though the job looks settled.
# Held still without timing: the step's directory gets many files of the step's own name (as a
# killed worker leaves them), and the removal process is stopped (SIGSTOP) as soon as it appears.
start_benchd
check_after_start ended
y=$(submit_busctl target s "$T" workload s write size s 4M block_size s 64K runtime_ms u 60000 sample_ms u 100 \
        label s removal-after-end) || fail "cannot submit the job whose removal is to be killed"
wait_job_state "$y" running 30
python3 - "$T/.benchd-$y-0-left" <<'PY'
import os, sys
os.mkdir(sys.argv[1], 0o700)
for i in range(60000):
    os.close(os.open(os.path.join(sys.argv[1], "f%d" % i), os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
PY
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$y" >/dev/null || fail "cannot cancel job $y"
stopped=
for ((i = 0; i < 400; i++)); do
        for p in $(cleanup_pids); do
                kill -STOP "$p" 2>/dev/null && stopped+="$p "
        done
        [ -n "$stopped" ] && break
        sleep 0.01
done
[ -n "$stopped" ] || fail "benchd started no removal for the cancelled job $y"
wait_job_state "$y" cancelled 30
[ -d "$T/.benchd-$y-0-left" ] || fail "the removal of job $y's files ended before it could be held"
assert_eq "$y|0" "$(sql "select job_id, step from pending_removals where job_id = $y")" "the removal recorded while it runs"
DESCENDANTS=$(descendants "$BENCHD_PID")
stop_benchd KILL
check_after_kill removal-after-end
[ -d "$T/.benchd-$y-0-left" ] || fail "the files of job $y went with the kill: the test held nothing"
start_benchd
wait_for 60 bash -c "[ ! -e '$T/.benchd-$y-0-left' ]" ||
        fail "the files of the ended job $y, whose removal was killed, are left after the next start: $(benchd_files "$T" | head -n 3)"
wait_for 10 bash -c "[ -z \"\$(sqlite3 -cmd '.timeout 5000' '$DB' 'select 1 from pending_removals')\" ]" ||
        fail "pending_removals after the removal finished: $(sql 'select * from pending_removals')"
assert_eq cancelled "$(job_state "$y")" "job $y after the next start"
log "job $y: its files, whose removal was killed after the job ended, removed at the next start"
stop_benchd KILL
check_after_kill removal-resumed

# The last life runs what is left to its end.
start_benchd
check_after_start final
wait_for 120 bash -c "[ -z \"\$(sqlite3 -cmd '.timeout 5000' '$DB' \"select id from jobs where state in ('queued', 'running')\")\" ]" ||
        fail "the queue did not drain after the last round: $(sql "select id, state from jobs where state in ('queued', 'running')")"
assert_eq "" "$(sql "select id || ' ' || state || ' ' || coalesce(error, '') from jobs where state not in ('succeeded', 'interrupted')
                     and id != $y")" "jobs that neither succeeded nor were interrupted (but the one cancelled above)"
wait_for 10 bash -c "[ -z \"\$(find '$T' -maxdepth 2 -name '.benchd-*')\" ]" ||
        fail ".benchd-* files left at the end: $(benchd_files "$T")"
stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status after the last round"
assert_eq ok "$(sql 'pragma integrity_check')" "integrity_check at the end"
# The rounds must have met the moments they are for.
assert_le $((ROUNDS / 10)) "$N_INTERRUPTED" "running jobs interrupted by a kill over the rounds"
assert_le $((ROUNDS / 10)) "$N_KEPT" "queued jobs kept over a kill"
log "PASS"
