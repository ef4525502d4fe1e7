#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The device inventory and the write-safety verdict (issue 4), against loop devices this test
# makes: without udevd benchd still enumerates and says hot-plug is not followed; with udevd a
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

start_bus
start_monitor

# ---- 1. Without udevd: enumerates from sysfs, says hot-plug is not followed. ----------------
loop_attach 64M
BLANK=$LOOP_DEV BLANK_NAME=$LOOP_NAME
CONF="$TEST_DIR/benchd.conf"
printf '# test configuration\nScratchDevices=%s\n' "$BLANK" >"$CONF"

if ! udevadm control --ping --timeout=2 >/dev/null 2>&1; then
        start_benchd --config="$CONF"
        wait_for 5 dev_exists "$BLANK_NAME" || fail "$BLANK_NAME not enumerated without udevd"
        grep -q "hot-plug is not followed" "$BENCHD_LOG" ||
                fail "benchd did not log that hot-plug is not followed: $(tail -n 20 "$BENCHD_LOG")"
        assert_eq 's ""' "$(dev_prop "$BLANK_NAME" WriteVerdict)" "verdict of a blank scratch device without udevd"
        stop_benchd
        log "without udevd: enumerated, and said so"
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
expect_unsafe "$DISK" "ext4 signature"

# mount: MountPoints, InUse and the verdict follow; destructive jobs are refused.
MNT="$TEST_DIR/mnt"
mkdir -p "$MNT"
mount "$DISK" "$MNT"
defer umount_retry "$MNT"
wait_prop 3 "$DISK_NAME" MountPoints "\"$MNT\""
assert_eq "b true" "$(dev_prop "$DISK_NAME" InUse)" "InUse of a mounted device"
wait_prop 2 "$DISK_NAME" WriteVerdict "mounted on $MNT"
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
# Kernels without partition-table parsers still take partitions through BLKPG.
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
mount "${DISK}p2" "$MNT"
wait_prop 3 "$DISK_NAME" WriteVerdict "${DISK_NAME}p2 is mounted on $MNT"
wait_prop 3 "${DISK_NAME}p2" MountPoints "\"$MNT\""
sync
expect_unsafe "$DISK" "${DISK_NAME}p2 is mounted"
umount "$MNT"
wait_prop 3 "$DISK_NAME" WriteVerdict "gpt partition table"

# A blank device listed in ScratchDevices= is accepted.
assert_eq 's ""' "$(dev_prop "$BLANK_NAME" WriteVerdict)" "verdict of the scratch device"
id=$(submit_busctl target s "$BLANK" "${DESTRUCTIVE[@]}") || fail "destructive job on scratch $BLANK refused"
log "job $id accepted on scratch $BLANK"
result=$(wait_job_removed "$id" 120)
log "job $id: $result"

# Detach: the objects go away.
partx -d "$DISK" 2>/dev/null || true
losetup -d "$DISK"
wait_for 3 dev_gone "$DISK_NAME" || fail "$DISK_NAME still has an object 3 s after detaching"
wait_for 3 dev_gone "${DISK_NAME}p1" || fail "${DISK_NAME}p1 still has an object after detaching"

benchd_alive || fail "benchd died"
log "PASS"
