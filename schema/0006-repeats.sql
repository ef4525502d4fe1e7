-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 6: repeats and steady state. A step may run several times (repeat=N, or
-- until_stddev= until its main figure is stable, at most max_repeats=): each run is a row of its
-- own, numbered by repeat from 0 within its step, so (job_id, step, repeat) names a run and the
-- runs of one step are its repeats (runs_job serves both). A time-based step may end once its
-- figure is steady (steady_state=): the run records whether that was reached and when.
--
--   repeat              0, 1, ...: the run's place among the runs of its step; 0 for runs before this
--                       version
--   steady_state        NULL: not asked (no steady_state in the spec); 0: asked, not reached (the run
--                       went its whole runtime); 1: reached, and the run ended there
--   steady_state_usec   when it was reached, microseconds into the measured phase (the t_ms of the
--                       sample that completed the steady window, × 1000); NULL otherwise
--
-- run_summary gains the same columns (made again; the other columns keep their names and their
-- order among themselves).

ALTER TABLE runs ADD COLUMN "repeat" INTEGER NOT NULL DEFAULT 0 CHECK ("repeat" >= 0);
ALTER TABLE runs ADD COLUMN steady_state INTEGER CHECK (steady_state IS NULL OR steady_state IN (0, 1));
ALTER TABLE runs ADD COLUMN steady_state_usec INTEGER
        CHECK (steady_state_usec IS NULL OR (steady_state = 1 AND steady_state_usec >= 0));

DROP VIEW run_summary;
CREATE VIEW run_summary AS
SELECT
        r.id                AS id,
        r.job_id            AS job_id,
        r.step              AS step,
        r."repeat"          AS "repeat",
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
                            AS ops_per_s
FROM runs AS r
LEFT JOIN jobs AS j ON j.id = r.job_id
LEFT JOIN devices AS d ON d.id = r.device_id;
