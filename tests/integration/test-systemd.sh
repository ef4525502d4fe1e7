#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchd's units under a real, booted systemd (a Debian root in systemd-nspawn, see
# nspawn-root.sh), as an administrator meets them after `meson install`:
#   1. the first benchctl call activates benchd.service through D-Bus;
#   2. a job runs; `systemctl stop benchd` interrupts a longer one cleanly;
#   3. SIGKILL of the main process: systemd restarts benchd (Restart=), the queue is kept and the
#      running job marked interrupted;
#   4. the watchdog is pinged (WatchdogSec= in the unit, sd_event_set_watchdog in benchd);
#   5. benchd-run@NAME.service runs the definition /etc/benchd/runs/NAME.conf, tagged NAME, and
#      its timer is scheduled as the timer unit says;
#   6. the journal keeps benchd's priorities (the <N> prefixes on its stderr stream);
#   7. `systemd-analyze security` rates the installed benchd.service at most 3.0.
# Skips without debootstrap's archive or where systemd-nspawn cannot run.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nspawn-root.sh"

require_root
require_cmd sqlite3 python3 timeout

nspawn_root_build
nspawn_boot

DB="$NSPAWN_ROOT/var/lib/benchd/benchd.db"
B=/var/tmp/bench
in_ct mkdir -p "$B"

unit_prop() { in_ct systemctl show -P "$2" "$1"; }
ct_benchctl() { in_ct benchctl --no-legend "$@"; }
# submit_id ARGS...: submits a job, prints its id.
submit_id() {
        ct_benchctl submit "$@" | sed -n 's/^Job \([0-9]\+\) queued\.$/\1/p'
}
jstate() { sql "select state from jobs where id = $1"; }
wait_jstate() {
        local id=$1 want=$2 i
        for ((i = 0; i < 300; i++)); do
                [ "$(jstate "$id" 2>/dev/null)" = "$want" ] && return 0
                sleep 0.2
        done
        fail "job $id is '$(jstate "$id")' after 60 s; expected '$want'"
}
leftovers() { find "$NSPAWN_ROOT$B" -name '.benchd-*' 2>/dev/null || true; }
# wait_file ID: job ID is writing its file in $B (so that "no files left" means they were removed).
wait_file() {
        local i
        for ((i = 0; i < 150; i++)); do
                [ -n "$(leftovers)" ] && return 0
                sleep 0.2
        done
        fail "job $1 runs but made no .benchd-* file in $B in 30 s"
}
run_status() { sql "select group_concat(status) from runs where job_id = $1"; }
wait_active() {
        local i
        for ((i = 0; i < 150; i++)); do
                [ "$(unit_prop benchd.service ActiveState)" = active ] && return 0
                sleep 0.2
        done
        in_ct journalctl -u benchd --no-pager -n 30 >&2 || true
        fail "benchd.service is '$(unit_prop benchd.service ActiveState)' after 30 s; expected active"
}
LONG=(--workload write --target "$B" --set size=256M --set block_size=32K --set runtime_ms=60000
      --set sample_ms=200)

# --- 1. D-Bus activation ------------------------------------------------------------------------
log "1: D-Bus activation"
assert_eq inactive "$(unit_prop benchd.service ActiveState)" "benchd.service before any call"
ct_benchctl jobs >/dev/null || fail "the first benchctl jobs failed (activation through the bus?)"
assert_eq active "$(unit_prop benchd.service ActiveState)" "benchd.service after benchctl jobs"
[ -f "$DB" ] || fail "no database at /var/lib/benchd/benchd.db (StateDirectory=benchd)"

# --- 2. a job, and systemctl stop during one --------------------------------------------------------
log "2: a job runs; systemctl stop interrupts a longer one"
ct_benchctl run --workload write --target "$B" --set size=8M --set block_size=32K --label short \
        >"$TEST_DIR/short.out" 2>&1 || { cat "$TEST_DIR/short.out" >&2; fail "a short job failed in the container"; }
