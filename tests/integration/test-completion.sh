#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchctl's bash completion of what only benchd knows, against a real benchd on a private bus
# named on the command line being completed (--bus-address=ADDRESS and --bus-address ADDRESS): job
# ids (status: every job; cancel: only the queued and running ones), run ids, profiles from
# ListProfiles (the profile files hidden from the completion, so only the bus can answer) and the
# devices benchd has objects for; then, benchd stopped, nothing, and nothing on stderr.
# tests/completion/test-bash-completion.sh covers the rest without a bus.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[ -r "$BASH_COMPLETION" ] || skip "no $BASH_COMPLETION (install bash-completion)"
COMPLETION="$BUILD_ROOT/shell-completion/benchctl"
[ -r "$COMPLETION" ] || fail "no $COMPLETION: build the tree first"

start_bus
start_benchd


T="$TEST_DIR/target"
mkdir -p "$T"
benchctl run --workload write --target "$T" --set size=4M --set block_size=32K --label done >/dev/null ||
        fail "the first job failed"
done_job=$(sql "select job_id from runs where label = 'done'")
done_run=$(sql "select id from runs where label = 'done'")
submit() { benchctl submit "$@" | sed -n 's/^Job \([0-9]\+\) queued\.$/\1/p'; }
long=$(submit --workload write --target "$T" --set size=64M --set block_size=32K --set runtime_ms=60000 --label long)
queued=$(submit --workload write --target "$T" --set size=4M --set block_size=32K --label queued)
[ -n "$long" ] && [ -n "$queued" ] || fail "submitting the two jobs printed no ids"
wait_job_state "$long" running 30

# offered LINE: the candidates for "benchctl LINE" (CANDIDATES), in a shell of its own with
# bash-completion, the built completion and driver.sh; the profile files are out of its reach.
offered() {
        CANDIDATES=$(bash -c '. "$1"; . "$2"; . "$3"; _benchctl_profile_dirs=(/nonexistent)
                complete_line "$4"; printf "%s" "$CANDIDATES"' - "$BASH_COMPLETION" "$COMPLETION" \
                "$SOURCE_ROOT/tests/completion/driver.sh" "$BENCHCTL_BIN $1" 2>"$TEST_DIR/complete.err")
        [ ! -s "$TEST_DIR/complete.err" ] || fail "completing 'benchctl $1' wrote to stderr: $(cat "$TEST_DIR/complete.err")"
}
A="--bus-address=$BUS_ADDRESS"

log "job ids"
offered "$A status "
assert_eq "$(printf '%s\n' "$done_job" "$long" "$queued" | sort | tr '\n' ' ' | sed 's/ $//')" "$CANDIDATES" \
        "job ids offered for status"
offered "$A cancel "
assert_eq "$(printf '%s\n' "$long" "$queued" | sort | tr '\n' ' ' | sed 's/ $//')" "$CANDIDATES" \
        "job ids offered for cancel (queued and running only)"
offered "--bus-address $BUS_ADDRESS watch $long"
assert_eq "$long" "$CANDIDATES" "job ids offered for watch, the address as a word of its own"
offered "$A results --job="
assert_contains " $CANDIDATES " " $done_job " "job ids offered for --job="

log "run ids"
# The running job's run too.
runs=$(sql "select id from runs order by id" | sort | tr '\n' ' ' | sed 's/ $//')
assert_contains " $runs " " $done_run " "the runs"
offered "$A show "
assert_eq "$runs" "$CANDIDATES" "run ids offered for show"
offered "$A compare $done_run "
assert_eq "$runs" "$CANDIDATES" "run ids offered for compare's second run"

log "profiles and devices from benchd"
want=$(benchctl --json=short profiles | json_get '" ".join(sorted(p["name"] for p in d))')
[ -n "$want" ] || fail "benchd lists no profiles"
offered "$A run --profile "
assert_eq "$want" "$CANDIDATES" "profiles offered (ListProfiles)"
offered "$A run --set profile="
assert_eq "$want" "$CANDIDATES" "profiles offered for --set profile="
want=$(benchctl --no-legend devices | awk '{print $1}' | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$want" ] || fail "benchd lists no devices"
offered "$A device "
assert_eq "$want" "$CANDIDATES" "devices offered (benchd's Device objects)"

benchctl cancel "$long" "$queued" || fail "cancelling the jobs failed"
wait_job_state "$long" cancelled 60

log "benchd stopped: nothing offered, nothing said"
stop_benchd
offered "$A status "
assert_eq "" "$CANDIDATES" "job ids offered with benchd stopped"
offered "$A run --profile "
assert_eq "" "$CANDIDATES" "profiles offered with benchd stopped and no profile files"

log "all checks passed"
