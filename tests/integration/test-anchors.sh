#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The anchor profiles do what their tools do, and a figure no device produced says so:
#
# 1. dd's write step allocates its file as it writes (fallocate=none): run with the null I/O
#    engine (no write lands) in a directory marked append-only (the worker cannot remove its
#    file), the file it leaves has no extent at all, where the default (fallocate=native, fio's)
#    leaves one unwritten extent over the whole size: filefrag -v (FIEMAP) reads both.
# 1b. crystal's write steps overwrite a file written whole before the measured phase (no
#    unwritten extent), as KDiskMark's fio overwrites the file its prepare laid out.
# 2. putc makes one write(2) per character, as bonnie++ 2.00 does: strace -f -c counts them.
# 3. bonnie's rewrite step reads and writes back every block, once.
# 3b. bonnie's metadata step names, orders and flushes as bonnie++ -n does (strace): the
#    sequential set named hex number first, created in number order filling the directories one
#    after another, deleted in readdir order; the random set named hex number last, taken in a
#    random order; a syncfs() ending each create and delete test.
# 3c. with invalidate=false the layout writes block_size at a time (strace -c counts pwrite64),
#    as the tool's test that leaves the page cache to the next one does; otherwise 1 MiB at a time.
# 4. A read the page cache served (invalidate=false leaves the laid-out file cached) is marked
#    page-cache, one that dropped it first device: standalone, and through benchd into SQLite,
#    benchctl show RUN and the per-step view.
# 5. A loop device over a sparse image: a position read of its holes is served by the backing
#    file, not a disk, and the run's environment names the image as sparse.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

require_root
require_cmd losetup mkfs.ext4 python3 filefrag chattr
[ -x "$WORKER_BIN" ] || fail "$WORKER_BIN is not built (BUILD_ROOT=$BUILD_ROOT)"

# Direct I/O on the loop device: what the filesystem reads and writes reaches the disk under the
# image, not the host's page cache (which would serve it: served_from backing-file).
scratch_fs 512M ext4 --direct-io
D=$SCRATCH_DIR

# step_keys PROFILE STEP: the step's keys of the shipped profile file as --set arguments.
step_keys() {
        python3 - "$PROFILES_DIR/$1.ini" "$2" <<'EOF'
import configparser, sys
cp = configparser.ConfigParser(interpolation=None)
cp.optionxform = str
cp.read(sys.argv[1])
for k, v in cp["step " + sys.argv[2]].items():
    print("--set")
    print(f"{k}={v}")
EOF
}

# extents FILE: "EXTENTS UNWRITTEN SIZE" of FILE, from filefrag -v (FIEMAP).
extents() {
        filefrag -v "$1" | python3 -c '
import os, re, sys
lines = sys.stdin.read().splitlines()
ext = [l for l in lines if re.match(r"^\s*\d+:", l)]
print(len(ext), sum("unwritten" in l for l in ext), os.path.getsize(sys.argv[1]))' "$1"
}

# ---- 1. dd's write file: allocated as written, nothing preallocated ----
mapfile -t DD_WRITE < <(step_keys dd write)
printf '%s\n' "${DD_WRITE[@]}" | grep -qx 'fallocate=none' || fail "dd.ini's write step does not set fallocate=none"
printf '%s\n' "${DD_WRITE[@]}" | grep -qx 'pattern=dev-zero' || fail "dd.ini's write step does not set pattern=dev-zero"
KEEP="$(dirname "$D")/keep"
mkdir -p "$KEEP"
chattr +a "$KEEP" || skip "chattr +a is not supported here"
defer chattr -R -a "$KEEP"
for mode in profile native; do
        d="$KEEP/$mode"
        mkdir "$d"
        chattr +a "$d"
        if [ "$mode" = profile ]; then extra=("${DD_WRITE[@]}"); else extra=(--set workload=write --set block_size=32K); fi
        "$WORKER_BIN" --target "$d" --ioengine null --json "${extra[@]}" --set size=16M \
                >"$TEST_DIR/keep-$mode.json" 2>"$TEST_DIR/keep-$mode.err" ||
                fail "dd write ($mode) with the null engine failed: $(cat "$TEST_DIR/keep-$mode.err")"
        f=$(find "$d" -name '.benchd-*' -type f)
        [ -n "$f" ] || fail "the append-only directory kept no file of the $mode write"
        read -r n unwritten size < <(extents "$f")
        log "$mode: $f: $n extents, $unwritten unwritten, size $size"
        if [ "$mode" = profile ]; then
                assert_eq "0 0 0" "$n $unwritten $size" "dd profile's write file before any write (extents, unwritten, size)"
        else
                [ "$n" -ge 1 ] && [ "$n" = "$unwritten" ] && [ "$size" = $((16 << 20)) ] ||
                        fail "fallocate=native left $n extents ($unwritten unwritten) of $size bytes, expected preallocated unwritten extents of 16 MiB"
        fi
