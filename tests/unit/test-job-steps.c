/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jobs.steps (job-steps.c): a job's expanded steps and their target identities survive the trip
 * through JSON exactly (every spec key, device numbers, inode and disk sequence numbers up to
 * 2^64-1, an unknown identity), and every malformed document is refused with a message naming the
 * step and the field rather than restoring a job that is not the one submitted.
 */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "jobs/job-steps.h"
#include "check-util.h"
#include "shared/util.h"

static void step_build(JobSpec *s, const char *const *assignments) {
        _cleanup_free_ char *err = NULL;

        spec_init(s);
        for (const char *const *a = assignments; *a; a++)
                ck_assert_msg(spec_set_assignment(s, *a, &err) == 0, "'%s': %s", *a, strna(err));
        ck_assert_msg(spec_finalize(s, &err) == 0, "%s", strna(err));
}

START_TEST(test_roundtrip) {
        static const char *const a[] = { "target=/srv/bench", "workload=write", "block_size=32K", "size=256M",
                                         "direct=true", "sync=end:fdatasync", "label=nightly", "tags=a,b", NULL };
        static const char *const b[] = { "target=/dev/disk/by-id/x", "workload=randrw", "rwmix_read=70",
                                         "queue_depth=32", "jobs=4", "destructive=true", "size=1G",
                                         "runtime_ms=30000", "pattern=compressible:40", NULL };
        static const char *const c[] = { "target=/srv/bench", "workload=metadata", "file_count=1000",
                                         "file_size_max=4K", "dirs=4", NULL };
        JobSpec steps[3], *back = NULL;
        TargetCheck idents[3] = {
                { .kind = TARGET_DIRECTORY, .dev = makedev(8, 17), .ino = UINT64_MAX },
                { .kind = TARGET_BLOCK, .dev = makedev(259, 1048575), .diskseq = UINT64_C(1) << 63 },
                { .kind = _TARGET_KIND_INVALID },
        }, *iback = NULL, *mback = NULL;
        _cleanup_free_ char *json = NULL, *again = NULL, *err = NULL;
        size_t n = 0;

        step_build(&steps[0], a);
        step_build(&steps[1], b);
        step_build(&steps[2], c);
        ck_assert_int_eq(job_steps_to_json(steps, idents, NULL, 3, &json), 0);
        ck_assert_msg(job_steps_from_json(json, &back, &iback, &mback, &n, &err) == 0, "%s: %s", json, strna(err));
        ck_assert_uint_eq(n, 3);
        ck_assert_ptr_null(mback);
        for (size_t i = 0; i < 3; i++) {
                ck_assert_msg(spec_equal(&steps[i], &back[i]), "step %zu differs after %s", i, json);
                ck_assert_int_eq(iback[i].kind, idents[i].kind);
                if (idents[i].kind < 0)
                        continue;
                ck_assert(iback[i].dev == idents[i].dev);
                ck_assert_uint_eq(iback[i].ino, idents[i].ino);
                ck_assert_uint_eq(iback[i].diskseq, idents[i].diskseq);
        }
        /* And the same document again: nothing is lost or added on a second trip. */
        ck_assert_int_eq(job_steps_to_json(back, iback, NULL, n, &again), 0);
        ck_assert_str_eq(json, again);

        for (size_t i = 0; i < 3; i++)
                spec_clear(&steps[i]);
        spec_array_free(back, n);
        free(iback);
}
END_TEST

