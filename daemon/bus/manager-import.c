/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ImportRuns: runs measured on another host, as benchctl export --format=benchd wrote them there,
 * added to this host's history (docs/fleet.md "Many machines"), authorised like SubmitJob
 * (manager-import.h). The document is parsed by the store (db_import_document_parse(), which
 * tests/fuzz/fuzz-import.c feeds too) and its runs handed to it (db_runs_import(),
 * store/db-import.c), which checks every column and holds every run to the worker's plausibility
 * rules; a run whose uuid is known already is skipped, so importing a document twice adds
 * nothing. The document goes in whole or not at all: the error says which run was refused and
 * why, and nothing of the document is kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "bus/bus-util.h"
#include "bus/bus-polkit.h"
#include "bus/manager-import.h"
#include "bus/manager.h"
#include "bus/manager-internal.h"
#include "bus/manager-metrics.h"
#include "shared/bus-names.h"
#include "shared/json-util.h"
#include "shared/log.h"
#include "store/db.h"

/* The import itself, once the caller may: parses, checks and stores the document, and answers. */
static int import_now(Manager *m, sd_bus_message *message, uint32_t uid, sd_bus_error *error) {
        _cleanup_json_ json_object *doc = NULL;
        _cleanup_free_ char *err = NULL;
        json_object *runs;
        const char *text, *host;
        uint64_t imported = 0, skipped = 0;
        int r;

        r = sd_bus_message_rewind(message, true);
        if (r >= 0)
                r = sd_bus_message_read(message, "s", &text);
        if (r < 0)
                return r;
        r = db_import_document_parse(text, &doc, &host, &runs, &err);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s", err);
        if (r < 0)
                return r;

        r = db_runs_import(manager_db(m), runs, host, now_usec(CLOCK_REALTIME), &imported, &skipped);
        if (r < 0) {
                log_full(LOG_WARNING, "ImportRuns by uid %" PRIu32 ": the document from %s refused: %s", uid,
                         CALLER_TEXT(host), db_last_error(manager_db(m)));
                return sd_bus_error_setf(error,
                                         r == -EINVAL || r == -E2BIG ? SD_BUS_ERROR_INVALID_ARGS :
                                         r == -ENOSPC ? BENCHD_ERROR_NO_SPACE : SD_BUS_ERROR_FAILED,
                                         "%s", db_last_error(manager_db(m)));
        }
        log_full(LOG_INFO, "ImportRuns by uid %" PRIu32 ": %" PRIu64 " runs from %s imported, %" PRIu64
                 " known already", uid, imported, CALLER_TEXT(host), skipped);
        /* A fleet run's runs gathered here make its all-hosts figures in benchd.prom. */
        if (imported > 0)
                manager_write_metrics(m);
        return sd_bus_reply_method_return(message, "tt", imported, skipped);
}

/* An ImportRuns call waiting for polkit (authorised like SubmitJob: root, or
 * org.benchd.benchd1.submit). */
struct ImportCall {
        Manager *manager;
        ImportCall *prev, *next;
        sd_bus_message *message;
        PolkitQuery *polkit;
        uint32_t uid;
};

static ImportCall *import_call_free(ImportCall *c) {
        if (!c)
                return NULL;
        if (c->prev)
                c->prev->next = c->next;
        else if (c->manager)
                manager_import_state(c->manager)->imports = c->next;
        if (c->next)
                c->next->prev = c->prev;
        if (c->manager)
                manager_import_state(c->manager)->n_imports--;
        polkit_query_free(c->polkit);
        sd_bus_message_unref(c->message);
        free(c);
        return NULL;
}

static void on_import_polkit(PolkitQuery *q, int r, const sd_bus_error *perror, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        ImportCall *c = userdata;

        c->polkit = polkit_query_free(c->polkit);
        if (r < 0) {
                log_full(LOG_INFO, "ImportRuns by uid %" PRIu32 " refused: %s", c->uid,
                         bus_error_text(perror, r));
                if (perror && sd_bus_error_is_set(perror))
                        (void) sd_bus_reply_method_error(c->message, perror);
                else
                        (void) sd_bus_reply_method_errno(c->message, r, NULL);
                import_call_free(c);
                return;
        }
        r = import_now(c->manager, c->message, c->uid, &error);
        if (r < 0 && sd_bus_error_is_set(&error))
                (void) sd_bus_reply_method_error(c->message, &error);
        else if (r < 0)
                (void) sd_bus_reply_method_errno(c->message, r, NULL);
        import_call_free(c);
}

int method_import_runs(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        ImportCall *c;
        uint32_t uid;
        int r;

        r = bus_sender_uid(message, "importing runs", &uid, error);
        if (r < 0)
                return r;
        if (uid == 0)
                return import_now(m, message, uid, error);
        if (manager_is_stopping(m))
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED,
                                        "benchd is shutting down; import again once it runs");
        if (manager_import_state(m)->n_imports >= IMPORT_WAITING_MAX)
                return sd_bus_error_setf(error, BENCHD_ERROR_QUEUE_FULL,
                                         "%u ImportRuns calls wait for polkit already; import again once they "
                                         "are answered", IMPORT_WAITING_MAX);
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->uid = uid;
        r = polkit_query_start(manager_bus(m), message, BENCHD_ACTION_SUBMIT, "importing runs", NULL, on_import_polkit, c,
                               &c->polkit);
        if (r < 0) {
                import_call_free(c);
                if (r == -ENOMEM)
                        return r;
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "cannot ask polkit whether the caller may import runs: %s; try again, or "
                                         "run it as root", strerror(-r));
        }
        c->message = sd_bus_message_ref(message);
        c->manager = m;
        c->next = manager_import_state(m)->imports;
        if (manager_import_state(m)->imports)
                manager_import_state(m)->imports->prev = c;
        manager_import_state(m)->imports = c;
        manager_import_state(m)->n_imports++;
        return 1;
}

void manager_imports_abort(Manager *m) {
        while (manager_import_state(m)->imports) {
                ImportCall *c = manager_import_state(m)->imports;

                (void) sd_bus_reply_method_errorf(c->message, SD_BUS_ERROR_FAILED,
                                                  "benchd is shutting down; import again once it runs");
                import_call_free(c);
        }
}
