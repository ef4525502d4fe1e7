/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which columns of a run an import document carries, and the rules of the ones the daemon writes
 * for a layout (db-import-internal.h). The columns are the runs table's, read from the database
 * (PRAGMA table_info), as GetRun gives them (db_get_run(): run_summary and every column of runs it
 * lacks): a migration that adds a column adds it to export and import alike, with nothing to list
 * here unless its values are JSON or may be negative.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/db-import-internal.h"
#include "store/db-internal.h"
#include "shared/json-util.h"
#include "shared/proto.h"
#include "shared/spec.h"
#include "shared/util.h"

/* The importing host's: its ids, and the host the document came from (ImportRuns' host). */
static const char *const own_columns[] = { "id", "job_id", "device_id", "origin_host" };

/* What the declared type does not say: values that are JSON, a clock offset of either sign, and
 * what a run always has although the table has a default or allows NULL. */
static const struct {
        const char *name;
        ImportKind kind;
        bool required;
} import_kinds[] = {
        { "uuid", IMPORT_TEXT, true },
        { "step", IMPORT_INT, true },
        { "repeat", IMPORT_INT, true },
        { "status", IMPORT_TEXT, true },
        { "members", IMPORT_JSON, false },
        { "environment", IMPORT_JSON, false },
        { "fs_commands", IMPORT_JSON, false },
        { "layout_commands", IMPORT_JSON, false },
        { "fleet_clock_offset_us", IMPORT_OFFSET, false },
};

bool import_column_is_own(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(own_columns); i++)
                if (streq(own_columns[i], name))
                        return true;
        return false;
}

static int kind_of(Db *db, const char *name, const char *type, ImportKind *ret_kind, bool *ret_required) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);

                if (!ki->runs_column || !streq(ki->runs_column, name))
                        continue;
                *ret_kind = ki->kind == SPEC_KIND_STRING ? IMPORT_TEXT :
                        ki->kind == SPEC_KIND_STRV || ki->kind == SPEC_KIND_MAP ? IMPORT_JSON : IMPORT_INT;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(import_kinds); i++)
                if (streq(import_kinds[i].name, name)) {
                        *ret_kind = import_kinds[i].kind;
                        *ret_required = *ret_required || import_kinds[i].required;
                        return 0;
                }
        if (strcasecmp(type, "INTEGER") == 0)
                *ret_kind = IMPORT_INT;
        else if (strcasecmp(type, "REAL") == 0)
                *ret_kind = IMPORT_REAL;
        else if (strcasecmp(type, "TEXT") == 0)
                *ret_kind = IMPORT_TEXT;
        else
                return db_fail_msg(db, -EUCLEAN, "runs.%s is of type '%s', which ImportRuns cannot read: give it "
                                   "a kind in db-import-columns.c", name, type);
        return 0;
}

/* The columns import_layout_check() holds to their rules. */
static const char *const layout_names[] = {
        "layout", "md_array", "md_resync", "md_resync_usec", "md_chunk_bytes", "layout_commands", "lvm_vg",
        "lv_extents", "lv_bytes", "partitions", "partition", "fs_commands",
};

/* Each name the registry, import_kinds[] or layout_names[] gives is a column the import reads. */
static int names_known(Db *db, const ImportColumns *cols) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = spec_key_info(k);

                if (ki->runs_column && !import_value(cols, NULL, ki->runs_column))
                        return db_fail_msg(db, -EUCLEAN, "spec key %s is recorded in runs.%s, which the database "
                                           "does not have", ki->name, ki->runs_column);
        }
        for (size_t i = 0; i < ELEMENTSOF(import_kinds); i++)
                if (!import_value(cols, NULL, import_kinds[i].name))
                        return db_fail_msg(db, -EUCLEAN, "ImportRuns reads runs.%s, which the database does not have",
                                           import_kinds[i].name);
        for (size_t i = 0; i < ELEMENTSOF(layout_names); i++)
                if (!import_value(cols, NULL, layout_names[i]))
                        return db_fail_msg(db, -EUCLEAN, "ImportRuns reads runs.%s, which the database does not have",
                                           layout_names[i]);
        return 0;
}

