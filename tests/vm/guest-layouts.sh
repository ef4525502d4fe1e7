#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# In the VM (test-vm-layouts.sh), on its disks /dev/vdc../dev/vdf (vdc, vdd and vde scratch, vdf
# not), with md and device-mapper in the kernel, mdadm and lvm2 installed:
#   1. benchd's machine check finds all that the md and LVM layouts need: the LVM layouts are
#      refused only as not built by this benchd yet, md-raid5 on two devices by its level; the
#      devices unchanged;
#   2. an md RAID1 assembled by hand over vde and vdf: benchctl devices lists it with its level and
#      members; a job on vde (scratch) is refused as held by the array, on vdf too, and neither
#      changes; once the array is stopped, vdf (not scratch) is refused for its RAID member
#      signature;
#   3. an LVM volume group made by hand on vdd: benchctl devices lists the logical volume with its
#      group and member; a job on vdd (scratch) is refused as held by it, and vdd does not change;
#   4. the seed's md RAID1 comparison on vdc and vdd: ext4 against btrfs on md-raid1 (dd profile,
#      shortened), each run recording its array (benchd-JOB-ENTRY), resync mode and time, mdadm's
#      command and the chunk size, each entry's last run the mdadm --zero-superblock that released
#      the members; afterwards no array is assembled and the members carry no md superblock (so
#      nothing on the host assembles the arrays later); then btrfs's own raid1 over the same disks;
#      compare --job of both;
#   5. the seed's ext3 against ext4 on md RAID0 (bonnie profile, shortened, --assume-clean),
#      exported with --format=bonnie-csv and rendered by bon_csv2html;
#   6a. kill -9 of the worker while it is inside mdadm --create (a stand-in for mdadm holds there
#      until the worker is gone): the job fails; after a restart of benchd no array is assembled,
#      nothing holds the disks, and the next job on them succeeds;
#   6. kill -9 of the worker while its array resyncs (resync slowed to 100 KiB/s): the job fails,
#      and benchd stops the array the worker left; kill -9 of benchd while a worker waits on its
#      array, then a restart: benchd stops the array at start-up. After each, /proc/mdstat has none
#      of benchd's arrays (waited for up to 30 s after udev settled: the killed worker's members keep
#      their superblock, which the guest's udev rules may assemble again, and benchd stops that too,
#      when udev reports it) and nothing holds the disks;
#   7. md-raid5 over vdc, vdd and vde and md-raid10 over vdc and vdd, ext4 on each (size=8M writes):
#      each run records its level's array, chunk and commands; nothing assembled afterwards.
#   8. the seed's md0 and md1: ext4 against btrfs on md-raid1 of partition 1, then 2, of vdc and vdd;
#   9. a member failed (mdadm --fail) while the worker writes to its md-raid1: the job fails with
#      the array named and md/degraded's counts, no run is stored as succeeded, nothing is left.
. "$SOURCE_ROOT/tests/integration/lib.sh"

require_root
require_cmd mdadm lvm dbus-daemon busctl python3 sqlite3 cksum wipefs
[ -e /proc/mdstat ] || fail "the VM's kernel has no md: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
[ -e /dev/mapper/control ] || fail "the VM's kernel has no device-mapper"
D1=/dev/vdc D2=/dev/vdd D3=/dev/vde D4=/dev/vdf
for d in "$D1" "$D2" "$D3" "$D4"; do
        [ -b "$d" ] || fail "the VM has no $d"
        printf 'benchd guest-layouts %s\n' "$d" | dd of="$d" bs=4k seek=100 conv=notrunc status=none
done
# A disk's checksum, to see that it did not change: CRC-32 (cksum), which TCG computes several
# times faster than SHA-256 over these 512 MiB disks (the sums were most of the VM's time).
sum() { cksum <"$1" | cut -d' ' -f1; }
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
# Every md and LVM layout is built now (the LVM ones in guest-lvm.sh).
refused InvalidSpec "layout: md-raid5 needs at least 3 devices, devices has 2" filesystems=ext4 layout=md-raid5 \
        devices="$D1,$D2"
