#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchctl's side of a fleet run (docs/fleet.md "Fleet runs"): `benchctl run -H h1 -H h2 -H h3`
# through real sshds. Each "host" is a dbus-daemon, a benchd with its own database and an ext4 on a
# loop device of its own, reached through an sshd of its own listening on 127.0.0.N inside a network
# namespace the test makes (its loopback only: no interface of the machine is touched), whose
# authorized key forces systemd-stdio-bridge onto that host's bus; benchctl runs in the namespace
# with the real ssh (a wrapper first in PATH gives it the test's config, as in test-remote.sh).
#   1. a fleet run of a short write job completes on every host and gathers the runs into h1's
#      history (--collect);
#   2. each host's run carries the fleet uuid, its host name and the start time benchctl gave, the
#      same on every host (their clocks are one clock: offset within the tolerance, not corrected);
#   3. the "all hosts" throughput is the sum of the hosts' over the interval when every host was
#      measuring, as this test computes it from each host's SQLite samples;
#   3b. SIGINT to benchctl cancels the job on every host;
#   4. a second gather adds nothing; a gather into h2 adds the two runs it lacks, whole;
#   5. show --fleet from h1's history: the sum equals the common-interval sum from h1's SQLite;
#   6. compare --by host --fleet: one group per host, each host's MiB/s as SQLite has it;
#   7. report --fleet writes a page whose data and charts are the fleet's (drawn in Chromium when
#      there is one);
#   8. h1's benchd.prom has benchd_fleet_* equal to show --fleet's figures (promtool checks it);
#      h3's, whose history has only its own run, has none;
#   9. a host whose benchd is not running is refused by name, and nothing is queued on any host;
#      with --allow-missing the run goes on with the others; a gather with it down names it, exits
#      3 and gathers the others.
# No system bus is reachable (DBUS_SYSTEM_BUS_ADDRESS names no socket).

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 systemd-stdio-bridge ip
require_binaries "$BENCHCTL_BIN"
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
        ensure_deps openssh-server openssh-client >&2 ||
                skip "needs sshd, ssh and ssh-keygen (apt-get install openssh-server openssh-client)"
        [ -x /usr/sbin/sshd ] || skip "needs /usr/sbin/sshd (apt-get install openssh-server)"
fi

NS=benchd-fleet-$$
ip netns add "$NS" 2>/dev/null || skip "cannot make a network namespace (ip netns add)"
defer ip netns delete "$NS"
ip netns exec "$NS" ip link set lo up || fail "cannot bring up lo in namespace $NS"
in_ns() { ip netns exec "$NS" "$@"; }

S=$TEST_DIR/ssh
mkdir -p "$S/bin"
ssh-keygen -q -t ed25519 -N '' -f "$S/client_key"
[ -d /run/sshd ] || mkdir -m 0755 /run/sshd
: >"$S/ssh_config"
: >"$S/known_hosts"
BRIDGE=$(command -v systemd-stdio-bridge)
HOSTS=(h1 h2 h3)
declare -A H_BUS H_DB H_PID H_DIR H_SCRATCH

TOP=$TEST_DIR
FLEET_T=$TOP/fleet-target
mkdir -p "$FLEET_T"
n=0
for h in "${HOSTS[@]}"; do
        n=$((n + 1))
        # lib.sh's helpers make one bus and one benchd in $TEST_DIR: give each host a directory.
        TEST_DIR=$TOP/$h
        mkdir -p "$TEST_DIR"
        DB=$TEST_DIR/benchd.db
        BENCHD_LOG=$TEST_DIR/benchd.log
        BUS_ADDRESS=
        start_bus
        scratch_fs 128M ext4 --direct-io
        # A fleet's job names one target for every host: each benchd runs in a mount namespace of
        # its own where its host's scratch filesystem is bound at that one path.
        printf '#!/bin/sh\nexec unshare -m --propagation private -- "$0.inner" "$@"\n' >"$TEST_DIR/wrap"
        printf '#!/bin/sh\nmount --bind %s %s || exit 1\nexec "$@"\n' "$SCRATCH_DIR" "$FLEET_T" >"$TEST_DIR/wrap.inner"
        chmod +x "$TEST_DIR/wrap" "$TEST_DIR/wrap.inner"
        # Each host writes benchd.prom into a directory of its own (section 8).
        mkdir -p "$TEST_DIR/metrics"
        BENCHD_METRICS_TEXTFILE_DIR=$TEST_DIR/metrics BENCHD_TEST_WRAP=$TEST_DIR/wrap start_benchd
        H_BUS[$h]=$BUS_ADDRESS H_DB[$h]=$DB H_PID[$h]=$BENCHD_PID H_DIR[$h]=$TEST_DIR H_SCRATCH[$h]=$SCRATCH_DIR

        addr=127.0.0.$((n + 1))
        ssh-keygen -q -t ed25519 -N '' -f "$TEST_DIR/host_key"
        printf 'command="%s --bus-path=%s",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding %s\n' \
                "$BRIDGE" "$BUS_ADDRESS" "$(cat "$S/client_key.pub")" >"$TEST_DIR/authorized_keys"
        cat >"$TEST_DIR/sshd_config" <<CONF
