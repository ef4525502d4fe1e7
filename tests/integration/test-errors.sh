#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Bad input is refused before anything is queued: every malformed SubmitJob gets a named error
# (org.benchd.Benchd1.Error.InvalidSpec or .NoSpace) whose message names the key at fault, the
# jobs table does not grow, nothing appears in the target directory, and a user's file is never
# touched. Pseudo filesystems (/proc, /sys, /dev) are InvalidSpec; a metadata job needing more
# inodes than are free is NoSpace (not on btrfs, whose inodes are dynamic); ids above INT64_MAX
# are NotFound; long caller input is quoted short. benchctl turns the same mistakes into non-zero
# exits with the message on stderr.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 setpriv findmnt
require_loop
require_fs ext4
require_binaries "$BENCHCTL_BIN"

start_bus
start_monitor
scratch_fs 256M
start_benchd

jobs_before=$(sql "select count(*) from jobs")
echo "precious" >"$SCRATCH_DIR/user-file"
sum_before=$(sha256sum <"$SCRATCH_DIR/user-file")

# expect_refused ERROR_NAME WORD TRIPLES...: SubmitJob with the triples must fail with ERROR_NAME
# and a message containing WORD; nothing may be queued or created.
expect_refused() {
        local name=$1 word=$2
        shift 2
        call_error SubmitJob 'a{sv}' $(($# / 3)) "$@"
        log "refused as expected: $ERR"
        assert_contains "$ERR" "$name: " "error name for SubmitJob($*)"
        assert_contains "$ERR" "$word" "error message for SubmitJob($*)"
        # The message is meant for a person: more than the key's name alone.
        [ ${#ERR} -gt $((${#name} + ${#word} + 12)) ] || fail "error message too terse: $ERR"
        assert_eq "$jobs_before" "$(sql "select count(*) from jobs")" "jobs rows after a refused SubmitJob($*)"
        assert_eq "u 0" "$(manager_prop QueueLength)" "QueueLength after a refused SubmitJob"
        assert_eq "" "$(benchd_files "$SCRATCH_DIR")" ".benchd-* files after a refused SubmitJob"
}

INVALID=org.benchd.Benchd1.Error.InvalidSpec
NOSPACE=org.benchd.Benchd1.Error.NoSpace
T="$SCRATCH_DIR"
ok=(workload s write size s 4M block_size s 32K)

expect_refused $INVALID bogus_key        target s "$T" "${ok[@]}" bogus_key s 1
expect_refused $INVALID "did you mean 'block_size'" target s "$T" workload s write size s 4M blok_size s 32K
expect_refused $INVALID size             target s "$T" workload s write block_size s 32K size b true
expect_refused $INVALID direct           target s "$T" "${ok[@]}" direct s maybe
expect_refused $INVALID target           target s relative/dir "${ok[@]}"
expect_refused $INVALID target           "${ok[@]}"
expect_refused $INVALID target           target s "$T/does-not-exist" "${ok[@]}"
expect_refused $INVALID target           target s "$T/user-file" "${ok[@]}"
expect_refused $INVALID target           target s "$T/user-file" "${ok[@]}" destructive b true
expect_refused $INVALID target           target u 7 "${ok[@]}"
expect_refused $INVALID size             target s "$T" workload s write block_size s 32K size s 0
expect_refused $INVALID size             target s "$T" workload s write block_size s 32K size x -4096
expect_refused $INVALID size             target s "$T" workload s write block_size s 32K size s 1000T
expect_refused $INVALID size             target s "$T" workload s write block_size s 32K size s lots
expect_refused $INVALID block_size       target s "$T" workload s write size s 4M block_size s 0
expect_refused $INVALID block_size       target s "$T" workload s write size s 4M block_size u 1000 direct b true
expect_refused $INVALID workload         target s "$T" workload s scribble size s 4M
expect_refused $INVALID sample_ms        target s "$T" "${ok[@]}" sample_ms u 5
expect_refused $INVALID queue_depth      target s "$T" "${ok[@]}" queue_depth u 100000
expect_refused $NOSPACE space            target s "$T" workload s write block_size s 1M size s 8G

assert_eq "$sum_before" "$(sha256sum <"$SCRATCH_DIR/user-file")" "content of a user's file in the target"

# Filesystem matrices: lists are 'as', maps 'a{ss}' (read as such: the refusal quotes their
# content), and the rules between the keys answer before any device is looked at (these do not exist).
FS=(workload s write filesystems as 2 ext4 btrfs devices as 2 /dev/benchd-no-a /dev/benchd-no-b destructive b true)
call_error SubmitJob 'a{sv}' 5 "${FS[@]}" mkfs_options 'a{ss}' 2 ext4 "-E lazy_itable_init=0" xfs -K
assert_contains "$ERR" "$INVALID: mkfs_options.xfs: xfs is not in filesystems (ext4, btrfs)" "a{ss} mkfs_options"
call_error SubmitJob 'a{sv}' 5 "${FS[@]}" layout s raid1
assert_contains "$ERR" "layout: raid1 is btrfs's own RAID and ext4 cannot do it" "layout=raid1 with ext4"
call_error SubmitJob 'a{sv}' 5 "${FS[@]}" mount_options s noatime
assert_contains "$ERR" "mount_options: expected a dictionary of strings" "mount_options of type s"
call_error SubmitJob 'a{sv}' 5 "${FS[@]}" mount_options 'a{sv}' 1 ext4 s noatime
assert_contains "$ERR" "spec key 'mount_options' has D-Bus type 'a{sv}'; it takes 'a{ss}'" "mount_options a{sv}"
call_error SubmitJob 'a{sv}' 5 "${FS[@]}" mount_options 'a{ss}' 9 a 1 b 1 c 1 d 1 e 1 f 1 g 1 h 1 i 1
assert_contains "$ERR" "mount_options: more than 8 entries" "an a{ss} of 9 entries"
call_error SubmitJob 'a{sv}' 3 target s "$T" "${ok[@]:0:3}" devices as 1 /dev/benchd-no-a
assert_contains "$ERR" "devices: applies to filesystem matrices" "devices without filesystems"
call_error SubmitJob 'a{sv}' 3 workload s write filesystems as 1 ext4 devices as 1 /dev/benchd-no-a
assert_contains "$ERR" "set destructive=true" "a matrix without destructive=true"
assert_eq "$jobs_before" "$(sql "select count(*) from jobs")" "jobs rows after refused matrices"

# A whole argument of the wrong D-Bus type is refused by the bus layer.
call_error SubmitJob s "$T"
assert_contains "$ERR" "org.freedesktop.DBus.Error.InvalidArgs" "SubmitJob(s)"

# Unknown ids.
call_error CancelJob t 999999
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotFound: " "CancelJob(999999)"
call_error GetRun t 999999
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotFound: " "GetRun(999999)"

# Ids are SQLite row ids: one above INT64_MAX names nothing, for every method that takes one.
for big in 9223372036854775808 18446744073709551615; do
        for call in "GetRun t $big" "GetSamples t $big" "GetSamplesPage ttu $big 0 0" "GetHistogram t $big" \
                "CancelJob t $big"; do
                # shellcheck disable=SC2086
                call_error $call
                assert_contains "$ERR" "org.benchd.Benchd1.Error.NotFound: " "$call"
                assert_contains "$ERR" "$big" "$call names the id"
                assert_contains "$ERR" "at most 9223372036854775807" "$call says the bound"
        done
done
log "ids above INT64_MAX: $ERR"

# Pseudo filesystems are not storage: InvalidSpec, not NoSpace (statvfs says 0 free on them).
for pseudo in /proc /sys /sys/kernel; do
        expect_refused $INVALID "not a filesystem benchd can benchmark" target s "$pseudo" "${ok[@]}"
        assert_contains "$ERR" "$pseudo" "the pseudo-filesystem error names the target"
done
expect_refused $INVALID "proc" target s /proc workload s metadata file_count u 10
if [ "$(findmnt -n -o FSTYPE --target /dev)" = devtmpfs ]; then
        expect_refused $INVALID "devtmpfs" target s /dev "${ok[@]}"
fi

# Caller input is quoted short, however long it is.
long=$(head -c 4000 /dev/zero | tr '\0' 'x')
expect_refused $INVALID target           target s "relative/$long" "${ok[@]}"
assert_contains "$ERR" "…" "a long relative target is cut"
[ ${#ERR} -lt 600 ] || fail "the message quotes ${#ERR} characters of a long target"
expect_refused $INVALID target           target s "$T/$long" "${ok[@]}"
[ ${#ERR} -lt 600 ] || fail "the message quotes ${#ERR} characters of a long missing target"
expect_refused $INVALID "unknown key" target s "$T" "${ok[@]}" "k$long" s 1
[ ${#ERR} -lt 1200 ] || fail "the message quotes ${#ERR} characters of a long key"
expect_refused $INVALID pattern          target s "$T" "${ok[@]}" pattern s "$long"
[ ${#ERR} -lt 600 ] || fail "the message quotes ${#ERR} characters of a long pattern"
expect_refused $INVALID profile          target s "$T" profile s "$long"
[ ${#ERR} -lt 600 ] || fail "the message quotes ${#ERR} characters of a long profile name"
call_error GetProfile s "$long"
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotFound: " "GetProfile of a long name"
[ ${#ERR} -lt 800 ] || fail "GetProfile quotes ${#ERR} characters of a long name"
call_error ListJobs 'a{sv}' 1 state s "$long"
[ ${#ERR} -lt 600 ] || fail "ListJobs quotes ${#ERR} characters of a long state"

# Inodes are checked like bytes: a filesystem with few of them refuses a metadata job needing more.
make_loop 128M
mkfs.ext4 -q -F -N 64 "$LOOP_DEV" >/dev/null
mkdir -p "$TEST_DIR/few-inodes"
mount "$LOOP_DEV" "$TEST_DIR/few-inodes"
defer umount_retry "$TEST_DIR/few-inodes"
FEW="$TEST_DIR/few-inodes"
free_inodes=$(stat -f -c %d "$FEW")
log "$FEW: $free_inodes inodes free"
expect_refused $NOSPACE "inodes free" target s "$FEW" workload s metadata file_count u 500 dirs u 4
assert_contains "$ERR" "needs 505" "the inode error says how many are needed"
assert_contains "$ERR" "file_count 500" "the inode error names file_count"
assert_contains "$ERR" "mkfs.ext4 -N" "the inode error says what would be right"
id=$(submit_busctl target s "$FEW" workload s metadata file_count u 20 dirs u 2) ||
        fail "a metadata job that fits the inodes was refused"
assert_eq succeeded "$(wait_job_removed "$id" 60)" "JobRemoved of the small metadata job"
assert_eq "" "$(benchd_files "$FEW")" ".benchd-* files after the small metadata job"
jobs_before=$(sql "select count(*) from jobs")
# btrfs allocates inodes on demand (f_files 0): no inode check there.
if ! have_fs btrfs || ! command -v mkfs.btrfs >/dev/null 2>&1; then
        log "not checked: a metadata job on btrfs (needs btrfs in the kernel and mkfs.btrfs)"
else
        make_loop 512M
        mkfs.btrfs -q -f "$LOOP_DEV" >/dev/null
        mkdir -p "$TEST_DIR/btrfs"
        mount "$LOOP_DEV" "$TEST_DIR/btrfs"
        defer umount_retry "$TEST_DIR/btrfs"
        assert_eq 0 "$(stat -f -c %c "$TEST_DIR/btrfs")" "f_files of btrfs"
        id=$(submit_busctl target s "$TEST_DIR/btrfs" workload s metadata file_count u 50000 dirs u 2) ||
                fail "a metadata job on btrfs was refused (f_files 0 must skip the inode check)"
        assert_success "CancelJob($id)" bus call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" CancelJob t "$id"
        wait_job_removed "$id" 60 >/dev/null
        no_files_on_btrfs() { [ -z "$(benchd_files "$TEST_DIR/btrfs")" ]; }
        wait_for 60 no_files_on_btrfs ||
                fail ".benchd-* files left on btrfs: $(benchd_files "$TEST_DIR/btrfs")"
        jobs_before=$(sql "select count(*) from jobs")
fi

# Only root submits (no polkit on this bus): nobody is refused by benchd itself, whatever the bus
# policy says (this test bus lets everyone call everything).
before=$(_benchd_errors | wc -l)
run setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$BUS_ADDRESS" call \
        "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" SubmitJob 'a{sv}' 4 target s "$T" "${ok[@]:0:9}"
[ "$RC" != 0 ] || fail "SubmitJob as nobody succeeded: $OUT"
nobody_error() { [ -n "$(_benchd_errors | sed -n "$((before + 1))p")" ]; }
wait_for 10 nobody_error || fail "SubmitJob as nobody failed ($OUT) but the monitor saw no error reply from benchd"
ERR=$(_benchd_errors | sed -n "$((before + 1))p")
log "nobody's SubmitJob: $ERR"
case "$ERR" in
org.freedesktop.DBus.Error.AccessDenied:* | org.freedesktop.DBus.Error.InteractiveAuthorizationRequired:*) ;;
*) fail "SubmitJob as nobody: expected AccessDenied, got '$ERR' ($OUT)" ;;
esac
assert_eq "$jobs_before" "$(sql "select count(*) from jobs")" "jobs rows after nobody's SubmitJob"
# ... but may read.
run setpriv --reuid=65534 --regid=65534 --clear-groups busctl --address="$BUS_ADDRESS" call \
        "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" ListJobs 'a{sv}' 0
assert_eq 0 "$RC" "ListJobs as nobody: $OUT"

# An ended job cannot be cancelled.
id=$(submit_busctl target s "$T" "${ok[@]}") || fail "a valid SubmitJob failed"
assert_eq succeeded "$(wait_job_removed "$id" 60)" "JobRemoved of the small job"
call_error CancelJob t "$id"
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotCancellable: " "CancelJob of an ended job"
jobs_before=$(sql "select count(*) from jobs")

# ---- benchctl: clear errors, non-zero exits ----
# expect_benchctl_fails EXIT WORD ARGS...: exit status EXIT (the documented codes: 1 failure,
# 2 usage, 3 benchd unreachable, 4 not found), WORD in the output, nothing queued.
expect_benchctl_fails() {
        local want=$1 word=$2
        shift 2
        run benchctl "$@"
        [ "$RC" = "$want" ] || fail "benchctl $* exited $RC, expected $want: $OUT"
        assert_contains "$OUT" "$word" "benchctl $*"
        log "benchctl $* -> exit $RC: $(head -n1 <<<"$OUT")"
        assert_eq "$jobs_before" "$(sql "select count(*) from jobs")" "jobs rows after benchctl $*"
}

expect_benchctl_fails 2 target      submit --workload write --target relative/dir --set size=4M
expect_benchctl_fails 2 bogus       submit --workload write --target "$T" --set bogus=1
expect_benchctl_fails 2 size        submit --workload write --target "$T" --set size=0
expect_benchctl_fails 2 block_size  submit --workload write --target "$T" --set size=4M --set block_size=1000 --set direct=true
expect_benchctl_fails 2 workload    submit --workload scribble --target "$T" --set size=4M
expect_benchctl_fails 4 999999      status 999999
expect_benchctl_fails 4 999999      show 999999
expect_benchctl_fails 4 999999      cancel 999999
# Matrix keys typed by benchctl (as, a{ss}) and refused by benchd's rules between them ("submit:"
# is benchd's InvalidSpec); the map's entries from two --set arrive as one a{ss}, and devices stand
# in for --target.
expect_benchctl_fails 2 "submit: mkfs_options.xfs: xfs is not in filesystems (ext4, btrfs)" submit --workload write \
        --set filesystems=ext4,btrfs --set devices=/dev/benchd-no-a,/dev/benchd-no-b --set destructive=true \
        --set "mkfs_options.ext4=-E lazy_itable_init=0" --set mkfs_options.xfs=-K
expect_benchctl_fails 2 "submit: layout: raid1 needs at least 2 devices, devices has 1" submit --workload write \
        --set filesystems=btrfs --set devices=/dev/benchd-no-a --set destructive=true --set layout=raid1
expect_benchctl_fails 2 "mkfs_options.ext4: the value is empty" submit --workload write \
        --set filesystems=ext4 --set devices=/dev/benchd-no-a --set mkfs_options.ext4=
expect_benchctl_fails 2 "or --set devices=" submit --workload write --set filesystems=ext4
# Refused by benchd rather than by benchctl's own checks: not enough free space.
expect_benchctl_fails 1 space       submit --workload write --target "$T" --set size=8G --set block_size=1M
run benchctl no-such-verb
assert_eq 2 "$RC" "exit status of benchctl no-such-verb ($OUT)"
run "$BENCHCTL_BIN" --bus-address="unix:path=$TEST_DIR/no-such-socket" jobs
assert_eq 3 "$RC" "exit status of benchctl against a missing bus ($OUT)"
[ -n "$OUT" ] || fail "benchctl against a missing bus said nothing"

# And the good path exits 0.
assert_success "benchctl jobs" benchctl jobs
assert_success "benchctl results" benchctl results

benchd_alive || fail "benchd died"
log "PASS"
