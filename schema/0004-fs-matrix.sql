-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 4: filesystem matrices. A run of a matrix job (filesystems=) ran on a
-- filesystem benchd made for it: the runs of one entry (one filesystem on its member devices)
-- share matrix_entry, and each records how the filesystem was made and what it held right after
-- mkfs, so "ext4 uses 3% of the device right after mkfs" is a query. NULL for other runs.
--
--   layout          single | raid0 | raid1 | raid10 (btrfs's own RAID across the members)
--   members         JSON array of the member device paths as the spec gave them, in mkfs order
--   matrix_entry    0, 1, ...: the entry's place in the job (filesystems in the order given; with
--                   layout=single and several devices, each filesystem on each device in turn)
--   mkfs_command    the argv benchd-worker ran, joined by spaces (/dev paths as mkfs saw them)
--   mkfs_options    the job's mkfs_options for this filesystem, as given
--   mkfs_usec       how long mkfs took (wall clock, CLOCK_MONOTONIC)
--   mkfs_output     what mkfs printed (stdout and stderr, at most 4096 bytes)
--   fs_uuid         the filesystem's UUID (libblkid; btrfs: the filesystem's, shared by members)
--   fs_size_bytes, fs_used_bytes, fs_avail_bytes, fs_inodes, fs_inodes_free
--                   statvfs right after the first mount following mkfs (f_blocks, f_blocks - f_bfree,
--                   f_bavail in bytes; f_files, f_ffree); every run of the entry carries the same
--   fs_type, mount_options (version 1 columns) are the entry's filesystem and the options it was
--   mounted with.
--
-- run_summary gains the same columns (a view cannot be altered: it is made again, unchanged
-- otherwise).

ALTER TABLE runs ADD COLUMN layout TEXT
        CHECK (layout IS NULL OR layout IN ('single', 'raid0', 'raid1', 'raid10', 'md-raid0', 'md-raid1', 'lvm'));
ALTER TABLE runs ADD COLUMN members TEXT
        CHECK (members IS NULL OR (json_valid(members) AND json_type(members) = 'array'));
ALTER TABLE runs ADD COLUMN matrix_entry INTEGER CHECK (matrix_entry IS NULL OR matrix_entry >= 0);
ALTER TABLE runs ADD COLUMN mkfs_command TEXT;
ALTER TABLE runs ADD COLUMN mkfs_options TEXT;
ALTER TABLE runs ADD COLUMN mkfs_usec INTEGER CHECK (mkfs_usec IS NULL OR mkfs_usec >= 0);
ALTER TABLE runs ADD COLUMN mkfs_output TEXT;
ALTER TABLE runs ADD COLUMN fs_uuid TEXT;
ALTER TABLE runs ADD COLUMN fs_size_bytes INTEGER CHECK (fs_size_bytes IS NULL OR fs_size_bytes >= 0);
ALTER TABLE runs ADD COLUMN fs_used_bytes INTEGER CHECK (fs_used_bytes IS NULL OR fs_used_bytes >= 0);
ALTER TABLE runs ADD COLUMN fs_avail_bytes INTEGER CHECK (fs_avail_bytes IS NULL OR fs_avail_bytes >= 0);
ALTER TABLE runs ADD COLUMN fs_inodes INTEGER CHECK (fs_inodes IS NULL OR fs_inodes >= 0);
ALTER TABLE runs ADD COLUMN fs_inodes_free INTEGER CHECK (fs_inodes_free IS NULL OR fs_inodes_free >= 0);

DROP VIEW run_summary;
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