int import_columns_make(Db *db, ImportColumns *ret) {
        _cleanup_finalize_ sqlite3_stmt *st = NULL;
        int r;

        /* uuid first: a refusal of any other column names the run by it. */
        r = db_prepare(db, "SELECT name, type, \"notnull\" AND dflt_value IS NULL FROM pragma_table_info('runs') "
                       "ORDER BY name != 'uuid', cid", &st);
        if (r < 0)
                return r;
        ret->n = 0;
        for (;;) {
                const char *name, *type;
                ImportColumn *c;

                r = db_step_row(db, st);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                name = (const char *) sqlite3_column_text(st, 0);
                type = (const char *) sqlite3_column_text(st, 1);
                if (!name || import_column_is_own(name))
                        continue;
                if (ret->n >= IMPORT_COLUMNS_MAX || strlen(name) >= sizeof(c->name))
                        return db_fail_msg(db, -EUCLEAN, "runs has more than %u columns, or one of a name longer "
                                           "than %zu bytes (%s): raise IMPORT_COLUMNS_MAX", IMPORT_COLUMNS_MAX,
                                           sizeof(c->name) - 1, name);
                c = &ret->c[ret->n];
                *c = (ImportColumn) { .required = sqlite3_column_int(st, 2) != 0 };
                strcpy(c->name, name);
                r = kind_of(db, name, type ?: "", &c->kind, &c->required);
                if (r < 0)
                        return r;
                ret->n++;
        }
        return names_known(db, ret);
}

const ImportValue *import_value(const ImportColumns *cols, const ImportValue *v, const char *name) {
        static const ImportValue present = { .present = true };

        for (size_t i = 0; i < cols->n; i++)
                if (streq(cols->c[i].name, name))
                        return v ? &v[i] : &present;
        return NULL;
}

/* ---- the layout's columns ---- */

static const ImportValue *value(const ImportColumns *cols, const ImportValue *v, const char *name) {
        const ImportValue *x = import_value(cols, v, name);

        if (!x)
                abort(); /* one of layout_names[]: import_columns_make() made sure runs has it */
        return x;
}

/* The first of names the run gives, or NULL. */
static const char *given(const ImportColumns *cols, const ImportValue *v, const char *const *names, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (value(cols, v, names[i])->present)
                        return names[i];
        return NULL;
}

static int name_check(const ImportColumns *cols, const ImportValue *v, const char *name, const char *what,
                      char **reterr) {
        const ImportValue *x = value(cols, v, name);

        if (x->present && !proto_fs_md_name_valid(x->s))
                return reterr_set(reterr, -EINVAL, "\"%s\" is '%s': it should be the name benchd gives %s, "
                                  "benchd-JOB-ENTRY (e.g. benchd-12-0)", name, CALLER_TEXT(x->s), what);
        return 0;
}

/* A JSON array, as the daemon writes the commands it ran. */
static int commands_check(const ImportColumns *cols, const ImportValue *v, const char *name, char **reterr) {
        _cleanup_json_ json_object *o = NULL;
        const ImportValue *x = value(cols, v, name);

        if (!x->present)
                return 0;
        o = json_tokener_parse(x->s);
        if (!o || !json_object_is_type(o, json_type_array))
                return reterr_set(reterr, -EINVAL, "\"%s\" is %s: it should be a JSON array of the commands run, "
                                  "each {\"command\", \"usec\", ...}", name, o ? "JSON but no array" : "not JSON");
        for (size_t i = 0; i < json_object_array_length(o); i++)
                if (!json_object_is_type(json_object_array_get_idx(o, i), json_type_object))
                        return reterr_set(reterr, -EINVAL, "element %zu of \"%s\" is no JSON object: each command "
                                          "run is one, {\"command\", \"usec\", ...}", i + 1, name);
        return 0;
}