# md_options mdadm itself refuses, tried beforehand and quoted.
refused InvalidSpec "md_options: mdadm rejected md_options '--layout=f2' for md-raid5 over 3 devices (exit 2): mdadm: layout f2 not understood for raid5" \
        filesystems=ext4 layout=md-raid5 devices="$D1,$D2,$D3" md_options=--layout=f2
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
# vde is a member of md-raid5 below: the hand-made array's superblocks go.
mdadm --zero-superblock "$D3" "$D4" >>"$TEST_DIR/mdadm.log" 2>&1 || fail "mdadm --zero-superblock failed"
udevadm settle --timeout=30 || true

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

# No array of benchd's assembled, and nothing holding vdc or vdd. From here on no array of
# anyone else is assembled either: any md device, also an inactive one that udev's incremental
# assembly made of one member, counts.
no_benchd_arrays() {
        ! grep -q '^md' /proc/mdstat
}
# No md superblock on the disks (what the host's incremental assembly would assemble).
no_md_superblocks() {
        local d
        for d in "$@"; do
                if mdadm --examine "$d" >/dev/null 2>&1; then
                        log "$d still carries an md superblock: $(mdadm --examine "$d" 2>&1 | grep -E 'Name|Array UUID')"
                        return 1
                fi
                [ -z "$(blkid -p -o value -s TYPE "$d" 2>/dev/null | grep linux_raid_member)" ] || return 1
        done
}
disks_free() {
        local d
        for d in vdc vdd; do
                [ -z "$(ls /sys/class/block/$d/holders)" ] || return 1
        done
}
show_md() { cat /proc/mdstat; mdadm --detail --scan 2>&1 || true; }

log "4. ext4 against btrfs on md-raid1 of vdc and vdd (dd profile)"
out=$(benchctl run --profile dd --set filesystems=ext4,btrfs --set layout=md-raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=16M --set md_options="--bitmap=none" 2>&1) ||
        fail "the md-raid1 job failed: $out $(tail -n 20 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the md-raid1 job"
assert_eq "0|ext4|md-raid1|benchd-$job-0|wait
0|ext4|md-raid1|benchd-$job-0|wait
1|btrfs|md-raid1|benchd-$job-1|wait
1|btrfs|md-raid1|benchd-$job-1|wait" \
        "$(sql "select matrix_entry, fs_type, layout, md_array, md_resync from runs where job_id = $job order by id")" \
        "each run's array and resync mode"
cmd=$(sql "select json_extract(layout_commands, '\$[0].command') from runs where job_id = $job and step = 0")
assert_eq "mdadm --create /dev/md/benchd-$job-0 --config=none --homehost=benchd --run --level=1 --raid-devices=2 --bitmap=none /dev/vdc /dev/vdd" \
        "$cmd" "the mdadm command of entry 0"
assert_eq "0" "$(sql "select json_extract(layout_commands, '\$[0].exit') from runs where job_id = $job and step = 0")" \
        "mdadm's exit status"
assert_eq "0" "$(sql "select count(*) from runs where job_id = $job and not (md_chunk_bytes = 0 and md_resync_usec >= 0
        and json_extract(layout_commands, '\$[0].usec') > 0 and mkfs_command like 'mkfs.% /dev/md%')")" \
        "runs without their array's record"
