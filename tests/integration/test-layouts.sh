#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# md RAID and LVM layouts at SubmitJob, through the real daemon on scratch loop devices: on a kernel
# without md or device-mapper (as this test's machines have) every md and LVM layout is refused
# naming what is missing; on one with them, as not built by this benchd yet. Everywhere: too few
# devices for a level, md and LVM options benchd does not pass on or mdadm refuses, and keys of
# another layout are refused by name. Every refusal is an InvalidSpec and leaves the devices as
# they were (checksums). The layouts themselves run in a VM (tests/vm/).

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 sha256sum wipefs
require_loop
require_binaries

start_bus
start_udevd

make_loop 64M; L1=$LOOP_DEV
make_loop 64M; L2=$LOOP_DEV
make_loop 64M; L3=$LOOP_DEV
for d in "$L1" "$L2" "$L3"; do wipefs -a -q "$d"; done
# Something on them to see unchanged.
for d in "$L1" "$L2" "$L3"; do printf 'benchd test-layouts %s\n' "$d" | dd of="$d" bs=4k seek=100 conv=notrunc status=none; done
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s %s %s\n' "$L1" "$L2" "$L3" >"$CONF"
start_benchd --config="$CONF"
start_monitor

sums() { sha256sum <"$L1"; sha256sum <"$L2"; sha256sum <"$L3"; }
before=$(sums)

# refused NEEDLE KEY=VALUE...: SubmitJob (through busctl, so that the daemon's own checks answer)
# refuses the job with InvalidSpec, saying NEEDLE. devices and filesystems are lists.
refused() {
        local needle=$1 args=(workload s write destructive b true size s 4M) a k v n=3 items
        shift
        for a in "$@"; do
                k=${a%%=*} v=${a#*=}
                case $k in
                devices | filesystems)
                        IFS=, read -r -a items <<<"$v"
                        args+=("$k" as "${#items[@]}" "${items[@]}") ;;
                *) args+=("$k" s "$v") ;;
                esac
                n=$((n + 1))
        done
        call_error SubmitJob 'a{sv}' "$n" "${args[@]}"
        assert_contains "$ERR" "org.benchd.Benchd1.Error.InvalidSpec: " "the error of $*"
        assert_contains "$ERR" "$needle" "refusal of $*"
}

# What this kernel lacks, as benchd must name it.
if [ -e /proc/mdstat ]; then
        md_missing=""
        log "this kernel has md: the md layouts are refused as not built yet"
else
        md_missing="needs the kernel's md RAID (/proc/mdstat absent"
fi
if [ -e /dev/mapper/control ]; then dm_missing=""; else dm_missing="needs device-mapper (/dev/mapper/control absent"; fi
command -v mdadm >/dev/null && mdadm_missing="" || mdadm_missing="mdadm (not installed; Debian package mdadm)"
command -v lvm >/dev/null && lvm_missing="" || lvm_missing="lvm (not installed; Debian package lvm2)"

log "1. every md and LVM layout refused on this machine, naming what is missing"
for layout in md-raid0 md-raid1 md-raid10 md-raid1+lvm; do
        needle=${md_missing:-"not supported by this benchd yet"}
        refused "layout: $layout $needle" filesystems=ext4 layout="$layout" devices="$L1,$L2"
        [ -z "$mdadm_missing" ] || refused "$mdadm_missing" filesystems=ext4 layout="$layout" devices="$L1,$L2"
done
refused "layout: md-raid5 ${md_missing:-"not supported by this benchd yet"}" filesystems=ext4 layout=md-raid5 \
        devices="$L1,$L2,$L3"
# layout=lvm is built where device-mapper is (tests/vm/guest-lvm.sh runs it).
[ -z "$dm_missing" ] || refused "layout: lvm $dm_missing" filesystems=ext4 layout=lvm devices="$L1,$L2"
[ -z "$lvm_missing" ] || refused "$lvm_missing" filesystems=ext4 layout=lvm devices="$L1"
if [ -n "$md_missing" ] && [ -n "$dm_missing" ]; then
        # md-raid1+lvm names both.
        refused "device-mapper (/dev/mapper/control absent" filesystems=ext4 layout=md-raid1+lvm devices="$L1,$L2"
