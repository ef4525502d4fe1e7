/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profiles (docs/DESIGN.md "Job spec"): INI files of named steps, each a set of spec keys, found by
 * name in a list of directories (the first that has NAME.ini wins, so /etc overrides /usr/share). A
 * job that names a profile becomes one JobSpec per step: the step's keys, then the keys the
 * submitter gave explicitly. Pure logic on files: no D-Bus, no event loop.
 *
 *   [profile]
 *   description=32K O_DIRECT write with fsync, then read
 *   [step write]
 *   workload=write
 *   block_size=32K
 */
#pragma once

#include <stddef.h>

#include "shared/spec.h"
#include "shared/util.h"

#define PROFILE_STEPS_MAX 256u
#define PROFILE_KEYS_MAX 64u

typedef struct ProfileStep {
        char *name;
        char **assignments;     /* "key=value", NULL-terminated */
        size_t n_assignments;
} ProfileStep;

typedef struct Profile {
        char *name;
        char *description;
        char *path;
        ProfileStep *steps;
        size_t n_steps;
} Profile;

/* True for names made of [A-Za-z0-9_.-], not starting with '.', at most 64 characters. */
bool profile_name_valid(const char *name);

/* dirs: NULL-terminated, highest priority first; NULL entries are not allowed, missing directories
 * are fine. -ENOENT when no directory has NAME.ini (with a message listing the known profiles),
 * -EINVAL for a malformed file; *reterr says which. */
int profile_load(char *const *dirs, const char *name, Profile **ret, char **reterr);
Profile *profile_free(Profile *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Profile *, profile_free);

/* The names of every profile in dirs, sorted, without duplicates. */
int profile_list(char *const *dirs, char ***ret);

/* Expands job (finalized, with job->profile set) into n steps, each finalized: every step of the
 * profile, or with record_sizes only those whose block_size is one of them (-EINVAL naming the
 * profile's sizes for a size none has). */
int profile_expand(const Profile *p, const JobSpec *job, JobSpec **ret_steps, size_t *ret_n,
                   char **reterr);
