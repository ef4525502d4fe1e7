#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# mkfs sees only its devices (issue 21, finding 3): `mkfs_options.ext4=-d /etc` once copied the
# host's /etc onto the device, `--rootdir /root` made the submit-time trial walk /root and name a
# file found there, and `-F -F` was accepted. Through the real daemon on loop devices:
#   1. options that read or write host paths, or name another device, refused at SubmitJob by
#      name in every spelling getopt takes (-d /etc, -d/etc, -qd DIR, --rootdir, --root=, -J
#      device=, -l logdev=, -p, -c options=, -z, -l FILE), over D-Bus (a{ss}) and by benchctl, the
#      message saying why and what is right; no job row, the devices' images unchanged (sha256);
#   2. force flags refused (-F, -F -F, -Fq, -f, -fq, --force, --fo);
#   3. the trial's message, for an option mkfs itself rejects with a path in its words, names no
#      absolute path but the trial's own images;
#   4. what the list could miss finds nothing of the host in mkfs's root: benchd-worker's own
#      --try-mkfs and a filesystem step over the worker protocol (the policy is benchd's, so the
#      worker takes these), with -d /etc, -d DIR, -l /etc/passwd and --rootdir DIR: nothing of
#      /etc or DIR reaches the device or the message (the same -d outside the root does copy DIR,
#      so the test can fail);
#   5. options next to refused ones (-L -F: a label; -E ...) still make and run the matrix, and the
#      filesystem holds nothing but lost+found.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfs.xfs mkfs.btrfs debugfs blkid sha256sum wipefs
require_loop
require_fs ext4 xfs btrfs
require_binaries

INVALID=org.benchd.Benchd1.Error.InvalidSpec

start_bus
start_monitor
start_udevd

make_loop 320M; L1=$LOOP_DEV; IMG1="$TEST_DIR/loop$_LOOP_N.img"
make_loop 64M; L2=$LOOP_DEV; IMG2="$TEST_DIR/loop$_LOOP_N.img"
wipefs -a -q "$L1"
dd if=/dev/urandom of="$L2" bs=1M count=4 status=none conv=fsync
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s\n' "$L1" >"$CONF"
start_benchd --config="$CONF"

# A directory of the host with a file whose name and content are this run's own: outside /tmp,
# which the worker hides behind a tmpfs of its own, so finding nothing there would prove nothing.
VICTIM_DIR=$(mktemp -d /var/tmp/benchd-safety-mkfs.XXXXXX)
defer rm -rf --one-file-system "$VICTIM_DIR"
MARKER="benchd-marker-$$-$RANDOM"
printf '%s\n' "$MARKER-content" >"$VICTIM_DIR/$MARKER"
printf 'proto\n' >"$VICTIM_DIR/proto"

images_sum() { sha256sum <"$IMG1" | cut -d' ' -f1; sha256sum <"$IMG2" | cut -d' ' -f1; }
SUMS=$(images_sum)
JOBS=$(sql "select count(*) from jobs")

# refused FS OPTIONS NEEDLE...: SubmitJob refuses a matrix job with these mkfs options (the map as
# a{ss}), its message saying each NEEDLE; benchctl, which reads --set with the same registry,
# refuses it before sending (exit 2) with the same words. No job is stored. (The error's name is
# checked once below, with the bus monitor.)
refused() {
        local fs=$1 opts=$2 needle bus_out
        shift 2
        run bus call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob 'a{sv}' 6 workload s write \
                filesystems as 1 "$fs" devices as 1 "$L1" destructive b true size s 8M \
                mkfs_options 'a{ss}' 1 "$fs" "$opts"
        [ "$RC" != 0 ] || fail "SubmitJob with mkfs_options.$fs='$opts' succeeded: $OUT"
        bus_out=$OUT
        assert_contains "$bus_out" "mkfs_options.$fs: " "SubmitJob with mkfs_options.$fs='$opts'"
        run benchctl submit --workload write --set filesystems="$fs" --set devices="$L1" --set destructive=true \
                --set size=8M --set "mkfs_options.$fs=$opts"
        [ "$RC" = 2 ] || fail "mkfs_options.$fs='$opts': benchctl exited $RC, expected 2 (invalid spec): $OUT"
        for needle in "$@"; do
                assert_contains "$bus_out" "$needle" "SubmitJob with mkfs_options.$fs='$opts'"
                assert_contains "$OUT" "$needle" "benchctl with mkfs_options.$fs='$opts'"
        done
        log "mkfs_options.$fs='$opts': $bus_out"
}