/* A matrix step keeps one identity per member device, in devices= order; a plain step none. */
START_TEST(test_members) {
        static const char *const a[] = { "workload=write", "filesystems=btrfs", "layout=raid1",
                                         "devices=/dev/loop2,/dev/loop3", "destructive=true", NULL };
        static const char *const b[] = { "target=/srv/bench", "workload=read", NULL };
        JobSpec steps[2], *back = NULL;
        TargetCheck idents[2] = {
                { .kind = TARGET_BLOCK, .dev = makedev(7, 2), .diskseq = 11 },
                { .kind = TARGET_DIRECTORY, .dev = makedev(8, 1), .ino = 2 },
        }, members[2 * JOB_STEP_MEMBERS_MAX] = {}, *iback = NULL, *mback = NULL;
        _cleanup_free_ char *json = NULL, *again = NULL, *err = NULL;
        size_t n = 0;

        members[0] = idents[0];
        members[1] = (TargetCheck) { .kind = TARGET_BLOCK, .dev = makedev(7, 3), .diskseq = 12 };
        step_build(&steps[0], a);
        step_build(&steps[1], b);
        ck_assert_int_eq(job_steps_to_json(steps, idents, members, 2, &json), 0);
        ck_assert_ptr_nonnull(strstr(json, "\"members\""));
        ck_assert_msg(job_steps_from_json(json, &back, &iback, &mback, &n, &err) == 0, "%s: %s", json, strna(err));
        ck_assert_uint_eq(n, 2);
        ck_assert_ptr_nonnull(mback);
        ck_assert(mback[0].dev == makedev(7, 2));
        ck_assert(mback[1].dev == makedev(7, 3));
        ck_assert_uint_eq(mback[1].diskseq, 12);
        /* The plain step has none. */
        ck_assert_int_eq(mback[JOB_STEP_MEMBERS_MAX].kind, _TARGET_KIND_INVALID);
        ck_assert_int_eq(job_steps_to_json(back, iback, mback, n, &again), 0);
        ck_assert_str_eq(json, again);

        /* A matrix step without its members, or with one too few, is not the job submitted. */
        spec_array_free(back, n);
        free(iback);
        free(mback);
        free(err);
        err = NULL;
        free(json);
        json = NULL;
        ck_assert_int_eq(job_steps_to_json(steps, idents, NULL, 2, &json), 0);
        ck_assert_int_eq(job_steps_from_json(json, &back, &iback, &mback, &n, &err), -EINVAL);
        ck_assert_msg(strstr(err, "members"), "%s", err);

        spec_clear(&steps[0]);
        spec_clear(&steps[1]);
}
END_TEST

static const struct {
        const char *json;
        const char *needle;
} bad[] = {
        { "", "JSON array" },
        { "{}", "JSON array" },
        { "[]", "0 steps" },
        { "[1]", "steps[0]: expected an object" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"}}]", "spec and target" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":7}]", "steps[0].target: expected" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":{\"kind\":\"tape\"}}]", "kind" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":{\"kind\":\"block\",\"dev_major\":7}}]",
          "dev_minor" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":{\"kind\":\"block\",\"dev_major\":4096,"
          "\"dev_minor\":0,\"ino\":0,\"diskseq\":0}}]", "dev_major: out of range" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":{\"kind\":\"file\",\"dev_major\":-1,"
          "\"dev_minor\":0,\"ino\":0,\"diskseq\":0}}]", "dev_major: out of range" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":{\"kind\":\"file\",\"dev_major\":1,"
          "\"dev_minor\":0,\"ino\":\"3\",\"diskseq\":0}}]", "ino: missing or not an integer" },
        { "[{\"spec\":{\"target\":\"/x\",\"workload\":\"read\"},\"target\":{}},"
          "{\"spec\":{\"target\":\"/x\",\"bogus\":1},\"target\":{}}]", "steps[1].spec: " },
        { "[{\"spec\":{\"target\":\"/x\",\"profile\":\"dd\"},\"target\":{}}]", "needs a workload" },
        { "[{\"spec\":{\"target\":\"rel\",\"workload\":\"read\"},\"target\":{}}]", "steps[0].spec: target" },
};

START_TEST(test_bad) {
        _cleanup_free_ char *err = NULL;
        JobSpec *steps = NULL;
        TargetCheck *idents = NULL, *members = NULL;
        size_t n = 99;
        int r;

        r = job_steps_from_json(bad[_i].json, &steps, &idents, &members, &n, &err);
        ck_assert_msg(r == -EINVAL, "case %d (%s): r=%d", _i, bad[_i].json, r);
        ck_assert_msg(err && strstr(err, bad[_i].needle), "case %d: '%s' lacks '%s'", _i, strna(err),
                      bad[_i].needle);
        ck_assert_ptr_null(steps);
        ck_assert_ptr_null(idents);
        ck_assert_ptr_null(members);
        ck_assert_uint_eq(n, 99);
}
END_TEST

int main(void) {
        Suite *s = suite_create("job-steps");
        TCase *tc = tcase_create("job-steps");

        tcase_add_test(tc, test_roundtrip);
        tcase_add_test(tc, test_members);
        tcase_add_loop_test(tc, test_bad, 0, ELEMENTSOF(bad));
        suite_add_tcase(s, tc);
        return check_run(s);
}
