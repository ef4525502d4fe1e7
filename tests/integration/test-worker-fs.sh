#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Filesystem steps of benchd-worker (daemon/worker/fsprep.c), driven over the protocol as benchd
# drives them: SPEC without target, FS_SETUP, then FS_INFO and the step's frames. On loop
# devices backed by image files in the test's directory:
#   - ext4, xfs and btrfs (raid1 over two devices) made (MAKE) and a short write run on them:
#     RESULT, FS_INFO as benchd's plausibility rules want it, blkid shows the new filesystem, and
#     the test's own mountinfo never shows the device, during the step or after;
#   - MOUNT of what a MAKE made, with the right UUID (works) and a wrong one (EPERM);
#   - refusals before anything is written: a member that is not scratch and carries ext4, one that
#     is mounted, one with another disk sequence number, a SPEC with a target guard, one that names
#     filesystems= (benchd's to resolve) (sha256 of the device unchanged where that matters);
#   - mkfs failing on its options (the ERROR quotes it), and the sandbox: options that would make
#     mke2fs or mkfs.xfs write to another file or device cannot (the file is neither created nor
#     changed; the same option without the sandbox does create it);
#   - SIGTERM mid-step (ERROR ECANCELED) and kill -9 mid-step: afterwards no mountinfo of any
#     process shows the device and it can be claimed exclusively again;
#   - benchd-worker --try-mkfs with good and bad options.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

require_root
require_cmd losetup blkid mkfs.ext4 mkfs.xfs mkfs.btrfs findmnt python3 sha256sum wipefs
require_loop
require_fs ext4 xfs btrfs
[ -x "$WORKER_BIN" ] || fail "$WORKER_BIN is not built (BUILD_ROOT=$BUILD_ROOT)"

# Outside /tmp: inside the worker's namespace a tmpfs of its own hides /tmp, so a file there
# could not prove anything about the sandbox.
VICTIM_DIR=$(mktemp -d /var/tmp/benchd-worker-fs.XXXXXX)
defer rm -rf --one-file-system "$VICTIM_DIR"

WRITE="workload=write
size=8M
block_size=32K
direct=true"

# The daemon's side of one step: prints a JSON summary of what the worker sent, and checks the
# worker kept to what benchd accepts of a filesystem step (FS_INFO first and once, its fields).
cat >"$TEST_DIR/fs_step.py" <<'EOF'
import argparse, glob, json, os, signal, struct, sys, time
sys.path.insert(0, os.environ["PROTO_DIR"])
from worker_proto import *

ap = argparse.ArgumentParser()
ap.add_argument("worker")
ap.add_argument("--fs", required=True)
ap.add_argument("--stage", choices=["make", "mount"], default="make")
ap.add_argument("--member", action="append", required=True, help="PATH[:noscratch][:diskseq=N]")
ap.add_argument("--layout", default="single")
ap.add_argument("--mkfs-options", default="")
ap.add_argument("--mount-options", default="")
ap.add_argument("--uuid", default="")
ap.add_argument("--spec", required=True)
ap.add_argument("--guard", action="store_true", help="a block guard in the SPEC, which must be refused")
ap.add_argument("--signal-after-sample", type=int, default=0)
a = ap.parse_args()

members = []
for m in a.member:
    path, *flags = m.split(":")
    seq = None
    for f in flags:
        if f.startswith("diskseq="):
            seq = int(f.split("=")[1])
    members.append(member(path, 0 if "noscratch" in flags else GUARD_SCRATCH, seq))
devnums = {f"{os.major(d)}:{os.minor(d)}" for _, d, _, _ in members}

def host_mounts():
    """Lines of our mountinfo (the test shell's namespace) that name a member."""
    return [l for l in open("/proc/self/mountinfo") if l.split()[2] in devnums]

w = Worker(a.worker)
t, pl = w.frame()
assert t == HELLO, t
spawn = time.monotonic()
guard = (GUARD_BLOCK, GUARD_SCRATCH, members[0][1], 0, 0) if a.guard else (GUARD_NONE, 0, 0, 0, 0)
w.send_spec(9, 1, a.spec + "\n", guard)
w.send_fs_setup(FS_STAGE_MAKE if a.stage == "make" else FS_STAGE_MOUNT, a.fs, members, a.layout,
                a.mkfs_options, a.mount_options, a.uuid)

