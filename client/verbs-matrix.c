/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A filesystem matrix job as people publish it. `compare --job ID` is compare --by's table of the
 * job's entries (CompareRuns by matrix, aggregated by benchd): one row per workload shape, one
 * column per entry (filesystem, or filesystem and device, or btrfs RAID layout), the mean of each
 * figure ±the half-width of its confidence interval, and the % difference of every entry against
 * the baseline column (--baseline NAME; default the first entry, i.e. the first filesystem
 * listed), marked ~ where it is not significant. A matrix that ran in rounds (repeat=N) is weighed
 * by the paired t-test over its rounds, so drift common to a round cancels.
 *
 * `show --job ID` prints, per entry (--entry/--fs-type choose), the view of the job's profile as
 * its tool would print it (dd's closing lines, iozone's matrix, bonnie++'s table, ...), then how
 * each entry's filesystem was made: mkfs time and the capacity right after mkfs ("ext4 uses 3%
 * right after mkfs"; USE% as df computes it, used / (used + available), so space reserved for root
 * counts as neither), and how many times (once per round), then the comparison. --json gives the
 * same as one object.
 *
 * The difference is (entry - baseline) / baseline: +20% means the entry moved 20% more data per
 * second than the baseline did.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "format.h"
#include "job-runs.h"
#include "record.h"
#include "table.h"
#include "verbs-matrix.h"
#include "verbs-results.h"
#include "text.h"
#include "verbs-views.h"

int matrix_compare_json(const BenchctlOptions *opts, sd_bus *bus, uint64_t job, json_object **ret) {
        _cleanup_json_ json_object *filter = NULL, *out = NULL;
        json_object *cells = NULL;
        int r;

        if (opts->limit > 0) {
                fprintf(stderr, "benchctl: compare --job compares every run of the job, so --limit does not "
                        "apply; narrow the rows with --workload, or leave it out\n");
                return BENCHCTL_EXIT_USAGE;
        }
        if (run_filter_from_args(opts, &filter) < 0)
                return BENCHCTL_EXIT_FAILURE;
        json_object_object_add(filter, "job", json_object_new_uint64(job));
        r = compare_call(opts, bus, "matrix", filter, &out);
        if (r != 0)
                return r;
        json_object_object_get_ex(out, "cells", &cells);
        if (json_object_array_length(cells) == 0) {
                fprintf(stderr, "benchctl: job %" PRIu64 " has no succeeded runs of a filesystem matrix%s (submit one "
                        "with --set filesystems=ext4,btrfs --set devices=...; for other jobs use benchctl compare "
                        "--by or benchctl results --job)\n", job,
                        json_object_object_length(filter) > 1 ? " that match the filters" : "");
                return BENCHCTL_EXIT_NOT_FOUND;
        }
        json_object_object_add(out, "job", json_object_new_uint64(job));
        *ret = TAKE_PTR(out);
        return 0;
}

int matrix_compare(const BenchctlOptions *opts, uint64_t job) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_json_ json_object *out = NULL;
        int r;

        r = bus_connect(opts, &bus);
        if (r != 0)
                return r;
        r = matrix_compare_json(opts, bus, job, &out);
        if (r != 0)
                return r;
        if (opts->json) {
                print_json(out);
                return BENCHCTL_EXIT_OK;
        }
        if (opts->legend)
                printf("Job %" PRIu64 ": a filesystem matrix, its entries compared\n\n", job);
        return compare_print(opts, out);
}

/* How many filesystems the entry's runs were on: one per visit (fs_uuid; a matrix in rounds makes
 * it afresh at every visit). */
static uint64_t entry_made(const JobRuns *j, const JobEntry *e) {
        _cleanup_json_ json_object *seen = json_object_new_array();
        uint64_t n = 0;

        for (size_t i = 0; seen && i < json_object_array_length(j->runs); i++) {
                json_object *run = json_object_array_get_idx(j->runs, i);
                const char *uuid = rec_str(run, "fs_uuid");
                bool known = false;

                if (!uuid || rec_u64_or(run, "matrix_entry", UINT64_MAX) != e->index)
                        continue;
                for (size_t k = 0; k < json_object_array_length(seen) && !known; k++)
                        known = streq(json_object_get_string(json_object_array_get_idx(seen, k)), uuid);
                if (!known) {
                        json_object_array_add(seen, json_object_new_string(uuid));
                        n++;
                }
        }
        return n;
}

static json_object *entry_to_json(const JobRuns *j, const JobEntry *e) {
        json_object *o = json_object_new_object();
        static const char *const keys[] = {
                "fs_type", "layout", "mkfs_command", "mkfs_options", "mkfs_usec", "mount_options", "fs_uuid",
                "fs_size_bytes", "fs_used_bytes", "fs_avail_bytes", "fs_inodes", "fs_inodes_free",
                "partitions", "partition",
        };
        const char *members = rec_str(e->first, "members"), *commands = rec_str(e->first, "fs_commands");
        json_object *v;

        if (!o)
                return NULL;
        json_object_object_add(o, "entry", json_object_new_uint64(e->index));
        json_object_object_add(o, "name", json_object_new_string(e->name));
        json_object_object_add(o, "place", json_object_new_string(e->place));
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (json_object_object_get_ex(e->first, keys[i], &v))
                        json_object_object_add(o, keys[i], json_object_get(v));
        json_object_object_add(o, "members", members ? json_tokener_parse(members) : NULL);
        json_object_object_add(o, "fs_commands", commands ? json_tokener_parse(commands) : NULL);
        json_object_object_add(o, "runs", json_object_new_uint64(e->n_ok));
        json_object_object_add(o, "filesystems_made", json_object_new_uint64(entry_made(j, e)));
        return o;
}

