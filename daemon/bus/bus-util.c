/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Marshalling glue between sd-bus messages and plain data. Kept apart from the handlers so that the
 * handlers read as "parse, authorise, call the logic, reply", and so that every variant type the
 * daemon accepts is listed in one place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus-util.h"
#include "shared/job-state.h"
#include "shared/strv.h"
#include "shared/util.h"

const char *bus_error_text(const sd_bus_error *e, int error) {
        return e ? strna(e->message) : strerror(abs(error));
}

/* Reads an a{sv}, calling f for each entry with its key and the signature of the variant's
 * contents; f reads the variant. The one loop over dict entries that the spec and both filters use. */
typedef int (*DictEntryFunc)(sd_bus_message *m, const char *key, const char *contents, void *userdata,
                             sd_bus_error *error);

static int read_dict(sd_bus_message *m, DictEntryFunc f, void *userdata, sd_bus_error *error) {
        int r;

        r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv")) > 0) {
                const char *key, *contents;
                char type;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                r = f(m, key, contents, userdata, error);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

/* An a{ss} into keys and values (the message's own strings, valid while it is), at most
 * SPEC_MAP_ENTRIES_MAX + 1 entries: one more than any map key takes is enough for spec_set() to say
 * so, and a caller cannot make us hold more. */
static int read_string_map(sd_bus_message *m, const char **keys, const char **values, size_t *ret_n) {
        size_t n = 0;
        int r;

        r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{ss}");
        if (r < 0)
                return r;
        while (n <= SPEC_MAP_ENTRIES_MAX && (r = sd_bus_message_read(m, "{ss}", &keys[n], &values[n])) > 0)
                n++;
        if (r < 0)
                return r;
        if (n > SPEC_MAP_ENTRIES_MAX) {
                /* Leave the rest unread: the entry is refused anyway. */
                *ret_n = n;
                return 1;
        }
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret_n = n;
        return 0;
}

/* What read_dict() walks a spec with. */
typedef struct SpecReader {
        JobSpec *spec;
        unsigned n;
} SpecReader;

static int read_spec_entry(sd_bus_message *m, const char *key, const char *contents, void *userdata,
                           sd_bus_error *error) {
        SpecReader *reader = userdata;
        JobSpec *s = reader->spec;
        _cleanup_strv_free_ char **strv = NULL;
        _cleanup_free_ char *err = NULL;
        const char *map_keys[SPEC_MAP_ENTRIES_MAX + 1], *map_values[SPEC_MAP_ENTRIES_MAX + 1];
        SpecValue v = {};
        bool unread = false;
        int r;

        if (++reader->n > BUS_SPEC_ENTRIES_MAX)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "the spec has more than %u entries; give each key once",
                                         BUS_SPEC_ENTRIES_MAX);

        SpecKey k = spec_key_from_string(key);
        if (k < 0) {
                /* The same words, did-you-mean included, as benchctl --set and profile files get. */
                (void) spec_fail_unknown_key(key, &err);
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s", err ?: "unknown spec key");
        }
        if (s->set_mask & (UINT64_C(1) << k))
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "spec key '%s' is given twice; give each key once", key);

        r = sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, contents);
        if (r < 0)
                return r;

        if (streq(contents, "s")) {
                v.type = SPEC_VALUE_STRING;
                r = sd_bus_message_read_basic(m, 's', &v.s);
        } else if (streq(contents, "b")) {
                int b;
                v.type = SPEC_VALUE_BOOL;
                r = sd_bus_message_read_basic(m, 'b', &b);
                v.b = b;
        } else if (streq(contents, "y")) {
                uint8_t x;
                v.type = SPEC_VALUE_UINT;
                r = sd_bus_message_read_basic(m, 'y', &x);
                v.u = x;
        } else if (streq(contents, "q")) {
                uint16_t x;
                v.type = SPEC_VALUE_UINT;
                r = sd_bus_message_read_basic(m, 'q', &x);
                v.u = x;
        } else if (streq(contents, "u")) {
                uint32_t x;
                v.type = SPEC_VALUE_UINT;
                r = sd_bus_message_read_basic(m, 'u', &x);
                v.u = x;
        } else if (streq(contents, "t")) {
                v.type = SPEC_VALUE_UINT;
                r = sd_bus_message_read_basic(m, 't', &v.u);
        } else if (streq(contents, "n")) {
                int16_t x;
                v.type = SPEC_VALUE_INT;
                r = sd_bus_message_read_basic(m, 'n', &x);
                v.i = x;
        } else if (streq(contents, "i")) {
                int32_t x;
                v.type = SPEC_VALUE_INT;
                r = sd_bus_message_read_basic(m, 'i', &x);
                v.i = x;
        } else if (streq(contents, "x")) {
                v.type = SPEC_VALUE_INT;
                r = sd_bus_message_read_basic(m, 'x', &v.i);
        } else if (streq(contents, "as")) {
                v.type = SPEC_VALUE_STRV;
                r = sd_bus_message_read_strv(m, &strv);
                if (r >= 0 && !strv) {
                        strv = calloc(1, sizeof(char *));
                        if (!strv)
                                return -ENOMEM;
                }
                v.strv = strv;
        } else if (streq(contents, "a{ss}")) {
                v.type = SPEC_VALUE_MAP;
                r = read_string_map(m, map_keys, map_values, &v.map.n);
                unread = r > 0;
                v.map.keys = (char *const *) map_keys;
                v.map.values = (char *const *) map_values;
        } else
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "spec key '%s' has D-Bus type '%s'; it takes %s",
                                         key, CALLER_TEXT(contents), spec_kind_bus_types(spec_key_info(k)->kind));
        if (r < 0)
                return r;

        if (!unread) {
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }

        r = spec_set(s, key, &v, &err);
        if (r >= 0 && unread)
                r = -EINVAL; /* more entries than a map key takes: spec_set() says so, always */
        if (r < 0)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC, "%s",
                                         err ?: "invalid spec value");
        /* Make "given twice" detectable whatever spec_set() does with the mask. */
        s->set_mask |= UINT64_C(1) << k;
        return 0;
}

