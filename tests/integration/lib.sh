# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# The integration-test harness, sourced by every tests/integration/test-*.sh. It gives each test a
# private world: a temporary directory, a private system-like dbus-daemon, a benchd on a temporary
# SQLite file, loop devices backed by image files in the temporary directory, and a stack of
# cleanup actions that undo all of it in reverse order however the test ends. Nothing here touches
# a device, process or file that the test did not create itself.
#
# Environment (set by meson's test(), with fallbacks for running a script by hand):
#   SOURCE_ROOT  the source tree (default: two levels above this file)
#   BUILD_ROOT   the build tree (default: $SOURCE_ROOT/build)
#   BENCHD_TEST_KEEP=1  keep the temporary directory (for debugging)
#   BENCHD_TEST_WRAP="valgrind --leak-check=full --error-exitcode=99"  run benchd under a tool

set -eu -o pipefail

SOURCE_ROOT=${SOURCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD_ROOT=${BUILD_ROOT:-$SOURCE_ROOT/build}
BENCHD_BIN=${BENCHD_BIN:-$BUILD_ROOT/daemon/benchd}
WORKER_BIN=${WORKER_BIN:-$BUILD_ROOT/daemon/worker/benchd-worker}
BENCHCTL_BIN=${BENCHCTL_BIN:-$BUILD_ROOT/client/benchctl}
PROFILES_DIR=${PROFILES_DIR:-$SOURCE_ROOT/daemon/profiles}
BUS_NAME=org.benchd.Benchd1
MANAGER_PATH=/org/benchd/Benchd1
MANAGER_IFACE=org.benchd.Benchd1.Manager
JOB_IFACE=org.benchd.Benchd1.Job
TEST_NAME=$(basename "${BASH_SOURCE[1]:-$0}" .sh)

# Every test runs under run-test (tests/harness/run-test.c): in process groups of its own below a
# child subreaper, with a TMPDIR of its own; what is still running, mounted or attached when the
# test ends is named, ended, and fails a test that passed. meson starts it so; a test started by
# hand starts itself so (BENCHD_TEST_NAME is set by run-test).
if [ -z "${BENCHD_TEST_NAME:-}" ] && [ -x "$BUILD_ROOT/tests/harness/run-test" ]; then
        exec "$BUILD_ROOT/tests/harness/run-test" --name "$TEST_NAME" -- bash "$0" "$@"
fi

# The system's python3, the one scripts/deps.sh installs python3-dbus and python3-gi for, before
# any other python3 in PATH: a version manager's shim (pyenv) in front of it costs a shell script or
# three per call, seconds on a loaded machine, and the tests call python3 in their polling loops.
# BENCHD_TEST_PYTHON names another.
PYTHON3=${BENCHD_TEST_PYTHON:-}
[ -n "$PYTHON3" ] || { [ -x /usr/bin/python3 ] && PYTHON3=/usr/bin/python3; } || PYTHON3=$(command -v python3 || echo python3)
python3() {
        "$PYTHON3" "$@"
}

log() { printf '[%s %s] %s\n' "$(date +%T)" "$TEST_NAME" "$*" >&2; }

# ---------------------------------------------------------------------------------------------
# Cleanup stack: `defer CMD ARGS...` pushes a command; on exit they run newest first. Each runs
# even if an earlier one failed.

_DEFERRED=()
_CLEANED_UP=0

defer() {
        _DEFERRED+=("$(printf '%q ' "$@")")
}

_run_deferred() {
        local rc=$? i
        [ "$_CLEANED_UP" = 1 ] && return
        _CLEANED_UP=1
        set +e
        if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
                dump_logs
        fi
        for ((i = ${#_DEFERRED[@]} - 1; i >= 0; i--)); do
                eval "${_DEFERRED[$i]}" >/dev/null 2>&1
        done
        return "$rc"
}

trap _run_deferred EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Failing and asserting.

fail() {
        printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
        exit 1
}

skip() {
        printf '%s: SKIP: %s\n' "$TEST_NAME" "$*" >&2
        exit 77
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
        [ "$1" == "$2" ] || fail "${3:-value}: expected '$1', got '$2'"
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
        [ "$1" != "$2" ] || fail "${3:-value}: expected anything but '$1'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
        case "$1" in
        *"$2"*) ;;
        *) fail "${3:-output}: expected to contain '$2', got: $1" ;;
        esac
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
        case "$1" in
        *"$2"*) fail "${3:-output}: expected not to contain '$2', got: $1" ;;
        *) ;;
        esac
}

