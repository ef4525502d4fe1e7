#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The device inventory and the write-safety verdict (issue 4), against loop devices this test
# makes: without udevd benchd still enumerates and follows the kernel's own events; with udevd a
# loop device's object appears when it is attached and goes when it is detached; mkfs changes
# FsType, mount changes MountPoints and the verdict; a partition table shows partitions and
# blocks writes to the disk; destructive jobs on mounted or signed devices are refused with
# org.benchd.Benchd1.Error.Unsafe and the device's content is unchanged; a blank device listed in
# ScratchDevices= is accepted.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 sfdisk partx sha256sum wipefs

DEV_IFACE=org.benchd.Benchd1.Device
UNSAFE=org.benchd.Benchd1.Error.Unsafe

# dev_path NAME: the object path (kernel names of loop devices need no escaping).
dev_path() {
        printf '%s/device/%s' "$MANAGER_PATH" "$1"
}

# dev_prop NAME PROP: the property as busctl prints it ('s "ext4"', 'as 1 "/mnt"', 'b true').
dev_prop() {
        bus get-property "$BUS_NAME" "$(dev_path "$1")" "$DEV_IFACE" "$2"
}

dev_exists() {
        bus get-property "$BUS_NAME" "$(dev_path "$1")" "$DEV_IFACE" Name >/dev/null 2>&1
}

dev_gone() {
        ! dev_exists "$1"
}

# dev_prop_matches NAME PROP PATTERN: the property's text contains PATTERN (for wait_for).
dev_prop_matches() {
        local v
        v=$(dev_prop "$1" "$2") || return 1
        case "$v" in
        *"$3"*) return 0 ;;
        *) return 1 ;;
        esac
}

# wait_prop TIMEOUT NAME PROP PATTERN
wait_prop() {
        wait_for "$1" dev_prop_matches "$2" "$3" "$4" ||
                fail "$2.$3 did not come to contain '$4' within $1s (is: $(dev_prop "$2" "$3" 2>&1))"
}

