/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What turns the filesystem mkfs made into the one an entry of fs-entry.h names: for
 * ext4-from-ext3 (the seeds' conversion in place) `tune2fs -O extents,uninit_bg,dir_index DEV` and
 * then `e2fsck -fyD DEV`, on the unmounted filesystem, each in the sandbox as mkfs is (sandbox.h:
 * a root with only the tool and the device), timed, its command line, exit status and output added
 * to FS_INFO's commands. e2fsck's exit status 1 ("file system errors corrected": -D rewrites every
 * directory, which it reports so) is accepted besides 0; anything else (2 asks for a reboot, 4 and up left errors or failed)
 * fails the step with the tool's own output.
 */
#pragma once

#include "fstool.h"

/* Runs the conversion of entry fs_type on node (device: its node and dev_t for the root). */
int fsconvert_run(const char *fs_type, const ToolRootDevice *device, const char *node, const FsPrepOptions *opts,
                  ProtoFsInfo *info, char **reterr);

/* The pure parts, for tests: argv of step i (0: tune2fs, 1: e2fsck) on node, NULL past the last;
 * whether an exit status of that step is success. */
char **fsconvert_argv(const char *fs_type, unsigned i, const char *node);
bool fsconvert_status_ok(unsigned i, int exit_status);
