-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 16: the uid a removal of a job's files runs as. A step on a directory or
-- file target of a caller other than root runs as that caller (docs/DESIGN.md, "A caller's step
-- runs as the caller"), so the files it made are the caller's, and the removal, which takes only
-- files owned by the uid it runs as, runs as the caller too. A removal recorded before this version
-- was of files made as root: uid 0.

ALTER TABLE pending_removals ADD COLUMN uid INTEGER NOT NULL DEFAULT 0 CHECK (uid BETWEEN 0 AND 4294967294);
