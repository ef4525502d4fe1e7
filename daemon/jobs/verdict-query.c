/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Step verdicts in a helper process (verdict-query.h). The child computes every step's verdict,
 * encodes them and writes them in one go; the parent is called back by the helper when the child
 * has gone (or at the timeout, without waiting for a child that cannot be killed), decodes what
 * came, and turns anything short of a complete, well-formed answer into a refusal of every step
 * that names the target and says what happened (the timeout, the child's exit status or signal,
 * or an answer that does not decode).
 *
 * The encoding is bounded before anything is read: n is the caller's, each reason at most
 * VERDICT_REASON_MAX bytes, so the helper takes at most verdict_encoded_max(n) bytes and kills a
 * child that writes more.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <sys/wait.h>

#include "jobs/helper.h"
#include "jobs/profile.h"
#include "jobs/verdict-query.h"
#include "shared/bus-names.h"
#include "shared/log.h"

_Static_assert(PROFILE_STEPS_MAX <= VERDICT_QUERY_STEPS_MAX, "a job's steps fit one query");

/* ---- the encoding ---- */

typedef struct VerdictHeader {
        uint32_t magic;
        uint32_t version;
        uint32_t n;
        uint32_t size;
} VerdictHeader;

typedef struct VerdictRecord {
        int32_t error;          /* 0, or the refusal's negative errno */
        uint32_t error_name;    /* VerdictErrorName */
        uint32_t scratch;       /* 0 or 1 */
        uint32_t reason_len;    /* the bytes of reason that follow */
        int32_t kind;           /* TargetKind, or _TARGET_KIND_INVALID */
        uint32_t dio_align;
        uint64_t dev;
        uint64_t ino;
        uint64_t diskseq;
        uint64_t free_bytes;
        uint64_t needed_bytes;
        uint64_t device_bytes;
} VerdictRecord;

_Static_assert(sizeof(VerdictHeader) == 16, "no padding in the header");
_Static_assert(sizeof(VerdictRecord) == 72, "no padding in a record");

/* The error names a verdict may carry, by index; 0 is none. */
static const char *const error_names[] = {
        NULL,
        BENCHD_ERROR_INVALID_SPEC,
        BENCHD_ERROR_NO_SPACE,
        BENCHD_ERROR_UNSAFE,
        SD_BUS_ERROR_ACCESS_DENIED,
};

#define VERDICT_ERRNO_MAX 4095

size_t verdict_encoded_max(size_t n) {
        return sizeof(VerdictHeader) + n * (sizeof(VerdictRecord) + VERDICT_REASON_MAX);
}

static int error_name_index(const char *name, uint32_t *ret) {
        for (uint32_t i = 1; i < ELEMENTSOF(error_names); i++)
                if (streq_ptr(name, error_names[i])) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

/* Copies s into out as valid UTF-8 without control characters, at most max bytes, cut at a
 * character boundary. Returns the bytes written. */
static size_t reason_sanitize(const char *s, uint8_t *out, size_t max) {
        size_t o = 0;

        while (*s) {
                size_t n = utf8_char_len(s);

                if (n == 0 || utf8_is_control(s, n)) {
                        if (o + 1 > max)
                                break;
                        out[o++] = '?';
                        s += MAX(n, (size_t) 1);
                        continue;
                }
                if (o + n > max)
                        break;
                memcpy(out + o, s, n);
                o += n;
                s += n;
        }
        return o;
}

int verdict_encode(const StepVerdict *v, size_t n, uint8_t **ret, size_t *ret_size) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t pos = sizeof(VerdictHeader);

        if (n > VERDICT_QUERY_STEPS_MAX || !ret || !ret_size)
                return -EINVAL;
        buf = malloc(verdict_encoded_max(n));
        if (!buf)
                return -ENOMEM;

        for (size_t i = 0; i < n; i++) {
                VerdictRecord rec = {
                        .scratch = v[i].scratch,
                        .kind = v[i].check.kind,
                        .dio_align = v[i].check.dio_align,
                        .dev = (uint64_t) v[i].check.dev,
                        .ino = v[i].check.ino,
                        .diskseq = v[i].check.diskseq,
                        .free_bytes = v[i].check.free_bytes,
                        .needed_bytes = v[i].check.needed_bytes,
                        .device_bytes = v[i].check.device_bytes,
                };

                if (v[i].error_name) {
                        int r = error_name_index(v[i].error_name, &rec.error_name);

                        if (r < 0)
                                return r;
                        rec.error = v[i].error < 0 && v[i].error >= -VERDICT_ERRNO_MAX ? v[i].error : -EPERM;
                        rec.reason_len = (uint32_t) reason_sanitize(v[i].reason ?: "the target cannot be used",
                                                                    buf + pos + sizeof(rec), VERDICT_REASON_MAX);
                        if (rec.reason_len == 0)
                                rec.reason_len = (uint32_t) reason_sanitize("the target cannot be used",
                                                                            buf + pos + sizeof(rec),
                                                                            VERDICT_REASON_MAX);
                }
                memcpy(buf + pos, &rec, sizeof(rec));
                pos += sizeof(rec) + rec.reason_len;
        }

        memcpy(buf, &(VerdictHeader) {
                       .magic = VERDICT_MAGIC,
                       .version = VERDICT_VERSION,
                       .n = (uint32_t) n,
                       .size = (uint32_t) pos,
               }, sizeof(VerdictHeader));
        *ret = TAKE_PTR(buf);
        *ret_size = pos;
        return 0;
}

