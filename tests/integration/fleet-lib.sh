# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# A fleet of hosts on this machine for the fleet tests (sourced after lib.sh). Each host is a
# network namespace of its own, made here, with one interface (a veth) whose peer is on a bridge
# in a namespace of its own; benchctl runs in one more namespace on that bridge. The addresses are
# 192.0.2.0/24 (TEST-NET-1), and only inside those namespaces: no interface, route or address of
# the machine is touched. Per host:
#   - a dbus-daemon and a benchd on a database of its own, both in the host's namespace, benchd in
#     a mount namespace of its own where the host's loop-backed ext4 is bound at the one target
#     path every host's job names ($FLEET_T);
#   - an sshd on the host's address whose authorized key forces systemd-stdio-bridge onto that
#     host's bus (the -H transport, as in test-remote.sh).
# benchctl (fleet_ctl) runs in the client's namespace with the real ssh, given the test's config by
# a wrapper first in PATH. Everything is torn down by pid (and the namespaces deleted) on exit,
# also on failure, through lib.sh's defer stack.
#
#   fleet_setup H1 H2 ...        the hosts, named as ssh knows them (root@H is the -H argument)
#   fleet_start_benchd H         (re)start H's benchd; FLEET_BENCHD_ENV[H] is put before it (env)
#   fleet_ctl ARGS...            benchctl ARGS in the client's namespace ($OUT, $RC as run sets them)
#   fleet_ctl_bg OUT ARGS...     the same in the background, stdout to OUT and stderr to OUT.err;
#                                FLEET_CTL_PID its pid
#   fleet_link H up|down         H's veth on the bridge (down: the cable pulled, no reset sent)
#   hsql H QUERY                 a query on H's database
#   hbus H ARGS...               busctl on H's bus

require_root
require_cmd dbus-daemon busctl python3 sqlite3 systemd-stdio-bridge ip unshare
require_binaries "$BENCHCTL_BIN"
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
        ensure_deps openssh-server openssh-client >&2 ||
                skip "needs sshd, ssh and ssh-keygen (apt-get install openssh-server openssh-client)"
        [ -x /usr/sbin/sshd ] || skip "needs /usr/sbin/sshd (apt-get install openssh-server)"
fi

FLEET_TOP=$TEST_DIR
FLEET_T=$FLEET_TOP/fleet-target
FLEET_SSH=$FLEET_TOP/ssh
FLEET_BR_NS=benchd-fbr-$$
FLEET_CTL_NS=benchd-fctl-$$
FLEET_HOSTS=()
declare -A FLEET_NS FLEET_ADDR FLEET_BUS FLEET_DB FLEET_PID FLEET_DIR FLEET_SCRATCH FLEET_SSHD FLEET_BENCHD_ENV

# _fleet_netns NAME: a network namespace, deleted on exit, its lo up.
_fleet_netns() {
        ip netns add "$1" 2>/dev/null || skip "cannot make a network namespace (ip netns add $1)"
        defer ip netns delete "$1"
        ip -n "$1" link set lo up || fail "cannot bring up lo in namespace $1"
}

# _fleet_plug NS ADDR PEER: a veth with NS's end eth0 at ADDR/24 and the bridge's end PEER on br0.
_fleet_plug() {
        local ns=$1 addr=$2 peer=$3
        ip -n "$FLEET_BR_NS" link add "$peer" type veth peer name eth0 netns "$ns" ||
                skip "cannot make a veth pair (ip link add type veth: no veth in this kernel?)"
        ip -n "$FLEET_BR_NS" link set "$peer" master br0 up
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set eth0 up
}

# _fleet_wait_listen ADDR: until a TCP connection from the client's namespace to ADDR:22 succeeds
# (through the bridge: the path every later call takes).
_fleet_wait_listen() {
        ip netns exec "$FLEET_CTL_NS" "$PYTHON3" -c 'import socket, sys, time
for i in range(300):
    try:
        socket.create_connection((sys.argv[1], 22), 1).close(); sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$1"
}