Port 22
ListenAddress $addr
HostKey $TEST_DIR/host_key
PidFile $TEST_DIR/sshd.pid
AuthorizedKeysFile $TEST_DIR/authorized_keys
UsePAM no
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CONF
        /usr/sbin/sshd -t -f "$TEST_DIR/sshd_config" || fail "sshd refused $TEST_DIR/sshd_config"
        _LOGS+=("$TEST_DIR/sshd.log")
        # ip execs sshd: $! is sshd's pid (a function in the background would be a subshell's).
        ip netns exec "$NS" /usr/sbin/sshd -D -e -f "$TEST_DIR/sshd_config" >"$TEST_DIR/sshd.log" 2>&1 &
        defer kill_wait "$!"
        in_ns python3 -c 'import socket, sys, time
for i in range(100):
    try:
        socket.create_connection((sys.argv[1], 22), 1); sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$addr" || fail "sshd of $h did not listen on $addr:22 in $NS: $(cat "$TEST_DIR/sshd.log")"
        printf '%s %s\n' "$addr" "$(cut -d' ' -f1,2 "$TEST_DIR/host_key.pub")" >>"$S/known_hosts"
        cat >>"$S/ssh_config" <<CONF
Host $h
        HostName $addr
        IdentityFile $S/client_key
        IdentitiesOnly yes
        UserKnownHostsFile $S/known_hosts
        StrictHostKeyChecking yes
        BatchMode yes
CONF
done
TEST_DIR=$TOP
# benchctl reaches the hosts only through ssh and --collect: the system bus it would gather into
# without --collect ("this host's" history) is a socket that does not exist (start_bus pointed
# DBUS_SYSTEM_BUS_ADDRESS at the last host's bus).
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TOP/no-system-bus
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$S/ssh_config" >"$S/bin/ssh"
chmod +x "$S/bin/ssh"

# fleet ARGS...: benchctl ARGS in the namespace, through the test's ssh.
fleet() {
        run in_ns env PATH="$S/bin:$PATH" "$BENCHCTL_BIN" "$@"
}
hsql() { sqlite3 -batch -noheader -cmd '.timeout 5000' "${H_DB[$1]}" "$2"; }
count_jobs() {
        local h total=0
        for h in "${HOSTS[@]}"; do
                total=$((total + $(hsql "$h" "select count(*) from jobs")))
        done
        echo "$total"
}

# ---- 1. a fleet run ----
log "1. a fleet run on ${HOSTS[*]}"
printf '# the fleet\nroot@h1\n\n  root@h2   # second\n' >"$TOP/hosts"
JOB=(--workload write --target "$FLEET_T" --set size=4M --set block_size=64K --set direct=true
        --set runtime_ms=1500 --set sample_ms=250)
