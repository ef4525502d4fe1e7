/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The step verdict (step-verdict.h) off the event loop. step_verdict() stats the target, reads
 * sysfs and mountinfo and probes the device with libblkid, and any of that can hang on a dying
 * disk or a stuck mount; so a VerdictQuery runs it, for each of an array of steps, in a helper
 * process (helper.h). The child writes the verdicts to the pipe in a small, bounded, versioned
 * encoding and exits; the parent decodes that as untrusted input and calls back once. A check
 * that does not answer within the timeout, a child that dies, and an answer that does not decode
 * are refusals too, so the caller always gets one verdict per step.
 *
 * SubmitJob asks about all of a job's steps (submitted = NULL); a step start asks about its one
 * step, with the identity recorded at SubmitJob.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "devices/device-manager.h"
#include "jobs/step-verdict.h"
#include "shared/spec-check.h"
#include "shared/spec.h"
#include "shared/util.h"

typedef struct VerdictQuery VerdictQuery;

/* A check that has not answered by then is refused ("cannot check ... within 60 s"). */
#define VERDICT_QUERY_TIMEOUT_USEC (60 * USEC_PER_SEC)
/* The most steps one query takes: a job's, which profile.h bounds the same. */
#define VERDICT_QUERY_STEPS_MAX 256u
/* The longest reason the encoding carries; a longer one is cut (at a character boundary). */
#define VERDICT_REASON_MAX 4096u

/* verdicts[0..n-1], one per step asked about, in order: error_name NULL when the step may run
 * (check and scratch filled), else a refusal with error_name, reason and error, as step_verdict()
 * gives them. A step whose check did not answer is refused with error -ETIMEDOUT (the timeout),
 * -EIO (the checking process died) or -EBADMSG (its answer did not decode): Unsafe for a
 * workload that writes, InvalidSpec otherwise; reason is NULL only when error is -ENOMEM.
 * The verdicts belong to q (the callee may take a reason, leaving NULL); q may be freed here. */
typedef void (*VerdictDone)(VerdictQuery *q, StepVerdict *verdicts, size_t n, void *userdata);

/* Starts step_verdict(devices, &steps[i], submitted ? &submitted[i] : NULL, opts) for i < n in a
 * helper process (opts, like steps, is read by the child only); cb is called once, on the event loop of e, at the latest after timeout_usec
 * (VERDICT_QUERY_TIMEOUT_USEC unless a test wants less). steps, submitted and devices are read by
 * the child only, on its copy of our memory: they need not outlive this call. 0 with *ret, or a
 * negative errno (-E2BIG for more than VERDICT_QUERY_STEPS_MAX steps) and no callback. */
int verdict_query_start(sd_event *e, DeviceManager *devices, const JobSpec *steps, const TargetCheck *submitted,
                        size_t n, const VerdictOptions *opts, uint64_t timeout_usec, VerdictDone cb, void *userdata,
                        VerdictQuery **ret);
/* Without calling back; a check still running is killed (helper_free()). */
VerdictQuery *verdict_query_free(VerdictQuery *q);
DEFINE_TRIVIAL_CLEANUP_FUNC(VerdictQuery *, verdict_query_free);

/* The pid of the checking process (it may have gone already). */
pid_t verdict_query_pid(VerdictQuery *q);

/* ---- the encoding (the child's side and the parent's; exposed for tests) ----
 *
 * Both ends are one binary (fork without exec), so records are fixed-layout structs of fixed-size
 * integers, copied with memcpy. The version guards against nothing but our own mistakes; the
 * decoder guards against a child that did not say what it should.
 *   header: u32 magic "BVQ1", u32 version (1), u32 n, u32 total size in bytes, header included
 *   n ×    record (72 bytes: error, error name index, scratch, reason length, the TargetCheck)
 *          followed by the reason: that many bytes, UTF-8, no NUL and no control characters. */
#define VERDICT_MAGIC UINT32_C(0x31515642)
#define VERDICT_VERSION UINT32_C(1)

/* The most bytes the encoding of n verdicts takes. */
size_t verdict_encoded_max(size_t n);
/* 0 with a new buffer; -EINVAL for a verdict that cannot be encoded (an unknown error name, n
 * beyond VERDICT_QUERY_STEPS_MAX), -ENOMEM. Reasons are made valid UTF-8 without control
 * characters ('?' for what is not) and cut at VERDICT_REASON_MAX; a refusal without one gets a
 * general one. */
int verdict_encode(const StepVerdict *v, size_t n, uint8_t **ret, size_t *ret_size);
/* The n verdicts in buf (exactly size bytes) into ret[0..n-1], written only on success; free each
 * with step_verdict_clear(). -EBADMSG for anything that is not exactly the encoding of n verdicts
 * with fields in range, -ENOMEM. */
int verdict_decode(const uint8_t *buf, size_t size, size_t n, StepVerdict *ret);
