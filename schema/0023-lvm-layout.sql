-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 23: the LVM layouts (layout=lvm, md-raid1+lvm; docs/matrices.md "How an
-- LVM entry runs"). Each run of such an entry records:
--
--   lvm_vg       the volume group's name, benchd-JOB-ENTRY (system ID benchd, autoactivation off),
--                written when the run begins, before the worker creates or activates it: what
--                benchd looks for at start-up and after each LVM step to deactivate a logical
--                volume a killed worker left active (daemon/jobs/lvm-leftovers.h)
--   lv_extents   the entry's logical volume "lv" in extents; NULL until the worker reported
--   lv_bytes     its size in bytes; NULL until the worker reported
--
-- What built the group (pvcreate, vgcreate, lvcreate) is in layout_commands (version 21), over
-- md-raid1+lvm after mdadm's; the runs of the entry's later steps carry their entry's, as with
-- mkfs_command. Other runs keep NULL in all three.
-- runs_lvm_vg indexes the LVM runs only.

ALTER TABLE runs ADD COLUMN lvm_vg TEXT;
ALTER TABLE runs ADD COLUMN lv_extents INTEGER CHECK (lv_extents IS NULL OR lv_extents > 0);
ALTER TABLE runs ADD COLUMN lv_bytes INTEGER CHECK (lv_bytes IS NULL OR lv_bytes > 0);
CREATE INDEX runs_lvm_vg ON runs(lvm_vg) WHERE lvm_vg IS NOT NULL;
