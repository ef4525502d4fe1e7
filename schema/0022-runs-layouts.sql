-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 22: runs.layout accepts every layout a matrix job can have. Version 4
-- declared layout with a CHECK listing single, raid0, raid1, raid10, md-raid0, md-raid1 and lvm;
-- md-raid5, md-raid10 (docs/matrices.md "How an md entry runs") and md-raid1+lvm (an LVM volume
-- group over an md RAID1 array) were refused by it. SQLite cannot alter a CHECK, so the runs
-- table is made again with the new one, every other column, constraint and default as they were,
-- in the same order, and its rows copied with their ids; the table's AUTOINCREMENT counter is kept,
-- so a deleted run's id is still never given again.
--
-- benchd applies migrations with foreign key enforcement off (schema/README.md "Migration
-- policy"), so dropping the old table deletes no row of the tables that refer to runs
-- (run_histograms, run_phases, run_positions, regressions, sample_data, run_tags); each migration
-- is checked with PRAGMA foreign_key_check before it commits. The views over runs (run_summary,
-- samples) are dropped first and made again unchanged, and so are runs' indexes and triggers.

DROP VIEW run_summary;
DROP VIEW samples;

CREATE TEMP TABLE runs_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'runs';

CREATE TABLE runs_new (
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
        dev_util_pct        REAL,
        layout              TEXT CHECK (layout IS NULL OR layout IN ('single', 'raid0', 'raid1', 'raid10',
                                                                     'md-raid0', 'md-raid1', 'md-raid5', 'md-raid10',
                                                                     'lvm', 'md-raid1+lvm')),
        members             TEXT CHECK (members IS NULL OR (json_valid(members) AND json_type(members) = 'array')),
        matrix_entry        INTEGER CHECK (matrix_entry IS NULL OR matrix_entry >= 0),
        mkfs_command        TEXT,
        mkfs_options        TEXT,
        mkfs_usec           INTEGER CHECK (mkfs_usec IS NULL OR mkfs_usec >= 0),
        mkfs_output         TEXT,
        fs_uuid             TEXT,
        fs_size_bytes       INTEGER CHECK (fs_size_bytes IS NULL OR fs_size_bytes >= 0),
        fs_used_bytes       INTEGER CHECK (fs_used_bytes IS NULL OR fs_used_bytes >= 0),
        fs_avail_bytes      INTEGER CHECK (fs_avail_bytes IS NULL OR fs_avail_bytes >= 0),
        fs_inodes           INTEGER CHECK (fs_inodes IS NULL OR fs_inodes >= 0),
        fs_inodes_free      INTEGER CHECK (fs_inodes_free IS NULL OR fs_inodes_free >= 0),
        "repeat"            INTEGER NOT NULL DEFAULT 0 CHECK ("repeat" >= 0),
        steady_state        INTEGER CHECK (steady_state IS NULL OR steady_state IN (0, 1)),
        steady_state_usec   INTEGER CHECK (steady_state_usec IS NULL OR (steady_state = 1 AND steady_state_usec >= 0)),
        baseline_segment    TEXT CHECK (baseline_segment IS NULL OR baseline_segment IN ('continues', 'first', 'kernel', 'firmware', 'kernel+firmware')),
        uuid                TEXT CHECK (uuid IS NULL OR length(uuid) = 36),
        origin_host         TEXT CHECK (origin_host IS NULL OR length(origin_host) BETWEEN 1 AND 255),
        process_user_usec   INTEGER CHECK (process_user_usec IS NULL OR process_user_usec >= 0),
        process_sys_usec    INTEGER CHECK (process_sys_usec IS NULL OR process_sys_usec >= 0),
        device_bytes_read   INTEGER CHECK (device_bytes_read IS NULL OR device_bytes_read >= 0),
        device_bytes_written INTEGER CHECK (device_bytes_written IS NULL OR device_bytes_written >= 0),
        backing_bytes_read  INTEGER CHECK (backing_bytes_read IS NULL OR backing_bytes_read >= 0),
        backing_bytes_written INTEGER CHECK (backing_bytes_written IS NULL OR backing_bytes_written >= 0),
        served_from         TEXT CHECK (served_from IS NULL OR served_from IN ('device', 'page-cache', 'backing-file')),
        "round"             INTEGER CHECK ("round" IS NULL OR "round" >= 0),
        fleet_uuid          TEXT,
        fleet_host          TEXT,
        fleet_clock_offset_us INTEGER,
        fleet_rtt_us        INTEGER CHECK (fleet_rtt_us IS NULL OR fleet_rtt_us >= 0),
        fleet_start_usec    INTEGER CHECK (fleet_start_usec IS NULL OR fleet_start_usec >= 0),
        fleet_start_corrected INTEGER CHECK (fleet_start_corrected IS NULL OR fleet_start_corrected IN (0, 1)),
        fs_commands         TEXT CHECK (fs_commands IS NULL OR json_valid(fs_commands)),
        partitions          INTEGER CHECK (partitions IS NULL OR partitions BETWEEN 1 AND 16),
        "partition"         INTEGER CHECK (partition IS NULL OR partition BETWEEN 1 AND 16),
        md_array            TEXT,
        md_resync           TEXT CHECK (md_resync IS NULL OR md_resync IN ('wait', 'assume-clean')),
        md_resync_usec      INTEGER CHECK (md_resync_usec IS NULL OR md_resync_usec >= 0),
        md_chunk_bytes      INTEGER CHECK (md_chunk_bytes IS NULL OR md_chunk_bytes >= 0),
        layout_commands     TEXT
);

INSERT INTO runs_new SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;

-- The AUTOINCREMENT counter as it was (the copy set it to the highest id copied).
UPDATE sqlite_sequence SET seq = max(seq, (SELECT seq FROM temp.runs_sequence)) WHERE name = 'runs'
        AND EXISTS (SELECT 1 FROM temp.runs_sequence);
INSERT INTO sqlite_sequence (name, seq)
        SELECT 'runs', seq FROM temp.runs_sequence WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'runs');
