-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 3: the steps a job was expanded into at SubmitJob, and what each step's
-- target was then. A queued job restored after a restart runs exactly these steps (an edited or
-- removed profile file changes nothing), and each step's target must still be the object that
-- was checked at submit (same directory or file by device and inode, same block device by device
-- number and disk sequence number), or the step is refused as unsafe.
--
-- JSON: an array, one object per step:
--   {"spec": {...the step's finalized spec, keys as in jobs.spec...},
--    "target": {"kind": "directory"|"file"|"block", "dev_major": N, "dev_minor": N,
--               "ino": N, "diskseq": N}}
-- NULL for jobs submitted before version 3.

ALTER TABLE jobs ADD COLUMN steps TEXT CHECK (steps IS NULL OR json_valid(steps));
