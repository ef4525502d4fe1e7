/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The job spec: parsing one key at a time from typed values (D-Bus, JSON) or text (benchctl --set,
 * profile files, the worker protocol), defaults and cross-field rules, and the text and JSON forms.
 *
 * One table describes every key (its name, the kind of value it takes and its bounds), so typed
 * and textual input go through the same conversions and the same range checks, and every message
 * can name the key, the bad value and what would be right. Pure logic: nothing here touches the
 * filesystem; spec-check.c looks at the target.
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
#include "util.h"

#define FILE_SIZE_MAX (UINT64_C(1) << 30)
#define PROFILE_NAME_MAX 64u

static const char *const workload_table[_WORKLOAD_MAX] = {
        [WORKLOAD_READ] = "read",
        [WORKLOAD_WRITE] = "write",
        [WORKLOAD_RANDREAD] = "randread",
        [WORKLOAD_RANDWRITE] = "randwrite",
        [WORKLOAD_RANDRW] = "randrw",
        [WORKLOAD_REWRITE] = "rewrite",
        [WORKLOAD_REREAD] = "reread",
        [WORKLOAD_BACKWARD_READ] = "backward-read",
        [WORKLOAD_STRIDE_READ] = "stride-read",
        [WORKLOAD_SEEKS] = "seeks",
        [WORKLOAD_METADATA] = "metadata",
        [WORKLOAD_PING] = "ping",
};

const char *workload_to_string(Workload w) {
        if (w < 0 || w >= _WORKLOAD_MAX)
                return NULL;
        return workload_table[w];
}

Workload workload_from_string(const char *s) {
        if (!s)
                return _WORKLOAD_INVALID;
        for (int i = 0; i < _WORKLOAD_MAX; i++)
                if (streq(workload_table[i], s))
                        return (Workload) i;
        return _WORKLOAD_INVALID;
}

bool workload_writes(Workload w) {
        switch (w) {
        case WORKLOAD_WRITE:
        case WORKLOAD_RANDWRITE:
        case WORKLOAD_RANDRW:
        case WORKLOAD_REWRITE:
        case WORKLOAD_SEEKS:    /* bonnie++ seeks dirty and rewrite a tenth of the blocks */
        case WORKLOAD_METADATA:
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
                return true;
        default:
                return false;
        }
}

bool workload_needs_layout(Workload w) {
        return workload_reads(w) || w == WORKLOAD_REWRITE;
}

/* Workloads that move file data (everything but metadata), for the size rules. */
static bool workload_is_data(Workload w) {
        return w >= 0 && w < _WORKLOAD_MAX && w != WORKLOAD_METADATA;
}

/* ---- the key table ---- */

