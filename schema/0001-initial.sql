-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 1. Applied by benchd in one transaction on a database whose
-- PRAGMA user_version is 0; benchd then sets user_version = 1. Never edit a released migration:
-- add schema/NNNN-*.sql instead (see schema/README.md, "Migration policy").
--
-- Units are in the column names where they are not obvious: *_usec are microseconds (times are
-- CLOCK_REALTIME microseconds since the Unix epoch), *_ms milliseconds, *_ns nanoseconds, *_pct
-- percent (0..100), sizes in bytes.

PRAGMA application_id = 1112425284; -- 0x424e4344, "BNCD"

-- One row per physical device identity, so a disk keeps its history when it moves from sdb to sdc.
CREATE TABLE devices (
        id                  INTEGER PRIMARY KEY,
        identity            TEXT NOT NULL UNIQUE
                            CHECK (identity GLOB 'wwn:?*' OR identity GLOB 'serial:?*'
                                   OR identity GLOB 'model:?*'),
        model               TEXT,
        vendor              TEXT,
        serial              TEXT,
        wwn                 TEXT,
        firmware            TEXT,
        size                INTEGER CHECK (size IS NULL OR size >= 0),
        rotational          INTEGER CHECK (rotational IS NULL OR rotational IN (0, 1)),
        logical_block_size  INTEGER CHECK (logical_block_size IS NULL OR logical_block_size >= 0),
        physical_block_size INTEGER CHECK (physical_block_size IS NULL OR physical_block_size >= 0),
        first_seen_usec     INTEGER NOT NULL,
        last_seen_usec      INTEGER NOT NULL,
        last_name           TEXT
);

-- The job queue and its history. Queued jobs live here, so they survive a restart.
CREATE TABLE jobs (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        state               TEXT NOT NULL DEFAULT 'queued'
                            CHECK (state IN ('queued', 'running', 'succeeded', 'failed',
                                             'cancelled', 'interrupted')),
        profile             TEXT,
        workload            TEXT,
        spec                TEXT NOT NULL CHECK (json_valid(spec)),
        target              TEXT NOT NULL,
        label               TEXT,
        submitted_by        INTEGER NOT NULL CHECK (submitted_by >= 0),
        submitted_usec      INTEGER NOT NULL,
        started_usec        INTEGER,
        finished_usec       INTEGER,
        error               TEXT
);

CREATE INDEX jobs_state ON jobs (state);

-- One row per job step: what was asked (the workload's parameters), where, and what was measured.
CREATE TABLE runs (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id              INTEGER REFERENCES jobs (id) ON DELETE CASCADE,
        step                INTEGER NOT NULL DEFAULT 0 CHECK (step >= 0),
        workload            TEXT NOT NULL,
        block_size          INTEGER NOT NULL CHECK (block_size >= 0),
        size                INTEGER NOT NULL CHECK (size >= 0),
        runtime_ms          INTEGER NOT NULL CHECK (runtime_ms >= 0),
        ramp_ms             INTEGER NOT NULL CHECK (ramp_ms >= 0),
        queue_depth         INTEGER NOT NULL CHECK (queue_depth >= 0),
        jobs                INTEGER NOT NULL CHECK (jobs >= 0),
        direct              INTEGER NOT NULL CHECK (direct IN (0, 1)),
        sync                TEXT,
        rwmix_read          INTEGER CHECK (rwmix_read IS NULL OR rwmix_read BETWEEN 0 AND 100),
        pattern             TEXT,
        device_id           INTEGER REFERENCES devices (id) ON DELETE SET NULL,
        device_name         TEXT,
        target              TEXT NOT NULL,
        fs_type             TEXT,
        mount_options       TEXT,
        environment         TEXT CHECK (environment IS NULL OR json_valid(environment)),
        label               TEXT,
        tags                TEXT CHECK (tags IS NULL OR (json_valid(tags) AND json_type(tags) = 'array')),
        started_usec        INTEGER NOT NULL,
        duration_usec       INTEGER CHECK (duration_usec IS NULL OR duration_usec >= 0),
        status              TEXT NOT NULL DEFAULT 'running'
                            CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled',
                                              'interrupted')),
        error               TEXT,
        bytes_read          INTEGER,
        bytes_written       INTEGER,
        ios_read            INTEGER,
        ios_written         INTEGER,
        ops                 INTEGER,
        lat_min_ns          INTEGER,
        lat_mean_ns         INTEGER,
        lat_stddev_ns       INTEGER,
        lat_p50_ns          INTEGER,
        lat_p90_ns          INTEGER,
        lat_p95_ns          INTEGER,
        lat_p99_ns          INTEGER,
        lat_p999_ns         INTEGER,
        lat_p9999_ns        INTEGER,
        lat_max_ns          INTEGER,
        iowait_pct          REAL,
        cpu_user_pct        REAL,
        cpu_sys_pct         REAL,
        dev_util_pct        REAL
);

-- "workload X on device Y over the last 30 days" and the history of one device.
CREATE INDEX runs_device_workload_started ON runs (device_id, workload, started_usec);
-- The same by kernel name (runs whose device had no stable identity, and benchctl --device sdb).
CREATE INDEX runs_device_name_started ON runs (device_name, started_usec);
-- Newest first, time windows.
CREATE INDEX runs_started ON runs (started_usec);
-- The runs of a job, in step order.
CREATE INDEX runs_job ON runs (job_id, step);

