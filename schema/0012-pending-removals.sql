-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 12: removals of a job's files that were begun and have not finished.
--
--   pending_removals   one row per removal of .benchd-<job_id>-* (step -1: of all the job's
--                      steps; else .benchd-<job_id>-<step>-*) in the directory target, written
--                      before the removing process starts and deleted when it has finished with
--                      nothing of ours left. A benchd killed while a removal runs (a metadata
--                      step's millions of files take minutes) finds the row at its next start and
--                      removes the files then, whatever state the job reached meanwhile: a job's
--                      end is stored without waiting for its files to go.
--
-- No foreign key to jobs: files outlive a job row that was deleted, and are removed all the same.

CREATE TABLE pending_removals (
        job_id              INTEGER NOT NULL CHECK (job_id > 0),
        step                INTEGER NOT NULL CHECK (step >= -1),
        target              TEXT NOT NULL CHECK (length(target) BETWEEN 1 AND 4096),
        since_usec          INTEGER NOT NULL CHECK (since_usec >= 0),
        PRIMARY KEY (job_id, step, target)
);