# assert_le A B [WHAT]: integers, A <= B
assert_le() {
        [ "$1" -le "$2" ] || fail "${3:-value}: expected $1 <= $2"
}

# assert_between LOW VALUE HIGH [WHAT]: integers
assert_between() {
        [ "$1" -le "$2" ] && [ "$2" -le "$3" ] || fail "${4:-value}: expected $2 within [$1, $3]"
}

# assert_success WHAT CMD...; assert_failure WHAT CMD... (output in $OUT, exit code in $RC)
assert_success() {
        local what=$1
        shift
        run "$@"
        [ "$RC" = 0 ] || fail "$what: '$*' exited $RC: $OUT"
}

assert_failure() {
        local what=$1
        shift
        run "$@"
        [ "$RC" != 0 ] || fail "$what: '$*' succeeded but should have failed: $OUT"
}

# run CMD...: captures stdout+stderr in $OUT and the exit code in $RC, never fails.
run() {
        set +e
        OUT=$("$@" 2>&1)
        RC=$?
        set -e
}

# wait_for TIMEOUT_S CMD...: polls CMD every 0.1 s until it succeeds; 1 on timeout.
wait_for() {
        local timeout=$1 i
        shift
        for ((i = 0; i < timeout * 10; i++)); do
                if "$@" >/dev/null 2>&1; then
                        return 0
                fi
                sleep 0.1
        done
        return 1
}

require_root() {
        [ "$(id -u)" = 0 ] || skip "needs root (loop devices, a system-like bus, O_DIRECT on ext4)"
}

require_cmd() {
        local c
        for c in "$@"; do
                command -v "$c" >/dev/null 2>&1 || skip "needs $c"
        done
}

# have_fs TYPE: the kernel mounts TYPE: listed in /proc/filesystems, or its module loads (a
# filesystem built as a module is listed only once loaded; mount(2) would load it too).
_fs_listed() {
        awk -v t="$1" '$NF == t { f = 1 } END { exit !f }' /proc/filesystems 2>/dev/null
}
have_fs() {
        local mod=$1
        _fs_listed "$1" && return 0
        [ "$1" = autofs ] && mod=autofs4
        modprobe -q "$mod" 2>/dev/null || return 1
        _fs_listed "$1"
}

# require_fs TYPE...: skips unless the kernel mounts each TYPE and mkfs.TYPE is installed.
require_fs() {
        local t
        for t in "$@"; do
                have_fs "$t" || skip "needs $t in the kernel (not in /proc/filesystems, and modprobe $t failed)"
                command -v "mkfs.$t" >/dev/null 2>&1 || skip "needs mkfs.$t"
        done
}

# require_loop: skips unless loop devices can be made (the loop driver, losetup).
require_loop() {
        [ -e /dev/loop-control ] || modprobe -q loop 2>/dev/null || true
        [ -e /dev/loop-control ] || skip "needs loop devices (no /dev/loop-control, and modprobe loop failed)"
        command -v losetup >/dev/null 2>&1 || skip "needs losetup"
}

# require_hang: a directory whose lookups hang until the test answers them, as a hung NFS automount
# does (test-slow-check): autofs-hold.py or fuse-hold.py, with the same interface. BENCHD_TEST_HANG
# =autofs or =fuse chooses; otherwise autofs where the kernel has it, else FUSE. Sets HANG_KIND and
# HANG_HELPER, or skips saying what the kernel lacks.
require_hang() {
        local want=${BENCHD_TEST_HANG:-} fuse_ok=0 autofs_ok=0
        have_fs autofs && autofs_ok=1
        have_fs fuse && [ -c /dev/fuse ] && fuse_ok=1
        case "$want" in
        autofs)
                [ "$autofs_ok" = 1 ] || skip "BENCHD_TEST_HANG=autofs, but the kernel has no autofs"
                HANG_KIND=autofs ;;
        fuse)
                [ "$fuse_ok" = 1 ] || skip "BENCHD_TEST_HANG=fuse, but the kernel has no FUSE (fuse, /dev/fuse)"
                HANG_KIND=fuse ;;
        "")
                if [ "$autofs_ok" = 1 ]; then
                        HANG_KIND=autofs
                elif [ "$fuse_ok" = 1 ]; then
                        HANG_KIND=fuse
                else
                        skip "needs autofs or FUSE in the kernel to make a lookup hang (neither is there)"
                fi ;;
        *) fail "BENCHD_TEST_HANG='$want': expected autofs or fuse" ;;
        esac
        HANG_HELPER="$SOURCE_ROOT/tests/integration/$HANG_KIND-hold.py"
}

