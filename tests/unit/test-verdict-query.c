/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the step verdict off the event loop (daemon/jobs/verdict-query.c).
 *
 * The encoding: verdicts of every kind survive the trip exactly; reasons are made valid UTF-8
 * without control characters and cut at a character boundary; and a table of damaged encodings
 * (every header field, every record field out of range, short, long, a NUL, a bad byte in a
 * reason) is refused, leaving the output untouched.
 *
 * The query, on a real sd-event loop with a real child: the verdicts of steps on a real temporary
 * directory (may run, missing, changed since submitted) come back once, and the child is reaped.
 * As root (test-verdict-query-root), with a directory whose lookups wait for the test's answer
 * (test-hang.h: an autofs or a FUSE mount served by the test, in a mount namespace of its own, so
 * the check's stat() of the target really blocks, in the kernel, as on a hung NFS automount): the
 * loop runs while the check waits, the process waiting is the check's, and the verdict comes once
 * the lookup is answered; and a check that never answers is refused at the timeout, once, with
 * "cannot check ... within", Unsafe for a writing step and InvalidSpec for a reading one. Each
 * case runs for every kind of hang the kernel offers and is skipped, with the reason, for the
 * others.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus/bus-util.h"
#include "check-util.h"
#include "jobs/verdict-query.h"
#include "shared/util.h"
#include "test-hang.h"
#include "test-loop.h"

/* ---- the encoding ---- */

static void assert_same(const StepVerdict *a, const StepVerdict *b, size_t i) {
        ck_assert_msg(streq_ptr(a->error_name, b->error_name), "%zu: error name %s, not %s", i, strna(b->error_name),
                      strna(a->error_name));
        ck_assert_int_eq(a->error, b->error);
        ck_assert_msg(streq_ptr(a->reason, b->reason), "%zu: reason '%s', not '%s'", i, strna(b->reason),
                      strna(a->reason));
        ck_assert_int_eq(a->scratch, b->scratch);
        ck_assert_int_eq(a->check.kind, b->check.kind);
        ck_assert(a->check.dev == b->check.dev);
        ck_assert_uint_eq(a->check.ino, b->check.ino);
        ck_assert_uint_eq(a->check.diskseq, b->check.diskseq);
        ck_assert_uint_eq(a->check.dio_align, b->check.dio_align);
        ck_assert_uint_eq(a->check.free_bytes, b->check.free_bytes);
        ck_assert_uint_eq(a->check.needed_bytes, b->check.needed_bytes);
        ck_assert_uint_eq(a->check.device_bytes, b->check.device_bytes);
}

static const StepVerdict sample[] = {
        { .check = { .kind = TARGET_DIRECTORY, .dev = 0x811 /* 8:17 */, .ino = UINT64_MAX, .dio_align = 4096,
                     .free_bytes = UINT64_C(1) << 40, .needed_bytes = 256 << 20 } },
        { .check = { .kind = TARGET_BLOCK, .dev = (dev_t) UINT64_C(0xfedcba9876543210), .diskseq = UINT64_C(1) << 63,
                     .dio_align = 512, .needed_bytes = 1 << 30, .device_bytes = UINT64_C(1) << 34 },
          .scratch = true },
        { .check = { .kind = TARGET_FILE, .dev = 42, .ino = 7 } },
        { .check = { .kind = _TARGET_KIND_INVALID }, .error_name = BENCHD_ERROR_INVALID_SPEC, .error = -EINVAL,
          .reason = (char *) "target /srv/x does not exist; give an existing directory, regular file or block device" },
        { .check = { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 2 }, .error_name = BENCHD_ERROR_NO_SPACE,
          .error = -ENOSPC, .reason = (char *) "target /srv has 1.0 GiB free; this job needs 4.0 GiB" },
        { .check = { .kind = TARGET_BLOCK, .dev = 0x700 }, .error_name = BENCHD_ERROR_UNSAFE, .error = -ESTALE,
          .reason = (char *) "the target /dev/loop0 changed since it was submitted: «naïve» €" },
};

static void decode_ok(const uint8_t *buf, size_t size, size_t n, StepVerdict *ret) {
        ck_assert_int_eq(verdict_decode(buf, size, n, ret), 0);
}

START_TEST(test_roundtrip) {
        _cleanup_free_ uint8_t *buf = NULL;
        StepVerdict back[ELEMENTSOF(sample)];
        size_t size;

        ck_assert_int_eq(verdict_encode(sample, ELEMENTSOF(sample), &buf, &size), 0);
        ck_assert_uint_le(size, verdict_encoded_max(ELEMENTSOF(sample)));
        decode_ok(buf, size, ELEMENTSOF(sample), back);
        for (size_t i = 0; i < ELEMENTSOF(sample); i++) {
                assert_same(&sample[i], &back[i], i);
                step_verdict_clear(&back[i]);
        }

        /* No steps: a header alone. */
        free(buf);
        buf = NULL;
        ck_assert_int_eq(verdict_encode(NULL, 0, &buf, &size), 0);
        ck_assert_uint_eq(size, 16);
        decode_ok(buf, size, 0, back);
}
END_TEST

/* Encodes one refusal with reason and returns what decodes. */
static char *reason_trip(const char *reason) {
        StepVerdict v = { .check = { .kind = _TARGET_KIND_INVALID }, .error_name = BENCHD_ERROR_UNSAFE,
                          .error = -EPERM, .reason = (char *) reason }, back;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        ck_assert_int_eq(verdict_encode(&v, 1, &buf, &size), 0);
        decode_ok(buf, size, 1, &back);
        ck_assert_str_eq(back.error_name, BENCHD_ERROR_UNSAFE);
        return back.reason;
}

START_TEST(test_reasons) {
        _cleanup_free_ char *long_reason = NULL;
        char *r;

        /* Bytes that are not UTF-8, and control characters, become '?'. */
        r = reason_trip("mounted on /mnt/\xff\xfe and\nswap\x01 \x7f ok é");
        ck_assert_str_eq(r, "mounted on /mnt/?? and?swap? ? ok é");
        free(r);

        /* Cut at VERDICT_REASON_MAX, at a character boundary: 1365 three-byte characters. */
        long_reason = calloc(2000, 3 + 1);
        ck_assert_ptr_nonnull(long_reason);
        for (size_t i = 0; i < 2000; i++)
                strcat(long_reason, "€");
        r = reason_trip(long_reason);
        ck_assert_uint_eq(strlen(r), VERDICT_REASON_MAX / 3 * 3);
        ck_assert_int_eq(strncmp(r, long_reason, strlen(r)), 0);
        free(r);

        /* A refusal always says something. */
        r = reason_trip(NULL);
        ck_assert_str_eq(r, "the target cannot be used");
        free(r);
        r = reason_trip("");
        ck_assert_str_eq(r, "the target cannot be used");
        free(r);
}
END_TEST

START_TEST(test_encode_invalid) {
        StepVerdict v = { .error_name = "org.example.Error.Other", .error = -EPERM, .reason = (char *) "x" };
        uint8_t *buf = NULL;
        size_t size = 0;

        ck_assert_int_eq(verdict_encode(&v, 1, &buf, &size), -EINVAL);
        ck_assert_ptr_null(buf);
        ck_assert_int_eq(verdict_encode(&v, VERDICT_QUERY_STEPS_MAX + 1, &buf, &size), -EINVAL);
        ck_assert_ptr_null(buf);
}
END_TEST

/* The offsets of the encoding of good[] (see verdict-query.h): a 16-byte header, 72-byte
 * records, the reason after the second. */
#define REC_SIZE 72u
#define REC0 16u
#define REC1 (16u + REC_SIZE)
#define REASON1 (16u + 2 * REC_SIZE)
#define F_ERROR 0u
#define F_NAME 4u
#define F_SCRATCH 8u
#define F_REASON_LEN 12u
#define F_KIND 16u

static const StepVerdict good[] = {
        { .check = { .kind = TARGET_DIRECTORY, .dev = 0x801, .ino = 11 } },
        { .check = { .kind = TARGET_DIRECTORY }, .error_name = BENCHD_ERROR_NO_SPACE, .error = -ENOSPC,
          .reason = (char *) "full" },
};

typedef struct Damage {
        const char *what;
        int32_t offset;         /* where to write value (u32), or -1 for none */
        uint32_t value;
        int32_t resize;         /* bytes added (with a 0 byte) or cut at the end */
        bool fix_size;          /* make the header's size agree with the new length */
        size_t n;               /* steps the decoder expects; 0 means 2 */
} Damage;

static const Damage damages[] = {
        { "no bytes", -1, 0, -(int32_t) (REASON1 + 4), false, 0 },
        { "half a header", -1, 0, -(int32_t) (REASON1 + 4 - 15), false, 0 },
        { "header only", -1, 0, -(int32_t) (REASON1 + 4 - 16), true, 0 },
        { "magic", 0, 0x31515643, 0, false, 0 },
        { "version 2", 4, 2, 0, false, 0 },
        { "version 0", 4, 0, 0, false, 0 },
        { "n 3", 8, 3, 0, false, 0 },
        { "n 1", 8, 1, 0, false, 0 },
        { "decoder expects 1", -1, 0, 0, false, 1 },
        { "decoder expects 3", -1, 0, 0, false, 3 },
        { "size field too large", 12, REASON1 + 5, 0, false, 0 },
        { "size field too small", 12, REASON1 + 3, 0, false, 0 },
        { "a byte more", -1, 0, 1, false, 0 },
        { "a trailing byte", -1, 0, 1, true, 0 },
        { "a byte short", -1, 0, -1, true, 0 },
        { "a record short", -1, 0, -(int32_t) (REC_SIZE + 4 + 1), true, 0 },
        { "error name 4", REC0 + F_NAME, 4, 0, false, 0 },
        { "error name ~0", REC0 + F_NAME, UINT32_MAX, 0, false, 0 },
        { "scratch 2", REC0 + F_SCRATCH, 2, 0, false, 0 },
        { "an error without a name", REC0 + F_ERROR, (uint32_t) -EPERM, 0, false, 0 },
        { "a name without an error", REC1 + F_ERROR, 0, 0, false, 0 },
        { "error -4096", REC1 + F_ERROR, (uint32_t) -4096, 0, false, 0 },
        { "error INT32_MIN", REC1 + F_ERROR, UINT32_C(0x80000000), 0, false, 0 },
        { "a positive error", REC1 + F_ERROR, 1, 0, false, 0 },
        { "kind 3", REC0 + F_KIND, 3, 0, false, 0 },
        { "kind -1", REC0 + F_KIND, UINT32_MAX, 0, false, 0 },
        { "no kind on a verdict that may run", REC0 + F_KIND, (uint32_t) _TARGET_KIND_INVALID, 0, false, 0 },
        { "a reason on a verdict that may run", REC0 + F_REASON_LEN, 4, 0, false, 0 },
        { "a refusal without a reason", REC1 + F_REASON_LEN, 0, 0, false, 0 },
        { "a reason longer than the rest", REC1 + F_REASON_LEN, 5, 0, false, 0 },
        { "a reason length of ~0", REC1 + F_REASON_LEN, UINT32_MAX, 0, false, 0 },
        { "a reason beyond the bound", REC1 + F_REASON_LEN, VERDICT_REASON_MAX + 1, VERDICT_REASON_MAX + 1 - 4, true, 0 },
        { "a NUL in the reason", REASON1, 0x6c6c7500, 0, false, 0 },           /* "\0ull" */
        { "a byte that is not UTF-8", REASON1, 0x6c6c75ff, 0, false, 0 },
        { "a truncated character", REASON1, 0x6c6c75c3, 0, false, 0 },
        { "a surrogate", REASON1, 0x6ca0ed66, 0, false, 0 },                   /* "f\xed\xa0l" */
        { "a newline", REASON1, 0x6c6c750a, 0, false, 0 },
        { "a DEL", REASON1, 0x7f6c7566, 0, false, 0 },                        /* "ful\x7f" */
};

static void put_u32_at(uint8_t *buf, size_t offset, uint32_t v) {
        memcpy(buf + offset, &v, sizeof(v));
}

START_TEST(test_decode_damaged) {
        _cleanup_free_ uint8_t *orig = NULL;
        size_t orig_size;

        ck_assert_int_eq(verdict_encode(good, ELEMENTSOF(good), &orig, &orig_size), 0);
        ck_assert_uint_eq(orig_size, REASON1 + 4);

        for (size_t i = 0; i < ELEMENTSOF(damages); i++) {
                const Damage *d = &damages[i];
                size_t size = (size_t) ((int64_t) orig_size + d->resize), n = d->n ?: 2;
                _cleanup_free_ uint8_t *buf = calloc(MAX(orig_size, size) + 8, 1);
                StepVerdict out[3];

                ck_assert_ptr_nonnull(buf);
                memcpy(buf, orig, MIN(orig_size, size));
                if (d->fix_size && size >= 16)
                        put_u32_at(buf, 12, (uint32_t) size);
                if (d->offset >= 0)
                        put_u32_at(buf, (size_t) d->offset, d->value);
                memset(out, 0xa5, sizeof(out));
                ck_assert_msg(verdict_decode(buf, size, n, out) == -EBADMSG, "damage '%s' was accepted", d->what);
                for (size_t k = 0; k < sizeof(out); k++)
                        ck_assert_msg(((uint8_t *) out)[k] == 0xa5, "damage '%s' wrote the output", d->what);
        }

        /* The undamaged one, as a control. */
        {
                StepVerdict out[2];

                decode_ok(orig, orig_size, 2, out);
                assert_same(&good[1], &out[1], 1);
                step_verdict_clear(&out[1]);
        }
        /* And anything beyond the bound for n is refused before it is read. */
        ck_assert_int_eq(verdict_decode(orig, verdict_encoded_max(0) + 1, 0, (StepVerdict[1]) {}), -EBADMSG);
        ck_assert_int_eq(verdict_decode(NULL, 0, 0, (StepVerdict[1]) {}), -EBADMSG);
}
END_TEST

/* ---- the query ---- */

static char tmpdir[PATH_MAX];

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void tmp_setup(void) {
        snprintf(tmpdir, sizeof(tmpdir), "%s/test-verdict-XXXXXX", check_tmpdir());
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void) {
        (void) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void step_build(JobSpec *s, const char *target, const char *const *assignments) {
        _cleanup_free_ char *err = NULL, *t = NULL;

        spec_init(s);
        ck_assert_int_ge(asprintf(&t, "target=%s", target), 0);
        ck_assert_msg(spec_set_assignment(s, t, &err) == 0, "'%s': %s", t, strna(err));
        for (const char *const *a = assignments; *a; a++)
                ck_assert_msg(spec_set_assignment(s, *a, &err) == 0, "'%s': %s", *a, strna(err));
        ck_assert_msg(spec_finalize(s, &err) == 0, "%s", strna(err));
}

static const char *const small_write[] = { "workload=write", "size=1M", "block_size=64K", NULL };
static const char *const small_read[] = { "workload=read", "size=1M", "block_size=64K", NULL };

typedef struct Answer {
        unsigned calls;
        StepVerdict v[4];
        size_t n;
        pid_t pid;
        bool free_it;
        const bool *before;     /* when set: must be true at the callback */
} Answer;

static void on_verdicts(VerdictQuery *q, StepVerdict *verdicts, size_t n, void *userdata) {
        Answer *a = userdata;

        a->calls++;
        ck_assert_uint_le(n, ELEMENTSOF(a->v));
        if (a->before)
                ck_assert_msg(*a->before, "the verdict came before the check could go on");
        a->n = n;
        for (size_t i = 0; i < n; i++) {
                a->v[i] = verdicts[i];
                verdicts[i].reason = NULL;      /* taken */
        }
        if (a->free_it)
                verdict_query_free(q);
}

static void answer_clear(Answer *a) {
        for (size_t i = 0; i < a->n; i++)
                step_verdict_clear(&a->v[i]);
}


/* Runs e until the checking process is reaped, then once more: no second callback may follow. */
static void run_until_reaped(sd_event *e, pid_t pid) {
        test_run_until_reaped(e, pid);
        ck_assert_int_ge(sd_event_run(e, 0), 0);
}

START_TEST(test_query) {
        sd_event *e = test_event_new();
        _cleanup_free_ char *missing = NULL;
        VerdictQuery *q = NULL;
        Answer a = { .free_it = true };
        JobSpec steps[3];
        TargetCheck submitted[3] = {
                { .kind = _TARGET_KIND_INVALID },
                { .kind = _TARGET_KIND_INVALID },
        };
        struct stat st;

        ck_assert_int_ge(asprintf(&missing, "%s/missing", tmpdir), 0);
        ck_assert_int_eq(stat(tmpdir, &st), 0);
        step_build(&steps[0], tmpdir, small_write);
        step_build(&steps[1], missing, small_read);
        step_build(&steps[2], tmpdir, small_write);
        /* Step 2 was submitted when the path was another directory. */
        submitted[2] = (TargetCheck) { .kind = TARGET_DIRECTORY, .dev = st.st_dev, .ino = st.st_ino + 1 };

        ck_assert_int_eq(verdict_query_start(e, NULL, steps, submitted, 3, NULL, VERDICT_QUERY_TIMEOUT_USEC, on_verdicts, &a,
                                             &q), 0);
        a.pid = verdict_query_pid(q);
        ck_assert_int_gt(a.pid, 0);
        /* The steps are the child's copy now: ours may go. */
        for (size_t i = 0; i < 3; i++)
                spec_clear(&steps[i]);
        test_run_until_called(e, &a.calls);

        ck_assert_uint_eq(a.n, 3);
        ck_assert_msg(!a.v[0].error_name, "step 0 refused: %s", strna(a.v[0].reason));
        ck_assert_int_eq(a.v[0].check.kind, TARGET_DIRECTORY);
        ck_assert(a.v[0].check.dev == st.st_dev);
        ck_assert_uint_eq(a.v[0].check.ino, st.st_ino);
        ck_assert_uint_eq(a.v[0].check.needed_bytes, 1 << 20);

        ck_assert_str_eq(a.v[1].error_name, BENCHD_ERROR_INVALID_SPEC);
        ck_assert_int_eq(a.v[1].error, -EINVAL);
        ck_assert_msg(strstr(a.v[1].reason, missing) && strstr(a.v[1].reason, "does not exist"), "%s",
                      a.v[1].reason);

        ck_assert_str_eq(a.v[2].error_name, BENCHD_ERROR_UNSAFE);
        ck_assert_int_eq(a.v[2].error, -ESTALE);
        ck_assert_msg(strstr(a.v[2].reason, "the path was replaced"), "%s", a.v[2].reason);

        run_until_reaped(e, a.pid);
        ck_assert_uint_eq(a.calls, 1);
        answer_clear(&a);
        sd_event_unref(e);
}
END_TEST

START_TEST(test_query_invalid) {
        sd_event *e = test_event_new();
        VerdictQuery *q = NULL;
        Answer a = {};
        JobSpec s;

        step_build(&s, tmpdir, small_write);
        ck_assert_int_eq(verdict_query_start(e, NULL, &s, NULL, 0, NULL, VERDICT_QUERY_TIMEOUT_USEC, on_verdicts, &a, &q),
                         -EINVAL);
        ck_assert_int_eq(verdict_query_start(e, NULL, &s, NULL, VERDICT_QUERY_STEPS_MAX + 1, NULL,
                                             VERDICT_QUERY_TIMEOUT_USEC, on_verdicts, &a, &q), -E2BIG);
        ck_assert_int_eq(verdict_query_start(e, NULL, &s, NULL, 1, NULL, VERDICT_QUERY_TIMEOUT_USEC, NULL, &a, &q), -EINVAL);
        ck_assert_ptr_null(q);
        spec_clear(&s);
        sd_event_unref(e);
}
END_TEST

/* Freed before it answered: no callback, and the child is still reaped. */
START_TEST(test_query_free) {
        sd_event *e = test_event_new();
        VerdictQuery *q = NULL;
        Answer a = {};
        JobSpec s;
        pid_t pid;

        step_build(&s, tmpdir, small_write);
        ck_assert_int_eq(verdict_query_start(e, NULL, &s, NULL, 1, NULL, VERDICT_QUERY_TIMEOUT_USEC, on_verdicts, &a, &q), 0);
        pid = verdict_query_pid(q);
        q = verdict_query_free(q);
        run_until_reaped(e, pid);
        ck_assert_uint_eq(a.calls, 0);
        spec_clear(&s);
        sd_event_unref(e);
}
END_TEST

/* ---- with a check that blocks (root) ----
 *
 * The target is a name under a directory whose lookups hang in the kernel until we answer
 * (test-hang.h: an autofs or a FUSE mount whose daemon is this test process, in a mount namespace
 * of its own), exactly like a path across a hung automount. Each case runs once per kind the
 * kernel has: hang-autofs and hang-fuse. */

static HangKind hang_kind;

static void use_autofs(void) {
        hang_kind = HANG_AUTOFS;
}

static void use_fuse(void) {
        hang_kind = HANG_FUSE;
}

/* What the loop saw of the hang while it ran. */
typedef struct Held {
        Hang *hang;
        Answer *answer;
        bool answer_at_once;    /* answer each lookup "not found" as it comes */
        bool answered;
        unsigned lookups, interrupts;
        HangRequest first;      /* the first lookup */
} Held;

static int on_request(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Held *h = userdata;
        HangRequest r;
        HangEvent ev;

        while ((ev = hang_next(h->hang, true, &r)) != HANG_NONE) {
                if (ev == HANG_INTERRUPT) {
                        /* The process waiting in this lookup was killed: let it go. */
                        h->interrupts++;
                        ck_assert_uint_eq(r.token, h->first.token);
                        hang_fail(h->hang, &r);
                        continue;
                }
                if (h->lookups++ == 0)
                        h->first = r;
                ck_assert_str_eq(r.name, "held");
                if (h->answer_at_once) {
                        ck_assert_uint_eq(h->answer->calls, 0);
                        h->answered = true;
                        hang_fail(h->hang, &r);
                }
        }
        return 0;
}

START_TEST(test_query_timeout) {
        _cleanup_free_ char *held = NULL;
        Hang hang;

        hang_setup(&hang, hang_kind, tmpdir);
        ck_assert_int_ge(asprintf(&held, "%s/held", hang.root), 0);

        /* The check has to reach its lookup before the timeout for the test to see that it waits
         * there; on a loaded machine its process may not within 300 ms. Then the query is tried
         * again with a longer timeout (the verdict is "cannot check" either way), until the lookup
         * is seen, never longer than 20 s. */
        for (uint64_t timeout_ms = 300;; timeout_ms *= 4) {
                sd_event *e = test_event_new();
                sd_event_source *src = NULL;
                VerdictQuery *q = NULL;
                Answer a = { .free_it = true };
                Held h = { .hang = &hang, .answer = &a };
                JobSpec steps[2];
                char within[64];

                step_build(&steps[0], held, small_read);
                step_build(&steps[1], held, small_write);
                ck_assert_int_ge(sd_event_add_io(e, &src, hang.fd, EPOLLIN, on_request, &h), 0);
                /* Before the timer, when both are due: a lookup that came in time is seen. */
                ck_assert_int_ge(sd_event_source_set_priority(src, SD_EVENT_PRIORITY_IMPORTANT), 0);

                ck_assert_int_eq(verdict_query_start(e, NULL, steps, NULL, 2, NULL, timeout_ms * USEC_PER_MSEC,
                                                     on_verdicts, &a, &q), 0);
                a.pid = verdict_query_pid(q);
                test_run_until_called(e, &a.calls);

                ck_assert_uint_eq(a.n, 2);
                ck_assert_str_eq(a.v[0].error_name, BENCHD_ERROR_INVALID_SPEC);
                ck_assert_str_eq(a.v[1].error_name, BENCHD_ERROR_UNSAFE);
                snprintf(within, sizeof(within), "within %" PRIu64 " ms", timeout_ms);
                for (size_t i = 0; i < 2; i++) {
                        ck_assert_int_eq(a.v[i].error, -ETIMEDOUT);
                        ck_assert_msg(strstr(a.v[i].reason, "cannot check target") && strstr(a.v[i].reason, held) &&
                                      strstr(a.v[i].reason, within), "%s", a.v[i].reason);
                }
                /* Killed while it waited, reaped, and no second answer. (A FUSE lookup already read
                 * by its server waits for the server even when killed: the server is told with an
                 * INTERRUPT, which on_request answers.) */
                run_until_reaped(e, a.pid);
                ck_assert_uint_eq(a.calls, 1);
                /* autofs: a request the loop had no turn to read is in the pipe still. */
                (void) on_request(NULL, hang.fd, EPOLLIN, &h);
                if (h.lookups > 0) {
                        /* It blocked where we think: its lookup of "held", by the checking process. */
                        ck_assert_uint_eq(h.lookups, 1);
                        ck_assert_int_eq(h.first.pid, a.pid);
                        if (hang_kind == HANG_FUSE)
                                ck_assert_uint_eq(h.interrupts, 1);
                }

                answer_clear(&a);
                spec_clear(&steps[0]);
                spec_clear(&steps[1]);
                sd_event_source_disable_unref(src);
                sd_event_unref(e);
                if (h.lookups > 0)
                        break;
                ck_assert_msg(timeout_ms < 20000, "the check never reached its lookup of %s within %" PRIu64 " ms",
                              held, timeout_ms);
        }
        hang_teardown(&hang);
}
END_TEST

/* A lookup arrives while the loop runs: the check is blocked in it. Answered (the name does not
 * exist), the check goes on and the verdict says so. */
START_TEST(test_query_waits) {
        sd_event *e = test_event_new();
        _cleanup_free_ char *held = NULL;
        sd_event_source *src = NULL;
        VerdictQuery *q = NULL;
        Answer a = { .free_it = true };
        Held h = { .answer = &a, .answer_at_once = true };
        Hang hang;
        JobSpec s;

        hang_setup(&hang, hang_kind, tmpdir);
        h.hang = &hang;
        a.before = &h.answered;
        ck_assert_int_ge(asprintf(&held, "%s/held", hang.root), 0);
        step_build(&s, held, small_write);
        ck_assert_int_ge(sd_event_add_io(e, &src, hang.fd, EPOLLIN, on_request, &h), 0);

        ck_assert_int_eq(verdict_query_start(e, NULL, &s, NULL, 1, NULL, VERDICT_QUERY_TIMEOUT_USEC, on_verdicts, &a, &q), 0);
        a.pid = verdict_query_pid(q);
        test_run_until_called(e, &a.calls);

        ck_assert_uint_eq(h.lookups, 1);
        ck_assert_int_eq(h.first.pid, a.pid);
        ck_assert_uint_eq(a.n, 1);
        /* The real verdict on what the lookup found: nothing. */
        ck_assert_str_eq(a.v[0].error_name, BENCHD_ERROR_INVALID_SPEC);
        ck_assert_int_eq(a.v[0].error, -EINVAL);
        ck_assert_msg(strstr(a.v[0].reason, "does not exist"), "%s", a.v[0].reason);
        run_until_reaped(e, a.pid);
        ck_assert_uint_eq(a.calls, 1);

        answer_clear(&a);
        spec_clear(&s);
        sd_event_source_disable_unref(src);
        hang_teardown(&hang);
        sd_event_unref(e);
}
END_TEST

static const char *missing_autofs(void) {
        return hang_missing(HANG_AUTOFS);
}

static const char *missing_fuse(void) {
        return hang_missing(HANG_FUSE);
}

/* The cases with a check that blocks run as test-verdict-query-root (--root), once per kind of
 * hang, each skipped with the reason where the kernel (or BENCHD_TEST_HANG) rules it out. */
static int verdict_root_cases(void) {
        TCase *ta = tcase_create("hang-autofs"), *tf = tcase_create("hang-fuse");

        tcase_add_checked_fixture(ta, tmp_setup, tmp_teardown);
        tcase_add_checked_fixture(ta, use_autofs, NULL);
        tcase_set_timeout(ta, 120);
        tcase_add_test(ta, test_query_timeout);
        tcase_add_test(ta, test_query_waits);

        tcase_add_checked_fixture(tf, tmp_setup, tmp_teardown);
        tcase_add_checked_fixture(tf, use_fuse, NULL);
        tcase_set_timeout(tf, 120);
        tcase_add_test(tf, test_query_timeout);
        tcase_add_test(tf, test_query_waits);

        return check_run_cases("verdict-query-root", (const CheckCase[]) {
                { "hang-autofs", ta, missing_autofs },
                { "hang-fuse", tf, missing_fuse },
        }, 2);
}

static Suite *verdict_suite(void) {
        Suite *s = suite_create("verdict-query");
        TCase *te = tcase_create("encoding"), *tq = tcase_create("query");

        tcase_add_test(te, test_roundtrip);
        tcase_add_test(te, test_reasons);
        tcase_add_test(te, test_encode_invalid);
        tcase_add_test(te, test_decode_damaged);
        suite_add_tcase(s, te);

        tcase_add_checked_fixture(tq, tmp_setup, tmp_teardown);
        tcase_set_timeout(tq, 120);
        tcase_add_test(tq, test_query);
        tcase_add_test(tq, test_query_invalid);
        tcase_add_test(tq, test_query_free);
        suite_add_tcase(s, tq);
        return s;
}

int main(int argc, char **argv) {
        if (argc > 1 && streq(argv[1], "--root"))
                return verdict_root_cases();
        return check_run(verdict_suite());
}
