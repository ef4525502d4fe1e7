#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# md RAID and LVM layouts in a VM (vm-lib.sh: Debian's kernel under qemu, md and device-mapper
# loaded), as guest-layouts.sh says; this host's part boots it with four 512 MiB disks (btrfs on an
# md RAID1 of two disks' second partitions needs room for the dd profile) and passes on the guest's
# verdict. Skips (77) where qemu, Debian's kernel package or busybox cannot be had.

. "$(dirname "$0")/../integration/lib.sh"
. "$SOURCE_ROOT/tests/integration/nspawn-root.sh"
. "$SOURCE_ROOT/tests/vm/vm-lib.sh"

require_root
vm_prepare
for n in 1 2 3 4; do vm_disk "$n" 512M; done
vm_run guest-layouts.sh 2000
exit "$VM_RC"
