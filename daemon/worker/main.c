/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchd-worker: runs exactly one job step and exits. Two front ends over the same engine:
 *   --protocol-fd=N  the daemon's socketpair: HELLO, one SPEC, then PHASE/SAMPLE/LOG frames and
 *                    HISTOGRAM + RESULT, or ERROR (exit 0 on success, 1 on failure);
 *   standalone       options build the same JobSpec; a human or JSON summary goes to stdout
 *                    (exit 0, 1 when the run failed, 2 for a usage error).
 * SIGTERM/SIGINT ask the engine to stop within one I/O; it removes its files before we exit.
 *
 * No process outlives the worker: it is a child subreaper, so every descendant that loses its
 * parent (a stream process's child, anything that called setsid()) becomes its child, and before
 * it exits, on every path out of main(), it SIGKILLs and reaps all of them (reap_descendants()).
 * Only a worker that is itself SIGKILLed cannot; benchd, a subreaper too, sweeps up after it
 * (daemon/jobs/supervisor.c, "Strays").
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "engine.h"
#include "fsprep.h"
#include "layout-md.h"
#include "ioengine.h"
#include "output.h"
#include "shared/children.h"
#include "shared/proto.h"
#include "shared/proto-record.h"
#include "shared/run-as.h"
#include "shared/spec-check.h"
#include "shared/spec.h"
#include "shared/util.h"
#include "shared/log.h"

#define EXIT_USAGE 2

/* How long the worker waits for its descendants to die before it leaves them to benchd: a
 * SIGKILLed process ends at once unless it sleeps uninterruptibly in the kernel. */
#define REAP_TIMEOUT_USEC (5 * USEC_PER_SEC)

static void on_stop_signal(int sig) {
        engine_request_stop();
}

static void install_signals(void) {
        struct sigaction sa = { .sa_handler = on_stop_signal };

        sigemptyset(&sa.sa_mask);
        /* No SA_RESTART: a blocked wait returns and sees the flag. */
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
}

/* ---- protocol mode ---- */

typedef struct ProtoSink {
        int fd;
        uint64_t start_usec;    /* a fleet step: the START's, once it came */
} ProtoSink;

static int send_frame(int fd, int r, uint8_t *buf, size_t len) {
        if (r < 0)
                return r;
        r = proto_write_all(fd, buf, len);
        free(buf);
        return r;
}

static int proto_sink_phase(void *userdata, const char *name) {
        ProtoSink *p = userdata;
        ProtoText t = { .level = 0, .text = (char *) name };
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = proto_encode_text(PROTO_PHASE, &t, &buf, &len);
        return send_frame(p->fd, r, buf, len);
}

static int proto_sink_log(void *userdata, int priority, const char *text) {
        ProtoSink *p = userdata;
        ProtoText t = { .level = (uint32_t) priority, .text = (char *) text };
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = proto_encode_text(PROTO_LOG, &t, &buf, &len);
        return send_frame(p->fd, r, buf, len);
}

/* One of the worker's records (shared/proto-record.h), framed as its description says. */
static int proto_sink_record(ProtoSink *p, const ProtoRecordDesc *d, const void *m) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = proto_record_encode(d, m, &buf, &len);
        return send_frame(p->fd, r, buf, len);
}

static int proto_sink_sample(void *userdata, const ProtoSample *s) {
        return proto_sink_record(userdata, &proto_record_sample, s);
}

/* One of the position workload's offsets, as it ends. */
static int proto_sink_position_result(void *userdata, const ProtoPositionResult *pr) {
        return proto_sink_record(userdata, &proto_record_position_result, pr);
}

/* The step is steady: it ends now. */
static int proto_sink_steady_state(void *userdata, uint64_t t_ms) {
        return proto_sink_record(userdata, &proto_record_steady_state, &(ProtoSteadyState) { .t_ms = t_ms });
}

/* One of the metadata workload's phases, as it ends. */
static int proto_sink_phase_result(void *userdata, const PhaseSummary *ps) {
        ProtoSink *p = userdata;
        ProtoPhaseResult m = {
                .ops = ps->ops,
                .duration_usec = ps->duration_usec,
                .lat_min_ns = ps->lat_min_ns,
                .lat_mean_ns = ps->lat_mean_ns,
                .lat_p50_ns = ps->lat_p50_ns,
                .lat_p99_ns = ps->lat_p99_ns,
                .lat_max_ns = ps->lat_max_ns,
        };

        snprintf(m.name, sizeof(m.name), "%s", ps->name);
        return proto_sink_record(p, &proto_record_phase_result, &m);
}

static int proto_send_error(int fd, int error, const char *message) {
        ProtoError m = { .error = error < 0 ? -error : error, .message = (char *) (message ? message : strerror(abs(error))) };
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = proto_encode_error(&m, &buf, &len);
        return send_frame(fd, r, buf, len);
}

