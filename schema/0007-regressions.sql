-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 7: regressions found without asking. After each succeeded run, benchd compares its
-- figures with the comparable runs before it (same device identity, workload and parameters,
-- filesystem and layout, succeeded) in the same baseline segment (same kernel release and device
-- firmware, from runs.environment), with the method that docs/comparisons.md "Regressions found
-- without asking" describes, and keeps here what it flagged. Units as in 0001-initial.sql.
--
--   runs.baseline_segment  what the check found about the run's segment: 'continues' (the segment
--                          of the comparable run before it), or that the run starts a new one:
--                          'first' (no comparable run before it), 'kernel', 'firmware' or
--                          'kernel+firmware' (what differs from the comparable run before it).
--                          NULL: not checked (not succeeded, no device identity, no figures, or
--                          a run from before this version).

ALTER TABLE runs ADD COLUMN baseline_segment TEXT
        CHECK (baseline_segment IS NULL OR
               baseline_segment IN ('continues', 'first', 'kernel', 'firmware', 'kernel+firmware'));

-- One row per flagged figure of a run.
CREATE TABLE regressions (
        id                   INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id               INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        metric               TEXT NOT NULL
                             CHECK (metric IN ('mb_per_s', 'iops', 'ops_per_s', 'lat_p99_ns')),
        value                REAL NOT NULL,             -- the run's figure, in the metric's unit
        baseline_median      REAL NOT NULL,             -- of the baseline window
        baseline_mad         REAL NOT NULL CHECK (baseline_mad >= 0), -- 1.4826 × MAD, floored
        baseline_n           INTEGER NOT NULL CHECK (baseline_n > 0), -- runs in the window
        change_pct           REAL NOT NULL,             -- (value - median) / median × 100
        segment_started_usec INTEGER NOT NULL,          -- the first run of the baseline segment
        detected_usec        INTEGER NOT NULL,
        method               TEXT NOT NULL,             -- e.g. 'median-mad window=20 ... confirm=2'
        UNIQUE (run_id, metric)
);

-- The comparable runs of a run, newest first: an index search on the parameters that differ most
-- between runs of one device and workload (iozone's record sizes, crystal's depths), walked from
-- the newest and stopped after the window.
CREATE INDEX runs_comparable ON runs (device_id, workload, block_size, queue_depth, jobs, started_usec)
        WHERE status = 'succeeded';
