/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The metadata workload of metadata.c (bonnie++ -n), run as the single stream of a directory
 * target in the worker process, since its phases go to the sink as they end.
 */
#pragma once

#include "engine-core.h"

/* Runs the six phases in the directories target_open() made and holds (e->meta_fd,
 * e->meta_dir_fds); returns the stream's error. */
int metadata_run(Stream *s);
