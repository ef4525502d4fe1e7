/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The job spec: parsing one key at a time from typed values (D-Bus, JSON) or text (benchctl --set,
 * profile files, the worker protocol), defaults and cross-field rules, and the text and JSON forms.
 *
 * Every key is a row of the registry (spec-keys.c: its name, kind, bounds, field, default), so
 * typed and textual input go through the same conversions and the same range checks, and every
 * message can name the key, the bad value and what would be right. Nothing here names a key but
 * the rules between keys (spec_finalize). Pure logic: nothing here touches the filesystem;
 * spec-check.c looks at the target.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec-internal.h"
#include "spec.h"
#include "strv.h"
#include "util.h"

bool workload_writes(Workload w) {
        switch (w) {
        case WORKLOAD_WRITE:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_RANDRW:
        case WORKLOAD_REWRITE:
        case WORKLOAD_SEEKS:    /* bonnie++ seeks dirty and rewrite a tenth of the blocks */
        case WORKLOAD_METADATA:
        case WORKLOAD_PUTC:
        case WORKLOAD_READ_MODIFY_WRITE:
                return true;
        default:
                return false;
        }
}

bool workload_reads(Workload w) {
        switch (w) {
        case WORKLOAD_READ:
        case WORKLOAD_RANDREAD:
        case WORKLOAD_RANDRW:
        case WORKLOAD_REREAD:
        case WORKLOAD_BACKWARD_READ:
        case WORKLOAD_STRIDE_READ:
        case WORKLOAD_SEEKS:
        case WORKLOAD_PING:
        case WORKLOAD_POSITION:
        case WORKLOAD_GETC:
        case WORKLOAD_READ_MODIFY_WRITE:
                return true;
        default:
                return false;
        }
}

bool workload_needs_layout(Workload w) {
        return workload_reads(w) || w == WORKLOAD_REWRITE;
}

bool workload_on_directory(Workload w) {
        /* Every workload but position (a block device's surface) works on files in a directory. */
        return w >= 0 && w < _WORKLOAD_MAX && w != WORKLOAD_POSITION;
}

bool workload_queues_io(Workload w) {
        switch (w) {
        case WORKLOAD_READ:
        case WORKLOAD_WRITE:
        case WORKLOAD_RANDREAD:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_RANDRW:
        case WORKLOAD_REWRITE:
        case WORKLOAD_REREAD:
        case WORKLOAD_BACKWARD_READ:
        case WORKLOAD_STRIDE_READ:
        case WORKLOAD_POSITION:
                return true;
        default:
                return false;
        }
}

bool workload_per_char(Workload w) {
        return w == WORKLOAD_PUTC || w == WORKLOAD_GETC;
}

/* Workloads that move file data (everything but metadata), for the size rules. */
static bool workload_is_data(Workload w) {
        return w >= 0 && w < _WORKLOAD_MAX && w != WORKLOAD_METADATA;
}

const char *spec_key_to_string(SpecKey k) {
        if (k < 0 || k >= _SPEC_KEY_MAX)
                return NULL;
        return spec_key_table[k].name;
}

SpecKey spec_key_from_string(const char *s) {
        if (!s)
                return _SPEC_KEY_INVALID;
        for (int i = 0; i < _SPEC_KEY_MAX; i++)
                if (streq(spec_key_table[i].name, s))
                        return (SpecKey) i;
        return _SPEC_KEY_INVALID;
}

/* ---- messages ---- */

static const char *value_type_name(SpecValueType t) {
        switch (t) {
        case SPEC_VALUE_STRING:
                return "a string";
        case SPEC_VALUE_INT:
        case SPEC_VALUE_UINT:
                return "an integer";
        case SPEC_VALUE_BOOL:
                return "a boolean";
        case SPEC_VALUE_STRV:
                return "a string array";
        case SPEC_VALUE_MAP:
                return "a dictionary of strings";
        }
        return "an unknown type";
}

/* "32K" when exact, else plain bytes; always readable back by parse_size(). */
const char *spec_size_text(uint64_t v, char buf[static 32]) {
        static const char suffix[] = "KMGTPE";
        int i = -1;

        while (v >= 1024 && v % 1024 == 0 && i < 5) {
                v /= 1024;
                i++;
        }
        if (i < 0)
                snprintf(buf, 32, "%" PRIu64, v);
        else
                snprintf(buf, 32, "%" PRIu64 "%c", v, suffix[i]);
        return buf;
}

/* Levenshtein distance, capped, for "did you mean" on unknown keys. */
static unsigned edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        unsigned row[64];

        if (la >= ELEMENTSOF(row) || lb >= ELEMENTSOF(row))
                return UINT32_MAX;
        for (size_t j = 0; j <= lb; j++)
                row[j] = (unsigned) j;
        for (size_t i = 1; i <= la; i++) {
                unsigned prev = row[0];
                row[0] = (unsigned) i;
                for (size_t j = 1; j <= lb; j++) {
                        unsigned cur = row[j];
                        unsigned cost = tolower((unsigned char) a[i - 1]) != tolower((unsigned char) b[j - 1]);
                        row[j] = MIN(MIN(row[j] + 1, row[j - 1] + 1), prev + cost);
                        prev = cur;
                }
        }
        return row[lb];
}

