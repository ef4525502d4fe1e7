/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The metadata workload, as bonnie++ 2.00's -n count:max:min:dirs does it, in our own directory
 * (<prefix>meta, its files spread over `dirs` subdirectories, filled one after another):
 *
 *   create-seq   files 0, 1, ... named by their number in hex and 0-12 random letters after it,
 *                so name order is creation order; then syncfs(), inside the phase's time
 *   stat-seq     each directory read (readdir) and every entry stat()ed, its data read back
 *   delete-seq   each directory read and every entry unlinked; then syncfs()
 *   create-rand  files 0, 1, ... again, named by 0-12 random letters and then the hex number, so
 *                name order is unrelated to creation order; then syncfs()
 *   stat-rand    the files by name in a random order, each stat()ed and its data read back
 *   delete-rand  the files by name in another random order, each unlinked; then syncfs()
 *
 * bonnie++ ends its create and delete tests with sync() inside their time; benchd flushes the
 * target's filesystem alone (syncfs). Each operation is timed (the sequential stat and delete
 * phases' with the readdir() that found the entry, as bonnie++'s are); the flush is in the
 * phase's duration, not in an operation's latency. Each phase gets its own ops/s and latency: a
 * PhaseSummary, which protocol mode sends as a PHASE_RESULT frame (the protocol's PHASE names the
 * engine's stages, not the workload's), and a LOG line for humans. Names are computed from the
 * phase's seed and the file's number (meta_file_name(), workload.c), outside the timed operation.
 *
 * The directories are target.c's: made and opened before the workload starts, and held through
 * all six phases (bonnie++ removes its directories in the delete phases and makes new ones for
 * create-rand). Every operation here is one name relative to one of those descriptors, so nothing
 * is looked up through a path someone else could have changed: a directory renamed away keeps our
 * files, a symlink put in a subdirectory's place is never followed.
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
        const int *dir_fds;     /* dirs > 1: file i is in dir_fds[meta_file_dir(i)] */
        void *buf;              /* file_size_max bytes of pattern */
        Histogram *h;
        uint64_t name_seed;     /* the last create phase's names: meta_file_name(name_seed, i, ...) */
        bool random_names;
        uint64_t created;       /* files 0 .. created-1 of the last create phase exist */
        uint64_t found;         /* a readdir phase's entries */
} Meta;

static int meta_dir_fd(const Meta *m, unsigned d) {
        return m->spec->dirs > 1 ? m->dir_fds[d] : m->dirfd;
}

/* File i's name, and the held directory it is in. */
static int meta_name(const Meta *m, uint64_t i, char buf[static META_NAME_MAX + 1]) {
        meta_file_name(m->name_seed, i, m->random_names, buf);
        return meta_dir_fd(m, meta_file_dir(i, m->spec->file_count, MAX(m->spec->dirs, 1u)));
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

/* One operation on name in dirfd, timed from t (CLOCK_MONOTONIC ns: just before it, or before the
 * readdir() that found the name). */
static int meta_one(Meta *m, const MetaPhase *p, int dirfd, const char *name, uint64_t t) {
        Stream *s = m->stream;
        uint64_t bytes = 0;
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

/* The sequential stat and delete phases: each directory in turn read with readdir(), the operation
 * done on every entry as it is found (bonnie++ skips names starting with a dot; ours never do). */
static int meta_readdir_phase(Meta *m, const MetaPhase *p) {
        Engine *e = m->stream->engine;
        unsigned dirs = MAX(m->spec->dirs, 1u);

        m->found = 0;
        for (unsigned d = 0; d < dirs && !engine_should_stop(e); d++) {
                int held = meta_dir_fd(m, d);
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
                uint64_t t = now_nsec(CLOCK_MONOTONIC);
                int r = 0;
                while (!engine_should_stop(e) && (de = readdir(dir))) {
                        if (de->d_name[0] == '.')
                                continue;
                        if (!meta_file_name_valid(de->d_name)) {
                                r = stream_fail(m->stream, -EEXIST, "%s: the metadata directory holds '%s', which the "
                                                "workload did not create", p->name, de->d_name);
                                break;
                        }
                        r = meta_one(m, p, held, de->d_name, t);
                        if (r < 0)
                                break;
                        m->found++;
                        t = now_nsec(CLOCK_MONOTONIC);
                }
                closedir(dir);
                if (r < 0)
                        return r;
        }
        if (!engine_should_stop(e) && m->found != m->created)
                return stream_fail(m->stream, -EIO, "%s found %" PRIu64 " files in the metadata directories, "
                                   "where %" PRIu64 " were created", p->name, m->found, m->created);
        return 0;
}

/* Flushes the target's filesystem, as bonnie++'s sync() at the end of its create and delete tests
 * does (sync() would flush every filesystem of the machine). */
static int meta_sync(Meta *m, const MetaPhase *p) {
        if (syncfs(m->dirfd) < 0)
                return stream_fail(m->stream, -errno, "%s: syncfs failed: %m", p->name);
        return 0;
}

static int meta_phase(Meta *m, const MetaPhase *p) {
        Engine *e = m->stream->engine;
        uint64_t n = m->spec->file_count, t0;
        OffsetGen order;
        int r = 0;

        histogram_init(m->h);
        engine_log(e, LOG_INFO, "phase %s", p->name);

        if (p->op == META_CREATE) {
                /* New names: bonnie++ makes them before it starts its clock. */
                m->name_seed = prng_next(&m->stream->rng);
                m->random_names = p->random;
                m->created = 0;
        }
        if (p->random && p->op != META_CREATE && m->created > 0) {
                r = offset_gen_init(&order, OFFSET_RANDOM, m->created, 1, 0, prng_next(&m->stream->rng));
                if (r < 0)
                        return stream_fail(m->stream, r, "cannot order %" PRIu64 " files", m->created);
        }

        t0 = now_nsec(CLOCK_MONOTONIC);
        if (!p->random && p->op != META_CREATE)
                r = meta_readdir_phase(m, p);
        else {
                /* Creates go in number order (so in name order for create-seq); stat-rand and
                 * delete-rand take the files the create made in a random order. */
                uint64_t count = p->op == META_CREATE ? n : m->created;

                for (uint64_t k = 0; k < count && !engine_should_stop(e); k++) {
                        char name[META_NAME_MAX + 1];
                        uint64_t i = p->op == META_CREATE ? k : offset_gen_next(&order);
                        int dirfd = meta_name(m, i, name);

                        r = meta_one(m, p, dirfd, name, now_nsec(CLOCK_MONOTONIC));
                        if (r < 0)
                                break;
                        if (p->op == META_CREATE)
                                m->created++;
                }
        }
        if (r >= 0 && p->op != META_STAT && !engine_should_stop(e))
                r = meta_sync(m, p);
        uint64_t t1 = now_nsec(CLOCK_MONOTONIC);
        if (r < 0)
                return r;
        if (p->op == META_DELETE)
                m->created = 0;

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
                .duration_usec = (t1 - t0) / NSEC_PER_USEC,
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
