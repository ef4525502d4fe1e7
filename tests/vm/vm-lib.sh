# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# A virtual machine for the tests that need a kernel this machine may not run (md RAID,
# device-mapper): Debian's own kernel (the linux-image-amd64 package, read from /boot and
# /lib/modules, never booted here) under qemu-system-x86_64, with KVM where the host's KVM is
# hardware-assisted (_vm_accel) and TCG otherwise, 2 vCPUs and 1 GiB. Sourced after lib.sh (whose
# defer stack undoes everything here) and nspawn-root.sh (whose cached Debian root the VM's root is
# made from).
#
#   vm_prepare          finds qemu, the kernel and busybox (skips, 77, naming what is missing);
#                       builds (once, cached beside the nspawn root) the VM's root image: the
#                       nspawn root with VM_PACKAGES installed; the initramfs (busybox, and the
#                       kernel's modules for virtio disks, ext4, md, dm, btrfs and xfs with their
#                       dependencies, loaded in order); and the payload disk (this build's benchd,
#                       benchd-worker, benchctl, run-test, the profiles and the tests' scripts)
#   vm_disk NAME SIZE   an image file for one more virtio disk (sparse); the guest sees the disks in
#                       the order made as /dev/vdc, /dev/vdd, ... (vda is the root, vdb the payload)
#   vm_run SCRIPT [TIMEOUT_S]
#                       boots the VM with SCRIPT (a path under tests/vm/) as the guest's test: it runs
#                       as a test of its own under lib.sh in the guest, its output and exit status
#                       come back over the serial console; qemu is killed by pid at the timeout or
#                       when the test ends. Sets VM_RC (the guest script's exit status) and
#                       VM_SECONDS; the console is $TEST_DIR/console.log.
#
# The root image is never written: qemu's snapshot=on keeps the guest's writes in a temporary file.

