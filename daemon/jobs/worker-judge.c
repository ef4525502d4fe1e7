/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker judge (worker-judge.h). A small state machine over decoded frames: HELLO first, with
 * our protocol version; then FS_INFO (filesystem steps), PHASE, LOG, HISTOGRAM and the described
 * records (SAMPLE, PHASE_RESULT, POSITION_RESULT, STEADY_STATE: proto-record.h, one path for all),
 * each decoded strictly (proto.c, proto-record.c) and then held to the step's spec, the clock and
 * the frames before it (proto-plausible.c); then one RESULT or ERROR, after which any frame is a
 * violation. The first failure wins and is what the user reads; a violation also means nothing
 * more of what the worker said is kept (its histogram goes with it). The outcome is decided in one place, after the
 * process is reaped, so a worker that writes its result and then crashes, or is killed while its
 * frames are still read, is judged on everything it did.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/worker-judge.h"
#include "shared/util.h"

int worker_judge_init(WorkerJudge *j, const JobSpec *spec) {
        ProtoLimits limits;
        int r;

        r = proto_limits_from_spec(spec, &limits);
        if (r < 0)
                return r;
        *j = (WorkerJudge) {
                .stage = WORKER_STAGE_HELLO,
                .limits = limits,
        };
        proto_tally_init(&j->tally);
        j->tally.fleet = spec->fleet_uuid != NULL;
        return 0;
}

void worker_judge_set_device(WorkerJudge *j, uint64_t device_bytes) {
        proto_limits_set_device(&j->limits, device_bytes);
}

void worker_judge_clear(WorkerJudge *j) {
        proto_result_clear(&j->result);
        free(j->histogram);
        free(j->error);
        free(j->failure);
        free(j->exit_error);
        *j = (WorkerJudge) {};
}

void worker_verdict_clear(WorkerVerdict *v) {
        free(v->text);
        proto_fs_info_clear(&v->fs_info);
        *v = (WorkerVerdict) {};
}

void worker_judge_expect_fs(WorkerJudge *j, const ProtoFsSetup *setup) {
        proto_tally_expect_fs(&j->tally, setup);
}

const char *worker_frame_type_name(uint16_t t) {
        static const char *const names[] = {
                [PROTO_HELLO] = "HELLO", [PROTO_SPEC] = "SPEC", [PROTO_PHASE] = "PHASE",
                [PROTO_HISTOGRAM] = "HISTOGRAM", [PROTO_RESULT] = "RESULT", [PROTO_ERROR] = "ERROR",
                [PROTO_LOG] = "LOG", [PROTO_FS_SETUP] = "FS_SETUP", [PROTO_FS_INFO] = "FS_INFO",
                [PROTO_START] = "START", [PROTO_FS_RELEASED] = "FS_RELEASED",
        };
        const ProtoRecordDesc *d = proto_record_desc(t);

        if (d)
                return d->name;
        return t < ELEMENTSOF(names) && names[t] ? names[t] : "unknown";
}

static bool judge_vfail(WorkerJudge *j, const char *fmt, va_list ap) {
        if (j->failure)
                return false;
        if (vasprintf(&j->failure, fmt, ap) < 0) {
                j->failure = NULL;
                return false;
        }
        return true;
}

bool worker_judge_fail(WorkerJudge *j, const char *fmt, ...) {
        va_list ap;
        bool r;

        va_start(ap, fmt);
        r = judge_vfail(j, fmt, ap);
        va_end(ap);
        return r;
}

bool worker_judge_violation(WorkerJudge *j, const char *what) {
        j->violated = true;
        return worker_judge_fail(j, "protocol violation by the worker: %s; the worker was killed", what);
}

bool worker_judge_stream_error(WorkerJudge *j, int r) {
        return worker_judge_violation(j,
                                      r == -EMSGSIZE || r == -ENOBUFS ? "oversized frame" :
                                      r == -EPROTONOSUPPORT ? "frame of another protocol version" :
                                      "garbage instead of a frame header (bad magic, unknown frame type or "
                                      "reserved field set)");
}