fleet run --hosts "$TOP/hosts" -H root@h3 --collect root@h1 "${JOB[@]}"
[ "$RC" = 0 ] || fail "the fleet run exited $RC: $OUT"
log "$OUT"
UUID=$(sed -n 's/^Fleet run \([0-9a-f-]*\):$/\1/p' <<<"$OUT")
[ -n "$UUID" ] || fail "the fleet run named no uuid: $OUT"
# benchctl run gathered every host's run into h1's history at its end (--collect).
assert_contains "$OUT" "Gathering fleet run $UUID into root@h1:" "the run's gather"
assert_eq "3|2" "$(hsql h1 "select count(*), count(origin_host) from runs where fleet_uuid = '$UUID'")" \
        "h1's runs of the fleet after the run gathered them (all, imported)"

# ---- 2. every host's run ----
log "2. each host's run carries the uuid and the one start time"
starts=()
for h in "${HOSTS[@]}"; do
        row=$(hsql "$h" "select status, fleet_host, fleet_start_corrected, count(*) from runs where fleet_uuid = '$UUID' and origin_host is null")
        assert_eq "succeeded|root@$h|0|1" "$row" "$h's run of the fleet (status, host, corrected, runs)"
        start=$(hsql "$h" "select fleet_start_usec from runs where fleet_uuid = '$UUID' and origin_host is null")
        began=$(hsql "$h" "select started_usec from runs where fleet_uuid = '$UUID' and origin_host is null")
        assert_le "$start" "$began" "$h began measuring no earlier than its start time"
        starts+=("$start")
        assert_contains "$OUT" "root@$h " "the summary's line of $h"
done
assert_eq "${starts[0]}" "${starts[1]}" "the start times given h1 and h2"
assert_eq "${starts[0]}" "${starts[2]}" "the start times given h1 and h3"

# ---- 3. the all-hosts throughput ----
log "3. the all-hosts throughput over the common interval, from SQLite"
# Each host's samples on benchctl's clock: the run began at started_usec - fleet_clock_offset_us;
# a sample ends t_ms after it and lasted interval_us. The common interval is from the last host's
# begin to the first host's last sample end; a host's rate is its bytes over the time of its
# samples inside it (a sample beginning up to 1 ms before it counts: t_ms is in ms).
for h in "${HOSTS[@]}"; do
        hsql "$h" "select r.started_usec - r.fleet_clock_offset_us, s.t_ms, s.interval_us,
                          s.bytes_read + s.bytes_written
                   from runs r join samples s on s.run_id = r.id where r.fleet_uuid = '$UUID' and r.origin_host is null order by s.t_ms" |
                sed "s/^/$h|/"
done >"$TOP/samples"
expected=$(python3 - "$TOP/samples" <<'PY'
import sys
hosts = {}
for line in open(sys.argv[1]):
    h, base, t_ms, iv, b = line.strip().split("|")
    base, t_ms, iv, b = int(base), int(t_ms), int(iv), int(b)
    hosts.setdefault(h, {"base": base, "s": []})["s"].append((base + t_ms * 1000 - iv, base + t_ms * 1000, b))
cs = max(v["base"] for v in hosts.values())
ce = min(v["s"][-1][1] for v in hosts.values())
total = 0.0
for v in hosts.values():
    inside = [s for s in v["s"] if s[0] >= cs - 1000 and s[1] <= ce]
    assert inside, "a host has no sample in the common interval"
    total += sum(s[2] for s in inside) * 1e6 / sum(s[1] - s[0] for s in inside)
print("%.2f" % (total / 1048576))
PY
) || fail "no common interval in the hosts' samples: $(cat "$TOP/samples")"
got=$(sed -n 's/^  all hosts, step 0: \([0-9.]*\) MiB\/s.*/\1/p' <<<"$OUT")
[ -n "$got" ] || fail "the summary has no all-hosts throughput: $OUT"
assert_eq "$expected" "$got" "the all-hosts MiB/s (the hosts' sum over the common interval)"
assert_contains "$OUT" "first done root@h" "the first host done"

# ---- 3b. SIGINT ----
log "3b. SIGINT cancels the job on every host"
jobs_before=$(count_jobs)
# ip and env exec: $! is benchctl's pid.
ip netns exec "$NS" env PATH="$S/bin:$PATH" "$BENCHCTL_BIN" run -H root@h1 -H root@h2 --workload write \
        --target "$FLEET_T" --set size=4M --set block_size=64K --set direct=true --set runtime_ms=600000 \
        >"$TOP/int.out" 2>&1 &
