-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 14: ScratchDevices= by identity (docs/DESIGN.md "Scratch is a disk, not a
-- name").
--
--   scratch_bindings   one row per path in ScratchDevices= (a kernel name such as /dev/sdb or
--                      /dev/loop2, a /dev/disk/by-id/ link): the identity of the device it named
--                      when benchd first saw it (wwn:..., serial:..., model:..., or for a loop
--                      device loop-file:PATH (inode N on MAJ:MIN); a partition's ends with
--                      " partition N"). While benchd.conf keeps the modification time it had then
--                      (conf_mtime_nsec), the path marks only that identity scratch, across
--                      restarts and reboots: another disk under the name is not scratch. When the
--                      file has been written since, benchd binds the path again at its next start.

CREATE TABLE scratch_bindings (
        spelling            TEXT PRIMARY KEY NOT NULL CHECK (length(spelling) BETWEEN 1 AND 4096),
        identity            TEXT NOT NULL CHECK (length(identity) BETWEEN 1 AND 8192),
        conf_mtime_nsec     INTEGER NOT NULL,
        bound_usec          INTEGER NOT NULL CHECK (bound_usec >= 0)
);
