#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The interface XML in dbus/ is the contract; this checks that what benchd exports on the bus is
# exactly that (every method with its in/out signature, every property with type and access, every
# signal), for the Manager and for a job object; that the Manager's properties have sane values;
# and that the shipped bus policy loads in a real dbus-daemon and lets root own the name while
# others may read but not submit.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4

# compare_interface CONTRACT_XML ACTUAL_XML INTERFACE: fails listing every difference.
compare_interface() {
        python3 - "$@" <<'EOF'
import sys
import xml.etree.ElementTree as ET

contract_path, actual_path, iface_name = sys.argv[1:4]

def load(path):
    text = open(path).read()
    # busctl prints the DOCTYPE; ElementTree ignores it.
    root = ET.fromstring(text)
    for i in root.iter("interface"):
        if i.get("name") == iface_name:
            return i
    return None

def members(iface):
    out = {}
    for m in iface.findall("method"):
        ins = "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")
        outs = "".join(a.get("type") for a in m.findall("arg") if a.get("direction") == "out")
        out["method " + m.get("name")] = "(%s) -> (%s)" % (ins, outs)
    for p in iface.findall("property"):
        # Whether (and how) it emits PropertiesChanged is part of the contract: "const" for the
        # ones that never change, "true" (no annotation) by default.
        emits = "true"
        for a in p.findall("annotation"):
            if a.get("name") == "org.freedesktop.DBus.Property.EmitsChangedSignal":
                emits = a.get("value")
        out["property " + p.get("name")] = "%s %s emits-changed=%s" % (p.get("type"), p.get("access"), emits)
    for s in iface.findall("signal"):
        out["signal " + s.get("name")] = "(%s)" % "".join(a.get("type") for a in s.findall("arg"))
    return out

contract = load(contract_path)
actual = load(actual_path)
if contract is None:
    sys.exit("contract %s has no interface %s" % (contract_path, iface_name))
if actual is None:
    sys.exit("benchd does not export %s at all" % iface_name)

want, got = members(contract), members(actual)
problems = []
for k, v in sorted(want.items()):
    if k not in got:
        problems.append("missing %s %s" % (k, v))
    elif got[k] != v:
        problems.append("%s: contract says %s, benchd exports %s" % (k, v, got[k]))
for k, v in sorted(got.items()):
    if k not in want:
        problems.append("not in the contract: %s %s" % (k, v))
if problems:
    print("\n".join("  " + p for p in problems))
    sys.exit(1)
print("%s: %d members match the contract" % (iface_name, len(want)))
EOF
}

start_bus
# Device objects follow hot-plug with udevd (without it, the kernel's events without udev's properties).
start_udevd
start_benchd

# ---- the Manager ----
bus introspect --xml-interface "$BUS_NAME" "$MANAGER_PATH" >"$TEST_DIR/manager.xml" ||
        fail "introspecting $MANAGER_PATH failed"
run compare_interface "$SOURCE_ROOT/dbus/org.benchd.Benchd1.Manager.xml" "$TEST_DIR/manager.xml" "$MANAGER_IFACE"
[ "$RC" = 0 ] || fail "Manager interface differs from dbus/org.benchd.Benchd1.Manager.xml:
$OUT"
log "$OUT"

# The plain table form the README shows must list the interface too.
run bus introspect "$BUS_NAME" "$MANAGER_PATH"
assert_contains "$OUT" "$MANAGER_IFACE" "busctl introspect $MANAGER_PATH"
assert_contains "$OUT" "org.freedesktop.DBus.ObjectManager" "busctl introspect $MANAGER_PATH"
assert_contains "$OUT" ".SubmitJob" "busctl introspect $MANAGER_PATH"

# ---- Manager property values ----
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$SOURCE_ROOT/meson.build" | head -n1)
assert_eq "s \"$version\"" "$(manager_prop Version)" "Version property"
assert_eq "u 0" "$(manager_prop QueueLength)" "QueueLength of an idle daemon"
assert_eq "t 0" "$(manager_prop RunningJob)" "RunningJob of an idle daemon"
dbpath=$(manager_prop DatabasePath)
case "$dbpath" in
"s \"$DB\"" | "s \"$(realpath "$DB")\"") ;;
*) fail "DatabasePath: expected \"$DB\", got $dbpath" ;;
esac
[ -s "$DB" ] || fail "benchd did not create its database at $DB"
[ "$(sql 'pragma user_version')" -ge 1 ] || fail "schema not migrated: user_version $(sql 'pragma user_version')"
assert_eq wal "$(sql 'pragma journal_mode')" "journal_mode"

# ---- a job object ----
scratch_fs 256M
id=$(submit_busctl target s "$SCRATCH_DIR" workload s write size s 32M block_size s 32K \
        direct b true sample_ms u 200) || fail "SubmitJob failed"
