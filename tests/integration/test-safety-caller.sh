#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchd acts for a caller other than root only as that caller could: its worker runs as the
# caller, every path under the target is opened beneath a descriptor the worker holds, and the
# removal of the job's files runs as the caller too. The caller is nobody, allowed
# org.benchd.benchd1.submit by the stand-in polkit (polkit-standin.py).
#
#   - what the caller cannot see: a target in a directory nobody may not search gets one answer
#     whether it does not exist, is a file nobody may not read, or is too short; root, and nobody
#     where it can look itself, get the details.
# The races are driven, not hoped for: syscall-stop.py holds the worker at the return of the
# system call a scenario aims at (the mkdirat of its metadata directory, of d00000, the fifth file
# created), and the test plays the attacker (as nobody) or cancels the job right there.
#   - the metadata race: the .benchd-N-0-meta directory renamed away and replaced by nobody's own,
#     d00000 in it turned into a symlink to a root-only (0700) directory: that directory's listing
#     and mtime unchanged, no root-owned file left anywhere, nothing of the job's left; once run to
#     its end, once cancelled in the middle of the creates;
#   - a cancel, and a kill -9 of the worker, in the middle of the creates: the files it made are
#     nobody's, the worker runs with nobody's uid and no capabilities, and everything the job made
#     is removed (by the worker's own removal, then by benchd-cleanup running as nobody);
#   - a job queued by nobody and restored by a restarted benchd runs as nobody;
#   - the worker alone: --run-as only with --protocol-fd, only for a directory or file guard, only
#     for a uid the user database knows.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 setpriv stat find
require_loop
require_fs ext4
require_binaries
/usr/bin/python3 -c 'import dbus, dbus.mainloop.glib; from gi.repository import GLib' 2>/dev/null ||
        skip "needs /usr/bin/python3 with python3-dbus and python3-gi (scripts/deps.sh)"

U=$(id -u nobody 2>/dev/null) || skip "needs a user nobody"
UG=$(id -g nobody)
RULES="$TEST_DIR/polkit.rules"
PKLOG="$TEST_DIR/polkit.log"
printf 'org.benchd.benchd1.submit %s yes\n' "$U" >"$RULES"
: >"$PKLOG"

start_bus
start_monitor
start_udevd
scratch_fs 256M
T="$SCRATCH_DIR"
A="$T/alice"            # nobody's own directory: the target
VAULT="$T/vault"        # root's, 0700: what the races aim at
mkdir -m 0755 "$A"
chown "$U:$UG" "$A"
mkdir -m 0700 "$VAULT"
echo keep >"$VAULT/keep"
start_benchd
start_standin "$RULES" "$PKLOG"

# as_user CMD...: CMD as nobody (the attacker's hands).
as_user() {
        setpriv --reuid="$U" --regid="$UG" --clear-groups "$@"
}

as_bus() {
        as_user busctl --address="$BUS_ADDRESS" --no-pager "$@"
}

