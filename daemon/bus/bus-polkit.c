/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CheckAuthorization, asked asynchronously (bus-polkit.h). The subject is the caller's unique bus
 * name ("system-bus-name"), which polkit resolves to a process and a session itself, so that no
 * pid is ever taken from the caller. Each query holds a reference to the call it is about and the
 * slot of its pending CheckAuthorization; freeing the query cancels that, so a call whose owner
 * went away (shutdown) leaves nothing behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus-polkit.h"
#include "shared/util.h"

struct PolkitQuery {
        sd_bus_slot *slot;
        char *action;
        char *what;
        bool interactive;
        PolkitQueryFunc callback;
        void *userdata;
};

static bool error_is_absent(const char *name) {
        /* Nobody owns the name and the bus cannot start it. */
        return streq(name, SD_BUS_ERROR_SERVICE_UNKNOWN) || streq(name, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

int polkit_judge(const PolkitAnswer *a, const char *action, const char *what, bool interactive,
                 const char **ret_error_name, char **ret_message) {
        char *msg = NULL;
        PolkitOutcome o;
        int r;

        if (a->error_name && error_is_absent(a->error_name)) {
                o = POLKIT_UNAVAILABLE;
                r = asprintf(&msg, "%s needs root or polkit authorisation (%s), and polkit is not running "
                             "(nobody owns %s on the bus); run it as root, or start polkit", what, action,
                             POLKIT_BUS_NAME);
        } else if (a->error_name) {
                o = POLKIT_FAILED;
                r = asprintf(&msg, "%s needs polkit authorisation (%s), but polkit did not answer (%s: %s); "
                             "try again, or run it as root", what, action, a->error_name,
                             strna(a->error_message));
        } else if (a->is_authorized)
                return POLKIT_ALLOWED;
        else if (a->is_challenge && !interactive) {
                o = POLKIT_INTERACTIVE;
                r = asprintf(&msg, "%s needs polkit authorisation (%s), which needs a password; call again "
                             "allowing interactive authorisation (benchctl asks so on a terminal)", what, action);
        } else if (a->is_challenge) {
                /* Still a challenge although interaction was allowed: polkit found no agent to put it to
                 * (after an agent's prompt, the answer is no challenge, whatever the user did). */
                o = POLKIT_DENIED;
                r = asprintf(&msg, "%s needs polkit authorisation (%s) with a password, and no polkit "
                             "authentication agent runs for this user to ask for it; start one (pkttyagent "
                             "on a terminal, or a desktop session's), ask an administrator for a polkit rule "
                             "granting the action, or run it as root", what, action);
        } else {
                o = POLKIT_DENIED;
                r = asprintf(&msg, "%s is not allowed to this user by polkit (action %s)%s; ask an "
                             "administrator for the action, or run it as root", what, action,
                             a->dismissed ? ": the authentication was dismissed" : "");
        }
        if (r < 0)
                return -ENOMEM;
        *ret_error_name = o == POLKIT_INTERACTIVE ? SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED
                                                  : SD_BUS_ERROR_ACCESS_DENIED;
        *ret_message = msg;
        return o;
}

/* (b is_authorized, b is_challenge, a{ss} details); of the details only polkit.dismissed is used. */
static int read_result(sd_bus_message *reply, PolkitAnswer *a) {
        const char *key, *value;
        int authorized, challenge, r;

        r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_STRUCT, "bba{ss}");
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0)
                return r;
        a->is_authorized = authorized;
        a->is_challenge = challenge;
        r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_ARRAY, "{ss}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "{ss}", &key, &value)) > 0)
                if (streq(key, "polkit.dismissed") && streq(value, "true"))
                        a->dismissed = true;
        return r;
}

static int on_check_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *msg = NULL;
        PolkitQuery *q = userdata;
        PolkitAnswer a = {};
        const char *name = NULL;
        int r;

        q->slot = sd_bus_slot_unref(q->slot);
        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);

                a.error_name = e->name;
                a.error_message = e->message;
        } else if (read_result(reply, &a) < 0) {
                a.error_name = SD_BUS_ERROR_INVALID_ARGS;
                a.error_message = "the reply is not (bba{ss})";
        }

        r = polkit_judge(&a, q->action, q->what, q->interactive, &name, &msg);
        if (r == POLKIT_ALLOWED) {
                q->callback(q, 0, NULL, q->userdata);
                return 0;
        }
        if (r < 0)
                sd_bus_error_set_errno(&error, r);
        else
                sd_bus_error_set(&error, name, msg);
        q->callback(q, r < 0 ? r : -EACCES, &error, q->userdata);
        return 0;
}

int polkit_query_start(sd_bus *bus, sd_bus_message *call, const char *action, const char *what,
                       const char *const *details, PolkitQueryFunc callback, void *userdata,
                       PolkitQuery **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        PolkitQuery *q;
        const char *sender;
        bool interactive;
        int r;

        sender = sd_bus_message_get_sender(call);
        if (!sender)
                return -EBADMSG;
        interactive = sd_bus_message_get_allow_interactive_authorization(call) > 0;

        r = sd_bus_message_new_method_call(bus, &m, POLKIT_BUS_NAME, POLKIT_PATH, POLKIT_INTERFACE,
                                           "CheckAuthorization");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "(sa{sv})s", "system-bus-name", 1, "name", "s", sender, action);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, SD_BUS_TYPE_ARRAY, "{ss}");
        if (r < 0)
                return r;
        for (const char *const *d = details; d && d[0] && d[1]; d += 2) {
                r = sd_bus_message_append(m, "{ss}", d[0], d[1]);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "us", interactive ? POLKIT_FLAG_ALLOW_USER_INTERACTION : 0u, "");
        if (r < 0)
                return r;

        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        q->action = strdup(action);
        q->what = strdup(what);
        q->interactive = interactive;
        q->callback = callback;
        q->userdata = userdata;
        if (!q->action || !q->what) {
                polkit_query_free(q);
                return -ENOMEM;
        }
        r = sd_bus_call_async(bus, &q->slot, m, on_check_reply, q,
                              interactive ? POLKIT_INTERACTIVE_TIMEOUT_USEC : POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                polkit_query_free(q);
                return r;
        }
        *ret = q;
        return 0;
}

PolkitQuery *polkit_query_free(PolkitQuery *q) {
        if (!q)
                return NULL;
        sd_bus_slot_unref(q->slot);
        free(q->action);
        free(q->what);
        free(q);
        return NULL;
}
