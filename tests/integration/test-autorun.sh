#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks when a disk appears, with the real systemd-udevd: a rule in /run/udev/rules.d that
# matches only this test's loop devices (by their image files) gives them a serial number, a
# firmware revision and BENCHD_AUTORUN. A disk that appears with a new identity gets exactly one
# job, triggered by udev, that only reads (its image unchanged); a change event does not queue a
# second; a new firmware queues one more; a restart of benchd none. A rule naming an unknown
# profile queues nothing and says which profiles there are, and once the rule is fixed the disk
# still gets its one job; a profile that only writes queues nothing on a disk that is not scratch;
# a scratch disk gets every step, writes included; a disk the database knew before its rule is not
# benchmarked; a disk without WWN or serial is known by model and name, so resizing it three times
# queues nothing more; AutoRun=no turns it all off.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup udevadm sha256sum
require_binaries "$BENCHCTL_BIN"

DEV_IFACE=org.benchd.Benchd1.Device
RULES_DIR=/run/udev/rules.d
RULE="$RULES_DIR/99-benchd-test-autorun-$$.rules"
SERIAL="benchd-test-autorun-$$"

start_bus
start_udevd

# Small profiles: quick's three steps on 8 MiB (the shipped one reads 1 GiB for a minute), and
# one that only writes. The shipped ones are there too, for the list of known profiles.
PROFILES="$TEST_DIR/profiles"
mkdir -p "$PROFILES"
cp "$PROFILES_DIR"/*.ini "$PROFILES"/
cat >"$PROFILES/quick.ini" <<'EOF'
[profile]
description=quick, small: sequential write, sequential read, 4K random read of 8 MiB
[step write]
workload=write
block_size=64K
size=8M
direct=true
[step read]
workload=read
block_size=64K
size=8M
direct=true
[step randread]
workload=randread
block_size=4K
size=8M
direct=true
queue_depth=4
runtime_ms=1000
EOF
cat >"$PROFILES/wonly.ini" <<'EOF'
[profile]
description=writes only
[step write]
workload=write
block_size=64K
size=4M
direct=true
EOF
CONF="$TEST_DIR/benchd.conf"
printf '# test configuration\n' >"$CONF"

# The rule: one line per image, rewritten by set_rules. Its removal is deferred before any loop
# device exists, so it runs last, after they are detached.
mkdir -p "$RULES_DIR"
defer udevadm control --reload
defer rm -f "$RULE"
declare -A RULE_LINES=()
# set_rule IMAGE SERIAL FIRMWARE PROFILE [EXTRA]: the rule line for IMAGE's loop device (an empty
# SERIAL or FIRMWARE sets none).
set_rule() {
        local line
        line=$(printf 'SUBSYSTEM=="block", KERNEL=="loop*", ENV{DEVTYPE}=="disk", ATTR{loop/backing_file}=="%s"' "$1")
        [ -n "$2" ] && line+=$(printf ', ENV{ID_SERIAL}="%s", ENV{ID_SERIAL_SHORT}="%s"' "$2" "$2")
        [ -n "$3" ] && line+=$(printf ', ENV{ID_REVISION}="%s"' "$3")
        line+=$(printf ', ENV{BENCHD_AUTORUN}="%s"%s' "$4" "${5:+, $5}")
        RULE_LINES[$1]=$line
        printf '%s\n' "${RULE_LINES[@]}" >"$RULE.tmp"
        mv "$RULE.tmp" "$RULE"
        udevadm control --reload
}

dev_exists() {
        bus get-property "$BUS_NAME" "$MANAGER_PATH/device/$1" "$DEV_IFACE" Name >/dev/null 2>&1
}

# udev_sync: every udev event sent so far has reached benchd. udevd settles, then a loop device
# without a rule is attached; benchd reads events in order, so once its object is there, benchd has
# handled the events before it.
udev_sync() {
        udevadm settle --timeout=10 || true
        make_loop 1M
        wait_for 10 dev_exists "${LOOP_DEV#/dev/}" || fail "benchd did not see the sentinel ${LOOP_DEV#/dev/}"
}

# attach_image NAME: a 64 MiB image of random bytes and its loop device; sets IMG, DEV and SUM, the
# image's checksum before it was attached (once attached, its autorun job may already be writing).
attach_image() {
        IMG="$TEST_DIR/autorun-$1.img"
        [ -e "$IMG" ] || head -c 64M /dev/urandom >"$IMG"
        SUM=$(sha256sum <"$IMG")
        DEV=$(losetup -f --show "$IMG")
        defer losetup -d "$DEV"
        log "$1: $DEV on $IMG"
}

udev_jobs() {
        sql "select count(*) from jobs where triggered_by = 'udev' and target = '$1'"
}

# wait_udev_jobs DEV N: N jobs triggered by udev for DEV; prints the newest one's id.
wait_udev_jobs() {
        local i
        for ((i = 0; i < 150; i++)); do
                [ "$(udev_jobs "$1")" = "$2" ] && break
                sleep 0.1
        done
        assert_eq "$2" "$(udev_jobs "$1")" "jobs triggered by udev for $1 (log: $(grep -a 'appeared\|autorun' "$BENCHD_LOG" | tail -n 5))"
        sql "select max(id) from jobs where triggered_by = 'udev' and target = '$1'"
}

workloads_of() {
        sql "select group_concat(workload, ',') from (select workload from runs where job_id = $1 order by step)"
}

start_benchd --profiles-dir="$PROFILES" --config="$CONF"

# ---- 1. A new identity: one job, triggered by udev, reads only. ---------------------------------
IMG_A="$TEST_DIR/autorun-a.img"
set_rule "$IMG_A" "$SERIAL-a" fw1 quick
attach_image a
A=$DEV A_NAME=${DEV#/dev/}
sum_a=$SUM
job1=$(wait_udev_jobs "$A" 1)
wait_job_state "$job1" succeeded 60
assert_eq "read,randread" "$(workloads_of "$job1")" "steps of the autorun job on a disk that is not scratch"
assert_eq "$sum_a" "$(sha256sum <"$IMG_A")" "image of $A after its autorun job"
assert_eq "0|autorun|quick|udev" "$(sql "select submitted_by, label, profile, triggered_by from jobs where id = $job1")" \
        "the autorun job's row"
assert_eq "queued|$job1|fw1" "$(sql "select state, job_id, firmware from autoruns where identity = 'serial:$SERIAL-a'")" \
        "autoruns row of $A"
grep -aq "$A_NAME (identity serial:$SERIAL-a, firmware fw1) appeared (new identity): queued profile quick as job $job1 (triggered by udev)" \
        "$BENCHD_LOG" || fail "no log line for the autorun job: $(grep -a appeared "$BENCHD_LOG")"
# Visible to users: benchctl's JSON and status, the Job property.
run benchctl jobs --all --json
assert_eq udev "$(json_get "[j['TriggeredBy'] for j in d if j['Id'] == $job1][0]" <<<"$OUT")" "TriggeredBy in benchctl jobs --json"
run benchctl status "$job1"
assert_contains "$OUT" "Trigger" "benchctl status of the autorun job"
assert_eq udev "$(benchctl status "$job1" --json | json_get 'd["TriggeredBy"]')" "TriggeredBy in benchctl status --json"
assert_eq 's "udev"' "$(job_prop "$job1" TriggeredBy)" "the Job's TriggeredBy property"
assert_eq 's "quick"' "$(bus get-property "$BUS_NAME" "$MANAGER_PATH/device/$A_NAME" "$DEV_IFACE" AutoRun)" \
        "the Device's AutoRun property"

# ---- 2. A change event: no second job. -----------------------------------------------------------
udevadm trigger --action=change "$A"
udev_sync
assert_eq 1 "$(udev_jobs "$A")" "jobs for $A after a change event"

# ---- 3. Another firmware: exactly one more. --------------------------------------------------------
set_rule "$IMG_A" "$SERIAL-a" fw2 quick
udevadm trigger --action=change "$A"
job2=$(wait_udev_jobs "$A" 2)
wait_job_state "$job2" succeeded 60
grep -aq "firmware fw2) appeared (new firmware, was fw1): queued profile quick as job $job2" "$BENCHD_LOG" ||
        fail "no log line for the firmware's job: $(grep -a appeared "$BENCHD_LOG")"
udevadm trigger --action=change "$A"
udev_sync
assert_eq 2 "$(udev_jobs "$A")" "jobs for $A after another change event"

# ---- 4. A restart: the enumeration sees it again, and queues nothing. ------------------------------
stop_benchd
start_benchd --profiles-dir="$PROFILES" --config="$CONF"
udev_sync
assert_eq 2 "$(udev_jobs "$A")" "jobs for $A after benchd restarted"
# From the jobs table now (the new benchd has no object for them).
run benchctl jobs --all --json
assert_eq "udev udev" "$(json_get "' '.join(j['TriggeredBy'] for j in d if j['Id'] in ($job1, $job2))" <<<"$OUT")" \
        "TriggeredBy of the ended jobs, read from the database"
grep -aq "$A_NAME (identity serial:$SERIAL-a, firmware fw2): BENCHD_AUTORUN=quick: already benchmarked when it appeared with this firmware (job $job2)" \
        "$BENCHD_LOG" || fail "benchd did not say why $A was not benchmarked again: $(grep -a "$A_NAME" "$BENCHD_LOG" | tail -n 3)"

# ---- 5. An unknown profile: nothing queued, the known ones named; once fixed, its one job. ---------
IMG_B="$TEST_DIR/autorun-b.img"
set_rule "$IMG_B" "$SERIAL-b" fw1 no-such-profile
attach_image b
B=$DEV
udev_sync
assert_eq 0 "$(udev_jobs "$B")" "jobs for $B, whose rule names an unknown profile"
grep -a "unknown profile 'no-such-profile'; known profiles are: " "$BENCHD_LOG" | grep -aq "quick" ||
        fail "no error naming the known profiles: $(grep -a no-such-profile "$BENCHD_LOG")"
assert_eq waiting "$(sql "select state from autoruns where identity = 'serial:$SERIAL-b'")" "autoruns row of $B"
set_rule "$IMG_B" "$SERIAL-b" fw1 quick
udevadm trigger --action=change "$B"
job3=$(wait_udev_jobs "$B" 1)
wait_job_state "$job3" succeeded 60

# ---- 6. A profile that only writes, on a disk that is not scratch: nothing, and why. ---------------
IMG_C="$TEST_DIR/autorun-c.img"
set_rule "$IMG_C" "$SERIAL-c" fw1 wonly
attach_image c
C=$DEV
sum_c=$SUM
udev_sync
assert_eq 0 "$(udev_jobs "$C")" "jobs for $C (profile wonly, not scratch)"
grep -aq "every step of profile wonly writes and the disk is not marked scratch, so nothing is queued" "$BENCHD_LOG" ||
        fail "no warning about the write-only profile: $(grep -a wonly "$BENCHD_LOG")"
assert_eq "$sum_c" "$(sha256sum <"$IMG_C")" "image of $C"

# ---- 7. A scratch disk: every step, writes included. --------------------------------------------------
IMG_D="$TEST_DIR/autorun-d.img"
set_rule "$IMG_D" "$SERIAL-d" fw1 quick 'ENV{BENCHD_SCRATCH}="1"'
attach_image d
D=$DEV
sum_d=$SUM
job4=$(wait_udev_jobs "$D" 1)
wait_job_state "$job4" succeeded 60
assert_eq "write,read,randread" "$(workloads_of "$job4")" "steps of the autorun job on a scratch disk"
assert_ne "$sum_d" "$(sha256sum <"$IMG_D")" "image of the scratch disk $D after its autorun job"
assert_eq 1 "$(sql "select json_extract(spec, '\$.destructive') from jobs where id = $job4")" \
        "destructive in the scratch disk's job"

# ---- 8. A disk the database knew before its rule asked for autorun: not benchmarked. ---------------------
IMG_F="$TEST_DIR/autorun-f.img"
head -c 64M /dev/urandom >"$IMG_F"
F=$(losetup -f --show "$IMG_F")
defer losetup -d "$F"
wait_for 10 dev_exists "${F#/dev/}" || fail "benchd did not see $F"
set_rule "$IMG_F" "" "" quick
udevadm trigger --action=change "$F"
udev_sync
assert_eq 0 "$(udev_jobs "$F")" "jobs for $F, known before its rule"
assert_eq 's "quick"' "$(bus get-property "$BUS_NAME" "$MANAGER_PATH/device/${F#/dev/}" "$DEV_IFACE" AutoRun)" \
        "AutoRun of $F (the rule applies)"
assert_eq 0 "$(sql "select count(*) from autoruns where device_name = '${F#/dev/}'")" "autoruns rows of $F"

# ---- 9. A disk without WWN or serial, resized: one job, not one per size. ----------------------------------
IMG_G="$TEST_DIR/autorun-g.img"
set_rule "$IMG_G" "" "" quick
attach_image g
G=$DEV G_NAME=${DEV#/dev/}
job5=$(wait_udev_jobs "$G" 1)
wait_job_state "$job5" succeeded 60
for mib in 80 96 112; do
        truncate -s "${mib}M" "$IMG_G"
        losetup -c "$G"
        [ "$(cat "/sys/class/block/$G_NAME/size")" = $((mib * 2048)) ] || fail "$G did not take the size ${mib}M"
        udev_sync
done
assert_eq 4 "$(sql "select count(*) from devices where identity glob 'model:*:$G_NAME'")" \
        "devices rows of $G, one per size"
assert_eq 1 "$(udev_jobs "$G")" "jobs for $G after three new sizes"
assert_eq "queued|$job5" "$(sql "select state, job_id from autoruns where identity = 'model::$G_NAME'")" \
        "autoruns row of $G, by model and name"

# ---- 10. AutoRun=no: a new disk is not benchmarked. -------------------------------------------------------
printf '[Daemon]\nAutoRun=no\n' >"$CONF"
stop_benchd
start_benchd --profiles-dir="$PROFILES" --config="$CONF"
IMG_E="$TEST_DIR/autorun-e.img"
set_rule "$IMG_E" "$SERIAL-e" fw1 quick
attach_image e
E=$DEV
udev_sync
assert_eq 0 "$(udev_jobs "$E")" "jobs for $E with AutoRun=no"
assert_eq 0 "$(sql "select count(*) from autoruns where identity = 'serial:$SERIAL-e'")" "autoruns rows with AutoRun=no"
grep -aq "BENCHD_AUTORUN=quick is not acted on: AutoRun=no in benchd.conf" "$BENCHD_LOG" ||
        fail "benchd did not say AutoRun=no kept it from acting: $(grep -a "${E#/dev/}" "$BENCHD_LOG" | tail -n 3)"
assert_eq 5 "$(sql "select count(*) from jobs where triggered_by = 'udev'")" "jobs triggered by udev in all"

log "autorun: one job per identity and firmware, read-only unless scratch"