# submit_as KEY TYPE VALUE...: SubmitJob as nobody; prints the job id.
submit_as() {
        local out
        out=$(as_bus --allow-interactive-authorization=no --json=short call -- "$BUS_NAME" "$MANAGER_PATH" \
                "$MANAGER_IFACE" SubmitJob 'a{sv}' $(($# / 3)) "$@") || return 1
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])' <<<"$out"
}

# error_as METHOD SIG ARGS...: a Manager call by nobody that must fail; $ERR is benchd's
# "error.name: message".
error_as() {
        local before i
        before=$(_benchd_errors | wc -l)
        run as_bus --allow-interactive-authorization=no call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" "$@"
        [ "$RC" != 0 ] || fail "$* by uid $U succeeded but should have failed: $OUT"
        for ((i = 0; i < 30; i++)); do
                ERR=$(_benchd_errors | sed -n "$((before + 1))p")
                [ -n "$ERR" ] && return 0
                sleep 0.1
        done
        fail "$* by uid $U failed ($OUT) but benchd sent no error reply"
}

# The state of the vault as a listing would show it: names, owners, sizes, modes and mtimes (ns).
vault_state() {
        stat -c '%n %U %a %s %y' "$VAULT" "$VAULT"/* "$VAULT"/.[!.]* 2>/dev/null || true
}

# ---- the tracer (syscall-stop.py) ----

TRACER_PID=
LINE=

# start_tracer RULE...: holds benchd's workers at the rules' system calls (see syscall-stop.py).
start_tracer() {
        coproc TRACER { exec python3 "$SOURCE_ROOT/tests/integration/syscall-stop.py" "$BENCHD_PID" \
                "$WORKER_BIN" "$@" 2>>"$TEST_DIR/tracer.log"; }
        TRACER_PID=$TRACER_PID
        defer kill_wait "$TRACER_PID" 5
        tracer_read
        case "$LINE" in
        READY) ;;
        "SKIP "*) skip "${LINE#SKIP }" ;;
        *) fail "the tracer said '$LINE' instead of READY" ;;
        esac
}

stop_tracer() {
        kill_wait "$TRACER_PID" 5
        TRACER_PID=
}

# tracer_read: the tracer's next line in $LINE.
tracer_read() {
        IFS= read -r -t 120 LINE <&"${TRACER[0]}" ||
                fail "the tracer said nothing within 120 s (or ended): $(tail -n 5 "$TEST_DIR/tracer.log" 2>/dev/null)"
}

# tracer_event: the tracer's next line that is not a SIGNAL report, in $LINE.
tracer_event() {
        tracer_read
        while [ "${LINE#SIGNAL }" != "$LINE" ]; do
                tracer_read
        done
}

tracer_cont() {
        echo cont >&"${TRACER[1]}"
}

# tracer_done: lets the held thread go, and traces nothing more (the rest of the step at full speed).
tracer_done() {
        echo "done" >&"${TRACER[1]}"
}

# tgid_of TID: the process of a thread.
tgid_of() {
        sed -n 's/^Tgid:[[:space:]]*//p' "/proc/$1/status"
}

# removal_done ID: no removal of the job's files is under way.
removal_done() {
        [ "$(sql "select count(*) from pending_removals where job_id = $1")" = 0 ] && [ -z "$(cleanup_pids)" ]
}

# cancel_held ID TID: cancels job ID while its worker (thread TID) is held; returns once the worker's
# SIGTERM handler has run (benchd signals the worker before it answers CancelJob; the tracer says
# when a handler returns), so that the held thread stops right after the system call it is held at.
cancel_held() {
        local id=$1 tgid tid
        tgid=$(tgid_of "$2")
        as_bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$id" ||
                fail "nobody could not cancel its own job $id"
        while tracer_read; do
                case "$LINE" in
                "SIGNAL "*" 15")
                        read -r _ tid _ <<<"$LINE"
                        [ "$(tgid_of "$tid")" = "$tgid" ] && return 0
                        ;;
                "SIGNAL "*) ;;
                *) fail "waiting for the worker of job $id to take SIGTERM, the tracer said '$LINE'" ;;
                esac
        done
}

# assert_job_files_gone ID: nothing named for the job in nobody's directory, nothing of root's there.
assert_job_files_gone() {
        wait_for 60 removal_done "$1" || fail "the removal of job $1's files did not end"
        assert_eq "" "$(find "$A" -name ".benchd-$1-*")" "files of job $1 left in $A"
        assert_eq "" "$(find "$A" "$VAULT" -mindepth 1 -user root ! -path "$VAULT/keep")" \
                "root-owned files in $A and $VAULT"
}

META=(workload s metadata file_count u 60 dirs u 3 file_size_max u 0 sample_ms u 100)