assert_eq succeeded "$(sql "select status from runs where label = 'short'")" "the short job's run"
a=$(submit_id "${LONG[@]}" --label long-stop)
[ -n "$a" ] || fail "submitting the long job printed no job id"
wait_jstate "$a" running
wait_file "$a"
in_ct systemctl stop benchd.service
assert_eq inactive "$(unit_prop benchd.service ActiveState)" "benchd.service after systemctl stop"
assert_eq interrupted "$(jstate "$a")" "the long job after systemctl stop"
assert_eq interrupted "$(run_status "$a")" "the long job's run after systemctl stop"
assert_eq "" "$(leftovers)" ".benchd-* files left after systemctl stop"

# --- 3. SIGKILL: Restart= ------------------------------------------------------------------------
log "3: kill -9 of the main PID; systemd restarts benchd"
a=$(submit_id "${LONG[@]}" --label long-kill)
b=$(submit_id --workload write --target "$B" --set size=8M --set block_size=32K --label after-kill)
wait_jstate "$a" running
wait_file "$a"
assert_eq queued "$(jstate "$b")" "the second job while the first runs"
pid=$(unit_prop benchd.service MainPID)
[ "$pid" -gt 0 ] || fail "benchd.service has no MainPID"
restarts=$(unit_prop benchd.service NRestarts)
in_ct sh -c "kill -KILL $pid"
for ((i = 0; i < 150; i++)); do
        np=$(unit_prop benchd.service MainPID)
        [ "$np" != 0 ] && [ "$np" != "$pid" ] && [ "$(unit_prop benchd.service ActiveState)" = active ] && break
        sleep 0.2
done
if [ "$np" = 0 ] || [ "$np" = "$pid" ]; then
        fail "benchd was not restarted after SIGKILL (MainPID $np)"
fi
assert_eq $((restarts + 1)) "$(unit_prop benchd.service NRestarts)" "NRestarts after SIGKILL"
wait_jstate "$a" interrupted
assert_eq interrupted "$(run_status "$a")" "the killed job's run after the restart"
wait_jstate "$b" succeeded
for ((i = 0; i < 50; i++)); do [ -z "$(leftovers)" ] && break; sleep 0.2; done
assert_eq "" "$(leftovers)" ".benchd-* files left after SIGKILL and restart"

# --- 4. the watchdog -------------------------------------------------------------------------------
log "4: the watchdog"
assert_eq 3min "$(unit_prop benchd.service WatchdogUSec)" "WatchdogUSec of the installed unit"
# A short watchdog (pings every 1 s) to see them arrive: benchd must outlive several periods.
in_ct mkdir -p /etc/systemd/system/benchd.service.d
printf '[Service]\nWatchdogSec=3s\n' >"$NSPAWN_ROOT/etc/systemd/system/benchd.service.d/watchdog.conf"
in_ct systemctl daemon-reload
in_ct systemctl restart benchd.service
pid=$(unit_prop benchd.service MainPID)
t1=$(unit_prop benchd.service WatchdogTimestampMonotonic)
sleep 7
t2=$(unit_prop benchd.service WatchdogTimestampMonotonic)
assert_eq "$pid" "$(unit_prop benchd.service MainPID)" "benchd's MainPID 7 s after a 3 s WatchdogSec"
[ "$t2" -gt "$t1" ] || fail "WatchdogTimestamp did not advance in 7 s ($t1 -> $t2): no WATCHDOG=1 pings"
rm -f "$NSPAWN_ROOT/etc/systemd/system/benchd.service.d/watchdog.conf"
in_ct systemctl daemon-reload

# --- 5. benchd-run@NAME ----------------------------------------------------------------------------
log "5: benchd-run@nightly"
in_ct mkdir -p /etc/benchd/runs
printf 'BENCHCTL_ARGS=--workload write --target %s --set size=8M --set block_size=32K --label scheduled\n' \
        "$B" >"$NSPAWN_ROOT/etc/benchd/runs/nightly.conf"
