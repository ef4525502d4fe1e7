/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * history-fill: the filler of tests/bench/history. Writes a synthetic history the way benchd
 * does, through daemon/store (db_device_upsert, db_job_insert, db_run_begin, db_samples_insert,
 * db_histogram_insert, db_run_finish), or with --old-schema as benchd did before schema version 8
 * (the file made by migrations 1..5, the rows by the statements main's db.c prepared then), so the
 * two layouts can be put side by side. Then times the insert of one more run's samples, the way
 * the daemon's sample batches are written (one transaction), and prints one JSON object.
 *
 * The values are plausible rather than random: per run a workload with its block size and queue
 * depth, a rate that wanders by ±15 % from sample to sample, latencies that follow from rate and
 * queue depth, CPU shares in whole /proc/stat ticks of a machine with 4..64 CPUs, device
 * utilisation in whole ms of io_ticks, and sample intervals of 1 s plus the timer's jitter.
 *
 *   history-fill --db PATH [--runs 10000] [--samples 600] [--devices 20] [--page-size 4096]
 *                [--old-schema] [--insert-tries 11]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema-migrations.h"
#include "shared/histogram.h"
#include "shared/util.h"
#include "store/db.h"

static const char *const filesystems[] = { "ext4", "btrfs", "xfs" };

static const struct {
        const char *name;
        bool random;
        uint64_t block_size;
        unsigned queue_depth;
        int reads;      /* 1 read, 0 write, -1 both (70/30) */
} workloads[] = {
        { "read", false, 1 << 20, 1, 1 },
        { "write", false, 1 << 20, 1, 0 },
        { "rewrite", false, 1 << 20, 1, 0 },
        { "reread", false, 1 << 20, 1, 1 },
        { "randread", true, 4096, 32, 1 },
        { "randwrite", true, 4096, 32, 0 },
        { "randrw", true, 4096, 16, -1 },
        { "randread", true, 4096, 1, 1 },
};

static const char *const profiles[] = { NULL, "crystal", "dd", "iozone" };

/* xorshift64*: the same history on every machine. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void) {
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return rng_state * 0x2545f4914f6cdd1dULL;
}

static double rnd_uniform(double lo, double hi) {
        return lo + (hi - lo) * (double) (rnd() >> 11) / (double) (1ULL << 53);
}

static uint64_t rnd_below(uint64_t n) {
        return n ? rnd() % n : 0;
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

typedef struct Opts {
        const char *db;
        unsigned runs, samples, devices, page_size, insert_tries;
        bool old_schema;
} Opts;

typedef struct RunShape {
        unsigned w;             /* index into workloads */
        unsigned ncpu;
        double iops;
} RunShape;

static RunShape run_shape(void) {
        RunShape s = { .w = (unsigned) rnd_below(ELEMENTSOF(workloads)) };
        static const unsigned cpus[] = { 4, 8, 16, 32, 64 };

        s.ncpu = cpus[rnd_below(ELEMENTSOF(cpus))];
        if (workloads[s.w].random)
                s.iops = rnd_uniform(2000, 300000);
        else
                s.iops = rnd_uniform(100e6, 3000e6) / (double) workloads[s.w].block_size;
        return s;
}