# loop_attach SIZE: a loop device with partition scanning on an image in the test dir; sets
# LOOP_DEV and LOOP_NAME. Detached by the cleanup stack unless the test detaches it first.
loop_attach() {
        _LOOP_N=$((_LOOP_N + 1))
        local img="$TEST_DIR/dev$_LOOP_N.img"
        truncate -s "$1" "$img"
        LOOP_DEV=$(losetup -f --show -P "$img")
        [ -b "$LOOP_DEV" ] || fail "losetup gave no device for $img"
        defer losetup -d "$LOOP_DEV"
        LOOP_NAME=${LOOP_DEV#/dev/}
        log "loop device $LOOP_DEV on $img ($1)"
}

# submit_destructive DEV: a destructive write job on DEV through SubmitJob.
DESTRUCTIVE=(workload s write size s 4M block_size s 64K destructive b true)

expect_unsafe() {
        local dev=$1 word=$2 before after
        before=$(sha256sum <"$dev")
        call_error SubmitJob 'a{sv}' 5 target s "$dev" "${DESTRUCTIVE[@]}"
        log "refused as expected: $ERR"
        assert_contains "$ERR" "$UNSAFE: " "error for a destructive job on $dev"
        assert_contains "$ERR" "$word" "reason for refusing $dev"
        after=$(sha256sum <"$dev")
        assert_eq "$before" "$after" "sha256 of $dev after the refused job"
}

# A second monitor for what clients of the inventory see: ObjectManager and PropertiesChanged.
SIGNALS_LOG=
start_signal_monitor() {
        SIGNALS_LOG="$TEST_DIR/signals.json"
        bus monitor --json=short \
                --match="type='signal',interface='org.freedesktop.DBus.ObjectManager'" \
                --match="type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'" \
                >"$SIGNALS_LOG" 2>"$TEST_DIR/signals.err" &
        local pid=$!
        defer kill_wait "$pid" 2
        sleep 0.3
}

# saw_signal MEMBER PATH [WORD]: a signal MEMBER from benchd about PATH (InterfacesAdded and
# InterfacesRemoved carry the path as their first argument), mentioning WORD if given.
saw_signal() {
        python3 - "$SIGNALS_LOG" "$@" <<'PY'
import json, sys
log, member, path = sys.argv[1:4]
word = sys.argv[4] if len(sys.argv) > 4 else None
for line in open(log, errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("member") != member:
        continue
    data = m.get("payload", {}).get("data", [])
    about = m.get("path") if member == "PropertiesChanged" else (data[0] if data else None)
    if about != path:
        continue
    if word is None or word in json.dumps(data):
        sys.exit(0)
sys.exit(1)
PY
}

start_bus
start_monitor
start_signal_monitor

# ---- 1. Without udevd: enumerates from sysfs, says hot-plug is not followed. ----------------
loop_attach 64M
BLANK=$LOOP_DEV BLANK_NAME=$LOOP_NAME
CONF="$TEST_DIR/benchd.conf"
printf '# test configuration\nScratchDevices=%s\n' "$BLANK" >"$CONF"

if ! udevadm control --ping --timeout=2 >/dev/null 2>&1; then
        start_benchd --config="$CONF"
        wait_for 5 dev_exists "$BLANK_NAME" || fail "$BLANK_NAME not enumerated without udevd"
        grep -q "systemd-udevd is not running: .*following the kernel's device events" "$BENCHD_LOG" ||
                fail "benchd did not log that it follows the kernel's events: $(tail -n 20 "$BENCHD_LOG")"
        assert_eq 's ""' "$(dev_prop "$BLANK_NAME" WriteVerdict)" "verdict of a blank scratch device without udevd"
        # Hot-plug without udevd: the kernel's own events, the signature probed by benchd.
        _LOOP_N=$((_LOOP_N + 1))
        img="$TEST_DIR/dev$_LOOP_N.img"
        truncate -s 32M "$img"
        mkfs.ext4 -q -F "$img"
        KDEV=$(losetup -f --show "$img")
        defer losetup -d "$KDEV"
        wait_for 5 dev_exists "${KDEV#/dev/}" || fail "${KDEV#/dev/}, attached without udevd, has no object"
        wait_prop 5 "${KDEV#/dev/}" FsType '"ext4"'
        losetup -d "$KDEV"
        wait_for 5 dev_gone "${KDEV#/dev/}" || fail "${KDEV#/dev/}, detached without udevd, still has an object"
        stop_benchd
        log "without udevd: enumerated, followed the kernel's events, and said so"
else
        log "udevd runs already: the no-udevd case is not exercised"
fi

# ---- 2. With udevd. ------------------------------------------------------------------------
start_udevd
start_benchd --config="$CONF"
wait_for 5 dev_exists "$BLANK_NAME" || fail "$BLANK_NAME has no object"
assert_eq 's "loop"' "$(dev_prop "$BLANK_NAME" Type)" "Type of $BLANK_NAME"
assert_eq "b true" "$(dev_prop "$BLANK_NAME" Scratch)" "Scratch of $BLANK_NAME (ScratchDevices=)"
assert_eq "t $((64 * 1024 * 1024))" "$(dev_prop "$BLANK_NAME" Size)" "Size of $BLANK_NAME"

# Attach: the object appears within a couple of seconds, with what udev and sysfs say.
loop_attach 64M
DISK=$LOOP_DEV DISK_NAME=$LOOP_NAME
wait_for 3 dev_exists "$DISK_NAME" || fail "no object for $DISK_NAME within 3 s of attaching it"
wait_for 2 saw_signal InterfacesAdded "$(dev_path "$DISK_NAME")" || fail "no InterfacesAdded for $DISK_NAME"
assert_contains "$(dev_prop "$DISK_NAME" BackingFile)" "$TEST_DIR/dev" "BackingFile of $DISK_NAME"
assert_eq 's ""' "$(dev_prop "$DISK_NAME" WriteVerdict)" "verdict of a blank, unmounted, unlisted device"
assert_eq "b false" "$(dev_prop "$DISK_NAME" Scratch)" "Scratch of $DISK_NAME"

# The history knows it by identity.
hid=$(dev_prop "$DISK_NAME" HistoryId | awk '{print $2}')
[ "$hid" -ge 1 ] || fail "HistoryId of $DISK_NAME: $hid"
assert_eq "$DISK_NAME" "$(sql "select last_name from devices where id = $hid")" "devices.last_name"

# mkfs: FsType follows, and the signature blocks destructive jobs.
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DISK"
wait_prop 5 "$DISK_NAME" FsType '"ext4"'
wait_prop 2 "$DISK_NAME" WriteVerdict "ext4 signature"
wait_for 2 saw_signal PropertiesChanged "$(dev_path "$DISK_NAME")" FsType ||
        fail "no PropertiesChanged(FsType) for $DISK_NAME"
expect_unsafe "$DISK" "ext4 signature"

# mount: MountPoints, InUse and the verdict follow; destructive jobs are refused.
MNT="$TEST_DIR/mnt"
mkdir -p "$MNT"
# Read-only: a mounted rw ext4 changes by itself (journal, lazy init), which would blur the
# checksum that proves benchd wrote nothing; the verdict is the same either way.
mount -o ro "$DISK" "$MNT"
defer umount_retry "$MNT"
wait_prop 3 "$DISK_NAME" MountPoints "\"$MNT\""
assert_eq "b true" "$(dev_prop "$DISK_NAME" InUse)" "InUse of a mounted device"
wait_prop 2 "$DISK_NAME" WriteVerdict "mounted on $MNT"
wait_for 2 saw_signal PropertiesChanged "$(dev_path "$DISK_NAME")" MountPoints ||
        fail "no PropertiesChanged(MountPoints) for $DISK_NAME"
sync
expect_unsafe "$DISK" "mounted on $MNT"
# By dev_t, not by name: a symlink to the node is the same device.
ln -s "$DISK" "$TEST_DIR/alias"
expect_unsafe "$TEST_DIR/alias" "mounted on $MNT"
umount "$MNT"
wait_prop 3 "$DISK_NAME" MountPoints "as 0"
assert_eq "b false" "$(dev_prop "$DISK_NAME" InUse)" "InUse after umount"

# A partition table: partitions appear, and writes to the disk are refused.
wipefs -q -a "$DISK"
printf 'label: gpt\n,24M\n,\n' | sfdisk -q "$DISK" >/dev/null
# Let udevd finish the rescan sfdisk's close triggers (it re-reads the table, which on kernels
# without partition-table parsers drops partitions), then add them through BLKPG if needed.
udevadm settle --timeout=10 || true
[ -e "${DISK}p1" ] || partx -a "$DISK" 2>/dev/null || true
udevadm settle --timeout=10 || true
wait_for 5 dev_exists "${DISK_NAME}p1" || fail "no object for ${DISK_NAME}p1"
wait_for 5 dev_exists "${DISK_NAME}p2" || fail "no object for ${DISK_NAME}p2"
assert_eq 's "partition"' "$(dev_prop "${DISK_NAME}p1" Type)" "Type of ${DISK_NAME}p1"
wait_prop 5 "$DISK_NAME" PartitionTable '"gpt"'
wait_prop 2 "$DISK_NAME" WriteVerdict "gpt partition table"
expect_unsafe "$DISK" "partition table"

# A filesystem mounted on a partition makes the whole disk in use.
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${DISK}p2"
mount -o ro "${DISK}p2" "$MNT"
wait_prop 3 "$DISK_NAME" WriteVerdict "${DISK_NAME}p2 is mounted on $MNT"
wait_prop 3 "${DISK_NAME}p2" MountPoints "\"$MNT\""
sync
expect_unsafe "$DISK" "${DISK_NAME}p2 is mounted"
umount "$MNT"
wait_prop 3 "$DISK_NAME" WriteVerdict "gpt partition table"

# Swap on a partition: the partition and its disk are in use; swapoff gives the partition back
# its plain signature verdict.
if mkswap -q "${DISK}p1" >/dev/null 2>&1 && swapon "${DISK}p1" 2>/dev/null; then
        defer swapoff "${DISK}p1"
        wait_prop 3 "${DISK_NAME}p1" Swap "b true"
        wait_prop 2 "${DISK_NAME}p1" WriteVerdict "in use as swap"
        wait_prop 2 "$DISK_NAME" WriteVerdict "${DISK_NAME}p1 is in use as swap"
        expect_unsafe "${DISK}p1" "swapoff /dev/${DISK_NAME}p1"
        swapoff "${DISK}p1"
        wait_prop 3 "${DISK_NAME}p1" Swap "b false"
        wait_prop 2 "${DISK_NAME}p1" WriteVerdict "swap signature"
else
        log "swapon not permitted here: the swap case is not exercised"
fi

# A blank device listed in ScratchDevices= is accepted.
assert_eq 's ""' "$(dev_prop "$BLANK_NAME" WriteVerdict)" "verdict of the scratch device"
id=$(submit_busctl target s "$BLANK" "${DESTRUCTIVE[@]}") || fail "destructive job on scratch $BLANK refused"
log "job $id accepted on scratch $BLANK"
assert_eq succeeded "$(wait_job_removed "$id" 120)" "destructive job $id on scratch $BLANK"

# BENCHD_SCRATCH=1 from a udev rule (matching only our image file) marks a device scratch: its
# signature no longer blocks writes, but a mount still does.
RULES_DIR=/run/udev/rules.d
RULE="$RULES_DIR/99-benchd-test-$$.rules"
mkdir -p "$RULES_DIR"
SCRATCH_IMG="$TEST_DIR/udev-scratch.img"
printf 'SUBSYSTEM=="block", KERNEL=="loop*", ATTR{loop/backing_file}=="%s", ENV{BENCHD_SCRATCH}="1"\n' \
        "$SCRATCH_IMG" >"$RULE"
defer udevadm control --reload
defer rm -f "$RULE"
udevadm control --reload
truncate -s 160M "$SCRATCH_IMG"   # room for a file job: 64 MiB headroom
mkfs.ext4 -q -F "$SCRATCH_IMG"
USCR=$(losetup -f --show "$SCRATCH_IMG")
defer losetup -d "$USCR"
USCR_NAME=${USCR#/dev/}
wait_for 3 dev_exists "$USCR_NAME" || fail "no object for $USCR_NAME"
wait_prop 3 "$USCR_NAME" Scratch "b true"
assert_eq 's "ext4"' "$(dev_prop "$USCR_NAME" FsType)" "FsType of the udev-scratch device"
assert_eq 's ""' "$(dev_prop "$USCR_NAME" WriteVerdict)" "verdict of a signed device marked BENCHD_SCRATCH=1"
mount -o ro "$USCR" "$MNT"
wait_prop 3 "$USCR_NAME" WriteVerdict "mounted on $MNT"
sync
expect_unsafe "$USCR" "mounted on $MNT"
umount "$MNT"
wait_prop 3 "$USCR_NAME" WriteVerdict 's ""'
id=$(submit_busctl target s "$USCR" "${DESTRUCTIVE[@]}") || fail "destructive job on udev-scratch $USCR refused"
assert_eq succeeded "$(wait_job_removed "$id" 120)" "destructive job $id on udev-scratch $USCR"

# A run on a directory records the device under it (by identity), the filesystem, the mount
# options and the environment.
wipefs -q -a "$USCR"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$USCR"
mount -o noatime "$USCR" "$MNT"
id=$(submit_busctl target s "$MNT" workload s write size s 4M block_size s 64K) ||
        fail "job on $MNT refused"
result=$(wait_job_removed "$id" 120)
assert_eq "succeeded" "$result" "job $id on $MNT"
row=$(sql "select d.identity, r.device_name, r.fs_type, r.mount_options from runs r
           join devices d on d.id = r.device_id where r.job_id = $id")
assert_eq "$(dev_prop "$USCR_NAME" Identity | sed 's/^s "//; s/"$//')|$USCR_NAME|ext4" "${row%|*}" \
        "identity, device and fs of the run on $MNT"
assert_contains "${row##*|}" "noatime" "mount options of the run"
env_json=$(sql "select environment from runs where job_id = $id")
for key in host kernel cpu scheduler stack benchd_version; do
        assert_contains "$env_json" "\"$key\"" "environment of the run"
done
assert_contains "$(json_get 'd["stack"][0]' <<<"$env_json")" "\"$USCR_NAME\"" "stack of the run"
umount "$MNT"

# benchctl shows the inventory.
if [ -x "$BENCHCTL_BIN" ]; then
        run benchctl devices
        [ "$RC" = 0 ] || fail "benchctl devices exited $RC: $OUT"
        assert_contains "$OUT" "$DISK_NAME" "benchctl devices"
        run benchctl device "$DISK_NAME"
        [ "$RC" = 0 ] || fail "benchctl device $DISK_NAME exited $RC: $OUT"
        assert_contains "$OUT" "partition table" "benchctl device $DISK_NAME"
fi

# Detach: the objects go away.
partx -d "$DISK" 2>/dev/null || true
losetup -d "$DISK"
wait_for 3 dev_gone "$DISK_NAME" || fail "$DISK_NAME still has an object 3 s after detaching"
wait_for 3 dev_gone "${DISK_NAME}p1" || fail "${DISK_NAME}p1 still has an object after detaching"
wait_for 2 saw_signal InterfacesRemoved "$(dev_path "$DISK_NAME")" || fail "no InterfacesRemoved for $DISK_NAME"

benchd_alive || fail "benchd died"
log "PASS"