bool worker_judge_eof(WorkerJudge *j, size_t pending) {
        if (pending == 0)
                return false;
        return worker_judge_violation(j, "the socket was closed in the middle of a frame");
}

static WorkerVerdictKind violation(WorkerJudge *j, WorkerVerdict *v, const char *what) {
        v->kind = WORKER_VERDICT_VIOLATION;
        v->new_failure = worker_judge_violation(j, what);
        return v->kind;
}

/* A frame that decoded but cannot be true (proto-plausible.h). Consumes err. */
static WorkerVerdictKind implausible(WorkerJudge *j, WorkerVerdict *v, int r, char *err) {
        WorkerVerdictKind k;

        k = violation(j, v, err ?: r == -ENOMEM ? "out of memory while checking a frame" : "an implausible frame");
        free(err);
        return k;
}

static WorkerVerdictKind judge_hello(WorkerJudge *j, const ProtoFrame *f, WorkerVerdict *v) {
        ProtoHello hello;
        char what[128];

        if (f->type != PROTO_HELLO) {
                snprintf(what, sizeof(what), "%s frame (type %u) before HELLO", worker_frame_type_name(f->type),
                         f->type);
                return violation(j, v, what);
        }
        if (proto_decode_hello(f, &hello) < 0)
                return violation(j, v, "malformed HELLO frame");
        if (hello.version != PROTO_VERSION) {
                snprintf(what, sizeof(what), "HELLO for protocol version %" PRIu32 ", expected %d", hello.version,
                         PROTO_VERSION);
                return violation(j, v, what);
        }
        j->stage = WORKER_STAGE_RUNNING;
        v->hello_pid = hello.pid;
        return v->kind = WORKER_VERDICT_SEND_SPEC;
}

static WorkerVerdictKind judge_phase(WorkerJudge *j, const ProtoFrame *f, WorkerVerdict *v) {
        ProtoText t = {};
        char *err = NULL;
        int r;

        r = proto_decode_text(f, &t);
        if (r < 0 || !t.text) {
                proto_text_clear(&t);
                return violation(j, v, "malformed PHASE frame (phases are layout, ramp, ready, measure, cleanup)");
        }
        r = proto_phase_plausible(&j->tally, t.text, &err);
        if (r < 0) {
                proto_text_clear(&t);
                return implausible(j, v, r, err);
        }
        v->text = TAKE_PTR(t.text);
        proto_text_clear(&t);
        return v->kind = WORKER_VERDICT_PHASE;
}

static WorkerVerdictKind judge_log(WorkerJudge *j, const ProtoFrame *f, WorkerVerdict *v) {
        ProtoText t = {};

        if (proto_decode_text(f, &t) < 0)
                return violation(j, v, "malformed LOG frame");
        /* Its log goes to ours: bounded, so a chatty worker cannot flood the journal. */
        if (++j->n_logs > WORKER_LOG_MAX) {
                proto_text_clear(&t);
                return v->kind = j->n_logs == WORKER_LOG_MAX + 1 ? WORKER_VERDICT_LOGS_DROPPED : WORKER_VERDICT_NONE;
        }
        proto_text_sanitize(t.text);
        v->level = (int) t.level;
        v->text = TAKE_PTR(t.text);
        proto_text_clear(&t);
        return v->kind = WORKER_VERDICT_LOG;
}

/* A described record (proto-record.h): decoded by its table, then held to the step by its rule:
 * samples in order and within what the spec and the clock allow, each phase once, positions in
 * order inside the device, a steady state only when asked. */
static WorkerVerdictKind judge_record(WorkerJudge *j, const ProtoFrame *f, const ProtoClock *clock,
                                      WorkerVerdict *v) {
        const ProtoRecordDesc *d = proto_record_desc(f->type);
        char what[64], *err = NULL;
        int r;

        if (proto_record_decode(f, &v->record) < 0) {
                snprintf(what, sizeof(what), "malformed %s frame", d ? d->name : "record");
                return violation(j, v, what);
        }
        if (d->plausible) {
                r = d->plausible(&j->tally, &v->record.sample, &j->limits, clock, &err);
                if (r < 0)
                        return implausible(j, v, r, err);
        }
        return v->kind = WORKER_VERDICT_RECORD;
}