# ---- 1. host paths and other devices ----
log "1. options that read or write host paths, or name another device: refused by name"
refused ext4 "-d /etc" "-d copies a directory of the host onto the new filesystem" "leave -d out"
refused ext4 "-d/etc" "-d (in -d/etc) copies a directory of the host"
refused ext4 "-qd $VICTIM_DIR" "-d (in -qd) copies a directory of the host"
refused ext4 "-E lazy_itable_init=0 -d /root" "-d copies"
refused ext4 "-l /etc/passwd" "-l reads a bad-block list from a file of the host"
refused ext4 "-z $VICTIM_DIR/undo" "-z writes an undo file on the host" "nothing to undo"
refused ext4 "-J device=$L2" "-J with device=$L2 puts the journal on another device" "internal journal"
refused ext4 "-Jdevice=$L2" "-J (in -Jdevice=$L2)"
refused ext4 "-c" "-c runs badblocks(8)"
refused btrfs "--rootdir /root" "--rootdir copies a directory of the host" "leave -r/--rootdir out"
refused btrfs "--root=/root" "--rootdir (in --root=/root) copies"
refused btrfs "-r $VICTIM_DIR" "-r copies"
refused xfs "-p $VICTIM_DIR/proto" "-p reads a prototype file of the host"
refused xfs "-c options=$VICTIM_DIR/proto" "-c reads a configuration file of the host" "give the options themselves"
refused xfs "-l logdev=$L2,size=2m" "-l with logdev=$L2 puts the log on another device" "internal log"
refused xfs "-r rtdev=$L2" "-r with rtdev=$L2 puts a realtime section on another device"
refused xfs "-d name=$VICTIM_DIR/proto" "-d with name=$VICTIM_DIR/proto puts the data section"
refused ext4 "$L2" "'$L2' is not an option, and mke2fs would take it for a device"
refused ext4 "-L" "-L takes a value and none follows it"

# ---- 2. force flags ----
log "2. force flags: refused"
refused ext4 "-F" "-F forces mke2fs past its own safety checks" "no force flag is needed" "leave -F out"
refused ext4 "-F -F" "-F forces mke2fs"
refused ext4 "-Fq" "-F (in -Fq) forces mke2fs"
refused btrfs "-f" "-f forces mkfs.btrfs" "leave -f out"
refused btrfs "--force" "--force forces mkfs.btrfs"
refused btrfs "--fo" "--force (in --fo) forces mkfs.btrfs"
refused xfs "-f" "-f forces mkfs.xfs"
refused xfs "-fq" "-f (in -fq) forces mkfs.xfs"
# The error's name; two entries, the second refused.
FS=(workload s write filesystems as 2 ext4 xfs devices as 1 "$L1" destructive b true size s 8M)
call_error SubmitJob 'a{sv}' 6 "${FS[@]}" mkfs_options 'a{ss}' 1 ext4 "-d /etc"
assert_contains "$ERR" "$INVALID: mkfs_options.ext4: -d copies a directory of the host" "a{ss} with -d /etc"
call_error SubmitJob 'a{sv}' 6 "${FS[@]}" mkfs_options 'a{ss}' 2 ext4 "-E lazy_itable_init=0" xfs "-K -f"
assert_contains "$ERR" "$INVALID: mkfs_options.xfs: -f forces mkfs.xfs" "a{ss} with -f"

assert_eq "$JOBS" "$(sql "select count(*) from jobs")" "job rows after the refusals"
assert_eq "$SUMS" "$(images_sum)" "sha256 of the loop images after the refusals"
assert_eq "" "$(blkid -p -o value -s TYPE "$L1" || true)" "what $L1 carries after the refusals"