DROP TABLE temp.runs_sequence;

CREATE INDEX runs_device_workload_started ON runs (device_id, workload, started_usec);
CREATE INDEX runs_device_name_started ON runs (device_name, started_usec);
CREATE INDEX runs_started ON runs (started_usec);
CREATE INDEX runs_job ON runs (job_id, step);
CREATE INDEX runs_workload_started ON runs (workload, started_usec);
CREATE INDEX runs_fs_type_started ON runs (fs_type, started_usec);
CREATE INDEX runs_label_started ON runs (label, started_usec);
CREATE INDEX runs_status_started ON runs (status, started_usec);
CREATE INDEX runs_series ON runs (device_id, workload, block_size, queue_depth, jobs, fs_type, layout, started_usec)
        WHERE status = 'succeeded';
CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
CREATE INDEX runs_local_series ON runs (device_id, workload, block_size, queue_depth, jobs, fs_type, layout,
                                        started_usec)
        WHERE status = 'succeeded' AND origin_host IS NULL;
CREATE INDEX runs_status ON runs (status, origin_host);
CREATE INDEX runs_rounds ON runs(job_id, "round") WHERE "round" IS NOT NULL;
CREATE INDEX runs_fleet ON runs(fleet_uuid) WHERE fleet_uuid IS NOT NULL;
CREATE INDEX runs_md_array ON runs(md_array) WHERE md_array IS NOT NULL;

CREATE TRIGGER runs_tags_insert AFTER INSERT ON runs WHEN NEW.tags IS NOT NULL
BEGIN
        INSERT OR IGNORE INTO run_tags (run_id, tag)
        SELECT NEW.id, value FROM json_each(NEW.tags) WHERE type = 'text';
