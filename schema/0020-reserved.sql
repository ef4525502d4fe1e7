-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 20: reserved. The number belongs to the partitions and ext4-from-ext3
-- migration developed beside this branch; this placeholder only keeps the numbering without a gap
-- until that migration takes its place (then this file goes). It changes nothing.

SELECT 1;
