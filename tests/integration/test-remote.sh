#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchctl -H USER@HOST through a real sshd (docs/fleet.md "Many machines"): sd-bus runs
# `ssh -xT -- HOST systemd-stdio-bridge` and talks D-Bus over that pipe. The "remote" is this
# machine: an sshd of the test's own on 127.0.0.1:<free port> (its host key, authorized keys and
# pid file in the test directory, no PAM), whose authorized key forces the command
# systemd-stdio-bridge --bus-path= the test's private bus, where benchd runs. The client side is
# the real ssh, given the test's config (port, key, known host) by a wrapper named ssh first in
# PATH, since sd-bus looks ssh up in PATH and ssh reads ~/.ssh/config of the passwd home, not $HOME.
# Then jobs, results, show and export through -H say what they say on the bus directly.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 systemd-stdio-bridge
require_binaries "$BENCHCTL_BIN"
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
        ensure_deps openssh-server openssh-client >&2 ||
                skip "needs sshd, ssh and ssh-keygen (apt-get install openssh-server openssh-client)"
        [ -x /usr/sbin/sshd ] || skip "needs /usr/sbin/sshd (apt-get install openssh-server)"
fi

start_bus
scratch_fs 128M ext4 --direct-io
start_benchd
run benchctl run --workload write --target "$SCRATCH_DIR" --set size=4M --set block_size=64K --set direct=true
[ "$RC" = 0 ] || fail "benchctl run exited $RC: $OUT"
RUN=$(sql "SELECT max(id) FROM runs")

# ---- the sshd ----
S=$TEST_DIR/ssh
mkdir -p "$S/bin"
ssh-keygen -q -t ed25519 -N '' -f "$S/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$S/client_key"
BRIDGE=$(command -v systemd-stdio-bridge)
printf 'command="%s --bus-path=%s",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding %s\n' \
        "$BRIDGE" "$BUS_ADDRESS" "$(cat "$S/client_key.pub")" >"$S/authorized_keys"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$S/sshd_config" <<CONF
Port $PORT
ListenAddress 127.0.0.1
HostKey $S/host_key
PidFile $S/sshd.pid
AuthorizedKeysFile $S/authorized_keys
UsePAM no
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CONF
# sshd's privilege separation directory (made at boot by the package's tmpfiles.d entry).
[ -d /run/sshd ] || mkdir -m 0755 /run/sshd
/usr/sbin/sshd -t -f "$S/sshd_config" || fail "sshd refused the test's config $S/sshd_config"
_LOGS+=("$S/sshd.log")
/usr/sbin/sshd -D -e -f "$S/sshd_config" >"$S/sshd.log" 2>&1 &
SSHD_PID=$!
defer kill_wait "$SSHD_PID"
wait_for 10 python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$PORT" ||
        fail "sshd did not listen on 127.0.0.1:$PORT: $(cat "$S/sshd.log")"

printf '[127.0.0.1]:%s %s\n' "$PORT" "$(cut -d' ' -f1,2 "$S/host_key.pub")" >"$S/known_hosts"
cat >"$S/ssh_config" <<CONF
Host testhost
        HostName 127.0.0.1
        Port $PORT
        IdentityFile $S/client_key
        IdentitiesOnly yes
        UserKnownHostsFile $S/known_hosts
        StrictHostKeyChecking yes
        BatchMode yes
CONF
printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$S/ssh_config" >"$S/bin/ssh"
chmod +x "$S/bin/ssh"

# remote ARGS...: benchctl -H root@testhost ARGS, through ssh.
remote() {
        PATH="$S/bin:$PATH" "$BENCHCTL_BIN" -H root@testhost "$@"
}

# The pipe itself: ssh to the forced command answers D-Bus (busctl over the same transport).
run env PATH="$S/bin:$PATH" busctl -H root@testhost --no-pager call org.benchd.Benchd1 /org/benchd/Benchd1 \
        org.freedesktop.DBus.Properties Get ss org.benchd.Benchd1.Manager Version
[ "$RC" = 0 ] || fail "busctl -H root@testhost did not reach benchd through sshd: $OUT $(tail -n 20 "$S/sshd.log")"

# ---- every verb that reads: the same through -H as on the bus ----
for args in "jobs --all --json" "results --json" "show $RUN --json" "export --format=json" \
        "export --format=benchd $RUN" "devices --json"; do
        # shellcheck disable=SC2086
        run remote $args
        [ "$RC" = 0 ] || fail "benchctl -H root@testhost $args exited $RC: $OUT $(tail -n 20 "$S/sshd.log")"
        printf '%s\n' "$OUT" >"$TEST_DIR/remote.out"
        # shellcheck disable=SC2086
        run benchctl $args
        [ "$RC" = 0 ] || fail "benchctl $args exited $RC: $OUT"
        [ "$(cat "$TEST_DIR/remote.out")" = "$OUT" ] ||
                fail "benchctl $args through -H differs from the bus: $(diff <(printf '%s\n' "$OUT") "$TEST_DIR/remote.out" | head -n 20)"
        log "-H root@testhost $args: $(wc -c <"$TEST_DIR/remote.out") bytes, as on the bus"
done
# It did go through sshd: one publickey login a connection.
N=$(grep -c 'Accepted publickey for root' "$S/sshd.log" || true)
[ "$N" -ge 7 ] || fail "sshd logged $N logins, not one a benchctl -H call: $(tail -n 20 "$S/sshd.log")"
run remote show "$RUN"
[ "$RC" = 0 ] || fail "benchctl -H root@testhost show $RUN exited $RC: $OUT"
assert_contains "$OUT" "write" "show through -H"

# A job submitted through -H runs on the remote's benchd.
run remote run --workload read --target "$SCRATCH_DIR" --set size=4M --set block_size=64K --set direct=true
[ "$RC" = 0 ] || fail "benchctl -H root@testhost run exited $RC: $OUT"
assert_eq "$(sql "SELECT count(*) FROM runs WHERE workload = 'read' AND status = 'succeeded'")" 1 "the run submitted through -H"

# And a host that is not there: the unreachable exit code, not a hang.
run env PATH="$S/bin:$PATH" timeout 60 "$BENCHCTL_BIN" -H root@127.0.0.1:1 jobs
[ "$RC" != 0 ] && [ "$RC" != 124 ] || fail "benchctl -H to a closed port exited $RC: $OUT"