# ---- 3. the trial's message ----
log "3. the trial's message names no host path"
# no_host_path TEXT WHAT: every absolute path in TEXT is one of the trial's images.
no_host_path() {
        local paths
        paths=$(grep -oE "(^|[[:space:]'\"(=,:])/[^[:space:]'\"),;]+" <<<"$1" | sed -E "s/^[[:space:]'\"(=,:]//" |
                grep -v '^/tmp/images/member[0-9]*\.img' || true)
        assert_eq "" "$paths" "absolute paths in $2"
}
run benchctl submit --workload write --set filesystems=ext4 --set devices="$L1" --set destructive=true \
        --set size=8M --set "mkfs_options.ext4=-t $VICTIM_DIR/$MARKER"
[ "$RC" = 2 ] || fail "-t with a path: benchctl exited $RC, expected 2: $OUT"
log "trial of -t PATH: $OUT"
assert_contains "$OUT" "mkfs_options.ext4: mkfs.ext4 rejected the options '-t <path>'" "the trial's message"
assert_contains "$OUT" "does not define the <path> filesystem type" "mke2fs's words, the path replaced"
assert_not_contains "$OUT" "$MARKER" "the trial's message"
assert_not_contains "$OUT" "$VICTIM_DIR" "the trial's message"
no_host_path "$OUT" "the trial's message for -t PATH"
run benchctl submit --workload write --set filesystems=xfs --set devices="$L1" --set destructive=true \
        --set size=8M --set "mkfs_options.xfs=-L /etc/$MARKER"
[ "$RC" = 2 ] || fail "-L with a path: benchctl exited $RC, expected 2: $OUT"
assert_contains "$OUT" "Invalid value <path> for -L option" "mkfs.xfs's words, the path replaced"
no_host_path "$OUT" "the trial's message for mkfs.xfs -L PATH"
# An option mkfs rejects on its own: the trial's image may be named, nothing else.
run benchctl submit --workload write --set filesystems=ext4 --set devices="$L1" --set destructive=true \
        --set size=8M --set "mkfs_options.ext4=-O no_such_feature"
[ "$RC" = 2 ] || fail "-O no_such_feature: benchctl exited $RC, expected 2: $OUT"
assert_contains "$OUT" "Invalid filesystem option set: no_such_feature" "mke2fs's words for -O no_such_feature"
no_host_path "$OUT" "the trial's message for -O no_such_feature"
assert_eq "$JOBS" "$(sql "select count(*) from jobs")" "job rows after the trials"
assert_eq "$SUMS" "$(images_sum)" "sha256 of the loop images after the trials"

# ---- 4. what the list could miss: mkfs's root holds nothing of the host ----
log "4. mkfs's root: the worker's own --try-mkfs and a filesystem step, given what benchd refuses"
# The control: outside the root, -d copies the directory (so the checks below can fail).
truncate -s 64M "$TEST_DIR/control.img"
mke2fs -q -F -d "$VICTIM_DIR" "$TEST_DIR/control.img" >/dev/null 2>&1 || fail "mke2fs -d outside the root failed"
assert_contains "$(debugfs -R "cat /$MARKER" "$TEST_DIR/control.img" 2>/dev/null)" "$MARKER-content" \
        "the control: mke2fs -d outside the root copies the directory"

run "$WORKER_BIN" --try-mkfs=ext4 --mkfs-options="-d /etc"
log "--try-mkfs=ext4 -d /etc: $OUT"
assert_eq 1 "$RC" "exit status of --try-mkfs=ext4 -d /etc"
assert_contains "$OUT" "No such file or directory" "--try-mkfs=ext4 -d /etc"
for name in passwd shadow hostname os-release fstab gshadow; do
        [ -e "/etc/$name" ] && assert_not_contains "$OUT" "$name" "--try-mkfs=ext4 -d /etc"