in_ct systemctl start benchd-run@nightly.service ||
        { in_ct journalctl -u benchd-run@nightly --no-pager >&2; fail "benchd-run@nightly.service failed"; }
n=$(ct_benchctl results --tag=nightly --json=short | json_get 'len(d)')
assert_eq 1 "$n" "runs tagged nightly after benchd-run@nightly.service"
in_ct systemctl start benchd-run@nightly.timer
next=$(unit_prop benchd-run@nightly.timer NextElapseUSecRealtime)
# OnCalendar=daily with RandomizedDelaySec=1h: between the coming midnight and one hour after it.
midnight=$(in_ct date -d 'tomorrow 00:00' +%s)
next_s=$(in_ct date -d "$next" +%s)
assert_between "$midnight" "$next_s" $((midnight + 3600)) "the timer's next elapse ($next)"
timers=$(in_ct systemctl list-timers --all --no-pager)
assert_contains "$timers" "benchd-run@nightly.timer" "systemctl list-timers"

# --- 6. priorities in the journal ---------------------------------------------------------------
log "6: priorities in the journal"
printf '[Manager]\nMaxQueuedJobsPerUser=many\n' >"$NSPAWN_ROOT/etc/benchd/benchd.conf"
in_ct systemctl restart benchd.service
rm -f "$NSPAWN_ROOT/etc/benchd/benchd.conf"
in_ct journalctl --sync 2>/dev/null || true
in_ct journalctl -u benchd.service -o json --no-pager >"$TEST_DIR/journal.json"
python3 - "$TEST_DIR/journal.json" <<'EOF' || fail "benchd's journal entries lack their priorities (above)"
import json, re, sys
ents = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
own = [e for e in ents if e.get('SYSLOG_IDENTIFIER') == 'benchd']
warn = [e for e in own if 'MaxQueuedJobsPerUser=many' in str(e.get('MESSAGE'))]
raw = [e for e in own if re.match(r'<[0-7]>', str(e.get('MESSAGE')))]
ok = own and warn and all(e.get('PRIORITY') == '4' for e in warn) and not raw
if not ok:
    print(f'{len(own)} benchd entries; the warning: {[(e.get("PRIORITY"), e.get("MESSAGE")) for e in warn]}; '
          f'with a raw <N> prefix: {len(raw)}; expected PRIORITY 4 and no prefix', file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
# An error-level message: benchd refusing its arguments, under the same stream setup.
in_ct systemd-run -q --wait --unit=benchd-journal-probe -p StandardError=journal \
        /usr/sbin/benchd --max-queue=0 >/dev/null 2>&1 || true
in_ct journalctl --sync 2>/dev/null || true
pri=$(in_ct journalctl -u benchd-journal-probe -o json --no-pager |
      python3 -c 'import json,sys
for l in sys.stdin:
    e = json.loads(l)
    if e.get("SYSLOG_IDENTIFIER") == "benchd" and "--max-queue" in str(e.get("MESSAGE")): print(e.get("PRIORITY"))')
assert_eq 3 "$pri" "PRIORITY of benchd's error message in the journal"

# --- 7. systemd-analyze security --------------------------------------------------------------------
log "7: systemd-analyze security"
in_ct systemd-analyze security --no-pager benchd.service >"$TEST_DIR/security.txt" 2>&1 || true
score=$(sed -n 's/.*Overall exposure level for benchd.service: \([0-9.]*\).*/\1/p' "$TEST_DIR/security.txt")
[ -n "$score" ] || { cat "$TEST_DIR/security.txt" >&2; fail "systemd-analyze security printed no score"; }
log "exposure score $score"
python3 -c "import sys; sys.exit(0 if float('$score') <= 3.0 else 1)" ||
        { grep -v '^  ✓' "$TEST_DIR/security.txt" >&2; fail "benchd.service's exposure is $score; expected at most 3.0"; }

log "all checks passed (boot took ${NSPAWN_BOOT_MS} ms)"
