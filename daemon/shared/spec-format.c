/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The written forms of a job spec: "key=value" lines (the worker protocol, benchctl, profile
 * steps) and a JSON object (the jobs table, --json), and reading that JSON back when benchd
 * restarts its queue.
 *
 * Kept apart from spec.c, which owns the keys themselves (parsing one value, defaults, the rules
 * between keys): this file only walks the key table and turns what a spec holds into text, and
 * hands JSON values back to spec_set(), so every check stays in one place. Both forms write the
 * same keys (spec_has_value()), and each reads back into an equal spec.
 */

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec-internal.h"
#include "spec.h"
#include "util.h"
#include "json-util.h"

/* ---- values of single keys ---- */

void spec_sync_text(const JobSpec *s, char buf[static 32]) {
        if (s->sync == SYNC_NONE)
                strcpy(buf, "none");
        else
                snprintf(buf, 32, "%s:%s", s->sync == SYNC_EACH ? "each" : "end",
                         s->sync_call == SYNC_CALL_FDATASYNC ? "fdatasync" : "fsync");
}

void spec_pattern_text(const JobSpec *s, char buf[static 32]) {
        if (s->pattern == PATTERN_ZERO)
                strcpy(buf, "zero");
        else if (s->pattern == PATTERN_DEV_ZERO)
                strcpy(buf, "dev-zero");
        else if (s->pattern == PATTERN_COMPRESSIBLE)
                snprintf(buf, 32, "compressible:%" PRIu32, s->compress_pct);
        else
                strcpy(buf, "random");
}

void spec_milli_text(uint32_t milli, char buf[static 32]) {
        int n = snprintf(buf, 32, "%" PRIu32 ".%03" PRIu32, milli / 1000, milli % 1000);

        /* Without trailing zeros, and without the point when nothing follows it. */
        while (n > 0 && buf[n - 1] == '0')
                buf[--n] = 0;
        if (n > 0 && buf[n - 1] == '.')
                buf[--n] = 0;
}

const char *steady_state_kind_to_string(SteadyStateKind k) {
        static const char *const names[_STEADY_STATE_KIND_MAX] = {
                [STEADY_STATE_IOPS] = "iops",
                [STEADY_STATE_BW] = "bw",
                [STEADY_STATE_IOPS_SLOPE] = "iops_slope",
                [STEADY_STATE_BW_SLOPE] = "bw_slope",
        };
        return k > STEADY_STATE_NONE && k < _STEADY_STATE_KIND_MAX ? names[k] : NULL;
}

/* ---- text and JSON ---- */

/* The text form, of every key that has a value but those in skip (bits of SpecKey). */
static int spec_to_text_skip(const JobSpec *s, uint64_t skip, char **ret) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t size = 0;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;

        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = &spec_key_table[k];
                char v[SPEC_TEXT_MAX];

                if ((skip & KEY_BIT(k)) || !spec_has_value(s, k))
                        continue;
                if (ki->kind == SPEC_KIND_MAP) {
                        /* One line per entry: values may hold commas and '='; never a newline. */
                        const SpecMap *m = spec_map_of(s, k);
                        for (size_t i = 0; i < m->n; i++)
                                fprintf(f, "%s.%s=%s\n", ki->name, m->keys[i], m->values[i]);
                        continue;
                }
                fprintf(f, "%s=", ki->name);
                switch (ki->kind) {
                case SPEC_KIND_STRING:
                        fputs(spec_string_of(s, k, v), f);
                        break;
                case SPEC_KIND_BOOL:
                        fputs(spec_number_of(s, k) ? "true" : "false", f);
                        break;
                case SPEC_KIND_STRV: {
                        char **l = spec_strv_of(s, k);
                        for (char **t = l; *t; t++)
                                fprintf(f, "%s%s", t == l ? "" : ",", *t);
                        break;
                }
                case SPEC_KIND_SIZE:
                        fputs(spec_size_text(spec_number_of(s, k), v), f);
                        break;
                default:
                        fprintf(f, "%" PRIu64, spec_number_of(s, k));
                }
                fputc('\n', f);
        }

        if (fflush(f) != 0 || ferror(f))
                return -ENOMEM;
        f = (fclose(f), NULL);
        *ret = TAKE_PTR(buf);
        return 0;
}

int spec_to_text(const JobSpec *s, char **ret) {
        return spec_to_text_skip(s, 0, ret);
}

int spec_to_worker_text(const JobSpec *s, char **ret) {
        uint64_t skip = 0;

        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++)
                if (spec_key_table[k].daemon_resolved)
                        skip |= KEY_BIT(k);
        if (s->filesystems && s->filesystems[0])
                skip |= KEY_BIT(SPEC_KEY_TARGET) | KEY_BIT(SPEC_KEY_DESTRUCTIVE);
        return spec_to_text_skip(s, skip, ret);
}

SpecKey spec_daemon_key(const JobSpec *s) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++)
                if (spec_key_table[k].daemon_resolved && (s->set_mask & KEY_BIT(k)))
                        return k;
        return _SPEC_KEY_INVALID;
}