INT_PID=$!
defer kill_wait "$INT_PID"
both_running() {
        local h
        for h in h1 h2; do
                [ "$(hsql "$h" "select count(*) from jobs where state = 'running' and id > 1")" -gt 0 ] || return 1
        done
}
wait_for 60 both_running || fail "the fleet job did not run on h1 and h2: $(cat "$TOP/int.out")"
kill -INT "$INT_PID"
rc=0
wait "$INT_PID" || rc=$?
assert_eq 1 "$rc" "benchctl's exit status after SIGINT"
assert_contains "$(cat "$TOP/int.out")" "cancelling the job on every host" "what benchctl said"
for h in h1 h2; do
        ended_cancelled() { [ "$(hsql "$1" "select state from jobs order by id desc limit 1")" = cancelled ]; }
        wait_for 30 ended_cancelled "$h" || fail "$h's fleet job was not cancelled: $(hsql "$h" "select id, state from jobs"); benchctl said: $(cat "$TOP/int.out")"
done
assert_eq "$((jobs_before + 2))" "$(count_jobs)" "jobs after the interrupted run (one per host)"

# ---- 4. gather ----
log "4. gather: a second gather adds nothing; into another history, the runs it lacks"
fleet gather "$UUID" -H root@h1 -H root@h2 -H root@h3 --collect root@h1
[ "$RC" = 0 ] || fail "gather into h1 again exited $RC: $OUT"
assert_contains "$OUT" "Nothing new: all 3 runs gathered were already in that history." "a second gather"
assert_eq 3 "$(hsql h1 "select count(*) from runs where fleet_uuid = '$UUID'")" "h1's runs of the fleet after it"
fleet gather "$UUID" --hosts "$TOP/hosts" -H root@h3 --collect root@h2
[ "$RC" = 0 ] || fail "gather into h2 exited $RC: $OUT"
assert_contains "$OUT" "Gathered 2 new runs; 1 already there." "the first gather into h2"
assert_eq "3|root@h1,root@h3" "$(hsql h2 "select count(*), group_concat(origin_host) from
        (select origin_host from runs where fleet_uuid = '$UUID' order by origin_host)")" "h2's runs of the fleet"