static int print_entries_table(const JobRuns *j) {
        const BenchctlOptions *opts = j->opts;
        _cleanup_(table_freep) Table *t = NULL;
        static const char *const headers[] = {
                "ENTRY", "MEMBERS", "MKFS", "MADE", "SIZE", "USED", "USE%", "AVAIL", "INODES",
        };

        if (table_new(headers, ELEMENTSOF(headers), &t) < 0)
                return BENCHCTL_EXIT_FAILURE;
        for (size_t c = 2; c < ELEMENTSOF(headers); c++)
                table_set_align(t, c, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 1, 8);
        for (size_t e = 0; e < j->n_entries; e++) {
                json_object *run = j->entries[e].first;
                _cleanup_free_ char *members = NULL;
                _cleanup_json_ json_object *wrap = json_object_new_object();
                const char *mj = rec_str(run, "members");
                char a[FORMAT_BUF_MAX];
                uint64_t size, used, avail, usec;
                bool have_size, have_used, have_avail;

                if (wrap && mj) {
                        json_object_object_add(wrap, "members", json_tokener_parse(mj));
                        members = rec_to_text(wrap, "members");
                }
                table_add_cell(t, j->entries[e].name);
                table_add_cell(t, members ?: "-");
                table_add_cell(t, rec_u64(run, "mkfs_usec", &usec) ? format_duration(a, sizeof a, usec) : "-");
                table_add_cellf(t, "%" PRIu64 "×", entry_made(j, &j->entries[e]));
                have_size = rec_u64(run, "fs_size_bytes", &size);
                have_used = rec_u64(run, "fs_used_bytes", &used);
                have_avail = rec_u64(run, "fs_avail_bytes", &avail);
                table_add_cell(t, have_size ? format_bytes(a, sizeof a, size) : "-");
                table_add_cell(t, have_used ? format_bytes(a, sizeof a, used) : "-");
                /* As df shows it: of what is there for users, used plus available. */
                if (have_used && have_avail && used + avail > 0)
                        table_add_cellf(t, "%.1f%%", (double) used * 100.0 / (double) (used + avail));
                else
                        table_add_cell(t, "-");
                table_add_cell(t, have_avail ? format_bytes(a, sizeof a, avail) : "-");
                if (rec_u64(run, "fs_inodes", &size))
                        table_add_cellf(t, "%" PRIu64, size);
                else
                        table_add_cell(t, "-");
        }
        if (table_print(t, opts->legend) < 0)
                return BENCHCTL_EXIT_FAILURE;
        if (opts->legend)
                printf("\nMKFS: how long mkfs took; MADE: how many times the entry's filesystem was made (afresh at "
                       "each visit of a matrix in rounds); SIZE, USED, USE%% (of used + available, as df), AVAIL, "
                       "INODES: right after the first mkfs.\n");
        return BENCHCTL_EXIT_OK;
}

int matrix_show(JobRuns *j) {
        const BenchctlOptions *opts = j->opts;
        _cleanup_json_ json_object *compare = NULL, *entries = NULL;
        size_t shown = 0;
        int r;

        if (job_wants_json(j)) {
                entries = json_object_new_array();
                if (!entries)
                        return BENCHCTL_EXIT_FAILURE;
        }
        for (size_t e = 0; e < j->n_entries; e++) {
                _cleanup_(job_runs_clear) JobRuns n = {};
                _cleanup_json_ json_object *view = NULL;

                if (!j->entries[e].selected)
                        continue;
                if (job_runs_narrow(j, e, &n) < 0)
                        return BENCHCTL_EXIT_FAILURE;
                if (entries) {
                        json_object *o = entry_to_json(j, &j->entries[e]);

                        if (!o)
                                return BENCHCTL_EXIT_FAILURE;
                        json_object_array_add(entries, o);
                        if (n.n_ok == 0) {
                                json_object_object_add(o, "view", NULL);
                                continue;
                        }
                        n.json_sink = &view;
                        r = job_view_one(&n);
                        if (r != 0)
                                return r;
                        json_object_object_add(o, "view", TAKE_PTR(view));
                        continue;
                }
                if (shown++ > 0)
                        printf("\n");
                if (n.n_ok == 0) {
                        print_job_head(&n, "no run of the entry succeeded");
                        continue;
                }
                r = job_view_one(&n);
                if (r != 0)
                        return r;
        }

        r = matrix_compare_json(opts, j->bus, j->job, &compare);
        if (r != 0)
                return r;
        if (entries) {
                _cleanup_json_ json_object *o = json_object_new_object();

                if (!o)
                        return BENCHCTL_EXIT_FAILURE;
                json_object_object_add(o, "job", json_object_new_uint64(j->job));
                json_object_object_add(o, "profile", j->profile ? json_object_new_string(j->profile) : NULL);
                json_object_object_add(o, "view", json_object_new_string("matrix"));
                json_object_object_add(o, "entries", TAKE_PTR(entries));
                json_object_object_add(o, "compare", TAKE_PTR(compare));
                job_json_emit(j, o);
                return BENCHCTL_EXIT_OK;
        }
        printf("\nJob %" PRIu64 ": a filesystem matrix of %zu entr%s; how each filesystem was made\n\n", j->job,
               j->n_entries, j->n_entries == 1 ? "y" : "ies");
        r = print_entries_table(j);
        if (r != 0)
                return r;
        printf("\nThe entries compared (benchctl compare --job %" PRIu64 ")\n\n", j->job);
        return compare_print(opts, compare);
}