const KeyInfo spec_keys[_SPEC_KEY_MAX] = {
        [SPEC_KEY_TARGET]        = { "target", KIND_STRING },
        [SPEC_KEY_PROFILE]       = { "profile", KIND_STRING },
        [SPEC_KEY_WORKLOAD]      = { "workload", KIND_STRING },
        [SPEC_KEY_BLOCK_SIZE]    = { "block_size", KIND_SIZE, SPEC_BLOCK_SIZE_MIN, SPEC_BLOCK_SIZE_MAX },
        [SPEC_KEY_SIZE]          = { "size", KIND_SIZE, 1, SPEC_SIZE_MAX },
        [SPEC_KEY_RUNTIME_MS]    = { "runtime_ms", KIND_NUMBER, 0, SPEC_RUNTIME_MS_MAX },
        [SPEC_KEY_RAMP_MS]       = { "ramp_ms", KIND_NUMBER, 0, SPEC_RUNTIME_MS_MAX },
        [SPEC_KEY_QUEUE_DEPTH]   = { "queue_depth", KIND_NUMBER, 1, SPEC_QUEUE_DEPTH_MAX },
        [SPEC_KEY_JOBS]          = { "jobs", KIND_NUMBER, 1, SPEC_JOBS_MAX },
        [SPEC_KEY_DIRECT]        = { "direct", KIND_BOOL },
        [SPEC_KEY_SYNC]          = { "sync", KIND_STRING },
        [SPEC_KEY_RWMIX_READ]    = { "rwmix_read", KIND_NUMBER, 0, 100 },
        [SPEC_KEY_PATTERN]       = { "pattern", KIND_STRING },
        [SPEC_KEY_STRIDE]        = { "stride", KIND_SIZE, SPEC_BLOCK_SIZE_MIN, SPEC_SIZE_MAX },
        [SPEC_KEY_FILE_COUNT]    = { "file_count", KIND_NUMBER, 1, SPEC_FILE_COUNT_MAX },
        [SPEC_KEY_FILE_SIZE_MIN] = { "file_size_min", KIND_SIZE, 0, FILE_SIZE_MAX },
        [SPEC_KEY_FILE_SIZE_MAX] = { "file_size_max", KIND_SIZE, 0, FILE_SIZE_MAX },
        [SPEC_KEY_DIRS]          = { "dirs", KIND_NUMBER, 1, SPEC_DIRS_MAX },
        [SPEC_KEY_SAMPLE_MS]     = { "sample_ms", KIND_NUMBER, SPEC_SAMPLE_MS_MIN, SPEC_SAMPLE_MS_MAX },
        [SPEC_KEY_LABEL]         = { "label", KIND_STRING },
        [SPEC_KEY_TAGS]          = { "tags", KIND_STRV },
        [SPEC_KEY_DESTRUCTIVE]   = { "destructive", KIND_BOOL },
};

const char *spec_key_to_string(SpecKey k) {
        if (k < 0 || k >= _SPEC_KEY_MAX)
                return NULL;
        return spec_keys[k].name;
}

SpecKey spec_key_from_string(const char *s) {
        if (!s)
                return _SPEC_KEY_INVALID;
        for (int i = 0; i < _SPEC_KEY_MAX; i++)
                if (streq(spec_keys[i].name, s))
                        return (SpecKey) i;
        return _SPEC_KEY_INVALID;
}

/* ---- messages ---- */

_printf_(2, 3)
int spec_fail(char **reterr, const char *fmt, ...) {
        va_list ap;

        if (reterr) {
                char *m = NULL;

                va_start(ap, fmt);
                if (vasprintf(&m, fmt, ap) < 0)
                        m = NULL;
                va_end(ap);
                free(*reterr);
                *reterr = m;
        }
        return -EINVAL;
}

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
                unsigned d = edit_distance(key, spec_keys[i].name);

                if (d < best_d) {
                        best_d = d;
                        best = spec_keys[i].name;
                }
                if (i > 0)
                        strncat(known, ", ", sizeof(known) - strlen(known) - 1);
                strncat(known, spec_keys[i].name, sizeof(known) - strlen(known) - 1);
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

/* Plain decimal, no sign, no suffix. */
static int parse_decimal(const char *s, uint64_t *ret) {
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
        const KeyInfo *ki = &spec_keys[k];
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
                                         ki->kind == KIND_SIZE ? spec_size_text(ki->min, a) : (snprintf(a, sizeof(a), "%" PRIu64, ki->min), a),
                                         ki->kind == KIND_SIZE ? spec_size_text(ki->max, b) : (snprintf(b, sizeof(b), "%" PRIu64, ki->max), b));
                u = (uint64_t) v->i;
                break;
        case SPEC_VALUE_STRING:
                if (!v->s)
                        return spec_fail(reterr, "%s: no value given", ki->name);
                if (ki->kind == KIND_SIZE) {
                        r = parse_size(v->s, &u);
                        if (r == -ERANGE)
                                return spec_fail(reterr, "%s: '%s' is too large; at most %s",
                                                 ki->name, CALLER_TEXT(v->s), spec_size_text(ki->max, b));
                        if (r < 0)
                                return spec_fail(reterr, "%s: '%s' is not a size; use bytes or a number with K, M, G "
                                                 "or T, e.g. 32K", ki->name, CALLER_TEXT(v->s));
                } else {
                        r = parse_decimal(v->s, &u);
                        if (r == -ERANGE)
                                return spec_fail(reterr, "%s: '%s' is too large; at most %" PRIu64,
                                                 ki->name, CALLER_TEXT(v->s), ki->max);
                        if (r < 0)
                                return spec_fail(reterr, "%s: '%s' is not a number; use a decimal integer from %"
                                                 PRIu64 " to %" PRIu64, ki->name, CALLER_TEXT(v->s), ki->min, ki->max);
                }
                break;
        default:
                if (ki->kind == KIND_SIZE)
                        return spec_fail(reterr, "%s: expected a size (an integer number of bytes, or a string such "
                                         "as \"32K\"), got %s", ki->name, value_type_name(v->type));
                return spec_fail(reterr, "%s: expected an integer, got %s", ki->name, value_type_name(v->type));
        }

        if (u < ki->min || u > ki->max) {
                if (ki->kind == KIND_SIZE)
                        return spec_fail(reterr, "%s: %s is out of range; use a size from %s to %s",
                                         ki->name, spec_size_text(u, q), spec_size_text(ki->min, a),
                                         spec_size_text(ki->max, b));
                return spec_fail(reterr, "%s: %" PRIu64 " is out of range; use a value from %" PRIu64 " to %" PRIu64,
                                 ki->name, u, ki->min, ki->max);
        }
        *ret = u;
        return 0;
}