static void make_samples(const RunShape *shape, ProtoSample *out, unsigned n, ProtoResult *sum) {
        uint64_t bs = workloads[shape->w].block_size, t_ns = 0, total_ticks;
        unsigned qd = workloads[shape->w].queue_depth;

        *sum = (ProtoResult) {};
        for (unsigned i = 0; i < n; i++) {
                uint64_t iv_ns = 1000000000ULL + 20000 + rnd_below(880000);
                uint64_t ios = (uint64_t) (shape->iops * rnd_uniform(0.85, 1.15)), ir, iw;
                double mean = qd * 1e9 / MAX(shape->iops, 1.0) * rnd_uniform(0.9, 1.1);
                uint64_t io_ticks = 900 + rnd_below(101), queue_ms = qd * (900 + rnd_below(101));
                ProtoSample *s = out + i;

                t_ns += iv_ns;
                switch (workloads[shape->w].reads) {
                case 1: ir = ios; iw = 0; break;
                case 0: ir = 0; iw = ios; break;
                default: ir = ios * 7 / 10; iw = ios - ir; break;
                }
                total_ticks = 100ULL * shape->ncpu * iv_ns / 1000000000ULL;
                *s = (ProtoSample) {
                        .t_ms = t_ns / 1000000,
                        .interval_us = iv_ns / 1000,
                        .bytes_read = ir * bs,
                        .bytes_written = iw * bs,
                        .ios_read = ir,
                        .ios_written = iw,
                        .lat_mean_ns = (uint64_t) mean,
                        .lat_p50_ns = histogram_bucket_upper(histogram_bucket_index((uint64_t) (mean * 0.9))),
                        .lat_p99_ns = histogram_bucket_upper(histogram_bucket_index((uint64_t) (mean * 3.1))),
                        .lat_max_ns = (uint64_t) (mean * rnd_uniform(5, 20)),
                        .iowait_pct = 100.0 * (double) rnd_below(total_ticks / 2) / (double) total_ticks,
                        .cpu_user_pct = 100.0 * (double) rnd_below(total_ticks / 20) / (double) total_ticks,
                        .cpu_sys_pct = 100.0 * (double) rnd_below(total_ticks / 4) / (double) total_ticks,
                        .dev_util_pct = MIN(100.0, (double) io_ticks * 1000.0 * 100.0 / (double) (iv_ns / 1000)),
                        .dev_queue = (double) queue_ms * 1000.0 / (double) (iv_ns / 1000),
                };
                sum->bytes_read += s->bytes_read;
                sum->bytes_written += s->bytes_written;
                sum->ios_read += ir;
                sum->ios_written += iw;
                sum->lat_mean_ns = s->lat_mean_ns;
                sum->lat_p50_ns = s->lat_p50_ns;
                sum->lat_p99_ns = s->lat_p99_ns;
                sum->lat_max_ns = MAX(sum->lat_max_ns, s->lat_max_ns);
                sum->iowait_pct = s->iowait_pct;
                sum->cpu_user_pct = s->cpu_user_pct;
                sum->cpu_sys_pct = s->cpu_sys_pct;
                sum->dev_util_pct = s->dev_util_pct;
        }
        sum->duration_usec = t_ns / 1000;
        sum->lat_min_ns = sum->lat_mean_ns / 4;
        sum->lat_stddev_ns = sum->lat_mean_ns / 3;
        sum->lat_p90_ns = sum->lat_p99_ns * 2 / 3;
        sum->lat_p95_ns = sum->lat_p99_ns * 5 / 6;
        sum->lat_p999_ns = sum->lat_p99_ns * 2;
        sum->lat_p9999_ns = sum->lat_p99_ns * 3;
}

/* About 100 non-empty buckets around the run's mean latency. */
static size_t make_histogram(const ProtoSample *s, ProtoHistogramEntry *out, size_t max) {
        uint32_t first = histogram_bucket_index(MAX(s->lat_mean_ns / 3, 1));
        size_t n = 0;

        for (uint32_t i = first; i < HISTOGRAM_BUCKETS && n < max; i += 1 + (uint32_t) rnd_below(3))
                out[n++] = (ProtoHistogramEntry) { .index = i, .count = 1 + rnd_below(100000) };
        return n;
}

/* ---- the layout before schema version 8: main's statements, verbatim in effect ---- */

typedef struct Old {
        sqlite3 *s;
        sqlite3_stmt *job, *run, *sample, *hist, *finish, *device;
} Old;

static void die_sqlite(sqlite3 *s, const char *what) {
        fprintf(stderr, "history-fill: %s: %s\n", what, sqlite3_errmsg(s));
        exit(EXIT_FAILURE);
}

static void old_exec(Old *o, const char *sql) {
        if (sqlite3_exec(o->s, sql, NULL, NULL, NULL) != SQLITE_OK)
                die_sqlite(o->s, sql);
}

static sqlite3_stmt *old_prepare(Old *o, const char *sql) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v3(o->s, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
                die_sqlite(o->s, sql);
        return st;
}

