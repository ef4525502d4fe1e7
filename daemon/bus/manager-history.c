/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Manager's read-only methods: the profiles (ListProfiles, GetProfile) and the history
 * (QueryRuns, GetRun, GetSamples, GetHistogram, CompareRuns). They only read the profile files and the
 * database and never touch the queue, so they live apart from manager.c, which owns the queue,
 * the scheduler and the job methods; manager.c's vtable points here (manager-history.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus-util.h"
#include "bus/manager-history.h"
#include "bus/manager.h"
#include "jobs/profile.h"
#include "shared/log.h"
#include "shared/stats.h"
#include "shared/strv.h"
#include "store/compare.h"


int method_list_profiles(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **names = NULL;
        int r;

        r = profile_list(manager_profile_dirs(m), &names);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(ss)");
        if (r < 0)
                return r;
        for (char **n = names; *n; n++) {
                _cleanup_(profile_freep) Profile *p = NULL;
                _cleanup_free_ char *err = NULL;

                r = profile_load(manager_profile_dirs(m), *n, &p, &err);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        log_full(LOG_INFO, "profile %s: %s", *n, strna(err));
                        continue;
                }
                r = sd_bus_message_append(reply, "(ss)", p->name, p->description ?: "");
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int method_get_profile(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_free_ char *err = NULL;
        const char *name;
        int r;

        r = sd_bus_message_read(message, "s", &name);
        if (r < 0)
                return r;
        r = profile_load(manager_profile_dirs(m), name, &p, &err);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT)
                return sd_bus_error_setf(error, BENCHD_ERROR_NOT_FOUND, "%s", err ?: "unknown profile");
        if (r < 0)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s", err ?: "invalid profile");

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "a{sv}");
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n_steps; i++) {
                r = sd_bus_message_open_container(reply, 'a', "{sv}");
                if (r < 0)
                        return r;
                r = bus_append_dict_string(reply, "step", p->steps[i].name);
                if (r < 0)
                        return r;
                for (char **a = p->steps[i].assignments; *a; a++) {
                        _cleanup_free_ char *key = NULL;
                        const char *eq = strchr(*a, '=');
                        if (!eq)
                                continue;
                        key = strndup(*a, eq - *a);
                        if (!key)
                                return -ENOMEM;
                        r = bus_append_dict_string(reply, key, eq + 1);
                        if (r < 0)
                                return r;
                }
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* QueryRuns' rows, as many as fit in BUS_REPLY_BYTES_MAX. */
static int walk_runs(Db *db, const void *filter, DbRowCallback cb, void *userdata) {
        return db_query_runs(db, filter, cb, userdata);
}

int method_query_runs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        DbRunFilter f = {};
        int r;

        r = bus_message_read_run_filter(message, &f, error);
        if (r < 0)
                return r;
        return bus_reply_rows(message, manager_db(m), walk_runs, &f, "runs", error);
}

/* One figure of a cell: "mib_per_s" → {n, mean, stddev, ci_low, ci_high, diff_pct, p_value, test,
 * pairs, diff_ci_low_pct, diff_ci_high_pct, significant}, each only when it is known (compare.h
 * says when). */
static int append_compare_figure(sd_bus_message *m, const char *key, const CompareFigure *f) {
        int r;

        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "a{sv}");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0)
                r = sd_bus_message_append(m, "{sv}", "n", "t", f->n);
        if (r >= 0 && isfinite(f->mean))
                r = sd_bus_message_append(m, "{sv}", "mean", "d", f->mean);
        if (r >= 0 && isfinite(f->stddev))
                r = sd_bus_message_append(m, "{sv}", "stddev", "d", f->stddev);
        if (r >= 0 && f->has_interval)
                r = sd_bus_message_append(m, "{sv}{sv}", "ci_low", "d", f->ci_low, "ci_high", "d", f->ci_high);
        if (r >= 0 && f->has_diff)
                r = sd_bus_message_append(m, "{sv}", "diff_pct", "d", f->diff_pct);
        if (r >= 0 && f->has_test)
                r = sd_bus_message_append(m, "{sv}{sv}", "p_value", "d", f->p_value,
                                          "test", "s", f->paired ? "paired" : "welch");
        if (r >= 0 && f->paired)
                r = sd_bus_message_append(m, "{sv}", "pairs", "t", f->pairs);
        if (r >= 0 && f->has_diff_interval)
                r = sd_bus_message_append(m, "{sv}{sv}", "diff_ci_low_pct", "d", f->diff_ci_low_pct,
                                          "diff_ci_high_pct", "d", f->diff_ci_high_pct);
        if (r >= 0)
                r = sd_bus_message_append(m, "{sv}", "significant", "b", f->significant);
        for (int i = 0; r >= 0 && i < 3; i++)
                r = sd_bus_message_close_container(m);
        return r;
}

