-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 17: whether a figure is the device's, and the worker's own CPU time
-- (docs/views.md "Figures the device did not produce").
--
--   process_user_usec, process_sys_usec
--                          CPU time of benchd-worker and its stream processes in the measured
--                          phase (getrusage): what bonnie++'s %CP counts of its own process
--   device_bytes_read, device_bytes_written
--                          what the block counters of the target's devices saw in the measured
--                          phase; NULL when no device backs the target (tmpfs)
--   backing_bytes_read, backing_bytes_written
--                          the same for the disks under the backing files of the loop devices
--                          among them; NULL when there is none (no loop device, or an image on
--                          tmpfs)
--   served_from            'device', 'page-cache' (the device saw less than half of what the
--                          workload read or wrote) or 'backing-file' (a loop device saw it, the
--                          disk under its image did not: the host's cache, or a sparse image's
--                          holes); NULL when not judged (no counters, a metadata run, older runs)
--
-- run_summary gains them and process_cpu_pct (process CPU time over duration_usec, in percent of
-- one CPU, bonnie++'s %CP), after its columns, which keep their order.

ALTER TABLE runs ADD COLUMN process_user_usec INTEGER CHECK (process_user_usec IS NULL OR process_user_usec >= 0);
ALTER TABLE runs ADD COLUMN process_sys_usec INTEGER CHECK (process_sys_usec IS NULL OR process_sys_usec >= 0);
ALTER TABLE runs ADD COLUMN device_bytes_read INTEGER CHECK (device_bytes_read IS NULL OR device_bytes_read >= 0);
ALTER TABLE runs ADD COLUMN device_bytes_written INTEGER
        CHECK (device_bytes_written IS NULL OR device_bytes_written >= 0);
ALTER TABLE runs ADD COLUMN backing_bytes_read INTEGER CHECK (backing_bytes_read IS NULL OR backing_bytes_read >= 0);
ALTER TABLE runs ADD COLUMN backing_bytes_written INTEGER
        CHECK (backing_bytes_written IS NULL OR backing_bytes_written >= 0);
ALTER TABLE runs ADD COLUMN served_from TEXT
        CHECK (served_from IS NULL OR served_from IN ('device', 'page-cache', 'backing-file'));

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
                            AS process_cpu_pct
FROM runs AS r
LEFT JOIN jobs AS j ON j.id = r.job_id
LEFT JOIN devices AS d ON d.id = r.device_id;
