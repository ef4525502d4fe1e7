/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ScratchDevices= by identity (scratch.h). A stable name decides on its own; a path decides only
 * through the identity it was bound to, and when the device it names now has another one, that
 * path is what the reason names, so the user learns which entry no longer marks which disk.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devices/scratch.h"
#include "shared/strv.h"
#include "shared/util.h"

#define BY_ID "/dev/disk/by-id/"

static const struct {
        const char *prefix;
        ScratchKind kind;
} prefixes[] = {
        { "wwn:", SCRATCH_WWN },
        { "serial:", SCRATCH_SERIAL },
        { "loop-file:", SCRATCH_LOOP_FILE },
};

static int parse_fail(char **reterr, const char *fmt, ...) _printf_(2, 3);
static int parse_fail(char **reterr, const char *fmt, ...) {
        va_list ap;

        if (reterr) {
                va_start(ap, fmt);
                if (vasprintf(reterr, fmt, ap) < 0)
                        *reterr = NULL;
                va_end(ap);
        }
        return -EINVAL;
}

int scratch_entry_parse(const char *word, ScratchEntry *ret, char **reterr) {
        _cleanup_free_ char *spelling = NULL, *value = NULL;
        ScratchKind kind = SCRATCH_PATH;

        if (!word || !*word)
                return parse_fail(reterr, "an empty name");
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
                size_t len = strlen(prefixes[i].prefix);

                if (strncmp(word, prefixes[i].prefix, len) != 0)
                        continue;
                kind = prefixes[i].kind;
                if (!word[len])
                        return parse_fail(reterr, "%s names nothing: write the value after the colon, e.g. %s",
                                          word, kind == SCRATCH_WWN ? "wwn:0x5000c500a1b2c3d4" :
                                          kind == SCRATCH_SERIAL ? "serial:S6PUNX0R123456A" : "loop-file:/srv/scratch.img");
                if (kind == SCRATCH_LOOP_FILE && word[len] != '/')
                        return parse_fail(reterr, "%s: the backing file must be an absolute path, as losetup --list "
                                          "shows it (loop-file:/srv/scratch.img)", word);
                value = strdup(word + len);
                spelling = strdup(word);
                break;
        }
        if (kind == SCRATCH_PATH) {
                if (word[0] == '/') {
                        if (strncmp(word, "/dev/", 5) != 0 || !word[5])
                                return parse_fail(reterr, "%s is not a device node under /dev; name a block device "
                                                  "(/dev/sdb, /dev/disk/by-id/...), or the image of a loop device "
                                                  "as loop-file:%s", word, word);
                        spelling = strdup(word);
                } else if (strchr(word, '/'))
                        return parse_fail(reterr, "%s is neither an absolute path nor a name under " BY_ID
                                          "; write /dev/... or wwn:, serial:, loop-file:", word);
                else if (asprintf(&spelling, BY_ID "%s", word) < 0)
                        spelling = NULL;
                value = spelling ? strdup(spelling) : NULL;
        }
        if (!spelling || !value)
                return -ENOMEM;
        *ret = (ScratchEntry) {
                .kind = kind,
                .spelling = TAKE_PTR(spelling),
                .value = TAKE_PTR(value),
        };
        return 0;
}

void scratch_entry_clear(ScratchEntry *e) {
        if (!e)
                return;
        free(e->spelling);
        free(e->value);
        free(e->bound);
        free(e->logged);
        *e = (ScratchEntry) {};
}

void scratch_list_clear(ScratchList *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                scratch_entry_clear(&l->entries[i]);
        free(l->entries);
        *l = (ScratchList) {};
}

static int list_push(ScratchList *l, ScratchEntry *e) {
        ScratchEntry *a = realloc(l->entries, (l->n + 1) * sizeof(ScratchEntry));

        if (!a)
                return -ENOMEM;
        l->entries = a;
        l->entries[l->n++] = *e;
        *e = (ScratchEntry) {};
        return 0;
}

