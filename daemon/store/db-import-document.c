/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ImportRuns' document, around the runs db-import.c judges: JSON of at most
 * DB_IMPORT_DOCUMENT_MAX bytes, {"format": "benchd-export", "version": 1, "host": ..., "runs":
 * [...]}, the host a name of 1..255 characters and at most DB_IMPORT_RUNS_MAX runs. The daemon's
 * ImportRuns and the fuzz target (tests/fuzz/fuzz-import.c) read it here alike.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "shared/json-util.h"
#include "shared/util.h"

static int document_error(char **reterr, const char *what) {
        if (asprintf(reterr, "the import is not a benchd export document: %s; give what benchctl export "
                     "--format=benchd writes ({\"format\": \"benchd-export\", \"version\": 1, "
                     "\"host\": ..., \"runs\": [...]})", what) < 0)
                return -ENOMEM;
        return -EINVAL;
}

int db_import_document_parse(const char *text, struct json_object **ret_doc, const char **ret_host,
                             struct json_object **ret_runs, char **reterr) {
        _cleanup_json_ json_object *doc = NULL;
        json_tokener *tok = NULL;
        json_object *v, *runs;
        size_t n, len;

        len = strlen(text);
        if (len > DB_IMPORT_DOCUMENT_MAX) {
                if (asprintf(reterr, "the import document has %zu bytes, more than the %u one import takes: "
                             "export fewer runs at a time", len, DB_IMPORT_DOCUMENT_MAX) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }

        tok = json_tokener_new_ex(64);
        if (!tok)
                return -ENOMEM;
        doc = json_tokener_parse_ex(tok, text, (int) len);
        if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
                int k = asprintf(reterr, "the import document is not JSON (%s, at byte %zu): give what benchctl "
                                 "export --format=benchd writes",
                                 json_tokener_error_desc(json_tokener_get_error(tok)),
                                 json_tokener_get_parse_end(tok));
                json_tokener_free(tok);
                return k < 0 ? -ENOMEM : -EINVAL;
        }
        json_tokener_free(tok);

        if (!json_object_is_type(doc, json_type_object))
                return document_error(reterr, "it is not a JSON object");
        if (!json_object_object_get_ex(doc, "format", &v) || !json_object_is_type(v, json_type_string) ||
            !streq(json_object_get_string(v), "benchd-export"))
                return document_error(reterr, "its \"format\" is not \"benchd-export\"");
        if (!json_object_object_get_ex(doc, "version", &v) || !json_object_is_type(v, json_type_int) ||
            json_object_get_int64(v) != 1)
                return document_error(reterr, "its \"version\" is not 1, the one this benchd reads");
        if (!json_object_object_get_ex(doc, "host", &v) || !json_object_is_type(v, json_type_string) ||
            json_object_get_string_len(v) < 1 || json_object_get_string_len(v) > 255 ||
            (size_t) json_object_get_string_len(v) != strlen(json_object_get_string(v)))
                return document_error(reterr, "its \"host\" is not a host name of 1..255 characters");
        *ret_host = json_object_get_string(v);
        if (!json_object_object_get_ex(doc, "runs", &runs) || !json_object_is_type(runs, json_type_array))
                return document_error(reterr, "it has no \"runs\" array");
        n = json_object_array_length(runs);
        if (n > DB_IMPORT_RUNS_MAX) {
                if (asprintf(reterr, "the import document has %zu runs, more than the %u one import takes: "
                             "export fewer at a time", n, DB_IMPORT_RUNS_MAX) < 0)
                        return -ENOMEM;
                return -EINVAL;
        }
        *ret_runs = runs;
        *ret_doc = TAKE_PTR(doc);
        return 0;
}