static WorkerVerdictKind judge_fs_info(WorkerJudge *j, const ProtoFrame *f, const ProtoClock *clock,
                                       WorkerVerdict *v) {
        char *err = NULL;
        int r;

        if (proto_decode_fs_info(f, &v->fs_info) < 0)
                return violation(j, v, "malformed FS_INFO frame");
        /* Only in a filesystem step, once, before the step begins, for the filesystem asked for. */
        r = proto_fs_info_plausible(&j->tally, &v->fs_info, clock, &err);
        if (r < 0) {
                proto_fs_info_clear(&v->fs_info);
                return implausible(j, v, r, err);
        }
        return v->kind = WORKER_VERDICT_FS_INFO;
}

static WorkerVerdictKind judge_fs_released(WorkerJudge *j, const ProtoFrame *f, WorkerVerdict *v) {
        char *err = NULL;
        int r;

        if (proto_decode_fs_released(f, &v->text) < 0)
                return violation(j, v, "malformed FS_RELEASED frame");
        r = proto_fs_released_plausible(&j->tally, &err);
        if (r < 0) {
                free(v->text);
                v->text = NULL;
                return implausible(j, v, r, err);
        }
        return v->kind = WORKER_VERDICT_FS_RELEASED;
}

static WorkerVerdictKind judge_histogram(WorkerJudge *j, const ProtoFrame *f, WorkerVerdict *v) {
        ProtoHistogram h = {};
        ProtoHistogramEntry *n;
        ProtoTally t = j->tally;
        char *err = NULL;
        int r;

        if (proto_decode_histogram(f, &h) < 0)
                return violation(j, v, "malformed HISTOGRAM frame");
        /* Non-empty buckets in increasing order across all frames, so at most HISTOGRAM_BUCKETS
         * entries in all; the tally is kept once they are. */
        r = proto_histogram_plausible(&t, &h, &err);
        if (r < 0) {
                proto_histogram_clear(&h);
                return implausible(j, v, r, err);
        }
        if (h.n_entries > 0) {
                n = realloc(j->histogram, (j->n_histogram + h.n_entries) * sizeof(*n));
                if (!n) {
                        proto_histogram_clear(&h);
                        return violation(j, v, "out of memory for the histogram");
                }
                j->histogram = n;
                memcpy(j->histogram + j->n_histogram, h.entries, h.n_entries * sizeof(*n));
                j->n_histogram += h.n_entries;
        }
        j->tally = t;
        proto_histogram_clear(&h);
        return v->kind = WORKER_VERDICT_NONE;
}

static WorkerVerdictKind judge_result(WorkerJudge *j, const ProtoFrame *f, const ProtoClock *clock,
                                      WorkerVerdict *v) {
        ProtoResult res = {};
        char *err = NULL;
        int r;

        if (proto_decode_result(f, &res) < 0)
                return violation(j, v, "malformed RESULT frame");
        /* The sum of the samples, consistent with the histogram before it, no faster and no longer
         * than the spec and the clock allow. */
        r = proto_result_plausible(&j->tally, &res, j->histogram, j->n_histogram, &j->limits, clock, &err);
        if (r < 0) {
                proto_result_clear(&res);
                return implausible(j, v, r, err);
        }
        proto_text_sanitize(res.device);
        j->result = res;
        j->got_result = true;
        j->stage = WORKER_STAGE_DONE;
        return v->kind = WORKER_VERDICT_NONE;
}

