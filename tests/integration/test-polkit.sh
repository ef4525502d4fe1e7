#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Authorisation by polkit, with a stand-in authority (polkit-standin.py) on the private bus that
# answers CheckAuthorization from a rules file and logs every request: who may submit, that a
# destructive job needs org.benchd.benchd1.destructive (and a denied one leaves the device as it
# was), that a challenge without interaction is InteractiveAuthorizationRequired and that the
# interactive flag reaches polkit, that the subject is the caller's bus name, that a user cancels
# their own jobs without asking and another user's only when allowed, the per-user bound on queued
# jobs, that an allowed user may benchmark only a directory it could write itself, and that
# without polkit only root may submit. The unprivileged callers are nobody, games
# and news (setpriv; dbus-daemon refuses a uid without a passwd entry).

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 setpriv sha256sum
require_binaries
/usr/bin/python3 -c 'import dbus, dbus.mainloop.glib; from gi.repository import GLib' 2>/dev/null ||
        skip "needs /usr/bin/python3 with python3-dbus and python3-gi (scripts/deps.sh)"

NOBODY=$(id -u nobody 2>/dev/null) || skip "needs a user nobody"
OTHER=$(id -u games 2>/dev/null) || skip "needs a user games"
DENIED=$(id -u news 2>/dev/null) || skip "needs a user news"
RULES="$TEST_DIR/polkit.rules"
PKLOG="$TEST_DIR/polkit.log"
CONF="$TEST_DIR/benchd.conf"
: >"$RULES"
: >"$PKLOG"

start_bus
start_monitor
start_udevd
scratch_fs 256M
T="$SCRATCH_DIR"
chmod 0777 "$T"
make_loop 64M
DEV="$LOOP_DEV"
printf 'ScratchDevices=%s\nMaxQueuedJobsPerUser=2\n' "$DEV" >"$CONF"
start_benchd --config="$CONF"

start_standin "$RULES" "$PKLOG"

# as UID busctl-args...: busctl as that user, never allowing interaction unless the args say so.
as() {
        local uid=$1
        shift
        setpriv --reuid="$uid" --regid="$(id -g "$uid")" --clear-groups busctl --address="$BUS_ADDRESS" --no-pager "$@"
}

# submit_as UID [BUSCTL-OPTION] KEY TYPE VALUE...: prints the job id.
submit_as() {
        local uid=$1 opt=--allow-interactive-authorization=no out
        shift
        case "${1:-}" in --*) opt=$1; shift ;; esac
        out=$(as "$uid" "$opt" --json=short call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob \
                'a{sv}' $(($# / 3)) "$@") || return 1
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])' <<<"$out"
}

# error_as UID METHOD SIG ARGS...: a Manager call by UID that must fail; $ERR is benchd's
# "error.name: message".
error_as() {
        local uid=$1 before i
        shift
        before=$(_benchd_errors | wc -l)
        run as "$uid" --allow-interactive-authorization=no call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" "$@"
        [ "$RC" != 0 ] || fail "$* by uid $uid succeeded but should have failed: $OUT"
        for ((i = 0; i < 30; i++)); do
                ERR=$(_benchd_errors | sed -n "$((before + 1))p")
                [ -n "$ERR" ] && return 0
                sleep 0.1
        done
        fail "$* by uid $uid failed ($OUT) but benchd sent no error reply"
}

requests() { wc -l <"$PKLOG"; }
# last_request FIELD: a field of the newest request polkit saw.
last_request() {
        tail -n 1 "$PKLOG" | json_get "d[\"$1\"]"
}

SMALL=(target s "$T" workload s write size s 4M block_size s 64K sample_ms u 100)

