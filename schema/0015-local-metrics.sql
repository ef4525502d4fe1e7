-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 15: benchd.prom holds this host's own runs only (docs/fleet.md "Many
-- machines"); runs imported from other hosts (origin_host set, version 10) are their own host's to
-- export, or a fleet would count them twice. Leaving them out must not cost a read of every run
-- row, so the export gets indexes that know origin_host:
--
--   runs_local_series   runs_series (version 9) of this host's runs only: the newest succeeded run
--                       of every series, walked without a sort and without reading the table.
--                       runs_series stays as it was for the regression check.
--   runs_status         runs by status and origin_host (benchd_runs_total), counted on the index

CREATE INDEX runs_local_series ON runs (device_id, workload, block_size, queue_depth, jobs, fs_type, layout,
                                        started_usec)
        WHERE status = 'succeeded' AND origin_host IS NULL;
DROP INDEX IF EXISTS runs_status;
CREATE INDEX runs_status ON runs (status, origin_host);
