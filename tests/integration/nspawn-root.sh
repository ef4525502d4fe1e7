# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# A booted systemd for the tests that need one (PID 1 of the test machine is not systemd): a
# minimal Debian root built once with debootstrap and cached, benchd installed into a throw-away
# copy of it, booted with systemd-nspawn and driven from outside with nsenter. Sourced after
# lib.sh, whose defer stack undoes everything here.
#
#   nspawn_root_build   the cached root, $NSPAWN_CACHE (built when missing or when its stamp does
#                       not name the current package set); skips (77) when the archive is out of
#                       reach
#   nspawn_boot         copies the root into $TEST_DIR, installs benchd (a --prefix=/usr build of
#                       the source tree) into the copy, boots it; sets NSPAWN_PID (the container's
#                       PID 1 as seen from the host) and NSPAWN_ROOT
#   in_ct CMD...        runs CMD inside the container (all its namespaces, its root)
#
# Environment:
#   BENCHD_NSPAWN_CACHE   where the cached root lives (default /var/tmp/benchd-nspawn-root)
#   BENCHD_NSPAWN_MIRROR  the Debian mirror (default: the first mirror of the machine's apt
#                         configuration that serves the suite, see apt-mirrors.py)

NSPAWN_CACHE=${BENCHD_NSPAWN_CACHE:-/var/tmp/benchd-nspawn-root}
NSPAWN_SUITE=bookworm
# libpam-systemd: polkitd depends on default-logind | logind, which it provides in bookworm. The
# package's dependencies are all here (udev among them), so test-systemd installs it without the
# archive; man-db and bash-completion for its man pages and completion.
NSPAWN_PACKAGES=systemd,dbus,systemd-sysv,polkitd,libpam-systemd,libsystemd0,libudev1,libmount1,libblkid1,libsqlite3-0,liburing2,libjson-c5,libinih1,e2fsprogs,util-linux,udev,man-db,bash-completion
NSPAWN_STAMP="$NSPAWN_CACHE/.benchd-nspawn-stamp"

# _nspawn_mirror: the Debian mirror to build the root from: BENCHD_NSPAWN_MIRROR, or the first mirror
# of the machine's apt configuration (apt-mirrors.py: /etc/apt/sources.list, sources.list.d/*.list
# and *.sources) that serves $NSPAWN_SUITE. Skips (77) naming what was tried when none answers.
_nspawn_mirror() {
        local candidates from out
        if [ -n "${BENCHD_NSPAWN_MIRROR:-}" ]; then
                candidates=$BENCHD_NSPAWN_MIRROR
                from="BENCHD_NSPAWN_MIRROR"
        else
                candidates=$(python3 "$SOURCE_ROOT/tests/integration/apt-mirrors.py" --suite "$NSPAWN_SUITE") ||
                        fail "apt-mirrors.py could not read the apt configuration"
                [ -n "$candidates" ] || skip "no Debian mirror in the apt configuration (/etc/apt/sources.list," \
                        "/etc/apt/sources.list.d/*.list, *.sources) to build the $NSPAWN_SUITE root from; set" \
                        "BENCHD_NSPAWN_MIRROR"
                from="the apt configuration"
        fi
        # shellcheck disable=SC2086
        if ! out=$(python3 "$SOURCE_ROOT/tests/integration/apt-mirrors.py" --reachable --suite "$NSPAWN_SUITE" \
                        $candidates); then
                skip "no Debian mirror reachable for $NSPAWN_SUITE (from $from): $(tr '\n' ';' <<<"$out")" \
                        "set BENCHD_NSPAWN_MIRROR to one that is"
        fi
        echo "$out"
}

nspawn_root_build() {
        local want mirror t0 tmp
        require_cmd debootstrap systemd-nspawn nsenter meson ninja
        want="$NSPAWN_SUITE minbase $NSPAWN_PACKAGES"
        if [ -f "$NSPAWN_STAMP" ] && [ "$(cat "$NSPAWN_STAMP")" = "$want" ]; then
                log "cached root $NSPAWN_CACHE ($want)"
                return 0
        fi
        # Not in $(...): its skip must end this shell, not a subshell.
        _nspawn_mirror >"$TEST_DIR/mirror"
        mirror=$(cat "$TEST_DIR/mirror")
        tmp="$NSPAWN_CACHE.tmp.$$"
        rm -rf "$tmp"
        defer rm -rf "$tmp"
        log "debootstrap $NSPAWN_SUITE from $mirror into $tmp"
        t0=$(date +%s)
        if ! debootstrap --variant=minbase --include="$NSPAWN_PACKAGES" "$NSPAWN_SUITE" "$tmp" \
                        "$mirror" >"$TEST_DIR/debootstrap.log" 2>&1; then
                tail -n 5 "$TEST_DIR/debootstrap.log" >&2
                cp "$tmp/debootstrap/debootstrap.log" "$TEST_DIR/debootstrap-inner.log" 2>/dev/null || true
                grep -B2 -A8 -i "error\|fail" "$TEST_DIR/debootstrap-inner.log" 2>/dev/null | tail -n 20 >&2 || true
                rm -rf "$tmp"
                if grep -qiE "couldn.t download|failed getting release|temporary failure|unable to connect|connection (refused|timed out)" \
                                "$TEST_DIR/debootstrap.log" "$TEST_DIR/debootstrap-inner.log" 2>/dev/null; then
                        skip "debootstrap could not reach the archive $mirror; set BENCHD_NSPAWN_MIRROR" \
                                "to a reachable Debian mirror"
                fi
                fail "debootstrap of $NSPAWN_SUITE with $NSPAWN_PACKAGES failed (above); expected a" \
                        "package set that installs"
        fi
        log "debootstrap took $(($(date +%s) - t0)) s"
        rm -rf "$NSPAWN_CACHE"
        mv "$tmp" "$NSPAWN_CACHE"
        echo "$want" >"$NSPAWN_STAMP"
}

