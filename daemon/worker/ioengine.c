/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The I/O engines by name, as fio finds its engines: every engine a file of its own with one ops
 * table, listed here once.
 */
#include <stddef.h>

#include "ioengine.h"
#include "shared/util.h"

static const IoEngineOps *const ioengines[] = {
        &ioengine_sync_ops,
        &ioengine_uring_ops,
        &ioengine_null_ops,
};

const IoEngineOps *ioengine_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(ioengines); i++)
                if (streq(ioengines[i]->name, name))
                        return ioengines[i];
        return NULL;
}
