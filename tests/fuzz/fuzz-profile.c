/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: arbitrary text as a profile file (daemon/profiles/*.ini, /etc/benchd/profiles/),
 * read the way benchd reads one: the input is written to fuzz.ini in a private directory and
 * loaded with profile_load() (inih and the checks of each value), then expanded with
 * profile_expand() for a job on /srv (and once more with the job's own block_size on top). What
 * must hold: a refusal comes with a message; a profile that loads has steps, and each step it
 * expands to is a finalized spec whose JSON and text forms read back (fuzz-readback.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/profile.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "fuzz-readback.h"

static char dir[] = "/tmp/benchd-fuzz-profile.XXXXXX";
static char *dirs[2];
static char path[sizeof(dir) + 16];

static void remove_dir(void) {
        (void) unlink(path);
        (void) rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        (void) argc;
        (void) argv;
        if (!mkdtemp(dir))
                abort();
        snprintf(path, sizeof(path), "%s/fuzz.ini", dir);
        dirs[0] = dir;
        atexit(remove_dir);
        return 0;
}

static void expand(const Profile *p, const char *extra) {
        _cleanup_free_ char *err = NULL;
        JobSpec job, *steps = NULL;
        size_t n = 0;
        int r;

        spec_init(&job);
        if (spec_set_assignment(&job, "target=/srv", &err) < 0 || spec_set_assignment(&job, "profile=fuzz", &err) < 0 ||
            (extra && spec_set_assignment(&job, extra, &err) < 0) || spec_finalize(&job, &err) < 0)
                abort();
        r = profile_expand(p, &job, &steps, &n, &err);
        if (r < 0) {
                if (r != -EINVAL || !err || !err[0])
                        abort();
        } else {
                if (n != p->n_steps)
                        abort();
                for (size_t i = 0; i < n; i++) {
                        if (!steps[i].finalized)
                                abort();
                        fuzz_check_readback(&steps[i]);
                }
                spec_array_free(steps, n);
        }
        spec_clear(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_free_ char *err = NULL;
        int fd, r;

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t) size) || close(fd) < 0)
                abort();

        r = profile_load(dirs, "fuzz", &p, &err);
        if (r < 0) {
                if (r != -EINVAL || !err || !err[0])
                        abort();
                return 0;
        }
        if (p->n_steps == 0 || !p->steps)
                abort();
        expand(p, NULL);
        expand(p, "block_size=4K");
        return 0;
}