out = {"phases": [], "samples": 0, "fs_info": None, "error": None, "result": False, "types": [],
       "host_mounts": [], "worker_mounts": []}
while (f := w.frame()) is not None:
    t, pl = f
    out["types"].append(t)
    if t == FS_INFO:
        assert out["fs_info"] is None, "FS_INFO twice"
        assert not out["phases"] and not out["samples"], "FS_INFO after the step began"
        info = decode_fs_info(pl)
        out["fs_info"] = info
        # benchd's rules (proto_fs_info_plausible()): the type asked for, sizes consistent, at MAKE
        # a UUID, mkfs.<fs> and a time within the worker's life, at MOUNT the UUID asked for.
        assert info["fs_type"] == a.fs, info
        assert info["used_bytes"] <= info["size_bytes"] and info["avail_bytes"] <= info["size_bytes"], info
        assert info["inodes_free"] <= info["inodes"], info
        if a.stage == "make":
            assert info["uuid"] and info["mkfs_command"].split()[0] == f"mkfs.{a.fs}", info
            assert info["mkfs_usec"] <= (time.monotonic() - spawn) * 1e6 + 1e6, info
        else:
            assert info["uuid"] == a.uuid and not info["mkfs_command"] and not info["mkfs_usec"], info
        # Mounted now: in the worker's namespace, and not in ours.
        out["host_mounts"] += host_mounts()
        out["worker_mounts"] = [l for l in open(f"/proc/{w.proc.pid}/mountinfo") if l.split()[2] in devnums
                                or "benchd-fs" in l]
    elif t == PHASE:
        assert out["fs_info"] is not None, "PHASE before FS_INFO"
        out["phases"].append(pl[8:].decode())
    elif t == SAMPLE:
        out["samples"] += 1
        out["host_mounts"] += host_mounts()
        if a.signal_after_sample and out["samples"] == 1:
            os.kill(w.proc.pid, a.signal_after_sample)
    elif t == ERROR:
        out["error"] = list(decode_error(pl))
    elif t == RESULT:
        out["result"] = True
out["rc"] = w.proc.wait()
out["host_mounts"] += host_mounts()
print(json.dumps(out))
EOF

# fs_step ARGS...: runs one step; $STEP holds the JSON summary.
fs_step() {
        STEP=$(PROTO_DIR="$(dirname "$0")" python3 "$TEST_DIR/fs_step.py" "$WORKER_BIN" "$@") ||
                fail "the step $* did not keep to the protocol"
}

step() {
        json_get "$1" <<<"$STEP"
}

# expect_made FS: the step made FS, ran the write, and nothing of it showed up on the host.
expect_made() {
        local fs=$1
        assert_eq 0 "$(step 'd["rc"]')" "exit status of the $fs step ($(step 'd["error"]'))"
        assert_eq True "$(step 'd["result"]')" "RESULT of the $fs step"
        assert_eq '["measure", "cleanup"]' "$(step 'd["phases"]')" "phases of the $fs step"
        assert_eq "[]" "$(step 'd["host_mounts"]')" "mounts of the $fs step's device in the test's namespace"
        assert_ne "[]" "$(step 'd["worker_mounts"]')" "the $fs filesystem in the worker's own mountinfo"
        assert_eq True "$(step 'd["fs_info"]["used_bytes"] < d["fs_info"]["size_bytes"]')" "used < size ($fs)"
        assert_contains "$(step 'd["fs_info"]["mount_options"]')" "nosuid,nodev" "mount options ($fs)"
}

# no_mount_anywhere DEV: no process's mountinfo names it, findmnt does not know it, and it can be
# claimed exclusively (nothing holds it).
no_mount_anywhere() {
        local dev=$1 majmin i
        majmin=$(printf '%d:%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")
        for ((i = 0; i < 100; i++)); do
                if ! grep -qs " $majmin " /proc/[0-9]*/mountinfo; then
                        break
                fi
                sleep 0.1
        done
        if grep -s " $majmin " /proc/[0-9]*/mountinfo; then
                fail "$dev ($majmin) is still mounted somewhere"
        fi
        assert_eq "" "$(findmnt -n --source "$dev" || true)" "findmnt --source $dev"
        python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL))' "$dev" ||
                fail "$dev cannot be opened exclusively: something still holds it"
}