require_binaries() {
        local b
        for b in "$BENCHD_BIN" "$WORKER_BIN" "$@"; do
                [ -x "$b" ] || fail "$b is not built (BUILD_ROOT=$BUILD_ROOT)"
        done
}

# ---------------------------------------------------------------------------------------------
# The temporary directory. Short path: dbus socket paths are limited to 108 bytes.

TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/benchd-${TEST_NAME#test-}.XXXXXX")
if [ "${BENCHD_TEST_KEEP:-0}" = 1 ]; then
        log "keeping $TEST_DIR"
else
        defer rm -rf --one-file-system "$TEST_DIR"
fi
# Others may traverse it: tests run clients as nobody against the bus socket in here.
chmod 0755 "$TEST_DIR"
DB="$TEST_DIR/benchd.db"

# Logs of the processes we started, printed when a test fails.
_LOGS=()

dump_logs() {
        local f
        for f in "${_LOGS[@]}"; do
                [ -s "$f" ] || continue
                printf '\n----- %s (last 60 lines) -----\n' "$f" >&2
                tail -n 60 "$f" >&2
        done
}

# pid_running PID: alive and not a zombie.
pid_running() {
        local st
        st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
        [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# Pids we started and already reaped: never signalled again (the number may be reused).
_REAPED=" "

# kill_wait PID [TIMEOUT_S]: SIGTERM, wait, then SIGKILL. Only for pids we started.
kill_wait() {
        local pid=$1 timeout=${2:-10} i
        case "$_REAPED" in *" $pid "*) return 0 ;; esac
        _REAPED+="$pid "
        if pid_running "$pid"; then
                kill -TERM "$pid" 2>/dev/null || true
                for ((i = 0; i < timeout * 10; i++)); do
                        pid_running "$pid" || break
                        sleep 0.1
                done
                kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------------
# A private system-like bus. The policy mirrors the system bus (type system, EXTERNAL auth) but
# lets everyone own names and call everything; tests that check the real policy include it.

BUS_PID=
BUS_ADDRESS=

# start_bus [POLICY_FILE...]: extra files are <include>d (e.g. dbus/org.benchd.Benchd1.conf).
start_bus() {
        local conf="$TEST_DIR/bus.conf" sock="$TEST_DIR/bus.sock" f includes="" policy
        for f in "$@"; do
                includes+="  <include>$f</include>"$'\n'
        done
        if [ $# -gt 0 ]; then
                # With the real policy included, the default context is as strict as the system
                # bus: the included file has to grant what benchd and its callers need.
                policy='    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>'
        else
                policy='    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>'
        fi
        cat >"$conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
$policy
  </policy>
$includes</busconfig>
EOF
        _LOGS+=("$TEST_DIR/bus.log")
        dbus-daemon --config-file="$conf" --nofork --nopidfile >"$TEST_DIR/bus.log" 2>&1 &
        BUS_PID=$!
        defer kill_wait "$BUS_PID"
        BUS_ADDRESS="unix:path=$sock"
        export BUS_ADDRESS DBUS_SYSTEM_BUS_ADDRESS="$BUS_ADDRESS"
        wait_for 10 busctl --address="$BUS_ADDRESS" call org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus GetId ||
                fail "private dbus-daemon did not come up: $(cat "$TEST_DIR/bus.log")"
        log "bus at $BUS_ADDRESS (pid $BUS_PID)"
}

bus() {
        busctl --address="$BUS_ADDRESS" --no-pager "$@"
}

name_has_owner() {
        [ "$(bus call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                NameHasOwner s "${1:-$BUS_NAME}" 2>/dev/null)" = "b true" ]
}

# A bus monitor capturing JobRemoved and RegressionDetected signals, error replies and the jobs'
# PropertiesChanged (one JSON object per line) into
# $MONITOR_LOG, so a test can wait for a job the way a client would, without polling the daemon,
# and can see the D-Bus error *names* that busctl does not print.
MONITOR_LOG=
start_monitor() {
        MONITOR_LOG="$TEST_DIR/monitor.json"
        bus monitor --json=short \
                --match="type='signal',interface='$MANAGER_IFACE',member='JobRemoved'" \
                --match="type='signal',interface='$MANAGER_IFACE',member='RegressionDetected'" \
                --match="type='error'" \
                --match="type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='$MANAGER_PATH/job'" \
                --match="$MONITOR_PROBE_MATCH" \
                >"$MONITOR_LOG" 2>"$TEST_DIR/monitor.err" &
        local pid=$!
        defer kill_wait "$pid" 2
        monitor_wait "$MONITOR_LOG" "$TEST_DIR/monitor.err"
}

# A monitor started with --match="$MONITOR_PROBE_MATCH" is ready once it has seen a probe signal:
# monitor_wait LOG [ERR] emits probes until one is in LOG, so that the test never misses a signal
# sent before BecomeMonitor took effect (and never waits longer than that takes).
MONITOR_PROBE_MATCH="type='signal',interface='org.benchd.Test',member='MonitorProbe'"
monitor_wait() {
        local log=$1 err=${2:-/dev/null} i
        for ((i = 0; i < 300; i++)); do
                bus emit /org/benchd/test org.benchd.Test MonitorProbe >/dev/null 2>&1 || true
                grep -q MonitorProbe "$log" 2>/dev/null && return 0
                sleep 0.1
        done
        fail "the bus monitor writing $log saw no probe signal in 30 s: $(cat "$err" 2>/dev/null)"
}

# _benchd_errors: "error.name: message" for every error reply benchd sent, one per line.
_benchd_errors() {
        python3 - "$MONITOR_LOG" "$(benchd_owner)" <<'PY'
import json, sys
path, owner = sys.argv[1], sys.argv[2]
for line in open(path, errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("type") != "error" or m.get("sender") != owner:
        continue
    data = m.get("payload", {}).get("data", [])
    msg = data[0] if data else ""
    print("%s: %s" % (m.get("error_name"), str(msg).replace("\n", " ")))
PY
}

benchd_owner() {
        bus call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s \
                "$BUS_NAME" | sed -n 's/^s "\(.*\)"$/\1/p'
}

# call_error METHOD SIGNATURE ARGS...: calls a Manager method that must fail; sets $ERR to
# "error.name: message" of benchd's error reply (needs start_monitor), and $OUT/$RC of busctl.
call_error() {
        local before i
        [ -n "$MONITOR_LOG" ] || fail "call_error needs start_monitor"
        before=$(_benchd_errors | wc -l)
        # "--": negative numbers in the arguments are not options.
        run bus call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" "$@"
        [ "$RC" != 0 ] || fail "$1 $* succeeded but should have failed: $OUT"
        ERR=
        for ((i = 0; i < 30; i++)); do
                ERR=$(_benchd_errors | sed -n "$((before + 1))p")
                [ -n "$ERR" ] && return 0
                sleep 0.1
        done
        fail "$1 failed ($OUT) but the monitor saw no error reply from benchd"
}

# job_removed_result ID: prints the result of the JobRemoved signal for job ID, if seen.
job_removed_result() {
        python3 - "$MONITOR_LOG" "$1" <<'EOF'
import json, sys
path, want = sys.argv[1], int(sys.argv[2])
for line in open(path, errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("member") != "JobRemoved":
        continue
    data = m.get("payload", {}).get("data", [])
    if len(data) == 3 and int(data[0]) == want:
        print(data[2])
        sys.exit(0)
sys.exit(1)
EOF
}

# job_changes ID PROPERTY: the values of PROPERTY in the job's PropertiesChanged signals, one JSON
# value per line, in order.
job_changes() {
        python3 - "$MONITOR_LOG" "$MANAGER_PATH/job/$1" "$2" <<'PY'
import json, sys
path, job, prop = sys.argv[1:4]
for line in open(path, errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("member") != "PropertiesChanged" or m.get("path") != job:
        continue
    data = m.get("payload", {}).get("data", [])
    if len(data) >= 2 and isinstance(data[1], dict) and prop in data[1]:
        print(json.dumps(data[1][prop].get("data")))
PY
}

# wait_job_removed ID [TIMEOUT_S]: waits for JobRemoved(ID) on the bus; prints the result.
wait_job_removed() {
        local id=$1 timeout=${2:-120} i r
        for ((i = 0; i < timeout * 5; i++)); do
                if r=$(job_removed_result "$id"); then
                        printf '%s\n' "$r"
                        return 0
                fi
                benchd_alive || fail "benchd (pid $BENCHD_PID) died while waiting for job $id"
                sleep 0.2
        done
        fail "no JobRemoved for job $id within ${timeout}s; job row: $(sql "select * from jobs where id=$id")"
}

# ---------------------------------------------------------------------------------------------
# udevd: use the running one, or start our own for the test and stop it afterwards.

UDEVD_PID=
start_udevd() {
        if udevadm control --ping --timeout=2 >/dev/null 2>&1; then
                log "using the running systemd-udevd"
        else
                local udevd
                for udevd in /lib/systemd/systemd-udevd /usr/lib/systemd/systemd-udevd; do
                        [ -x "$udevd" ] && break
                done
                [ -x "$udevd" ] || skip "needs systemd-udevd"
                _LOGS+=("$TEST_DIR/udevd.log")
                "$udevd" >"$TEST_DIR/udevd.log" 2>&1 &
                UDEVD_PID=$!
                defer kill_wait "$UDEVD_PID"
                wait_for 10 udevadm control --ping --timeout=1 ||
                        fail "systemd-udevd did not answer: $(cat "$TEST_DIR/udevd.log")"
                log "started systemd-udevd (pid $UDEVD_PID)"
        fi
        udevadm trigger --subsystem-match=block --action=add >/dev/null 2>&1 || true
        udevadm settle --timeout=30 || true
}

# ---------------------------------------------------------------------------------------------
# benchd on the private bus and a temporary database.

BENCHD_PID=
BENCHD_LOG="$TEST_DIR/benchd.log"

# start_benchd [ARGS...]: extra arguments override the defaults (later options win). With
# BENCHD_LOG_AS_JOURNAL=1 benchd is told (JOURNAL_STREAM) that its log file is the journal, so every
# line carries its priority as the journal would keep it ("<3>job 7: ...").
start_benchd() {
        local journal=
        require_binaries
        [ -n "$BUS_ADDRESS" ] || start_bus
        case " ${_LOGS[*]} " in *" $BENCHD_LOG "*) ;; *) _LOGS+=("$BENCHD_LOG") ;; esac
        log "starting benchd $*"
        printf -- '--- start %s\n' "$(date +%T.%N)" >>"$BENCHD_LOG"
        [ "${BENCHD_LOG_AS_JOURNAL:-0}" = 1 ] && journal=$(stat -c '%d:%i' "$BENCHD_LOG")
        # BENCHD_TEST_WRAP runs benchd under a tool, e.g. "valgrind --leak-check=full --error-exitcode=99".
        # shellcheck disable=SC2086
        # No test writes into the machine's node_exporter directory: the export is off unless a test
        # names a directory (MetricsTextfileDir= in its --config, or this variable).
        BENCHD_METRICS_TEXTFILE_DIR=${BENCHD_METRICS_TEXTFILE_DIR-} \
                JOURNAL_STREAM=$journal ${BENCHD_TEST_WRAP:-} "$BENCHD_BIN" --bus-address="$BUS_ADDRESS" --db="$DB" --worker="$WORKER_BIN" \
                --profiles-dir="$PROFILES_DIR" "$@" >>"$BENCHD_LOG" 2>&1 &
        BENCHD_PID=$!
        defer kill_wait "$BENCHD_PID"
        local i
        for ((i = 0; i < 300; i++)); do
                name_has_owner && break
                pid_running "$BENCHD_PID" || fail "benchd exited at start-up: $(tail -n 30 "$BENCHD_LOG")"
                sleep 0.1
        done
        name_has_owner || fail "benchd did not take $BUS_NAME within 30s"
        log "benchd pid $BENCHD_PID owns $BUS_NAME"
}

benchd_alive() {
        [ -n "$BENCHD_PID" ] && pid_running "$BENCHD_PID"
}

# stop_benchd [SIGNAL]: signals benchd by pid and waits until it exits; sets BENCHD_RC.
stop_benchd() {
        local sig=${1:-TERM} i
        [ -n "$BENCHD_PID" ] || return 0
        kill "-$sig" "$BENCHD_PID" 2>/dev/null || true
        for ((i = 0; i < 300; i++)); do
                benchd_alive || break
                sleep 0.1
        done
        if benchd_alive; then
                kill -KILL "$BENCHD_PID"
                wait "$BENCHD_PID" 2>/dev/null || true
                fail "benchd did not exit within 30s of SIG$sig"
        fi
        set +e
        wait "$BENCHD_PID" 2>/dev/null
        BENCHD_RC=$?
        set -e
        _REAPED+="$BENCHD_PID "
        BENCHD_PID=
}

# The worker(s) benchd is running now (children of benchd but its helpers: file removals and
# target checks).
worker_pids() {
        local pid
        for pid in $(pgrep -P "$BENCHD_PID"); do
                case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
                benchd-cleanup | benchd-verdict) ;;
                *) printf '%s\n' "$pid" ;;
                esac
        done
}

# start_standin RULES LOG: the stand-in polkit authority (polkit-standin.py, answering from the
# rules file RULES and logging each request to LOG) on the private bus; sets STANDIN_PID, stopped by
# the defer stack. Needs /usr/bin/python3 with python3-dbus and python3-gi.
start_standin() {
        _LOGS+=("$TEST_DIR/standin.log")
        /usr/bin/python3 "$SOURCE_ROOT/tests/integration/polkit-standin.py" "$BUS_ADDRESS" "$1" "$2" \
                >>"$TEST_DIR/standin.log" 2>&1 &
        STANDIN_PID=$!
        defer kill_wait "$STANDIN_PID"
        wait_for 10 name_has_owner org.freedesktop.PolicyKit1 ||
                fail "the stand-in polkit did not take its name: $(cat "$TEST_DIR/standin.log")"
}

# The processes removing files of ended jobs (children of benchd named benchd-cleanup).
cleanup_pids() {
        pgrep -P "$BENCHD_PID" -x benchd-cleanup || true
}

# manager_prop NAME: the value of a Manager property, as busctl prints it ("s \"0.1.0\"").
manager_prop() {
        bus get-property "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" "$1"
}

# submit_busctl KEY TYPE VALUE ...: SubmitJob through busctl; prints the job id.
submit_busctl() {
        [ $(($# % 3)) = 0 ] || fail "submit_busctl takes triples"
        local out
        out=$(bus --json=short call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob \
                'a{sv}' $(($# / 3)) "$@") || return 1
        python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])' <<<"$out"
}

# job_prop ID NAME: a property of a job object.
job_prop() {
        bus get-property "$BUS_NAME" "$MANAGER_PATH/job/$1" "$JOB_IFACE" "$2"
}

# job_state ID: from the database (also after the object is gone).
job_state() {
        sql "select state from jobs where id = $1"
}

# wait_job_state ID STATE [TIMEOUT_S]: polls the jobs table.
wait_job_state() {
        local id=$1 want=$2 timeout=${3:-60} i
        for ((i = 0; i < timeout * 10; i++)); do
                [ "$(job_state "$id" 2>/dev/null)" = "$want" ] && return 0
                sleep 0.1
        done
        fail "job $id did not reach state $want within ${timeout}s (state: $(job_state "$id"))"
}

# ---------------------------------------------------------------------------------------------
# benchctl and sqlite3.

benchctl() {
        "$BENCHCTL_BIN" --bus-address="$BUS_ADDRESS" "$@"
}

# sql QUERY: one query against the test database; rows as "a|b|c" lines.
sql() {
        sqlite3 -batch -noheader -cmd '.timeout 5000' "$DB" "$1"
}

# seed_history RUN N FACTOR [KERNEL]: N succeeded runs comparable with RUN, a minute apart before it, with
# throughput FACTOR times RUN's (±0.2%), a p99 latency FACTOR times lower, and RUN's environment (its kernel replaced
# by KERNEL when given), labelled "seeded". benchd must be stopped (test-regressions, test-report).
seed_history() {
        local run=$1 n=$2 factor=$3 kernel=${4:-}
        sql "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
             INSERT INTO runs (step, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct,
                               sync, rwmix_read, pattern, device_id, device_name, target, fs_type, mount_options,
                               environment, label, started_usec, duration_usec, status, bytes_read, bytes_written,
                               ios_read, ios_written, ops, lat_p50_ns, lat_p99_ns, layout)
             SELECT 0, workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct, sync, rwmix_read,
                    pattern, device_id, device_name, target, fs_type, mount_options,
                    CASE WHEN '$kernel' = '' THEN environment ELSE json_set(environment, '\$.kernel', '$kernel') END,
                    'seeded', started_usec - ($n + 1 - i) * 60000000,
                    CAST(duration_usec / $factor * (1000 + (i % 5) - 2) / 1000 AS INTEGER), 'succeeded', bytes_read,
                    bytes_written, ios_read, ios_written, ops, lat_p50_ns, CAST(lat_p99_ns / $factor AS INTEGER), layout
             FROM runs, k WHERE runs.id = $run"
}

# json_get EXPR < JSON: evaluates a python expression on the parsed document `d`.
json_get() {
        python3 -c 'import json,sys; d=json.load(sys.stdin); r=eval(sys.argv[1]); print(r if not isinstance(r,(dict,list)) else json.dumps(r))' "$1"
}

# ---------------------------------------------------------------------------------------------
# Loop devices and filesystems, backed by image files in the temporary directory.

_LOOP_N=0
LOOP_DEV=

# make_loop SIZE [--direct-io]: sets LOOP_DEV (not printed: defer must run in this shell).
make_loop() {
        local size=$1 img
        shift
        require_loop
        _LOOP_N=$((_LOOP_N + 1))
        img="$TEST_DIR/loop$_LOOP_N.img"
        truncate -s "$size" "$img"
        if [ "${1:-}" = --direct-io ]; then
                LOOP_DEV=$(losetup -f --show --direct-io=on "$img")
        else
                LOOP_DEV=$(losetup -f --show "$img")
        fi
        [ -b "$LOOP_DEV" ] || fail "losetup gave no device for $img"
        defer losetup -d "$LOOP_DEV"
        log "loop device $LOOP_DEV on $img ($size)"
}

# umount_retry MOUNTPOINT: a few tries (a dying worker may still hold a file), then lazily.
umount_retry() {
        local i
        mountpoint -q "$1" || return 0
        for ((i = 0; i < 20; i++)); do
                umount "$1" 2>/dev/null && return 0
                sleep 0.25
        done
        umount -l "$1"
}

# make_fs TYPE DEV MOUNTPOINT [MOUNT_OPTIONS]
make_fs() {
        local type=$1 dev=$2 mnt=$3 opts=${4:-}
        require_fs "$type"
        case "$type" in
        ext4 | ext3 | ext2) "mkfs.$type" -q -F "$dev" >/dev/null ;;
        xfs | btrfs) "mkfs.$type" -q -f "$dev" >/dev/null ;;
        *) "mkfs.$type" "$dev" >/dev/null ;;
        esac
        mkdir -p "$mnt"
        mount ${opts:+-o "$opts"} "$dev" "$mnt"
        defer umount_retry "$mnt"
}

# scratch_fs [SIZE] [FSTYPE] [--direct-io]: a filesystem on a fresh loop device mounted under the
# temp dir; sets SCRATCH_DIR to an empty directory on it for benchmarks. With --direct-io the loop
# device bypasses the page cache of its image file, so I/O reaches the disk as on a real device.
SCRATCH_DIR=
scratch_fs() {
        local size=${1:-512M} type=${2:-ext4} mnt
        make_loop "$size" ${3:+"$3"}
        mnt="$TEST_DIR/mnt$_LOOP_N"
        make_fs "$type" "$LOOP_DEV" "$mnt"
        SCRATCH_DIR="$mnt/bench"
        mkdir -p "$SCRATCH_DIR"
}

# benchd_files DIR: the files benchd left behind (should be none once a job ended).
benchd_files() {
        find "$1" -maxdepth 2 -name '.benchd-*' 2>/dev/null || true
}