static int append_compare_cell(sd_bus_message *m, const Compare *c, const CompareCell *cell) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "{sv}{sv}{sv}{sv}{sv}{sv}",
                                  "workload", "s", cell->workload,
                                  "block_size", "t", cell->block_size,
                                  "queue_depth", "t", cell->queue_depth,
                                  "jobs", "t", cell->jobs,
                                  "group", "s", c->groups[cell->group].name,
                                  "runs", "t", cell->runs);
        if (r < 0)
                return r;
        for (DbFigure k = 0; k < _DB_FIGURE_MAX; k++) {
                r = append_compare_figure(m, db_figure_to_string(k), &cell->figures[k]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

/* The filter as CompareRuns takes it: QueryRuns' keys, but every matching run counts (no limit,
 * no offset) and only succeeded runs are compared. */
static int check_compare_filter(const char *by, const DbRunFilter *f, sd_bus_error *error) {
        if (!db_compare_key_known(by))
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "cannot compare by '%s'; group by one of " DB_COMPARE_KEYS,
                                         CALLER_TEXT(by));
        if (f->limit > 0 || f->offset > 0)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "CompareRuns aggregates every run that matches the filter, so limit "
                                         "and offset do not apply; narrow the runs with since_usec, until_usec, "
                                         "job or the other filter keys instead");
        if (f->status && !streq(f->status, "succeeded"))
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "CompareRuns compares succeeded runs only, not %s ones; leave status "
                                         "out (or give succeeded)", CALLER_TEXT(f->status));
        if (streq(by, "matrix") && f->job == 0)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "matrix entries are the entries of one job; give its id as the job "
                                         "filter (benchctl compare --by matrix --job ID)");
        return 0;
}

static int compare_groups_text(const Compare *c, char **ret) {
        _cleanup_free_ char *s = NULL;
        size_t l = 0;
        FILE *f;

        f = open_memstream(&s, &l);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_groups && i < 32; i++)
                fprintf(f, "%s'%s'", i > 0 ? ", " : "", c->groups[i].name);
        if (c->n_groups > 32)
                fprintf(f, ", ... (%zu in all)", c->n_groups);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(s);
        return 0;
}