make_loop 320M
A=$LOOP_DEV
make_loop 320M
B=$LOOP_DEV

log "ext4: made, written to, and only the worker saw it mounted"
dd if=/dev/urandom of="$A" bs=1M count=4 status=none conv=fsync
fs_step --fs ext4 --member "$A" --spec "$WRITE"
expect_made ext4
assert_eq "mkfs.ext4 /dev/$(basename "$A")" "$(step 'd["fs_info"]["mkfs_command"]')" "mkfs_command"
assert_contains "$(step 'd["fs_info"]["mkfs_output"]')" "Writing superblocks" "mkfs_output"
assert_not_contains "$(step 'd["fs_info"]["mkfs_output"]')" "?" "mkfs_output (progress counters rendered)"
UUID_A=$(step 'd["fs_info"]["uuid"]')
assert_eq "ext4 $UUID_A" "$(blkid -o value -s TYPE "$A") $(blkid -o value -s UUID "$A")" "blkid of $A"
no_mount_anywhere "$A"

log "xfs and a mount option"
fs_step --fs xfs --member "$A" --mount-options noatime --spec "$WRITE"
expect_made xfs
assert_contains "$(step 'd["fs_info"]["mount_options"]')" "noatime" "xfs mount options"
assert_eq xfs "$(blkid -o value -s TYPE "$A")" "blkid TYPE of $A"
no_mount_anywhere "$A"

log "btrfs raid1 over two devices"
fs_step --fs btrfs --layout raid1 --member "$A" --member "$B" --spec "$WRITE"
expect_made btrfs
assert_eq "mkfs.btrfs -d raid1 -m raid1 /dev/$(basename "$A") /dev/$(basename "$B")" \
        "$(step 'd["fs_info"]["mkfs_command"]')" "btrfs mkfs_command"
UUID_R=$(step 'd["fs_info"]["uuid"]')
for d in "$A" "$B"; do
        assert_eq "btrfs $UUID_R" "$(blkid -o value -s TYPE "$d") $(blkid -o value -s UUID "$d")" "blkid of $d"
done
if command -v btrfs >/dev/null; then
        assert_contains "$(btrfs filesystem show "$UUID_R")" "Total devices 2" "btrfs filesystem show"
fi
no_mount_anywhere "$A"
no_mount_anywhere "$B"

log "MOUNT of what MAKE made: the right UUID, then a wrong one"
fs_step --fs btrfs --layout raid1 --stage mount --uuid "$UUID_R" --member "$A" --member "$B" --spec "$WRITE"
assert_eq 0 "$(step 'd["rc"]')" "exit status of the MOUNT step ($(step 'd["error"]'))"
assert_eq True "$(step 'd["result"]')" "RESULT of the MOUNT step"
assert_eq "[]" "$(step 'd["host_mounts"]')" "host mounts of the MOUNT step"
assert_eq "$UUID_R" "$(blkid -o value -s UUID "$A")" "UUID of $A after the MOUNT step (not made again)"
sum=$(sha256sum <"$A")
fs_step --fs btrfs --layout raid1 --stage mount --uuid "00000000-1111-2222-3333-444444444444" --member "$A" \
        --member "$B" --spec "$WRITE"
assert_eq 1 "$(step 'd["rc"]')" "exit status of a MOUNT of another UUID"
assert_eq 1 "$(step 'd["error"][0]')" "errno of a MOUNT of another UUID (EPERM)"
assert_contains "$(step 'd["error"][1]')" "not the btrfs filesystem 00000000-1111-2222-3333-444444444444" \
        "message of a MOUNT of another UUID"
assert_eq "[7]" "$(step 'd["types"]')" "frames of a refused MOUNT (only ERROR)"
assert_eq "$sum" "$(sha256sum <"$A")" "sha256 of $A after a refused MOUNT"

