-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 21: the md RAID layouts (layout=md-raid0, md-raid1, md-raid5, md-raid10;
-- docs/matrices.md "How an md entry runs"). Each run of such an entry records:
--
--   md_array         the array's name, benchd-JOB-ENTRY (homehost benchd), written when the run
--                    begins, before the worker creates the array: what benchd looks for at start-up
--                    and after each md step to stop an array a killed worker left assembled
--                    (daemon/jobs/md-leftovers.h)
--   md_resync        how the members were brought in step: 'wait' (mdadm's initial resync, waited
--                    for before mkfs) or 'assume-clean' (mdadm --assume-clean)
--   md_resync_usec   how long the resync was waited for (0: none, RAID0 or assume-clean); NULL
--                    until the worker reported
--   md_chunk_bytes   the array's chunk size as md reports it (0 for RAID1); NULL until reported
--   layout_commands  what built the layout under the filesystem, as a JSON array of
--                    {"command", "usec", "exit", "output"} (mdadm --create); NULL until reported
--
-- Other runs keep NULL in all five. runs_md_array indexes the md runs only.

ALTER TABLE runs ADD COLUMN md_array TEXT;
ALTER TABLE runs ADD COLUMN md_resync TEXT CHECK (md_resync IS NULL OR md_resync IN ('wait', 'assume-clean'));
ALTER TABLE runs ADD COLUMN md_resync_usec INTEGER CHECK (md_resync_usec IS NULL OR md_resync_usec >= 0);
ALTER TABLE runs ADD COLUMN md_chunk_bytes INTEGER CHECK (md_chunk_bytes IS NULL OR md_chunk_bytes >= 0);
ALTER TABLE runs ADD COLUMN layout_commands TEXT;
CREATE INDEX runs_md_array ON runs(md_array) WHERE md_array IS NOT NULL;
