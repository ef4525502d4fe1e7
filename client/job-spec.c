/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The job spec benchctl sends, from --workload, --profile, --target, --label, --set and --tag:
 * every assignment checked locally with the same spec code benchd uses, so a typo is reported
 * before anything is sent (benchd still validates the whole spec). Below the verbs that submit
 * (verbs-jobs.c: submit and run; verbs-fleet.c: run on several hosts), which call it and nothing
 * else of each other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "benchctl.h"
#include "shared/json-util.h"
#include "shared/spec.h"
#include "text.h"

/* Targets must be absolute: benchd runs elsewhere and has no idea of our working directory. */
static int check_target(const char *origin, const char *target) {
        _cleanup_free_ char *abs = NULL;

        if (target[0] == '/')
                return 0;
        abs = realpath(target, NULL);
        if (abs)
                text_fprintf(stderr, "benchctl: %s: '%s' is a relative path; benchd needs an absolute one, "
                             "e.g. --target %s\n", origin, target, abs);
        else
                text_fprintf(stderr, "benchctl: %s: '%s' is a relative path (and does not exist here); "
                             "give an absolute path to a directory, file or block device\n", origin, target);
        return -EINVAL;
}

static bool all_digits(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

static json_object *strv_to_json(char **l) {
        json_object *a = json_object_new_array();

        for (char **i = l; a && i && *i; i++)
                json_object_array_add(a, json_object_new_string(*i));
        return a;
}

static json_object *map_to_json(const SpecMap *m) {
        json_object *o = json_object_new_object();

        for (size_t i = 0; o && i < m->n; i++)
                json_object_object_add(o, m->keys[i], json_object_new_string(m->values[i]));
        return o;
}

/* Checks one key=value with the spec code and adds it to spec with the D-Bus type benchd wants:
 * booleans as b, string lists (tags, filesystems, devices) as as, maps (mkfs_options.ext4=...) as
 * a{ss} of every entry given so far, strings as s, plain numbers as t, sizes with suffixes as s. */
static int spec_add(json_object *spec, JobSpec *scratch, const char *origin, const char *assignment) {
        _cleanup_free_ char *err = NULL, *key = NULL;
        const char *eq, *value;
        SpecKey k;
        json_object *v;
        int r;

        /* Say which absolute path was meant before the spec code says that relative is wrong. */
        if (strncmp(assignment, "target=", 7) == 0 && assignment[7] != '\0' && check_target(origin, assignment + 7) < 0)
                return BENCHCTL_EXIT_USAGE;

        r = spec_set_assignment(scratch, assignment, &err);
        if (r < 0) {
                text_fprintf(stderr, "benchctl: %s: %s\n", origin, err ?: strerror(-r));
                return BENCHCTL_EXIT_USAGE;
        }
        eq = strchr(assignment, '=');
        if (!eq)
                return BENCHCTL_EXIT_USAGE; /* spec_set_assignment() refused that already */
        /* "mkfs_options.ext4=..." is an entry of the map key mkfs_options. */
        key = strndup(assignment, MIN(strcspn(assignment, "."), (size_t) (eq - assignment)));
        if (!key)
                return BENCHCTL_EXIT_FAILURE;
        value = eq + 1;
        k = spec_key_from_string(key);
        if (k < 0)
                return BENCHCTL_EXIT_USAGE; /* spec_set_assignment() refused that already */

        /* The D-Bus type comes from the registry: what benchd reads for this kind of key. */
        switch (spec_key_info(k)->kind) {
        case SPEC_KIND_BOOL:
                v = json_object_new_boolean(spec_number_of(scratch, k) != 0);
                break;
        case SPEC_KIND_STRV:
                v = strv_to_json(spec_strv_of(scratch, k));
                break;
        case SPEC_KIND_MAP:
                v = map_to_json(spec_map_of(scratch, k));
                break;
        case SPEC_KIND_STRING:
                v = json_object_new_string(value);
                break;
        default:
                v = all_digits(value) ? json_object_new_uint64(strtoull(value, NULL, 10)) : json_object_new_string(value);
                break;
        }
        if (!v)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(spec, key, v);
        return 0;
}

int job_spec_build(const BenchctlOptions *opts, json_object **ret) {
        _cleanup_json_ json_object *spec = json_object_new_object();
        _cleanup_(spec_clear) JobSpec scratch;
        int r;

        spec_init(&scratch);
        if (!spec)
                return BENCHCTL_EXIT_FAILURE;

        /* The dedicated options are spec keys too, checked the same way. */
        const struct {
                const char *option, *key, *value;
        } options[] = {
                { "--workload", "workload", opts->workload },
                { "--profile",  "profile",  opts->profile },
                { "--target",   "target",   opts->target },
                { "--label",    "label",    opts->label },
        };
        for (size_t i = 0; i < ELEMENTSOF(options); i++) {
                _cleanup_free_ char *a = NULL;
                if (!options[i].value)
                        continue;
                if (asprintf(&a, "%s=%s", options[i].key, options[i].value) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                r = spec_add(spec, &scratch, options[i].option, a);
                if (r != 0)
                        return r;
        }
        for (char **s = opts->sets; s && *s; s++) {
                _cleanup_free_ char *origin = NULL;
                if (asprintf(&origin, "--set %s", *s) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                r = spec_add(spec, &scratch, origin, *s);
                if (r != 0)
                        return r;
        }
        /* --tag adds to whatever --set tags= gave. */
        if (opts->tags) {
                json_object *tags = NULL;
                if (!json_object_object_get_ex(spec, "tags", &tags)) {
                        tags = json_object_new_array();
                        if (!tags)
                                return BENCHCTL_EXIT_FAILURE;
                        json_object_object_add(spec, "tags", tags);
                }
                for (char **t = opts->tags; *t; t++) {
                        _cleanup_(spec_clear) JobSpec check;
                        _cleanup_free_ char *err = NULL;
                        spec_init(&check);
                        r = spec_set_from_string(&check, "tags", *t, &err);
                        if (r < 0 || strchr(*t, ',')) {
                                text_fprintf(stderr, "benchctl: --tag %s: %s\n", *t,
                                             err ?: "one tag per --tag; repeat the option for more");
                                return BENCHCTL_EXIT_USAGE;
                        }
                        json_object_array_add(tags, json_object_new_string(*t));
                }
        }

        if (!json_object_object_get_ex(spec, "workload", NULL) && !json_object_object_get_ex(spec, "profile", NULL)) {
                fprintf(stderr, "benchctl: submit needs --workload NAME or --profile NAME; see benchctl --help\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (json_object_object_get_ex(spec, "workload", NULL) && json_object_object_get_ex(spec, "profile", NULL)) {
                fprintf(stderr, "benchctl: submit takes --workload or --profile, not both\n");
                return BENCHCTL_EXIT_USAGE;
        }
        /* A filesystem matrix's target is the first of its devices unless given. */
        if (!json_object_object_get_ex(spec, "target", NULL) && !json_object_object_get_ex(spec, "devices", NULL)) {
                fprintf(stderr, "benchctl: submit needs --target PATH (an absolute path to a directory, "
                        "file or block device), or --set devices=DEV,... for a filesystem matrix\n");
                return BENCHCTL_EXIT_USAGE;
        }
        *ret = TAKE_PTR(spec);
        return 0;
}