log "refused before anything is written: a signature on a device that is not scratch"
mkfs.ext4 -q -F "$B" >/dev/null
sum=$(sha256sum <"$B")
fs_step --fs xfs --member "$B:noscratch" --spec "$WRITE"
assert_eq 1 "$(step 'd["error"][0]')" "errno of a MAKE over ext4 (EPERM)"
assert_contains "$(step 'd["error"][1]')" "carries an ext4 signature now" "message of a MAKE over ext4"
assert_eq "$sum" "$(sha256sum <"$B")" "sha256 of $B after the refusal"
assert_eq ext4 "$(blkid -o value -s TYPE "$B")" "blkid TYPE of $B after the refusal"

log "... a mounted member, another disk sequence number, a SPEC with a target guard"
mkdir -p "$TEST_DIR/mntB"
mount -o ro,noload "$B" "$TEST_DIR/mntB"
defer umount_retry "$TEST_DIR/mntB"
fs_step --fs ext4 --member "$B" --spec "$WRITE"
assert_eq 1 "$(step 'd["error"][0]')" "errno for a mounted member (EPERM)"
assert_contains "$(step 'd["error"][1]')" "is in use" "message for a mounted member"
umount_retry "$TEST_DIR/mntB"
assert_eq "$sum" "$(sha256sum <"$B")" "sha256 of $B after the refusals"
seq=$(cat "/sys/class/block/$(basename "$B")/diskseq")
fs_step --fs ext4 --member "$B:diskseq=$((seq + 1000))" --spec "$WRITE"
assert_eq 1 "$(step 'd["error"][0]')" "errno for another diskseq (EPERM)"
assert_contains "$(step 'd["error"][1]')" "is not the device benchd checked" "message for another diskseq"
fs_step --fs ext4 --member "$B" --guard --spec "$WRITE"
assert_eq 22 "$(step 'd["error"][0]')" "errno for a SPEC guard in a filesystem step (EINVAL)"
assert_contains "$(step 'd["error"][1]')" "carries no target guard" "message for a SPEC guard"
# The matrix is benchd's to resolve: a SPEC that still names it is refused before anything is touched.
fs_step --fs ext4 --member "$B" --spec "filesystems=ext4
$WRITE"
assert_eq 22 "$(step 'd["error"][0]')" "errno for a SPEC with filesystems= (EINVAL)"
assert_contains "$(step 'd["error"][1]')" "carries filesystems, which benchd resolves" "message for filesystems="
assert_eq "$sum" "$(sha256sum <"$B")" "sha256 of $B after every refusal"

log "mkfs rejecting its options: the ERROR quotes it"
fs_step --fs ext4 --member "$A" --mkfs-options "-O no_such_feature" --spec "$WRITE"
assert_eq 22 "$(step 'd["error"][0]')" "errno of a failed mkfs (EINVAL)"
assert_contains "$(step 'd["error"][1]')" "mkfs.ext4 failed (exit 1): " "message of a failed mkfs"
assert_contains "$(step 'd["error"][1]')" "no_such_feature" "message of a failed mkfs"
assert_eq "[7]" "$(step 'd["types"]')" "frames of a failed mkfs (only ERROR)"

log "the sandbox: mke2fs -z and mkfs.xfs -l logdev= cannot reach other files or devices"
# The control: without the sandbox, -z does create the undo file.
mke2fs -q -F -z "$VICTIM_DIR/control.e2undo" "$A" >/dev/null 2>&1 || true
[ -s "$VICTIM_DIR/control.e2undo" ] || fail "mke2fs -z outside the sandbox did not create its undo file"
printf 'precious\n' >"$VICTIM_DIR/existing"
sum_victim=$(sha256sum <"$VICTIM_DIR/existing")
for undo in "$VICTIM_DIR/new.e2undo" "$VICTIM_DIR/existing"; do
        fs_step --fs ext4 --member "$A" --mkfs-options "-z $undo" --spec "$WRITE"
        log "mke2fs -z $undo: $(step 'd["error"]')"
        assert_eq None "$(step 'd["fs_info"]')" "FS_INFO of mkfs -z $undo"
        assert_eq 22 "$(step 'd["error"][0]')" "errno of mkfs -z $undo (EINVAL)"
