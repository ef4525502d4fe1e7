-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 20: how a matrix entry's filesystem was made, command by command, and
-- partitions as a matrix dimension (docs/matrices.md "Converted filesystems" and "Partitions").
--
--   fs_commands   every command benchd-worker ran on the members to make the run's filesystem, in
--                 order, as a JSON array of {"command": argv joined by spaces, "usec": its wall
--                 time (CLOCK_MONOTONIC), "status": its exit status, "output": what it printed
--                 (at most 4096 bytes)}: sfdisk first when the job has partitions=, then mkfs, then
--                 for filesystems=ext4-from-ext3 tune2fs -O extents,uninit_bg,dir_index and
--                 e2fsck -fyD. NULL for runs that made no filesystem and runs stored before.
--   partitions    the job's partitions= (each device split into that many equal GPT partitions),
--                 NULL when it had none
--   partition     the partition (1..partitions) of each device the entry's filesystem was made on,
--                 NULL when the job had no partitions=
--
-- run_summary gains the three columns at its end (made again; the other columns keep their names
-- and their order).

ALTER TABLE runs ADD COLUMN fs_commands TEXT CHECK (fs_commands IS NULL OR json_valid(fs_commands));
ALTER TABLE runs ADD COLUMN partitions INTEGER CHECK (partitions IS NULL OR partitions BETWEEN 1 AND 16);
ALTER TABLE runs ADD COLUMN partition INTEGER CHECK (partition IS NULL OR partition BETWEEN 1 AND 16);

DROP VIEW run_summary;
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