static int parse_sync(const char *s, SyncMode *ret_mode, SyncCall *ret_call) {
        SyncMode mode;
        SyncCall call = SYNC_CALL_FSYNC;
        const char *colon = strchr(s, ':');
        size_t n = colon ? (size_t) (colon - s) : strlen(s);

        if (!colon && streq(s, "fsync")) {
                *ret_mode = SYNC_END;
                *ret_call = SYNC_CALL_FSYNC;
                return 0;
        }
        if (!colon && streq(s, "fdatasync")) {
                *ret_mode = SYNC_END;
                *ret_call = SYNC_CALL_FDATASYNC;
                return 0;
        }
        if (n == 4 && strncmp(s, "none", 4) == 0 && !colon)
                mode = SYNC_NONE;
        else if (n == 3 && strncmp(s, "end", 3) == 0)
                mode = SYNC_END;
        else if (n == 4 && strncmp(s, "each", 4) == 0)
                mode = SYNC_EACH;
        else
                return -EINVAL;

        if (colon) {
                if (streq(colon + 1, "fsync"))
                        call = SYNC_CALL_FSYNC;
                else if (streq(colon + 1, "fdatasync"))
                        call = SYNC_CALL_FDATASYNC;
                else
                        return -EINVAL;
        }
        *ret_mode = mode;
        *ret_call = call;
        return 0;
}

static int parse_pattern(const char *s, PatternKind *ret_kind, uint32_t *ret_pct) {
        uint64_t pct;

        if (streq(s, "random")) {
                *ret_kind = PATTERN_RANDOM;
                *ret_pct = 0;
                return 0;
        }
        if (streq(s, "zero")) {
                *ret_kind = PATTERN_ZERO;
                *ret_pct = 0;
                return 0;
        }
        if (strncmp(s, "compressible:", 13) == 0 && parse_decimal(s + 13, &pct) >= 0 && pct <= 100 &&
            strlen(s + 13) <= 3) {
                *ret_kind = PATTERN_COMPRESSIBLE;
                *ret_pct = (uint32_t) pct;
                return 0;
        }
        return -EINVAL;
}

static bool profile_name_ok(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > PROFILE_NAME_MAX)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
                        return false;
        return true;
}

static bool tag_ok(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > SPEC_TAG_LEN_MAX)
                return false;
        for (const char *p = s; *p; p++)
                if (!(isalnum((unsigned char) *p) || strchr("._:+-", *p)))
                        return false;
        return true;
}

