-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema: the figures of the position workload's offsets. A position run reads `size`
-- bytes (fewer when the device is short of positions × size) sequentially at each of `positions`
-- offsets spread evenly over a block device, the first at 0 and the last ending at the device's
-- end, as GNOME Disks' benchmark samples a disk's surface; its run's summary in runs is all of
-- them together, and these rows are each one alone. Other workloads have none. Units as in
-- 0001-initial.sql.

-- One row per offset of a run, seq its index from 0 (from the start of the device to its end).
CREATE TABLE run_positions (
        run_id              INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq                 INTEGER NOT NULL CHECK (seq BETWEEN 0 AND 999),
        offset_bytes        INTEGER NOT NULL CHECK (offset_bytes >= 0),
        bytes               INTEGER NOT NULL CHECK (bytes > 0),
        duration_usec       INTEGER NOT NULL CHECK (duration_usec >= 0),
        lat_mean_ns         INTEGER NOT NULL CHECK (lat_mean_ns >= 0),
        lat_max_ns          INTEGER NOT NULL CHECK (lat_max_ns >= lat_mean_ns),
        PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- The offsets with their throughput, in the units of run_summary: mb_per_s is 10^6 bytes per
-- second, mib_per_s 2^20; both NULL for an offset read in no measurable time.
CREATE VIEW run_position_summary AS
SELECT
        p.run_id            AS run_id,
        p.seq               AS seq,
        p.offset_bytes      AS offset_bytes,
        p.bytes             AS bytes,
        p.duration_usec     AS duration_usec,
        CASE WHEN p.duration_usec > 0 THEN p.bytes * 1.0 / p.duration_usec END
                            AS mb_per_s,
        CASE WHEN p.duration_usec > 0 THEN p.bytes * 1000000.0 / p.duration_usec / 1048576.0 END
                            AS mib_per_s,
        p.lat_mean_ns       AS lat_mean_ns,
        p.lat_max_ns        AS lat_max_ns
FROM run_positions AS p;
