#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchd's Debian package under a real, booted systemd (a Debian root in systemd-nspawn, see
# nspawn-root.sh), as an administrator meets it: the package is built from the source tree
# (deb.sh, once per state of its files) and installed in the booted container with
# `apt-get install ./benchd_*.deb`, so what is tested is what an administrator installs.
#   0. the installation: benchd.service neither enabled nor started, /var/lib/benchd made, the bus
#      and systemd reloaded by the maintainer scripts; `man benchctl` renders and `man -k benchd`
#      lists the six pages (mandb ran); the installed bash completion completes commands, spec
#      keys and profiles, and pressing Tab does not start benchd;
#   1. the first benchctl call activates benchd.service through D-Bus: the administrator's first
#      `benchctl run --profile dd --target /var/tmp/x` (its output and apt's are in the log); the
#      runs record the package's version, as the bus's Version property says it; completion then
#      offers the job and run ids benchd knows;
#   2. a job runs; `systemctl stop benchd` interrupts a longer one cleanly;
#   3. SIGKILL of the main process: systemd restarts benchd (Restart=), the queue is kept and the
#      running job marked interrupted;
#   4. the watchdog is pinged (WatchdogSec= in the unit, sd_event_set_watchdog in benchd);
#   5. benchd-run@NAME.service runs the definition /etc/benchd/runs/NAME.conf, tagged NAME, and
#      its timer is scheduled as the timer unit says;
#   6. the journal keeps benchd's priorities (the <N> prefixes on its stderr stream);
#   7. `systemd-analyze security` rates the installed benchd.service at most 3.2 (3.0 before
#      CAP_SETUID and CAP_SETGID, 0.3 of it, which let a caller's worker become the caller);
#   8. the real polkitd (a JavaScript rule in /etc/polkit-1/rules.d) decides for unprivileged users:
#      one allowed org.benchd.benchd1.submit submits, and cancels her own job; one without a rule
#      gets AccessDenied for submitting and for cancelling hers; a destructive job on a loop device
#      needs org.benchd.benchd1.destructive (the rule reads the target from the details); a user
#      the policy's defaults leave to a password gets InteractiveAuthorizationRequired, or, allowing
#      interaction with no agent to ask, AccessDenied saying so;
#   9. `apt-get purge benchd` stops benchd and removes the package, what benchd made in
#      /var/lib/benchd and the enabled timers' links, and keeps the database.
# Skips without debootstrap's archive or where systemd-nspawn cannot run.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nspawn-root.sh"
. "$(dirname "$0")/deb.sh"

require_root
require_cmd sqlite3 python3 timeout losetup sha256sum

deb_build
# nspawn_boot installs benchd into the root it boots through this hook: here only the package goes
# in, to be installed with apt once the container runs, as an administrator would.
_nspawn_install() {
        mkdir -p "$1/var/cache/benchd-test"
        cp "$DEB_FILE" "$1/var/cache/benchd-test/"
}
nspawn_root_build
nspawn_boot
CT_DEB=/var/cache/benchd-test/$(basename "$DEB_FILE")
PKG_VERSION=$(dpkg-deb -f "$DEB_FILE" Version)

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

# --- 0. the package --------------------------------------------------------------------------------
log "0: apt-get install ./$(basename "$DEB_FILE")"
# The root has every dependency already (nspawn-root.sh's package list): apt installs the file alone.
in_ct env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$CT_DEB" \
        >"$TEST_DIR/apt-install.log" 2>&1 </dev/null ||
        { cat "$TEST_DIR/apt-install.log" >&2; fail "apt-get install of the package failed"; }
{ echo "# apt-get install -y ./$(basename "$DEB_FILE")"; cat "$TEST_DIR/apt-install.log"; } | sed 's/^/    /' >&2
assert_eq "install ok installed $PKG_VERSION" "$(in_ct dpkg-query -W -f='${Status} ${Version}' benchd)" \
        "dpkg's record of benchd"