int spec_fail_unknown_key(const char *key, char **reterr) {
        char known[512] = "";
        const char *best = NULL;
        unsigned best_d = 3; /* suggest only close matches */
        bool printable = true;

        for (int i = 0; i < _SPEC_KEY_MAX; i++) {
                unsigned d = edit_distance(key, spec_key_table[i].name);

                if (d < best_d) {
                        best_d = d;
                        best = spec_key_table[i].name;
                }
                if (i > 0)
                        strncat(known, ", ", sizeof(known) - strlen(known) - 1);
                strncat(known, spec_key_table[i].name, sizeof(known) - strlen(known) - 1);
        }

        /* Never echo an overlong or binary key back. */
        for (const char *p = key; *p; p++)
                if (!isprint((unsigned char) *p))
                        printable = false;
        if (!printable || strlen(key) > 64)
                return spec_fail(reterr, "unknown key; known keys: %s", known);
        if (best)
                return spec_fail(reterr, "unknown key '%s'; did you mean '%s'? known keys: %s", key, best, known);
        return spec_fail(reterr, "unknown key '%s'; known keys: %s", key, known);
}

/* ---- value parsing ---- */

int parse_size(const char *s, uint64_t *ret) {
        uint64_t v = 0, mult = 1;
        const char *p = s;

        if (!s || !isdigit((unsigned char) *p))
                return -EINVAL;  /* empty, sign, space or garbage */

        for (; isdigit((unsigned char) *p); p++) {
                unsigned d = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }

        if (*p) {
                static const char units[] = "KMGTPE";
                const char *u = strchr(units, toupper((unsigned char) *p));

                if (u && *p) {
                        mult = UINT64_C(1) << (10 * (unsigned) (u - units + 1));
                        p++;
                        if (strcasecmp(p, "iB") == 0 || strcasecmp(p, "B") == 0)
                                p += strlen(p);
                } else if (strcasecmp(p, "B") == 0)
                        p++;
                if (*p)
                        return -EINVAL;
        }

        if (mult > 1 && v > UINT64_MAX / mult)
                return -ERANGE;
        *ret = v * mult;
        return 0;
}