done
# 1b. crystal's writes overwrite a file written whole before their measured phase, as KDiskMark's
# fio finds its file (its `fio --create_only=1` prepare lays the file out with writes, then every
# test overwrites it): no unwritten extent left for the measured writes to convert. The null
# engine lands none of the measured writes, so the file is what the layout left.
for step in seq1m-q1t1-write rnd4k-q1t1-write; do
        mapfile -t CRYSTAL < <(step_keys crystal "$step")
        d="$KEEP/$step"
        mkdir "$d"
        chattr +a "$d"
        "$WORKER_BIN" --target "$d" --ioengine null --json "${CRYSTAL[@]}" --set size=16M --set runtime_ms=300 \
                >"$TEST_DIR/keep-$step.json" 2>"$TEST_DIR/keep-$step.err" ||
                fail "crystal $step with the null engine failed: $(cat "$TEST_DIR/keep-$step.err")"
        f=$(find "$d" -name '.benchd-*' -type f)
        [ -n "$f" ] || fail "the append-only directory kept no file of crystal's $step"
        read -r n unwritten size < <(extents "$f")
        log "crystal $step: $f: $n extents, $unwritten unwritten, size $size"
        [ "$n" -ge 1 ] && [ "$unwritten" = 0 ] && [ "$size" = $((16 << 20)) ] ||
                fail "crystal $step measured on a file with $n extents, $unwritten unwritten, $size bytes: expected 16 MiB written whole before the measured phase"
done
chattr -R -a "$KEEP"
rm -rf "$KEEP"
# The real write then: the whole file written (no unwritten extent), zeros.
"$WORKER_BIN" --target "$D" --json "${DD_WRITE[@]}" --set size=16M >"$TEST_DIR/dd-write.json" ||
        fail "dd write step failed"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; sys.exit(r["bytes_written"] != 16 << 20)' \
        "$TEST_DIR/dd-write.json" || fail "dd write step did not write 16 MiB"

# ---- 2. putc: one write(2) per character ----
if command -v strace >/dev/null; then
        CHARS=65536
        strace -f -c -e trace=write -o "$TEST_DIR/putc.strace" \
                "$WORKER_BIN" --target "$D" --json -w putc -s $CHARS >"$TEST_DIR/putc.json" 2>"$TEST_DIR/putc.err" ||
                fail "putc under strace failed: $(cat "$TEST_DIR/putc.err")"
        writes=$(awk '$NF == "write" { print $4 }' "$TEST_DIR/putc.strace")
        log "putc of $CHARS characters: $writes write(2) calls"
        # One per character, and the JSON the worker prints on stdout (a few writes).
        assert_between "$CHARS" "${writes:-0}" $((CHARS + 64)) "write(2) calls of putc -s $CHARS"
        # getc likewise reads one at a time.
        strace -f -c -e trace=read -o "$TEST_DIR/getc.strace" \
                "$WORKER_BIN" --target "$D" --json -w getc -s $CHARS >"$TEST_DIR/getc.json" 2>"$TEST_DIR/getc.err" ||
                fail "getc under strace failed: $(cat "$TEST_DIR/getc.err")"
        reads=$(awk '$NF == "read" { print $4 }' "$TEST_DIR/getc.strace")
        assert_between "$CHARS" "${reads:-0}" $((CHARS + 256)) "read(2) calls of getc -s $CHARS"
else
        log "strace is not installed: the system calls of putc and getc are not counted"
fi

# ---- 3. bonnie's rewrite: every block read and written back ----
mapfile -t RMW < <(step_keys bonnie rewrite)
"$WORKER_BIN" --target "$D" --json "${RMW[@]}" --set size=8M >"$TEST_DIR/rmw.json" || fail "bonnie's rewrite step failed"
python3 - "$TEST_DIR/rmw.json" <<'EOF' || fail "bonnie's rewrite is not a read and a write-back per 8K block"
import json, sys
d = json.load(open(sys.argv[1]))
r, s = d["result"], d["spec"]
assert s["workload"] == "read-modify-write" and s["block_size"] == 8192 and not s["direct"], s
n = (8 << 20) // 8192
assert r["ops"] == r["ios_read"] == r["ios_written"] == n, r
assert r["bytes_read"] == r["bytes_written"] == 8 << 20, r
EOF