done
run "$WORKER_BIN" --try-mkfs=ext4 --mkfs-options="-l /etc/passwd"
log "--try-mkfs=ext4 -l /etc/passwd: $OUT"
assert_eq 1 "$RC" "exit status of --try-mkfs=ext4 -l /etc/passwd"
assert_not_contains "$OUT" "root:" "--try-mkfs=ext4 -l /etc/passwd"
assert_contains "$OUT" "No such file or directory" "--try-mkfs=ext4 -l /etc/passwd"
run "$WORKER_BIN" --try-mkfs=btrfs --mkfs-options="--rootdir $VICTIM_DIR"
log "--try-mkfs=btrfs --rootdir DIR: $OUT"
assert_eq 1 "$RC" "exit status of --try-mkfs=btrfs --rootdir DIR"
assert_not_contains "$OUT" "$MARKER" "--try-mkfs=btrfs --rootdir DIR"
assert_contains "$OUT" "No such file or directory" "--try-mkfs=btrfs --rootdir DIR"
run "$WORKER_BIN" --try-mkfs=xfs --mkfs-options="-p $VICTIM_DIR/proto"
assert_eq 1 "$RC" "exit status of --try-mkfs=xfs -p FILE ($OUT)"

# fs_step OPTIONS: a MAKE step of ext4 on $L1 over the worker protocol, as benchd would send it;
# prints the errno and message of its ERROR (or "none").
cat >"$TEST_DIR/fs_step.py" <<'EOF'
import os, sys
sys.path.insert(0, os.environ["PROTO_DIR"])
from worker_proto import *

w = Worker(sys.argv[1])
t, _ = w.frame()
assert t == HELLO, t
w.send_spec(7, 1, "workload=write\nsize=1M\nblock_size=32K\n")
w.send_fs_setup(FS_STAGE_MAKE, "ext4", [member(sys.argv[2])], "single", sys.argv[3])
err = None
for t, pl in w.frames():
    if t == ERROR:
        err = decode_error(pl)
w.proc.wait()
print("none" if err is None else f"{err[0]} {err[1]}")
EOF
fs_step() {
        PROTO_DIR="$(dirname "$0")" python3 "$TEST_DIR/fs_step.py" "$WORKER_BIN" "$L1" "$1"
}
for opts in "-d /etc" "-d $VICTIM_DIR" "-q -d /root"; do
        out=$(fs_step "$opts") || fail "the step with -d did not keep to the protocol"
        log "filesystem step with '$opts': $out"
        assert_contains "$out" "22 mkfs.ext4 failed" "the step with '$opts' (EINVAL, mkfs failed)"
        assert_contains "$out" "No such file or directory" "the step with '$opts'"
        assert_not_contains "$out" "$MARKER" "the step's message with '$opts'"
        listing=$(debugfs -R "ls -l /" "$L1" 2>/dev/null)
        for name in "$MARKER" passwd shadow hostname .bashrc; do
                assert_not_contains "$listing" "$name" "the root directory of $L1 after mkfs '$opts'"
        done
done

# ---- 5. what is allowed still runs ----
log "5. options beside the refused ones: made, run, and only lost+found on the filesystem"
out=$(benchctl run --workload write --set filesystems=ext4 --set devices="$L1" --set destructive=true \
        --set size=4M --set "mkfs_options.ext4=-L -F -E lazy_itable_init=0" 2>&1) ||
        fail "the matrix with -L -F (a label) failed: $out"
job=$(sql "select max(id) from jobs")
assert_eq "succeeded" "$(sql "select state from jobs where id = $job")" "state of the allowed matrix"
assert_eq "mkfs.ext4 -L -F -E lazy_itable_init=0 /dev/$(basename "$L1")" \
        "$(sql "select mkfs_command from runs where job_id = $job")" "its mkfs command"
assert_eq "-F" "$(blkid -o value -s LABEL "$L1")" "the label -F on $L1"
assert_eq "lost+found" "$(debugfs -R "ls /" "$L1" 2>/dev/null | tr -s ' \n' '\n' | grep -v '^\.\{1,2\}$' |
        grep -vE '^\(?[0-9]+\)?$|^$' | sort | tr '\n' ' ' | sed 's/ $//')" "what the filesystem on $L1 holds"

losetup -a | grep -q "$VICTIM_DIR" && fail "a loop device on $VICTIM_DIR"
assert_eq "" "$(grep -h "$(lsblk -dno MAJ:MIN "$L1" | tr -d ' ') " /proc/[0-9]*/mountinfo 2>/dev/null || true)" \
        "mounts of $L1 anywhere"
log "mkfs saw only its devices"
