/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profile files and their expansion into step specs. Values are kept as "key=value" text and
 * applied with spec_set_assignment(), so a profile file, benchctl --set and the worker protocol
 * all go through the same parser and the same error messages; the submitter's own keys are laid
 * over each step with spec_apply().
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/profile.h"
#include "shared/strv.h"
#include "shared/util.h"

bool profile_name_valid(const char *name) {
        size_t n = 0;

        if (!name || !*name || name[0] == '.')
                return false;
        for (const char *p = name; *p; p++, n++)
                if (!isalnum((unsigned char) *p) && !strchr("_.-", *p))
                        return false;
        return n <= 64;
}

static void profile_step_clear(ProfileStep *s) {
        free(s->name);
        strv_free(s->assignments);
}

Profile *profile_free(Profile *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_steps; i++)
                profile_step_clear(&p->steps[i]);
        free(p->steps);
        free(p->name);
        free(p->description);
        free(p->path);
        free(p);
        return NULL;
}

typedef struct ParseState {
        Profile *profile;
        char *error;
        char *section;          /* the section of the last key, to see new sections */
        JobSpec scratch;        /* each value is tried on this, then thrown away */
} ParseState;

static int parse_fail(ParseState *st, const char *fmt, ...) _printf_(2, 3);
static int parse_fail(ParseState *st, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (!st->error && vasprintf(&st->error, fmt, ap) < 0)
                st->error = NULL;
        va_end(ap);
        return 0;
}

/* What a job runs on, and the filesystem matrix around the whole profile, are the job's. */
static bool step_may_set(SpecKey k) {
        switch (k) {
        case SPEC_KEY_TARGET:
        case SPEC_KEY_PROFILE:
        case SPEC_KEY_FILESYSTEMS:
        case SPEC_KEY_MKFS_OPTIONS:
        case SPEC_KEY_MOUNT_OPTIONS:
        case SPEC_KEY_DEVICES:
        case SPEC_KEY_LAYOUT:
        case SPEC_KEY_RECORD_SIZES:     /* picks steps: the job's */
                return false;
        default:
                return k >= 0;
        }
}

static int on_ini_entry(void *userdata, const char *section, const char *name, const char *value) {
        ParseState *st = userdata;
        Profile *p = st->profile;

        if (streq(section, "profile")) {
                if (!streq(name, "description"))
                        return parse_fail(st, "unknown key '%s' in [profile]; only description= goes there",
                                          CALLER_TEXT(name));
                free(p->description);
                p->description = strdup(value);
                return p->description ? 1 : 0;
        }
        if (strncmp(section, "step ", 5) != 0 || !section[5])
                return parse_fail(st, "unknown section [%s]; use [profile] or [step NAME]", CALLER_TEXT(section));

        if (!st->section || !streq(st->section, section)) {
                ProfileStep *steps;

                if (p->n_steps >= PROFILE_STEPS_MAX)
                        return parse_fail(st, "more than %u steps", PROFILE_STEPS_MAX);
                free(st->section);
                st->section = strdup(section);
                if (!st->section)
                        return 0;
                steps = realloc(p->steps, (p->n_steps + 1) * sizeof(ProfileStep));
                if (!steps)
                        return 0;
                p->steps = steps;
                p->steps[p->n_steps] = (ProfileStep) {};
                p->steps[p->n_steps].name = strdup(section + 5);
                p->steps[p->n_steps].assignments = calloc(1, sizeof(char *));
                p->n_steps++;
                if (!p->steps[p->n_steps - 1].name || !p->steps[p->n_steps - 1].assignments)
                        return 0;
        }

        ProfileStep *s = &p->steps[p->n_steps - 1];
        _cleanup_free_ char *err = NULL;
        char **a;
        int r;
        if (s->n_assignments >= PROFILE_KEYS_MAX)
                return parse_fail(st, "more than %u keys in [%s]", PROFILE_KEYS_MAX, CALLER_TEXT(section));
        if (!step_may_set(spec_key_from_string(name)))
                return parse_fail(st, "key '%s' in [%s] is not a spec key a step may set", CALLER_TEXT(name),
                                  CALLER_TEXT(section));
        /* Each value alone is checked here, so a bad one is reported with its file and line; the
         * rules between keys wait for profile_expand(), when the submitter's keys are known. */
        r = spec_set_from_string(&st->scratch, name, value, &err);
        if (r == -ENOMEM)
                return 0;
        if (r < 0)
                return parse_fail(st, "in [%s]: %s", CALLER_TEXT(section), strna(err));
        a = realloc(s->assignments, (s->n_assignments + 2) * sizeof(char *));
        if (!a)
                return 0;
        s->assignments = a;
        if (asprintf(&a[s->n_assignments], "%s=%s", name, value) < 0) {
                a[s->n_assignments] = NULL;
                return 0;
        }
        a[++s->n_assignments] = NULL;
        return 1;
}

