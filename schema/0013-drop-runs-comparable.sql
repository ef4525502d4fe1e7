-- SPDX-License-Identifier: LGPL-2.1-or-later
--
-- benchd schema, version 13: runs_comparable (version 7) goes. The regression check reads its
-- history through runs_series (version 9), whose columns begin with runs_comparable's and go on
-- with fs_type and layout, which the check compares too; since version 9 no statement uses
-- runs_comparable, and every run written kept it up to date for nothing.

DROP INDEX IF EXISTS runs_comparable;