static void old_open(Old *o, const char *path) {
        if (sqlite3_open(path, &o->s) != SQLITE_OK)
                die_sqlite(o->s, path);
        old_exec(o, "PRAGMA journal_mode = WAL");
        old_exec(o, "PRAGMA synchronous = NORMAL");
        old_exec(o, "PRAGMA foreign_keys = ON");
        old_exec(o, "BEGIN");
        for (int v = 0; v < 7; v++)
                old_exec(o, schema_migrations[v]);
        old_exec(o, "PRAGMA user_version = 7");
        old_exec(o, "COMMIT");
        o->device = old_prepare(o, "INSERT INTO devices (identity, model, size, rotational, first_seen_usec, "
                                   "last_seen_usec, last_name) VALUES (?, 'BENCH', 1000204886016, 0, ?, ?, ?)");
        o->job = old_prepare(o, "INSERT INTO jobs (state, profile, workload, spec, target, label, submitted_by, "
                                "submitted_usec) VALUES ('succeeded', ?, ?, '{}', '/srv/bench', ?, 0, ?)");
        o->run = old_prepare(o, "INSERT INTO runs (job_id, step, workload, block_size, size, runtime_ms, ramp_ms, "
                                "queue_depth, jobs, direct, sync, rwmix_read, pattern, device_id, device_name, "
                                "target, fs_type, mount_options, environment, label, tags, started_usec, status) "
                                "VALUES (?, ?, ?, ?, 1073741824, 600000, 5000, ?, 1, 1, 'none', 70, 'random', ?, ?, "
                                "'/srv/bench', ?, 'rw,relatime', '{\"kernel\":\"6.1.0\",\"host\":\"bench\"}', ?, ?, "
                                "?, 'running')");
        o->sample = old_prepare(o, "INSERT INTO samples (run_id, t_ms, interval_us, bytes_read, bytes_written, "
                                   "ios_read, ios_written, ops, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns, "
                                   "iowait_pct, cpu_user_pct, cpu_sys_pct, dev_util_pct, dev_queue) "
                                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        o->hist = old_prepare(o, "INSERT INTO run_histograms (run_id, upper_ns, count) VALUES (?, ?, ?)");
        o->finish = old_prepare(o, "UPDATE runs SET status = 'succeeded', duration_usec = ?, bytes_read = ?, "
                                   "bytes_written = ?, ios_read = ?, ios_written = ?, ops = 0, lat_min_ns = ?, "
                                   "lat_mean_ns = ?, lat_stddev_ns = ?, lat_p50_ns = ?, lat_p90_ns = ?, "
                                   "lat_p95_ns = ?, lat_p99_ns = ?, lat_p999_ns = ?, lat_p9999_ns = ?, "
                                   "lat_max_ns = ?, iowait_pct = ?, cpu_user_pct = ?, cpu_sys_pct = ?, "
                                   "dev_util_pct = ? WHERE id = ?");
}

static void old_step(Old *o, sqlite3_stmt *st) {
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW)
                die_sqlite(o->s, sqlite3_sql(st));
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
}

static void old_samples(Old *o, uint64_t run, const ProtoSample *s, unsigned n) {
        old_exec(o, "BEGIN IMMEDIATE");
        for (unsigned i = 0; i < n; i++) {
                sqlite3_stmt *st = o->sample;
                int k = 1;
                sqlite3_bind_int64(st, k++, (int64_t) run);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].t_ms);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].interval_us);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].bytes_read);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].bytes_written);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].ios_read);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].ios_written);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].ops);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].lat_mean_ns);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].lat_p50_ns);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].lat_p99_ns);
                sqlite3_bind_int64(st, k++, (int64_t) s[i].lat_max_ns);
                sqlite3_bind_double(st, k++, s[i].iowait_pct);
                sqlite3_bind_double(st, k++, s[i].cpu_user_pct);
                sqlite3_bind_double(st, k++, s[i].cpu_sys_pct);
                sqlite3_bind_double(st, k++, s[i].dev_util_pct);
                sqlite3_bind_double(st, k++, s[i].dev_queue);
                old_step(o, st);
        }
        old_exec(o, "COMMIT");
}

/* ---- both ---- */

static void die(int r, Db *db, const char *what) {
        fprintf(stderr, "history-fill: %s: %s (%s)\n", what, strerror(-r), db ? db_last_error(db) : "");
        exit(EXIT_FAILURE);
}

typedef struct Filler {
        const Opts *o;
        Db *db;
        Old old;
        int64_t device_ids[64];
        uint64_t now;
} Filler;