static int profile_find_file(char *const *dirs, const char *name, char **ret) {
        for (char *const *d = dirs; *d; d++) {
                char *path;
                if (asprintf(&path, "%s/%s.ini", *d, name) < 0)
                        return -ENOMEM;
                if (access(path, F_OK) == 0) {
                        *ret = path;
                        return 0;
                }
                free(path);
        }
        return -ENOENT;
}

static int profile_unknown_error(char *const *dirs, const char *name, char **reterr) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *list = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        r = profile_list(dirs, &names);
        if (r < 0)
                return r;
        f = open_memstream(&list, &len);
        if (!f)
                return -ENOMEM;
        for (char **n = names; *n; n++)
                fprintf(f, "%s%s", n == names ? "" : ", ", *n);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (asprintf(reterr, "unknown profile '%s'; known profiles are: %s", CALLER_TEXT(name),
                     *list ? list : "(none installed)") < 0)
                return -ENOMEM;
        return -ENOENT;
}

/* inih reads a line into a buffer of ini_max_line bytes (200 in Debian's build) and parses what did
 * not fit as a line of its own, so an over-long line fails as a "syntax error" on text the author
 * never wrote, or worse, parses. Measure every line first and name the one that is too long. */
static int profile_check_lines(const char *path, int *ret_line, size_t *ret_len, size_t *ret_max) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t n = 0, max = ini_max_line > 3 ? (size_t) ini_max_line - 3 : 0;
        ssize_t l;
        int no = 0;

        f = fopen(path, "re");
        if (!f)
                return -errno;
        while ((l = getline(&line, &n, f)) >= 0) {
                no++;
                while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
                        l--;
                if ((size_t) l > max) {
                        *ret_line = no;
                        *ret_len = (size_t) l;
                        *ret_max = max;
                        return 1;
                }
        }
        return 0;
}