/* Valid UTF-8 without control characters: labels end up in D-Bus strings and in text lines. */
static bool label_ok(const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        while (*p) {
                unsigned n;
                uint32_t c;

                if (*p < 0x80) {
                        if (*p < 0x20 || *p == 0x7f)
                                return false;
                        p++;
                        continue;
                }
                if ((*p & 0xe0) == 0xc0) {
                        n = 1;
                        c = *p & 0x1f;
                } else if ((*p & 0xf0) == 0xe0) {
                        n = 2;
                        c = *p & 0x0f;
                } else if ((*p & 0xf8) == 0xf0) {
                        n = 3;
                        c = *p & 0x07;
                } else
                        return false;
                p++;
                for (unsigned i = 0; i < n; i++, p++) {
                        if ((*p & 0xc0) != 0x80)
                                return false;
                        c = (c << 6) | (*p & 0x3f);
                }
                if ((n == 1 && c < 0x80) || (n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
                    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || (c >= 0x80 && c < 0xa0))
                        return false;
        }
        return true;
}

static int set_string_key(JobSpec *s, SpecKey k, const char *value, char **reterr) {
        switch (k) {
        case SPEC_KEY_TARGET: {
                char *t;

                if (value[0] != '/')
                        return spec_fail(reterr, "target: '%s' is not an absolute path; give the full path of a "
                                         "directory, regular file or block device, e.g. /mnt/scratch",
                                         CALLER_TEXT(value));
                if (strlen(value) >= SPEC_PATH_MAX)
                        return spec_fail(reterr, "target: path is longer than %u bytes; use a shorter path",
                                         SPEC_PATH_MAX);
                for (const char *p = value; *p; p++)
                        if ((unsigned char) *p < 0x20 || *p == 0x7f)
                                return spec_fail(reterr, "target: '%s' contains a control character (newline, "
                                                 "tab, ...); use a path without them", CALLER_TEXT(value));
                t = strdup(value);
                if (!t)
                        return -ENOMEM;
                free(s->target);
                s->target = t;
                return 0;
        }
        case SPEC_KEY_PROFILE: {
                char *t;

                if (!profile_name_ok(value))
                        return spec_fail(reterr, "profile: '%s' is not a profile name; use 1 to %u characters of a-z, "
                                         "0-9, '_' and '-', e.g. dd", CALLER_TEXT(value), PROFILE_NAME_MAX);
                t = strdup(value);
                if (!t)
                        return -ENOMEM;
                free(s->profile);
                s->profile = t;
                return 0;
        }
        case SPEC_KEY_WORKLOAD: {
                Workload w = workload_from_string(value);

                if (w < 0)
                        return spec_fail(reterr, "workload: '%s' is not a workload; use one of read, write, randread, "
                                         "randwrite, randrw, rewrite, reread, backward-read, stride-read, seeks, "
                                         "metadata, ping", CALLER_TEXT(value));
                s->workload = w;
                return 0;
        }
        case SPEC_KEY_SYNC:
                if (parse_sync(value, &s->sync, &s->sync_call) < 0)
                        return spec_fail(reterr, "sync: '%s' is not a sync mode; use none, end or each, optionally "
                                         "with :fsync or :fdatasync, e.g. end:fsync", CALLER_TEXT(value));
                return 0;
        case SPEC_KEY_PATTERN:
                if (parse_pattern(value, &s->pattern, &s->compress_pct) < 0)
                        return spec_fail(reterr, "pattern: '%s' is not a data pattern; use random, zero or "
                                         "compressible:NN with NN from 0 to 100, e.g. compressible:50",
                                         CALLER_TEXT(value));
                return 0;
        case SPEC_KEY_LABEL: {
                char *t;

                if (strlen(value) > SPEC_LABEL_MAX)
                        return spec_fail(reterr, "label: longer than %u bytes; use a shorter label", SPEC_LABEL_MAX);
                if (!label_ok(value))
                        return spec_fail(reterr, "label: '%s' contains control characters or invalid UTF-8; use "
                                         "printable text", CALLER_TEXT(value));
                /* An empty label is no label, so every form of the spec agrees on it. */
                t = value[0] ? strdup(value) : NULL;
                if (value[0] && !t)
                        return -ENOMEM;
                free(s->label);
                s->label = t;
                return 0;
        }
        default:
                return -EINVAL;
        }
}

static int set_tags(JobSpec *s, char *const *tags, char **reterr) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0;

        for (char *const *t = tags; t && *t; t++) {
                if (n >= SPEC_TAGS_MAX)
                        return spec_fail(reterr, "tags: more than %u tags; use at most %u", SPEC_TAGS_MAX,
                                         SPEC_TAGS_MAX);
                if (!tag_ok(*t))
                        return spec_fail(reterr, "tags: '%s' is not a valid tag; use 1 to %u characters of A-Z, a-z, "
                                         "0-9 and . _ : + -", CALLER_TEXT(*t), SPEC_TAG_LEN_MAX);
                for (size_t i = 0; i < n; i++)
                        if (streq(tags[i], *t))
                                return spec_fail(reterr, "tags: '%s' is given twice; give each tag once", *t);
                n++;
        }

        if (n > 0) {
                l = calloc(n + 1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        l[i] = strdup(tags[i]);
                        if (!l[i])
                                return -ENOMEM;
                }
        }
        strv_free(s->tags);
        s->tags = TAKE_PTR(l);
        return 0;
}