# race JOB_LABEL CANCEL: the metadata race of the finding; CANCEL=1 cancels at the fifth create.
race() {
        local label=$1 cancel=$2 id meta held=0 result before
        before=$(vault_state)
        start_tracer 'mkdirat:\.benchd-[0-9]+-0-meta$' 'mkdirat:(^|/)d00000$' 'openat:(^|/)[0-9a-f]{10}[0-9A-Za-z]{0,12}$:5'
        id=$(submit_as target s "$A" label s "$label" "${META[@]}") || fail "nobody could not submit $label"
        while tracer_event; do
                case "$LINE" in
                "STOP 0 "*)
                        # The worker made its directory: nobody's own goes in its place.
                        meta=${LINE##* }
                        meta=${meta##*/}
                        as_user mv "$A/$meta" "$A/stolen-$id"
                        as_user mkdir -m 0700 "$A/$meta"
                        tracer_cont
                        ;;
                "STOP 1 "*)
                        # ... and made d00000 in it: a symlink to the vault instead.
                        as_user rmdir "$A/.benchd-$id-0-meta/d00000"
                        as_user ln -s "$VAULT" "$A/.benchd-$id-0-meta/d00000"
                        tracer_cont
                        ;;
                "STOP 2 "*)
                        held=1
                        if [ "$cancel" = 1 ]; then
                                read -r _ _ tid _ <<<"$LINE"
                                cancel_held "$id" "$tid"
                        fi
                        tracer_done
                        ;;
                "EXIT "*) break ;;
                *) fail "the tracer said '$LINE'" ;;
                esac
        done
        result=$(wait_job_removed "$id" 120)
        stop_tracer
        log "$label: job $id ended $result (fifth create reached: $held)"
        assert_eq "$before" "$(vault_state)" "the vault (listing and mtimes) after $label"
        assert_eq "" "$(find "$A" -mindepth 1 -user root)" "root-owned entries in $A after $label"
        assert_job_files_gone "$id"
        case "$result" in
        failed*) ;;
        *) fail "$label: the job should fail on the symlink planted in its directory, ended: $result" ;;
        esac
        assert_contains "$(sql "select error from jobs where id = $id")" "d00000" "$label: the job's error"
        rm -rf --one-file-system "$A/stolen-$id"
}

# ---- the cases ----

# What nobody cannot see: one answer.
case_reach() {
        local p a f answers=() probe=(workload s read size s 4K block_size s 512) closed="$T/closed"

        log "what nobody cannot see: one answer"
        mkdir -m 0700 "$closed"
        printf 'x\n' >"$closed/rootfile"
        chmod 0644 "$closed/rootfile"
        head -c 1M /dev/zero >"$closed/secret"
        chmod 0600 "$closed/secret"
        for p in "$closed/nonexistent" "$closed/secret" "$closed/rootfile"; do
                error_as SubmitJob 'a{sv}' 4 target s "$p" "${probe[@]}"
                answers+=("$ERR")
        done
        assert_contains "${answers[0]}" "org.freedesktop.DBus.Error.AccessDenied:" \
                "the answer for a path nobody cannot reach"
        assert_contains "${answers[0]}" "may not search $closed" "the answer names the directory nobody may not search"
        assert_eq "${answers[0]}" "${answers[1]}" "the answers for a missing and a root-only file"
        assert_eq "${answers[0]}" "${answers[2]}" "the answers for a missing and a 2-byte file"
        if [ "$(stat -c '%U %a' /root 2>/dev/null)" = "root 700" ]; then
                error_as SubmitJob 'a{sv}' 4 target s /root/nonexistent-benchd-test "${probe[@]}"
                a=$ERR
                error_as SubmitJob 'a{sv}' 4 target s /root "${probe[@]}"
                assert_not_contains "$ERR" "on the way to the target" "/root itself, which nobody can stat, has the details"
                for f in /root/.bashrc /root/.profile; do
                        [ -f "$f" ] || continue
                        error_as SubmitJob 'a{sv}' 4 target s "$f" "${probe[@]}"
                        assert_eq "$a" "$ERR" "the answers for /root/nonexistent-benchd-test and $f"
                done
        fi

        log "nobody still gets the details where it can look"
        error_as SubmitJob 'a{sv}' 4 target s "$A/nonexistent" "${probe[@]}"
        assert_contains "$ERR" "$A/nonexistent does not exist" "a missing path nobody can look for"
        printf 'x\n' >"$A/short"
        chown "$U" "$A/short"
        error_as SubmitJob 'a{sv}' 4 target s "$A/short" "${probe[@]}"
        assert_contains "$ERR" "shorter than block_size 512" "a short file nobody can stat"
        rm -f "$A/short"

        log "root gets the details"
        call_error SubmitJob 'a{sv}' 4 target s "$closed/nonexistent" "${probe[@]}"
        assert_contains "$ERR" "$closed/nonexistent does not exist" "root's answer for a missing path"
        call_error SubmitJob 'a{sv}' 4 target s "$closed/rootfile" "${probe[@]}"
        assert_contains "$ERR" "shorter than block_size 512" "root's answer for a 2-byte file"
}

