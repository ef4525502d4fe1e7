#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# In the VM (test-vm-layouts.sh), on its disks /dev/vdc../dev/vdf (vdc, vdd and vde scratch, vdf
# not), with md and device-mapper in the kernel, mdadm and lvm2 installed:
#   1. benchd's machine check finds all that the md and LVM layouts need, so they are refused only
#      as not built by this benchd yet; md-raid5 on two devices by its level; the devices unchanged;
#   2. an md RAID1 assembled by hand over vde and vdf: benchctl devices lists it with its level and
#      members; a job on vde (scratch) is refused as held by the array, on vdf too, and neither
#      changes; once the array is stopped, vdf (not scratch) is refused for its RAID member
#      signature;
#   3. an LVM volume group made by hand on vdd: benchctl devices lists the logical volume with its
#      group and member; a job on vdd (scratch) is refused as held by it, and vdd does not change.

. "$SOURCE_ROOT/tests/integration/lib.sh"

require_root
require_cmd mdadm lvm dbus-daemon busctl python3 sqlite3 sha256sum wipefs
[ -e /proc/mdstat ] || fail "the VM's kernel has no md: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
[ -e /dev/mapper/control ] || fail "the VM's kernel has no device-mapper"
D1=/dev/vdc D2=/dev/vdd D3=/dev/vde D4=/dev/vdf
for d in "$D1" "$D2" "$D3" "$D4"; do
        [ -b "$d" ] || fail "the VM has no $d"
        printf 'benchd guest-layouts %s\n' "$d" | dd of="$d" bs=4k seek=100 conv=notrunc status=none
done
sum() { sha256sum <"$1" | cut -d' ' -f1; }
# listed NAME TEXT: benchctl devices' line of NAME says TEXT (benchd follows udev's events).
listed() { benchctl devices 2>/dev/null | grep "^$1 " | grep -qF "$2"; }

start_bus
start_udevd
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s %s %s\n' "$D1" "$D2" "$D3" >"$CONF"
start_benchd --config="$CONF"

# refused ERROR NEEDLE KEY=VALUE...: SubmitJob refuses the job with ERROR, saying NEEDLE: benchctl's
# exit status tells InvalidSpec (2) from the others (1, Unsafe: the write verdict's words). Not
# through the bus monitor: its python3 costs seconds a call under TCG.
refused() {
        local error=$1 needle=$2 args=() a rc=0 out
        shift 2
        for a in "$@"; do args+=(--set "$a"); done
        out=$(benchctl submit --workload write --set destructive=true --set size=4M "${args[@]}" 2>&1) || rc=$?
        case $error in
        InvalidSpec) assert_eq 2 "$rc" "benchctl's exit status for the InvalidSpec of $* ($out)" ;;
        Unsafe)
                assert_eq 1 "$rc" "benchctl's exit status for the refusal of $* ($out)"
                assert_contains "$out" "is refused: " "the write verdict's refusal of $*" ;;
        esac
        assert_contains "$out" "$needle" "refusal of $*"
}

log "1. md and LVM found on this kernel"
before="$(sum $D1) $(sum $D2) $(sum $D3)"
for layout in md-raid0 md-raid1 md-raid10 lvm md-raid1+lvm; do
        refused InvalidSpec "layout: $layout is not supported by this benchd yet" filesystems=ext4 layout="$layout" \
                devices="$D1,$D2"
done
refused InvalidSpec "layout: md-raid5 is not supported by this benchd yet" filesystems=ext4 layout=md-raid5 \
        devices="$D1,$D2,$D3"
refused InvalidSpec "layout: md-raid5 needs at least 3 devices, devices has 2" filesystems=ext4 layout=md-raid5 \
        devices="$D1,$D2"
