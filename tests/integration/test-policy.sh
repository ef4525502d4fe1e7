#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The shipped bus policy (dbus/org.benchd.Benchd1.conf) against every method of the interface XML
# (dbus/org.benchd.Benchd1.*.xml), in a real dbus-daemon as strict as the system bus: every
# read-only method answers an unprivileged user (nobody), every mutating one answers nobody with
# org.freedesktop.DBus.Error.AccessDenied (from the bus or from benchd) and changes nothing, and
# properties can be read on every interface. The methods come from the XML, so a new one cannot be
# forgotten: it must be put in READ_ONLY or MUTATING below, or this test fails.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 setpriv
require_binaries

READ_ONLY=" Manager.ListJobs Manager.ListProfiles Manager.GetProfile Manager.QueryRuns Manager.GetRun"
READ_ONLY+=" Manager.GetSamples Manager.GetSamplesPage Manager.GetHistogram Manager.CompareRuns Manager.ListRegressions"
READ_ONLY+=" Manager.GetClock "
MUTATING=" Manager.SubmitJob Manager.CancelJob Manager.PruneSamples Manager.ImportRuns Job.Cancel Job.Start "

POLICY="$SOURCE_ROOT/dbus/org.benchd.Benchd1.conf"
start_bus "$POLICY"
start_monitor
scratch_fs 256M
T="$SCRATCH_DIR"
start_benchd

# Something to read: a finished job with a run, samples and a histogram.
done_id=$(submit_busctl target s "$T" workload s write size s 8M block_size s 64K sample_ms u 100) ||
        fail "root's SubmitJob through the policy failed"
assert_eq succeeded "$(wait_job_removed "$done_id" 60)" "JobRemoved of the first job"
run_id=$(sql "select id from runs where job_id = $done_id")
[ -n "$run_id" ] || fail "job $done_id has no run"
# Something a successful cancel would change: a job that runs for a minute.
long_id=$(submit_busctl target s "$T" workload s write size s 64M block_size s 64K runtime_ms u 60000) ||
        fail "SubmitJob of the long job failed"
wait_job_state "$long_id" running 30
loop_path="$MANAGER_PATH/device/$(basename "$LOOP_DEV")"
wait_for 10 bus introspect "$BUS_NAME" "$loop_path" || fail "no device object $loop_path"

nobody() {
        setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$BUS_ADDRESS" --no-pager "$@"
}

# The error replies on the bus, from anyone, as "sender error.name", one per line.
bus_errors() {
        python3 - "$MONITOR_LOG" <<'PY'
import json, sys
for line in open(sys.argv[1], errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("type") == "error":
        print("%s %s" % (m.get("sender"), m.get("error_name")))
PY
}

# The methods of the contract: "Interface.Method in-signature" per line.
methods=$(python3 - "$SOURCE_ROOT"/dbus/org.benchd.Benchd1.*.xml <<'PY'
import sys
import xml.etree.ElementTree as ET
for path in sys.argv[1:]:
    for iface in ET.parse(path).getroot().iter("interface"):
        short = iface.get("name").rsplit(".", 1)[1]
        for m in iface.findall("method"):
            sig = "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")
            print("%s.%s %s" % (short, m.get("name"), sig))
PY
)
[ -n "$methods" ] || fail "no methods found in the interface XML"
n_methods=$(wc -l <<<"$methods")
log "$n_methods methods in the contract"

# args_for KIND SIGNATURE: busctl arguments that make the call valid, so that only the policy or
# the authorisation can refuse it: read-only calls name the run, the profile dd, empty filters;
# mutating ones name the running job and a complete spec.
args_for() {
        local kind=$1 sig=$2
        ARGS=()
        while [ -n "$sig" ]; do
                case "$sig" in
                "a{sv}"*)
                        if [ "$kind" = read ]; then
                                ARGS+=(0)
                        else
                                ARGS+=(3 target s "$T" workload s write size s 4M)
                        fi
                        sig=${sig#a\{sv\}}
                        ;;
                t*)
                        if [ "$kind" = read ]; then
                                ARGS+=("$run_id")
                        else
                                ARGS+=("$long_id")
                        fi
                        sig=${sig#t}
                        ;;
                u*) ARGS+=(0); sig=${sig#u} ;;
                x*) ARGS+=(0); sig=${sig#x} ;;
                s*) ARGS+=(dd); sig=${sig#s} ;;
                b*) ARGS+=(false); sig=${sig#b} ;;
                *) fail "test-policy.sh has no argument for type '${sig}' yet: add one to args_for" ;;
                esac
        done
}