int spec_to_json(const JobSpec *s, char **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        const char *str;
        char *dup;

        if (!o)
                return -ENOMEM;

        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = &spec_key_table[k];
                json_object *v = NULL;
                char buf[SPEC_TEXT_MAX];

                if (!spec_has_value(s, k))
                        continue;
                switch (ki->kind) {
                case SPEC_KIND_STRING:
                        v = json_object_new_string(spec_string_of(s, k, buf));
                        break;
                case SPEC_KIND_BOOL:
                        v = json_object_new_boolean(spec_number_of(s, k) != 0);
                        break;
                case SPEC_KIND_STRV:
                        v = json_object_new_array();
                        for (char **t = spec_strv_of(s, k); v && *t; t++) {
                                json_object *e = json_object_new_string(*t);
                                if (!e || json_object_array_add(v, e) < 0) {
                                        json_object_put(e);
                                        json_object_put(v);
                                        v = NULL;
                                }
                        }
                        break;
                case SPEC_KIND_MAP: {
                        const SpecMap *m = spec_map_of(s, k);
                        v = json_object_new_object();
                        for (size_t i = 0; v && i < m->n; i++) {
                                json_object *e = json_object_new_string(m->values[i]);
                                if (!e || json_object_object_add(v, m->keys[i], e) < 0) {
                                        json_object_put(e);
                                        json_object_put(v);
                                        v = NULL;
                                }
                        }
                        break;
                }
                default:
                        v = json_object_new_int64((int64_t) spec_number_of(s, k));
                }
                if (!v || json_object_object_add(o, ki->name, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }

        str = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!str)
                return -ENOMEM;
        dup = strdup(str);
        if (!dup)
                return -ENOMEM;
        *ret = dup;
        return 0;
}

int spec_from_json(JobSpec *s, const char *json, char **reterr) {
        _cleanup_json_ json_object *o = NULL;
        enum json_tokener_error jerr = json_tokener_success;

        if (!json)
                return spec_fail(reterr, "spec: no JSON given");
        o = json_tokener_parse_verbose(json, &jerr);
        if (!o || jerr != json_tokener_success)
                return spec_fail(reterr, "spec: not valid JSON (%s); expected an object of spec keys",
                                 json_tokener_error_desc(jerr));
        if (!json_object_is_type(o, json_type_object))
                return spec_fail(reterr, "spec: expected a JSON object of spec keys");

        json_object_object_foreach(o, key, val) {
                _cleanup_free_ char **strv = NULL, **values = NULL;
                SpecValue v;
                int r;

                switch (json_object_get_type(val)) {
                case json_type_string:
                        v = (SpecValue) { .type = SPEC_VALUE_STRING, .s = json_object_get_string(val) };
                        /* "\u0000" would cut the value short unseen. */
                        if (strlen(v.s) != (size_t) json_object_get_string_len(val))
                                return spec_fail(reterr, "%s: the value contains a NUL character; remove it", key);
                        break;
                case json_type_boolean:
                        v = (SpecValue) { .type = SPEC_VALUE_BOOL, .b = json_object_get_boolean(val) };
                        break;
                case json_type_int: {
                        int64_t i = json_object_get_int64(val);
                        if (i == INT64_MAX)
                                v = (SpecValue) { .type = SPEC_VALUE_UINT, .u = json_object_get_uint64(val) };
                        else
                                v = (SpecValue) { .type = SPEC_VALUE_INT, .i = i };
                        break;
                }
                case json_type_array: {
                        size_t n = json_object_array_length(val);

                        strv = calloc(n + 1, sizeof(char *));
                        if (!strv)
                                return -ENOMEM;
                        for (size_t i = 0; i < n; i++) {
                                json_object *e = json_object_array_get_idx(val, i);
                                if (!json_object_is_type(e, json_type_string))
                                        return spec_fail(reterr, "%s: expected an array of strings, got an "
                                                         "array with a %s", key,
                                                         json_type_to_name(json_object_get_type(e)));
                                strv[i] = (char *) json_object_get_string(e);
                                if (strlen(strv[i]) != (size_t) json_object_get_string_len(e))
                                        return spec_fail(reterr, "%s: an item contains a NUL character; "
                                                         "remove it", key);
                        }
                        v = (SpecValue) { .type = SPEC_VALUE_STRV, .strv = strv };
                        break;
                }
                case json_type_object: {
                        /* A map; strv holds its keys. Bounded by the JSON's size (the jobs table's
                         * own spec, or a caller's bounded message); spec_set() counts entries. */
                        size_t n = (size_t) json_object_object_length(val), i = 0;

                        strv = calloc(n + 1, sizeof(char *));
                        values = calloc(n + 1, sizeof(char *));
                        if (!strv || !values)
                                return -ENOMEM;
                        json_object_object_foreach(val, sub, e) {
                                if (!json_object_is_type(e, json_type_string))
                                        return spec_fail(reterr, "%s: expected an object of strings, got an "
                                                         "object with a %s", key,
                                                         json_type_to_name(json_object_get_type(e)));
                                values[i] = (char *) json_object_get_string(e);
                                if (strlen(values[i]) != (size_t) json_object_get_string_len(e))
                                        return spec_fail(reterr, "%s: a value contains a NUL character; "
                                                         "remove it", key);
                                strv[i++] = sub;
                        }
                        v = (SpecValue) { .type = SPEC_VALUE_MAP, .map = { strv, values, i } };
                        break;
                }
                default:
                        if (spec_key_from_string(key) < 0)
                                return spec_fail_unknown_key(key, reterr);
                        return spec_fail(reterr, "%s: unsupported JSON value of type %s", key,
                                         json_type_to_name(json_object_get_type(val)));
                }

                r = spec_set(s, key, &v, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}
