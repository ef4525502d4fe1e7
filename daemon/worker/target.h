/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker's side of the target (target.c): opening it, the files we create and remove, the
 * layout before the measured phase, and the block devices that back it. The daemon's side, which
 * finds and vets a target before any worker runs, is daemon/devices/locate.c.
 */
#pragma once

#include "engine-core.h"

/* Opens the target into e->dirfd (directory: and creates each stream's file, or metadata's
 * directory) or e->target_fd (file, block device), and sets every stream's fd and region. */
int target_open(Engine *e, char **reterr);
/* Lays out the files that need it, drops the page cache, and does reread's first pass. */
int target_layout(Engine *e, char **reterr);
/* Closes what target_open() opened and removes exactly what it created. */
void target_cleanup(Engine *e);
/* Fills e->leaves with the devices at the bottom of the stack that backs the target. */
int target_resolve_devices(Engine *e);