# ---- 3b. bonnie's metadata: bonnie++'s names, orders and flushes ----
if command -v strace >/dev/null; then
        mapfile -t META < <(step_keys bonnie metadata)
        strace -f -qq -e trace=openat,unlinkat,syncfs -o "$TEST_DIR/meta.strace" \
                "$WORKER_BIN" --target "$D" --json "${META[@]}" --set file_count=2048 >"$TEST_DIR/meta.json" \
                2>"$TEST_DIR/meta.err" || fail "bonnie's metadata step under strace failed: $(cat "$TEST_DIR/meta.err")"
        python3 - "$TEST_DIR/meta.strace" 2048 4 <<'EOF' || fail "bonnie's metadata step does not name, order or flush as bonnie++"
import re, sys
lines, n, dirs = open(sys.argv[1]).read().splitlines(), int(sys.argv[2]), int(sys.argv[3])
creates, deletes, events = [], [], []
for l in lines:
    m = re.search(r'openat\((\d+), "([^"]+)", O_WRONLY\|O_CREAT\|O_EXCL', l)
    if m:
        creates.append((int(m.group(1)), m.group(2)))
        events.append("c")
    m = re.search(r'unlinkat\((\d+), "([^"]+)", 0(\)| <unfinished)', l)  # strace -f splits calls
    if m:
        deletes.append((int(m.group(1)), m.group(2)))
        events.append("d")
    if re.search(r'syncfs\(\d+', l):
        events.append("s")
assert len(creates) == 2 * n and len(deletes) == 2 * n, (len(creates), len(deletes))
# create-seq, delete-seq, create-rand, delete-rand: each ends with a syncfs
order = "".join(events)
assert order == "c" * n + "s" + "d" * n + "s" + "c" * n + "s" + "d" * n + "s", re.sub(r"(.)\1+", r"\1+", order)
seq, rnd = creates[:n], creates[n:]
for k, (fd, name) in enumerate(seq):
    assert re.fullmatch(r"[0-9a-f]{10}[A-Za-z0-9]{0,12}", name) and int(name[:10], 16) == k, (k, name)
for k, (fd, name) in enumerate(rnd):
    assert re.fullmatch(r"[A-Za-z0-9]{0,12}[0-9a-f]{10}", name) and int(name[-10:], 16) == k, (k, name)