static void store_number(JobSpec *s, SpecKey k, uint64_t v) {
        switch (k) {
        case SPEC_KEY_BLOCK_SIZE:    s->block_size = v; break;
        case SPEC_KEY_SIZE:          s->size = v; break;
        case SPEC_KEY_RUNTIME_MS:    s->runtime_ms = v; break;
        case SPEC_KEY_RAMP_MS:       s->ramp_ms = v; break;
        case SPEC_KEY_QUEUE_DEPTH:   s->queue_depth = (uint32_t) v; break;
        case SPEC_KEY_JOBS:          s->jobs = (uint32_t) v; break;
        case SPEC_KEY_RWMIX_READ:    s->rwmix_read = (uint32_t) v; break;
        case SPEC_KEY_STRIDE:        s->stride = v; break;
        case SPEC_KEY_FILE_COUNT:    s->file_count = (uint32_t) v; break;
        case SPEC_KEY_FILE_SIZE_MIN: s->file_size_min = v; break;
        case SPEC_KEY_FILE_SIZE_MAX: s->file_size_max = v; break;
        case SPEC_KEY_DIRS:          s->dirs = (uint32_t) v; break;
        case SPEC_KEY_SAMPLE_MS:     s->sample_ms = (uint32_t) v; break;
        default: break;
        }
}