assert_eq "$before" "$(sum $D1) $(sum $D2) $(sum $D3)" "the devices after the refusals"
# What benchd refuses of md_options as mdadm would, mdadm refuses too: a chunk size for RAID1, an
# internal bitmap for RAID0 (so the rule in spec-matrix.c is mdadm's, not a guess).
for args in "--level=1 --chunk=64" "--level=0 --bitmap=internal"; do
        # shellcheck disable=SC2086
        if mdadm --create /dev/md/benchd-probe --run --config=none --homehost=other --raid-devices=2 $args \
                        "$D1" "$D2" >"$TEST_DIR/probe.log" 2>&1; then
                mdadm --stop /dev/md/benchd-probe >/dev/null 2>&1 || true
                fail "mdadm accepted $args, which benchd refuses as mdadm's refusal"
        fi
        log "mdadm refuses $args: $(head -n 1 "$TEST_DIR/probe.log")"
done
assert_eq "$before" "$(sum $D1) $(sum $D2) $(sum $D3)" "the devices after mdadm's refusals"

log "2. an md RAID1 assembled by hand"
s3=$(sum $D3) s4=$(sum $D4)
mdadm --create /dev/md/handmade --run --config=none --homehost=other --level=1 --raid-devices=2 \
        --assume-clean --bitmap=none "$D3" "$D4" >"$TEST_DIR/mdadm.log" 2>&1 ||
        fail "mdadm --create failed: $(cat "$TEST_DIR/mdadm.log")"
defer mdadm --stop /dev/md/handmade
udevadm settle --timeout=30 || true
md=$(basename "$(readlink -f /dev/md/handmade)")
s3=$(sum $D3) s4=$(sum $D4)
wait_for 30 listed "$md" "md raid1 of" || fail "benchctl devices does not list $md as an md RAID1: $(benchctl devices)"
out=$(benchctl devices)
echo "$out" >&2
assert_contains "$(grep "^$md " <<<"$out")" "vde" "benchctl devices' line of the array"
assert_contains "$(grep "^$md " <<<"$out")" "vdf" "benchctl devices' line of the array"
refused Unsafe "vde is held by $md; stop the RAID array first (mdadm --stop)" filesystems=ext4 devices="$D3"
refused Unsafe "vdf is held by $md" filesystems=ext4 devices="$D4"
refused Unsafe "vde is held by $md" filesystems=ext4 devices="$D1,$D3"
assert_eq "$s3 $s4" "$(sum $D3) $(sum $D4)" "the array's members after the refusals"
mdadm --stop /dev/md/handmade >>"$TEST_DIR/mdadm.log" 2>&1 || fail "mdadm --stop failed"
udevadm settle --timeout=30 || true
s4=$(sum $D4)
refused Unsafe "vdf carries a RAID member signature (linux_raid_member" filesystems=ext4 devices="$D4"
assert_eq "$s4" "$(sum $D4)" "vdf after the refusal"

log "3. an LVM volume group made by hand"
lvm pvcreate -q "$D2" >"$TEST_DIR/lvm.log" 2>&1 && lvm vgcreate -q handvg "$D2" >>"$TEST_DIR/lvm.log" 2>&1 &&
        lvm lvcreate -q -y -L 16M -n handlv handvg >>"$TEST_DIR/lvm.log" 2>&1 ||
        fail "making the volume group failed: $(cat "$TEST_DIR/lvm.log")"
defer lvm vgremove -q -f handvg
defer lvm vgchange -q -an handvg
udevadm settle --timeout=30 || true
dm=$(basename "$(readlink -f /dev/handvg/handlv)")
wait_for 30 listed "$dm" "dm lvm" || fail "benchctl devices does not list $dm as a logical volume: $(benchctl devices)"
s2=$(sum $D2)
out=$(benchctl devices)
echo "$out" >&2
assert_contains "$(grep "^$dm " <<<"$out")" "dm lvm handvg/handlv of vdd" "benchctl devices' line of the volume"
refused Unsafe "vdd is held by $dm; remove the mapping first" filesystems=ext4 devices="$D2"
assert_eq "$s2" "$(sum $D2)" "vdd after the refusal"
lvm vgchange -q -an handvg >>"$TEST_DIR/lvm.log" 2>&1
lvm vgremove -q -f handvg >>"$TEST_DIR/lvm.log" 2>&1
cat /proc/mdstat >&2
log "ok"
