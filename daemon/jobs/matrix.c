/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The expansion of a filesystem matrix into steps (matrix.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/matrix.h"
#include "shared/strv.h"
#include "shared/util.h"

static char *matrix_entry_name_base(const JobSpec *step, size_t n_job_devices);

static bool layout_spans_devices(Layout l) {
        return l != LAYOUT_SINGLE;
}

/* How many partitions of each device the entries run on: all of partitions=, or the one of partition=. */
static uint32_t n_partitions(const JobSpec *job) {
        return job->partitions == 0 || job->partition != 0 ? 1 : job->partitions;
}

size_t matrix_n_entries(const JobSpec *job) {
        size_t n_fs = strv_length(job->filesystems);

        if (n_fs == 0)
                return 0;
        return (layout_spans_devices(job->layout) ? n_fs : n_fs * strv_length(job->devices)) * n_partitions(job);
}

/* A map key of s set to one entry (fs: value), or emptied when value is NULL. */
static int set_map_one(JobSpec *s, const char *key, const char *fs, const char *value, char **reterr) {
        char *keys[] = { (char *) fs, NULL }, *values[] = { (char *) value, NULL };

        return spec_set(s, key, &(SpecValue) { .type = SPEC_VALUE_MAP,
                                                .map = { .keys = keys, .values = values, .n = value ? 1 : 0 } },
                        reterr);
}

/* The step of entry (fs, members, partition) made from base: filesystems, devices and target
 * narrowed to the entry, only its filesystem's options kept, and its partition (0: none). */
static int narrow_step(const JobSpec *base, const char *fs, char **members, uint32_t partition, JobSpec *ret,
                       char **reterr) {
        _cleanup_(spec_clear) JobSpec s;
        char *fs_list[] = { (char *) fs, NULL };
        _cleanup_free_ char *mkfs = NULL, *mount = NULL;
        int r;

        r = strdup_or_null(spec_map_get(&base->mkfs_options, fs), &mkfs);
        if (r >= 0)
                r = strdup_or_null(spec_map_get(&base->mount_options, fs), &mount);
        if (r < 0)
                return r;
        spec_init(&s);
        r = spec_copy(base, &s);
        if (r < 0)
                return r;
        r = spec_set(&s, "filesystems", &(SpecValue) { .type = SPEC_VALUE_STRV, .strv = fs_list }, reterr);
        if (r >= 0)
                r = spec_set(&s, "devices", &(SpecValue) { .type = SPEC_VALUE_STRV, .strv = members }, reterr);
        if (r >= 0)
                r = spec_set(&s, "target", &(SpecValue) { .type = SPEC_VALUE_STRING, .s = members[0] }, reterr);
        if (r >= 0)
                r = set_map_one(&s, "mkfs_options", fs, mkfs, reterr);
        if (r >= 0)
                r = set_map_one(&s, "mount_options", fs, mount, reterr);
        if (r >= 0 && partition) {
                char text[16];
                snprintf(text, sizeof(text), "%" PRIu32, partition);
                r = spec_set_from_string(&s, "partition", text, reterr);
        }
        if (r >= 0)
                r = spec_finalize(&s, reterr);
        if (r < 0)
                return r;
        *ret = s;
        spec_init(&s);
        return 0;
}

int matrix_expand(const JobSpec *job, const JobSpec *base, size_t n_base, JobSpec **ret_steps, size_t *ret_n,
                  char **reterr) {
        size_t n_entries = matrix_n_entries(job), n_devices = strv_length(job->devices), n = 0;
        JobSpec *steps;
        int r = 0;

        if (n_entries == 0 || n_base == 0)
                return -EINVAL;
        if (n_base > MATRIX_STEPS_MAX / n_entries) {
                if (asprintf(reterr, "filesystems: the matrix has %zu entries of %zu steps each, %zu steps in all; a "
                             "job has at most %u: list fewer filesystems or devices, or use a shorter profile",
                             n_entries, n_base, n_entries * n_base, MATRIX_STEPS_MAX) < 0)
                        *reterr = NULL;
                return -EINVAL;
        }

        steps = calloc(n_entries * n_base, sizeof(JobSpec));
        if (!steps)
                return -ENOMEM;

        for (char **fs = job->filesystems; *fs && r >= 0; fs++) {
                size_t n_groups = layout_spans_devices(job->layout) ? 1 : n_devices;

                for (size_t g = 0; g < n_groups && r >= 0; g++) {
                        char *one[] = { job->devices[g], NULL };
                        char **members = layout_spans_devices(job->layout) ? job->devices : one;

                        /* Partition 1, 2, ... of the same members in turn (the position effect is
                         * read off neighbouring entries), or the one partition= names. */
                        for (uint32_t k = 0; k < n_partitions(job) && r >= 0; k++) {
                                uint32_t partition = job->partition ?: job->partitions ? k + 1 : 0;

                                for (size_t i = 0; i < n_base && r >= 0; i++) {
                                        r = narrow_step(&base[i], *fs, members, partition, &steps[n], reterr);
                                        if (r >= 0)
                                                n++;
                                }
                        }
                }
        }
        if (r < 0) {
                spec_array_free(steps, n);
                return r;
        }
        *ret_steps = steps;
        *ret_n = n;
        return 0;
}

static bool same_entry(const JobSpec *a, const JobSpec *b) {
        return strv_equal(a->filesystems, b->filesystems) && strv_equal(a->devices, b->devices) &&
                a->layout == b->layout && a->partition == b->partition;
}

bool matrix_step_starts_entry(const JobSpec *steps, size_t i) {
        if (!spec_is_matrix(&steps[i]))
                return false;
        return i == 0 || !same_entry(&steps[i - 1], &steps[i]);
}

uint32_t matrix_step_entry(const JobSpec *steps, size_t i) {
        uint32_t e = 0;

        for (size_t k = 1; k <= i; k++)
                if (!same_entry(&steps[k - 1], &steps[k]))
                        e++;
        return e;
}

char *matrix_entry_name(const JobSpec *step, size_t n_job_devices) {
        _cleanup_free_ char *base = NULL;
        char *name;

        base = matrix_entry_name_base(step, n_job_devices);
        if (!base || !step->partition)
                return TAKE_PTR(base);
        if (asprintf(&name, "%s p%" PRIu32, base, step->partition) < 0)
                return NULL;
        return name;
}

static char *matrix_entry_name_base(const JobSpec *step, size_t n_job_devices) {
        const char *fs = step->filesystems ? step->filesystems[0] : "?";
        char *name;

        if (step->layout != LAYOUT_SINGLE) {
                if (asprintf(&name, "%s %s", fs, layout_to_string(step->layout)) < 0)
                        return NULL;
                return name;
        }
        if (n_job_devices > 1 && step->devices && step->devices[0]) {
                const char *slash = strrchr(step->devices[0], '/');
                if (asprintf(&name, "%s %s", fs, slash ? slash + 1 : step->devices[0]) < 0)
                        return NULL;
                return name;
        }
        return strdup(fs);
}

static int member_spec(const JobSpec *s, const char *device, bool with_checks, JobSpec *ret) {
        _cleanup_(spec_clear) JobSpec m;
        int r;

        spec_init(&m);
        if (with_checks) {
                /* The matrix keys and the target, nothing of the workload. */
                r = spec_set(&m, "filesystems", &(SpecValue) { .type = SPEC_VALUE_STRV, .strv = s->filesystems }, NULL);
                if (r >= 0)
                        r = spec_set(&m, "devices", &(SpecValue) { .type = SPEC_VALUE_STRV, .strv = s->devices }, NULL);
                if (r >= 0)
                        r = spec_set_from_string(&m, "layout", layout_to_string(s->layout), NULL);
                if (r >= 0)
                        r = spec_set(&m, "mkfs_options", &(SpecValue) { .type = SPEC_VALUE_MAP, .map = {
                                        .keys = s->mkfs_options.keys, .values = s->mkfs_options.values,
                                        .n = s->mkfs_options.n } }, NULL);
                if (r >= 0)
                        r = spec_set(&m, "mount_options", &(SpecValue) { .type = SPEC_VALUE_MAP, .map = {
                                        .keys = s->mount_options.keys, .values = s->mount_options.values,
                                        .n = s->mount_options.n } }, NULL);
                if (r >= 0 && s->partitions) {
                        char text[16];
                        snprintf(text, sizeof(text), "%" PRIu32, s->partitions);
                        r = spec_set_from_string(&m, "partitions", text, NULL);
                }
                /* What the trial puts to mdadm (mkfs-trial.h). */
                if (r >= 0 && s->md_options)
                        r = spec_set_from_string(&m, "md_options", s->md_options, NULL);
                /* What the LVM layouts' fit is checked with (spec-check.c). */
                if (r >= 0 && s->lvm_options && s->lvm_options[0])
                        r = spec_set_from_string(&m, "lvm_options", s->lvm_options, NULL);
                if (r >= 0 && s->lv_size) {
                        char text[32];
                        snprintf(text, sizeof(text), "%" PRIu64, s->lv_size);
                        r = spec_set_from_string(&m, "lv_size", text, NULL);
                }
                if (r < 0)
                        return r;
        }
        r = spec_set_from_string(&m, "target", device, NULL);
        if (r >= 0)
                r = spec_set_from_string(&m, "workload", "write", NULL);
        if (r >= 0)
                r = spec_set_from_string(&m, "destructive", "true", NULL);
        if (r >= 0)
                r = spec_set_from_string(&m, "block_size", "4K", NULL);
        if (r >= 0)
                r = spec_set_from_string(&m, "size", "4K", NULL);
        if (r >= 0)
                r = spec_finalize(&m, NULL);
        if (r < 0)
                return r;
        *ret = m;
        spec_init(&m);
        return 0;
}

int matrix_member_specs(const JobSpec *s, bool with_checks, JobSpec **ret, size_t *ret_n) {
        size_t n = strv_length(s->devices), done = 0;
        JobSpec *specs;
        int r = 0;

        if (n == 0)
                return -EINVAL;
        specs = calloc(n, sizeof(JobSpec));
        if (!specs)
                return -ENOMEM;
        for (; done < n; done++) {
                r = member_spec(s, s->devices[done], with_checks && done == 0, &specs[done]);
                if (r < 0)
                        break;
        }
        if (r < 0) {
                spec_array_free(specs, done);
                return r;
        }
        *ret = specs;
        *ret_n = n;
        return 0;
}

static MatrixMadeFs *made_find(const MatrixMade *m, const char *device) {
        for (size_t i = 0; i < m->n; i++)
                if (streq(m->made[i].device, device))
                        return &m->made[i];
        return NULL;
}

int matrix_made_record(MatrixMade *m, char *const *devices, const char *fs_type, const char *uuid) {
        if (!fs_type || !*fs_type || !uuid || !*uuid)
                return -EINVAL;
        for (char *const *d = devices; d && *d; d++) {
                MatrixMadeFs *f = made_find(m, *d);
                char *t = strdup(fs_type), *u = strdup(uuid);

                if (!t || !u) {
                        free(t);
                        free(u);
                        return -ENOMEM;
                }
                if (!f) {
                        MatrixMadeFs *a = realloc(m->made, (m->n + 1) * sizeof(MatrixMadeFs));
                        char *dev = strdup(*d);

                        if (!a || !dev) {
                                if (a)
                                        m->made = a;
                                free(dev);
                                free(t);
                                free(u);
                                return -ENOMEM;
                        }
                        m->made = a;
                        f = &m->made[m->n++];
                        *f = (MatrixMadeFs) { .device = dev };
                }
                free(f->fs_type);
                free(f->uuid);
                f->fs_type = t;
                f->uuid = u;
        }
        return 0;
}

const MatrixMadeFs *matrix_made_on(const MatrixMade *m, char *const *devices) {
        const MatrixMadeFs *found = NULL;

        for (char *const *d = devices; d && *d; d++) {
                const MatrixMadeFs *f = made_find(m, *d);

                if (!f)
                        continue;
                if (found && (!streq(found->fs_type, f->fs_type) || !streq(found->uuid, f->uuid)))
                        return NULL;
                found = f;
        }
        return found;
}

void matrix_made_clear(MatrixMade *m) {
        if (!m)
                return;
        for (size_t i = 0; i < m->n; i++) {
                free(m->made[i].device);
                free(m->made[i].fs_type);
                free(m->made[i].uuid);
        }
        free(m->made);
        *m = (MatrixMade) {};
}
