-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 10: runs that travel between hosts (docs/fleet.md "Many machines").
--
--   uuid          the run's name on every host: a random (version 4) UUID in its canonical
--                 lower-case 8-4-4-4-12 form, given by benchd when the run begins and kept by
--                 benchctl export and ImportRuns, which skips a run whose uuid it has already;
--                 unique (runs_uuid). Runs before this version get one here.
--   origin_host   NULL: the run was measured on this host; otherwise the host name of the export
--                 document it was imported from (ImportRuns). The environment's "host" is kept as
--                 measured either way.
--
-- Both are exposed by GetRun (not by run_summary, whose columns stay as they were).

ALTER TABLE runs ADD COLUMN uuid TEXT CHECK (uuid IS NULL OR length(uuid) = 36);
ALTER TABLE runs ADD COLUMN origin_host TEXT CHECK (origin_host IS NULL OR length(origin_host) BETWEEN 1 AND 255);

-- 32 random hex digits a row, then the version (4) and variant (8, 9, a or b) nibbles set and the
-- dashes put in.
CREATE TEMP TABLE run_uuid_hex AS SELECT id, lower(hex(randomblob(16))) AS h FROM runs WHERE uuid IS NULL;
UPDATE runs SET uuid = (
        SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-' ||
               substr('89ab89ab89ab89ab', instr('0123456789abcdef', substr(h, 17, 1)), 1) ||
               substr(h, 18, 3) || '-' || substr(h, 21, 12)
        FROM run_uuid_hex AS x WHERE x.id = runs.id)
        WHERE uuid IS NULL;
DROP TABLE run_uuid_hex;

CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