fi
refused "use a kernel and packages with them, or layout=single or btrfs's raid1" filesystems=ext4,btrfs \
        layout=md-raid1 devices="$L1,$L2"

log "2. too few devices for the level, by name"
refused "layout: md-raid5 needs at least 3 devices, devices has 2; add another device" filesystems=ext4 \
        layout=md-raid5 devices="$L1,$L2"
refused "layout: md-raid1 needs at least 2 devices, devices has 1" filesystems=ext4 layout=md-raid1 devices="$L1"
refused "layout: md-raid1+lvm needs at least 2 devices" filesystems=ext4 layout=md-raid1+lvm devices="$L1"

log "3. options benchd does not pass on, or mdadm refuses; keys of another layout"
refused "md_options: '--force' is not an option benchd passes to mdadm" filesystems=ext4 layout=md-raid1 \
        devices="$L1,$L2" md_options=--force
refused "md_options: --chunk=3K is not a chunk size mdadm takes" filesystems=ext4 layout=md-raid0 \
        devices="$L1,$L2" md_options=--chunk=3K
refused "md_options: --chunk does not apply to md-raid1" filesystems=ext4 layout=md-raid1 devices="$L1,$L2" \
        md_options=--chunk=64K
refused "md_options: --bitmap=/x is not a bitmap benchd makes" filesystems=ext4 layout=md-raid1 \
        devices="$L1,$L2" md_options=--bitmap=/x
refused "lvm_options: '--stripes=2' is not an option benchd passes to LVM" filesystems=ext4 layout=lvm \
        devices="$L1,$L2" lvm_options=--stripes=2
refused "lv_size: applies to layout=lvm and md-raid1+lvm, not layout=md-raid1" filesystems=ext4 layout=md-raid1 \
        devices="$L1,$L2" lv_size=32M
refused "md_resync: 'soon' is not a resync mode" filesystems=ext4 layout=md-raid1 devices="$L1,$L2" md_resync=soon
refused "md_resync: applies to the md layouts, not layout=lvm" filesystems=ext4 layout=lvm devices="$L1,$L2" \
        md_resync=assume-clean
refused "layout: 'raid5' is not a layout" filesystems=ext4 layout=raid5 devices="$L1,$L2,$L3"

# What SubmitJob asks mdadm beforehand (benchd-worker --try-md-options): mdadm --create on member
# paths that do not exist, so that it judges the options and creates nothing. It needs no md in the
# kernel (mdadm checks its options first), so it runs here; on an md kernel SubmitJob quotes it
# (tests/vm/guest-layouts.sh).
if [ -z "$mdadm_missing" ]; then
        log "3b. md_options put to mdadm itself, nothing created"
        out=$("$WORKER_BIN" --try-md-options=--layout=f2 --layout=md-raid5 --members=3 2>&1) && rc=0 || rc=$?
        assert_eq 1 "$rc" "the trial's exit status for md-raid5 --layout=f2 ($out)"
        assert_contains "$out" "mdadm rejected md_options '--layout=f2' for md-raid5 over 3 devices (exit 2): mdadm: layout f2 not understood for raid5" \
                "mdadm's own words"
        out=$("$WORKER_BIN" --try-md-options=--layout=left-symmetric --layout=md-raid5 --members=3 2>&1) && rc=0 || rc=$?
        assert_eq 0 "$rc" "the trial's exit status for md-raid5 --layout=left-symmetric ($out)"
        out=$("$WORKER_BIN" --try-md-options="--layout=n2 --chunk=64K" --layout=md-raid10 --members=2 2>&1) && rc=0 || rc=$?
        assert_eq 0 "$rc" "the trial's exit status for md-raid10 --layout=n2 ($out)"
        out=$("$WORKER_BIN" --try-md-options=--layout=left-symmetric --layout=md-raid10 --members=2 2>&1) && rc=0 || rc=$?
        assert_eq 1 "$rc" "the trial's exit status for md-raid10 --layout=left-symmetric ($out)"
        assert_contains "$out" "mdadm: layout for raid10 must be" "mdadm's own words"
        [ ! -e /dev/md/benchd-0-0 ] || fail "the trial made /dev/md/benchd-0-0"
fi

assert_eq "$before" "$(sums)" "the devices after the refusals"
assert_eq "0" "$(sql "select count(*) from jobs")" "no job queued"
log "ok"