static WorkerVerdictKind judge_error(WorkerJudge *j, const ProtoFrame *f, WorkerVerdict *v) {
        ProtoError e = {};

        if (proto_decode_error(f, &e) < 0)
                return violation(j, v, "malformed ERROR frame");
        proto_text_sanitize(e.message);
        j->unsafe = e.error == PROTO_ERROR_UNSAFE;
        free(j->error);
        if (e.message && *e.message)
                j->error = TAKE_PTR(e.message);
        else if (asprintf(&j->error, "the worker failed: %s", strerror(e.error)) < 0)
                j->error = NULL;
        proto_error_clear(&e);
        j->stage = WORKER_STAGE_DONE;
        return v->kind = WORKER_VERDICT_NONE;
}

WorkerVerdictKind worker_judge_frame(WorkerJudge *j, const ProtoFrame *f, const ProtoClock *clock,
                                     WorkerVerdict *ret) {
        char what[128];

        *ret = (WorkerVerdict) {};
        if (j->violated) {
                ret->kind = WORKER_VERDICT_VIOLATION;
                return ret->kind;
        }
        if (j->stage == WORKER_STAGE_HELLO)
                return judge_hello(j, f, ret);
        if (j->stage == WORKER_STAGE_DONE) {
                snprintf(what, sizeof(what), "%s frame after the final RESULT or ERROR",
                         worker_frame_type_name(f->type));
                return violation(j, ret, what);
        }

        switch (f->type) {
        case PROTO_PHASE:
                return judge_phase(j, f, ret);
        case PROTO_LOG:
                return judge_log(j, f, ret);
        case PROTO_FS_INFO:
                return judge_fs_info(j, f, clock, ret);
        case PROTO_FS_RELEASED:
                return judge_fs_released(j, f, ret);
        case PROTO_HISTOGRAM:
                return judge_histogram(j, f, ret);
        case PROTO_RESULT:
                return judge_result(j, f, clock, ret);
        case PROTO_ERROR:
                return judge_error(j, f, ret);
        default:
                if (proto_record_desc(f->type))
                        return judge_record(j, f, clock, ret);
                snprintf(what, sizeof(what), "unexpected %s frame (type %u)", worker_frame_type_name(f->type),
                         f->type);
                return violation(j, ret, what);
        }
}

void worker_judge_outcome(WorkerJudge *j, const WorkerExit *e, const char *path, WorkerOutcome *ret) {
        bool clean = e->exited && e->status == 0;
        WorkerOutcome o = {};
        int k;

        /* Its histogram only with a RESULT that agreed with it, from a worker that kept to the
         * protocol to the end. */
        if (j->got_result && !j->violated) {
                o.histogram = j->histogram;
                o.n_histogram = j->n_histogram;
        }
        o.signalled = e->signalled || !clean;

        if (e->stop_requested && !(j->got_result && clean))
                o.status = WORKER_STOPPED;
        else if (j->failure) {
                o.status = WORKER_FAILED;
                o.error = j->failure;
        } else if (j->error) {
                o.status = WORKER_FAILED;
                o.error = j->error;
                o.unsafe = j->unsafe;
        } else if (j->got_result && clean) {
                o.status = WORKER_SUCCEEDED;
                o.result = &j->result;
        } else {
                o.status = WORKER_FAILED;
                free(j->exit_error);
                if (!e->exited)
                        k = asprintf(&j->exit_error, "worker killed by signal %d (SIG%s)%s", e->status,
                                     strna(sigabbrev_np(e->status)), j->got_result ? " after sending its result" : "");
                else if (e->status == 127 && j->stage == WORKER_STAGE_HELLO)
                        k = asprintf(&j->exit_error, "worker %s could not be executed (exit status 127); "
                                     "check --worker or BENCHD_WORKER", strna(path));
                else if (j->got_result)
                        k = asprintf(&j->exit_error, "worker exited with status %d after sending its result",
                                     e->status);
                else
                        k = asprintf(&j->exit_error, "worker exited with status %d without a result%s", e->status,
                                     j->stage == WORKER_STAGE_HELLO ? " (it never said HELLO)" : "");
                if (k < 0)
                        j->exit_error = NULL;
                o.error = j->exit_error ?: "worker ended without a result";
        }
        *ret = o;
}