int bus_message_read_spec(sd_bus_message *m, JobSpec *s, sd_bus_error *error) {
        SpecReader reader = { .spec = s };
        int r;

        r = read_dict(m, read_spec_entry, &reader, error);
        if (r < 0)
                return sd_bus_error_is_set(error) ? -EINVAL : r;
        return 0;
}

int bus_append_dict_string(sd_bus_message *m, const char *key, const char *value) {
        return sd_bus_message_append(m, "{sv}", key, "s", value ?: "");
}

static int bus_message_append_db_field(sd_bus_message *m, const DbField *f) {
        if (!f->name)
                return 0;
        switch (f->type) {
        case DB_FIELD_INTEGER:
                return sd_bus_message_append(m, "{sv}", f->name, "x", f->i);
        case DB_FIELD_REAL:
                return sd_bus_message_append(m, "{sv}", f->name, "d", f->d);
        case DB_FIELD_TEXT:
                return sd_bus_message_append(m, "{sv}", f->name, "s", f->s ?: "");
        default:
                return 0;
        }
}

int bus_message_append_db_entries(sd_bus_message *m, const DbField *fields, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = bus_message_append_db_field(m, &fields[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int bus_message_append_db_fields(sd_bus_message *m, const DbField *fields, size_t n) {
        int r;

        r = sd_bus_message_open_container(m, SD_BUS_TYPE_ARRAY, "{sv}");
        if (r < 0)
                return r;
        r = bus_message_append_db_entries(m, fields, n);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

/* One {sv} entry: up to 7 bytes of padding, the key (length, bytes, NUL), the variant's signature
 * (3 bytes), up to 7 bytes of padding, and the value (8 bytes, or a string's length, bytes and NUL). */
static size_t dict_entry_size(const char *key, const char *string_value) {
        return 7 + 4 + strlen(key) + 1 + 3 + 7 + (string_value ? 4 + strlen(string_value) + 1 : 8);
}

/* The a{sv} itself: its length and padding. */
#define DICT_OVERHEAD 16u

size_t bus_db_fields_size(const DbField *fields, size_t n) {
        size_t size = DICT_OVERHEAD;

        for (size_t i = 0; i < n; i++) {
                const DbField *f = &fields[i];

                if (!f->name || f->type == DB_FIELD_NULL)
                        continue;
                size += dict_entry_size(f->name, f->type == DB_FIELD_TEXT ? f->s ?: "" : NULL);
        }
        return size;
}

/* What a live job's properties add beyond the jobs-table row: Progress, CurrentStep, Steps,
 * Phase, Runs (a run id per step, at most 256 steps: 2 KiB) and Live (one sample, 16 numbers:
 * under 1 KiB), with room to spare. */
#define JOB_LIVE_PROPERTIES_SIZE 8192u

size_t bus_db_job_size(const DbJob *dj) {
        return DICT_OVERHEAD + JOB_LIVE_PROPERTIES_SIZE +
                dict_entry_size("Id", NULL) +
                dict_entry_size("State", dj->state ?: "") +
                dict_entry_size("Profile", dj->profile ?: "") +
                dict_entry_size("Workload", dj->workload ?: "") +
                dict_entry_size("Target", dj->target ?: "") +
                dict_entry_size("Label", dj->label ?: "") +
                dict_entry_size("Spec", dj->spec_json ?: "") +
                dict_entry_size("SubmittedBy", NULL) +
                dict_entry_size("SubmittedUSec", NULL) +
                dict_entry_size("StartedUSec", NULL) +
                dict_entry_size("FinishedUSec", NULL) +
                dict_entry_size("Error", dj->error ?: "") +
                dict_entry_size("TriggeredBy", dj->triggered_by ?: "bus");
}

int bus_reply_budget_take(BusReplyBudget *b, size_t size) {
        if (b->bytes + size > BUS_REPLY_BYTES_MAX) {
                b->full = true;
                return -ECANCELED;
        }
        b->bytes += size;
        b->n++;
        return 0;
}

/* A reply of database rows as aa{sv}: each row counted against the budget and appended as an a{sv}. */
typedef struct BusRows {
        sd_bus_message *reply;
        BusReplyBudget budget;
} BusRows;

static int bus_rows_append(const DbField *fields, size_t n, void *userdata) {
        BusRows *rows = userdata;
        int r;

        r = bus_reply_budget_take(&rows->budget, bus_db_fields_size(fields, n));
        if (r < 0)
                return r;
        return bus_message_append_db_fields(rows->reply, fields, n);
}

int bus_reply_rows(sd_bus_message *message, Db *db, BusRowsWalk walk, const void *filter, const char *what,
                   sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        BusRows rows = {};
        int r;

        r = sd_bus_message_new_method_return(message, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "a{sv}");
        if (r < 0)
                return r;
        rows.reply = reply;
        r = walk(db, filter, bus_rows_append, &rows);
        if (rows.budget.full)
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "the %s asked for do not fit in one reply (%u MiB; %" PRIu64 " did); "
                                         "ask for fewer with limit, e.g. limit=%" PRIu64 ", and go on with "
                                         "offset", what, BUS_REPLY_BYTES_MAX >> 20, rows.budget.n,
                                         MAX(rows.budget.n, UINT64_C(1)));
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "cannot query %s: %s (%s)", what,
                                         strerror(-r), strna(db_last_error(db)));
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

int bus_job_path(uint64_t id, char **ret) {
        char *p;

        if (asprintf(&p, BENCHD_JOB_PREFIX "/%" PRIu64, id) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int bus_job_path_parse(const char *path, uint64_t *ret) {
        const char *p;
        char *end;
        uint64_t id;

        if (strncmp(path, BENCHD_JOB_PREFIX "/", strlen(BENCHD_JOB_PREFIX "/")) != 0)
                return -ENXIO;
        p = path + strlen(BENCHD_JOB_PREFIX "/");
        if (*p < '1' || *p > '9')
                return -ENXIO;
        errno = 0;
        id = strtoull(p, &end, 10);
        if (errno != 0 || *end != '\0')
                return -ENXIO;
        *ret = id;
        return 0;
}

int bus_sender_uid(sd_bus_message *message, const char *what, uint32_t *ret_uid, sd_bus_error *error) {
        sd_bus_creds *creds = NULL;
        uid_t uid;
        int r;

        r = sd_bus_query_sender_creds(message, SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID, &creds);
        if (r >= 0) {
                r = sd_bus_creds_get_euid(creds, &uid);
                if (r < 0)
                        r = sd_bus_creds_get_uid(creds, &uid);
                sd_bus_creds_unref(creds);
        }
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "cannot determine the caller's uid (%s), which %s needs to be "
                                         "authorised; call it over the system bus", strerror(-r), what);
        *ret_uid = (uint32_t) uid;
        return 0;
}

static int read_job_filter_entry(sd_bus_message *message, const char *key, const char *contents,
                                 void *userdata, sd_bus_error *error) {
        BusJobFilter *f = userdata;
        int r;

        if (streq(key, "all") && streq(contents, "b"))
                return sd_bus_message_read(message, "v", "b", &f->all);
        if (streq(key, "state") && streq(contents, "s")) {
                r = sd_bus_message_read(message, "v", "s", &f->state);
                if (r >= 0 && job_state_from_string(f->state) < 0)
                        return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                                 "unknown job state '%s'; use queued, running, "
                                                 "succeeded, failed, cancelled or interrupted", CALLER_TEXT(f->state));
                return r;
        }
        if (streq(key, "limit") && streq(contents, "t"))
                return sd_bus_message_read(message, "v", "t", &f->limit);
        return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                 "unknown ListJobs filter '%s' of type '%s'; the filter keys "
                                 "are all (b), state (s) and limit (t)", CALLER_TEXT(key),
                                 CALLER_TEXT(contents));
}

int bus_message_read_job_filter(sd_bus_message *message, BusJobFilter *f, sd_bus_error *error) {
        return read_dict(message, read_job_filter_entry, f, error);
}

static bool key_in(const char *key, const char *const *keys, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (streq(key, keys[i]))
                        return true;
        return false;
}

static int read_run_filter_entry(sd_bus_message *message, const char *key, const char *contents,
                                 void *userdata, sd_bus_error *error) {
        static const char *const string_keys[] = { "device", "workload", "profile", "fs_type", "label",
                                                   "tag", "status", "fleet_uuid" };
        static const char *const u64_keys[] = { "job", "since_usec", "until_usec", "limit", "offset" };
        DbRunFilter *f = userdata;
        bool is_string = key_in(key, string_keys, ELEMENTSOF(string_keys));
        bool is_u64 = key_in(key, u64_keys, ELEMENTSOF(u64_keys));
        const char *sv = NULL;
        uint64_t uv = 0;
        int r;

        if (!is_string && !is_u64)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "unknown QueryRuns filter '%s'; the keys are device, "
                                         "workload, profile, fs_type, label, tag, status, fleet_uuid (s) and "
                                         "job, since_usec, until_usec, limit, offset (t)", CALLER_TEXT(key));
        if (!streq(contents, is_string ? "s" : "t"))
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "QueryRuns filter '%s' has type '%s'; it takes '%s'", key, CALLER_TEXT(contents),
                                         is_string ? "s" : "t");
        r = is_string ? sd_bus_message_read(message, "v", "s", &sv)
                      : sd_bus_message_read(message, "v", "t", &uv);
        if (r < 0)
                return r;
        if (streq(key, "device"))
                f->device = sv;
        else if (streq(key, "workload"))
                f->workload = sv;
        else if (streq(key, "profile"))
                f->profile = sv;
        else if (streq(key, "fs_type"))
                f->fs_type = sv;
        else if (streq(key, "label"))
                f->label = sv;
        else if (streq(key, "tag"))
                f->tag = sv;
        else if (streq(key, "status"))
                f->status = sv;
        else if (streq(key, "fleet_uuid"))
                f->fleet_uuid = sv;
        else if (streq(key, "job"))
                f->job = uv;
        else if (streq(key, "since_usec"))
                f->since_usec = uv;
        else if (streq(key, "until_usec"))
                f->until_usec = uv;
        else if (streq(key, "limit"))
                f->limit = uv;
        else if (streq(key, "offset"))
                f->offset = uv;
        return 0;
}

