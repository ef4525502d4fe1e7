-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 8: samples stored compactly. At 10,000 runs of 600 samples the version 1 table
-- took about 99 bytes a sample; five REAL columns were 40 of them, and the bytes of most samples
-- repeat what ios and the run's block size already say. The samples now live in sample_data:
--
--   *_bp            basis points, 1/100 of a percent (0..10000), rounded. What is measured is
--                   coarser or about the same: /proc/stat counts USER_HZ (100) ticks a second per
--                   CPU, so over a 1 s interval the CPU shares are multiples of 1/N % on N CPUs
--                   (exact in basis points up to 100 CPUs; beyond, the rounding, at most 0.005
--                   percentage points, is far below the error of tick sampling itself), and
--                   /sys/block/*/stat counts io_ticks in ms, 0.1 % of a 1 s interval.
--   dev_queue_milli the average queue size in 1/1000 of a request, rounded: time_in_queue is
--                   counted in ms, so 1/1000 is its resolution over a 1 s interval.
--   bytes_read, bytes_written
--                   NULL when they are ios_read (ios_written) times the run's block_size, as for
--                   every full-block I/O; the value otherwise (a short last I/O, a metadata run).
--   interval_us     NULL when the sample's t_ms minus the previous sample's (0 for the first) says
--                   it to within 1 ms and 1 %: the view gives 1000 × that difference then. The
--                   value otherwise: after a sample the database lost, for a last interval shorter
--                   than 1 ms. (Kept in every row it took 4.5 bytes a sample, 7 % of the file.)
--
-- The samples view has the version 1 table's columns, names and units (REAL percentages, bytes
-- filled in), so queries of samples work as before; benchd writes sample_data. Existing rows are
-- copied over, converted the same way (samples of runs that no longer exist were unreachable and
-- are not copied).
--
-- And every filter of QueryRuns (benchctl results) becomes an index search rather than a walk
-- through all runs: indexes by workload, filesystem, label, status (each with started_usec, the
-- order of the answer), jobs by profile, and run_tags, the runs' tags one row each, kept by
-- triggers from runs.tags (which stays the contract).

CREATE TABLE sample_data (
        run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        t_ms                INTEGER NOT NULL CHECK (t_ms >= 0),
        interval_us         INTEGER CHECK (interval_us IS NULL OR interval_us >= 0),
        bytes_read          INTEGER CHECK (bytes_read IS NULL OR bytes_read >= 0),
        bytes_written       INTEGER CHECK (bytes_written IS NULL OR bytes_written >= 0),
        ios_read            INTEGER NOT NULL,
        ios_written         INTEGER NOT NULL,
        ops                 INTEGER NOT NULL,
        lat_mean_ns         INTEGER,
        lat_p50_ns          INTEGER,
        lat_p99_ns          INTEGER,
        lat_max_ns          INTEGER,
        iowait_bp           INTEGER CHECK (iowait_bp IS NULL OR iowait_bp BETWEEN 0 AND 10000),
        cpu_user_bp         INTEGER CHECK (cpu_user_bp IS NULL OR cpu_user_bp BETWEEN 0 AND 10000),
        cpu_sys_bp          INTEGER CHECK (cpu_sys_bp IS NULL OR cpu_sys_bp BETWEEN 0 AND 10000),
        dev_util_bp         INTEGER CHECK (dev_util_bp IS NULL OR dev_util_bp BETWEEN 0 AND 10000),
        dev_queue_milli     INTEGER CHECK (dev_queue_milli IS NULL OR dev_queue_milli >= 0),
        PRIMARY KEY (run_id, t_ms)
) WITHOUT ROWID;

INSERT INTO sample_data
SELECT
        s.run_id,
        s.t_ms,
        CASE WHEN abs(s.interval_us - 1000 * (s.t_ms - COALESCE(
                        (SELECT max(p.t_ms) FROM samples AS p WHERE p.run_id = s.run_id AND p.t_ms < s.t_ms), 0)))
                        BETWEEN 0 AND min(999, s.interval_us / 100)
                THEN NULL ELSE s.interval_us END,
        NULLIF(s.bytes_read, s.ios_read * r.block_size),
        NULLIF(s.bytes_written, s.ios_written * r.block_size),
        s.ios_read,
        s.ios_written,
        s.ops,
        s.lat_mean_ns,
        s.lat_p50_ns,
        s.lat_p99_ns,
        s.lat_max_ns,
        CAST(round(max(0, min(100, s.iowait_pct)) * 100) AS INTEGER),
        CAST(round(max(0, min(100, s.cpu_user_pct)) * 100) AS INTEGER),
        CAST(round(max(0, min(100, s.cpu_sys_pct)) * 100) AS INTEGER),
        CAST(round(max(0, min(100, s.dev_util_pct)) * 100) AS INTEGER),
        CAST(round(max(0, s.dev_queue) * 1000) AS INTEGER)
FROM samples AS s
JOIN runs AS r ON r.id = s.run_id
ORDER BY s.run_id, s.t_ms;

DROP TABLE samples;

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

-- QueryRuns' filters, each in started_usec order (newest first is the answer's order).
CREATE INDEX runs_workload_started ON runs (workload, started_usec);
CREATE INDEX runs_fs_type_started ON runs (fs_type, started_usec);
CREATE INDEX runs_label_started ON runs (label, started_usec);
CREATE INDEX runs_status_started ON runs (status, started_usec);
CREATE INDEX jobs_profile ON jobs (profile);

-- One row per tag of a run (the strings of runs.tags), so "runs tagged nightly" is a search.
-- Written only by the triggers below; deleted with the run.
CREATE TABLE run_tags (
        run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        tag                 TEXT NOT NULL,
        PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX run_tags_tag ON run_tags (tag, run_id);

INSERT OR IGNORE INTO run_tags (run_id, tag)
SELECT r.id, t.value FROM runs AS r, json_each(r.tags) AS t
WHERE r.tags IS NOT NULL AND t.type = 'text';

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
