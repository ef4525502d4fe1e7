/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Authorisation by polkit, asked without blocking: a PolkitQuery sends CheckAuthorization for the
 * sender of a method call with sd_bus_call_async() and calls back when polkit answers, so that the
 * handler returns 1 at once and the call is answered from the callback (timedated's way). What an
 * answer means (allowed, denied, a challenge, polkit absent) is decided by polkit_judge(), which
 * knows no sd-bus and is unit-tested with a table.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define POLKIT_BUS_NAME  "org.freedesktop.PolicyKit1"
#define POLKIT_PATH      "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"

/* benchd's actions (dbus/org.benchd.benchd1.policy). */
#define BENCHD_ACTION_SUBMIT      "org.benchd.benchd1.submit"
#define BENCHD_ACTION_DESTRUCTIVE "org.benchd.benchd1.destructive"
#define BENCHD_ACTION_CANCEL      "org.benchd.benchd1.cancel"

/* CheckAuthorization's flag: polkit may ask the user (an agent prompts for a password). */
#define POLKIT_FLAG_ALLOW_USER_INTERACTION 1u

/* How long polkit may take: without interaction it answers at once; with it, a person types a
 * password. */
#define POLKIT_TIMEOUT_USEC             (25ULL * 1000000ULL)
#define POLKIT_INTERACTIVE_TIMEOUT_USEC (300ULL * 1000000ULL)

/* What polkit said, as plain data. error_name is the D-Bus error of the CheckAuthorization call,
 * or NULL when it returned (is_authorized, is_challenge, details). polkitd answers a challenge
 * with is_challenge when the call did not allow interaction or no agent could put it to the user;
 * once an agent asked, the answer is no challenge (and "polkit.dismissed" when the prompt was
 * closed). */
typedef struct PolkitAnswer {
        const char *error_name;
        const char *error_message;
        bool is_authorized;
        bool is_challenge;
        bool dismissed;         /* details "polkit.dismissed": the user closed the agent's prompt */
} PolkitAnswer;

typedef enum PolkitOutcome {
        POLKIT_ALLOWED,
        POLKIT_DENIED,          /* AccessDenied */
        POLKIT_INTERACTIVE,     /* InteractiveAuthorizationRequired */
        POLKIT_UNAVAILABLE,     /* no authority on the bus: AccessDenied, only root may */
        POLKIT_FAILED,          /* polkit failed or did not answer: AccessDenied */
} PolkitOutcome;

/* The outcome of answer for action (what: "submitting jobs"), the call interactive or not. Unless
 * POLKIT_ALLOWED, *ret_error_name and *ret_message (malloc'd) say what the caller is told. Returns
 * the outcome, or -ENOMEM. */
int polkit_judge(const PolkitAnswer *answer, const char *action, const char *what, bool interactive,
                 const char **ret_error_name, char **ret_message);

typedef struct PolkitQuery PolkitQuery;

/* Called once, when polkit answered (or did not in time). r is 0 when allowed; else negative, and
 * error says what the caller is to be told. The query is freed by the caller, in or after this. */
typedef void (*PolkitQueryFunc)(PolkitQuery *q, int r, const sd_bus_error *error, void *userdata);

/* Asks polkit whether the sender of call may do action; details are key, value pairs ending with
 * NULL (polkit shows them in the prompt and hands them to rules). Interactive when call has
 * ALLOW_INTERACTIVE_AUTHORIZATION. */
int polkit_query_start(sd_bus *bus, sd_bus_message *call, const char *action, const char *what,
                       const char *const *details, PolkitQueryFunc callback, void *userdata,
                       PolkitQuery **ret);
PolkitQuery *polkit_query_free(PolkitQuery *q);