job_path="$MANAGER_PATH/job/$id"
bus introspect --xml-interface "$BUS_NAME" "$job_path" >"$TEST_DIR/job.xml" ||
        fail "introspecting $job_path failed"
run compare_interface "$SOURCE_ROOT/dbus/org.benchd.Benchd1.Job.xml" "$TEST_DIR/job.xml" "$JOB_IFACE"
[ "$RC" = 0 ] || fail "Job interface differs from dbus/org.benchd.Benchd1.Job.xml:
$OUT"
log "$OUT"
assert_eq "t $id" "$(job_prop "$id" Id)" "Job.Id"
assert_eq "s \"$SCRATCH_DIR\"" "$(job_prop "$id" Target)" "Job.Target"
assert_eq "u 0" "$(job_prop "$id" SubmittedBy)" "Job.SubmittedBy (we are root)"
assert_eq 's "bus"' "$(job_prop "$id" TriggeredBy)" "Job.TriggeredBy of a SubmitJob call"

# The job is an object of the ObjectManager.
run bus call "$BUS_NAME" "$MANAGER_PATH" org.freedesktop.DBus.ObjectManager GetManagedObjects
[ "$RC" = 0 ] || fail "GetManagedObjects: $OUT"
assert_contains "$OUT" "\"$job_path\"" "GetManagedObjects"

# Every interface has its contract in dbus/: a missing file is a failure, not a skipped check.
for f in Manager Job Device; do
        [ -f "$SOURCE_ROOT/dbus/org.benchd.Benchd1.$f.xml" ] || fail "dbus/org.benchd.Benchd1.$f.xml is missing"
done
[ -f "$SOURCE_ROOT/dbus/org.benchd.Benchd1.conf" ] || fail "dbus/org.benchd.Benchd1.conf (the bus policy) is missing"

# ---- a device object: our loop device, by its escaped kernel name ----
if true; then
        loop_name=$(basename "$LOOP_DEV")
        dev_path="$MANAGER_PATH/device/$loop_name"
        wait_for 10 bus introspect "$BUS_NAME" "$dev_path" ||
                fail "no device object $dev_path for $LOOP_DEV"
        bus introspect --xml-interface "$BUS_NAME" "$dev_path" >"$TEST_DIR/device.xml" ||
                fail "introspecting $dev_path failed"
        run compare_interface "$SOURCE_ROOT/dbus/org.benchd.Benchd1.Device.xml" "$TEST_DIR/device.xml" \
                org.benchd.Benchd1.Device
        [ "$RC" = 0 ] || fail "Device interface differs from dbus/org.benchd.Benchd1.Device.xml:
$OUT"
        log "$OUT"
        assert_eq "s \"$LOOP_DEV\"" "$(bus get-property "$BUS_NAME" "$dev_path" org.benchd.Benchd1.Device Node)" \
                "Device.Node of $loop_name"
fi

# Let it finish so the daemon shuts down idle.
wait_job_state "$id" succeeded 120
stop_benchd
assert_eq 0 "$BENCHD_RC" "benchd exit status after SIGTERM"

# ---- the shipped bus policy, in a real dbus-daemon ----
policy="$SOURCE_ROOT/dbus/org.benchd.Benchd1.conf"
if true; then
        # A second, strict bus (the system bus's default-deny policy) that includes only ours.
        kill_wait "$BUS_PID"
        BUS_ADDRESS=
        rm -f "$TEST_DIR/bus.sock"
        start_bus "$policy"
        start_benchd
        # Root may call everything.
        assert_eq "u 0" "$(manager_prop QueueLength)" "root reads QueueLength through the policy"
        # Others may read, introspect and list, but not submit.
        nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$BUS_ADDRESS" --no-pager "$@"; }
        run nobody get-property "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" Version
        assert_eq 0 "$RC" "nobody reads Version: $OUT"
        run nobody introspect "$BUS_NAME" "$MANAGER_PATH"
        assert_eq 0 "$RC" "nobody introspects: $OUT"
        run nobody call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 0
        assert_eq 0 "$RC" "nobody calls ListJobs: $OUT"
        run nobody call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" QueryRuns 'a{sv}' 0
        assert_eq 0 "$RC" "nobody calls QueryRuns: $OUT"
        # A complete spec: one without a size fails as InvalidSpec whatever the policy says.
        run nobody call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob 'a{sv}' 3 \
                target s "$SCRATCH_DIR" workload s write size s 4M
        assert_ne 0 "$RC" "nobody's SubmitJob must be refused"
        assert_contains "$OUT" "Access denied" "nobody's SubmitJob"
        log "nobody's SubmitJob: $OUT"
        # And nobody may own the name.
        run setpriv --reuid=65534 --regid=65534 --clear-groups \
                busctl --address="$BUS_ADDRESS" call org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus RequestName su org.benchd.Benchd1 4
        assert_ne 0 "$RC" "nobody must not own $BUS_NAME"
        stop_benchd
fi

log "PASS"
