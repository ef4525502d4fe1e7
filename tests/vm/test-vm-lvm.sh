#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The LVM layouts in a VM (vm-lib.sh: Debian's kernel under qemu, device-mapper loaded), as
# guest-lvm.sh says; this host's part boots it with three 256 MiB disks and passes on the guest's
# verdict. Skips (77) where qemu, Debian's kernel package or busybox cannot be had.

. "$(dirname "$0")/../integration/lib.sh"
. "$SOURCE_ROOT/tests/integration/nspawn-root.sh"
. "$SOURCE_ROOT/tests/vm/vm-lib.sh"

require_root
vm_prepare
for n in 1 2 3; do vm_disk "$n" 256M; done
vm_run guest-lvm.sh 1500
exit "$VM_RC"