int spec_parse_decimal(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                unsigned d;

                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                d = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

static int parse_bool_text(const char *s) {
        static const char *const yes[] = { "true", "yes", "1", "on" };
        static const char *const no[] = { "false", "no", "0", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

/* A size or count from any value type, checked against the key's bounds. */
static int value_to_number(SpecKey k, const SpecValue *v, uint64_t *ret, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        char a[32], b[32], q[80];
        uint64_t u;
        int r;

        switch (v->type) {
        case SPEC_VALUE_UINT:
                u = v->u;
                break;
        case SPEC_VALUE_INT:
                if (v->i < 0)
                        return spec_fail(reterr, "%s: %" PRIi64 " is negative; use a value from %s to %s",
                                         ki->name, v->i,
                                         ki->kind == SPEC_KIND_SIZE ? spec_size_text(ki->min, a) : (snprintf(a, sizeof(a), "%" PRIu64, ki->min), a),
                                         ki->kind == SPEC_KIND_SIZE ? spec_size_text(ki->max, b) : (snprintf(b, sizeof(b), "%" PRIu64, ki->max), b));
                u = (uint64_t) v->i;
                break;
        case SPEC_VALUE_STRING:
                if (!v->s)
                        return spec_fail(reterr, "%s: no value given", ki->name);
                if (ki->kind == SPEC_KIND_SIZE) {
                        r = parse_size(v->s, &u);
                        if (r == -ERANGE)
                                return spec_fail(reterr, "%s: '%s' is too large; at most %s",
                                                 ki->name, CALLER_TEXT(v->s), spec_size_text(ki->max, b));
                        if (r < 0)
                                return spec_fail(reterr, "%s: '%s' is not a size; use bytes or a number with K, M, G "
                                                 "or T, e.g. 32K", ki->name, CALLER_TEXT(v->s));
                } else {
                        r = spec_parse_decimal(v->s, &u);
                        if (r == -ERANGE)
                                return spec_fail(reterr, "%s: '%s' is too large; at most %" PRIu64,
                                                 ki->name, CALLER_TEXT(v->s), ki->max);
                        if (r < 0)
                                return spec_fail(reterr, "%s: '%s' is not a number; use a decimal integer from %"
                                                 PRIu64 " to %" PRIu64, ki->name, CALLER_TEXT(v->s), ki->min, ki->max);
                }
                break;
        default:
                if (ki->kind == SPEC_KIND_SIZE)
                        return spec_fail(reterr, "%s: expected a size (an integer number of bytes, or a string such "
                                         "as \"32K\"), got %s", ki->name, value_type_name(v->type));
                return spec_fail(reterr, "%s: expected an integer, got %s", ki->name, value_type_name(v->type));
        }

        if (u < ki->min || u > ki->max) {
                if (ki->kind == SPEC_KIND_SIZE)
                        return spec_fail(reterr, "%s: %s is out of range; use a size from %s to %s",
                                         ki->name, spec_size_text(u, q), spec_size_text(ki->min, a),
                                         spec_size_text(ki->max, b));
                return spec_fail(reterr, "%s: %" PRIu64 " is out of range; use a value from %" PRIu64 " to %" PRIu64,
                                 ki->name, u, ki->min, ki->max);
        }
        *ret = u;
        return 0;
}

/* A string list key: at most ki->max items, each passing the key's check, none twice. An empty
 * list leaves the field NULL. */
static int set_strv(JobSpec *s, SpecKey k, char *const *items, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        char ***field = (char ***) ((uint8_t *) s + ki->offset);
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;
        int r;

        for (char *const *t = items; t && *t; t++) {
                if (n >= ki->max)
                        return spec_fail(reterr, "%s: more than %" PRIu64 " %s; use at most %" PRIu64, ki->name,
                                         ki->max, ki->name, ki->max);
                r = ki->check_item(ki->name, *t, reterr);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n; i++)
                        if (streq(items[i], *t))
                                return spec_fail(reterr, "%s: '%s' is given twice; give each %s once", ki->name,
                                                 CALLER_TEXT(*t), ki->item);
                n++;
        }

        if (n > 0) {
                l = calloc(n + 1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        l[i] = strdup(items[i]);
                        if (!l[i])
                                return -ENOMEM;
                }
        }
        strv_free(*field);
        *field = TAKE_PTR(l);
        return 0;
}

static int spec_set_key(JobSpec *s, SpecKey k, const SpecValue *v, char **reterr) {
        const SpecKeyInfo *ki = &spec_key_table[k];
        uint64_t u = 0;
        int r;

        switch (ki->kind) {
        case SPEC_KIND_STRING:
                if (v->type != SPEC_VALUE_STRING)
                        return spec_fail(reterr, "%s: expected a string, got %s", ki->name, value_type_name(v->type));
                if (!v->s)
                        return spec_fail(reterr, "%s: no value given", ki->name);
                r = spec_parse_value(s, k, v->s, reterr);
                break;
        case SPEC_KIND_SIZE:
        case SPEC_KIND_NUMBER:
                r = value_to_number(k, v, &u, reterr);
                if (r >= 0)
                        spec_store_number(s, k, u);
                break;
        case SPEC_KIND_BOOL:
                if (v->type != SPEC_VALUE_BOOL)
                        return spec_fail(reterr, "%s: expected a boolean (true or false), got %s",
                                         ki->name, value_type_name(v->type));
                spec_store_number(s, k, v->b);
                r = 0;
                break;
        case SPEC_KIND_STRV:
                if (v->type != SPEC_VALUE_STRV)
                        return spec_fail(reterr, "%s: expected an array of strings, got %s",
                                         ki->name, value_type_name(v->type));
                r = set_strv(s, k, v->strv, reterr);
                break;
        case SPEC_KIND_MAP:
                if (v->type != SPEC_VALUE_MAP)
                        return spec_fail(reterr, "%s: expected a dictionary of strings (by %s), got %s",
                                         ki->name, ki->item, value_type_name(v->type));
                r = spec_set_map(s, k, v->map.keys, v->map.values, v->map.n, reterr);
                break;
        default:
                r = -EINVAL;
        }
        if (r < 0)
                return r;

        /* Values that mean "none" (an empty label, list or map) leave the key unset, so text and
         * JSON forms agree. */
        if (ki->optional && !spec_has_value(s, k))
                s->set_mask &= ~KEY_BIT(k);
        else
                s->set_mask |= KEY_BIT(k);
        s->finalized = false;
        return 0;
}

int spec_set(JobSpec *s, const char *key, const SpecValue *v, char **reterr) {
        SpecKey k = spec_key_from_string(key);

        if (k < 0)
                return spec_fail_unknown_key(key ?: "", reterr);
        return spec_set_key(s, k, v, reterr);
}

/* Splits "a,b,c" (empty items dropped) into a new strv. */
static int split_commas(const char *value, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        _cleanup_free_ char *copy = strdup(value);
        size_t n = 0;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        l = calloc(strlen(value) / 2 + 2, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                l[n] = strdup(t);
                if (!l[n])
                        return -ENOMEM;
                n++;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

/* "mkfs_options.ext4": one entry of a map key. */
static int spec_set_sub_from_string(JobSpec *s, const char *key, const char *value, char **reterr) {
        _cleanup_free_ char *base = NULL;
        const char *dot = strchr(key, '.');
        SpecKey k;
        int r;

        base = strndup(key, (size_t) (dot - key));
        if (!base)
                return -ENOMEM;
        k = spec_key_from_string(base);
        if (k < 0)
                return spec_fail_unknown_key(key, reterr);
        if (spec_key_table[k].kind != SPEC_KIND_MAP)
                return spec_fail(reterr, "%s: %s takes no sub-key; use %s=VALUE", CALLER_TEXT(key), base, base);
        if (!value)
                return spec_fail(reterr, "%s: no value given", CALLER_TEXT(key));

        r = spec_set_map_entry(s, k, dot + 1, value, reterr);
        if (r < 0)
                return r;
        s->set_mask |= KEY_BIT(k);
        s->finalized = false;
        return 0;
}

int spec_set_from_string(JobSpec *s, const char *key, const char *value, char **reterr) {
        SpecKey k = spec_key_from_string(key);
        SpecValue v;

        if (k < 0 && key && strchr(key, '.'))
                return spec_set_sub_from_string(s, key, value, reterr);
        if (k < 0)
                return spec_fail_unknown_key(key ?: "", reterr);
        if (!value)
                return spec_fail(reterr, "%s: no value given", key);

        switch (spec_key_table[k].kind) {
        case SPEC_KIND_BOOL: {
                int b = parse_bool_text(value);
                if (b < 0)
                        return spec_fail(reterr, "%s: '%s' is not a boolean; use true or false",
                                         key, CALLER_TEXT(value));
                v = (SpecValue) { .type = SPEC_VALUE_BOOL, .b = b };
                return spec_set_key(s, k, &v, reterr);
        }
        case SPEC_KIND_STRV: {
                _cleanup_strv_free_ char **l = NULL;
                int r = split_commas(value, &l);
                if (r < 0)
                        return r;
                v = (SpecValue) { .type = SPEC_VALUE_STRV, .strv = l };
                return spec_set_key(s, k, &v, reterr);
        }
        case SPEC_KIND_MAP:
                return spec_fail(reterr, "%s: give one entry per assignment, as %s.%s=VALUE, e.g. %s", key, key,
                                 spec_key_table[k].item, k == SPEC_KEY_MOUNT_OPTIONS ?
                                 "mount_options.btrfs=compress=zstd" : "mkfs_options.ext4=-E lazy_itable_init=0");
        default:
                v = (SpecValue) { .type = SPEC_VALUE_STRING, .s = value };
                return spec_set_key(s, k, &v, reterr);
        }
}

int spec_set_assignment(JobSpec *s, const char *assignment, char **reterr) {
        _cleanup_free_ char *key = NULL;
        const char *eq;

        if (!assignment)
                return spec_fail(reterr, "no assignment given; use key=value, e.g. block_size=32K");
        eq = strchr(assignment, '=');
        if (!eq || eq == assignment)
                return spec_fail(reterr, "'%s' is not an assignment; use key=value, e.g. block_size=32K",
                                 CALLER_TEXT(assignment));
        key = strndup(assignment, (size_t) (eq - assignment));
        if (!key)
                return -ENOMEM;
        return spec_set_from_string(s, key, eq + 1, reterr);
}

/* ---- lifecycle ---- */

void spec_init(JobSpec *s) {
        *s = (JobSpec) {
                .workload = _WORKLOAD_INVALID,
                .layout = _LAYOUT_INVALID,
        };
}

void spec_clear(JobSpec *s) {
        free(s->target);
        free(s->profile);
        free(s->label);
        free(s->fleet_uuid);
        free(s->fleet_host);
        free(s->md_options);
        free(s->lvm_options);
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                uint8_t *p = (uint8_t *) s + spec_key_table[k].offset;

                if (spec_key_table[k].kind == SPEC_KIND_STRV)
                        strv_free(*(char ***) p);
                else if (spec_key_table[k].kind == SPEC_KIND_MAP)
                        spec_map_clear((SpecMap *) p);
        }
        spec_init(s);
}

int spec_copy(const JobSpec *s, JobSpec *ret) {
        JobSpec c = *s;
        bool ok = true;

        /* Nothing of s is shared, so that spec_clear(&c) on failure frees only copies. */
        c.target = c.profile = c.label = c.fleet_uuid = c.fleet_host = c.md_options = c.lvm_options = NULL;
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                uint8_t *p = (uint8_t *) &c + spec_key_table[k].offset;

                if (spec_key_table[k].kind == SPEC_KIND_STRV)
                        *(char ***) p = NULL;
                else if (spec_key_table[k].kind == SPEC_KIND_MAP)
                        *(SpecMap *) p = (SpecMap) {};
        }

        ok = strdup_or_null(s->target, &c.target) >= 0 &&
             strdup_or_null(s->profile, &c.profile) >= 0 &&
             strdup_or_null(s->label, &c.label) >= 0 &&
             strdup_or_null(s->fleet_uuid, &c.fleet_uuid) >= 0 &&
             strdup_or_null(s->fleet_host, &c.fleet_host) >= 0 &&
             strdup_or_null(s->md_options, &c.md_options) >= 0 &&
             strdup_or_null(s->lvm_options, &c.lvm_options) >= 0;
        for (SpecKey k = 0; ok && k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = &spec_key_table[k];
                uint8_t *p = (uint8_t *) &c + ki->offset;

                if (ki->kind == SPEC_KIND_STRV && spec_strv_of(s, k))
                        ok = set_strv(&c, k, spec_strv_of(s, k), NULL) >= 0;
                else if (ki->kind == SPEC_KIND_MAP)
                        ok = spec_map_copy(spec_map_of(s, k), (SpecMap *) p) >= 0;
        }
        if (!ok) {
                spec_clear(&c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

bool spec_equal(const JobSpec *a, const JobSpec *b) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                char ba[SPEC_TEXT_MAX], bb[SPEC_TEXT_MAX];

                switch (spec_key_table[k].kind) {
                case SPEC_KIND_STRING:
                        if (!streq_ptr(spec_string_of(a, k, ba), spec_string_of(b, k, bb)))
                                return false;
                        break;
                case SPEC_KIND_STRV:
                        if (!strv_equal(spec_strv_of(a, k), spec_strv_of(b, k)))
                                return false;
                        break;
                case SPEC_KIND_MAP:
                        if (!spec_map_equal(spec_map_of(a, k), spec_map_of(b, k)))
                                return false;
                        break;
                default:
                        if (spec_number_of(a, k) != spec_number_of(b, k))
                                return false;
                }
        }
        return true;
}

/* The value of key k in s as spec_set_key() takes it; false when it has none. buf holds strings. */
static bool spec_get_value(const JobSpec *s, SpecKey k, char buf[static SPEC_TEXT_MAX], SpecValue *ret) {
        switch (spec_key_table[k].kind) {
        case SPEC_KIND_STRING:
                *ret = (SpecValue) { .type = SPEC_VALUE_STRING, .s = spec_string_of(s, k, buf) };
                return ret->s;
        case SPEC_KIND_BOOL:
                *ret = (SpecValue) { .type = SPEC_VALUE_BOOL, .b = spec_number_of(s, k) != 0 };
                return true;
        case SPEC_KIND_STRV:
                *ret = (SpecValue) { .type = SPEC_VALUE_STRV, .strv = spec_strv_of(s, k) };
                return true;
        case SPEC_KIND_MAP: {
                const SpecMap *m = spec_map_of(s, k);
                *ret = (SpecValue) { .type = SPEC_VALUE_MAP, .map = { m->keys, m->values, m->n } };
                return true;
        }
        default:
                *ret = (SpecValue) { .type = SPEC_VALUE_UINT, .u = spec_number_of(s, k) };
                return true;
        }
}

int spec_apply(JobSpec *dst, const JobSpec *src) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                char buf[SPEC_TEXT_MAX];
                SpecValue v;
                int r;

                if (!(src->set_mask & KEY_BIT(k)) || !spec_get_value(src, k, buf, &v))
                        continue;
                r = spec_set_key(dst, k, &v, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- defaults and cross-field rules ---- */

static bool is_set(const JobSpec *s, SpecKey k) {
        return s->set_mask & KEY_BIT(k);
}

/* Defaults of the keys not given, in the registry's order (so stride sees block_size). */
static void fill_defaults(JobSpec *s) {
        for (SpecKey k = 0; k < _SPEC_KEY_MAX; k++) {
                const SpecKeyInfo *ki = &spec_key_table[k];

                if (is_set(s, k))
                        continue;
                if (ki->fill_default)
                        ki->fill_default(s);
                else if (ki->has_default)
                        spec_store_number(s, k, ki->default_value);
        }
}

/* Rules between keys that hold whether or not a workload was given (profile specs too). */
static int check_common(const JobSpec *s, char **reterr) {
        if (!s->target)
                return spec_fail(reterr, "target: required; give the absolute path of a directory, regular file or "
                                 "block device, e.g. target=/mnt/scratch");
        if (s->profile && s->workload >= 0)
                return spec_fail(reterr, "workload and profile: both given (workload=%s, profile=%s); give one of them",
                                 workload_to_string(s->workload), s->profile);
        if (!s->profile && s->workload < 0)
                return spec_fail(reterr, "workload: required (or profile); give e.g. workload=write or profile=dd");
        if (s->record_sizes && !s->profile)
                return spec_fail(reterr, "record_sizes: given without profile; it picks the steps of a profile by "
                                 "their block_size (profile=iozone record_sizes=4K,64K), a single workload runs "
                                 "the one block_size given");
        if (s->record_sizes && is_set(s, SPEC_KEY_BLOCK_SIZE))
                return spec_fail(reterr, "record_sizes and block_size: both given; block_size would run every step "
                                 "at one size, record_sizes picks the profile's steps of those sizes: give one of "
                                 "them");
        /* With a profile, the steps may supply what is missing; check what both sides gave. */
        if (is_set(s, SPEC_KEY_RAMP_MS) && is_set(s, SPEC_KEY_RUNTIME_MS) && s->ramp_ms > 0 &&
            s->ramp_ms >= s->runtime_ms)
                return spec_fail(reterr, "ramp_ms: %" PRIu64 " is not less than runtime_ms %" PRIu64 "; use a ramp "
                                 "shorter than the run", s->ramp_ms, s->runtime_ms);
        if (s->file_size_min > s->file_size_max)
                return spec_fail(reterr, "file_size_min: %" PRIu64 " is larger than file_size_max %" PRIu64 "; use "
                                 "file_size_min <= file_size_max", s->file_size_min, s->file_size_max);
        if (!s->fleet_uuid && (s->fleet_host || s->fleet_clock_tolerance_ms > 0))
                return spec_fail(reterr, "%s: given without fleet_uuid; the fleet keys describe a job of a fleet run "
                                 "(benchctl run -H HOST -H HOST ...), give fleet_uuid too or leave them out",
                                 s->fleet_host ? "fleet_host" : "fleet_clock_tolerance_ms");
        return 0;
}

/* bonnie++'s per-character tests: one character per write(2) or read(2) through the page cache,
 * so the keys of block I/O mean nothing there. Given explicitly with another value, they are
 * refused rather than ignored, so the run's row says what ran. */
static int check_per_char(const JobSpec *s, char **reterr) {
        const char *w = workload_to_string(s->workload);
        const char *call = s->workload == WORKLOAD_PUTC ? "write" : "read";
        char a[32];

        if (s->block_size != 1)
                return spec_fail(reterr, "block_size: %s given, but workload %s moves one character per %s() call; "
                                 "leave block_size unset (it is recorded as 1)", spec_size_text(s->block_size, a), w,
                                 call);
        if (s->direct)
                return spec_fail(reterr, "direct: true given, but workload %s moves one character per system call "
                                 "through the page cache, as bonnie++'s per-character test does (O_DIRECT cannot "
                                 "move one byte); leave direct unset or set direct=false", w);
        if (s->queue_depth > 1)
                return spec_fail(reterr, "queue_depth: %" PRIu32 " given, but workload %s makes one %s() call after "
                                 "another; leave queue_depth at 1", s->queue_depth, w, call);
        if (s->workload == WORKLOAD_PUTC && s->sync == SYNC_EACH)
                return spec_fail(reterr, "sync: each given, but workload putc would then flush after every character; "
                                 "use sync=end (fsync once, inside the timed region, as bonnie++'s close) or "
                                 "sync=none");
        return 0;
}

/* Repeats and steady state (docs/workloads.md "Repeats and steady state"), on a step's finalized
 * spec. */
static int check_stability(const JobSpec *s, char **reterr) {
        uint32_t min_runs = MAX(s->repeat, SPEC_STABLE_RUNS_MIN);
        char a[SPEC_TEXT_MAX];
        const char *steady;

        /* By value, not by whether it was given: the text and JSON forms of a finalized spec give every
         * key, and must read back. */
        if (s->until_stddev_milli == 0 && s->max_repeats != spec_key_table[SPEC_KEY_MAX_REPEATS].default_value)
                return spec_fail(reterr, "max_repeats: %" PRIu32 " given without until_stddev; it bounds the runs "
                                 "of a step that repeats until it is stable: set until_stddev (e.g. 5), or use "
                                 "repeat=%" PRIu32 " for a fixed count", s->max_repeats, s->max_repeats);
        if (s->until_stddev_milli > 0 && s->max_repeats < min_runs)
                return spec_fail(reterr, "max_repeats: %" PRIu32 " is fewer than the %" PRIu32 " runs until_stddev "
                                 "makes at least (repeat, and never fewer than %u); use max_repeats=%" PRIu32
                                 " or more", s->max_repeats, min_runs, SPEC_STABLE_RUNS_MIN, min_runs);

        if (s->steady_state == STEADY_STATE_NONE) {
                if (s->steady_state_window_ms != spec_key_table[SPEC_KEY_STEADY_STATE_WINDOW_MS].default_value)
                        return spec_fail(reterr, "steady_state_window_ms: %" PRIu32 " given without steady_state; "
                                         "it is the window steady_state judges: set steady_state too, e.g. "
                                         "steady_state=iops:5", s->steady_state_window_ms);
                return 0;
        }
        steady = spec_string_of(s, SPEC_KEY_STEADY_STATE, a); /* "iops:5" */
        if (s->runtime_ms == 0)
                return spec_fail(reterr, "steady_state: %s needs a time-based run, which it can end early; set "
                                 "runtime_ms (e.g. runtime_ms=60000), or leave steady_state out", steady);
        if (s->workload == WORKLOAD_METADATA)
                return spec_fail(reterr, "steady_state: %s given, but workload metadata runs its phases over a "
                                 "fixed number of files; leave steady_state out", steady);
        if (s->steady_state_window_ms < 2 * s->sample_ms)
                return spec_fail(reterr, "steady_state_window_ms: %" PRIu32 " holds fewer than two samples of "
                                 "sample_ms %" PRIu32 "; use at least %" PRIu32 " or a shorter sample_ms",
                                 s->steady_state_window_ms, s->sample_ms, 2 * s->sample_ms);
        if (s->steady_state_window_ms > s->runtime_ms - s->ramp_ms)
                return spec_fail(reterr, "steady_state_window_ms: %" PRIu32 " is longer than the measured phase "
                                 "(runtime_ms %" PRIu64 " - ramp_ms %" PRIu64 "); use a window of at most %" PRIu64
                                 " or a longer runtime_ms", s->steady_state_window_ms, s->runtime_ms, s->ramp_ms,
                                 s->runtime_ms - s->ramp_ms);
        return 0;
}

/* ioengine and refill_buffers shape the block workloads' queued writes: given to a workload
 * that has none, they are refused rather than ignored. */
static int check_engine(const JobSpec *s, char **reterr) {
        const char *w = workload_to_string(s->workload);

        if (s->ioengine != IOENGINE_AUTO && !workload_queues_io(s->workload))
                return spec_fail(reterr, "ioengine: %s given, but workload %s makes one system call after another "
                                 "and queues nothing; leave ioengine unset (auto)",
                                 ioengine_kind_to_string(s->ioengine), w);
        if (s->ioengine == IOENGINE_SYNC && s->queue_depth > 1)
                return spec_fail(reterr, "ioengine: sync completes each I/O before it queues the next, so "
                                 "queue_depth %" PRIu32 " cannot be kept; use queue_depth=1, or ioengine=io_uring "
                                 "or libaio", s->queue_depth);
        if (s->refill_buffers) {
                if (!workload_queues_io(s->workload) || !workload_writes(s->workload))
                        return spec_fail(reterr, "refill_buffers: true given, but workload %s writes no queued "
                                         "blocks; set it only on write, randwrite, randrw or rewrite", w);
                if (s->pattern == PATTERN_ZERO || s->pattern == PATTERN_DEV_ZERO)
                        return spec_fail(reterr, "refill_buffers: true given with pattern=%s, whose buffers hold "
                                         "zeros that no refill changes; use pattern=random or compressible:NN, or "
                                         "leave refill_buffers unset",
                                         s->pattern == PATTERN_ZERO ? "zero" : "dev-zero");
        }
        return 0;
}

static int check_workload(const JobSpec *s, char **reterr) {
        char a[32], b[32], c[32], d[32];
        int r;

        r = check_engine(s, reterr);
        if (r < 0)
                return r;

        /* The registry lets block_size go down to 1 for the per-character workloads only. */
        if (workload_per_char(s->workload)) {
                r = check_per_char(s, reterr);
                if (r < 0)
                        return r;
        } else if (s->block_size < SPEC_BLOCK_SIZE_MIN)
                return spec_fail(reterr, "block_size: %s is out of range; use a size from %s to %s",
                                 spec_size_text(s->block_size, a), spec_size_text(SPEC_BLOCK_SIZE_MIN, b),
                                 spec_size_text(SPEC_BLOCK_SIZE_MAX, c));

        if (s->ramp_ms > 0 && s->runtime_ms == 0)
                return spec_fail(reterr, "ramp_ms: %" PRIu64 " given without runtime_ms; a ramp needs a time-bounded "
                                 "run, set runtime_ms greater than ramp_ms or ramp_ms=0", s->ramp_ms);
        if (s->ramp_ms > 0 && s->ramp_ms >= s->runtime_ms)
                return spec_fail(reterr, "ramp_ms: %" PRIu64 " is not less than runtime_ms %" PRIu64 "; use a ramp "
                                 "shorter than the run", s->ramp_ms, s->runtime_ms);

        if (workload_is_data(s->workload)) {
                if (s->size < s->block_size)
                        return spec_fail(reterr, "size: %s is smaller than block_size %s; use a size of at least %s",
                                         spec_size_text(s->size, a), spec_size_text(s->block_size, b),
                                         spec_size_text(s->block_size, c));
                if (s->direct && s->block_size % SPEC_BLOCK_SIZE_MIN != 0)
                        return spec_fail(reterr, "block_size: %s is not a multiple of 512, which direct I/O needs; use "
                                         "e.g. %s or set direct=false", spec_size_text(s->block_size, a),
                                         spec_size_text(MAX(s->block_size / 512 * 512, SPEC_BLOCK_SIZE_MIN), b));
                if (s->direct && s->size % s->block_size != 0)
                        return spec_fail(reterr, "size: %s is not a multiple of block_size %s, which direct I/O needs; "
                                         "use %s or %s", spec_size_text(s->size, a), spec_size_text(s->block_size, b),
                                         spec_size_text(s->size / s->block_size * s->block_size, c),
                                         spec_size_text((s->size / s->block_size + 1) * s->block_size, d));
                if (s->stride < s->block_size)
                        return spec_fail(reterr, "stride: %s is smaller than block_size %s; use a stride of at "
                                         "least %s",
                                         spec_size_text(s->stride, a), spec_size_text(s->block_size, b),
                                         spec_size_text(s->block_size, c));
                if (s->direct && s->workload == WORKLOAD_STRIDE_READ && s->stride % SPEC_BLOCK_SIZE_MIN != 0)
                        return spec_fail(reterr, "stride: %s is not a multiple of 512, which direct I/O needs; use "
                                         "e.g. %s", spec_size_text(s->stride, a),
                                         spec_size_text(s->stride / 512 * 512, b));
        }
        if (s->workload == WORKLOAD_READ_MODIFY_WRITE && s->queue_depth > 1)
                return spec_fail(reterr, "queue_depth: %" PRIu32 " given, but workload read-modify-write reads each "
                                 "block and writes it back before the next, as bonnie++'s Rewrite does; leave "
                                 "queue_depth at 1", s->queue_depth);
        if (s->workload == WORKLOAD_POSITION) {
                /* One stream walks the offsets in order, and each offset reads size bytes: a run
                 * that is neither parallel nor time-bounded. */
                if (s->jobs > 1)
                        return spec_fail(reterr, "jobs: %" PRIu32 " given, but workload position reads its offsets one "
                                         "after another in one stream; leave jobs at 1", s->jobs);
                if (s->runtime_ms > 0)
                        return spec_fail(reterr, "runtime_ms: %" PRIu64 " given, but workload position reads size "
                                         "bytes at each of its positions and ends; leave runtime_ms at 0 and set "
                                         "size to read more at each offset", s->runtime_ms);
        }
        /* At most 1024 × 64 MiB × 64 = 2^42: no overflow. The worker allocates this for every
         * workload (engine_run()), so it is refused for every workload. */
        uint64_t buffers = (uint64_t) MAX(s->queue_depth, 1u) * s->block_size * MAX(s->jobs, 1u);
        if (buffers > SPEC_BUFFER_BYTES_MAX)
                return spec_fail(reterr, "queue_depth × block_size × jobs: %" PRIu32 " × %s × %" PRIu32 " needs %s "
                                 "of I/O buffers, more than %s; lower queue_depth, block_size or jobs",
                                 s->queue_depth, spec_size_text(s->block_size, a), s->jobs,
                                 spec_size_text(buffers, b), spec_size_text(SPEC_BUFFER_BYTES_MAX, c));
        if (s->workload == WORKLOAD_METADATA &&
            (uint64_t) s->file_count * s->file_size_max > SPEC_SIZE_MAX)
                return spec_fail(reterr, "file_count: %" PRIu32 " files of up to %s exceed %s; use fewer or smaller "
                                 "files", s->file_count, spec_size_text(s->file_size_max, a),
                                 spec_size_text(SPEC_SIZE_MAX, b));
        r = check_stability(s, reterr);
        if (r < 0)
                return r;
        return 0;
}

int spec_finalize(JobSpec *s, char **reterr) {
        int r;

        s->finalized = false;
        if (s->workload >= 0 && !s->profile)
                fill_defaults(s);

        /* First: a matrix may give devices instead of target. */
        r = spec_finalize_matrix(s, reterr);
        if (r < 0)
                return r;
        r = check_common(s, reterr);
        if (r < 0)
                return r;
        if (!s->profile) {
                r = check_workload(s, reterr);
                if (r < 0)
                        return r;
        }
        s->finalized = true;
        return 0;
}

int spec_record_sizes(const JobSpec *s, uint64_t **ret, size_t *ret_n) {
        _cleanup_free_ uint64_t *v = NULL;
        size_t n = strv_length(s->record_sizes);

        if (n > 0) {
                v = calloc(n, sizeof(uint64_t));
                if (!v)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                if (parse_size(s->record_sizes[i], &v[i]) < 0)
                        return -EINVAL;
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

void spec_array_free(JobSpec *steps, size_t n) {
        if (!steps)
                return;
        for (size_t i = 0; i < n; i++)
                spec_clear(&steps[i]);
        free(steps);
}