# _nspawn_install ROOT: benchd built for /usr and /etc, installed into ROOT.
_nspawn_install() {
        local root=$1 b="$TEST_DIR/build-usr"
        log "building benchd with --prefix=/usr into $root"
        meson setup "$b" "$SOURCE_ROOT" --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
                -Dtests=false >"$TEST_DIR/meson-setup.log" 2>&1 ||
                fail "meson setup of the /usr build failed: see $TEST_DIR/meson-setup.log"
        ninja -C "$b" -j2 >"$TEST_DIR/ninja.log" 2>&1 ||
                fail "the /usr build failed: see $TEST_DIR/ninja.log"
        meson install -C "$b" --destdir "$root" >"$TEST_DIR/meson-install.log" 2>&1 ||
                fail "meson install into $root failed: see $TEST_DIR/meson-install.log"
}

# in_ct CMD...: CMD in the container.
in_ct() {
        nsenter -t "$NSPAWN_PID" -a -- "$@"
}

# _nspawn_stop: power the container off, and kill nspawn if it does not go in time.
_nspawn_stop() {
        local i
        [ -n "${NSPAWN_NSPAWN_PID:-}" ] || return 0
        in_ct systemctl poweroff --no-block >/dev/null 2>&1 || true
        for ((i = 0; i < 100; i++)); do
                kill -0 "$NSPAWN_NSPAWN_PID" 2>/dev/null || return 0
                sleep 0.2
        done
        kill -KILL "$NSPAWN_NSPAWN_PID" 2>/dev/null || true
        wait "$NSPAWN_NSPAWN_PID" 2>/dev/null || true
}

nspawn_boot() {
        local t0 state i
        NSPAWN_ROOT="$TEST_DIR/root"
        log "copying the cached root to $NSPAWN_ROOT"
        cp -a --reflink=auto "$NSPAWN_CACHE" "$NSPAWN_ROOT"
        defer rm -rf "$NSPAWN_ROOT"
        _nspawn_install "$NSPAWN_ROOT"
        # No login prompt to wait for; a machine id so the journal keeps its files.
        rm -f "$NSPAWN_ROOT/etc/machine-id"
        systemd-machine-id-setup --root="$NSPAWN_ROOT" >/dev/null 2>&1 || true

        t0=$(date +%s%N)
        # --capability=all: the capabilities benchd.service keeps (CAP_SYS_ADMIN, CAP_KILL, ...) exist in
        # the container as on a host, so its CapabilityBoundingSet= is what limits them.
        systemd-nspawn -q -D "$NSPAWN_ROOT" --register=no --keep-unit --boot --capability=all \
                >"$TEST_DIR/nspawn.log" 2>&1 </dev/null &
        NSPAWN_NSPAWN_PID=$!
        defer _nspawn_stop
        # The container's PID 1: nspawn's child's child (nspawn → its inner child → systemd).
        NSPAWN_PID=
        for ((i = 0; i < 200; i++)); do
                kill -0 "$NSPAWN_NSPAWN_PID" 2>/dev/null ||
                        skip "systemd-nspawn could not run here: $(tail -n 3 "$TEST_DIR/nspawn.log")"
                NSPAWN_PID=$(_nspawn_init_pid "$NSPAWN_NSPAWN_PID")
                [ -n "$NSPAWN_PID" ] && break
                sleep 0.1
        done
        [ -n "$NSPAWN_PID" ] || skip "systemd-nspawn started no init: $(tail -n 3 "$TEST_DIR/nspawn.log")"
        # Until systemd has its bus socket, systemctl cannot connect: ask again until it answers.
        for ((i = 0; i < 90; i++)); do
                state=$(timeout 90 nsenter -t "$NSPAWN_PID" -a -- systemctl is-system-running --wait 2>&1 || true)
                case "$state" in
                *"Failed to connect"* | "") sleep 1 ;;
                *) break ;;
                esac
        done
        case "$state" in
        running | degraded) ;;
        *) skip "the container did not boot (is-system-running says '$state', want running or degraded)" ;;
        esac
        NSPAWN_BOOT_MS=$((($(date +%s%N) - t0) / 1000000))
        log "container booted in $NSPAWN_BOOT_MS ms ($state)"
        if [ "$state" = degraded ]; then
                in_ct systemctl --failed --no-legend >&2 || true
        fi
}

# _nspawn_init_pid NSPAWN: the pid whose comm is systemd among NSPAWN's descendants.
_nspawn_init_pid() {
        local p c
        for p in $(pgrep -P "$1"); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && { echo "$p"; return; }
                for c in $(pgrep -P "$p"); do
                        [ "$(cat "/proc/$c/comm" 2>/dev/null)" = systemd ] && { echo "$c"; return; }
                done
        done
}
