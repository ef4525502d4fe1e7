#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# In the VM (test-vm-lvm.sh), on its disks /dev/vdc../dev/vde (vdc and vdd scratch, vde not), with
# device-mapper in the kernel and lvm2 installed:
#   1. the seed's LVM comparison, shortened: ext4 against btrfs on layout=lvm over vdc and vdd
#      (iozone profile at two record sizes, 4K and 64K: iozone -a -r 4k -r 64k, the 8 tests of
#      each on a 1M file; lv_size=160M: btrfs wants 109 MiB at least), each run recording its group (benchd-JOB-ENTRY), the
#      commands that built it (pvcreate, vgcreate, lvcreate; the entry's later runs carry them, then
#      the vgchange --activate y that activated it again), each run the deactivation after it and
#      the entry's last the removal (vgremove, pvremove), the
#      volume's extents and size; after the job no volume active (dmsetup ls), no physical volume
#      left (pvs) and nothing holding the disks; compare --job;
#   1b. ext4 on md-raid1+lvm over vdc and vdd: mdadm's command then LVM's on the array, recorded,
#      then the group's deactivation and removal and the members' release (mdadm --zero-superblock);
#      after the job no volume active, no array assembled, neither md superblock nor LVM label left;
#   2. bad input: lv_size larger than the group, and lvm_options LVM does not take, refused by
#      name, the disks unchanged;
#   3. kill -9 of the worker while its volume is active: the job fails, and benchd deactivates the
#      volume the worker left; the group it leaves on the disks is foreign to the host's LVM
#      (system ID benchd), which refuses to activate it; kill -9 of benchd while a worker runs on
#      its volume, then a restart: benchd deactivates it at start-up; a later job on the same
#      (scratch) disks wipes what was left and succeeds;
#   4. a physical volume made by hand on vde (not scratch) is refused for its LVM signature, and
#      vde does not change.
. "$SOURCE_ROOT/tests/integration/lib.sh"

require_root
require_cmd lvm dmsetup dbus-daemon busctl sqlite3 sha256sum wipefs blkid
[ -e /dev/mapper/control ] || fail "the VM's kernel has no device-mapper: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
D1=/dev/vdc D2=/dev/vdd D3=/dev/vde
for d in "$D1" "$D2" "$D3"; do
        [ -b "$d" ] || fail "the VM has no $d"
        printf 'benchd guest-lvm %s\n' "$d" | dd of="$d" bs=4k seek=100 conv=notrunc status=none
done
sum() { sha256sum <"$1" | cut -d' ' -f1; }
# benchd's volumes active, as device-mapper lists them (dmsetup ls: "benchd--JOB--ENTRY-lv").
benchd_volumes() { dmsetup ls 2>/dev/null | grep '^benchd--' || true; }
disks_free() {
        local d
        for d in vdc vdd; do
                [ -z "$(ls /sys/class/block/$d/holders)" ] || return 1
        done
}
show_dm() { dmsetup ls 2>&1; lvm pvs 2>&1 || true; ls /sys/class/block/vdc/holders /sys/class/block/vdd/holders; }

start_bus
start_udevd
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s %s\n' "$D1" "$D2" >"$CONF"
start_benchd --config="$CONF"

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

log "1. ext4 against btrfs on layout=lvm over vdc and vdd (iozone profile, record sizes 4K and 64K)"
out=$(benchctl run --profile iozone --set record_sizes=4K,64K --set filesystems=ext4,btrfs --set layout=lvm \
        --set devices="$D1,$D2" --set destructive=true --set size=1M --set lv_size=160M 2>&1) ||
        fail "the lvm job failed: $out $(tail -n 30 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the lvm job"
