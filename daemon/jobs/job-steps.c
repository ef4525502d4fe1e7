/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jobs.steps (see job-steps.h): [{"spec": {...}, "target": {"kind", "dev_major", "dev_minor",
 * "ino", "diskseq"}}]. The spec object is exactly what spec_to_json() writes, read back by
 * spec_from_json(), so the spec's own rules apply to it once more; the identity is checked for
 * shape only (what it means is decided at step start).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "jobs/job-steps.h"
#include "shared/json-util.h"
#include "shared/strv.h"
#include "shared/util.h"

#define JOB_STEPS_MAX 4096u

#define steps_fail(reterr, ...) reterr_set((reterr), -EINVAL, __VA_ARGS__)

static int add_u64(json_object *o, const char *key, uint64_t v) {
        json_object *n = json_object_new_uint64(v);

        if (!n || json_object_object_add(o, key, n) < 0) {
                json_object_put(n);
                return -ENOMEM;
        }
        return 0;
}

static int ident_to_json(const TargetCheck *c, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        const char *kind = target_kind_to_string(c->kind);

        if (!o)
                return -ENOMEM;
        if (kind) {
                json_object *k = json_object_new_string(kind);
                if (!k || json_object_object_add(o, "kind", k) < 0) {
                        json_object_put(k);
                        return -ENOMEM;
                }
                if (add_u64(o, "dev_major", major(c->dev)) < 0 || add_u64(o, "dev_minor", minor(c->dev)) < 0 ||
                    add_u64(o, "ino", c->ino) < 0 || add_u64(o, "diskseq", c->diskseq) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(o);
        return 0;
}

static size_t step_members(const JobSpec *step) {
        return MIN(strv_length(step->devices), (size_t) JOB_STEP_MEMBERS_MAX);
}

int job_steps_to_json(const JobSpec *steps, const TargetCheck *idents, const TargetCheck *members, size_t n,
                      char **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        const char *s;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                _cleanup_json_ json_object *step = json_object_new_object(), *spec = NULL, *target = NULL;
                _cleanup_free_ char *text = NULL;
                int r;

                if (!step)
                        return -ENOMEM;
                r = spec_to_json(&steps[i], &text);
                if (r < 0)
                        return r;
                spec = json_tokener_parse(text);
                if (!spec)
                        return -ENOMEM;
                r = ident_to_json(&idents[i], &target);
                if (r < 0)
                        return r;
                if (json_object_object_add(step, "spec", spec) < 0)
                        return -ENOMEM;
                spec = NULL;
                if (json_object_object_add(step, "target", target) < 0)
                        return -ENOMEM;
                target = NULL;
                if (members && step_members(&steps[i]) > 0) {
                        json_object *m = json_object_new_array();

                        if (!m || json_object_object_add(step, "members", m) < 0) {
                                json_object_put(m);
                                return -ENOMEM;
                        }
                        for (size_t k = 0; k < step_members(&steps[i]); k++) {
                                json_object *one = NULL;

                                r = ident_to_json(&members[i * JOB_STEP_MEMBERS_MAX + k], &one);
                                if (r < 0)
                                        return r;
                                if (json_object_array_add(m, one) < 0) {
                                        json_object_put(one);
                                        return -ENOMEM;
                                }
                        }
                }
                if (json_object_array_add(a, step) < 0)
                        return -ENOMEM;
                step = NULL;
        }
        s = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
        if (!s)
                return -ENOMEM;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int get_u64(json_object *o, const char *key, size_t i, uint64_t max, uint64_t *ret, char **reterr) {
        json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
                return steps_fail(reterr, "steps[%zu].target.%s: missing or not an integer", i, key);
        errno = 0;
        *ret = json_object_get_uint64(v);
        if (errno != 0 || *ret > max || (json_object_get_int64(v) < 0 && *ret == 0))
                return steps_fail(reterr, "steps[%zu].target.%s: out of range", i, key);
        return 0;
}

static int ident_from_json(json_object *o, size_t i, TargetCheck *ret, char **reterr) {
        json_object *k;
        uint64_t maj, min;
        int r;

        *ret = (TargetCheck) { .kind = _TARGET_KIND_INVALID };
        if (!o || !json_object_is_type(o, json_type_object))
                return steps_fail(reterr, "steps[%zu].target: expected an object", i);
        if (!json_object_object_get_ex(o, "kind", &k))
                return 0;   /* unknown identity */
        if (!json_object_is_type(k, json_type_string) ||
            (ret->kind = target_kind_from_string(json_object_get_string(k))) < 0)
                return steps_fail(reterr, "steps[%zu].target.kind: expected directory, file or block", i);
        if ((r = get_u64(o, "dev_major", i, 0xfffu, &maj, reterr)) < 0 ||
            (r = get_u64(o, "dev_minor", i, 0xfffffu, &min, reterr)) < 0 ||
            (r = get_u64(o, "ino", i, UINT64_MAX, &ret->ino, reterr)) < 0 ||
            (r = get_u64(o, "diskseq", i, UINT64_MAX, &ret->diskseq, reterr)) < 0)
                return r;
        ret->dev = makedev((unsigned) maj, (unsigned) min);
        return 0;
}

/* Step i's "members", when its spec has devices: exactly one identity per device. */
static int members_from_json(json_object *step, const JobSpec *spec, size_t i, size_t n, TargetCheck **members,
                             char **reterr) {
        size_t want = step_members(spec);
        json_object *m;
        int r;

        if (!json_object_object_get_ex(step, "members", &m)) {
                if (want > 0)
                        return steps_fail(reterr, "steps[%zu]: a step with devices needs their members", i);
                return 0;
        }
        if (!json_object_is_type(m, json_type_array) || json_object_array_length(m) != want)
                return steps_fail(reterr, "steps[%zu].members: expected an array of %zu identities", i, want);
        if (!*members) {
                *members = calloc(n * JOB_STEP_MEMBERS_MAX, sizeof(TargetCheck));
                if (!*members)
                        return -ENOMEM;
                for (size_t k = 0; k < n * JOB_STEP_MEMBERS_MAX; k++)
                        (*members)[k].kind = _TARGET_KIND_INVALID;
        }
        for (size_t k = 0; k < want; k++) {
                r = ident_from_json(json_object_array_get_idx(m, k), i, &(*members)[i * JOB_STEP_MEMBERS_MAX + k],
                                    reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

int job_steps_from_json(const char *json, JobSpec **ret_steps, TargetCheck **ret_idents, TargetCheck **ret_members,
                        size_t *ret_n, char **reterr) {
        _cleanup_json_ json_object *a = NULL;
        _cleanup_free_ TargetCheck *idents = NULL, *members = NULL;
        JobSpec *steps = NULL;
        size_t n, done = 0;
        int r = 0;

        a = json ? json_tokener_parse(json) : NULL;
        if (!a || !json_object_is_type(a, json_type_array))
                return steps_fail(reterr, "steps: expected a JSON array of steps");
        n = json_object_array_length(a);
        if (n == 0 || n > JOB_STEPS_MAX)
                return steps_fail(reterr, "steps: %zu steps; expected 1 to %u", n, JOB_STEPS_MAX);
        steps = calloc(n, sizeof(JobSpec));
        idents = calloc(n, sizeof(TargetCheck));
        if (!steps || !idents) {
                free(steps);
                return -ENOMEM;
        }
        for (; done < n; done++) {
                json_object *step = json_object_array_get_idx(a, done), *spec, *target;
                _cleanup_free_ char *err = NULL;

                spec_init(&steps[done]);
                if (!json_object_is_type(step, json_type_object) ||
                    !json_object_object_get_ex(step, "spec", &spec) ||
                    !json_object_object_get_ex(step, "target", &target)) {
                        r = steps_fail(reterr, "steps[%zu]: expected an object with spec and target", done);
                        done++;
                        break;
                }
                r = spec_from_json(&steps[done], json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PLAIN), &err);
                if (r >= 0)
                        r = spec_finalize(&steps[done], &err);
                if (r >= 0 && steps[done].workload < 0)
                        r = -EINVAL, err = strdup("a step needs a workload");
                if (r < 0) {
                        if (r != -ENOMEM)
                                r = steps_fail(reterr, "steps[%zu].spec: %s", done, strna(err));
                        done++;
                        break;
                }
                r = ident_from_json(target, done, &idents[done], reterr);
                if (r < 0) {
                        done++;
                        break;
                }
                r = members_from_json(step, &steps[done], done, n, &members, reterr);
                if (r < 0) {
                        done++;
                        break;
                }
        }
        if (r < 0) {
                spec_array_free(steps, done);
                return r;
        }
        *ret_steps = steps;
        *ret_idents = TAKE_PTR(idents);
        *ret_members = TAKE_PTR(members);
        *ret_n = n;
        return 0;
}
