/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trial mkfs of a filesystem matrix at SubmitJob: each filesystem's mkfs, with the job's
 * options and layout, run by `benchd-worker --try-mkfs` on sparse image files in the worker's own
 * mount namespace, never on the devices. mkfs options that mkfs rejects ("-b 3000", an unknown
 * -O feature) are so refused before anything is written, quoting what mkfs said. Blocking: it is
 * called in the verdict's helper process (verdict-query.h), never on benchd's event loop.
 *
 * What mkfs said reaches the caller only with its absolute paths replaced by "<path>", but for the
 * trial's own image files: an option such as --rootdir once made the trial walk a directory of the
 * host and name a file found there. mkfs now runs in a root of its own that holds nothing of the
 * host (daemon/worker/toolroot.h), so there is nothing left to name; the replacement is the second
 * line, for whatever the first misses.
 */
#pragma once

#include "shared/spec.h"

/* 0 when every filesystem of s (a matrix spec whose target is its first device) made its trial
 * filesystem; -EINVAL with "mkfs_options.xfs: mkfs.xfs rejected ...: <its message>" in *reterr
 * otherwise, -ENOEXEC when worker_path is NULL or cannot be run (with a message). Before them, an
 * md layout's md_options are put to mdadm (`benchd-worker --try-md-options`: mdadm --create on
 * member paths that do not exist, nothing created): -EINVAL with "md_options: mdadm rejected ...:
 * mdadm: <its words>" when it refuses them. */
int mkfs_trial(const char *worker_path, const JobSpec *s, char **reterr);

/* text with every absolute path but those under PROTO_TRY_MKFS_IMAGE_DIR (without "..") replaced
 * by "<path>": a '/' that starts a word (or follows a quote, a bracket, '=', ',' or a ':' not of
 * "://") up to a blank, a quote, a bracket, ',' or ';', a ':' or '.' at its end left out of it.
 * URLs stay. NULL when out of memory. */
char *mkfs_trial_strip_paths(const char *text);