fleet_start_benchd() {
        local h=$1
        TEST_DIR=${FLEET_DIR[$h]} DB=${FLEET_DB[$h]} BENCHD_LOG=${FLEET_DIR[$h]}/benchd.log BUS_ADDRESS=${FLEET_BUS[$h]}
        # The host's namespace, then a mount namespace of benchd's own with the host's filesystem at
        # the fleet's one target path; then what the test puts before benchd (libfaketime).
        printf '#!/bin/sh\nexec ip netns exec %s unshare -m --propagation private -- "$0.inner" "$@"\n' \
                "${FLEET_NS[$h]}" >"$TEST_DIR/wrap"
        printf '#!/bin/sh\nmount --bind %s %s || exit 1\nexec %s "$@"\n' "${FLEET_SCRATCH[$h]}" "$FLEET_T" \
                "${FLEET_BENCHD_ENV[$h]:+env ${FLEET_BENCHD_ENV[$h]}}" >"$TEST_DIR/wrap.inner"
        chmod +x "$TEST_DIR/wrap" "$TEST_DIR/wrap.inner"
        BENCHD_TEST_WRAP=$TEST_DIR/wrap start_benchd
        FLEET_PID[$h]=$BENCHD_PID
        TEST_DIR=$FLEET_TOP
}

# fleet_stop_benchd H [SIGNAL]: signals H's benchd by pid and waits for it (lib.sh's stop_benchd).
fleet_stop_benchd() {
        BENCHD_PID=${FLEET_PID[$1]} BUS_ADDRESS=${FLEET_BUS[$1]} stop_benchd "${2:-TERM}"
        FLEET_PID[$1]=
}