assert_eq disabled "$(in_ct systemctl is-enabled benchd.service 2>&1 || true)" "benchd.service after installation"
assert_eq inactive "$(unit_prop benchd.service ActiveState)" "benchd.service after installation"
# systemd knows the units (daemon-reload in postinst), the bus the activation file (dbus's trigger).
assert_eq loaded "$(unit_prop benchd.service LoadState)" "benchd.service's LoadState"
in_ct busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ListActivatableNames |
        grep -q '"org.benchd.Benchd1"' || fail "the system bus does not list org.benchd.Benchd1 as activatable"
assert_eq "755 root" "$(in_ct stat -c '%a %U' /var/lib/benchd)" "/var/lib/benchd made by the package (tmpfiles.d)"
# The man pages: rendered by man, indexed by mandb (man-db's trigger).
page=$(in_ct env MANWIDTH=80 man -P cat benchctl 2>&1) || fail "man benchctl failed: $page"
assert_contains "$page" "benchctl - submit storage benchmarks to benchd" "man benchctl"
assert_contains "$page" "benchd $PKG_VERSION" "man benchctl's footer"
# The units' Documentation= names installed pages.
for u in benchd.service benchd-run@x.service; do
        docs=$(unit_prop "$u" Documentation | tr -d '"')
        [ -n "$docs" ] || fail "$u has no Documentation="
        for d in $docs; do
                [[ $d =~ ^man:([^\(]+)\(([0-9])\)$ ]] || fail "$u: Documentation=$d is not a man page"
                in_ct man -w "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]}" >/dev/null 2>&1 ||
                        fail "$u: Documentation=$d names no installed page"
        done
done
apropos=$(in_ct man -k benchd 2>&1 || true)
for entry in "benchctl (1)" "benchd (8)" "benchd-worker (8)" "benchd.conf (5)" "benchd-spec (7)" \
                "org.benchd.Benchd1 (5)"; do
        assert_contains "$apropos" "$entry" "man -k benchd"
done
# The bash completion as installed, with bash-completion's helpers, driven as readline would.
cp "$SOURCE_ROOT/tests/completion/driver.sh" "$NSPAWN_ROOT/var/cache/benchd-test/driver.sh"
# ct_complete LINE...: the candidates for each LINE, one line of them per LINE.
ct_complete() {
        in_ct bash -c '. /usr/share/bash-completion/bash_completion
                . /usr/share/bash-completion/completions/benchctl
                . /var/cache/benchd-test/driver.sh
                for l; do complete_line "$l"; printf "%s\n" "$CANDIDATES"; done' - "$@" </dev/null
}
mapfile -t got < <(ct_complete "benchctl sta" "benchctl run --set sync=end:f" "benchctl run --profile " \
        "benchctl status ")
assert_eq "status" "${got[0]}" "completion of 'benchctl sta'"
assert_eq "fdatasync fsync" "${got[1]}" "completion of 'benchctl run --set sync=end:f'"
assert_eq "bonnie crystal dd iozone ping quick" "${got[2]}" \
        "completion of 'benchctl run --profile ' (the installed profiles, benchd not running)"
assert_eq "" "${got[3]}" "completion of 'benchctl status ' with benchd not running"
assert_eq inactive "$(unit_prop benchd.service ActiveState)" "benchd.service after completing job ids (Tab must not start it)"

# --- 1. D-Bus activation ------------------------------------------------------------------------
log "1: D-Bus activation by the administrator's first benchctl run"
assert_eq inactive "$(unit_prop benchd.service ActiveState)" "benchd.service before any call"
in_ct mkdir -p /var/tmp/x
in_ct benchctl run --profile dd --target /var/tmp/x >"$TEST_DIR/first-run.log" 2>&1 </dev/null ||
        { cat "$TEST_DIR/first-run.log" >&2; fail "the first benchctl run failed (activation through the bus?)"; }
{ echo "# benchctl run --profile dd --target /var/tmp/x"; cat "$TEST_DIR/first-run.log"; } | sed 's/^/    /' >&2
assert_eq active "$(unit_prop benchd.service ActiveState)" "benchd.service after benchctl run"
[ -f "$DB" ] || fail "no database at /var/lib/benchd/benchd.db (StateDirectory=benchd)"
assert_eq "2 succeeded" "$(sql "select count(*) || ' ' || group_concat(distinct status) from runs")" \
        "the dd profile's runs"
assert_eq "$PKG_VERSION" "$(sql "select distinct json_extract(environment, '$.benchd_version') from runs")" \
        "benchd_version in the runs' environment"
assert_eq "s \"$PKG_VERSION\"" "$(in_ct busctl get-property "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" Version)" \
        "the Manager's Version property"
assert_eq "" "$(in_ct find /var/tmp/x -mindepth 1)" "files left in /var/tmp/x after the dd profile"
job=$(sql "select max(job_id) from runs")
mapfile -t got < <(ct_complete "benchctl status " "benchctl show ")
assert_contains " ${got[0]} " " $job " "completion of 'benchctl status ' (job ids from benchd)"
for run in $(sql "select id from runs"); do
        assert_contains " ${got[1]} " " $run " "completion of 'benchctl show ' (run ids from benchd)"
done

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
n0=$(unit_prop benchd.service NRestarts)
t1=$(unit_prop benchd.service WatchdogTimestampMonotonic)
# Pings seen for more than two periods (the timestamp of the last one 7 s past the first seen), not
# a sleep of 7 s: a ping missed in a period would have had systemd kill benchd meanwhile.
pinged_long() {
        t2=$(unit_prop benchd.service WatchdogTimestampMonotonic)
        [ "$t2" -gt $((t1 + 7000000)) ]
}
wait_for 60 pinged_long || fail "WatchdogTimestamp went from $t1 to $t2 in 60 s: no WATCHDOG=1 pings for 7 s"
assert_eq "$pid" "$(unit_prop benchd.service MainPID)" "benchd's MainPID after 7 s of pings with a 3 s WatchdogSec"
assert_eq "$n0" "$(unit_prop benchd.service NRestarts)" "NRestarts of benchd.service since the watchdog was set"
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
python3 -c "import sys; sys.exit(0 if float('$score') <= 3.2 else 1)" ||
        { grep -v '^  ✓' "$TEST_DIR/security.txt" >&2; fail "benchd.service's exposure is $score; expected at most 3.2"; }

# --- 8. polkit ------------------------------------------------------------------------------------
log "8: the real polkitd authorises unprivileged users"
make_loop 64M
DEV=$LOOP_DEV
# The container's /dev is its own: a node for the loop device, which benchd.service's
# DeviceAllow=block-* lets benchd open.
in_ct mknod -m 0660 "$DEV" b $((0x$(stat -c %t "$DEV"))) $((0x$(stat -c %T "$DEV")))
IMG_SUM=$(sha256sum <"$DEV")
# alice may submit, carol may also overwrite $DEV, bob may nothing, dave is left to the defaults of
# dbus/org.benchd.benchd1.policy (auth_admin: a password).
for u in alice bob carol dave; do
        in_ct useradd --no-create-home --shell /usr/sbin/nologin "benchd-$u"
done
ALICE=$(in_ct id -u benchd-alice)
AB=/var/tmp/bench-alice
in_ct install -d -o benchd-alice -g benchd-alice "$AB"
cat >"$NSPAWN_ROOT/etc/polkit-1/rules.d/50-benchd-test.rules" <<RULES
// test-systemd.sh: who may use benchd.
polkit.addRule(function(action, subject) {
        if (action.id.indexOf("org.benchd.benchd1.") != 0 || subject.user == "benchd-dave")
                return polkit.Result.NOT_HANDLED;
        if (action.id == "org.benchd.benchd1.submit" &&
            (subject.user == "benchd-alice" || subject.user == "benchd-carol"))
                return polkit.Result.YES;
        if (action.id == "org.benchd.benchd1.destructive" && subject.user == "benchd-carol" &&
            action.lookup("target") == "$DEV")
                return polkit.Result.YES;
        return polkit.Result.NO;
});
RULES
# Type=dbus: started once polkitd has read the rules and owns its name.
in_ct systemctl restart polkit.service
assert_eq active "$(unit_prop polkit.service ActiveState)" "polkit.service after a restart"
# The error names benchd replies with (benchctl prints the message only, busctl neither).
in_ct systemd-run -q --unit=benchd-test-monitor -p StandardOutput=file:/run/benchd-test-monitor.json \
        busctl monitor --json=short --match="type='error'" --match="$MONITOR_PROBE_MATCH"
# Ready once it has seen a probe (not after a guess at how long BecomeMonitor takes).
ct_monitor_ready() {
        in_ct busctl emit /org/benchd/test org.benchd.Test MonitorProbe >/dev/null 2>&1 || true
        in_ct grep -q MonitorProbe /run/benchd-test-monitor.json 2>/dev/null
}
wait_for 30 ct_monitor_ready || fail "the bus monitor in the container saw no probe signal in 30 s"
MONITOR_LOG="$TEST_DIR/ct-monitor.json"
benchd_owner() {
        in_ct busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s \
                "$BUS_NAME" | sed -n 's/^s "\(.*\)"$/\1/p'
}
# n_errors: how many errors benchd has sent in the container so far.
n_errors() {
        in_ct cat /run/benchd-test-monitor.json >"$MONITOR_LOG"
        _benchd_errors | wc -l
}
# error_after N: the error benchd sent after its first N ("error.name: message"), or nothing yet.
error_after() {
        in_ct cat /run/benchd-test-monitor.json >"$MONITOR_LOG"
        _benchd_errors | sed -n "$(($1 + 1))p"
}
# ct_as USER CMD...: CMD as benchd-USER with a clean environment (the system bus, no terminal).
ct_as() {
        local u=benchd-$1
        shift
        in_ct setpriv --reuid="$u" --regid="$u" --init-groups \
                env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@" </dev/null
}
# refused WANT-ERROR WHAT CMD...: CMD fails, and the error benchd sent for it is WANT-ERROR; $ERR
# is it, $OUT what CMD printed. The monitor writes its file when it likes: the error is the first
# one after those there were before CMD, waited for, never an older one.
refused() {
        local want=$1 what=$2 i before
        shift 2
        before=$(n_errors)
        run "$@"
        [ "$RC" != 0 ] || fail "$what succeeded; expected $want: $OUT"
        for ((i = 0; i < 50; i++)); do
                ERR=$(error_after "$before")
                case "$ERR" in "$want: "*) return 0 ;; ?*) break ;; esac
                sleep 0.1
        done
        fail "$what: benchd's last error is '$ERR' (the client said: $OUT); expected $want"
}
ACCESS_DENIED=org.freedesktop.DBus.Error.AccessDenied
SMALL=(--workload write --set size=8M --set block_size=32K)