# iozone's 8 tests at each record size, on each filesystem.
assert_eq "0|16|2|4096|65536
1|16|2|4096|65536" "$(sql "select matrix_entry, count(*), count(distinct block_size), min(block_size), max(block_size)
        from runs where job_id = $job group by matrix_entry order by matrix_entry")" "the iozone runs of each entry"
assert_eq "0|ext4|lvm|benchd-$job-0
1|btrfs|lvm|benchd-$job-1" \
        "$(sql "select distinct matrix_entry, fs_type, layout, lvm_vg from runs where job_id = $job order by id")" \
        "each run's volume group"
first=$(sql "select min(id) from runs where job_id = $job and matrix_entry = 0")
cmds=$(sql "select group_concat(json_extract(c.value, '\$.command'), '
') from runs, json_each(runs.layout_commands) as c where runs.id = $first")
assert_eq "lvm pvcreate --yes /dev/vdc /dev/vdd
lvm vgcreate --yes --setautoactivation n benchd-$job-0 /dev/vdc /dev/vdd
lvm lvcreate --yes --wipesignatures y --name lv --size 167772160b benchd-$job-0
lvm vgchange --activate n benchd-$job-0" "$cmds" "the commands of entry 0's first run"
# Every run records its group's deactivation; an entry's later runs its activation first; its
# last run the removal.
assert_eq "0" "$(sql "select count(*) from runs where job_id = $job and
        layout_commands not like '%\"lvm vgchange --activate n benchd-$job-' || matrix_entry || '\"%'")" \
        "runs without the deactivation of their group"
assert_eq "0" "$(sql "select count(*) from runs r where job_id = $job and
        (r.id = (select min(id) from runs where job_id = $job and matrix_entry = r.matrix_entry)) =
        (layout_commands like '%\"lvm vgchange --activate y %')")" \
        "runs whose activation of the group is not as their place in the entry says"
assert_eq "lvm vgremove --yes --force benchd-$job-0
lvm pvremove --yes /dev/vdc /dev/vdd
lvm vgremove --yes --force benchd-$job-1
lvm pvremove --yes /dev/vdc /dev/vdd" "$(sql "select json_extract(c.value, '\$.command') from runs r,
        json_each(r.layout_commands) as c where r.job_id = $job and json_extract(c.value, '\$.command')
        like 'lvm %remove %' order by r.id, c.key")" "the entries' removal, in each entry's last run"
assert_eq "2" "$(sql "select count(distinct r.id) from runs r, json_each(r.layout_commands) as c where r.job_id = $job
        and json_extract(c.value, '\$.command') like 'lvm vgremove %' and r.id = (select max(id) from runs
        where job_id = $job and matrix_entry = r.matrix_entry)")" "the removal in the entries' last runs"
assert_eq "0" "$(sql "select count(*) from runs r, json_each(r.layout_commands) as c where r.job_id = $job
        and (json_extract(c.value, '\$.exit') != 0 or json_extract(c.value, '\$.usec') <= 0)")" \
        "commands that failed or took no time"
assert_eq "40|167772160" "$(sql "select distinct lv_extents, lv_bytes from runs where job_id = $job")" \
        "the volume's extents (4 MiB each) and size"
assert_eq "0" "$(sql "select count(*) from runs where job_id = $job and mkfs_command not like 'mkfs.% /dev/dm-%'")" \
        "runs whose filesystem is not on the volume"
log "entry 0's commands: $(sql "select layout_commands from runs where id = $first")"
[ -z "$(benchd_volumes)" ] || fail "benchd's volumes left active after the lvm job: $(show_dm)"
disks_free || fail "vdc or vdd still held after the lvm job: $(show_dm)"
# The deactivation after each step and the removal after each entry's last, in the job's log.
assert_contains "$(cat "$BENCHD_LOG")" "lvm vgchange --activate n benchd-$job-0 (" "entry 0's deactivation in the log"
assert_contains "$(cat "$BENCHD_LOG")" "lvm vgremove --yes --force benchd-$job-1 (" "entry 1's removal in the log"
assert_contains "$(cat "$BENCHD_LOG")" "lvm pvremove --yes /dev/vdc /dev/vdd (" "the labels' removal in the log"
for d in "$D1" "$D2"; do
        assert_eq "" "$(blkid -p -o value -s TYPE "$d" || true)" "the signature left on $d after the job"
done
echo "### benchctl compare --job $job (ext4 vs btrfs on lvm over vdc, vdd, lv_size=160M; iozone profile, record_sizes=4K,64K, size=1M)"
benchctl compare --job "$job"

log "1b. ext4 on md-raid1+lvm over vdc and vdd (the seed servers' layout)"
out=$(benchctl run --workload write --set filesystems=ext4 --set layout=md-raid1+lvm --set devices="$D1,$D2" \
        --set destructive=true --set size=4M --set lv_size=128M --set md_resync=assume-clean \
        --set md_options=--bitmap=none 2>&1) || fail "the md-raid1+lvm job failed: $out $(tail -n 30 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the md-raid1+lvm job"
assert_eq "md-raid1+lvm|benchd-$job-0|benchd-$job-0|assume-clean|32|134217728" \
        "$(sql "select layout, md_array, lvm_vg, md_resync, lv_extents, lv_bytes from runs where job_id = $job")" \
        "the run's array and group"
cmds=$(sql "select group_concat(json_extract(c.value, '\$.command'), '
') from runs, json_each(runs.layout_commands) as c where runs.job_id = $job")
log "md-raid1+lvm's commands: $cmds"
assert_contains "$(head -n 1 <<<"$cmds")" "mdadm --create /dev/md/benchd-$job-0" "mdadm first"
assert_contains "$(sed -n 2p <<<"$cmds")" "lvm pvcreate --yes /dev/md" "the physical volume on the array"
assert_contains "$(sed -n 4p <<<"$cmds")" "lvm lvcreate --yes --wipesignatures y --name lv --size 134217728b" "lvcreate"
# The entry's last (and only) run: the group deactivated and removed, then the array's members
# released, recorded after what built them.
assert_contains "$(sed -n 5,7p <<<"$cmds")" "lvm vgchange --activate n benchd-$job-0
lvm vgremove --yes --force benchd-$job-0
lvm pvremove --yes /dev/md" "the group's deactivation and removal"
assert_eq "mdadm --zero-superblock /dev/vdc /dev/vdd" "$(tail -n 1 <<<"$cmds")" "the members' release, last"
[ -z "$(benchd_volumes)" ] || fail "benchd's volumes left active after the md-raid1+lvm job: $(show_dm)"
! grep -q '^md' /proc/mdstat || fail "an array left assembled after the md-raid1+lvm job: $(cat /proc/mdstat)"
disks_free || fail "vdc or vdd still held after the md-raid1+lvm job: $(show_dm)"
# Neither an md superblock nor an LVM label on the members (the label was on the array, in their
# data area: LABELONE in its second sector, the first MiBs of each member).
for d in "$D1" "$D2"; do
        assert_eq "" "$(blkid -p -o value -s TYPE "$d" || true)" "the signature left on $d after the md-raid1+lvm job"
        assert_eq "0" "$(head -c 16M "$d" | grep -ac LABELONE || true)" "LVM labels left on $d after the md-raid1+lvm job"
done

log "1c. ext4 on layout=lvm over partition 1 of vdc and vdd, against partition 2 (partitions=2)"
out=$(benchctl run --workload write --set filesystems=ext4 --set layout=lvm --set partitions=2 \
        --set devices="$D1,$D2" --set destructive=true --set size=4M 2>&1) ||
        fail "the lvm job over partitions failed: $out $(tail -n 30 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "1|benchd-$job-0
2|benchd-$job-1" "$(sql "select partition, lvm_vg from runs where job_id = $job order by id")" "each partition's group"
assert_eq "lvm pvcreate --yes /dev/vdc1 /dev/vdd1
lvm pvcreate --yes /dev/vdc2 /dev/vdd2" \
        "$(sql "select json_extract(layout_commands, '\$[0].command') from runs where job_id = $job order by id")" \
        "each entry's physical volumes"
[ -z "$(benchd_volumes)" ] || fail "benchd's volumes left active after the job over partitions: $(show_dm)"
echo "### benchctl compare --job $job (ext4 on lvm over partition 1 vs partition 2 of vdc, vdd; write, size=4M)"
benchctl compare --job "$job"

log "2. bad input"
before="$(sum $D1) $(sum $D2)"
refused InvalidSpec "lv_size: 1 GiB does not fit in the volume group of the devices" filesystems=ext4 layout=lvm \
        devices="$D1,$D2" lv_size=1G
refused InvalidSpec "lvm_options: '--stripes=2' is not an option benchd passes to LVM" filesystems=ext4 layout=lvm \
        devices="$D1,$D2" lvm_options=--stripes=2
assert_eq "$before" "$(sum $D1) $(sum $D2)" "the devices after the refusals"

log "3. kill -9 of the worker, then of benchd, while a volume is active"
submit_long() {
        benchctl submit --workload write --set filesystems=ext4 --set layout=lvm --set devices="$D1,$D2" \
                --set destructive=true --set size=4M --set runtime_ms=600000 | awk '{print $NF}' | tr -dc '0-9'
}
id=$(submit_long)
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
active() { [ -n "$(benchd_volumes)" ] && [ "$(sql "select state from jobs where id = $id")" = running ]; }
wait_for 180 active || fail "job $id's volume is not active: $(show_dm) $(sql "select state, error from jobs where id = $id")"
pids=$(worker_pids)
[ -n "$pids" ] || fail "no worker to kill"
# shellcheck disable=SC2086
kill -9 $pids
job_failed() { [ "$(sql "select state from jobs where id = $id")" = failed ]; }
wait_for 60 job_failed || fail "job $id did not fail after kill -9 of its worker"
log "job $id: $(sql "select error from jobs where id = $id")"
[ -z "$(benchd_volumes)" ] || fail "the killed worker's volume is still active: $(show_dm) $(tail -n 20 "$BENCHD_LOG")"
disks_free || fail "vdc or vdd still held after the killed worker: $(show_dm)"
assert_contains "$(cat "$BENCHD_LOG")" "logical volume benchd-$id-0/lv (/dev/dm-" "benchd's note of the volume it deactivated"
# What stays on the disks is a group of system ID benchd: the host's LVM does not take it.
if lvm vgchange -ay "benchd-$id-0" >"$TEST_DIR/host-vgchange.log" 2>&1 && [ -n "$(benchd_volumes)" ]; then
        fail "the host's LVM activated benchd's group benchd-$id-0: $(cat "$TEST_DIR/host-vgchange.log")"
fi
log "the host's lvm on the group left: $(head -n 1 "$TEST_DIR/host-vgchange.log")"

id=$(submit_long)
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
wait_for 180 active || fail "job $id's volume is not active: $(show_dm)"
pids=$(worker_pids)
stop_benchd KILL
for p in $pids; do wait_for 60 eval "! kill -0 $p 2>/dev/null" || fail "worker $p outlived benchd by a minute"; done
show_dm >&2
start_benchd --config="$CONF"
[ -z "$(benchd_volumes)" ] || fail "benchd did not deactivate the volume at start-up: $(show_dm) $(tail -n 20 "$BENCHD_LOG")"
disks_free || fail "vdc or vdd still held after the restart: $(show_dm)"
assert_contains "$(cat "$BENCHD_LOG")" "deactivated it at start-up" "benchd's note of the volume it deactivated at start-up"

# The next job on the same scratch disks wipes what was left, and leaves nothing.
out=$(benchctl run --workload write --set filesystems=ext4 --set layout=lvm --set devices="$D1,$D2" \
        --set destructive=true --set size=4M 2>&1) || fail "the job after the leftovers failed: $out"
[ -z "$(benchd_volumes)" ] || fail "benchd's volumes left active: $(show_dm)"
for d in "$D1" "$D2"; do
        assert_eq "" "$(blkid -p -o value -s TYPE "$d" || true)" "the signature left on $d after the last job"
done

log "4. a physical volume made by hand on vde (not scratch)"
lvm pvcreate -q "$D3" >"$TEST_DIR/lvm.log" 2>&1 || fail "pvcreate failed: $(cat "$TEST_DIR/lvm.log")"
defer lvm pvremove -q -y "$D3"
udevadm settle --timeout=30 || true
s3=$(sum $D3)
refused Unsafe "vde carries an LVM physical volume signature" filesystems=ext4 devices="$D3"
refused Unsafe "vde carries an LVM physical volume signature" filesystems=ext4 layout=lvm devices="$D3"
assert_eq "$s3" "$(sum $D3)" "vde after the refusals"
log "ok"