/* Sparse non-zero buckets, as many frames as needed. */
static int proto_send_histogram(int fd, const Histogram *h) {
        _cleanup_free_ ProtoHistogramEntry *entries = calloc(HISTOGRAM_BUCKETS, sizeof(ProtoHistogramEntry));
        uint32_t n = 0;
        int r;

        if (!entries)
                return -ENOMEM;
        for (unsigned i = 0; h && i < HISTOGRAM_BUCKETS; i++)
                if (h->buckets[i] > 0)
                        entries[n++] = (ProtoHistogramEntry) { .index = i, .count = h->buckets[i] };

        for (uint32_t off = 0; off < n; off += PROTO_HISTOGRAM_MAX_ENTRIES) {
                ProtoHistogram m = { .n_entries = MIN(n - off, (uint32_t) PROTO_HISTOGRAM_MAX_ENTRIES),
                                     .entries = entries + off };
                uint8_t *buf = NULL;
                size_t len = 0;
                r = proto_encode_histogram(&m, &buf, &len);
                r = send_frame(fd, r, buf, len);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The next frame from benchd, whole (its payload valid until the reader's next call). */
static int proto_read_frame(ProtoReader *reader, int fd, ProtoFrame *ret) {
        int r;

        for (;;) {
                r = proto_reader_next(reader, ret);
                if (r != 0)
                        return r < 0 ? r : 0;
                r = proto_reader_fill(reader, fd);
                if (r == -EAGAIN || r == -EINTR)
                        continue;
                if (r < 0)
                        return r;
                if (r == 0)
                        return -ECONNRESET;
        }
}

static int proto_read_spec(ProtoReader *reader, int fd, ProtoSpec *ret) {
        ProtoFrame frame;
        int r;

        r = proto_read_frame(reader, fd, &frame);
        if (r < 0)
                return r;
        return frame.type == PROTO_SPEC ? proto_decode_spec(&frame, ret) : -EBADMSG;
}

static int proto_read_fs_setup(ProtoReader *reader, int fd, ProtoFsSetup *ret) {
        ProtoFrame frame;
        int r;

        r = proto_read_frame(reader, fd, &frame);
        if (r < 0)
                return r;
        return frame.type == PROTO_FS_SETUP ? proto_decode_fs_setup(&frame, ret) : -EBADMSG;
}

/* A fleet step waits for START (daemon/shared/proto.h). The worker is told to stop by SIGTERM,
 * which poll() does not restart: it is checked between waits. */
static int proto_sink_wait_start(void *userdata) {
        ProtoSink *p = userdata;
        ProtoReader reader;
        ProtoFrame frame;
        ProtoStart m;
        int r;

        proto_reader_init(&reader);
        for (;;) {
                struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

                if (engine_stop_requested()) {
                        r = -ECANCELED;
                        break;
                }
                r = proto_reader_next(&reader, &frame);
                if (r < 0)
                        break;
                if (r > 0) {
                        r = frame.type == PROTO_START ? proto_decode_start(&frame, &m) : -EBADMSG;
                        if (r >= 0)
                                p->start_usec = m.start_usec;
                        break;
                }
                r = poll(&pfd, 1, -1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        r = -errno;
                        break;
                }
                r = proto_reader_fill(&reader, p->fd);
                if (r == -EAGAIN || r == -EINTR)
                        continue;
                if (r < 0)
                        break;
                if (r == 0) {
                        r = -ECONNRESET;
                        break;
                }
        }
        proto_reader_clear(&reader);
        if (r < 0 && r != -ECANCELED)
                log_error_errno(r, "cannot read the START frame of a fleet step: %m");
        return r < 0 ? r : 0;
}

/* The SPEC's "key=value" lines, as the daemon wrote them (spec_to_worker_text()). */
static int spec_from_worker_text(JobSpec *spec, const char *text, char **reterr) {
        _cleanup_free_ char *copy = strdup(text);
        char *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                r = spec_set_assignment(spec, line, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The keys the daemon resolves (the registry's daemon_resolved: a matrix's filesystems, devices and
 * options, the repeats) are not the worker's: a SPEC with one is refused, naming it. */
static int spec_check_worker_keys(const JobSpec *spec, char **reterr) {
        SpecKey k = spec_daemon_key(spec);

        if (k < 0)
                return 0;
        return reterr_set(reterr, -EINVAL, "the SPEC carries %s, which benchd resolves before a worker runs the "
                          "step; a worker's SPEC leaves it out (a filesystem step's FS_SETUP carries what the "
                          "worker needs of it)", spec_key_to_string(k));
}

static int proto_send_fs_info(int fd, const ProtoFsInfo *info) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = proto_encode_fs_info(info, &buf, &len);
        return send_frame(fd, r, buf, len);
}

static int proto_send_fs_released(int fd, const char *commands) {
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = proto_encode_fs_released(commands, &buf, &len);
        return send_frame(fd, r, buf, len);
}

static bool stop_requested(void) {
        return engine_stop_requested();
}

/* The daemon checked the target at step start; what spec_check_target() found here must be that
 * same object, or the path was swapped in between. */
static int guard_check(const JobSpec *spec, const ProtoGuard *g, const TargetCheck *tc, char **reterr) {
        static const TargetKind kinds[_PROTO_GUARD_KIND_MAX] = {
                [PROTO_GUARD_DIRECTORY] = TARGET_DIRECTORY,
                [PROTO_GUARD_FILE] = TARGET_FILE,
                [PROTO_GUARD_BLOCK] = TARGET_BLOCK,
        };
        TargetCheck then = {
                .kind = kinds[g->kind],
                .dev = (dev_t) g->dev,
                .ino = g->ino,
                .diskseq = g->diskseq,
        };
        _cleanup_free_ char *why = NULL;

        if (g->kind == PROTO_GUARD_NONE)
                return 0;
        if (target_check_same(spec->target, &then, tc, &why) == 0)
                return 0;
        free(*reterr);
        if (asprintf(reterr, "%s since benchd checked it; refusing to use it", strna(why)) < 0)
                *reterr = NULL;
        return -PROTO_ERROR_UNSAFE;
}

/* A caller's step (--run-as): only a directory or file target, never a filesystem step (which makes
 * and mounts a filesystem on devices the caller was allowed to destroy: root's work) nor a block
 * device (polkit's to allow, and opened as root). The worker becomes the caller before it looks at
 * the target at all, so every open, create and remove from here on is the kernel's to allow as for
 * the caller's own processes (run-as.h). Nothing before needs the caller's rights, and nothing after
 * needs root's: the target's checks, the engine, /proc/stat and sysfs for the samples (readable by
 * all), O_DIRECT and io_uring (no privilege), the cache drop of our own files (posix_fadvise). */
static int become_caller(uid_t uid, bool fs_step, const ProtoGuard *g, char **reterr) {
        if (uid == 0)
                return 0;
        if (fs_step || (g->kind != PROTO_GUARD_DIRECTORY && g->kind != PROTO_GUARD_FILE))
                return reterr_set(reterr, -EINVAL, "--run-as is for a step on a directory or file target (guard kind "
                                  "%" PRIu32 "%s)", g->kind, fs_step ? ", a filesystem step" : "");
        return run_as_user(uid, reterr);
}

static int run_protocol(int fd, uid_t run_as) {
        _cleanup_free_ char *err = NULL, *prefix = NULL, *umount_err = NULL;
        _cleanup_(proto_fs_setup_clear) ProtoFsSetup fs = {};
        _cleanup_(proto_fs_info_clear) ProtoFsInfo fs_info = {};
        FsPrepOptions fs_opts = { .stop_requested = stop_requested };
        FsPrep prep = {};
        ProtoReader reader;
        bool fs_step = false, fs_info_sent = false;
        ProtoSpec ps = {};
        JobSpec spec;
        TargetCheck tc;
        EngineResult res = {};
        ProtoSink ps_sink = { .fd = fd };
        EngineSink sink = {
                .userdata = &ps_sink,
                .phase = proto_sink_phase,
                .sample = proto_sink_sample,
                .log = proto_sink_log,
                .phase_result = proto_sink_phase_result,
                .position_result = proto_sink_position_result,
                .steady_state = proto_sink_steady_state,
                .wait_start = proto_sink_wait_start,
        };
        int r;

        spec_init(&spec);

        ProtoHello hello = { .version = PROTO_VERSION, .pid = (uint32_t) getpid() };
        uint8_t *buf = NULL;
        size_t len = 0;
        r = proto_encode_hello(&hello, &buf, &len);
        r = send_frame(fd, r, buf, len);
        if (r < 0) {
                log_error_errno(r, "cannot send HELLO: %m");
                return EXIT_FAILURE;
        }

        proto_reader_init(&reader);
        r = proto_read_spec(&reader, fd, &ps);
        if (r < 0) {
                proto_reader_clear(&reader);
                log_error_errno(r, "cannot read the SPEC frame: %m");
                proto_send_error(fd, r, "the worker expected one SPEC frame");
                return EXIT_FAILURE;
        }
        /* A SPEC without target is a filesystem step's: FS_SETUP follows it, and the step runs on a
         * directory of the filesystem that describes. */
        r = spec_from_worker_text(&spec, ps.text, &err);
        fs_step = r >= 0 && !spec.target;
        if (fs_step) {
                r = proto_read_fs_setup(&reader, fd, &fs);
                if (r < 0) {
                        proto_reader_clear(&reader);
                        log_error_errno(r, "cannot read the FS_SETUP frame: %m");
                        proto_send_error(fd, r, "the worker expected an FS_SETUP frame after a SPEC without target");
                        proto_spec_clear(&ps);
                        spec_clear(&spec);
                        return EXIT_FAILURE;
                }
        }
        proto_reader_clear(&reader);

        /* Checked once FS_SETUP is read, so that the worker leaves nothing unread behind its ERROR. */
        if (r >= 0)
                r = spec_check_worker_keys(&spec, &err);
        /* A filesystem step runs on a directory of the filesystem it mounts; what it writes to is
         * the members, each with a guard of its own in FS_SETUP. */
        if (r >= 0 && fs_step && ps.guard.kind != PROTO_GUARD_NONE)
                r = reterr_set(&err, -EINVAL, "a filesystem step's SPEC carries no target guard (kind %" PRIu32
                               "); its members carry theirs in FS_SETUP", ps.guard.kind);
        if (r >= 0 && fs_step)
                r = spec_set_from_string(&spec, "target", FSPREP_MOUNT_POINT, &err);
        if (r >= 0)
                r = spec_finalize(&spec, &err);
        if (r >= 0 && spec.workload < 0) {
                r = -EINVAL;
                err = strdup("a worker step needs a workload, not a profile");
        }
        /* Before anything is touched (a filesystem step with --run-as is refused here, before mkfs). */
        if (r >= 0)
                r = become_caller(run_as, fs_step, &ps.guard, &err);
        if (r >= 0 && fs_step) {
                r = fsprep_setup(&prep, &fs, &fs_opts, &fs_info, &err);
                if (r >= 0) {
                        r = proto_send_fs_info(fd, &fs_info);
                        if (r < 0)
                                log_error_errno(r, "cannot send FS_INFO: %m");
                        fs_info_sent = r >= 0;
                }
        }
        if (r >= 0)
                r = spec_check_target(&spec, &tc, &err);
        if (r >= 0)
                r = guard_check(&spec, &ps.guard, &tc, &err);
        if (r >= 0 && asprintf(&prefix, ".benchd-%" PRIu64 "-%" PRIu32 "-", ps.job_id, ps.step) < 0)
                r = -ENOMEM;
        if (r >= 0) {
                EngineOptions opts = {
                        .file_prefix = prefix,
                        .scratch = ps.guard.kind == PROTO_GUARD_BLOCK && (ps.guard.flags & PROTO_GUARD_SCRATCH),
                };
                r = engine_run(&spec, &tc, &opts, &sink, &res, &err);
        }
        /* Before the RESULT: a figure of an array that lost a member is not one of the layout. */
        if (r >= 0 && fs_step)
                r = fsprep_check_layout(&prep, &err);

        /* Per-stream figures have no frame of their own; they go to the daemon's log. */
        for (unsigned i = 0; r >= 0 && res.n_streams > 1 && i < res.n_streams; i++) {
                const StreamSummary *st = &res.streams[i];
                _cleanup_free_ char *line = NULL;
                if (asprintf(&line, "stream %u: read %" PRIu64 " bytes in %" PRIu64 " I/Os, wrote %" PRIu64
                             " bytes in %" PRIu64 " I/Os, latency mean %" PRIu64 " ns p99 %" PRIu64 " ns",
                             i, st->bytes_read, st->ios_read, st->bytes_written, st->ios_written, st->lat_mean_ns,
                             st->lat_p99_ns) >= 0)
                        (void) proto_sink_log(&ps_sink, LOG_INFO, line);
        }
        /* Unmounted before the last frame, so that a note about it can still go out. */
        if (fs_step && fsprep_finish(&prep, &umount_err) != 0)
                (void) proto_sink_log(&ps_sink, LOG_WARNING, umount_err ?: "cannot unmount the filesystem");
        /* What deactivated or removed the volume group and released the md array's members, whether
         * it succeeded or not (each exit says); after FS_INFO only (else no run records it, and the
         * log below has the LVM part). */
        if (fs_step && prep.released) {
                int k = 0;

                if (fs_info_sent)
                        k = proto_send_fs_released(fd, prep.released);
                else {
                        _cleanup_free_ char *line = NULL;

                        if (asprintf(&line, "what ran on the layout after the failed setup: %s", prep.released) >= 0)
                                (void) proto_sink_log(&ps_sink, LOG_INFO, line);
                }
                if (k < 0)
                        log_error_errno(k, "cannot send FS_RELEASED: %m");
                free(prep.released);
                prep.released = NULL;
        }
        /* The layout's deactivation (LVM), in the log too. */
        if (fs_step && prep.layout_note) {
                (void) proto_sink_log(&ps_sink, LOG_INFO, prep.layout_note);
                free(prep.layout_note);
                prep.layout_note = NULL;
        }
        if (r >= 0)
                r = proto_send_histogram(fd, res.histogram);
        if (r >= 0) {
                buf = NULL;
                r = proto_encode_result(&res.summary, &buf, &len);
                r = send_frame(fd, r, buf, len);
                if (r < 0)
                        log_error_errno(r, "cannot send RESULT: %m");
        } else
                proto_send_error(fd, r, err);

        engine_result_clear(&res);
        proto_spec_clear(&ps);
        spec_clear(&spec);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- standalone mode ---- */

typedef struct SampleLog {
        ProtoSample *samples;
        size_t n, allocated;
        bool live;              /* a line per sample on stderr */
} SampleLog;

static int log_sample(void *userdata, const ProtoSample *s) {
        SampleLog *l = userdata;

        if (l->n == l->allocated) {
                size_t m = l->allocated ? l->allocated * 2 : 64;
                ProtoSample *p = realloc(l->samples, m * sizeof(ProtoSample));
                if (!p)
                        return -ENOMEM;
                l->samples = p;
                l->allocated = m;
        }
        l->samples[l->n++] = *s;
        if (l->live)
                output_sample_line(stderr, s);
        return 0;
}

static int log_phase(void *userdata, const char *name) {
        SampleLog *l = userdata;
        if (l->live)
                fprintf(stderr, "-- %s\n", name);
        return 0;
}

static int log_text(void *userdata, int priority, const char *text) {
        SampleLog *l = userdata;
        if (l->live || priority <= LOG_WARNING)
                fprintf(stderr, "-- %s\n", text);
        return 0;
}

/* "10s", "500ms", "2m", "1h", or plain seconds, into milliseconds. */
static int parse_duration_ms(const char *s, uint64_t *ret) {
        char *end;
        double v;

        errno = 0;
        v = strtod(s, &end);
        if (errno != 0 || end == s || !(v >= 0))
                return -EINVAL;
        if (*end == 0 || streq(end, "s"))
                v *= 1000;
        else if (streq(end, "ms"))
                ;
        else if (streq(end, "m") || streq(end, "min"))
                v *= 60000;
        else if (streq(end, "h"))
                v *= 3600000;
        else
                return -EINVAL;
        if (v > (double) SPEC_RUNTIME_MS_MAX)
                return -ERANGE;
        *ret = (uint64_t) v;
        return 0;
}

static void help(void) {
        printf("Usage: benchd-worker --target PATH --workload NAME [OPTIONS]\n"
               "       benchd-worker --protocol-fd=FD [--run-as=UID]\n"
               "       benchd-worker --try-mkfs=FS [--layout=L] [--mkfs-options=TEXT] [--members=N] [--size=SIZE]\n"
               "       benchd-worker --try-md-options=TEXT --layout=md-raidN --members=N\n"
               "\n"
               "Runs one benchmark step and prints its result (or, with --protocol-fd, talks to benchd).\n"
               "\n"
               "  -t --target PATH        directory (benchd creates its own files), file or block device\n"
               "  -w --workload NAME      read write randread randwrite randrw rewrite reread backward-read\n"
               "                          stride-read seeks metadata ping position putc getc\n"
               "                          read-modify-write\n"
               "  -b --block-size SIZE    e.g. 4K, 32K, 1M\n"
               "  -s --size SIZE          bytes per stream (file size or device region), e.g. 1G;\n"
               "                          position: bytes read at each offset\n"
               "  -d --direct             O_DIRECT (the default); --buffered for the page cache\n"
               "     --buffered           no O_DIRECT\n"
               "     --sync MODE          none, end or each, optionally :fsync or :fdatasync\n"
               "  -r --runtime DURATION   time-based run, e.g. 10s, 500ms, 2m (ramp included)\n"
               "     --ramp DURATION      discarded warm-up at the start of the runtime\n"
               "  -q --queue-depth N      I/Os in flight per stream (io_uring above 1)\n"
               "  -j --jobs N             parallel streams\n"
               "     --rwmix-read PCT     reads in randrw\n"
               "     --pattern P          random, zero or compressible:NN\n"
               "     --stride SIZE        stride-read step\n"
               "     --sample-ms N        sample interval (100..60000)\n"
               "     --set KEY=VALUE      any job spec key: benchd-spec(7), docs/DESIGN.md \"Job spec\"\n"
               "     --ioengine NAME      sync, io_uring, libaio or null (testing)\n"
               "     --json               print a JSON document instead of the summary\n"
               "     --try-mkfs FS        only run mkfs.FS as a filesystem step would, with --mkfs-options,\n"
               "                          on --members sparse images (default 1; raid0/raid1 2, raid10 4)\n"
               "                          of --size (320M..1G, default 320M) in a private tmpfs; for\n"
               "                          btrfs --layout single, raid0, raid1 or raid10\n"
               "     --try-md-options TEXT\n"
               "                          only ask mdadm whether it takes TEXT for an array of --layout over\n"
               "                          --members devices: mdadm --create as a filesystem step would run it,\n"
               "                          on member paths that do not exist (nothing is created)\n"
               "     --live               a line per sample on stderr\n"
               "     --run-as UID         with --protocol-fd: run a directory or file step as that user\n"
               "  -h --help               this text\n"
               "     --version            the version\n");
}

enum {
        ARG_BUFFERED = 0x100,
        ARG_SYNC,
        ARG_RAMP,
        ARG_RWMIX,
        ARG_PATTERN,
        ARG_STRIDE,
        ARG_SAMPLE_MS,
        ARG_SET,
        ARG_JSON,
        ARG_LIVE,
        ARG_PROTOCOL_FD,
        ARG_IOENGINE,
        ARG_VERSION,
        ARG_TRY_MKFS,
        ARG_LAYOUT,
        ARG_MKFS_OPTIONS,
        ARG_MEMBERS,
        ARG_RUN_AS,
        ARG_TRY_MD_OPTIONS,
};

static int usage_error(const char *fmt, ...) _printf_(1, 2);
static int usage_error(const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "benchd-worker: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\nTry 'benchd-worker --help'.\n");
        return EXIT_USAGE;
}

/* --try-mkfs: exit 0 when mkfs accepted the options, 1 when not (its message on stderr). */
static int run_try_mkfs(const char *fs_type, const char *layout, const char *mkfs_options, unsigned members,
                        const char *size_arg) {
        FsPrepOptions opts = { .stop_requested = stop_requested };
        _cleanup_free_ char *err = NULL;
        uint64_t size = 0;
        int r;

        layout = layout ?: "single";
        mkfs_options = mkfs_options ?: "";
        if (members == 0)
                members = streq(layout, "raid10") ? 4 : streq(layout, "single") ? 1 : 2;
        if (!proto_fs_type_valid(fs_type))
                return usage_error("--try-mkfs: '%s' is not a filesystem type (1 to %u of a-z and 0-9, e.g. ext4)",
                                   CALLER_TEXT(fs_type), PROTO_FS_TYPE_MAX);
        if (!proto_fs_layout_valid(fs_type, layout, members))
                return usage_error("--layout=%s with --members=%u: %s takes layout single on one device%s",
                                   CALLER_TEXT(layout), members, fs_type, streq(fs_type, "btrfs") ? "" :
                                   " (only btrfs has raid0, raid1, raid10 and several devices)");
        if (!proto_fs_options_valid(mkfs_options))
                return usage_error("--mkfs-options: at most %u bytes of text without control characters",
                                   PROTO_FS_OPTIONS_MAX);
        if (size_arg && parse_size(size_arg, &size) < 0)
                return usage_error("--size: '%s' is not a size; use e.g. 512M or 1G", CALLER_TEXT(size_arg));

        r = fsprep_try_mkfs(fs_type, layout, mkfs_options, members, size, &opts, &err);
        if (r < 0) {
                fprintf(stderr, "%s\n", err ?: strerror(-r));
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}

/* --try-md-options: exit 0 when mdadm took the options, 1 when not (its words on stderr). */
static int run_try_md(const char *md_options, const char *layout, unsigned members) {
        FsPrepOptions opts = { .stop_requested = stop_requested };
        _cleanup_free_ char *err = NULL;
        int r;

        if (!layout || !proto_fs_layout_is_md(layout))
                return usage_error("--try-md-options: --layout=%s is not an md layout; use md-raid0, md-raid1, "
                                   "md-raid5 or md-raid10", CALLER_TEXT(layout ?: ""));
        if (members < 2)
                return usage_error("%s", "--try-md-options: --members gives the array's devices, at least 2");
        if (!proto_fs_options_valid(md_options))
                return usage_error("--try-md-options: at most %u bytes of text without control characters",
                                   PROTO_FS_OPTIONS_MAX);
        r = fsprep_try_md(layout, md_options, members, &opts, &err);
        if (r < 0) {
                fprintf(stderr, "%s\n", err ?: strerror(-r));
                return r == -EINVAL ? EXIT_FAILURE : EXIT_USAGE + 1;
        }
        return EXIT_SUCCESS;
}

static int run(int argc, char *argv[]) {
        static const struct option options[] = {
                { "target",      required_argument, NULL, 't' },
                { "workload",    required_argument, NULL, 'w' },
                { "block-size",  required_argument, NULL, 'b' },
                { "size",        required_argument, NULL, 's' },
                { "direct",      no_argument,       NULL, 'd' },
                { "buffered",    no_argument,       NULL, ARG_BUFFERED },
                { "sync",        required_argument, NULL, ARG_SYNC },
                { "runtime",     required_argument, NULL, 'r' },
                { "ramp",        required_argument, NULL, ARG_RAMP },
                { "queue-depth", required_argument, NULL, 'q' },
                { "jobs",        required_argument, NULL, 'j' },
                { "rwmix-read",  required_argument, NULL, ARG_RWMIX },
                { "pattern",     required_argument, NULL, ARG_PATTERN },
                { "stride",      required_argument, NULL, ARG_STRIDE },
                { "sample-ms",   required_argument, NULL, ARG_SAMPLE_MS },
                { "set",         required_argument, NULL, ARG_SET },
                { "ioengine",    required_argument, NULL, ARG_IOENGINE },
                { "json",        no_argument,       NULL, ARG_JSON },
                { "live",        no_argument,       NULL, ARG_LIVE },
                { "protocol-fd", required_argument, NULL, ARG_PROTOCOL_FD },
                { "help",        no_argument,       NULL, 'h' },
                { "version",     no_argument,       NULL, ARG_VERSION },
                { "try-mkfs",    required_argument, NULL, ARG_TRY_MKFS },
                { "layout",      required_argument, NULL, ARG_LAYOUT },
                { "mkfs-options", required_argument, NULL, ARG_MKFS_OPTIONS },
                { "members",     required_argument, NULL, ARG_MEMBERS },
                { "run-as",      required_argument, NULL, ARG_RUN_AS },
                { "try-md-options", required_argument, NULL, ARG_TRY_MD_OPTIONS },
                {}
        };
        const char *try_fs = NULL, *layout = NULL, *mkfs_options = NULL, *size_arg = NULL, *try_md = NULL;
        unsigned members = 0;
        bool spec_options = false;
        _cleanup_free_ char *err = NULL, *prefix = NULL;
        const char *ioengine = NULL;
        bool json = false, standalone = false;
        SampleLog log = {};
        int protocol_fd = -1, c, r;
        bool have_run_as = false;
        uid_t run_as = 0;
        JobSpec spec;
        TargetCheck tc;
        EngineResult res = {};

        spec_init(&spec);
        install_signals();

        while ((c = getopt_long(argc, argv, "t:w:b:s:dr:q:j:h", options, NULL)) >= 0) {
                const char *key = NULL, *value = optarg;
                char ms[32];
                uint64_t v;

                switch (c) {
                case 't': key = "target"; break;
                case 'w': key = "workload"; break;
                case 'b': key = "block_size"; break;
                case 's': key = "size"; size_arg = optarg; break;
                case 'd': key = "direct"; value = "true"; break;
                case ARG_BUFFERED: key = "direct"; value = "false"; break;
                case ARG_SYNC: key = "sync"; break;
                case 'q': key = "queue_depth"; break;
                case 'j': key = "jobs"; break;
                case ARG_RWMIX: key = "rwmix_read"; break;
                case ARG_PATTERN: key = "pattern"; break;
                case ARG_STRIDE: key = "stride"; break;
                case ARG_SAMPLE_MS: key = "sample_ms"; break;
                case 'r':
                case ARG_RAMP:
                        if (parse_duration_ms(optarg, &v) < 0)
                                return usage_error("'%s' is not a duration; use e.g. 10s, 500ms or 2m", optarg);
                        snprintf(ms, sizeof(ms), "%" PRIu64, v);
                        key = c == 'r' ? "runtime_ms" : "ramp_ms";
                        value = ms;
                        break;
                case ARG_SET:
                        standalone = true;
                        r = spec_set_assignment(&spec, optarg, &err);
                        if (r < 0)
                                return usage_error("%s", err ? err : "bad --set assignment");
                        continue;
                case ARG_IOENGINE:
                        if (!ioengine_find(optarg))
                                return usage_error("--ioengine: '%s' is not one of sync, io_uring, libaio, null", optarg);
                        ioengine = optarg;
                        continue;
                case ARG_JSON:
                        json = true;
                        continue;
                case ARG_TRY_MKFS:
                        try_fs = optarg;
                        continue;
                case ARG_TRY_MD_OPTIONS:
                        try_md = optarg;
                        continue;
                case ARG_LAYOUT:
                        layout = optarg;
                        continue;
                case ARG_MKFS_OPTIONS:
                        mkfs_options = optarg;
                        continue;
                case ARG_MEMBERS: {
                        char *end;
                        unsigned long n;
                        errno = 0;
                        n = strtoul(optarg, &end, 10);
                        if (errno != 0 || *end || n < 1 || n > PROTO_FS_MEMBERS_MAX)
                                return usage_error("--members: '%s' is not a number of devices from 1 to %u", optarg,
                                                   PROTO_FS_MEMBERS_MAX);
                        members = (unsigned) n;
                        continue;
                }
                case ARG_LIVE:
                        log.live = true;
                        continue;
                case ARG_RUN_AS: {
                        char *end;
                        unsigned long id;
                        errno = 0;
                        id = strtoul(optarg, &end, 10);
                        if (errno != 0 || *end || end == optarg || id >= (unsigned long) (uid_t) -1)
                                return usage_error("--run-as: '%s' is not a uid", optarg);
                        run_as = (uid_t) id;
                        have_run_as = true;
                        continue;
                }
                case ARG_PROTOCOL_FD: {
                        char *end;
                        long fd;
                        errno = 0;
                        fd = strtol(optarg, &end, 10);
                        if (errno != 0 || *end || fd < 0 || fd > INT32_MAX)
                                return usage_error("--protocol-fd: '%s' is not a file descriptor number", optarg);
                        protocol_fd = (int) fd;
                        continue;
                }
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case ARG_VERSION:
                        printf("benchd-worker %s\n", BENCHD_VERSION);
                        return EXIT_SUCCESS;
                default:
                        return EXIT_USAGE;
                }

                standalone = true;
                if (c != 's')
                        spec_options = true;
                r = spec_set_from_string(&spec, key, value, &err);
                if (r < 0)
                        return usage_error("%s", err ? err : "bad option value");
        }
        if (optind < argc)
                return usage_error("unexpected argument '%s'", argv[optind]);

        if (try_md) {
                if (try_fs || spec_options || protocol_fd >= 0 || have_run_as || mkfs_options || size_arg)
                        return usage_error("%s", "--try-md-options takes only --layout and --members");
                r = run_try_md(try_md, layout, members);
                spec_clear(&spec);
                return r;
        }
        if (try_fs) {
                if (spec_options || protocol_fd >= 0 || have_run_as)
                        return usage_error("%s", "--try-mkfs takes only --layout, --mkfs-options, --members and "
                                           "--size");
                r = run_try_mkfs(try_fs, layout, mkfs_options, members, size_arg);
                spec_clear(&spec);
                return r;
        }
        if (layout || mkfs_options || members)
                return usage_error("%s", "--layout, --mkfs-options and --members go with --try-mkfs");

        if (have_run_as && protocol_fd < 0)
                return usage_error("%s", "--run-as goes with --protocol-fd (run as another user yourself)");
        if (protocol_fd >= 0) {
                if (standalone)
                        return usage_error("%s", "--protocol-fd takes its spec from benchd, not from options");
                r = run_protocol(protocol_fd, run_as);
                spec_clear(&spec);
                return r;
        }
        if (!standalone) {
                help();
                return EXIT_USAGE;
        }

        r = spec_finalize(&spec, &err);
        if (r >= 0 && spec.workload < 0)
                return usage_error("%s", "standalone mode runs one workload, not a profile; give --workload");
        if (r < 0)
                return usage_error("%s", err ? err : "invalid job spec");

        r = spec_check_target(&spec, &tc, &err);
        if (r < 0) {
                log_error("%s", err ? err : strerror(-r));
                spec_clear(&spec);
                return EXIT_FAILURE;
        }

        if (asprintf(&prefix, ".benchd-s%d-0-", (int) getpid()) < 0)
                return EXIT_FAILURE;

        EngineOptions opts = { .file_prefix = prefix, .ioengine = ioengine };
        EngineSink sink = { .userdata = &log, .phase = log_phase, .sample = log_sample, .log = log_text };
        r = engine_run(&spec, &tc, &opts, &sink, &res, &err);
        if (r < 0) {
                log_error("%s", err ? err : strerror(-r));
                free(log.samples);
                spec_clear(&spec);
                return EXIT_FAILURE;
        }

        r = json ? output_json(stdout, &spec, &res, log.samples, log.n) : output_human(stdout, &spec, &res);
        fflush(stdout);
        engine_result_clear(&res);
        free(log.samples);
        spec_clear(&spec);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Kills (SIGKILL) and reaps every descendant that is still there: they are all our children now,
 * or become ours when their parent dies, so this repeats until a round finds none. */
static void reap_descendants(void) {
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + REAP_TIMEOUT_USEC;
        int n;

        while ((n = children_kill(NULL, 0, NULL)) > 0) {
                if (now_usec(CLOCK_MONOTONIC) >= deadline) {
                        log_error("%d process(es) we started did not die within %" PRIu64
                                " s of SIGKILL; leaving them to benchd", n, REAP_TIMEOUT_USEC / USEC_PER_SEC);
                        return;
                }
                nanosleep(&(struct timespec) { .tv_nsec = 5 * 1000 * 1000 }, NULL);
        }
        if (n < 0)
                log_error_errno(n, "cannot look for processes we started: %m");
}

int main(int argc, char *argv[]) {
        int r;

        log_set_program("benchd-worker");
        /* Before anything is forked, so no descendant can slip past. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                log_error_errno(-errno, "cannot become a child subreaper: %m");
        r = run(argc, argv);
        reap_descendants();
        return r;
}