log "8a: alice, allowed to submit, runs a job as herself"
ct_as alice benchctl --no-legend run "${SMALL[@]}" --target "$AB" --label polkit-alice >"$TEST_DIR/alice.out" 2>&1 ||
        { cat "$TEST_DIR/alice.out" >&2; fail "benchd-alice, allowed org.benchd.benchd1.submit, could not run a job"; }
assert_eq "$ALICE|succeeded" "$(sql "select j.submitted_by, r.status from runs r join jobs j on j.id = r.job_id
                                     where r.label = 'polkit-alice'")" "submitted_by and status of alice's run"

log "8b: bob, without a rule, gets AccessDenied"
refused "$ACCESS_DENIED" "bob's submit" ct_as bob benchctl submit "${SMALL[@]}" --target "$B" --label polkit-bob
assert_contains "$ERR" "org.benchd.benchd1.submit" "bob's AccessDenied"
assert_contains "$OUT" "ask an administrator for the action" "what benchctl tells bob"
assert_eq 0 "$(sql "select count(*) from jobs where label = 'polkit-bob'")" "jobs bob queued"

log "8c: a destructive job needs org.benchd.benchd1.destructive"
refused "$ACCESS_DENIED" "alice's destructive job" \
        ct_as alice benchctl submit "${SMALL[@]}" --target "$DEV" --set destructive=true --label polkit-alice-dev