case_race_end() {
        log "the metadata race, run to its end"
        race race-to-end 0
}

case_race_cancel() {
        log "the metadata race, cancelled in the middle of the creates"
        race race-cancel 1
}

# held_job WHAT: submits a metadata job as nobody and holds its worker at the fifth create; sets ID,
# TID and WORKER.
held_job() {
        local path

        start_tracer 'openat:(^|/)[0-9a-f]{10}[0-9A-Za-z]{0,12}$:5'
        ID=$(submit_as target s "$A" label s "$1" "${META[@]}") || fail "nobody could not submit $1"
        tracer_event
        case "$LINE" in
        "STOP "*) ;;
        *) fail "$1: the worker was not held at its fifth create: $LINE" ;;
        esac
        read -r _ _ TID _ _ path <<<"$LINE"
        WORKER=$(tgid_of "$TID")
        # What it runs as, and what it made: nobody's, without capabilities.
        assert_eq "$U $U $U $U" "$(sed -n 's/^Uid:[[:space:]]*//p' "/proc/$WORKER/status" | tr -s '[:space:]' ' ' |
                sed 's/ $//')" "$1: the worker's uids"
        assert_eq 0000000000000000 "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$WORKER/status")" \
                "$1: the worker's effective capabilities"
        assert_eq 0000000000000000 "$(sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$WORKER/status")" \
                "$1: the worker's permitted capabilities"
        assert_eq "" "$(find "$A" -mindepth 1 -user root)" "$1: root-owned entries while the worker creates"
        [ -n "$(find "$A/.benchd-$ID-0-meta" -type f -user "$U" -name "${path##*/}")" ] ||
                fail "$1: the file just created (${path##*/}) is not in the job's directory as nobody's"
}

case_cancel() {
        log "a cancel in the middle of the creates"
        held_job cancel-mid-create
        cancel_held "$ID" "$TID"
        tracer_done
        assert_eq cancelled "$(wait_job_removed "$ID" 60)" "the cancelled job"
        stop_tracer
        assert_job_files_gone "$ID"
        # The worker's own removal took them all, through the directories it held: nothing was left
        # for benchd-cleanup.
        assert_eq "" "$(grep -E "job $ID( step 0 worker\[[0-9]+\])?: (still running; sending SIGKILL|removed [1-9])" \
                "$BENCHD_LOG")" "the cancelled worker left files (or had to be killed)"
}

case_kill() {
        log "the worker killed in the middle of the creates: benchd-cleanup, as nobody, removes the files"
        held_job kill-mid-create
        # The held thread dies with the rest. The tracer is not needed after the kill, so it goes
        # first: a tracee killed in a ptrace stop may report its end to the tracer before benchd, and
        # once (in a suite run with a core kept busy) benchd never heard of this worker's end,
        # killed it again at its step timeout, and the job stayed running. Without a tracer the
        # kernel tells benchd directly, which is what a user's kill -9 does.
        kill -KILL "$WORKER"
        stop_tracer
        case "$(wait_job_removed "$ID" 60)" in
        failed*) ;;
        *) fail "the job whose worker was killed should fail" ;;
        esac
        assert_job_files_gone "$ID"
        grep -q "job $ID: removed [1-9][0-9]* leftover files and directories" "$BENCHD_LOG" ||
                fail "benchd-cleanup did not report removing job $ID's files: $(grep "job $ID:" "$BENCHD_LOG" | tail -n 5)"
        assert_eq "" "$(grep "job $ID: removed .* are not benchd's" "$BENCHD_LOG")" "files of job $ID left as not ours"
}