/* A reason as the encoder writes it: 1..VERDICT_REASON_MAX bytes of UTF-8, no NUL, no control
 * characters. */
static bool reason_valid(const uint8_t *p, size_t len) {
        char s[VERDICT_REASON_MAX + 1];

        if (len == 0 || len > VERDICT_REASON_MAX || memchr(p, 0, len))
                return false;
        memcpy(s, p, len);
        s[len] = 0;
        for (size_t i = 0; i < len;) {
                size_t k = utf8_char_len(s + i);

                if (k == 0 || utf8_is_control(s + i, k))
                        return false;
                i += k;
        }
        return true;
}

static bool record_valid(const VerdictRecord *rec) {
        bool refused = rec->error_name != 0;

        if (rec->error_name >= ELEMENTSOF(error_names) || rec->scratch > 1)
                return false;
        if (refused != (rec->error != 0))
                return false;
        if (refused && (rec->error >= 0 || rec->error < -VERDICT_ERRNO_MAX))
                return false;
        if (!refused && rec->reason_len != 0)
                return false;
        if (rec->kind == _TARGET_KIND_INVALID)
                /* Only a refusal may have found no kind (the target is not there). */
                return refused;
        return rec->kind >= 0 && rec->kind < _TARGET_KIND_MAX;
}

static void verdicts_clear(StepVerdict *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                step_verdict_clear(&v[i]);
}

int verdict_decode(const uint8_t *buf, size_t size, size_t n, StepVerdict *ret) {
        _cleanup_free_ StepVerdict *v = NULL;
        VerdictHeader hdr;
        size_t pos = sizeof(hdr);

        if (!buf || !ret || n > VERDICT_QUERY_STEPS_MAX || size < sizeof(hdr) || size > verdict_encoded_max(n))
                return -EBADMSG;
        memcpy(&hdr, buf, sizeof(hdr));
        if (hdr.magic != VERDICT_MAGIC || hdr.version != VERDICT_VERSION || hdr.n != n || hdr.size != size)
                return -EBADMSG;

        v = calloc(MAX(n, (size_t) 1), sizeof(StepVerdict));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                VerdictRecord rec;

                if (size - pos < sizeof(rec))
                        goto bad;
                memcpy(&rec, buf + pos, sizeof(rec));
                pos += sizeof(rec);
                if (!record_valid(&rec) || size - pos < rec.reason_len)
                        goto bad;
                if (rec.error_name != 0 && !reason_valid(buf + pos, rec.reason_len))
                        goto bad;

                v[i] = (StepVerdict) {
                        .check = {
                                .kind = rec.kind,
                                .dev = (dev_t) rec.dev,
                                .ino = rec.ino,
                                .diskseq = rec.diskseq,
                                .dio_align = rec.dio_align,
                                .free_bytes = rec.free_bytes,
                                .needed_bytes = rec.needed_bytes,
                                .device_bytes = rec.device_bytes,
                        },
                        .scratch = rec.scratch != 0,
                        .error_name = error_names[rec.error_name],
                        .error = rec.error,
                };
                if (rec.error_name != 0) {
                        v[i].reason = strndup((const char *) buf + pos, rec.reason_len);
                        if (!v[i].reason) {
                                verdicts_clear(v, i);
                                return -ENOMEM;
                        }
                }
                pos += rec.reason_len;
        }
        if (pos != size)
                goto bad;

        memcpy(ret, v, n * sizeof(StepVerdict));
        return 0;

