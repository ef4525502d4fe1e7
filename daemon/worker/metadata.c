/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The metadata workload, as bonnie++ -n count:max:min:dirs does it: in our own directory
 * (<prefix>meta, spread over `dirs` subdirectories) create file_count files in name order, stat
 * them (and read their data) in directory order, delete them in name order; then create, stat and
 * delete them again in a random order. Every operation is timed; each of the six phases gets its
 * own ops/s and latency: a PhaseSummary, which protocol mode sends as a PHASE_RESULT frame (the
 * protocol's PHASE names the engine's stages, not the workload's), and a LOG line for humans.
 *
 * The directories are target.c's: made and opened before the workload starts, and held. Every
 * operation here is one name (%010u) relative to one of those descriptors, so nothing is looked up
 * through a path someone else could have changed: a directory renamed away keeps our files, a
 * symlink put in a subdirectory's place is never followed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "engine-core.h"
#include "metadata.h"
#include "pattern.h"
#include "shared/util.h"
#include "workload.h"

typedef enum MetaOp {
        META_CREATE,
        META_STAT,
        META_DELETE,
} MetaOp;

typedef struct MetaPhase {
        const char *name;
        MetaOp op;
        bool random;
} MetaPhase;

static const MetaPhase meta_phases[] = {
        { "create-seq", META_CREATE, false },
        { "stat-seq", META_STAT, false },
        { "delete-seq", META_DELETE, false },
        { "create-rand", META_CREATE, true },
        { "stat-rand", META_STAT, true },
        { "delete-rand", META_DELETE, true },
};

typedef struct Meta {
        Stream *stream;
        const JobSpec *spec;
        int dirfd;              /* dirs == 1: the files' directory */
        const int *dir_fds;     /* dirs > 1: file i is in dir_fds[i % dirs] */
        void *buf;              /* file_size_max bytes of pattern */
        Histogram *h;
} Meta;

/* File i's name, and the held directory it is in. */
static int meta_name(const Meta *m, uint64_t i, char buf[static 16]) {
        snprintf(buf, 16, "%010" PRIu64, i);
        return m->spec->dirs > 1 ? m->dir_fds[i % m->spec->dirs] : m->dirfd;
}

/* The names meta_name() gives: ten digits. Anything else in our directories is not a file of the
 * workload's. */
static bool meta_name_ours(const char *name) {
        return strlen(name) == 10 && strspn(name, "0123456789") == 10;
}

static uint64_t meta_file_size(Meta *m) {
        const JobSpec *spec = m->spec;
        if (spec->file_size_max == 0)
                return 0;
        return spec->file_size_min + prng_below(&m->stream->rng, spec->file_size_max - spec->file_size_min + 1);
}

static int meta_create(Meta *m, int dirfd, const char *name, uint64_t *ret_bytes) {
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        uint64_t size = meta_file_size(m);
        int r = 0;

        if (fd < 0)
                return -errno;
        if (size > 0) {
                ssize_t n = write(fd, m->buf, size);
                if (n < 0)
                        r = -errno;
                else if ((uint64_t) n != size)
                        r = -EIO;
        }
        if (close(fd) < 0 && r == 0)
                r = -errno;
        *ret_bytes = size;
        return r;
}

/* stat, and read the data back as bonnie++ does when files have a size. */
static int meta_stat(Meta *m, int dirfd, const char *name, uint64_t *ret_bytes) {
        struct stat st;

        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        *ret_bytes = 0;
        if (st.st_size > 0) {
                int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                ssize_t n = read(fd, m->buf, MIN((uint64_t) st.st_size, m->spec->file_size_max));
                int r = n < 0 ? -errno : 0;
                close(fd);
                if (r < 0)
                        return r;
                *ret_bytes = (uint64_t) n;
        }
        return 0;
}

static int meta_one(Meta *m, const MetaPhase *p, int dirfd, const char *name) {
        Stream *s = m->stream;
        uint64_t bytes = 0, t = now_nsec(CLOCK_MONOTONIC);
        int r;

        switch (p->op) {
        case META_CREATE:
                r = meta_create(m, dirfd, name, &bytes);
                break;
        case META_STAT:
                r = meta_stat(m, dirfd, name, &bytes);
                break;
        case META_DELETE:
        default:
                r = unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
                break;
        }
        if (r < 0)
                return stream_fail(s, r, "%s of %s failed: %s", p->name, name, strerror(-r));

        uint64_t lat = now_nsec(CLOCK_MONOTONIC) - t;
        histogram_add(m->h, lat);
        stream_record(s, lat, p->op == META_CREATE, bytes, 1);
        return 0;
}

/* stat-seq walks the directories in readdir order, like `ls -l`. */
static int meta_stat_seq(Meta *m, const MetaPhase *p) {
        unsigned dirs = m->spec->dirs > 1 ? m->spec->dirs : 1;

        for (unsigned d = 0; d < dirs && !engine_should_stop(m->stream->engine); d++) {
                int held = m->spec->dirs > 1 ? m->dir_fds[d] : m->dirfd;
                /* A description of its own for readdir, of the directory we hold. */
                int fd = openat(held, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                if (fd < 0)
                        return stream_fail(m->stream, -errno, "cannot open the metadata directory: %m");
                DIR *dir = fdopendir(fd);
                if (!dir) {
                        close(fd);
                        return stream_fail(m->stream, -ENOMEM, "out of memory");
                }
                struct dirent *de;
                int r = 0;
                while ((de = readdir(dir)) && !engine_should_stop(m->stream->engine)) {
                        if (!meta_name_ours(de->d_name))
                                continue;
                        r = meta_one(m, p, held, de->d_name);
                        if (r < 0)
                                break;
                }
                closedir(dir);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int meta_phase(Meta *m, const MetaPhase *p) {
        Engine *e = m->stream->engine;
        uint64_t n = m->spec->file_count, t0 = now_nsec(CLOCK_MONOTONIC);
        OffsetGen order;
        int r = 0;

        histogram_init(m->h);
        engine_log(e, LOG_INFO, "phase %s", p->name);

        if (p->op == META_STAT && !p->random)
                r = meta_stat_seq(m, p);
        else {
                r = offset_gen_init(&order, p->random ? OFFSET_RANDOM : OFFSET_SEQUENTIAL, n, 1, 0,
                                    prng_next(&m->stream->rng));
                if (r < 0)
                        return stream_fail(m->stream, r, "file_count must be positive");
                for (uint64_t i = 0; i < n && !engine_should_stop(e); i++) {
                        char name[16];
                        int dirfd = meta_name(m, offset_gen_next(&order), name);
                        r = meta_one(m, p, dirfd, name);
                        if (r < 0)
                                break;
                }
        }
        if (r < 0)
                return r;

        PhaseSummary *ps = realloc(e->phases, (e->n_phases + 1) * sizeof(PhaseSummary));
        if (!ps)
                return stream_fail(m->stream, -ENOMEM, "out of memory");
        e->phases = ps;
        ps = &e->phases[e->n_phases++];
        /* Percentiles are clamped to [min, max] by the histogram; the mean is clamped here, so the
         * figures always satisfy PHASE_RESULT's ordering rules. */
        uint64_t min = m->h->count ? m->h->min : 0, max = m->h->count ? m->h->max : 0;
        uint64_t mean = (uint64_t) histogram_mean(m->h);
        *ps = (PhaseSummary) {
                .ops = m->h->count,
                .duration_usec = (now_nsec(CLOCK_MONOTONIC) - t0) / NSEC_PER_USEC,
                .lat_min_ns = min,
                .lat_mean_ns = MAX(min, MIN(mean, max)),
                .lat_p50_ns = histogram_percentile(m->h, 50),
                .lat_p99_ns = histogram_percentile(m->h, 99),
                .lat_max_ns = max,
        };
        snprintf(ps->name, sizeof(ps->name), "%s", p->name);
        engine_log(e, LOG_INFO, "phase %s: %" PRIu64 " ops in %" PRIu64 " us, mean latency %" PRIu64 " ns",
                   p->name, ps->ops, ps->duration_usec, ps->lat_mean_ns);
        /* A phase cut short by a signal or an error is no result; one cut by runtime_ms is. */
        if (!engine_aborted(e))
                (void) engine_phase_result(e, ps);
        return 0;
}

int metadata_run(Stream *s) {
        Engine *e = s->engine;
        const JobSpec *spec = e->spec;
        _cleanup_free_ Histogram *h = malloc(sizeof(Histogram));
        _cleanup_free_ void *buf = NULL;

        if (!h || posix_memalign(&buf, 4096, MAX(spec->file_size_max, (uint64_t) 8)) != 0)
                return stream_fail(s, -ENOMEM, "out of memory");
        pattern_fill(buf, MAX(spec->file_size_max, (uint64_t) 8) / 8 * 8, spec->pattern, spec->compress_pct, &s->rng);
        if (e->meta_fd < 0 || (spec->dirs > 1 && e->n_meta_dir_fds != spec->dirs))
                return stream_fail(s, -EINVAL, "metadata needs a directory target");

        Meta m = { .stream = s, .spec = spec, .dirfd = e->meta_fd, .dir_fds = e->meta_dir_fds, .buf = buf, .h = h };
        for (size_t i = 0; i < ELEMENTSOF(meta_phases) && !engine_should_stop(e); i++)
                if (meta_phase(&m, &meta_phases[i]) < 0)
                        break;
        return stream_error(s);
}