log "an allowed user submits, and the job runs"
cat >"$RULES" <<EOF
org.benchd.benchd1.submit $NOBODY yes
org.benchd.benchd1.submit $OTHER challenge
org.benchd.benchd1.destructive $NOBODY no
org.benchd.benchd1.cancel $OTHER no
EOF
id=$(submit_as $NOBODY "${SMALL[@]}") || fail "uid $NOBODY, allowed by polkit, could not submit"
assert_eq succeeded "$(wait_job_removed "$id" 60)" "the allowed user's job"
assert_eq $NOBODY "$(sql "select submitted_by from jobs where id = $id")" "submitted_by"
assert_eq org.benchd.benchd1.submit "$(last_request action)" "action asked"
assert_eq system-bus-name "$(last_request kind)" "subject kind"
assert_eq $NOBODY "$(last_request uid)" "uid behind the subject's bus name"
name=$(last_request name)
case "$name" in :*) ;; *) fail "subject name '$name' is not a unique bus name" ;; esac
assert_ne "$(benchd_owner)" "$name" "subject (must be the caller, not benchd)"
assert_eq "$T" "$(last_request details | json_get 'd["target"]')" "details target"

log "an allowed user may use only what it could use itself: benchd runs as root"
CLOSED="$T/root-only"
mkdir -m 0755 "$CLOSED"
jobs_before=$(sql "select count(*) from jobs")
error_as $NOBODY SubmitJob 'a{sv}' 4 target s "$CLOSED" workload s write size s 4M block_size s 64K
case "$ERR" in
org.freedesktop.DBus.Error.AccessDenied:*"uid $NOBODY may not create files in $CLOSED"*"choose a directory you can use"*) ;;
*) fail "a directory uid $NOBODY cannot write should be AccessDenied naming it, got: $ERR" ;;
esac
assert_eq "$jobs_before" "$(sql "select count(*) from jobs")" "jobs after the refused submit"
assert_eq "" "$(ls -A "$CLOSED")" "files benchd made in the refused directory"
chown "$NOBODY" "$CLOSED"
id=$(submit_as $NOBODY target s "$CLOSED" workload s write size s 4M block_size s 64K sample_ms u 100) ||
        fail "uid $NOBODY could not submit on a directory it owns"
assert_eq succeeded "$(wait_job_removed "$id" 60)" "the job in the user's own directory"
assert_eq 0 "$(last_request flags)" "flags without interaction"

log "root is not asked"
n=$(requests)
blocker=$(submit_busctl target s "$T" workload s write size s 64M block_size s 64K runtime_ms u 60000) ||
        fail "root could not submit"
wait_job_state "$blocker" running 30
assert_eq "$n" "$(requests)" "polkit requests after root's SubmitJob"

log "a denied user gets AccessDenied"
error_as $DENIED SubmitJob 'a{sv}' 3 "${SMALL[@]:0:9}"
assert_contains "$ERR" "org.freedesktop.DBus.Error.AccessDenied:" "denied submit"
assert_contains "$ERR" "org.benchd.benchd1.submit" "denied submit names the action"
assert_eq $DENIED "$(last_request uid)" "uid of the denied caller"

