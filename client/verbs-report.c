/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `benchctl report`: one self-contained HTML file with charts of what the selection holds (runs,
 * a job, groups of runs compared --by a column, or the history the filters select). It adds
 * pictures, not data: the page embeds, under one key each, exactly what the --json verbs print
 * for the same selection, and says which command that is ("sources"):
 *   runs     show RUN --json, one per run (a job's too, when it has at most REPORT_RUNS_MAX)
 *   view     show --job ID --json (iozone, bonnie, crystal, ping, dd, or the per-step table; a
 *            filesystem matrix job: each entry's, and the entries compared)
 *   compare  compare --by COLUMN --json [filters]
 *   results  results --json [filters]
 * so a test, or a reader, can check every figure against the verb. The page's own script
 * (client/report/report.js, embedded at build time) draws the charts from that data with the
 * system's Chart.js (Debian's libjs-chart.js), inlined; report-html.c writes the page.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchctl.h"
#include "bus.h"
#include "config.h"
#include "format.h"
#include "job-runs.h"
#include "record.h"
#include "report-assets.h"
#include "report-html.h"
#include "model.h"
#include "verbs-results.h"
#include "verbs-views.h"
#include "text.h"

/* A job's runs get a section each (samples, histogram, provenance) up to this many; an iozone
 * job's 104 are its matrix, not 104 sections. */
#define REPORT_RUNS_MAX 12
/* The chart library must be at least this big to be the real thing, and at most this. */
#define CHART_JS_MAX (16u << 20)

/* The chart library: $BENCHCTL_CHART_JS, else the system's copy. Prints why not and returns an
 * exit code on failure. */
static int read_chart_js(char **ret, const char **ret_path) {
        const char *path = getenv("BENCHCTL_CHART_JS");
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t n;

        if (!path || !*path)
                path = BENCHD_CHART_JS;
        f = fopen(path, "re");
        if (!f || fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
                text_fprintf(stderr, "benchctl: report: cannot read the chart library %s: %s; install Debian's package "
                             "libjs-chart.js (apt-get install libjs-chart.js), or set BENCHCTL_CHART_JS to a Chart.js 3 "
                             "UMD build (chart.min.js)\n", path, !f ? strerror(errno) : "not a regular file");
                return BENCHCTL_EXIT_FAILURE;
        }
        if (st.st_size <= 0 || (uint64_t) st.st_size > CHART_JS_MAX) {
                text_fprintf(stderr, "benchctl: report: %s has %jd bytes, not a Chart.js build (libjs-chart.js has about "
                             "200 KiB in chart.min.js); reinstall libjs-chart.js\n", path, (intmax_t) st.st_size);
                return BENCHCTL_EXIT_FAILURE;
        }
        buf = malloc((size_t) st.st_size + 1);
        if (!buf)
                return BENCHCTL_EXIT_FAILURE;
        n = fread(buf, 1, (size_t) st.st_size, f);
        buf[n] = '\0';
        if (n != (size_t) st.st_size || strlen(buf) != n || !report_script_inlinable(buf)) {
                text_fprintf(stderr, "benchctl: report: %s cannot be inlined in a page (short read, NUL bytes or "
                             "\"</script\" in it); use libjs-chart.js's chart.min.js\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        *ret = TAKE_PTR(buf);
        *ret_path = path;
        return 0;
}

/* " --device 'sdb' --since @1764480000": the filters of the command line, as options that select
 * the same runs later (a relative --since as the time it meant). */
static void filter_options(const BenchctlOptions *opts, FILE *f) {
        const struct {
                const char *opt;
                const char *value;
        } s[] = {
                { "--device", opts->device },
                { "--workload", opts->workload },
                { "--profile", opts->profile },
                { "--fs-type", opts->fs_type },
                { "--label", opts->label },
                { "--tag", opts->tags ? opts->tags[0] : NULL },
                { "--status", opts->status },
        };

        for (size_t i = 0; i < ELEMENTSOF(s); i++) {
                if (!s[i].value)
                        continue;
                fprintf(f, " %s '", s[i].opt);
                for (const char *c = s[i].value; *c; c++)
                        if (*c == '\'')
                                fputs("'\\''", f);
                        else
                                fputc(*c, f);
                fputc('\'', f);
        }
        if (opts->job > 0)
                fprintf(f, " --job %" PRIu64, opts->job);
        if (opts->since_usec > 0)
                fprintf(f, " --since @%" PRIu64, opts->since_usec / USEC_PER_SEC);
        if (opts->until_usec > 0)
                fprintf(f, " --until @%" PRIu64, (opts->until_usec + USEC_PER_SEC - 1) / USEC_PER_SEC);
        if (opts->limit > 0)
                fprintf(f, " --limit %" PRIu64, opts->limit);
}

/* "PREFIX [filters] --json" */
static json_object *source_string(const BenchctlOptions *opts, const char *prefix) {
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        json_object *o;

        if (!f)
                return NULL;
        fputs(prefix, f);
        filter_options(opts, f);
        fputs(" --json", f);
        if (fclose(f) != 0)
                return NULL;
        o = json_object_new_string(s);
        return o;
}

typedef struct Report {
        json_object *data;      /* the page's data */
        json_object *sources;   /* data.sources */
        char *title;
} Report;

static void report_clear(Report *r) {
        json_object_put(r->data);
        free(r->title);
        *r = (Report) {};
}

/* Each run's section: show RUN --json. */
static int add_runs(Report *rep, sd_bus *bus, const uint64_t *ids, size_t n) {
        json_object *runs = json_object_new_array(), *src = json_object_new_array();

        if (!runs || !src) {
                json_object_put(runs);
                json_object_put(src);
                return BENCHCTL_EXIT_FAILURE;
        }
        json_object_object_add(rep->data, "runs", runs);
        json_object_object_add(rep->sources, "runs", src);
        for (size_t i = 0; i < n; i++) {
                json_object *run = NULL;
                char cmd[64];
                int r;

                r = run_details(bus, ids[i], &run);
                if (r != 0)
                        return r;
                json_object_array_add(runs, run);
                snprintf(cmd, sizeof cmd, "benchctl show %" PRIu64 " --json", ids[i]);
                json_object_array_add(src, json_object_new_string(cmd));
        }
        return 0;
}

/* report --fleet UUID: the fleet run gathered into this history, its runs whole (show --fleet --json
 * with each run as show RUN --json has it): a chart per host and the sum over time. */
static int report_fleet(const BenchctlOptions *opts, Report *rep, sd_bus *bus) {
        json_object *fleet = NULL;
        char cmd[128];
        int r;

        r = fleet_history(bus, opts->fleet, true, &fleet);
        if (r != 0)
                return r;
        json_object_object_add(rep->data, "fleet", fleet);
        snprintf(cmd, sizeof cmd, "benchctl show --fleet %s --json", opts->fleet);
        json_object_object_add(rep->sources, "fleet", json_object_new_string(cmd));
        if (asprintf(&rep->title, "Fleet run %s", opts->fleet) < 0)
                rep->title = NULL;
        return 0;
}

/* "write on /mnt/t (ext4, loop3)"; without the workload "/mnt/t (ext4, loop3)". */
static char *run_title(json_object *run, bool workload) {
        const char *fs = rec_str(run, "fs_type"), *dev = run_device(run);
        char *s;

        if (asprintf(&s, "%s%s%s%s%s%s%s%s", workload ? rec_str(run, "workload") ?: "?" : "", workload ? " on " : "",
                     rec_str(run, "target") ?: "?",
                     fs || dev ? " (" : "", fs ?: "", fs && dev ? ", " : "", dev ?: "", fs || dev ? ")" : "") < 0)
                return NULL;
        return s;
}

static int report_runs(Report *rep, sd_bus *bus, const uint64_t *ids, size_t n) {
        json_object *runs = NULL;
        int r;

        r = add_runs(rep, bus, ids, n);
        if (r != 0)
                return r;
        json_object_object_get_ex(rep->data, "runs", &runs);
        if (n == 1) {
                _cleanup_free_ char *what = run_title(json_object_array_get_idx(runs, 0), true);
                if (asprintf(&rep->title, "Run %" PRIu64 ": %s", ids[0], what ?: "") < 0)
                        rep->title = NULL;
        } else if (asprintf(&rep->title, "%zu runs side by side", n) < 0)
                rep->title = NULL;
        return 0;
}

/* "benchctl show --job 12 --entry 'ext4' --json": the command that prints the view (its options
 * quoted as filter_options(opts) quotes them). */
static json_object *view_source(const BenchctlOptions *opts) {
        _cleanup_free_ char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        const struct {
                const char *opt;
                const char *value;
        } o[] = {
                { "--entry", opts->entry },
                { "--fs-type", opts->fs_type },
                { "--baseline", opts->baseline },
        };

        if (!f)
                return NULL;
        fprintf(f, "benchctl show --job %" PRIu64, opts->job);
        for (size_t i = 0; i < ELEMENTSOF(o); i++) {
                if (!o[i].value)
                        continue;
                fprintf(f, " %s '", o[i].opt);
                for (const char *c = o[i].value; *c; c++)
                        if (*c == '\'')
                                fputs("'\\''", f);
                        else
                                fputc(*c, f);
                fputc('\'', f);
        }
        if (opts->confidence > 0)
                fprintf(f, " --confidence %.6g", opts->confidence);
        fputs(" --json", f);
        if (fclose(f) != 0)
                return NULL;
        return json_object_new_string(s);
}

static int report_job(const BenchctlOptions *opts, Report *rep) {
        _cleanup_(job_runs_clear) JobRuns j = {};
        _cleanup_free_ uint64_t *ids = NULL;
        json_object *o = NULL;
        size_t n_ok = 0;
        int r;

        r = job_runs_load_selected(opts, opts->job, "report", &j);
        if (r != 0)
                return r;
        json_object_object_add(rep->data, "job", json_object_new_uint64(opts->job));
        json_object_object_add(rep->data, "profile", j.profile ? json_object_new_string(j.profile) : NULL);
        r = job_view_json(&j, &o);
        if (r != 0)
                return r;
        json_object_object_add(rep->data, "view", o);
        json_object_object_add(rep->sources, "view", view_source(opts));

        /* The runs' own sections, for a job of a few (of the chosen entries). */
        ids = calloc(MAX(j.n_ok, (size_t) 1), sizeof(uint64_t));
        if (!ids)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t i = 0; i < j.n_ok; i++) {
                uint64_t e;

                if (j.n_entries > 0 && rec_u64(j.ok[i], "matrix_entry", &e)) {
                        bool chosen = false;

                        for (size_t k = 0; k < j.n_entries; k++)
                                chosen = chosen || (j.entries[k].index == e && j.entries[k].selected);
                        if (!chosen)
                                continue;
                }
                ids[n_ok++] = run_id(j.ok[i]);
        }
        if (n_ok <= REPORT_RUNS_MAX) {
                r = add_runs(rep, j.bus, ids, n_ok);
                if (r != 0)
                        return r;
        } else
                json_object_object_add(rep->data, "runs_left_out", json_object_new_uint64(n_ok));

        if (j.n_entries > 0) {
                /* "Job 12 (filesystem matrix, dd profile): ext4 on loop0, btrfs on loop0" */
                _cleanup_free_ char *places = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&places, &len);

                if (!f)
                        return BENCHCTL_EXIT_FAILURE;
                for (size_t k = 0, shown = 0; k < j.n_entries; k++)
                        if (j.entries[k].selected)
                                fprintf(f, "%s%s", shown++ > 0 ? ", " : "", j.entries[k].place);
                if (fclose(f) != 0)
                        return BENCHCTL_EXIT_FAILURE;
                if (asprintf(&rep->title, "Job %" PRIu64 " (filesystem matrix%s%s%s): %s", opts->job,
                             j.profile ? ", " : "", j.profile ?: "", j.profile ? " profile" : "", places) < 0)
                        rep->title = NULL;
        } else {
                json_object *first = j.n_ok > 0 ? j.ok[0] : json_object_array_get_idx(j.runs, 0);
                _cleanup_free_ char *what = run_title(first, !j.profile);
                const char *kind = j.profile;

                if (asprintf(&rep->title, "Job %" PRIu64 "%s%s%s%s%s", opts->job, kind ? " (" : "", kind ?: "",
                             kind ? ")" : "", kind ? " on " : ": ", what ?: "") < 0)
                        rep->title = NULL;
        }
        return 0;
}

static int report_compare(const BenchctlOptions *opts, Report *rep, sd_bus *bus) {
        json_object *o = NULL;
        int r;

        r = compare_groups_json(opts, bus, &o);
        if (r != 0)
                return r;
        json_object_object_add(rep->data, "compare", o);
        json_object_object_add(rep->data, "by", json_object_new_string(opts->by));
        {
                _cleanup_free_ char *prefix = NULL;
                char level[32] = "";

                /* The level compare_groups_json(opts) asked for too, so the command gives these data. */
                if (opts->confidence > 0)
                        snprintf(level, sizeof(level), " --confidence %.6g", opts->confidence);
                if (asprintf(&prefix, "benchctl compare --by %s%s", opts->by, level) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                json_object_object_add(rep->sources, "compare", source_string(opts, prefix));
        }
        if (asprintf(&rep->title, "Runs compared by %s", opts->by) < 0)
                rep->title = NULL;
        return 0;
}

/* The regressions of the selection, where the daemon has ListRegressions; NULL where not (yet). */
static json_object *regressions(sd_bus *bus, json_object *filter) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        json_object *o = NULL;

        if (bus_new_manager_call(bus, "ListRegressions", &m) < 0 || bus_append_filter(m, filter) < 0 ||
            sd_bus_call(bus, m, 0, NULL, &reply) < 0 || bus_message_read_json(reply, &o) < 0)
                return NULL;
        return o;
}

static int report_history(const BenchctlOptions *opts, Report *rep, sd_bus *bus) {
        _cleanup_json_ json_object *filter = NULL;
        json_object *runs = NULL, *reg;
        _cleanup_free_ char *sel = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        if (run_filter_from_args(opts, &filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        r = query_runs(bus, filter, &runs);
        if (r != 0)
                return r;
        json_object_object_add(rep->data, "results", runs);
        json_object_object_add(rep->sources, "results", source_string(opts, "benchctl results"));
        /* A hook for the regressions: marked on the figures when the daemon lists them. */
        reg = regressions(bus, filter);
        json_object_object_add(rep->data, "regressions", reg);
        if (reg)
                json_object_object_add(rep->sources, "regressions", source_string(opts, "benchctl regressions"));

        /* "History: write on sdb since 2026-11-01 12:00:00 (12 runs)" */
        f = open_memstream(&sel, &len);
        if (!f)
                return BENCHCTL_EXIT_FAILURE;
        fprintf(f, "%s%s%s%s%s%s%s", opts->workload ?: "runs", opts->profile ? " of profile " : "", opts->profile ?: "",
                opts->device ? " on " : "", opts->device ?: "", opts->fs_type ? " on " : "", opts->fs_type ?: "");
        if (opts->label)
                fprintf(f, " labelled %s", opts->label);
        if (opts->tags && opts->tags[0])
                fprintf(f, " tagged %s", opts->tags[0]);
        if (opts->job > 0)
                fprintf(f, " of job %" PRIu64, opts->job);
        if (opts->since_usec > 0) {
                char a[FORMAT_BUF_MAX];
                fprintf(f, " since %s", format_timestamp(a, sizeof a, opts->since_usec));
        }
        if (opts->until_usec > 0) {
                char a[FORMAT_BUF_MAX];
                fprintf(f, " until %s", format_timestamp(a, sizeof a, opts->until_usec));
        }
        if (fclose(f) != 0)
                return BENCHCTL_EXIT_FAILURE;
        if (asprintf(&rep->title, "History: %s (%zu run%s)", sel, json_object_array_length(runs),
                     json_object_array_length(runs) == 1 ? "" : "s") < 0)
                rep->title = NULL;
        return 0;
}

/* Writes the page to path through a temporary file beside it, so a reader never sees half. */
static int write_report(const char *path, const ReportPage *page) {
        _cleanup_free_ char *tmp = NULL;
        FILE *f;
        int fd, r;

        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        /* As a new file would be: the umask decides. */
        {
                mode_t u = umask(0);
                umask(u);
                (void) fchmod(fd, 0666 & ~u);
        }
        f = fdopen(fd, "w");
        if (!f) {
                r = negative_errno();
                close(fd);
                unlink(tmp);
                return r;
        }
        r = report_html_write(f, page);
        if (fclose(f) != 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0)
                unlink(tmp);
        return r;
}

static int open_report(const char *path) {
        char *argv[] = { (char *) "xdg-open", (char *) path, NULL };
        pid_t pid;
        int status, r;

        if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
                text_fprintf(stderr, "benchctl: report --open: neither $DISPLAY nor $WAYLAND_DISPLAY is set, so there is no "
                             "desktop to open %s on; open it in a browser yourself (it needs no network)\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        r = posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ);
        if (r != 0) {
                text_fprintf_errno(stderr, -r, "benchctl: report --open: cannot run xdg-open: %m; install xdg-utils, "
                                   "or open %s yourself\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                text_fprintf(stderr, "benchctl: report --open: xdg-open %s failed; open it yourself\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        return 0;
}

int verb_report(int argc, char **argv, const BenchctlOptions *opts) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(report_clear) Report rep = {};
        _cleanup_free_ char *chart_js = NULL, *escaped = NULL, *name = NULL;
        _cleanup_free_ uint64_t *ids = NULL;
        ReportSelection sel = {
                .job = opts->job,
                .by = opts->by,
                .fleet = opts->fleet,
                .device = opts->device,
                .workload = opts->workload,
                .profile = opts->profile,
                .fs_type = opts->fs_type,
                .label = opts->label,
        };
        const char *chart_js_path = NULL, *path;
        char generator[64];
        int r;

        if (opts->fleet) {
                if (argc > 1 || opts->job > 0 || opts->by) {
                        fprintf(stderr, "benchctl: report --fleet UUID takes no RUN ids, --job or --by\n");
                        return BENCHCTL_EXIT_USAGE;
                }
                sel.kind = REPORT_FLEET;
        } else if (argc > 1) {
                if (opts->job > 0 || opts->by) {
                        text_fprintf(stderr, "benchctl: report takes RUN ids, or --job ID, or --by COLUMN with filters, "
                                     "or filters alone (a history), not RUN ids with %s\n", opts->by ? "--by" : "--job");
                        return BENCHCTL_EXIT_USAGE;
                }
                sel.kind = REPORT_RUNS;
                ids = calloc(argc - 1, sizeof(uint64_t));
                if (!ids)
                        return BENCHCTL_EXIT_FAILURE;
                for (int i = 1; i < argc; i++)
                        if (parse_id_arg("run id", argv[i], &ids[i - 1]) < 0)
                                return BENCHCTL_EXIT_USAGE;
                sel.runs = ids;
                sel.n_runs = argc - 1;
        } else if (opts->by)
                sel.kind = REPORT_COMPARE;
        else if (opts->job > 0)
                sel.kind = REPORT_JOB;
        else
                sel.kind = REPORT_HISTORY;
        if (opts->baseline && sel.kind != REPORT_JOB) {
                fprintf(stderr, "benchctl: report --baseline goes with --job ID (a filesystem matrix job)\n");
                return BENCHCTL_EXIT_USAGE;
        }

        /* Before anything is asked of benchd: without the library there is no report. */
        r = read_chart_js(&chart_js, &chart_js_path);
        if (r != 0)
                return r;

        rep.data = json_object_new_object();
        rep.sources = json_object_new_object();
        if (!rep.data || !rep.sources) {
                json_object_put(rep.sources);
                return BENCHCTL_EXIT_FAILURE;
        }
        json_object_object_add(rep.data, "report", json_object_new_string("benchd"));
        json_object_object_add(rep.data, "format", json_object_new_int(1));
        json_object_object_add(rep.data, "kind", json_object_new_string(report_kind_to_string(sel.kind)));
        json_object_object_add(rep.data, "generated_usec", json_object_new_uint64(now_usec(CLOCK_REALTIME)));
        json_object_object_add(rep.data, "benchctl_version", json_object_new_string(BENCHD_VERSION));
        json_object_object_add(rep.data, "sources", rep.sources);

        if (sel.kind == REPORT_JOB)
                r = report_job(opts, &rep);
        else {
                r = bus_connect(opts, &bus);
                if (r != 0)
                        return r;
                r = sel.kind == REPORT_FLEET ? report_fleet(opts, &rep, bus) :
                    sel.kind == REPORT_RUNS ? report_runs(&rep, bus, sel.runs, sel.n_runs) :
                    sel.kind == REPORT_COMPARE ? report_compare(opts, &rep, bus) : report_history(opts, &rep, bus);
        }
        if (r != 0)
                return r;
        if (!rep.title)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(rep.data, "title", json_object_new_string(rep.title));

        escaped = report_json_escape(json_object_to_json_string_ext(rep.data, JSON_C_TO_STRING_PLAIN |
                                                                              JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!escaped)
                return BENCHCTL_EXIT_FAILURE;
        if (opts->output)
                path = opts->output;
        else {
                if (report_file_name(&sel, &name) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                path = name;
        }
        snprintf(generator, sizeof generator, "benchctl %s", BENCHD_VERSION);
        r = write_report(path, &(ReportPage) {
                .title = rep.title,
                .generator = generator,
                .css = report_css,
                .chart_js = chart_js,
                .chart_js_origin = chart_js_path,
                .page_js = report_js,
                .data_json = escaped,
        });
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: report: cannot write %s: %m; give a writable file with -o "
                                   "FILE.html\n", path);
                return BENCHCTL_EXIT_FAILURE;
        }
        text_printf("%s\n", path);
        if (opts->open)
                return open_report(path);
        return BENCHCTL_EXIT_OK;
}