static uint64_t add_job(Filler *f, const char *profile, const char *workload, const char *label) {
        uint64_t id;

        if (f->o->old_schema) {
                sqlite3_stmt *st = f->old.job;
                sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 2, workload, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, 3, label, -1, SQLITE_STATIC);
                sqlite3_bind_int64(st, 4, (int64_t) f->now);
                old_step(&f->old, st);
                return (uint64_t) sqlite3_last_insert_rowid(f->old.s);
        }
        int r = db_job_insert(f->db, &(DbJob) { .profile = profile, .workload = workload, .label = label,
                                                .spec_json = "{}", .target = "/srv/bench",
                                                .submitted_usec = f->now }, &id);
        if (r < 0)
                die(r, f->db, "db_job_insert");
        (void) db_job_set_state(f->db, id, "succeeded", f->now, f->now, NULL);
        return id;
}

/* One run with its samples, histogram and summary; returns its id. */
static uint64_t add_run(Filler *f, uint64_t job, uint32_t step, uint64_t started, ProtoSample *buf,
                        double *ret_insert_s) {
        RunShape shape = run_shape();
        unsigned dev = (unsigned) rnd_below(f->o->devices);
        const char *fs = filesystems[rnd_below(ELEMENTSOF(filesystems))];
        int tagged = rnd_below(4) == 0 ? 1 : rnd_below(10) == 0 ? 2 : 0;
        const char *tags = (const char *const[]) { NULL, "[\"nightly\"]", "[\"nightly\",\"raid10\"]" }[tagged];
        const char *tag_list = (const char *const[]) { "", "nightly", "nightly,raid10" }[tagged];
        const char *label = rnd_below(3) == 0 ? "baseline" : NULL;
        char name[16];
        ProtoHistogramEntry hist[160];
        ProtoResult sum;
        size_t n_hist;
        uint64_t id;
        double t0;
        int r;

        snprintf(name, sizeof(name), "sd%c", 'a' + (int) (dev % 26));
        make_samples(&shape, buf, f->o->samples, &sum);
        sum.started_usec = started;
        n_hist = make_histogram(buf, hist, ELEMENTSOF(hist));

        if (f->o->old_schema) {
                sqlite3_stmt *st = f->old.run;
                int k = 1;
                sqlite3_bind_int64(st, k++, (int64_t) job);
                sqlite3_bind_int64(st, k++, step);
                sqlite3_bind_text(st, k++, workloads[shape.w].name, -1, SQLITE_STATIC);
                sqlite3_bind_int64(st, k++, (int64_t) workloads[shape.w].block_size);
                sqlite3_bind_int64(st, k++, workloads[shape.w].queue_depth);
                sqlite3_bind_int64(st, k++, f->device_ids[dev]);
                sqlite3_bind_text(st, k++, name, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, k++, fs, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, k++, label, -1, SQLITE_STATIC);
                sqlite3_bind_text(st, k++, tags, -1, SQLITE_STATIC);
                sqlite3_bind_int64(st, k++, (int64_t) started);
                old_step(&f->old, st);
                id = (uint64_t) sqlite3_last_insert_rowid(f->old.s);
                t0 = now_s();
                old_samples(&f->old, id, buf, f->o->samples);
                if (ret_insert_s)
                        *ret_insert_s = now_s() - t0;
                old_exec(&f->old, "BEGIN");
                for (size_t i = 0; i < n_hist; i++) {
                        sqlite3_bind_int64(f->old.hist, 1, (int64_t) id);
                        sqlite3_bind_int64(f->old.hist, 2, (int64_t) histogram_bucket_upper(hist[i].index));
                        sqlite3_bind_int64(f->old.hist, 3, (int64_t) hist[i].count);
                        old_step(&f->old, f->old.hist);
                }
                old_exec(&f->old, "COMMIT");
                st = f->old.finish;
                k = 1;
                const uint64_t v[] = { sum.duration_usec, sum.bytes_read, sum.bytes_written, sum.ios_read,
                                       sum.ios_written, sum.lat_min_ns, sum.lat_mean_ns, sum.lat_stddev_ns,
                                       sum.lat_p50_ns, sum.lat_p90_ns, sum.lat_p95_ns, sum.lat_p99_ns,
                                       sum.lat_p999_ns, sum.lat_p9999_ns, sum.lat_max_ns };
                for (size_t i = 0; i < ELEMENTSOF(v); i++)
                        sqlite3_bind_int64(st, k++, (int64_t) v[i]);
                sqlite3_bind_double(st, k++, sum.iowait_pct);
                sqlite3_bind_double(st, k++, sum.cpu_user_pct);
                sqlite3_bind_double(st, k++, sum.cpu_sys_pct);
                sqlite3_bind_double(st, k++, sum.dev_util_pct);
                sqlite3_bind_int64(st, k++, (int64_t) id);
                old_step(&f->old, st);
                return id;
        }

        _cleanup_free_ char *text = NULL, *err = NULL;
        JobSpec spec;

        spec_init(&spec);
        if (asprintf(&text, "workload=%s\nblock_size=%" PRIu64 "\nsize=1G\nruntime_ms=600000\nramp_ms=5000\n"
                     "queue_depth=%u\njobs=1\ndirect=true\nsync=none\nrwmix_read=70\npattern=random\n"
                     "target=/srv/bench\nlabel=%s\ntags=%s\n", workloads[shape.w].name,
                     (uint64_t) workloads[shape.w].block_size, (unsigned) workloads[shape.w].queue_depth,
                     label ?: "", tag_list) < 0)
                die(-ENOMEM, f->db, "asprintf");
        for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                *nl = 0;
                if (spec_set_assignment(&spec, line, &err) < 0)
                        die(-EINVAL, f->db, err);
        }
        if (spec_finalize(&spec, &err) < 0)
                die(-EINVAL, f->db, err);
        DbRun run = {
                .job_id = job, .step = step, .spec = &spec, .device_id = f->device_ids[dev],
                .device_name = name, .fs_type = fs, .mount_options = "rw,relatime",
                .environment = "{\"kernel\":\"6.1.0\",\"host\":\"bench\"}",
                .started_usec = started,
        };
        r = db_run_begin(f->db, &run, &id);
        spec_clear(&spec);
        if (r < 0)
                die(r, f->db, "db_run_begin");
        t0 = now_s();
        r = db_samples_insert(f->db, id, buf, f->o->samples);
        if (ret_insert_s)
                *ret_insert_s = now_s() - t0;
        if (r < 0)
                die(r, f->db, "db_samples_insert");
        r = db_histogram_insert(f->db, id, hist, n_hist);
        if (r < 0)
                die(r, f->db, "db_histogram_insert");
        r = db_run_finish(f->db, id, "succeeded", NULL, &sum);
        if (r < 0)
                die(r, f->db, "db_run_finish");
        return id;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "db", required_argument, NULL, 'd' },
                { "runs", required_argument, NULL, 'r' },
                { "samples", required_argument, NULL, 's' },
                { "devices", required_argument, NULL, 'v' },
                { "page-size", required_argument, NULL, 'p' },
                { "insert-tries", required_argument, NULL, 'i' },
                { "old-schema", no_argument, NULL, 'o' },
                {}
        };
        Opts o = { .runs = 10000, .samples = 600, .devices = 20, .page_size = 0, .insert_tries = 11 };
        Filler f = { .o = &o };
        _cleanup_free_ ProtoSample *buf = NULL;
        _cleanup_free_ double *ins = NULL, *regress = NULL;
        uint64_t job = 0, first_started, span;
        double t0, fill_s;
        int c, r;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'd': o.db = optarg; break;
                case 'r': o.runs = (unsigned) strtoul(optarg, NULL, 10); break;
                case 's': o.samples = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'v': o.devices = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'p': o.page_size = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'i': o.insert_tries = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'o': o.old_schema = true; break;
                default: return EXIT_FAILURE;
                }
        if (!o.db || o.runs == 0 || o.samples == 0 || o.devices == 0 || o.devices > ELEMENTSOF(f.device_ids) ||
            o.insert_tries == 0) {
                fprintf(stderr, "usage: history-fill --db PATH [--runs N] [--samples N] [--devices 1..64] "
                                "[--page-size BYTES] [--insert-tries N] [--old-schema]\n");
                return EXIT_FAILURE;
        }
        buf = calloc(o.samples, sizeof(ProtoSample));
        ins = calloc(o.insert_tries, sizeof(double));
        regress = calloc(o.insert_tries, sizeof(double));
        if (!buf || !ins || !regress)
                return EXIT_FAILURE;

        if (o.page_size > 0) {
                /* As db_open() would do it for a new file, with this size instead of its own. */
                sqlite3 *s;
                char sql[64];
                if (sqlite3_open(o.db, &s) != SQLITE_OK)
                        die_sqlite(s, o.db);
                /* WAL writes the header, so db_open() finds a file that has a page size already. */
                snprintf(sql, sizeof(sql), "PRAGMA page_size = %u", o.page_size);
                if (sqlite3_exec(s, sql, NULL, NULL, NULL) != SQLITE_OK ||
                    (!o.old_schema && sqlite3_exec(s, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL, NULL) != SQLITE_OK) ||
                    sqlite3_exec(s, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK)
                        die_sqlite(s, sql);
                sqlite3_close(s);
        }
        f.now = (uint64_t) time(NULL) * USEC_PER_SEC;
        if (o.old_schema)
                old_open(&f.old, o.db);
        else {
                r = db_open(o.db, &f.db);
                if (r < 0)
                        die(r, NULL, o.db);
        }

        for (unsigned d = 0; d < o.devices; d++) {
                char identity[64], name[16];
                snprintf(identity, sizeof(identity), "wwn:0x5000c500a1b2%04x", d);
                snprintf(name, sizeof(name), "sd%c", 'a' + (int) (d % 26));
                if (o.old_schema) {
                        sqlite3_bind_text(f.old.device, 1, identity, -1, SQLITE_TRANSIENT);
                        sqlite3_bind_int64(f.old.device, 2, (int64_t) f.now);
                        sqlite3_bind_int64(f.old.device, 3, (int64_t) f.now);
                        sqlite3_bind_text(f.old.device, 4, name, -1, SQLITE_TRANSIENT);
                        old_step(&f.old, f.old.device);
                        f.device_ids[d] = sqlite3_last_insert_rowid(f.old.s);
                } else {
                        r = db_device_upsert(f.db, &(DbDevice) { .identity = identity, .model = "BENCH", .name = name,
                                                                 .size = 1000204886016ULL, .rotational = 0,
                                                                 .seen_usec = f.now }, &f.device_ids[d]);
                        if (r < 0)
                                die(r, f.db, "db_device_upsert");
                }
        }

        /* A year of history, oldest first, four steps a job. */
        span = 365ULL * 86400ULL * USEC_PER_SEC;
        first_started = f.now - span;
        t0 = now_s();
        for (unsigned i = 0; i < o.runs; i++) {
                if (i % 4 == 0)
                        job = add_job(&f, profiles[rnd_below(ELEMENTSOF(profiles))], NULL, NULL);
                add_run(&f, job, i % 4, first_started + span * i / o.runs, buf, NULL);
        }
        fill_s = now_s() - t0;

        /* One more run's samples, as the daemon writes a batch: timed, several times; then the
         * regression check benchd makes once a run's end is stored, on each of them. */
        for (unsigned i = 0; i < o.insert_tries; i++) {
                uint64_t id;

                job = add_job(&f, NULL, "write", NULL);
                id = add_run(&f, job, 0, f.now - 1000, buf, &ins[i]);
                if (!o.old_schema) {
                        const RegressConfig rc = REGRESS_CONFIG_DEFAULT;
                        double t = now_s();

                        r = db_regress_check(f.db, id, &rc, f.now, NULL, NULL, NULL);
                        if (r < 0)
                                die(r, f.db, "db_regress_check");
                        regress[i] = now_s() - t;
                }
        }
        qsort(ins, o.insert_tries, sizeof(double), cmp_double);
        qsort(regress, o.insert_tries, sizeof(double), cmp_double);

        if (o.old_schema) {
                sqlite3_stmt *sts[] = { f.old.job, f.old.run, f.old.sample, f.old.hist, f.old.finish, f.old.device };
                for (size_t i = 0; i < ELEMENTSOF(sts); i++)
                        sqlite3_finalize(sts[i]);
                sqlite3_close(f.old.s); /* the last connection: checkpoints and removes the WAL */
        } else
                f.db = db_close(f.db);

        printf("{\"runs\": %u, \"samples\": %" PRIu64 ", \"fill_s\": %.2f, \"insert_ms\": %.3f, "
               "\"regress_ms\": %.3f}\n",
               o.runs + o.insert_tries, (uint64_t) (o.runs + o.insert_tries) * o.samples, fill_s,
               ins[o.insert_tries / 2] * 1000.0, o.old_schema ? -1.0 : regress[o.insert_tries / 2] * 1000.0);
        return EXIT_SUCCESS;
}
