-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 11: benchmarks when a disk appears (docs/service.md "Benchmarks when a disk
-- appears").
--
--   jobs.triggered_by  what queued the job: 'bus' (SubmitJob: benchctl, busctl, a
--                      benchd-run@.timer), or 'udev' (the disk appeared with BENCHD_AUTORUN set);
--                      the jobs before this version were all submitted on the bus.
--
--   autoruns           one row per disk identity and firmware that appeared new (an identity the
--                      devices table did not have, or a firmware other than the one it had) on a
--                      disk whose udev rule asks for BENCHD_AUTORUN=PROFILE: 'waiting' while no
--                      job is queued for it (the check is under way, or it could not be queued
--                      and reason says why; it is tried again when the disk next appears or
--                      changes), 'queued' once the job is queued. A row never goes back from
--                      'queued': benchd queues at most one job per (identity, firmware), also
--                      across restarts, also when the job is deleted later.
--
-- firmware is '' when udev reports none, so that UNIQUE (identity, firmware) holds for those too.

ALTER TABLE jobs ADD COLUMN triggered_by TEXT NOT NULL DEFAULT 'bus'
        CHECK (triggered_by IN ('bus', 'udev'));

CREATE TABLE autoruns (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        identity            TEXT NOT NULL
                            CHECK (identity GLOB 'wwn:?*' OR identity GLOB 'serial:?*'
                                   OR identity GLOB 'model:?*'),
        firmware            TEXT NOT NULL DEFAULT '',
        profile             TEXT NOT NULL CHECK (length(profile) BETWEEN 1 AND 64),
        device_name         TEXT,
        appeared_usec       INTEGER NOT NULL,
        state               TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'queued')),
        job_id              INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
        queued_usec         INTEGER,
        reason              TEXT,
        UNIQUE (identity, firmware),
        CHECK (state = 'waiting' OR queued_usec IS NOT NULL)
);

CREATE INDEX autoruns_job ON autoruns (job_id);