log "ImportRuns is authorised like SubmitJob"
DOC='{"format":"benchd-export","version":1,"host":"elsewhere","runs":[]}'
out=$(as $NOBODY --allow-interactive-authorization=no call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" \
        ImportRuns s "$DOC") || fail "uid $NOBODY, allowed org.benchd.benchd1.submit, could not import: $out"
assert_eq "tt 0 0" "$out" "the allowed user's (empty) import"
assert_eq org.benchd.benchd1.submit "$(last_request action)" "action asked for ImportRuns"
assert_eq $NOBODY "$(last_request uid)" "uid behind ImportRuns' subject"
error_as $DENIED ImportRuns s "$DOC"
assert_contains "$ERR" "org.freedesktop.DBus.Error.AccessDenied:" "denied import"
n=$(requests)
out=$(bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ImportRuns s "$DOC") || fail "root could not import: $out"
assert_eq "$n" "$(requests)" "polkit requests after root's ImportRuns"

log "a destructive job needs its own action; the device is unchanged"
before=$(sha256sum <"$DEV")
error_as $NOBODY SubmitJob 'a{sv}' 5 target s "$DEV" workload s write destructive b true size s 4M \
        block_size s 64K
assert_contains "$ERR" "org.freedesktop.DBus.Error.AccessDenied:" "destructive denied"
assert_contains "$ERR" "org.benchd.benchd1.destructive" "the message names the destructive action"
assert_eq org.benchd.benchd1.destructive "$(last_request action)" "action asked for a destructive job"
assert_eq "$before" "$(sha256sum <"$DEV")" "device contents"
assert_eq 0 "$(sql "select count(*) from jobs where target = '$DEV'")" "jobs on the device"

log "a challenge: InteractiveAuthorizationRequired without interaction, allowed with it"
error_as $OTHER SubmitJob 'a{sv}' 3 "${SMALL[@]:0:9}"
assert_contains "$ERR" "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired:" "challenge"
assert_eq 0 "$(last_request flags)" "flags of the non-interactive call"
other=$(submit_as $OTHER --allow-interactive-authorization=yes "${SMALL[@]}") ||
        fail "uid $OTHER could not submit interactively"
assert_eq 1 "$(last_request flags)" "flags of the interactive call"
assert_eq queued "$(job_state "$other")" "the interactive user's job"

log "own jobs are cancelled without asking, others' need org.benchd.benchd1.cancel"
mine=$(submit_as $NOBODY "${SMALL[@]}") || fail "submit of a job to cancel"
n=$(requests)
as $NOBODY call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$mine" ||
        fail "uid $NOBODY could not cancel its own job"
assert_eq cancelled "$(job_state "$mine")" "own job after CancelJob"
assert_eq "$n" "$(requests)" "polkit requests for cancelling one's own job"
# Job.Cancel too.
mine=$(submit_as $NOBODY "${SMALL[@]}") || fail "submit of a job to cancel"
n=$(requests)
as $NOBODY call "$BUS_NAME" "$MANAGER_PATH/job/$mine" "$JOB_IFACE" Cancel || fail "Job.Cancel of one's own job"
assert_eq cancelled "$(job_state "$mine")" "own job after Job.Cancel"
assert_eq "$n" "$(requests)" "polkit requests for Job.Cancel of one's own job"

theirs=$(submit_as $NOBODY "${SMALL[@]}") || fail "submit of another user's job"
error_as $OTHER CancelJob t "$theirs"
assert_contains "$ERR" "org.freedesktop.DBus.Error.AccessDenied:" "cancelling another user's job"
assert_eq org.benchd.benchd1.cancel "$(last_request action)" "action asked for another's job"
assert_eq "$theirs" "$(last_request details | json_get 'd["job_id"]')" "details job_id"
assert_eq queued "$(job_state "$theirs")" "the other user's job after the denied cancel"
sed -i "s/^org.benchd.benchd1.cancel $OTHER no\$/org.benchd.benchd1.cancel $OTHER yes/" "$RULES"
as $OTHER --allow-interactive-authorization=no call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob \
        t "$theirs" || fail "uid $OTHER, allowed to cancel, could not"
assert_eq cancelled "$(job_state "$theirs")" "the other user's job after the allowed cancel"

log "at most MaxQueuedJobsPerUser=2 queued jobs per user"
q1=$(submit_as $NOBODY "${SMALL[@]}") || fail "first queued job"
q2=$(submit_as $NOBODY "${SMALL[@]}") || fail "second queued job"
error_as $NOBODY SubmitJob 'a{sv}' 3 "${SMALL[@]:0:9}"
assert_contains "$ERR" "org.benchd.Benchd1.Error.QueueFull: user $NOBODY has 2 jobs queued, at most 2" \
        "per-user bound"
# Others are not held by it ($other of uid $OTHER is queued already: this is its second).
q3=$(submit_as $OTHER --allow-interactive-authorization=yes "${SMALL[@]}") || fail "another user's job"
for j in "$q1" "$q2" "$q3" "$other"; do
        bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$j" || fail "root cancelling $j"
done

log "without polkit only root may submit"
kill_wait "$STANDIN_PID"
name_has_owner org.freedesktop.PolicyKit1 && fail "the stand-in still owns its name"
error_as $NOBODY SubmitJob 'a{sv}' 3 "${SMALL[@]:0:9}"
assert_contains "$ERR" "org.freedesktop.DBus.Error.AccessDenied:" "submit without polkit"
assert_contains "$ERR" "polkit is not running" "the message names polkit"
bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$blocker" || fail "root cancelling the blocker"
wait_job_removed "$blocker" 30 >/dev/null
id=$(submit_busctl "${SMALL[@]}") || fail "root could not submit without polkit"
assert_eq succeeded "$(wait_job_removed "$id" 60)" "root's job without polkit"
benchd_alive || fail "benchd died"
log "ok"