assert_contains "$ERR" "org.benchd.benchd1.destructive" "alice's AccessDenied for a destructive job"
assert_contains "$OUT" "org.benchd.benchd1.destructive" "what benchctl tells alice"
assert_eq "$IMG_SUM" "$(sha256sum <"$DEV")" "$DEV after alice's refused destructive job"
ct_as carol benchctl --no-legend run "${SMALL[@]}" --target "$DEV" --set destructive=true --label polkit-carol \
        >"$TEST_DIR/carol.out" 2>&1 ||
        { cat "$TEST_DIR/carol.out" >&2; fail "benchd-carol, allowed org.benchd.benchd1.destructive on $DEV," \
                "could not run a write job on it"; }
assert_eq succeeded "$(sql "select status from runs where label = 'polkit-carol'")" "carol's run on $DEV"
assert_ne "$IMG_SUM" "$(sha256sum <"$DEV")" "$DEV after carol's write job"

log "8d: bob may not cancel alice's job, alice may"
a=$(ct_as alice benchctl submit --workload write --target "$AB" --set size=256M --set block_size=32K \
        --set runtime_ms=60000 --label polkit-cancel | sed -n 's/^Job \([0-9]\+\) queued\.$/\1/p')
[ -n "$a" ] || fail "alice's long job printed no job id"
wait_jstate "$a" running
refused "$ACCESS_DENIED" "bob's cancel of alice's job" ct_as bob benchctl cancel "$a"
assert_contains "$ERR" "org.benchd.benchd1.cancel" "bob's AccessDenied for cancelling"
assert_eq running "$(jstate "$a")" "alice's job after bob's cancel"
ct_as alice benchctl cancel "$a" || fail "benchd-alice could not cancel her own job $a"
wait_jstate "$a" cancelled
for ((i = 0; i < 50; i++)); do [ -z "$(find "$NSPAWN_ROOT$AB" -name '.benchd-*')" ] && break; sleep 0.2; done
assert_eq "" "$(find "$NSPAWN_ROOT$AB" -name '.benchd-*')" ".benchd-* files left in $AB after the cancel"