done
[ ! -e "$VICTIM_DIR/new.e2undo" ] || fail "mke2fs in the sandbox created $VICTIM_DIR/new.e2undo"
assert_eq "$sum_victim" "$(sha256sum <"$VICTIM_DIR/existing")" "sha256 of $VICTIM_DIR/existing"
dd if=/dev/urandom of="$B" bs=1M count=16 status=none conv=fsync
sum=$(sha256sum <"$B")
fs_step --fs xfs --member "$A" --mkfs-options "-l logdev=$B,size=2m" --spec "$WRITE"
log "mkfs.xfs -l logdev=$B: $(step 'd["error"]')"
assert_contains "$(step 'd["error"][1]')" "$B" "message of mkfs.xfs -l logdev=$B"
assert_eq 22 "$(step 'd["error"][0]')" "errno of mkfs.xfs -l logdev=$B (EINVAL)"
assert_eq "$sum" "$(sha256sum <"$B")" "sha256 of $B after mkfs.xfs -l logdev=$B"

log "SIGTERM mid-step: stopped, unmounted"
fs_step --fs ext4 --member "$A" --spec "workload=write
size=64M
block_size=64K
runtime_ms=20000
sample_ms=200" --signal-after-sample 15
assert_eq 125 "$(step 'd["error"][0]')" "errno after SIGTERM (ECANCELED)"
assert_eq 1 "$(step 'd["rc"]')" "exit status after SIGTERM"
assert_eq "[]" "$(step 'd["host_mounts"]')" "host mounts of the stopped step"
no_mount_anywhere "$A"

log "kill -9 mid-step: the namespace, and the mount, die with the worker"
fs_step --fs ext4 --member "$A" --spec "workload=write
size=64M
block_size=64K
runtime_ms=20000
sample_ms=200" --signal-after-sample 9
assert_eq -9 "$(step 'd["rc"]')" "exit status of the killed worker"
assert_ne "[]" "$(step 'd["worker_mounts"]')" "the filesystem in the killed worker's mountinfo"
assert_eq "[]" "$(step 'd["host_mounts"]')" "host mounts of the killed step"
no_mount_anywhere "$A"
losetup -d "$A"
wait_for 10 sh -c "! losetup '$A' >/dev/null 2>&1" || fail "$A could not be detached after the killed step"

log "--try-mkfs"
assert_success "--try-mkfs=ext4" "$WORKER_BIN" --try-mkfs=ext4
assert_success "--try-mkfs=xfs with options" "$WORKER_BIN" --try-mkfs=xfs --mkfs-options="-m crc=1 -i size=512"
assert_success "--try-mkfs=btrfs raid1" "$WORKER_BIN" --try-mkfs=btrfs --layout=raid1 --size=256M
run "$WORKER_BIN" --try-mkfs=ext4 --mkfs-options="-O no_such_feature"
assert_eq 1 "$RC" "exit status of --try-mkfs with a bad option"
assert_contains "$OUT" "mkfs.ext4 rejected the options '-O no_such_feature': " "--try-mkfs message"
run "$WORKER_BIN" --try-mkfs=xfs --mkfs-options="-Q"
assert_eq 1 "$RC" "exit status of --try-mkfs=xfs -Q"
assert_contains "$OUT" "mkfs.xfs rejected the options '-Q': mkfs.xfs: invalid option" "--try-mkfs=xfs message"
run "$WORKER_BIN" --try-mkfs=ext4 --mkfs-options="-z $VICTIM_DIR/try.e2undo"
[ ! -e "$VICTIM_DIR/try.e2undo" ] || fail "--try-mkfs created $VICTIM_DIR/try.e2undo"
run "$WORKER_BIN" --try-mkfs=EXT4
assert_eq 2 "$RC" "exit status of --try-mkfs=EXT4 (usage)"
run "$WORKER_BIN" --try-mkfs=ext4 --layout=raid1
assert_eq 2 "$RC" "exit status of --try-mkfs=ext4 --layout=raid1 (usage)"
run "$WORKER_BIN" --try-mkfs=ext4 --workload=write
assert_eq 2 "$RC" "exit status of --try-mkfs with a workload (usage)"
assert_eq "" "$(grep benchd-fs /proc/self/mountinfo || true)" "leftover mounts of --try-mkfs"

log "filesystem steps passed"