static int spec_set_key(JobSpec *s, SpecKey k, const SpecValue *v, char **reterr) {
        const KeyInfo *ki = &spec_keys[k];
        uint64_t u = 0;
        int r;

        switch (ki->kind) {
        case KIND_STRING:
                if (v->type != SPEC_VALUE_STRING)
                        return spec_fail(reterr, "%s: expected a string, got %s", ki->name, value_type_name(v->type));
                if (!v->s)
                        return spec_fail(reterr, "%s: no value given", ki->name);
                r = set_string_key(s, k, v->s, reterr);
                break;
        case KIND_SIZE:
        case KIND_NUMBER:
                r = value_to_number(k, v, &u, reterr);
                if (r >= 0)
                        store_number(s, k, u);
                break;
        case KIND_BOOL:
                if (v->type != SPEC_VALUE_BOOL)
                        return spec_fail(reterr, "%s: expected a boolean (true or false), got %s",
                                         ki->name, value_type_name(v->type));
                if (k == SPEC_KEY_DIRECT)
                        s->direct = v->b;
                else
                        s->destructive = v->b;
                r = 0;
                break;
        case KIND_STRV:
                if (v->type != SPEC_VALUE_STRV)
                        return spec_fail(reterr, "%s: expected an array of strings, got %s",
                                         ki->name, value_type_name(v->type));
                r = set_tags(s, v->strv, reterr);
                break;
        default:
                r = -EINVAL;
        }
        if (r < 0)
                return r;

        /* Values that mean "none" leave the key unset, so text and JSON forms agree. */
        if ((k == SPEC_KEY_LABEL && !s->label) || (k == SPEC_KEY_TAGS && !s->tags))
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

int spec_set_from_string(JobSpec *s, const char *key, const char *value, char **reterr) {
        SpecKey k = spec_key_from_string(key);
        SpecValue v;

        if (k < 0)
                return spec_fail_unknown_key(key ?: "", reterr);
        if (!value)
                return spec_fail(reterr, "%s: no value given", key);

        switch (spec_keys[k].kind) {
        case KIND_BOOL: {
                int b = parse_bool_text(value);
                if (b < 0)
                        return spec_fail(reterr, "%s: '%s' is not a boolean; use true or false",
                                         key, CALLER_TEXT(value));
                v = (SpecValue) { .type = SPEC_VALUE_BOOL, .b = b };
                return spec_set_key(s, k, &v, reterr);
        }
        case KIND_STRV: {
                _cleanup_strv_free_ char **l = NULL;
                int r = split_commas(value, &l);
                if (r < 0)
                        return r;
                v = (SpecValue) { .type = SPEC_VALUE_STRV, .strv = l };
                return spec_set_key(s, k, &v, reterr);
        }
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
        };
}

void spec_clear(JobSpec *s) {
        free(s->target);
        free(s->profile);
        free(s->label);
        strv_free(s->tags);
        spec_init(s);
}

static int strdup_opt(const char *s, char **ret) {
        if (!s) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

int spec_copy(const JobSpec *s, JobSpec *ret) {
        JobSpec c = *s;

        c.target = c.profile = c.label = NULL;
        c.tags = NULL;
        if (strdup_opt(s->target, &c.target) < 0 ||
            strdup_opt(s->profile, &c.profile) < 0 ||
            strdup_opt(s->label, &c.label) < 0 ||
            (s->tags && set_tags(&c, s->tags, NULL) < 0)) {
                spec_clear(&c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

static bool strv_equal(char *const *a, char *const *b) {
        for (;; a++, b++) {
                if (!a || !*a || !b || !*b)
                        return (!a || !*a) == (!b || !*b);
                if (!streq(*a, *b))
                        return false;
        }
}

bool spec_equal(const JobSpec *a, const JobSpec *b) {
        return streq_ptr(a->target, b->target) &&
                streq_ptr(a->profile, b->profile) &&
                a->workload == b->workload &&
                a->block_size == b->block_size &&
                a->size == b->size &&
                a->runtime_ms == b->runtime_ms &&
                a->ramp_ms == b->ramp_ms &&
                a->queue_depth == b->queue_depth &&
                a->jobs == b->jobs &&
                a->direct == b->direct &&
                a->sync == b->sync &&
                a->sync_call == b->sync_call &&
                a->rwmix_read == b->rwmix_read &&
                a->pattern == b->pattern &&
                a->compress_pct == b->compress_pct &&
                a->stride == b->stride &&
                a->file_count == b->file_count &&
                a->file_size_min == b->file_size_min &&
                a->file_size_max == b->file_size_max &&
                a->dirs == b->dirs &&
                a->sample_ms == b->sample_ms &&
                streq_ptr(a->label, b->label) &&
                strv_equal(a->tags, b->tags) &&
                a->destructive == b->destructive;
}

int spec_apply(JobSpec *dst, const JobSpec *src) {
        for (int k = 0; k < _SPEC_KEY_MAX; k++) {
                SpecValue v;
                char buf[32];
                int r;

                if (!(src->set_mask & KEY_BIT(k)))
                        continue;
                switch (spec_keys[k].kind) {
                case KIND_STRING:
                        switch (k) {
                        case SPEC_KEY_TARGET:   v.s = src->target; break;
                        case SPEC_KEY_PROFILE:  v.s = src->profile; break;
                        case SPEC_KEY_WORKLOAD: v.s = workload_to_string(src->workload); break;
                        case SPEC_KEY_SYNC:     spec_sync_text(src, buf); v.s = buf; break;
                        case SPEC_KEY_PATTERN:  spec_pattern_text(src, buf); v.s = buf; break;
                        default:                v.s = src->label ?: ""; break;
                        }
                        if (!v.s)
                                continue;
                        v.type = SPEC_VALUE_STRING;
                        break;
                case KIND_BOOL:
                        v = (SpecValue) { .type = SPEC_VALUE_BOOL,
                                          .b = k == SPEC_KEY_DIRECT ? src->direct : src->destructive };
                        break;
                case KIND_STRV:
                        v = (SpecValue) { .type = SPEC_VALUE_STRV, .strv = src->tags };
                        break;
                default:
                        v = (SpecValue) { .type = SPEC_VALUE_UINT, .u = spec_number_of(src, k) };
                }
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

/* Sequential workloads default to 1M blocks, random and latency workloads to 4K. */
static bool workload_big_blocks(Workload w) {
        switch (w) {
        case WORKLOAD_READ:
        case WORKLOAD_WRITE:
        case WORKLOAD_REWRITE:
        case WORKLOAD_REREAD:
        case WORKLOAD_BACKWARD_READ:
        case WORKLOAD_STRIDE_READ:
                return true;
        default:
                return false;
        }
}

static void fill_defaults(JobSpec *s) {
        Workload w = s->workload;
        bool big = workload_big_blocks(w);

        if (!is_set(s, SPEC_KEY_BLOCK_SIZE))
                s->block_size = big ? (UINT64_C(1) << 20) : 4096;
        if (!is_set(s, SPEC_KEY_SIZE))
                s->size = UINT64_C(1) << 30;
        if (!is_set(s, SPEC_KEY_RUNTIME_MS))
                s->runtime_ms = 0;
        if (!is_set(s, SPEC_KEY_RAMP_MS))
                s->ramp_ms = 0;
        if (!is_set(s, SPEC_KEY_QUEUE_DEPTH))
                s->queue_depth = 1;
        if (!is_set(s, SPEC_KEY_JOBS))
                s->jobs = 1;
        if (!is_set(s, SPEC_KEY_DIRECT))
                s->direct = true;
        if (!is_set(s, SPEC_KEY_SYNC)) {
                s->sync = workload_writes(w) ? SYNC_END : SYNC_NONE;
                s->sync_call = SYNC_CALL_FSYNC;
        }
        if (!is_set(s, SPEC_KEY_RWMIX_READ))
                s->rwmix_read = 50;
        if (!is_set(s, SPEC_KEY_PATTERN)) {
                s->pattern = PATTERN_RANDOM;
                s->compress_pct = 0;
        }
        if (!is_set(s, SPEC_KEY_STRIDE))
                s->stride = 4 * s->block_size;
        if (!is_set(s, SPEC_KEY_FILE_COUNT))
                s->file_count = 16384;
        if (!is_set(s, SPEC_KEY_FILE_SIZE_MIN))
                s->file_size_min = 0;
        if (!is_set(s, SPEC_KEY_FILE_SIZE_MAX))
                s->file_size_max = 0;
        if (!is_set(s, SPEC_KEY_DIRS))
                s->dirs = 1;
        if (!is_set(s, SPEC_KEY_SAMPLE_MS))
                s->sample_ms = 1000;
        if (!is_set(s, SPEC_KEY_DESTRUCTIVE))
                s->destructive = false;
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
        /* With a profile, the steps may supply what is missing; check what both sides gave. */
        if (is_set(s, SPEC_KEY_RAMP_MS) && is_set(s, SPEC_KEY_RUNTIME_MS) && s->ramp_ms > 0 &&
            s->ramp_ms >= s->runtime_ms)
                return spec_fail(reterr, "ramp_ms: %" PRIu64 " is not less than runtime_ms %" PRIu64 "; use a ramp "
                                 "shorter than the run", s->ramp_ms, s->runtime_ms);
        if (s->file_size_min > s->file_size_max)
                return spec_fail(reterr, "file_size_min: %" PRIu64 " is larger than file_size_max %" PRIu64 "; use "
                                 "file_size_min <= file_size_max", s->file_size_min, s->file_size_max);
        return 0;
}

static int check_workload(const JobSpec *s, char **reterr) {
        char a[32], b[32], c[32], d[32];

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
        return 0;
}

int spec_finalize(JobSpec *s, char **reterr) {
        int r;

        s->finalized = false;
        if (s->workload >= 0 && !s->profile)
                fill_defaults(s);

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
