/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job-steps.h"
#include "jobs/matrix.h"
#include "jobs/profile.h"
#include "jobs/queue.h"
#include "jobs/submit.h"
#include "shared/bus-names.h"
#include "shared/log.h"
#include "shared/strv.h"
#include "shared/util.h"

static int submit_expand_base(char *const *profile_dirs, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n,
                              char **reterr) {
        if (spec->profile) {
                _cleanup_(profile_freep) Profile *p = NULL;
                int r;

                r = profile_load(profile_dirs, spec->profile, &p, reterr);
                if (r < 0)
                        return r;
                return profile_expand(p, spec, ret_steps, ret_n, reterr);
        }

        JobSpec *steps = calloc(1, sizeof(JobSpec));
        int r;

        if (!steps)
                return -ENOMEM;
        spec_init(&steps[0]);
        r = spec_copy(spec, &steps[0]);
        if (r >= 0)
                r = spec_finalize(&steps[0], reterr);
        if (r < 0) {
                spec_array_free(steps, 1);
                return r;
        }
        *ret_steps = steps;
        *ret_n = 1;
        return 0;
}

int submit_expand(char *const *profile_dirs, const JobSpec *spec, JobSpec **ret_steps, size_t *ret_n, char **reterr) {
        JobSpec *base = NULL;
        size_t n_base = 0;
        int r;

        r = submit_expand_base(profile_dirs, spec, &base, &n_base, reterr);
        if (r < 0 || !spec_is_matrix(spec)) {
                if (r >= 0) {
                        *ret_steps = base;
                        *ret_n = n_base;
                }
                return r;
        }
        r = matrix_expand(spec, base, n_base, ret_steps, ret_n, reterr);
        spec_array_free(base, n_base);
        return r;
}

/* A matrix job was judged device by device (v[i] for spec->devices[i]); each step's target is its
 * first member, and its members are the devices its devices= lists. */
static int matrix_idents(const SubmitInsert *in, TargetCheck **ret_idents, TargetCheck **ret_members) {
        size_t n_steps = *in->n_steps;
        _cleanup_free_ TargetCheck *idents = calloc(n_steps, sizeof(TargetCheck)),
                                   *members = calloc(n_steps * JOB_STEP_MEMBERS_MAX, sizeof(TargetCheck));

        if (!idents || !members)
                return -ENOMEM;
        for (size_t i = 0; i < n_steps; i++) {
                size_t k = 0;

                for (char **d = (*in->steps)[i].devices; d && *d && k < JOB_STEP_MEMBERS_MAX; d++, k++) {
                        int at = strv_find_index(in->spec->devices, *d);

                        if (at < 0 || (size_t) at >= in->n_verdicts)
                                return -EINVAL;
                        members[i * JOB_STEP_MEMBERS_MAX + k] = in->verdicts[at].check;
                }
                idents[i] = members[i * JOB_STEP_MEMBERS_MAX];
        }
        *ret_idents = TAKE_PTR(idents);
        *ret_members = TAKE_PTR(members);
        return 0;
}

int submit_insert(const JobContext *ctx, const SubmitInsert *in, Job **ret, const char **ret_error_name,
                  char **ret_text) {
        _cleanup_free_ char *json = NULL, *steps_json = NULL;
        _cleanup_free_ TargetCheck *idents = NULL, *members = NULL;
        size_t n = in->n_verdicts;
        uint64_t id, now;
        Job *j;
        int r;

        *ret_error_name = NULL;
        *ret_text = NULL;
        if (spec_is_matrix(in->spec)) {
                /* One verdict per device of the job: each step's members are some of them. */
                r = matrix_idents(in, &idents, &members);
                if (r < 0)
                        return r;
                n = *in->n_steps;
        } else {
                idents = calloc(n, sizeof(TargetCheck));
                if (!idents)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        idents[i] = in->verdicts[i].check;
        }

        r = spec_to_json(in->spec, &json);
        if (r >= 0)
                r = job_steps_to_json(*in->steps, idents, members, n, &steps_json);
        if (r < 0)
                return r;

        now = now_usec(CLOCK_REALTIME);
        DbJob dj = {
                .state = "queued",
                .profile = in->spec->profile,
                .workload = in->spec->profile ? NULL : workload_to_string(in->spec->workload),
                .spec_json = json,
                .target = in->spec->target,
                .label = in->spec->label,
                .submitted_by = in->uid,
                .submitted_usec = now,
                .steps_json = steps_json,
                .triggered_by = job_trigger_to_string(in->trigger),
        };
        if (in->autorun_id > 0)
                r = db_job_insert_autorun(ctx->db, &dj, in->autorun_id, &id);
        else
                r = db_job_insert(ctx->db, &dj, &id);
        if (r == -EALREADY) {
                *ret_error_name = QUEUE_ERROR_FAILED;
                if (asprintf(ret_text, "%s; nothing was queued", db_last_error(ctx->db)) < 0)
                        *ret_text = NULL;
                return r;
        }
        if (r < 0) {
                log_warning_errno(r, "cannot insert a job: %m (%s)", strna(db_last_error(ctx->db)));
                *ret_error_name = r == -ENOSPC ? BENCHD_ERROR_NO_SPACE : QUEUE_ERROR_FAILED;
                if (asprintf(ret_text, "cannot record the job in the database %s: %s (%s); nothing was queued, submit it "
                             "again once the database can be written", ctx->db_path, strerror(-r),
                             db_last_error(ctx->db)) < 0)
                        *ret_text = NULL;
                return r;
        }

        r = job_new(ctx, id, in->spec, *in->steps, idents, members, n, json, in->uid, now, &j);
        if (r < 0) {
                (void) db_job_set_state(ctx->db, id, "failed", 0, now, "out of memory");
                return r;
        }
        *in->steps = NULL;
        *in->n_steps = 0;
        idents = NULL;
        members = NULL;
        j->trigger = in->trigger;
        *ret = j;
        return 0;
}