-- One row per measurement interval of a run. t_ms is the end of the interval in milliseconds since
-- the measured phase began (the ramp is excluded).
CREATE TABLE samples (
        run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        t_ms                INTEGER NOT NULL CHECK (t_ms >= 0),
        interval_us         INTEGER NOT NULL CHECK (interval_us >= 0),
        bytes_read          INTEGER NOT NULL,
        bytes_written       INTEGER NOT NULL,
        ios_read            INTEGER NOT NULL,
        ios_written         INTEGER NOT NULL,
        ops                 INTEGER NOT NULL,
        lat_mean_ns         INTEGER,
        lat_p50_ns          INTEGER,
        lat_p99_ns          INTEGER,
        lat_max_ns          INTEGER,
        iowait_pct          REAL,
        cpu_user_pct        REAL,
        cpu_sys_pct         REAL,
        dev_util_pct        REAL,
        dev_queue           REAL,
        PRIMARY KEY (run_id, t_ms)
) WITHOUT ROWID;

-- The full latency histogram of a run: count of I/Os whose latency was at most upper_ns and above
-- the previous bucket's upper bound. Empty buckets are not stored.
CREATE TABLE run_histograms (
        run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        upper_ns            INTEGER NOT NULL CHECK (upper_ns >= 0),
        count               INTEGER NOT NULL CHECK (count > 0),
        PRIMARY KEY (run_id, upper_ns)
) WITHOUT ROWID;

-- Runs with their job's profile, their device's identity and the derived rates. MiB/s are
-- 2^20 bytes per second, MB/s 10^6 bytes per second (fio prints both); rates are NULL while a run
-- has no duration.
CREATE VIEW run_summary AS
SELECT
        r.id                AS id,
        r.job_id            AS job_id,
        r.step              AS step,
        j.profile           AS profile,
        r.workload          AS workload,
        r.block_size        AS block_size,
        r.size              AS size,
        r.runtime_ms        AS runtime_ms,
        r.ramp_ms           AS ramp_ms,
        r.queue_depth       AS queue_depth,
        r.jobs              AS jobs,
        r.direct            AS direct,
        r.sync              AS sync,
        r.rwmix_read        AS rwmix_read,
        r.pattern           AS pattern,
        r.device_id         AS device_id,
        r.device_name       AS device_name,
        d.identity          AS device_identity,
        d.model             AS device_model,
        d.serial            AS device_serial,
        r.target            AS target,
        r.fs_type           AS fs_type,
        r.mount_options     AS mount_options,
        r.label             AS label,
        r.tags              AS tags,
        r.started_usec      AS started_usec,
        r.duration_usec     AS duration_usec,
        r.status            AS status,
        r.error             AS error,
        r.bytes_read        AS bytes_read,
        r.bytes_written     AS bytes_written,
        r.ios_read          AS ios_read,
        r.ios_written       AS ios_written,
        r.ops               AS ops,
        r.lat_min_ns        AS lat_min_ns,
        r.lat_mean_ns       AS lat_mean_ns,
        r.lat_stddev_ns     AS lat_stddev_ns,
        r.lat_p50_ns        AS lat_p50_ns,
        r.lat_p90_ns        AS lat_p90_ns,
        r.lat_p95_ns        AS lat_p95_ns,
        r.lat_p99_ns        AS lat_p99_ns,
        r.lat_p999_ns       AS lat_p999_ns,
        r.lat_p9999_ns      AS lat_p9999_ns,
        r.lat_max_ns        AS lat_max_ns,
        r.iowait_pct        AS iowait_pct,
        r.cpu_user_pct      AS cpu_user_pct,
        r.cpu_sys_pct       AS cpu_sys_pct,
        r.dev_util_pct      AS dev_util_pct,
        CASE WHEN r.duration_usec > 0 THEN
                (r.bytes_read + r.bytes_written) * 1000000.0 / r.duration_usec / 1048576.0 END
                            AS mib_per_s,
        CASE WHEN r.duration_usec > 0 THEN
                (r.bytes_read + r.bytes_written) * 1.0 / r.duration_usec END
                            AS mb_per_s,
        CASE WHEN r.duration_usec > 0 THEN
                r.bytes_read * 1000000.0 / r.duration_usec / 1048576.0 END
                            AS read_mib_per_s,
        CASE WHEN r.duration_usec > 0 THEN
                r.bytes_written * 1000000.0 / r.duration_usec / 1048576.0 END
                            AS write_mib_per_s,
        CASE WHEN r.duration_usec > 0 THEN
                (r.ios_read + r.ios_written) * 1000000.0 / r.duration_usec END
                            AS iops,
        CASE WHEN r.duration_usec > 0 THEN
                r.ios_read * 1000000.0 / r.duration_usec END
                            AS read_iops,
        CASE WHEN r.duration_usec > 0 THEN
                r.ios_written * 1000000.0 / r.duration_usec END
                            AS write_iops,
        CASE WHEN r.duration_usec > 0 THEN
                r.ops * 1000000.0 / r.duration_usec END
                            AS ops_per_s
FROM runs AS r
LEFT JOIN jobs AS j ON j.id = r.job_id
LEFT JOIN devices AS d ON d.id = r.device_id;