# Each gathered run is the host's own, whole: its uuid, its samples and its histogram.
for h in h1 h3; do
        src=$(hsql "$h" "select r.uuid, (select count(*) from samples where run_id = r.id),
                         (select count(*) from run_histograms where run_id = r.id) from runs r
                         where fleet_uuid = '$UUID' and origin_host is null")
        dst=$(hsql h2 "select r.uuid, (select count(*) from samples where run_id = r.id),
                       (select count(*) from run_histograms where run_id = r.id) from runs r
                       where fleet_uuid = '$UUID' and origin_host = 'root@$h'")
        assert_eq "$src" "$dst" "$h's run gathered into h2 (uuid, samples, histogram buckets)"
done
fleet --json gather "$UUID" --hosts "$TOP/hosts" -H root@h3 --collect root@h2
[ "$RC" = 0 ] || fail "gather --json into h2 again exited $RC: $OUT"
assert_eq "0 3" "$(python3 -c 'import json, sys; o = json.loads(sys.argv[1]); print(o["imported"], o["skipped"])' "$OUT")" \
        "gather --json into h2 again (imported, skipped)"
fleet gather "$UUID" -H root@h1
assert_eq 3 "$RC" "gather without --collect where no benchd runs (no system bus)"
assert_contains "$OUT" "cannot connect to the system bus, the history to gather into" "what gather says of it"
fleet gather not-a-uuid -H root@h1
assert_eq 2 "$RC" "gather of something that is not a uuid"
assert_contains "$OUT" "'not-a-uuid' is not a fleet run's uuid" "the refusal names what was wrong"
fleet gather "$UUID"
assert_eq 2 "$RC" "gather without hosts"
assert_contains "$OUT" "name the fleet run's hosts" "the refusal says what is missing"

# ---- 5. show --fleet ----
log "5. show --fleet: the sum from one history equals the hosts' common-interval sum in its SQLite"
# The same computation as in 3, from h1's history alone (its own run and the two it gathered).
hsql h1 "select r.fleet_host, r.started_usec - r.fleet_clock_offset_us, s.t_ms, s.interval_us,
                s.bytes_read + s.bytes_written
         from runs r join samples s on s.run_id = r.id where r.fleet_uuid = '$UUID' order by s.t_ms" >"$TOP/samples-h1"
expected_h1=$(python3 - "$TOP/samples-h1" <<'PY'
import sys
hosts = {}
for line in open(sys.argv[1]):
    h, base, t_ms, iv, b = line.strip().split("|")
    base, t_ms, iv, b = int(base), int(t_ms), int(iv), int(b)
    hosts.setdefault(h, {"base": base, "s": []})["s"].append((base + t_ms * 1000 - iv, base + t_ms * 1000, b))
assert len(hosts) == 3, "h1's history has not three hosts' samples"
cs = max(v["base"] for v in hosts.values())
ce = min(v["s"][-1][1] for v in hosts.values())
total = 0.0
for v in hosts.values():
    inside = [s for s in v["s"] if s[0] >= cs - 1000 and s[1] <= ce]
    assert inside, "a host has no sample in the common interval"
    total += sum(s[2] for s in inside) * 1e6 / sum(s[1] - s[0] for s in inside)
print("%.2f" % (total / 1048576))
PY
) || fail "no common interval in h1's gathered samples: $(cat "$TOP/samples-h1")"
assert_eq "$expected" "$expected_h1" "the sum from h1's history and from the three hosts' (section 3)"
fleet -H root@h1 show --fleet "$UUID"
[ "$RC" = 0 ] || fail "show --fleet exited $RC: $OUT"
log "$OUT"
got=$(sed -n 's/^  all hosts, step 0: \([0-9.]*\) MiB\/s.*/\1/p' <<<"$OUT")
assert_eq "$expected_h1" "$got" "show --fleet's all-hosts MiB/s"
for h in "${HOSTS[@]}"; do
        assert_contains "$OUT" "root@$h " "show --fleet's line of $h"
done
assert_contains "$OUT" "latency p50" "the all-hosts latency from the merged histograms"
fleet -H root@h1 --json show --fleet "$UUID"
[ "$RC" = 0 ] || fail "show --fleet --json exited $RC: $OUT"
assert_eq "3 $expected_h1" "$(python3 -c 'import json, sys; s = json.loads(sys.argv[1])["all_hosts"][0]
print(s["hosts"], "%.2f" % s["mib_per_s"])' "$OUT")" "show --fleet --json (hosts, MiB/s)"
fleet -H root@h3 show --fleet not-a-uuid
assert_eq 2 "$RC" "show --fleet of something that is not a uuid"
fleet -H root@h3 show --fleet 00000000-0000-4000-8000-000000000000
assert_eq 4 "$RC" "show --fleet of a fleet run this history does not have"
assert_contains "$OUT" "gather its hosts' runs first" "what show --fleet says of a fleet run it has not"

# ---- 6. compare --by host --fleet ----
log "6. compare --by host --fleet: the fleet run's hosts as groups, each host's MiB/s from SQLite"
fleet -H root@h1 --json compare --by host --fleet "$UUID"
[ "$RC" = 0 ] || fail "compare --by host --fleet exited $RC: $OUT"
printf '%s' "$OUT" >"$TOP/compare.json"
got=$(python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
assert o["by"] == "fleet_host", o["by"]
print(" ".join(sorted(o["groups"])))
for c in sorted(o["cells"], key=lambda c: c["group"]):
    print(c["group"], c["runs"], "%.4f" % c["mib_per_s"]["mean"])' "$TOP/compare.json") ||
        fail "compare --by host --fleet --json is not what it should be: $OUT"
want="root@h1 root@h2 root@h3"
for h in "${HOSTS[@]}"; do
        want+=$'\n'"root@$h 1 $(hsql h1 "select printf('%.4f', mib_per_s) from run_summary
                                         where fleet_uuid = '$UUID' and fleet_host = 'root@$h'")"
done
assert_eq "$want" "$got" "compare --by host --fleet (groups; per host: runs, mean MiB/s)"
fleet -H root@h1 compare --by host --fleet "$UUID"
[ "$RC" = 0 ] || fail "compare --by host --fleet (table) exited $RC: $OUT"
assert_contains "$OUT" "root@h2" "the table's column of h2"
fleet -H root@h1 compare --fleet "$UUID"
assert_eq 2 "$RC" "compare --fleet without --by"

# ---- 7. report --fleet ----
log "7. report --fleet: a page with the sum over time and a chart per host"
CHECK=$SOURCE_ROOT/tests/integration/report_check.py
if [ -f /usr/share/javascript/chart.js/chart.min.js ]; then
        PAGE=$TOP/fleet.html
        fleet -H root@h1 report --fleet "$UUID" -o "$PAGE"
        [ "$RC" = 0 ] || fail "report --fleet exited $RC: $OUT"
        [ -s "$PAGE" ] || fail "report --fleet wrote no page: $OUT"
        python3 "$CHECK" data "$PAGE" >"$PAGE.json" || fail "cannot read the data of $PAGE"
        got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = d["fleet"]; s = f["all_hosts"][0]
print(d["kind"], " ".join(h["host"] for h in f["hosts"]), s["hosts"], "%.2f" % s["mib_per_s"], len(s["timeline"]) > 0,
      all(len(h["runs"][0]["samples"]) > 0 for h in f["hosts"]))' "$PAGE.json") ||
                fail "the page's data is not a fleet run's: $(head -c 2000 "$PAGE.json")"
        assert_eq "fleet root@h1 root@h2 root@h3 3 $expected_h1 True True" "$got" \
                "the page's data (kind, hosts, hosts in the sum, MiB/s, a sum over time, each host's samples)"
        assert_eq 4 "$(python3 "$CHECK" charts "$PAGE")" "charts the page calls for (the sum and one per host)"
        CHROMIUM=
        for c in chromium chromium-browser; do
                command -v "$c" >/dev/null 2>&1 && CHROMIUM=$c && break
        done
        if [ -n "$CHROMIUM" ]; then
                python3 "$SOURCE_ROOT/tests/integration/browser.py" "$CHROMIUM" "$TOP/chromium" "$PAGE" \
                        >"$TOP/browser.log" 2>&1 || fail "chromium: $(tail -n 5 "$TOP/browser.log")"
                state=$(python3 "$CHECK" state "$PAGE.dom") || fail "the fleet page: $state"
                assert_eq "True [] 4" "$(python3 -c 'import json, sys; d = json.loads(sys.argv[1])
print(d["done"], json.dumps(d["errors"]), d["charts"])' "$state")" "the page in $CHROMIUM (done, errors, charts drawn)"
                if grep -E 'CONSOLE|Uncaught' "$PAGE.console" | grep -q .; then
                        fail "the fleet page's console: $(grep -E 'CONSOLE|Uncaught' "$PAGE.console" | head -5)"
                fi
        else
                log "   no chromium: the page is checked without a browser (apt-get install chromium)"
        fi
else
        log "   skipped: no /usr/share/javascript/chart.js/chart.min.js (apt-get install libjs-chart.js)"
fi

# ---- 8. Prometheus ----
log "8. benchd.prom of the collector: the fleet's sum; of a host that gathered nothing: none"
# h1's history has the three hosts' runs (gathered by the run, section 1); h3's only its own.
fleet_prom() { grep -q '^benchd_fleet_hosts{' "${H_DIR[h1]}/metrics/benchd.prom"; }
wait_for 30 fleet_prom || fail "h1's benchd.prom has no fleet figures: $(cat "${H_DIR[h1]}/metrics/benchd.prom")"
if command -v promtool >/dev/null; then
        run promtool check metrics <"${H_DIR[h1]}/metrics/benchd.prom"
        [ "$RC" = 0 ] || fail "promtool check metrics refused h1's benchd.prom: $OUT"
else
        log "   no promtool: the file is read without it (apt-get install prometheus)"
fi
fleet -H root@h1 --json show --fleet "$UUID"
[ "$RC" = 0 ] || fail "show --fleet --json exited $RC: $OUT"
want=$(python3 -c 'import json, sys; s = json.loads(sys.argv[1])["all_hosts"][0]
print("%d %.0f %.0f" % (s["hosts"], s["bytes_per_s"], s["iops"]))' "$OUT")
got=$(python3 - "${H_DIR[h1]}/metrics/benchd.prom" <<'PY'
import re, sys
v = {}
for line in open(sys.argv[1]):
    m = re.match(r'^(benchd_fleet_\w+)\{([^}]*)\} (\S+)$', line)
    if m:
        assert 'workload="write"' in m.group(2) and 'block_size="65536"' in m.group(2), line
        assert m.group(1) not in v, "two fleet series: " + line
        v[m.group(1)] = float(m.group(3))
print("%d %.0f %.0f" % (v["benchd_fleet_hosts"], v["benchd_fleet_throughput_bytes_per_second"], v["benchd_fleet_iops"]))
PY
) || fail "h1's benchd.prom fleet figures are not what they should be: $(grep fleet "${H_DIR[h1]}/metrics/benchd.prom")"
assert_eq "$want" "$got" "benchd_fleet_hosts, _throughput_bytes_per_second and _iops against show --fleet"
assert_not_contains "$(cat "${H_DIR[h3]}/metrics/benchd.prom")" "benchd_fleet_hosts{" \
        "h3's benchd.prom (its own run only: no fleet sum)"

# ---- 9. a host without benchd ----
log "9. a host whose benchd is not running is refused by name"
BENCHD_PID=${H_PID[h3]} BUS_ADDRESS=${H_BUS[h3]} stop_benchd
jobs_before=$(count_jobs)
fleet run -H root@h1 -H root@h2 -H root@h3 "${JOB[@]}"
assert_eq 3 "$RC" "the exit status of a fleet run with a host unreachable"
assert_contains "$OUT" "host root@h3 is unreachable" "the refusal names the host"
assert_not_contains "$OUT" "host root@h1 is unreachable" "h1 answered"
assert_contains "$OUT" "nothing was submitted" "the refusal says nothing was submitted"
assert_eq "$jobs_before" "$(count_jobs)" "jobs on the hosts after the refusal"

log "   with --allow-missing, the others run (--json)"
rc=0
in_ns env PATH="$S/bin:$PATH" "$BENCHCTL_BIN" --json run -H root@h1 -H root@h2 -H root@h3 --allow-missing "${JOB[@]}" \
        >"$TOP/fleet.json" 2>"$TOP/fleet.err" || rc=$?
[ "$rc" = 0 ] || fail "the fleet run with --allow-missing exited $rc: $(cat "$TOP/fleet.err" "$TOP/fleet.json")"
assert_contains "$(cat "$TOP/fleet.err")" "host root@h3 is unreachable" "--allow-missing still names the host"
summary=$(python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
print(o["fleet_uuid"], " ".join("%s:%s" % (h["host"], h.get("state", "missing") if h["reachable"] else "missing")
      for h in o["hosts"]), o["all_hosts"][0]["hosts"], o["all_hosts"][0]["common_usec"] > 0)' "$TOP/fleet.json") ||
        fail "the --json summary is not what it should be: $(cat "$TOP/fleet.json")"
UUID2=${summary%% *}
assert_eq "root@h1:succeeded root@h2:succeeded root@h3:missing 2 True" "${summary#* }" "the --json summary"
for h in h1 h2; do
        assert_eq succeeded "$(hsql "$h" "select status from runs where fleet_uuid = '$UUID2'")" "$h's run with --allow-missing"
done

log "   gather with h3 down: h3 named, exit status 3, h1's and h2's runs gathered"
fleet gather "$UUID2" -H root@h1 -H root@h2 -H root@h3 --collect root@h1
assert_eq 3 "$RC" "the exit status of a gather with a host unreachable"
assert_contains "$OUT" "host root@h3 is unreachable" "the gather names the host"
assert_contains "$OUT" "Gathered 1 new run; 1 already there." "what h1 and h2 gave"
assert_eq 2 "$(hsql h1 "select count(*) from runs where fleet_uuid = '$UUID2'")" "h1's runs of the second fleet run"

log "ok"