int bus_message_read_run_filter(sd_bus_message *message, DbRunFilter *f, sd_bus_error *error) {
        return read_dict(message, read_run_filter_entry, f, error);
}

static int read_compare_options_entry(sd_bus_message *message, const char *key, const char *contents,
                                      void *userdata, sd_bus_error *error) {
        BusCompareOptions *o = userdata;

        if (streq(key, "baseline") && streq(contents, "s"))
                return sd_bus_message_read(message, "v", "s", &o->baseline);
        if (streq(key, "level") && streq(contents, "d"))
                return sd_bus_message_read(message, "v", "d", &o->level);
        return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                 "unknown CompareRuns option '%s' of type '%s'; the options are "
                                 "baseline (s) and level (d)", CALLER_TEXT(key), CALLER_TEXT(contents));
}

int bus_message_read_compare_options(sd_bus_message *message, BusCompareOptions *o, sd_bus_error *error) {
        return read_dict(message, read_compare_options_entry, o, error);
}

int bus_message_append_db_job_entries(sd_bus_message *m, const DbJob *dj) {
        int r;

        r = sd_bus_message_append(m, "{sv}{sv}{sv}{sv}{sv}{sv}{sv}",
                                  "Id", "t", dj->id,
                                  "State", "s", dj->state ?: "",
                                  "Profile", "s", dj->profile ?: "",
                                  "Workload", "s", dj->workload ?: "",
                                  "Target", "s", dj->target ?: "",
                                  "Label", "s", dj->label ?: "",
                                  "Spec", "s", dj->spec_json ?: "");
        if (r < 0)
                return r;
        return sd_bus_message_append(m, "{sv}{sv}{sv}{sv}{sv}{sv}",
                                     "SubmittedBy", "u", dj->submitted_by,
                                     "SubmittedUSec", "t", dj->submitted_usec,
                                     "TriggeredBy", "s", dj->triggered_by ?: "bus",
                                     "StartedUSec", "t", dj->started_usec,
                                     "FinishedUSec", "t", dj->finished_usec,
                                     "Error", "s", dj->error ?: "");
}