int method_compare_runs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(compare_clear) Compare c = {};
        BusCompareOptions o = { .level = STATS_LEVEL_DEFAULT };
        DbRunFilter f = {};
        const char *by;
        int r;

        r = sd_bus_message_read(message, "s", &by);
        if (r < 0)
                return r;
        r = bus_message_read_run_filter(message, &f, error);
        if (r < 0)
                return r;
        r = bus_message_read_compare_options(message, &o, error);
        if (r < 0)
                return r;
        r = check_compare_filter(by, &f, error);
        if (r < 0)
                return r;
        if (!(o.level >= COMPARE_LEVEL_MIN && o.level <= COMPARE_LEVEL_MAX))
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "confidence level %g is out of range; give a fraction from %g to %g, "
                                         "e.g. 0.95 for 95%%", o.level, COMPARE_LEVEL_MIN, COMPARE_LEVEL_MAX);

        r = db_compare_runs(manager_db(m), by, &f, compare_add, &c);
        if (r == -E2BIG)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "the runs asked for make more than %u cells (rows × groups) to compare; "
                                         "narrow them with the filter (workload, device, since_usec, job, ...)",
                                         COMPARE_CELLS_MAX);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "cannot compare runs: %s",
                                         r == -ENOMEM ? strerror(ENOMEM) : db_last_error(manager_db(m)));
        /* The pairs of runs made in the same round: too many of them (a history of many matrices),
         * or a round no cell has (a run that ended between the two statements), and the cells are
         * compared without them. */
        r = db_compare_rounds(manager_db(m), by, &f, compare_add_round, &c);
        if (r == -E2BIG || r == -ENOENT) {
                log_debug("CompareRuns by %s: %s; compared without pairs", by,
                          r == -E2BIG ? "more rounds than the table keeps" : "a round of no cell");
                compare_drop_rounds(&c);
        } else if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "cannot compare runs: %s",
                                         r == -ENOMEM ? strerror(ENOMEM) : db_last_error(manager_db(m)));
        r = compare_finish(&c, o.baseline, o.level);
        if (r == -ENOENT) {
                _cleanup_free_ char *groups = NULL;

                r = compare_groups_text(&c, &groups);
                if (r < 0)
                        return r;
                return sd_bus_error_setf(error, BENCHD_ERROR_NOT_FOUND,
                                         "there is no group '%s' among the runs compared by %s; the groups are %s",
                                         CALLER_TEXT(o.baseline), by, groups);
        }
        if (r < 0)
                return r;

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "s");
        for (size_t i = 0; r >= 0 && i < c.n_groups; i++)
                r = sd_bus_message_append(reply, "s", c.groups[i].name);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "s", c.n_groups > 0 ? c.groups[c.baseline].name : "");
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "a{sv}");
        for (size_t i = 0; r >= 0 && i < c.n_cells; i++)
                r = append_compare_cell(reply, &c, &c.cells[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int manager_check_id(uint64_t id, const char *what, const char *lister, sd_bus_error *error) {
        if (id <= (uint64_t) INT64_MAX)
                return 0;
        return sd_bus_error_setf(error, BENCHD_ERROR_NOT_FOUND,
                                 "there is no %s %" PRIu64 ": %s ids are database row ids, at most %" PRIi64
                                 "; %s", what, id, what, INT64_MAX, lister);
}

static int check_run_id(uint64_t id, sd_bus_error *error) {
        return manager_check_id(id, "run", "QueryRuns lists the runs there are", error);
}

/* The error of a failed read of run id's what ("" for the run itself, "the samples of", ...):
 * NotFound when there is no such run, else Failed. */
static int run_read_error(sd_bus_error *error, uint64_t id, const char *what, int r) {
        if (r == -ENOENT)
                return sd_bus_error_setf(error, BENCHD_ERROR_NOT_FOUND,
                                         "there is no run %" PRIu64 "; QueryRuns lists the runs there are", id);
        return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "cannot read %s%srun %" PRIu64 ": %s", what,
                                 *what ? " " : "", id, strerror(-r));
}

/* GetRun's a{sv}: the run's columns and, for a workload with phases of its own (metadata), "phases"
 * as aa{sv}, one per phase in order, and for position "positions" likewise, one per offset. The
 * run's entries go in with bus_message_append_db_entries() rather than
 * bus_message_append_db_fields(), which closes the dictionary the lists must go into. */
typedef struct RunWithLists {
        sd_bus_message *reply;
        Db *db;
        uint64_t id;
} RunWithLists;

/* One list entry of the run ("phases", "positions"): its first row opens it, so that a run
 * without such rows has no such key and the rows are read once. */
typedef struct RunList {
        sd_bus_message *reply;
        const char *key;
        bool open;
} RunList;

static int append_list_row(const DbField *fields, size_t n, void *userdata) {
        RunList *list = userdata;
        sd_bus_message *m = list->reply;
        int r;

        if (!list->open) {
                r = sd_bus_message_open_container(m, 'e', "sv");
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", list->key);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'v', "aa{sv}");
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'a', "a{sv}");
                if (r < 0)
                        return r;
                list->open = true;
        }
        return bus_message_append_db_fields(m, fields, n);
}