int scratch_list_assign(ScratchList *l, const char *value, char ***errors) {
        _cleanup_free_ char *copy = NULL;
        char *word, *save = NULL;
        int r;

        if (!value[strspn(value, " \t")]) {
                scratch_list_clear(l);
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        for (word = strtok_r(copy, " \t", &save); word; word = strtok_r(NULL, " \t", &save)) {
                _cleanup_free_ char *err = NULL;
                ScratchEntry e = {};

                r = scratch_entry_parse(word, &e, &err);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        if (errors && strv_push(errors, err ?: word) < 0)
                                return -ENOMEM;
                        continue;
                }
                r = list_push(l, &e);
                scratch_entry_clear(&e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int scratch_list_copy(const ScratchList *l, ScratchList *ret) {
        ScratchList c = {};

        for (size_t i = 0; i < l->n; i++) {
                const ScratchEntry *s = &l->entries[i];
                ScratchEntry e = { .kind = s->kind, .resolved = s->resolved };

                if (strdup_or_null(s->spelling, &e.spelling) < 0 || strdup_or_null(s->value, &e.value) < 0 ||
                    strdup_or_null(s->bound, &e.bound) < 0 || strdup_or_null(s->logged, &e.logged) < 0 ||
                    list_push(&c, &e) < 0) {
                        scratch_entry_clear(&e);
                        scratch_list_clear(&c);
                        return -ENOMEM;
                }
        }
        *ret = c;
        return 0;
}

static bool names_now(const ScratchEntry *e, const ScratchDevice *d) {
        return e->kind == SCRATCH_PATH && e->resolved != 0 && e->resolved == d->devnum;
}

int scratch_bind(ScratchList *l, const ScratchDevice *d) {
        int n = 0;

        if (!d->identity)
                return 0;
        for (size_t i = 0; i < l->n; i++) {
                ScratchEntry *e = &l->entries[i];

                if (e->bound || !names_now(e, d))
                        continue;
                e->bound = strdup(d->identity);
                if (!e->bound)
                        return -ENOMEM;
                n++;
        }
        return n;
}

static bool entry_marks(const ScratchEntry *e, const ScratchDevice *d) {
        switch (e->kind) {
        case SCRATCH_WWN:
                /* udev writes a WWN in lower-case hex; a user may copy it from elsewhere. */
                return !d->partition && d->wwn && strcasecmp(d->wwn, e->value) == 0;
        case SCRATCH_SERIAL:
                return !d->partition && d->serial && streq(d->serial, e->value);
        case SCRATCH_LOOP_FILE:
                /* sysfs says "(deleted)" after the path of an image that was removed, and gives a
                 * renamed one's new path: equal means the file at that path now. */
                return !d->partition && d->backing_file && streq(d->backing_file, e->value);
        case SCRATCH_PATH:
                return e->bound && d->identity && streq(e->bound, d->identity);
        default:
                return false;
        }
}

ScratchMatch scratch_judge(const ScratchList *l, const ScratchDevice *d, size_t *ret_entry) {
        size_t named = SIZE_MAX;
        ScratchMatch m;

        for (size_t i = 0; i < l->n; i++) {
                if (entry_marks(&l->entries[i], d)) {
                        if (ret_entry)
                                *ret_entry = i;
                        return SCRATCH_MATCH_YES;
                }
                if (named == SIZE_MAX && names_now(&l->entries[i], d))
                        named = i;
        }
        if (ret_entry)
                *ret_entry = named;
        if (named == SIZE_MAX)
                return SCRATCH_MATCH_NONE;
        if (!d->identity)
                m = SCRATCH_MATCH_UNKNOWN;
        else if (!l->entries[named].bound)
                m = SCRATCH_MATCH_UNBOUND;
        else
                m = SCRATCH_MATCH_OTHER;
        return m;
}

int scratch_reason(const ScratchList *l, const ScratchDevice *d, ScratchMatch m, size_t entry,
                   const char *conf_path, char **ret_reason, char **ret_note) {
        const char *conf = conf_path ?: "/etc/benchd/benchd.conf";
        _cleanup_free_ char *reason = NULL, *note = NULL;
        const ScratchEntry *e;
        int r = 0;

        if (m == SCRATCH_MATCH_NONE || entry >= l->n) {
                *ret_reason = NULL;
                if (ret_note)
                        *ret_note = NULL;
                return 0;
        }
        e = &l->entries[entry];
        switch (m) {
        case SCRATCH_MATCH_YES:
                if (e->kind == SCRATCH_PATH)
                        r = asprintf(&reason, "ScratchDevices=%s, bound to %s, the device it named when benchd "
                                     "first saw it", e->spelling, e->bound);
                else
                        r = asprintf(&reason, "ScratchDevices=%s", e->spelling);
                break;
        case SCRATCH_MATCH_OTHER:
                r = asprintf(&reason, "not scratch: ScratchDevices=%s is bound to %s, the device it named when "
                             "benchd first saw it, and %s is %s now; write %s again and restart benchd to bind "
                             "the name to this device, or name the device marked scratch by a stable name "
                             "(wwn:, serial:, loop-file:)", e->spelling, e->bound, d->name, d->identity, conf);
                if (r >= 0)
                        r = asprintf(&note, "it is not the device ScratchDevices=%s marked scratch (that is %s; "
                                     "%s is %s now, and stays not scratch until %s is written again and benchd "
                                     "restarted)", e->spelling, e->bound, d->name, d->identity, conf);
                break;
        case SCRATCH_MATCH_UNBOUND:
                r = asprintf(&reason, "not scratch yet: ScratchDevices=%s names it, but benchd has not bound that "
                             "name to a device yet (it does when it sees the device appear)", e->spelling);
                if (r >= 0)
                        r = asprintf(&note, "ScratchDevices=%s names it, but benchd has not bound that name to a "
                                     "device yet (it does when it sees the device appear; try again)", e->spelling);
                break;
        case SCRATCH_MATCH_UNKNOWN:
                r = asprintf(&reason, "not scratch: ScratchDevices=%s names it, but %s has no identity benchd can "
                             "read (a WWN, a serial, a loop device's backing file), so it cannot be told from "
                             "another device under that name; name it by a stable name there", e->spelling, d->name);
                if (r >= 0)
                        r = asprintf(&note, "ScratchDevices=%s names it, but its identity cannot be read, so it "
                                     "cannot be told from another device under that name", e->spelling);
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return -ENOMEM;
        *ret_reason = TAKE_PTR(reason);
        if (ret_note)
                *ret_note = TAKE_PTR(note);
        return 0;
}
