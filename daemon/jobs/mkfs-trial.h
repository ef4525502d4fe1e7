/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trial mkfs of a filesystem matrix at SubmitJob: each filesystem's mkfs, with the job's
 * options and layout, run by `benchd-worker --try-mkfs` on sparse image files in the worker's own
 * mount namespace, never on the devices. mkfs options that mkfs rejects ("-b 3000", an unknown
 * -O feature) are so refused before anything is written, quoting what mkfs said. Blocking: it is
 * called in the verdict's helper process (verdict-query.h), never on benchd's event loop.
 */
#pragma once

#include "shared/spec.h"

/* 0 when every filesystem of s (a matrix spec whose target is its first device) made its trial
 * filesystem; -EINVAL with "mkfs_options.xfs: mkfs.xfs rejected ...: <its message>" in *reterr
 * otherwise, -ENOEXEC when worker_path is NULL or cannot be run (with a message). */
int mkfs_trial(const char *worker_path, const JobSpec *s, char **reterr);