static int append_run_list(RunWithLists *run, const char *key,
                           int (*get)(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata)) {
        RunList list = { .reply = run->reply, .key = key };
        int r;

        r = get(run->db, run->id, append_list_row, &list);
        if (r < 0)
                return r;
        if (list.open)
                for (int i = 0; i < 3; i++) {
                        r = sd_bus_message_close_container(run->reply);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int append_run_with_lists(const DbField *fields, size_t n, void *userdata) {
        RunWithLists *run = userdata;
        sd_bus_message *m = run->reply;
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = bus_message_append_db_entries(m, fields, n);
        if (r < 0)
                return r;
        /* Both are bounded (WORKER_PHASE_RESULTS_MAX phases, SPEC_POSITIONS_MAX positions a step,
         * eight fields each), so the reply stays small. */
        r = append_run_list(run, "phases", db_get_run_phases);
        if (r < 0)
                return r;
        r = append_run_list(run, "positions", db_get_run_positions);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

int method_get_run(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        RunWithLists run = {};
        uint64_t id;
        int r;

        r = sd_bus_message_read(message, "t", &id);
        if (r < 0)
                return r;
        r = check_run_id(id, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        run.reply = reply;
        run.db = manager_db(m);
        run.id = id;
        r = db_get_run(manager_db(m), id, append_run_with_lists, &run);
        if (r < 0)
                return run_read_error(error, id, "", r);
        return sd_bus_send(NULL, reply, NULL);
}

/* Collects at most max rows into the reply; a row beyond them only says that there are more and
 * where they start. */
typedef struct SamplePage {
        sd_bus_message *reply;
        uint64_t max;
        uint64_t n;
        bool more;
        uint64_t next_ms;       /* with more: t_ms of the first sample left out */
} SamplePage;

static int append_sample(const DbField *fields, size_t n, void *userdata) {
        SamplePage *page = userdata;

        if (page->n >= page->max) {
                page->more = true;
                for (size_t i = 0; i < n; i++)
                        if (streq(fields[i].name, "t_ms") && fields[i].type == DB_FIELD_INTEGER)
                                page->next_ms = (uint64_t) fields[i].i;
                return -ECANCELED; /* stops the walk: one row past the page is all we need */
        }
        page->n++;
        return bus_message_append_db_fields(page->reply, fields, n);
}

/* Appends an aa{sv} of at most page->max samples from from_ms to page->reply; page->more says
 * whether there were more. Errors for the caller are set in error (NotFound, Failed). */
static int append_sample_page(Manager *m, uint64_t id, uint64_t from_ms, SamplePage *page,
                              sd_bus_error *error) {
        int r;

        r = sd_bus_message_open_container(page->reply, 'a', "a{sv}");
        if (r < 0)
                return r;
        r = db_get_samples_page(manager_db(m), id, from_ms, page->max + 1, append_sample, page);
        if (r < 0 && !(r == -ECANCELED && page->more))
                return run_read_error(error, id, "the samples of", r);
        return sd_bus_message_close_container(page->reply);
}

int method_get_samples(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        SamplePage page = { .max = BENCHD_SAMPLES_PER_REPLY };
        uint64_t id;
        int r;

        r = sd_bus_message_read(message, "t", &id);
        if (r < 0)
                return r;
        r = check_run_id(id, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        page.reply = reply;
        r = append_sample_page(m, id, 0, &page, error);
        if (r < 0)
                return r;
        if (page.more)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "run %" PRIu64 " has more than %u samples, more than one reply "
                                         "carries; read them in pages with GetSamplesPage(%" PRIu64 ", from_ms, "
                                         "limit), or query the samples table of %s with sqlite3",
                                         id, BENCHD_SAMPLES_PER_REPLY, id, manager_db_path(m));
        return sd_bus_send(NULL, reply, NULL);
}

int method_get_samples_page(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        SamplePage page = {};
        uint64_t id, from_ms;
        uint32_t limit;
        int r;

        r = sd_bus_message_read(message, "ttu", &id, &from_ms, &limit);
        if (r < 0)
                return r;
        r = check_run_id(id, error);
        if (r < 0)
                return r;
        page.max = limit == 0 ? BENCHD_SAMPLES_PER_REPLY : MIN(limit, BENCHD_SAMPLES_PER_REPLY);

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        page.reply = reply;
        r = append_sample_page(m, id, from_ms, &page, error);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", page.more ? page.next_ms : UINT64_C(0));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int append_bucket(uint64_t upper_ns, uint64_t count, void *userdata) {
        return sd_bus_message_append(userdata, "(tt)", upper_ns, count);
}

int method_get_histogram(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint64_t id;
        int r;

        r = sd_bus_message_read(message, "t", &id);
        if (r < 0)
                return r;
        r = check_run_id(id, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(tt)");
        if (r < 0)
                return r;
        r = db_get_histogram(manager_db(m), id, append_bucket, reply);
        if (r < 0)
                return run_read_error(error, id, "the histogram of", r);
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}