# the random names' extra characters come first: name order is not creation order
assert sorted(rnd, key=lambda c: c[1]) != rnd
# directories filled one after another: n/dirs files each, in runs
for files in (seq, rnd):
    fds = [fd for fd, _ in files]
    runs = [fds[0]] + [b for a, b in zip(fds, fds[1:]) if a != b]
    assert len(runs) == dirs == len(set(runs)), runs
    assert all(fds.count(fd) == n // dirs for fd in runs), [fds.count(fd) for fd in runs]
# delete-seq goes by readdir (ext4: hash order), a directory after another; delete-rand at random
for made, gone in ((seq, deletes[:n]), (rnd, deletes[n:])):
    assert sorted(made) == sorted(gone), "deleted other files than created"
    assert gone != made, "deleted in creation order"
fds = [fd for fd, _ in deletes[:n]]
assert sum(a != b for a, b in zip(fds, fds[1:])) == dirs - 1, "delete-seq went back to a directory"
EOF
else
        log "strace is not installed: the metadata step's names, orders and flushes are not checked"
fi

# ---- 3c. the layout a warm measured phase finds: written block_size at a time ----
# With invalidate=false the measured phase finds the layout's pages in the page cache, as a tool's
# test finds its previous test's (bonnie++'s Rewrite its block write's): the layout then writes
# block_size at a time as that test does (the size of each write decides the folios left), where
# a layout whose pages are dropped writes 1 MiB at a time.
if command -v strace >/dev/null; then
        for inv in false true; do
                strace -f -c -e trace=pwrite64,write -o "$TEST_DIR/layout-$inv.strace" \
                        "$WORKER_BIN" --target "$D" --json -w read -b 8K -s 8M --buffered --set invalidate=$inv \
                        >"$TEST_DIR/layout-$inv.json" 2>"$TEST_DIR/layout-$inv.err" ||
                        fail "read with invalidate=$inv under strace failed: $(cat "$TEST_DIR/layout-$inv.err")"
        done
        pw_false=$(awk '$NF == "pwrite64" { print $4 }' "$TEST_DIR/layout-false.strace")
        pw_true=$(awk '$NF == "pwrite64" { print $4 }' "$TEST_DIR/layout-true.strace")
        log "layout of 8 MiB in 8K blocks: pwrite64 calls $pw_false with invalidate=false, $pw_true with invalidate=true"
        assert_eq 1024 "${pw_false:-0}" "pwrite64 calls of the layout with invalidate=false (8 MiB, 8K at a time)"
        assert_eq 8 "${pw_true:-0}" "pwrite64 calls of the layout with invalidate=true (8 MiB, 1 MiB at a time)"
else
        log "strace is not installed: the layout's writes are not counted"
fi

# ---- 4. a read from a warm page cache is marked ----
for inv in false true; do
        "$WORKER_BIN" --target "$D" --json -w read -b 64K -s 32M --buffered --set invalidate=$inv \
                >"$TEST_DIR/read-$inv.json" || fail "read with invalidate=$inv failed"
done
assert_eq "page-cache device" \
        "$(python3 -c 'import json,sys; print(*(json.load(open(f))["result"]["served_from"] for f in sys.argv[1:]))' \
           "$TEST_DIR/read-false.json" "$TEST_DIR/read-true.json")" \
        "served_from of a read of a cached file, and of one whose pages were dropped"
python3 - "$TEST_DIR/read-false.json" "$TEST_DIR/read-true.json" <<'EOF' || fail "device counters of the reads"
import json, sys
warm, cold = (json.load(open(f))["result"] for f in sys.argv[1:])
# warm: the device saw (next to) nothing of the 32 MiB; cold: (next to) all of it. Not all: a page
# another reader holds (udev's probe, the loop device's own) is not dropped by POSIX_FADV_DONTNEED,
# and the judgement's line is half.
assert warm["device_bytes_read"] < warm["bytes_read"] // 2, warm
assert cold["device_bytes_read"] >= cold["bytes_read"] * 9 // 10, cold
EOF

start_benchd
run benchctl submit --workload read --target "$D" --set size=32M --set block_size=64K --set direct=false \
        --set invalidate=false --wait
[ "$RC" = 0 ] || fail "submit of a cached read exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "page-cache|1" "$(sql "select served_from, device_bytes_read < bytes_read / 2 from runs where job_id = $job")" \
        "the run of the cached read in SQLite (served_from|device saw less than half)"
run_id=$(sql "select id from runs where job_id = $job")
run benchctl show "$run_id"
assert_contains "$OUT" "+++++ by the page cache, not the device" "benchctl show of the cached read"
run benchctl show --job "$job"
assert_contains "$OUT" "+++++ step 1 (read, 65536 bytes a block): 1 of 1 run was served by the page cache" \
        "the per-step view of the cached read"
run benchctl show --job "$job" --json
assert_eq 1 "$(json_get 'd["cache_served_runs"]' <<<"$OUT")" "cache_served_runs of the view"
run benchctl submit --workload read --target "$D" --set size=32M --set block_size=64K --set direct=false --wait
[ "$RC" = 0 ] || fail "submit of a cold read exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "device" "$(sql "select served_from from runs where job_id = $job")" "served_from of the cold read"
# The worker's own CPU time is kept: bonnie++'s %CP.
assert_eq 1 "$(sql "select process_cpu_pct >= 0 and process_user_usec + process_sys_usec > 0 from run_summary
                    where job_id = $job")" "the worker's CPU time of the cold read"

# ---- 5. a loop device over a sparse image ----
make_loop 256M
SPARSE=$LOOP_DEV
"$WORKER_BIN" --target "$SPARSE" --json -w position --set positions=4 -s 4M >"$TEST_DIR/sparse.json" ||
        fail "position on the sparse loop device failed"
assert_eq "backing-file" "$(json_get 'd["result"]["served_from"]' <"$TEST_DIR/sparse.json")" \
        "served_from of a read of a sparse image's holes"
run benchctl submit --workload position --target "$SPARSE" --set positions=4 --set size=4M --wait
[ "$RC" = 0 ] || fail "submit of position on $SPARSE exited $RC: $OUT"
job=$(sql "select max(id) from jobs")
assert_eq "backing-file|1|$(basename "$SPARSE")" \
        "$(sql "select served_from, json_extract(environment, '\$.loop[0].backing_sparse'),
                       json_extract(environment, '\$.loop[0].name') from runs where job_id = $job")" \
        "the sparse image's run: served_from|backing_sparse|loop device"
run benchctl show "$(sql "select id from runs where job_id = $job")"
assert_contains "$OUT" "sparse (reads of its holes reach no disk)" "benchctl show names the sparse image"
assert_contains "$OUT" "+++++ by the loop device's backing file" "benchctl show of the sparse image's run"
log "anchors passed"