int bus_message_append_db_job(sd_bus_message *m, const DbJob *dj) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        r = bus_message_append_db_job_entries(m, dj);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

static int read_regression_filter_entry(sd_bus_message *message, const char *key, const char *contents,
                                        void *userdata, sd_bus_error *error) {
        static const char *const string_keys[] = { "device", "workload", "metric" };
        static const char *const u64_keys[] = { "run", "since_usec", "until_usec", "limit", "offset" };
        DbRegressionFilter *f = userdata;
        bool is_string = key_in(key, string_keys, ELEMENTSOF(string_keys));
        bool is_u64 = key_in(key, u64_keys, ELEMENTSOF(u64_keys));
        const char *sv = NULL;
        uint64_t uv = 0;
        int r;

        if (!is_string && !is_u64)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "unknown ListRegressions filter '%s'; the keys are device, workload, "
                                         "metric (s) and run, since_usec, until_usec, limit, offset (t)",
                                         CALLER_TEXT(key));
        if (!streq(contents, is_string ? "s" : "t"))
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "ListRegressions filter '%s' has type '%s'; it takes '%s'", key,
                                         CALLER_TEXT(contents), is_string ? "s" : "t");
        r = is_string ? sd_bus_message_read(message, "v", "s", &sv)
                      : sd_bus_message_read(message, "v", "t", &uv);
        if (r < 0)
                return r;
        if (streq(key, "metric") && regress_metric_from_string(sv) < 0)
                return sd_bus_error_setf(error, BENCHD_ERROR_INVALID_SPEC,
                                         "unknown metric '%s'; the metrics are mb_per_s, iops, ops_per_s and "
                                         "lat_p99_ns", CALLER_TEXT(sv));
        if (streq(key, "device"))
                f->device = sv;
        else if (streq(key, "workload"))
                f->workload = sv;
        else if (streq(key, "metric"))
                f->metric = sv;
        else if (streq(key, "run"))
                f->run = uv;
        else if (streq(key, "since_usec"))
                f->since_usec = uv;
        else if (streq(key, "until_usec"))
                f->until_usec = uv;
        else if (streq(key, "limit"))
                f->limit = uv;
        else if (streq(key, "offset"))
                f->offset = uv;
        return 0;
}

int bus_message_read_regression_filter(sd_bus_message *message, DbRegressionFilter *f, sd_bus_error *error) {
        return read_dict(message, read_regression_filter_entry, f, error);
}