int import_layout_check(const ImportColumns *cols, const ImportValue *v, char **reterr) {
        static const char *const md[] = { "md_array", "md_resync", "md_resync_usec", "md_chunk_bytes" };
        static const char *const lvm[] = { "lvm_vg", "lv_extents", "lv_bytes" };
        const ImportValue *l = value(cols, v, "layout"), *resync = value(cols, v, "md_resync"),
                *extents = value(cols, v, "lv_extents"), *bytes = value(cols, v, "lv_bytes"),
                *parts = value(cols, v, "partitions"), *part = value(cols, v, "partition");
        const char *layout = l->present ? l->s : NULL, *g;
        int r;

        g = given(cols, v, md, ELEMENTSOF(md));
        if (g && !proto_fs_layout_builds_md(layout))
                return reterr_set(reterr, -EINVAL, "\"%s\" is given, but \"layout\" is %s%s%s: only a run of a layout "
                                  "that builds an md array (md-raid0, md-raid1, md-raid5, md-raid10, md-raid1+lvm) "
                                  "has one", g, layout ? "'" : "", layout ? CALLER_TEXT(layout) : "missing",
                                  layout ? "'" : "");
        g = given(cols, v, lvm, ELEMENTSOF(lvm));
        if (g && !proto_fs_layout_is_lvm(layout))
                return reterr_set(reterr, -EINVAL, "\"%s\" is given, but \"layout\" is %s%s%s: only a run of an LVM "
                                  "layout (lvm, md-raid1+lvm) has a volume group", g, layout ? "'" : "",
                                  layout ? CALLER_TEXT(layout) : "missing", layout ? "'" : "");
        if (value(cols, v, "layout_commands")->present && !proto_fs_layout_has_name(layout))
                return reterr_set(reterr, -EINVAL, "\"layout_commands\" is given, but \"layout\" is %s%s%s: only an "
                                  "md or LVM layout is built by commands of its own", layout ? "'" : "",
                                  layout ? CALLER_TEXT(layout) : "missing", layout ? "'" : "");

        r = name_check(cols, v, "md_array", "an md array", reterr);
        if (r >= 0)
                r = name_check(cols, v, "lvm_vg", "a volume group", reterr);
        if (r < 0)
                return r;
        if (resync->present && md_resync_from_string(resync->s) < 0)
                return reterr_set(reterr, -EINVAL, "\"md_resync\" is '%s': it should be wait or assume-clean",
                                  CALLER_TEXT(resync->s));
        if (extents->present != bytes->present || (extents->present && (extents->i == 0 || extents->i > bytes->i)))
                return reterr_set(reterr, -EINVAL, "\"lv_extents\" is %s and \"lv_bytes\" %s: a logical volume has "
                                  "both, each more than 0, and no more extents than bytes",
                                  extents->present ? "given" : "missing", bytes->present ? "given" : "missing");

        if (parts->present != part->present || (parts->present && (parts->i < 1 || parts->i > 16 || part->i < 1 ||
                                                                    part->i > parts->i)))
                return reterr_set(reterr, -EINVAL, "\"partitions\" is %s and \"partition\" %s: a run on partitions "
                                  "has both, partitions from 1 to 16 and partition from 1 to partitions",
                                  parts->present ? "given" : "missing", part->present ? "given" : "missing");

        r = commands_check(cols, v, "fs_commands", reterr);
        if (r >= 0)
                r = commands_check(cols, v, "layout_commands", reterr);
        return r;
}

/* ---- a CHECK the row broke ---- */

/* Where word first stands as a word of its own in text (an identifier of SQL), or NULL. */
static const char *word_at(const char *text, const char *word) {
        size_t n = strlen(word);

        for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
                bool before = p == text || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9'));
                char a = p[n];

                if (before && !(a == '_' || (a >= 'a' && a <= 'z') || (a >= '0' && a <= '9')))
                        return p;
        }
        return NULL;
}

bool import_check_failure(const ImportColumns *cols, const ImportValue *v, const char *msg, char *buf,
                          size_t size) {
        static const char prefix[] = "CHECK constraint failed: ";
        const char *rule, *first = NULL, *name;
        const ImportValue *x;
        size_t k = SIZE_MAX;

        if (!msg || strncmp(msg, prefix, strlen(prefix)) != 0)
                return false;
        rule = msg + strlen(prefix);
        /* The column the rule names first, the one it is about ("steady_state_usec IS NULL OR
         * (steady_state = 1 AND ...)"). */
        for (size_t i = 0; i < cols->n; i++) {
                const char *at = word_at(rule, cols->c[i].name);

                if (at && (!first || at < first)) {
                        first = at;
                        k = i;
                }
        }
        if (k == SIZE_MAX) {
                snprintf(buf, size, "the database takes a run only where %s", rule);
                return true;
        }
        name = cols->c[k].name;
        x = &v[k];
        if (!x->present)
                snprintf(buf, size, "\"%s\" is missing: the database takes a run only where %s", name, rule);
        else if (cols->c[k].kind == IMPORT_INT || cols->c[k].kind == IMPORT_OFFSET)
                snprintf(buf, size, "\"%s\" is %" PRIi64 ": the database takes a run only where %s", name, x->i,
                         rule);
        else if (cols->c[k].kind == IMPORT_REAL)
                snprintf(buf, size, "\"%s\" is %g: the database takes a run only where %s", name, x->d, rule);
        else
                snprintf(buf, size, "\"%s\" is '%s': the database takes a run only where %s", name,
                         CALLER_TEXT(x->s), rule);
        return true;
}