END;
CREATE TRIGGER runs_tags_update AFTER UPDATE OF tags ON runs
BEGIN
        DELETE FROM run_tags WHERE run_id = NEW.id;
        INSERT OR IGNORE INTO run_tags (run_id, tag)
        SELECT NEW.id, value FROM json_each(NEW.tags) WHERE NEW.tags IS NOT NULL AND type = 'text';
END;

CREATE VIEW samples AS
SELECT
        d.run_id            AS run_id,
        d.t_ms              AS t_ms,
        COALESCE(d.interval_us, 1000 * (d.t_ms - COALESCE(
                (SELECT max(p.t_ms) FROM sample_data AS p WHERE p.run_id = d.run_id AND p.t_ms < d.t_ms), 0)))
                            AS interval_us,
        COALESCE(d.bytes_read, d.ios_read * r.block_size)
                            AS bytes_read,
        COALESCE(d.bytes_written, d.ios_written * r.block_size)
                            AS bytes_written,
        d.ios_read          AS ios_read,
        d.ios_written       AS ios_written,
        d.ops               AS ops,
        d.lat_mean_ns       AS lat_mean_ns,
        d.lat_p50_ns        AS lat_p50_ns,
        d.lat_p99_ns        AS lat_p99_ns,
        d.lat_max_ns        AS lat_max_ns,
        d.iowait_bp / 100.0 AS iowait_pct,
        d.cpu_user_bp / 100.0
                            AS cpu_user_pct,
        d.cpu_sys_bp / 100.0
                            AS cpu_sys_pct,
        d.dev_util_bp / 100.0
                            AS dev_util_pct,
        d.dev_queue_milli / 1000.0
                            AS dev_queue
FROM sample_data AS d
JOIN runs AS r ON r.id = d.run_id;

CREATE VIEW run_summary AS
SELECT
        r.id                AS id,
        r.job_id            AS job_id,
        r.step              AS step,
        r."repeat"          AS "repeat",
        r."round"           AS "round",
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
        r.layout            AS layout,
        r.members           AS members,
        r.matrix_entry      AS matrix_entry,
        r.mkfs_command      AS mkfs_command,
        r.mkfs_options      AS mkfs_options,
        r.mkfs_usec         AS mkfs_usec,
        r.fs_uuid           AS fs_uuid,
        r.fs_size_bytes     AS fs_size_bytes,
        r.fs_used_bytes     AS fs_used_bytes,
        r.fs_avail_bytes    AS fs_avail_bytes,
        r.fs_inodes         AS fs_inodes,
        r.fs_inodes_free    AS fs_inodes_free,
        r.label             AS label,
        r.tags              AS tags,
        r.started_usec      AS started_usec,
        r.duration_usec     AS duration_usec,
        r.steady_state      AS steady_state,
        r.steady_state_usec AS steady_state_usec,
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
                            AS ops_per_s,
        r.process_user_usec AS process_user_usec,
        r.process_sys_usec  AS process_sys_usec,
        r.device_bytes_read AS device_bytes_read,
        r.device_bytes_written AS device_bytes_written,
        r.backing_bytes_read AS backing_bytes_read,
        r.backing_bytes_written AS backing_bytes_written,
        r.served_from       AS served_from,
        CASE WHEN r.duration_usec > 0 THEN
                (r.process_user_usec + r.process_sys_usec) * 100.0 / r.duration_usec END
                            AS process_cpu_pct,
        r.fleet_uuid        AS fleet_uuid,
        r.fleet_host        AS fleet_host,
        r.fleet_clock_offset_us AS fleet_clock_offset_us,
        r.fleet_rtt_us      AS fleet_rtt_us,
        r.fleet_start_usec  AS fleet_start_usec,
        r.fleet_start_corrected AS fleet_start_corrected,
        r.partitions        AS partitions,
        r.partition         AS partition,
        r.fs_commands       AS fs_commands
FROM runs AS r
LEFT JOIN jobs AS j ON j.id = r.job_id
LEFT JOIN devices AS d ON d.id = r.device_id;