bad:
        verdicts_clear(v, n);
        return -EBADMSG;
}

/* ---- the query ---- */

typedef struct VerdictStep {
        char *target;           /* for the messages of a check that did not answer */
        bool writes;
} VerdictStep;

struct VerdictQuery {
        Helper *helper;
        size_t n;
        VerdictStep *what;
        StepVerdict *verdicts;
        uint64_t timeout_usec;
        VerdictDone cb;
        void *userdata;

        /* For the child, which reads them on its copy of our memory; not used after the fork. */
        DeviceManager *devices;
        const JobSpec *steps;
        const TargetCheck *submitted;
        VerdictOptions opts;
};

/* In the child. */
static int verdict_child(int fd, void *userdata) {
        const VerdictQuery *q = userdata;
        _cleanup_free_ uint8_t *buf = NULL;
        StepVerdict *v;
        size_t size;
        int r;

        v = calloc(MAX(q->n, (size_t) 1), sizeof(StepVerdict));
        if (!v)
                return EXIT_FAILURE;
        for (size_t i = 0; i < q->n; i++)
                (void) step_verdict(q->devices, &q->steps[i], q->submitted ? &q->submitted[i] : NULL, &q->opts,
                                    &v[i]);
        r = verdict_encode(v, q->n, &buf, &size);
        for (size_t i = 0; i < q->n; i++)
                step_verdict_clear(&v[i]);
        free(v);
        if (r < 0)
                return EXIT_FAILURE;
        return helper_report(fd, buf, size) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static void duration_text(uint64_t usec, char buf[static 32]) {
        if (usec >= USEC_PER_SEC)
                snprintf(buf, 32, "%" PRIu64 " s", usec / USEC_PER_SEC);
        else
                snprintf(buf, 32, "%" PRIu64 " ms", usec / USEC_PER_MSEC);
}

/* Every step refused for want of an answer: error, and what happened ("did not answer within
 * 60 s", "was killed by signal 9 (SIGKILL)"). */
static void verdict_refuse_all(VerdictQuery *q, int error, const char *what, const char *hint) {
        for (size_t i = 0; i < q->n; i++) {
                StepVerdict *v = &q->verdicts[i];

                step_verdict_clear(v);
                v->check.kind = _TARGET_KIND_INVALID;
                v->error_name = q->what[i].writes ? BENCHD_ERROR_UNSAFE : BENCHD_ERROR_INVALID_SPEC;
                v->error = error;
                if (asprintf(&v->reason, "cannot check target %s: the process checking it %s; %s",
                             CALLER_TEXT(q->what[i].target), what, hint) < 0) {
                        v->reason = NULL;
                        v->error = -ENOMEM;
                }
        }
}

static void on_helper_done(Helper *h, const HelperResult *hr, void *userdata) {
        VerdictQuery *q = userdata;
        char what[96], after[32];
        int r;

        if (hr->timed_out) {
                duration_text(q->timeout_usec, after);
                snprintf(what, sizeof(what), "did not answer within %s and was killed", after);
                log_warning("checking target %s took longer than %s (a disk or filesystem under it that does not "
                            "respond?); the step was refused", CALLER_TEXT(q->what[0].target), after);
                verdict_refuse_all(q, -ETIMEDOUT, what, "try again once the disk or filesystem under it responds");
        } else if (hr->overflow) {
                snprintf(what, sizeof(what), "wrote more than an answer can hold and was killed");
                log_warning("checking target %s: the checking process %s", CALLER_TEXT(q->what[0].target), what);
                verdict_refuse_all(q, -EIO, what, "see benchd's log, and try again");
        } else if ((r = verdict_decode(hr->report, hr->report_size, q->n, q->verdicts)) < 0) {
                /* Whatever came is not a whole answer. (A whole one is, however the child ended
                 * after it: under valgrind, say, it exits with valgrind's status.) */
                if (r == -ENOMEM)
                        verdict_refuse_all(q, -ENOMEM, "answered, but benchd is short of memory", "try again");
                else if (hr->code == CLD_EXITED && hr->status == 0) {
                        log_warning("checking target %s: the checking process sent %zu bytes that are not an "
                                    "answer for %zu step(s)", CALLER_TEXT(q->what[0].target), hr->report_size, q->n);
                        verdict_refuse_all(q, -EBADMSG, "sent an answer benchd cannot read",
                                           "see benchd's log, and try again");
                } else {
                        if (hr->code == CLD_EXITED)
                                snprintf(what, sizeof(what), "exited with status %d without an answer", hr->status);
                        else
                                snprintf(what, sizeof(what), "was killed by signal %d (SIG%s)", hr->status,
                                         strna(sigabbrev_np(hr->status)));
                        log_warning("checking target %s: the checking process %s", CALLER_TEXT(q->what[0].target),
                                    what);
                        verdict_refuse_all(q, -EIO, what, "see benchd's log, and try again");
                }
        }

        /* May free q. */
        q->cb(q, q->verdicts, q->n, q->userdata);
}

int verdict_query_start(sd_event *e, DeviceManager *devices, const JobSpec *steps, const TargetCheck *submitted,
                        size_t n, const VerdictOptions *opts, uint64_t timeout_usec, VerdictDone cb, void *userdata,
                        VerdictQuery **ret) {
        _cleanup_(verdict_query_freep) VerdictQuery *q = NULL;
        int r;

        if (!e || !steps || n == 0 || !cb || !ret)
                return -EINVAL;
        if (n > VERDICT_QUERY_STEPS_MAX)
                return -E2BIG;

        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        q->n = n;
        q->timeout_usec = timeout_usec;
        q->cb = cb;
        q->userdata = userdata;
        q->devices = devices;
        q->steps = steps;
        q->submitted = submitted;
        if (opts)
                q->opts = *opts;
        q->what = calloc(n, sizeof(VerdictStep));
        q->verdicts = calloc(n, sizeof(StepVerdict));
        if (!q->what || !q->verdicts)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                q->what[i].target = strdup(steps[i].target ?: "");
                if (!q->what[i].target)
                        return -ENOMEM;
                q->what[i].writes = steps[i].workload >= 0 && workload_writes(steps[i].workload);
        }

        r = helper_spawn(e, &(HelperOptions) {
                                 .name = "benchd-verdict",
                                 .report_max = verdict_encoded_max(n),
                                 .timeout_usec = timeout_usec,
                                 .done_at_timeout = true,
                         },
                         verdict_child, q, on_helper_done, q, &q->helper);
        if (r < 0)
                return r;
        q->devices = NULL;
        q->steps = NULL;
        q->submitted = NULL;
        q->opts = (VerdictOptions) {};

        *ret = TAKE_PTR(q);
        return 0;
}

pid_t verdict_query_pid(VerdictQuery *q) {
        return q ? helper_pid(q->helper) : 0;
}

VerdictQuery *verdict_query_free(VerdictQuery *q) {
        if (!q)
                return NULL;
        helper_free(q->helper);
        if (q->what)
                for (size_t i = 0; i < q->n; i++)
                        free(q->what[i].target);
        free(q->what);
        if (q->verdicts)
                verdicts_clear(q->verdicts, q->n);
        free(q->verdicts);
        free(q);
        return NULL;
}