int profile_load(char *const *dirs, const char *name, Profile **ret, char **reterr) {
        _cleanup_(profile_freep) Profile *p = NULL;
        ParseState st = {};
        int r;

        if (!profile_name_valid(name))
                return profile_unknown_error(dirs, name, reterr);

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->name = strdup(name);
        if (!p->name)
                return -ENOMEM;
        r = profile_find_file(dirs, name, &p->path);
        if (r == -ENOENT)
                return profile_unknown_error(dirs, name, reterr);
        if (r < 0)
                return r;

        int long_line = 0;
        size_t long_len = 0, long_max = 0;
        r = profile_check_lines(p->path, &long_line, &long_len, &long_max);
        if (r < 0) {
                if (asprintf(reterr, "profile %s: cannot read %s: %s", name, p->path, strerror(-r)) < 0)
                        return -ENOMEM;
                return -EIO;
        }
        if (r > 0) {
                if (asprintf(reterr, "profile %s: %s line %d: the line is %zu characters long; a profile line "
                             "may have at most %zu: shorten it, or split a comment over several lines",
                             name, p->path, long_line, long_len, long_max) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }

        st.profile = p;
        spec_init(&st.scratch);
        r = ini_parse(p->path, on_ini_entry, &st);
        free(st.section);
        spec_clear(&st.scratch);
        if (r != 0) {
                int k;
                if (r < 0)
                        k = asprintf(reterr, "profile %s: cannot read %s", name, p->path);
                else
                        k = asprintf(reterr, "profile %s: %s line %d: %s", name, p->path, r,
                                     st.error ?: "syntax error; use key=value lines in [step NAME] sections");
                free(st.error);
                if (k < 0)
                        return -ENOMEM;
                return r < 0 ? -EIO : -EINVAL;
        }
        free(st.error);
        if (p->n_steps == 0) {
                if (asprintf(reterr, "profile %s (%s) has no [step NAME] sections", name, p->path) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

int profile_list(char *const *dirs, char ***ret) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;

        names = calloc(1, sizeof(char *));
        if (!names)
                return -ENOMEM;
        for (char *const *d = dirs; *d; d++) {
                DIR *dir = opendir(*d);
                struct dirent *de;

                if (!dir)
                        continue;
                while ((de = readdir(dir))) {
                        size_t l = strlen(de->d_name);
                        char *name, **nn;
                        bool dup = false;

                        if (l <= 4 || !streq(de->d_name + l - 4, ".ini"))
                                continue;
                        name = strndup(de->d_name, l - 4);
                        if (!name) {
                                closedir(dir);
                                return -ENOMEM;
                        }
                        for (size_t i = 0; i < n; i++)
                                if (streq(names[i], name))
                                        dup = true;
                        if (dup || !profile_name_valid(name) || n >= 1024) {
                                free(name);
                                continue;
                        }
                        nn = realloc(names, (n + 2) * sizeof(char *));
                        if (!nn) {
                                free(name);
                                closedir(dir);
                                return -ENOMEM;
                        }
                        names = nn;
                        names[n++] = name;
                        names[n] = NULL;
                }
                closedir(dir);
        }
        strv_sort(names);
        *ret = TAKE_PTR(names);
        return 0;
}

static bool size_in(uint64_t v, const uint64_t *l, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (l[i] == v)
                        return true;
        return false;
}

/* record_sizes: a size of want that none of the steps' block sizes (have) is, refused with the
 * sizes the profile has; 0 when every one is there. */
static int record_sizes_check(const Profile *p, const JobSpec *job, const uint64_t *want, size_t n_want,
                              const uint64_t *have, size_t n_have, char **reterr) {
        for (size_t i = 0; i < n_want; i++) {
                _cleanup_free_ char *list = NULL;
                size_t len = 0;
                char buf[32];
                FILE *f;

                if (size_in(want[i], have, n_have))
                        continue;
                f = open_memstream(&list, &len);
                if (!f)
                        return -ENOMEM;
                for (size_t j = 0; j < n_have; j++)
                        fprintf(f, "%s%s", j == 0 ? "" : ", ", spec_size_text(have[j], buf));
                if (fclose(f) != 0)
                        return -ENOMEM;
                if (asprintf(reterr, "profile %s: record_sizes: %s is not the block_size of any of its steps; use "
                             "some of %s", p->name, CALLER_TEXT(job->record_sizes[i]), list) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }
        return 0;
}

int profile_expand(const Profile *p, const JobSpec *job, JobSpec **ret_steps, size_t *ret_n,
                   char **reterr) {
        _cleanup_(spec_clear) JobSpec overrides;
        _cleanup_free_ uint64_t *want = NULL, *have = NULL;
        size_t n_want = 0, n_have = 0, n = 0;
        JobSpec *steps;
        int r;

        /* record_sizes (iozone -a's -y/-q, or -r) keeps the steps whose block_size is one of its
         * sizes, in the profile's order; no step carries the key itself. */
        r = spec_record_sizes(job, &want, &n_want);
        if (r < 0)
                return r;
        have = calloc(p->n_steps, sizeof(uint64_t));
        if (!have)
                return -ENOMEM;

        /* The caller's keys go on top of each step's, all but the profile itself. */
        spec_init(&overrides);
        r = spec_copy(job, &overrides);
        if (r < 0)
                return r;
        overrides.set_mask &= ~(UINT64_C(1) << SPEC_KEY_PROFILE);
        overrides.set_mask &= ~(UINT64_C(1) << SPEC_KEY_RECORD_SIZES);

        steps = calloc(p->n_steps, sizeof(JobSpec));
        if (!steps)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_steps; i++)
                spec_init(&steps[i]);

        for (size_t i = 0; i < p->n_steps; i++) {
                const ProfileStep *ps = &p->steps[i];
                _cleanup_free_ char *err = NULL;
                JobSpec *s = &steps[n];
                bool drop = false;

                r = 0;
                for (char **a = ps->assignments; *a; a++) {
                        r = spec_set_assignment(s, *a, &err);
                        if (r < 0)
                                break;
                }
                if (r >= 0)
                        r = spec_apply(s, &overrides);
                /* A step of a block_size not asked for is left out before its own rules are checked
                 * (a 16M step on the 1M file of a short run); one without block_size has its
                 * workload's, which finalizing fills in. record_sizes goes without block_size. */
                if (r >= 0 && n_want > 0 && (s->set_mask & (UINT64_C(1) << SPEC_KEY_BLOCK_SIZE)))
                        drop = !size_in(s->block_size, want, n_want);
                if (r >= 0 && !drop)
                        r = spec_finalize(s, &err);
                if (r < 0) {
                        if (r != -ENOMEM && asprintf(reterr, "profile %s, step %s: %s", p->name, CALLER_TEXT(ps->name),
                                                     err ?: "invalid step") < 0)
                                r = -ENOMEM;
                        spec_array_free(steps, p->n_steps);
                        return r;
                }
                if (!size_in(s->block_size, have, n_have))
                        have[n_have++] = s->block_size;
                if (n_want > 0 && (drop || !size_in(s->block_size, want, n_want))) {
                        spec_clear(s);
                        continue;
                }
                n++;
        }
        r = record_sizes_check(p, job, want, n_want, have, n_have, reterr);
        if (r < 0) {
                spec_array_free(steps, p->n_steps);
                return r;
        }
        *ret_steps = steps;
        *ret_n = n;
        return 0;
}