case_restart() {
        local blocker blocker2 queued

        log "a job queued by nobody runs as nobody after a restart"
        blocker=$(submit_busctl target s "$T" workload s write size s 64M block_size s 64K runtime_ms u 120000 \
                sample_ms u 100) || fail "root's first blocker"
        wait_job_state "$blocker" running 30
        blocker2=$(submit_busctl target s "$T" workload s write size s 64M block_size s 64K runtime_ms u 120000 \
                sample_ms u 100) || fail "root's second blocker"
        queued=$(submit_as target s "$A" label s restored workload s write size s 4M block_size s 64K sample_ms u 100) ||
                fail "nobody's queued job"
        stop_benchd TERM
        start_benchd
        wait_job_state "$blocker2" running 30
        start_tracer "openat:\\.benchd-$queued-0-0\$"
        bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$blocker2" || fail "cancelling the second blocker"
        # The blocker's worker (traced too) ends first.
        while tracer_event; do
                case "$LINE" in
                "STOP 0 "*) break ;;
                "EXIT "*) ;;
                *) fail "the restored job's worker was not held at its create: $LINE" ;;
                esac
        done
        read -r _ _ TID _ _ _ <<<"$LINE"
        assert_eq "$U" "$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$(tgid_of "$TID")/status")" \
                "the restored job's worker uid"
        assert_eq nobody "$(stat -c %U "$A/.benchd-$queued-0-0")" "the owner of the restored job's file"
        tracer_done
        assert_eq succeeded "$(wait_job_removed "$queued" 60)" "nobody's restored job"
        stop_tracer
        assert_job_files_gone "$queued"
}

case_worker() {
        local st

        log "the worker alone: --run-as only for a directory or file, only for a user the database knows"
        run "$WORKER_BIN" --run-as="$U" --target "$A" --workload write --size 1M
        assert_eq 2 "$RC" "--run-as without --protocol-fd"
        assert_contains "$OUT" "--run-as goes with --protocol-fd" "the usage error"
        st=$(stat -c '%d %i' "$A")
        # shellcheck disable=SC2086
        PYTHONPATH="$(dirname "$0")" python3 - "$WORKER_BIN" "$A" "$U" $st <<'EOF' || fail "the worker's --run-as"
import struct, sys
from worker_proto import Worker, ERROR, GUARD_NONE, GUARD_BLOCK, GUARD_DIRECTORY
worker, target, uid, dev, ino = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
spec = f"target={target}\nworkload=write\nblock_size=65536\nsize=1M\n"


def run(args, guard):
    w = Worker(worker, args)
    assert w.frame()[0] == 1
    w.send_spec(77, 0, spec, guard)
    frames = w.frames()
    rc = w.proc.wait()
    errors = [pl for t, pl in frames if t == ERROR]
    if not errors:
        return rc, 0, ""
    code, n = struct.unpack_from("<II", errors[0])
    return rc, code, errors[0][8:8 + n].decode()


# A guard that is no directory or file (none, a block device): refused before anything is touched.
for guard in ((GUARD_NONE, 0, 0, 0, 0), (GUARD_BLOCK, 0, dev, 0, 0)):
    rc, code, msg = run([f"--run-as={uid}"], guard)
    assert rc == 1 and code == 22 and "--run-as is for a step on a directory or file target" in msg, (rc, code, msg)
# A uid the user database does not know: refused, not run with groups made up.
rc, code, msg = run(["--run-as=41234"], (GUARD_DIRECTORY, 0, dev, ino, 0))
assert rc == 1 and code == 1 and "no entry in the user database" in msg, (rc, code, msg)
# The caller's own directory: the step runs, as the caller.
rc, code, msg = run([f"--run-as={uid}"], (GUARD_DIRECTORY, 0, dev, ino, 0))
assert rc == 0 and code == 0, (rc, code, msg)
EOF
        assert_eq "" "$(find "$A" -name '.benchd-77-*')" "files of the worker's own runs left"
}

# BENCHD_TEST_CASES="race_end kill" runs some (to show a case failing on an older build); default all,
# reach first, while the monitor's log that error_as reads is short.
for c in ${BENCHD_TEST_CASES:-reach race_end race_cancel cancel kill restart worker}; do
        "case_$c"
done
benchd_alive || fail "benchd died"
log "safety-caller cases passed: ${BENCHD_TEST_CASES:-all}"
