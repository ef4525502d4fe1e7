/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The conversion of a filesystem after mkfs (fsconvert.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fsconvert.h"
#include "shared/fs-entry.h"
#include "shared/strv.h"
#include "shared/util.h"

#define fail(reterr, r, ...) reterr_set_once((reterr), (r), __VA_ARGS__)

char **fsconvert_argv(const char *fs_type, unsigned i, const char *node) {
        const char *tune2fs[] = { "tune2fs", "-O", "extents,uninit_bg,dir_index", node, NULL };
        const char *e2fsck[] = { "e2fsck", "-fyD", node, NULL };
        const char *const *words;
        char **argv;
        size_t n = 0;

        if (!fs_entry_converts(fs_type) || i > 1)
                return NULL;
        words = i == 0 ? tune2fs : e2fsck;
        while (words[n])
                n++;
        argv = calloc(n + 1, sizeof(char *));
        if (!argv)
                return NULL;
        for (size_t k = 0; k < n; k++)
                if (!(argv[k] = strdup(words[k]))) {
                        strv_free(argv);
                        return NULL;
                }
        return argv;
}

bool fsconvert_status_ok(unsigned i, int exit_status) {
        /* e2fsck(8): 0 no errors, 1 errors corrected (what -D reports after optimising the
         * directories); 2 corrected, reboot; 4 and up: left uncorrected, or failed. */
        return exit_status == 0 || (i == 1 && exit_status == 1);
}

int fsconvert_run(const char *fs_type, const ToolRootDevice *device, const char *node, const FsPrepOptions *opts,
                  ProtoFsInfo *info, char **reterr) {
        int r;

        for (unsigned i = 0;; i++) {
                _cleanup_(sandbox_result_clear) SandboxResult res = {};
                _cleanup_strv_free_ char **argv = fsconvert_argv(fs_type, i, node);
                _cleanup_free_ char *program = NULL, *summary = NULL;
                char how[48];

                if (!argv)
                        return i >= 2 || !fs_entry_converts(fs_type) ? 0 : -ENOMEM;
                r = fstool_find_program(argv[0], &program, reterr);
                if (r < 0)
                        return r;
                r = fstool_run(fs_entry_mkfs_type(fs_type), program, argv, device, 1, NULL, NULL, opts, &res, reterr);
                if (r < 0)
                        return r;
                r = fstool_command_add(info, argv, &res);
                if (r < 0)
                        return r;
                if (WIFEXITED(res.status) && fsconvert_status_ok(i, WEXITSTATUS(res.status)))
                        continue;
                fstool_status_text(res.status, how, sizeof(how));
                summary = fstool_output_summary(res.output);
                return fail(reterr, -EINVAL, "%s failed converting the %s filesystem to %s (%s): %s", argv[0],
                            fs_entry_mkfs_type(fs_type), fs_entry_mount_type(fs_type), how,
                            summary ?: "no output");
        }
}
