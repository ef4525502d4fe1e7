#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The README's first command keeps working: scripts/demo, pointed at this build tree, a small size
# and a directory on a loop-backed filesystem, runs the dd profile through its own private bus
# and benchd, prints the results and the sqlite3 query, and leaves no process or file behind
# except its database.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl sqlite3 losetup mkfs.ext4 pgrep
require_binaries "$BENCHCTL_BIN"

scratch_fs 256M ext4 --direct-io
demo_db="$TEST_DIR/demo.db"

run env BENCHD_BUILD_DIR="$BUILD_ROOT" BENCHD_DEMO_DIR="$SCRATCH_DIR" BENCHD_DEMO_SIZE=16M \
        BENCHD_DEMO_DB="$demo_db" "$SOURCE_ROOT/scripts/demo" </dev/null
printf '%s\n' "$OUT" >"$TEST_DIR/demo.out"
[ "$RC" = 0 ] || fail "scripts/demo exited $RC:
$OUT"

log "demo: $(grep -E "^  run [0-9]+:" <<<"$OUT" | tr -s " " | paste -sd ";")"

# What the README says it prints.
assert_contains "$OUT" "benchctl run --profile dd" "demo output"
assert_contains "$OUT" "succeeded" "demo output"
assert_contains "$OUT" "benchctl results" "demo output"
assert_contains "$OUT" "benchctl show" "demo output"
assert_contains "$OUT" "sqlite3 -header -column $demo_db" "demo output"
assert_contains "$OUT" "schema/README.md" "demo output"

# The runs are in its database, exactly the size asked for.
DB="$demo_db"
assert_eq "write|$((16 << 20))|0
read|0|$((16 << 20))" "$(sql "select workload, bytes_written, bytes_read from runs where label = 'demo' order by id")" \
        "the demo's runs (workload|bytes_written|bytes_read)"
assert_eq "dd" "$(sql "select distinct profile from run_summary where label = 'demo'")" "profile of the demo's runs"

# It cleaned up: no process of its own, no target directory, no .benchd-* file.
pgrep -af "benchd-demo-run\\." && fail "processes of the demo are still running"
assert_eq "" "$(find "$SCRATCH_DIR" -mindepth 1 -maxdepth 2)" "what the demo left in $SCRATCH_DIR"

log "PASS"