VM_CACHE=${BENCHD_VM_CACHE:-${NSPAWN_CACHE%/*}/benchd-vm-root}
# What the guest needs beyond the nspawn root: md and LVM tools, the filesystems, partition tables,
# the tests' python3, sqlite3 and ps (lib.sh), bonnie++'s bon_csv2html.
VM_PACKAGES="mdadm lvm2 btrfs-progs xfsprogs fdisk python3 sqlite3 bonnie++ kmod dbus procps"
VM_MODULES="crc32c_generic virtio_pci virtio_blk ext4 md_mod raid0 raid1 raid456 raid10 dm_mod btrfs xfs"
VM_DISKS=()

_vm_kernel() {
        local v
        # linux-image-amd64 depends on the versioned package that ships /boot/vmlinuz-VERSION.
        v=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null | sed -n 's/.*linux-image-\([0-9][^ ,]*-amd64\).*/\1/p')
        [ -n "$v" ] || skip "the VM needs Debian's kernel: the package linux-image-amd64 is not installed"
        [ -r "/boot/vmlinuz-$v" ] && [ -r "/lib/modules/$v/modules.dep" ] ||
                skip "linux-image-amd64 names kernel $v, but /boot/vmlinuz-$v or /lib/modules/$v is missing"
        VM_KVER=$v
        VM_KERNEL=/boot/vmlinuz-$v
}

# _vm_modules: the .ko files of VM_MODULES and what they depend on, dependencies first.
_vm_modules() {
        python3 - "/lib/modules/$VM_KVER" $VM_MODULES <<'PY'
import sys, os
root, want = sys.argv[1], sys.argv[2:]
deps = {}
for line in open(os.path.join(root, "modules.dep")):
    mod, _, rest = line.partition(":")
    deps[mod.strip()] = rest.split()
byname = {os.path.basename(m).split(".ko")[0].replace("-", "_"): m for m in deps}
builtin = set()
try:
    for line in open(os.path.join(root, "modules.builtin")):
        builtin.add(os.path.basename(line.strip()).split(".ko")[0].replace("-", "_"))
except FileNotFoundError:
    pass
order, seen = [], set()
def visit(m):
    if m in seen:
        return
    seen.add(m)
    for d in deps.get(m, []):
        visit(d)
    order.append(m)
for w in want:
    w = w.replace("-", "_")
    if w in builtin:
        continue
    if w not in byname:
        sys.exit("module %s is neither a module nor built into kernel %s" % (w, os.path.basename(root)))
    visit(byname[w])
print("\n".join(order))
PY
}

_vm_root_image() {
        local want stamp="$VM_CACHE.stamp" tmp img="$VM_CACHE.img"
        want="$(cat "$NSPAWN_STAMP") + $VM_PACKAGES"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$img" ]; then
                log "cached VM root $img"
                return 0
        fi
        tmp="$VM_CACHE.tmp.$$"
        rm -rf "$tmp"
        defer rm -rf "$tmp"
        log "copying the nspawn root to $tmp and installing $VM_PACKAGES into it"
        cp -a --reflink=auto "$NSPAWN_CACHE" "$tmp"
        cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
        printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
        chmod 0755 "$tmp/usr/sbin/policy-rc.d"
        # In a mount namespace of its own: the chroot's /proc and /dev go with it.
        # shellcheck disable=SC2086
        if ! unshare -m --propagation private sh -c '
                        mount -t proc proc "$1/proc" && mount --bind /dev "$1/dev" &&
                        chroot "$1" apt-get update -q &&
                        DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -q --no-install-recommends $2' \
                        sh "$tmp" "$VM_PACKAGES" >"$TEST_DIR/vm-apt.log" 2>&1; then
                tail -n 5 "$TEST_DIR/vm-apt.log" >&2
                if grep -qiE "could not resolve|temporary failure|unable to connect|failed to fetch" "$TEST_DIR/vm-apt.log"; then
                        skip "apt in the VM root could not reach the archive (see above)"
                fi
                fail "installing $VM_PACKAGES into the VM root failed (above)"
        fi
        rm -f "$tmp/usr/sbin/policy-rc.d"
        chroot "$tmp" apt-get clean
        rm -rf "$tmp/var/lib/apt/lists"/*
        mkdir -p "$tmp/payload"
        log "making the VM root image $img"
        rm -f "$img.tmp"
        truncate -s 3G "$img.tmp"
        mkfs.ext4 -q -F -L benchd-vm-root -d "$tmp" "$img.tmp" ||
                fail "mkfs.ext4 -d of the VM root failed"
        mv "$img.tmp" "$img"
        echo "$want" >"$stamp"
}

_vm_initramfs() {
        local dir="$TEST_DIR/initramfs" m busybox
        busybox=$(command -v busybox) || skip "the VM's initramfs needs busybox (Debian package busybox-static)"
        file -L "$busybox" 2>/dev/null | grep -q "statically linked" || ldd "$busybox" 2>&1 | grep -q "not a dynamic" ||
                skip "$busybox is not statically linked; install busybox-static"
        rm -rf "$dir"
        mkdir -p "$dir/bin" "$dir/modules" "$dir/proc" "$dir/sys" "$dir/dev" "$dir/newroot"
        cp "$busybox" "$dir/bin/busybox"
        _vm_modules >"$TEST_DIR/modules.order" || fail "cannot resolve the VM's modules"
        while read -r m; do
                cp "/lib/modules/$VM_KVER/$m" "$dir/modules/"
                basename "$m" >>"$dir/modules/order"
        done <"$TEST_DIR/modules.order"
        cp "$SOURCE_ROOT/tests/vm/initramfs-init" "$dir/init"
        chmod 0755 "$dir/init"
        (cd "$dir" && find . | cpio -o -H newc --quiet) >"$TEST_DIR/initramfs.cpio"
}

# The payload disk: the build's programs, the profiles and the tests' scripts, at /payload in the
# guest (SOURCE_ROOT=/payload/src, BUILD_ROOT=/payload/build there).
_vm_payload() {
        local p="$TEST_DIR/payload"
        rm -rf "$p"
        mkdir -p "$p/build/daemon/worker" "$p/build/client" "$p/build/tests/harness" "$p/src/tests" "$p/src/daemon"
        cp "$BENCHD_BIN" "$p/build/daemon/benchd"
        cp "$WORKER_BIN" "$p/build/daemon/worker/benchd-worker"
        cp "$BENCHCTL_BIN" "$p/build/client/benchctl"
        cp "$BUILD_ROOT/tests/harness/run-test" "$p/build/tests/harness/run-test"
        cp -a "$SOURCE_ROOT/daemon/profiles" "$p/src/daemon/profiles"
        cp -a "$SOURCE_ROOT/tests/integration" "$SOURCE_ROOT/tests/vm" "$p/src/tests/"
        truncate -s 256M "$TEST_DIR/payload.img"
        mkfs.ext4 -q -F -L benchd-payload -d "$p" "$TEST_DIR/payload.img" || fail "mkfs.ext4 -d of the payload failed"
}

# _vm_accel: KVM where the host's KVM runs an unmodified guest kernel, TCG otherwise. /dev/kvm alone
# does not say so: with only kvm_pvm loaded (the pagetable-based backend of hosts without VT-x or
# AMD-V, which runs only PVM-enabled guest kernels), qemu aborts setting an MSR (-cpu max, host) or
# hangs in the guest's first instructions. kvm_intel or kvm_amd is the hardware-assisted backend
# Debian's kernel needs. BENCHD_VM_ACCEL=kvm or tcg overrides the choice.
_vm_accel() {
        case ${BENCHD_VM_ACCEL:-} in
        kvm | tcg)
                VM_ACCEL=$BENCHD_VM_ACCEL VM_ACCEL_WHY="BENCHD_VM_ACCEL"
                return ;;
        "") ;;
        *) fail "BENCHD_VM_ACCEL=$BENCHD_VM_ACCEL: expected kvm or tcg" ;;
        esac
        if [ ! -w /dev/kvm ]; then
                VM_ACCEL=tcg VM_ACCEL_WHY="no writable /dev/kvm"
        elif [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; then
                VM_ACCEL=kvm VM_ACCEL_WHY="/dev/kvm with kvm_intel or kvm_amd"
        else
                VM_ACCEL=tcg VM_ACCEL_WHY="/dev/kvm without kvm_intel or kvm_amd: no hardware-assisted KVM for Debian's kernel"
        fi
}

vm_prepare() {
        require_cmd cpio mkfs.ext4 unshare chroot truncate
        command -v qemu-system-x86_64 >/dev/null ||
                skip "the VM needs qemu-system-x86_64 (Debian package qemu-system-x86)"
        _vm_kernel
        require_binaries "$BENCHCTL_BIN" "$BUILD_ROOT/tests/harness/run-test"
        nspawn_root_build
        _vm_root_image
        _vm_initramfs
        _vm_payload
        _vm_accel
        log "VM: kernel $VM_KVER, $VM_ACCEL ($VM_ACCEL_WHY), root $VM_CACHE.img"
}

vm_disk() {
        local name=$1 size=$2
        truncate -s "$size" "$TEST_DIR/disk-$name.img"
        VM_DISKS+=("$TEST_DIR/disk-$name.img")
}

# _vm_kill PID: qemu, by its pid.
_vm_kill() {
        kill -KILL "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
}

vm_run() {
        local script=$1 timeout=${2:-600} drives=() d i t0 pid console="$TEST_DIR/console.log" line
        drives+=(-drive "file=$VM_CACHE.img,format=raw,if=virtio,snapshot=on,cache=unsafe")
        drives+=(-drive "file=$TEST_DIR/payload.img,format=raw,if=virtio,cache=unsafe")
        for d in "${VM_DISKS[@]}"; do
                drives+=(-drive "file=$d,format=raw,if=virtio,cache=writeback")
        done
        : >"$console"
        t0=$(date +%s%N)
        log "booting the VM ($VM_ACCEL) for $script"
        qemu-system-x86_64 -machine q35,accel="$VM_ACCEL" -cpu max -smp 2 -m 1024 -nodefaults -no-user-config \
                -display none -no-reboot -serial "file:$console" \
                -kernel "$VM_KERNEL" -initrd "$TEST_DIR/initramfs.cpio" \
                -append "console=ttyS0 panic=-1 quiet loglevel=4 benchd.test=$script" \
                "${drives[@]}" >"$TEST_DIR/qemu.log" 2>&1 </dev/null &
        pid=$!
        defer _vm_kill "$pid"
        for ((i = 0; i < timeout * 10; i++)); do
                pid_running "$pid" || break
                sleep 0.1
        done
        if pid_running "$pid"; then
                _vm_kill "$pid"
                sed 's/^/  vm| /' "$console" | tail -n 60 >&2
                fail "the VM did not power off within $timeout s (its console above)"
        fi
        wait "$pid" 2>/dev/null || true
        VM_SECONDS=$((($(date +%s%N) - t0) / 1000000000))
        sed 's/^/  vm| /' "$console" >&2
        line=$(grep -a '^BENCHD-VM-EXIT ' "$console" | tail -n 1 | tr -d '\r')
        [ -n "$line" ] || fail "the guest gave no exit status (qemu: $(tail -n 3 "$TEST_DIR/qemu.log"))"
        VM_RC=${line#BENCHD-VM-EXIT }
        log "the VM ran $script in $VM_SECONDS s: exit $VM_RC"
}