# Each entry's later step assembled the array again: its mdadm --assemble is in that run's record.
assert_eq "0|mdadm --assemble /dev/md/benchd-$job-0 --config=none --homehost=benchd --run /dev/vdc /dev/vdd
1|mdadm --assemble /dev/md/benchd-$job-1 --config=none --homehost=benchd --run /dev/vdc /dev/vdd" \
        "$(sql "select r.matrix_entry, json_extract(c.value, '\$.command') from runs r, json_each(r.layout_commands) c
                where r.job_id = $job and json_extract(c.value, '\$.command') like 'mdadm --assemble%'
                and json_extract(c.value, '\$.exit') = 0 order by r.id")" \
        "the later steps' assemble, recorded"
log "entry 0 resync waited $(sql "select md_resync_usec from runs where job_id = $job and step = 0") us; mdadm said: $(sql "select json_extract(layout_commands, '\$[0].output') from runs where job_id = $job and step = 0")"
# A resync waited for has its own allowance, stated in the job's log (not mkfs's 15 minutes).
assert_contains "$(cat "$BENCHD_LOG")" "the initial resync of benchd-$job-0 may take up to" "the resync's allowance"
# Each entry's last run: the release of the members after the array's own command.
assert_eq "0|mdadm --zero-superblock /dev/vdc /dev/vdd|0
1|mdadm --zero-superblock /dev/vdc /dev/vdd|0" \
        "$(sql "select matrix_entry, json_extract(layout_commands, '\$[#-1].command'), json_extract(layout_commands, '\$[#-1].exit')
                from runs where job_id = $job and layout_commands like '%zero-superblock%' order by id")" \
        "the members' release, once an entry"
assert_eq "$(sql "select max(id) from runs where job_id = $job and matrix_entry = 0")
$(sql "select max(id) from runs where job_id = $job and matrix_entry = 1")" \
        "$(sql "select id from runs where job_id = $job and layout_commands like '%zero-superblock%' order by id")" \
        "the runs that released the members: each entry's last"
udevadm settle --timeout=30 || true
no_benchd_arrays || fail "benchd's arrays left after the md-raid1 job: $(show_md)"
disks_free || fail "vdc or vdd still held after the md-raid1 job: $(show_md)"
no_md_superblocks "$D1" "$D2" || fail "the md-raid1 job left md superblocks on vdc or vdd"
MD_JOB=$job
echo "### benchctl compare --job $job (ext4 vs btrfs on md-raid1 of vdc, vdd; dd profile, size=16M)"
benchctl compare --job "$job"

log "4b. btrfs's own raid1 over the same disks"
out=$(benchctl run --profile dd --set filesystems=btrfs --set layout=raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=16M 2>&1) || fail "the btrfs raid1 job failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the btrfs raid1 job"
assert_eq "" "$(sql "select distinct ifnull(md_array, '') from runs where job_id = $job")" "no array for btrfs raid1"
echo "### benchctl compare --job $job (btrfs raid1 over vdc, vdd; dd profile, size=16M)"
benchctl compare --job "$job"
echo "### benchctl compare --run (md-raid1 ext4, md-raid1 btrfs, btrfs raid1: the write steps)"
benchctl compare "$(sql "select id from runs where job_id = $MD_JOB and step = 0")" \
        "$(sql "select id from runs where job_id = $MD_JOB and step = 2")" \
        "$(sql "select id from runs where job_id = $job and step = 0")" || true

log "5. ext3 against ext4-from-ext3 against ext4 on md-raid0 of vdc and vdd (bonnie profile)"
out=$(benchctl run --profile bonnie --set filesystems=ext3,ext4-from-ext3,ext4 --set layout=md-raid0 --set devices="$D1,$D2" \
        --set destructive=true --set size=1M --set runtime_ms=0 --set file_count=256 \
        --set md_options="--chunk=64K" --set md_resync=assume-clean 2>&1) ||
        fail "the md-raid0 bonnie job failed: $out $(tail -n 20 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the md-raid0 job"
assert_eq "65536|assume-clean|0" "$(sql "select distinct md_chunk_bytes, md_resync, md_resync_usec from runs where job_id = $job")" \
        "md-raid0's chunk and resync"
benchctl export --format=bonnie-csv --job "$job" >"$TEST_DIR/md0.csv" || fail "export --format=bonnie-csv failed"
assert_eq 3 "$(wc -l <"$TEST_DIR/md0.csv")" "bonnie++ CSV lines, one per entry"
bon_csv2html <"$TEST_DIR/md0.csv" >"$TEST_DIR/md0.html" 2>"$TEST_DIR/csv2html.err" || fail "bon_csv2html failed"
[ -s "$TEST_DIR/csv2html.err" ] && fail "bon_csv2html complained: $(cat "$TEST_DIR/csv2html.err")"
assert_contains "$(tr A-Z a-z <"$TEST_DIR/md0.html")" "<table" "bon_csv2html's table"
udevadm settle --timeout=30 || true
no_benchd_arrays || fail "benchd's arrays left after the md-raid0 job: $(show_md)"
no_md_superblocks "$D1" "$D2" || fail "the md-raid0 job left md superblocks on vdc or vdd"
echo "### benchctl compare --job $job (ext3 vs ext4-from-ext3 vs ext4 on md-raid0 of vdc, vdd, --chunk=64K; bonnie profile, size=1M file_count=256)"
benchctl compare --job "$job"
echo "### benchctl export --format=bonnie-csv --job $job"
cat "$TEST_DIR/md0.csv"

log "6a. kill -9 of the worker inside mdadm --create"
# The worker runs the first of /usr/sbin, /usr/bin, /sbin and /bin that has mdadm, in a root of its
# own that holds only that program and what it loads (toolroot.h). A script there in place of mdadm
# holds a --create of benchd's arrays until the worker is killed: it reads from its own output pipe
# (opened again through /proc/self/fd, as a FIFO), which nothing writes to, and dies with the worker
# (the sandbox's parent-death signal). Every other call (the guest's udev rules run mdadm -I) goes
# to the real mdadm, which the worker's root would not hold.
MDADM=/usr/sbin/mdadm
[ -x "$MDADM" ] && [ ! -e "$MDADM.real" ] || fail "no $MDADM to stand in for, or $MDADM.real exists already"
mv "$MDADM" "$MDADM.real"
defer sh -c '[ ! -e "$1.real" ] || mv -f "$1.real" "$1"' sh "$MDADM"
cat >"$MDADM" <<'SH'
#!/bin/sh
# benchd's test stand-in (guest-layouts.sh): a --create of benchd's arrays holds until killed.
case "$1 $2" in
"--create /dev/md/benchd-"[1-9]*)     # a job's array; not the option trial's benchd-0-0
        read -r _ </proc/self/fd/1
        while :; do :; done ;;
esac
exec /usr/sbin/mdadm.real "$@"
SH
chmod 0755 "$MDADM"
id=$(benchctl submit --workload write --set filesystems=ext4 --set layout=md-raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=4M --set md_resync=assume-clean | awk '{print $NF}' | tr -dc '0-9')
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
in_create() { pgrep -f -- "--create /dev/md/benchd-$id-0 " >/dev/null; }
wait_for 120 in_create || fail "job $id's worker never ran mdadm --create: $(sql "select state, error from jobs where id = $id")"
held=$(pgrep -f -- "--create /dev/md/benchd-$id-0 ")
pids=$(worker_pids)
[ -n "$pids" ] || fail "no worker to kill"
log "job $id: the worker ($pids) is inside mdadm --create ($held: $(tr '\0' ' ' </proc/"$held"/cmdline))"
# shellcheck disable=SC2086
kill -9 $pids
job_failed() { [ "$(sql "select state from jobs where id = $id")" = failed ]; }
wait_for 60 job_failed || fail "job $id did not fail after kill -9 of its worker inside mdadm"
log "job $id: $(sql "select error from jobs where id = $id")"
wait_for 60 eval "! in_create" || fail "the mdadm of the killed worker outlived it: $(pgrep -af mdadm)"
mv -f "$MDADM.real" "$MDADM"
stop_benchd
start_benchd --config="$CONF"
udevadm settle --timeout=30 || true
no_benchd_arrays || fail "an array is assembled after the worker killed inside mdadm and the restart: $(show_md)"
disks_free || fail "vdc or vdd held after the worker killed inside mdadm and the restart: $(show_md)"
out=$(benchctl run --workload write --set filesystems=ext4 --set layout=md-raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=4M --set md_resync=assume-clean 2>&1) ||
        fail "the job after the worker killed inside mdadm failed: $out $(tail -n 20 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded|benchd-$job-0" "$(sql "select j.state, r.md_array from jobs j join runs r on r.job_id = j.id
        where j.id = $job")" "the job on vdc and vdd after the worker killed inside mdadm"
udevadm settle --timeout=30 || true
no_benchd_arrays || fail "the job after the kill inside mdadm left an array: $(show_md)"

log "6. kill -9 of the worker while its array resyncs, of benchd while a worker waits on its array"
slow_resync() {
        SPEED_MIN=$(cat /proc/sys/dev/raid/speed_limit_min) SPEED_MAX=$(cat /proc/sys/dev/raid/speed_limit_max)
        defer eval "echo $SPEED_MIN >/proc/sys/dev/raid/speed_limit_min; echo $SPEED_MAX >/proc/sys/dev/raid/speed_limit_max"
        echo 100 >/proc/sys/dev/raid/speed_limit_min
        echo 100 >/proc/sys/dev/raid/speed_limit_max
}
resyncing() { grep -q resync /proc/mdstat; }
slow_resync
id=$(benchctl submit --workload write --set filesystems=ext4 --set layout=md-raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=4M | awk '{print $NF}' | tr -dc '0-9')
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
wait_for 120 resyncing || fail "job $id's array does not resync: $(show_md) $(sql "select state, error from jobs where id = $id")"
show_md >&2
pids=$(worker_pids)
[ -n "$pids" ] || fail "no worker to kill"
# shellcheck disable=SC2086
kill -9 $pids
job_failed() { [ "$(sql "select state from jobs where id = $id")" = failed ]; }
wait_for 60 job_failed || fail "job $id did not fail after kill -9 of its worker"
log "job $id: $(sql "select error from jobs where id = $id")"
udevadm settle --timeout=30 || true
wait_for 30 no_benchd_arrays || fail "the killed worker's array is still assembled: $(show_md) $(tail -n 20 "$BENCHD_LOG")"
disks_free || fail "vdc or vdd still held after the killed worker: $(show_md)"
assert_contains "$(cat "$BENCHD_LOG")" "md array benchd-$id-0 (/dev/md" "benchd's note of the array it stopped"

id=$(benchctl submit --workload write --set filesystems=ext4 --set layout=md-raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=4M | awk '{print $NF}' | tr -dc '0-9')
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
wait_for 120 resyncing || fail "job $id's array does not resync: $(show_md)"
pids=$(worker_pids)
stop_benchd KILL
# The worker dies with benchd or fails on its own; what it leaves is benchd's to stop at start-up.
for p in $pids; do wait_for 60 eval "! kill -0 $p 2>/dev/null" || fail "worker $p outlived benchd by a minute"; done
show_md >&2
start_benchd --config="$CONF"
# benchd loads what its previous life left after it owns its name: its note comes when it is done.
logged_startup_stop() { grep -q "stopped it at start-up" "$BENCHD_LOG"; }
wait_for 30 logged_startup_stop ||
        fail "benchd's note of the array it stopped at start-up is missing: $(show_md) $(tail -n 20 "$BENCHD_LOG")"
# The killed worker's members keep their superblock: the guest's udev rules (mdadm -I on a change of
# a linux_raid_member) may assemble them again once benchd released them; benchd stops that too,
# when udev reports the md device.
udevadm settle --timeout=30 || true
wait_for 30 no_benchd_arrays || fail "an array of benchd's is assembled 30 s after the restart: $(show_md) $(tail -n 20 "$BENCHD_LOG")"
disks_free || fail "vdc or vdd still held after the restart: $(show_md)"
grep -a "md array" "$BENCHD_LOG" >&2 || true
cat /proc/mdstat >&2
# md's own resync speed again for what follows (slow_resync's defer restores it at the end too).
echo "$SPEED_MIN" >/proc/sys/dev/raid/speed_limit_min
echo "$SPEED_MAX" >/proc/sys/dev/raid/speed_limit_max

log "7. md-raid5 over vdc, vdd and vde, md-raid10 over vdc and vdd"
for spec in "md-raid5 $D1,$D2,$D3 assume-clean" "md-raid10 $D1,$D2 wait"; do
        read -r layout devs resync <<<"$spec"
        out=$(benchctl run --workload write --set filesystems=ext4 --set layout="$layout" --set devices="$devs" \
                --set destructive=true --set size=8M --set md_resync="$resync" 2>&1) ||
                fail "the $layout job failed: $out $(tail -n 20 "$BENCHD_LOG")"
        job=$(sql "select max(id) from jobs")
        assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the $layout job"
        assert_eq "$layout|benchd-$job-0|$resync" "$(sql "select layout, md_array, md_resync from runs where job_id = $job")" \
                "the $layout run's array"
        level=${layout#md-raid}
        cmd=$(sql "select json_extract(layout_commands, '\$[0].command') from runs where job_id = $job")
        assert_contains "$cmd" "mdadm --create /dev/md/benchd-$job-0 --config=none --homehost=benchd --run --level=$level" \
                "the $layout run's mdadm command"
        assert_contains "$(sql "select json_extract(layout_commands, '\$[#-1].command') from runs where job_id = $job")" \
                "mdadm --zero-superblock" "the $layout run's release"
        chunk=$(sql "select md_chunk_bytes from runs where job_id = $job")
        [ "$chunk" -gt 0 ] || fail "the $layout run records no chunk size ($chunk)"
        log "$layout: chunk $chunk bytes, resync $(sql "select md_resync_usec from runs where job_id = $job") us"
        udevadm settle --timeout=30 || true
        no_benchd_arrays || fail "the $layout job left an array: $(show_md)"
        # shellcheck disable=SC2086
        no_md_superblocks ${devs//,/ } || fail "the $layout job left md superblocks"
done
log "ok"

log "8. ext4 against btrfs on md-raid1 of partition 1 of vdc and vdd, against partition 2 (the seed's md0 and md1; dd profile)"
out=$(benchctl run --profile dd --set filesystems=ext4,btrfs --set layout=md-raid1 --set partitions=2 \
        --set devices="$D1,$D2" --set destructive=true --set size=8M --set md_resync=assume-clean 2>&1) ||
        fail "the md-raid1 job over partitions failed: $out $(tail -n 30 "$BENCHD_LOG")"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "the md-raid1 job over partitions"
assert_eq 4 "$(sql "select count(distinct md_array) from runs where job_id = $job")" "an array per filesystem and partition"
for p in 1 2; do
        creates="json_extract(layout_commands, '\$[0].command') like 'mdadm --create%'"
        assert_eq 2 "$(sql "select count(distinct md_array) from runs where job_id = $job and partition = $p and $creates")" \
                "partition $p's arrays made"
        assert_eq 0 "$(sql "select count(*) from runs where job_id = $job and partition = $p and $creates and
                json_extract(layout_commands, '\$[0].command') not like '%/dev/vdc$p /dev/vdd$p%'")" \
                "partition $p's arrays made of partition $p of each disk"
done
udevadm settle --timeout=30 || true
no_benchd_arrays || fail "the md-raid1 job over partitions left an array: $(show_md)"
echo "### benchctl compare --job $job (ext4 vs btrfs on md-raid1 of partition 1 vs partition 2 of vdc, vdd; dd profile, size=8M)"
benchctl compare --job "$job"
log "ok"

log "9. a member of the array failed during the run: the step fails, naming the array, and nothing is stored as its figure"
id=$(benchctl submit --workload write --set filesystems=ext4 --set layout=md-raid1 --set devices="$D1,$D2" \
        --set destructive=true --set size=8M --set runtime_ms=30000 --set md_resync=assume-clean |
        awk '{print $NF}' | tr -dc '0-9')
[ -n "$id" ] || id=$(sql "select max(id) from jobs")
# FS_INFO comes once the array is made, its md/degraded read, and the filesystem mounted: from then on
# the worker writes for 30 s.
fs_ready() { grep -q "job $id step 0 worker\[[0-9]*\]: ext4 filesystem .* ready" "$BENCHD_LOG"; }
wait_for 120 fs_ready || fail "job $id's filesystem never came ready: $(sql "select state, error from jobs where id = $id")"
# The array's node is the worker's root's (no /dev/md/ name here): the holder of vdc.
md=$(ls /sys/class/block/vdc/holders)
[ -n "$md" ] || fail "job $id's filesystem is ready, but nothing holds vdc: $(show_md)"
mdadm "/dev/$md" --fail "$D2" >>"$TEST_DIR/mdadm.log" 2>&1 ||
        fail "mdadm --fail $D2 of $md (benchd-$id-0) failed: $(tail -n 5 "$TEST_DIR/mdadm.log")"
cat /proc/mdstat >&2
job_failed() { [ "$(sql "select state from jobs where id = $id")" = failed ]; }
wait_for 120 job_failed || fail "job $id did not fail after a member of its array failed: $(sql "select state, error from jobs where id = $id")"
err=$(sql "select error from jobs where id = $id")
log "job $id: $err"
assert_contains "$err" "lost a member during the run (md/degraded went from 0 to 1" "the failed job's error"
assert_eq 0 "$(sql "select count(*) from runs where job_id = $id and status = 'succeeded'")" "job $id's runs stored as succeeded"
udevadm settle --timeout=30 || true
wait_for 30 no_benchd_arrays || fail "job $id left its array: $(show_md)"
disks_free || fail "vdc or vdd still held after job $id: $(show_md)"
log "ok"