fleet_setup() {
        local h n=0 bridge
        bridge=$(command -v systemd-stdio-bridge)
        _fleet_netns "$FLEET_BR_NS"
        ip -n "$FLEET_BR_NS" link add br0 type bridge 2>/dev/null || skip "cannot make a bridge (ip link add type bridge)"
        ip -n "$FLEET_BR_NS" link set br0 up
        _fleet_netns "$FLEET_CTL_NS"
        _fleet_plug "$FLEET_CTL_NS" 192.0.2.1 vbc

        mkdir -p "$FLEET_SSH/bin" "$FLEET_SSH/nsbin" "$FLEET_T"
        ssh-keygen -q -t ed25519 -N '' -f "$FLEET_SSH/client_key"
        [ -d /run/sshd ] || mkdir -m 0755 /run/sshd
        : >"$FLEET_SSH/ssh_config"
        : >"$FLEET_SSH/known_hosts"
        for h in "$@"; do
                n=$((n + 1))
                FLEET_HOSTS+=("$h")
                FLEET_NS[$h]=benchd-f$n-$$
                FLEET_ADDR[$h]=192.0.2.$((10 + n))
                FLEET_DIR[$h]=$FLEET_TOP/$h
                mkdir -p "${FLEET_DIR[$h]}"
                _fleet_netns "${FLEET_NS[$h]}"
                _fleet_plug "${FLEET_NS[$h]}" "${FLEET_ADDR[$h]}" "vb$n"

                # lib.sh's helpers make one bus and one benchd in $TEST_DIR: each host has a directory.
                TEST_DIR=${FLEET_DIR[$h]}
                BUS_ADDRESS=
                # The host's dbus-daemon in its namespace: ip execs it, so $! in start_bus is its pid.
                printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "${FLEET_NS[$h]}" "$(command -v dbus-daemon)" \
                        >"$FLEET_SSH/nsbin/dbus-daemon"
                chmod +x "$FLEET_SSH/nsbin/dbus-daemon"
                PATH=$FLEET_SSH/nsbin:$PATH start_bus
                FLEET_BUS[$h]=$BUS_ADDRESS
                FLEET_DB[$h]=$TEST_DIR/benchd.db
                scratch_fs 128M ext4 --direct-io
                FLEET_SCRATCH[$h]=$SCRATCH_DIR
                TEST_DIR=$FLEET_TOP
                fleet_start_benchd "$h"

                TEST_DIR=${FLEET_DIR[$h]}
                ssh-keygen -q -t ed25519 -N '' -f "$TEST_DIR/host_key"
                printf 'command="%s --bus-path=%s",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding %s\n' \
                        "$bridge" "${FLEET_BUS[$h]}" "$(cat "$FLEET_SSH/client_key.pub")" >"$TEST_DIR/authorized_keys"
                cat >"$TEST_DIR/sshd_config" <<CONF
Port 22
ListenAddress ${FLEET_ADDR[$h]}
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
                ip netns exec "${FLEET_NS[$h]}" /usr/sbin/sshd -D -e -f "$TEST_DIR/sshd_config" >"$TEST_DIR/sshd.log" 2>&1 &
                FLEET_SSHD[$h]=$!
                defer kill_wait "${FLEET_SSHD[$h]}"
                _fleet_wait_listen "${FLEET_ADDR[$h]}" ||
                        fail "sshd of $h did not answer on ${FLEET_ADDR[$h]}:22 from $FLEET_CTL_NS: $(cat "$TEST_DIR/sshd.log")"
                printf '%s %s\n' "${FLEET_ADDR[$h]}" "$(cut -d' ' -f1,2 "$TEST_DIR/host_key.pub")" >>"$FLEET_SSH/known_hosts"
                # ServerAlive: a host cut off (fleet_link down) ends its ssh within ~3 s, so that
                # benchctl hears of it as a closed connection rather than waiting out its calls.
                cat >>"$FLEET_SSH/ssh_config" <<CONF
Host $h
        HostName ${FLEET_ADDR[$h]}
        IdentityFile $FLEET_SSH/client_key
        IdentitiesOnly yes
        UserKnownHostsFile $FLEET_SSH/known_hosts
        StrictHostKeyChecking yes
        BatchMode yes
        ConnectTimeout 10
        ServerAliveInterval 1
        ServerAliveCountMax 3
CONF
                TEST_DIR=$FLEET_TOP
        done
        printf '#!/bin/sh\nexec %s -F %s "$@"\n' "$(command -v ssh)" "$FLEET_SSH/ssh_config" >"$FLEET_SSH/bin/ssh"
        chmod +x "$FLEET_SSH/bin/ssh"
        # The controller has no benchd of its own: lib.sh's start_bus left the system bus address at
        # the last host's bus, into which benchctl run -H ... would gather the others' runs.
        export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$FLEET_TOP/no-system-bus
}

fleet_ctl() {
        run ip netns exec "$FLEET_CTL_NS" env PATH="$FLEET_SSH/bin:$PATH" "$BENCHCTL_BIN" "$@"
}

# fleet_ctl_bg OUTFILE ARGS...: ip and env exec, so FLEET_CTL_PID is benchctl's pid.
fleet_ctl_bg() {
        local out=$1
        shift
        ip netns exec "$FLEET_CTL_NS" env PATH="$FLEET_SSH/bin:$PATH" "$BENCHCTL_BIN" "$@" >"$out" 2>"$out.err" &
        FLEET_CTL_PID=$!
        defer kill_wait "$FLEET_CTL_PID"
}

fleet_link() {
        local i
        for i in "${!FLEET_HOSTS[@]}"; do
                [ "${FLEET_HOSTS[$i]}" = "$1" ] && ip -n "$FLEET_BR_NS" link set "vb$((i + 1))" "$2" && return 0
        done
        fail "fleet_link: no host $1"
}

hsql() { sqlite3 -batch -noheader -cmd '.timeout 5000' "${FLEET_DB[$1]}" "$2"; }
hbus() {
        local h=$1
        shift
        busctl --address="${FLEET_BUS[$h]}" --no-pager "$@"
}
