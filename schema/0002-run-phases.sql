-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 2: the figures of a workload's own phases. The metadata workload
-- (bonnie++ -n) has six: create-seq, stat-seq, delete-seq, create-rand, stat-rand, delete-rand;
-- its run's summary in runs is all six together, and these rows are each one alone. Other
-- workloads have none. Units as in 0001-initial.sql.

-- One row per phase of a run, in the order the worker finished them (seq from 0).
CREATE TABLE run_phases (
        run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        phase               TEXT NOT NULL CHECK (length(phase) BETWEEN 1 AND 31
                                                 AND phase NOT GLOB '*[^a-z-]*'),
        seq                 INTEGER NOT NULL CHECK (seq >= 0),
        ops                 INTEGER NOT NULL CHECK (ops >= 0),
        duration_usec       INTEGER NOT NULL CHECK (duration_usec >= 0),
        lat_min_ns          INTEGER NOT NULL CHECK (lat_min_ns >= 0),
        lat_mean_ns         INTEGER NOT NULL CHECK (lat_mean_ns >= 0),
        lat_p50_ns          INTEGER NOT NULL CHECK (lat_p50_ns >= 0),
        lat_p99_ns          INTEGER NOT NULL CHECK (lat_p99_ns >= 0),
        lat_max_ns          INTEGER NOT NULL CHECK (lat_max_ns >= 0),
        PRIMARY KEY (run_id, phase),
        UNIQUE (run_id, seq)
) WITHOUT ROWID;

-- The phases with their rate; ops_per_s is NULL for a phase that took no measurable time.
CREATE VIEW run_phase_summary AS
SELECT
        p.run_id            AS run_id,
        p.phase             AS phase,
        p.seq               AS seq,
        p.ops               AS ops,
        p.duration_usec     AS duration_usec,
        CASE WHEN p.duration_usec > 0 THEN p.ops * 1000000.0 / p.duration_usec END
                            AS ops_per_s,
        p.lat_min_ns        AS lat_min_ns,
        p.lat_mean_ns       AS lat_mean_ns,
        p.lat_p50_ns        AS lat_p50_ns,
        p.lat_p99_ns        AS lat_p99_ns,
        p.lat_max_ns        AS lat_max_ns
FROM run_phases AS p;