log "8e: dave, left to the policy's auth_admin, with no agent to ask"
refused org.freedesktop.DBus.Error.InteractiveAuthorizationRequired "dave's submit without interaction" \
        ct_as dave benchctl submit "${SMALL[@]}" --target "$B"
refused "$ACCESS_DENIED" "dave's submit allowing interaction" \
        ct_as dave busctl --allow-interactive-authorization=yes call "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" \
        SubmitJob 'a{sv}' 4 target s "$B" workload s write size s 8M block_size s 32K
assert_contains "$ERR" "no polkit authentication agent" "dave's AccessDenied with interaction and no agent"
in_ct systemctl stop benchd-test-monitor.service

# --- 9. purge ---------------------------------------------------------------------------------------
log "9: apt-get purge benchd keeps the database"
in_ct systemctl enable benchd-run@nightly.timer >/dev/null 2>&1 ||
        fail "systemctl enable benchd-run@nightly.timer failed"
in_ct test -L /etc/systemd/system/timers.target.wants/benchd-run@nightly.timer ||
        fail "enabling benchd-run@nightly.timer made no link"
in_ct touch /var/lib/benchd/stale-file
n_runs=$(sql "select count(*) from runs")
in_ct env DEBIAN_FRONTEND=noninteractive apt-get purge -y benchd >"$TEST_DIR/apt-purge.log" 2>&1 </dev/null ||
        { cat "$TEST_DIR/apt-purge.log" >&2; fail "apt-get purge benchd failed"; }
assert_eq inactive "$(unit_prop benchd.service ActiveState)" "benchd.service after the purge"
assert_eq not-found "$(unit_prop benchd.service LoadState)" "benchd.service's unit after the purge"
for f in /usr/sbin/benchd /usr/bin/benchctl /usr/libexec/benchd-worker /var/lib/benchd/stale-file \
                /etc/systemd/system/timers.target.wants/benchd-run@nightly.timer; do
        ! in_ct test -e "$f" -o -L "$f" || fail "$f is still there after apt-get purge benchd"
done
in_ct test -f /var/lib/benchd/benchd.db || fail "apt-get purge removed the database"
assert_eq "$n_runs" "$(sql "select count(*) from runs")" "runs in the database after the purge"
in_ct test -f /etc/benchd/runs/nightly.conf || fail "apt-get purge removed the administrator's /etc/benchd/runs/nightly.conf"

log "all checks passed (boot took ${NSPAWN_BOOT_MS} ms)"
