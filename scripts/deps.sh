# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck disable=SC2034
# shellcheck shell=bash
#
# The Debian 12 packages benchd needs, in one place, sourced by scripts/demo, scripts/test and
# scripts/bench.
# ensure_deps installs what is missing with apt-get (as root), so these commands work on a fresh
# machine; it does nothing (and needs no network) when everything is there already.

# The build's own (debian/control's Build-Depends are these, checked by tests/docs/debian-deps.py):
# python3 runs the build's generators (schema, report assets, man pages), bash-completion's
# pkg-config file says where the completion goes.
BENCHD_BUILD_DEPS=(
        meson ninja-build gcc pkg-config python3
        libsystemd-dev libudev-dev libmount-dev libblkid-dev libsqlite3-dev
        liburing-dev libjson-c-dev libinih-dev check bash-completion
)
# libjs-chart.js: the Chart.js that benchctl report inlines into its pages.
BENCHD_RUNTIME_DEPS=(
        dbus systemd udev sqlite3
        util-linux mount procps e2fsprogs libjs-chart.js
)
# What the integration tests use besides the runtime: filesystems to benchmark, partition tables,
# JSON/XML checks in python3, the stand-in polkit of test-polkit (python3-dbus, python3-gi: the
# system python3), bonnie++'s bon_csv2txt and bon_csv2html (test-views reads benchctl's
# bonnie-csv export with them), chromium (test-report loads benchctl report's pages headless),
# Prometheus' promtool, server and node_exporter (test-metrics checks benchd.prom with promtool and
# reads it back through node_exporter and PromQL), openssh-server and -client (test-remote runs
# benchctl -H through a real sshd on 127.0.0.1), debootstrap and systemd-nspawn (test-systemd
# boots a Debian root with benchd's units installed), clang and libclang-rt-14-dev (fuzz-short
# builds the libFuzzer targets of tests/fuzz/ with clang; -fsanitize=fuzzer links
# libclang_rt.fuzzer-x86_64.a, which Debian 12 ships in libclang-rt-14-dev, not in clang itself),
# strace (test-anchors counts the system calls of putc and getc), mandoc and man-db (the man pages
# are linted with mandoc -T lint, their NAME sections read with lexgrog), debhelper, dpkg-dev and
# lintian (test-package builds the Debian package with dpkg-buildpackage and checks it with lintian),
# qemu-system-x86, linux-image-amd64, busybox-static and cpio (tests/vm/ boots Debian's kernel in a
# VM from a busybox initramfs; the kernel is only read, never booted here), mdadm and lvm2 (the md
# RAID and LVM layouts; in the VM, and named by test-layouts where the kernel lacks md), libfaketime
# (test-fleet-faults shifts one host's wall clock by LD_PRELOAD on its benchd: a time namespace
# does not shift CLOCK_REALTIME).
BENCHD_TEST_DEPS=(
        python3 btrfs-progs xfsprogs fdisk bonnie++ chromium prometheus prometheus-node-exporter
        python3-dbus python3-gi openssh-server openssh-client debootstrap systemd-container
        clang libclang-rt-14-dev strace mandoc man-db debhelper dpkg-dev lintian
        qemu-system-x86 linux-image-amd64 busybox-static cpio mdadm lvm2 libfaketime
)
# What the benchmarks of tests/bench/ run beside benchd (not the test suite), each benchmark's
# own, which scripts/bench installs for it (bench_deps): fio (vs-fio, anchors' crystal grid as
# KDiskMark runs it), ioping (anchors' ping), bonnie++ (anchors, vs-fio's metadata, fs-matrix),
# coreutils' dd (anchors), btrfs-progs and xfsprogs (fs-matrix), openssh (fleet's hosts), perf
# (uring-lat), clang (fuzz). iozone is in Debian's non-free (iozone3): anchors skips it when it is
# missing. history and metrics-local need the build alone.
BENCHD_BENCH_DEPS=(
        fio ioping bonnie++ coreutils btrfs-progs xfsprogs openssh-server openssh-client linux-perf
        clang libclang-rt-14-dev
)

# bench_deps NAME: the packages of BENCHD_BENCH_DEPS that tests/bench/NAME needs, one a line.
bench_deps() {
        case $1 in
        anchors) printf '%s\n' fio ioping bonnie++ coreutils ;;
        vs-fio) printf '%s\n' fio bonnie++ ;;
        fs-matrix) printf '%s\n' bonnie++ btrfs-progs xfsprogs ;;
        fleet) printf '%s\n' openssh-server openssh-client ;;
        uring-lat) printf '%s\n' linux-perf ;;
        fuzz) printf '%s\n' clang libclang-rt-14-dev ;;
        esac
}

# tests/stress-suite keeps a core busy with stress-ng (`yes` without it).
BENCHD_STRESS_DEPS=(stress-ng)

# missing_deps PKG...: prints the packages that are not installed.
missing_deps() {
        local p
        for p in "$@"; do
                dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
                        printf '%s\n' "$p"
        done
}

# ensure_deps PKG...: installs the missing ones (root), or says how to (others).
ensure_deps() {
        local missing
        if ! command -v dpkg-query >/dev/null 2>&1; then
                echo "benchd: not a Debian-like system; install the equivalents of: $*" >&2
                return 0
        fi
        mapfile -t missing < <(missing_deps "$@")
        [ "${#missing[@]}" -eq 0 ] && return 0
        if [ "$(id -u)" != 0 ]; then
                echo "benchd: missing packages: ${missing[*]}" >&2
                echo "benchd: run as root (sudo $0), or: sudo apt-get install ${missing[*]}" >&2
                return 1
        fi
        echo "benchd: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# build_tree SOURCE BUILD: meson setup (once) and ninja.
build_tree() {
        local src=$1 build=$2
        if [ ! -f "$build/build.ninja" ]; then
                meson setup "$build" "$src"
        fi
        ninja -C "$build"
}