path_of() {
        case "$1" in
        Manager.*) printf '%s\n' "$MANAGER_PATH" ;;
        Job.*) printf '%s\n' "$MANAGER_PATH/job/$long_id" ;;
        Device.*) printf '%s\n' "$loop_path" ;;
        *) fail "no object path for the interface of $1" ;;
        esac
}

n_read=0
n_mut=0
while read -r name sig; do
        iface="org.benchd.Benchd1.${name%%.*}"
        member=${name#*.}
        path=$(path_of "$name")
        case "$READ_ONLY" in
        *" $name "*)
                args_for read "$sig"
                # GetSamplesPage(run, from_ms, limit): from 0, the default limit.
                [ "$member" = GetSamplesPage ] && ARGS=("$run_id" 0 0)
                # CompareRuns(by, filter, options): a key there is.
                [ "$member" = CompareRuns ] && ARGS=(fs_type 0 0)
                run nobody call -- "$BUS_NAME" "$path" "$iface" "$member" "$sig" "${ARGS[@]}"
                [ "$RC" = 0 ] || fail "read-only $name($sig ${ARGS[*]}) is refused to nobody: $OUT"
                log "nobody may call $name"
                n_read=$((n_read + 1))
                continue
                ;;
        esac
        case "$MUTATING" in
        *" $name "*)
                args_for mutate "$sig"
                before=$(bus_errors | wc -l)
                jobs_before=$(sql "select count(*) from jobs")
                if [ -n "$sig" ]; then
                        run nobody call -- "$BUS_NAME" "$path" "$iface" "$member" "$sig" "${ARGS[@]}"
                else
                        run nobody call -- "$BUS_NAME" "$path" "$iface" "$member"
                fi
                [ "$RC" != 0 ] || fail "mutating $name succeeded for nobody: $OUT"
                err=
                for ((i = 0; i < 30; i++)); do
                        err=$(bus_errors | sed -n "$((before + 1)),\$p" | grep AccessDenied | head -n1 || true)
                        [ -n "$err" ] && break
                        sleep 0.1
                done
                [ -n "$err" ] || fail "mutating $name: no AccessDenied reply for nobody (got: $(bus_errors |
                        sed -n "$((before + 1)),\$p"); busctl said: $OUT)"
                assert_eq "$jobs_before" "$(sql "select count(*) from jobs")" "jobs rows after nobody's $name"
                assert_eq running "$(job_state "$long_id")" "the running job after nobody's $name"
                log "nobody is refused $name (${err%% *}: ${err#* })"
                n_mut=$((n_mut + 1))
                continue
                ;;
        esac
        fail "$name is in the interface XML but neither in READ_ONLY nor in MUTATING of test-policy.sh; classify it"
done <<<"$methods"
assert_eq "$n_methods" $((n_read + n_mut)) "methods checked"
# Both lists name only methods that exist, so a renamed one does not pass unchecked.
for name in $READ_ONLY $MUTATING; do
        grep -q "^$name " <<<"$methods" ||
                fail "$name is listed in test-policy.sh but not in the interface XML"
done

# Properties are open to everyone, on every interface.
for obj in "$MANAGER_PATH $MANAGER_IFACE" "$MANAGER_PATH/job/$long_id $JOB_IFACE" \
        "$loop_path org.benchd.Benchd1.Device"; do
        run nobody call -- "$BUS_NAME" "${obj% *}" org.freedesktop.DBus.Properties GetAll s "${obj#* }"
        [ "$RC" = 0 ] || fail "nobody cannot read the properties of ${obj#* }: $OUT"
done
run nobody call -- "$BUS_NAME" "$MANAGER_PATH" org.freedesktop.DBus.ObjectManager GetManagedObjects
[ "$RC" = 0 ] || fail "nobody cannot call GetManagedObjects: $OUT"

# Root passes the same policy for the mutating ones.
assert_success "root's CancelJob" bus call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$long_id"
assert_eq cancelled "$(wait_job_removed "$long_id" 60)" "JobRemoved of the job root cancelled"

stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status"
log "PASS ($n_read read-only and $n_mut mutating methods)"
