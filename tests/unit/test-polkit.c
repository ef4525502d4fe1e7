/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of polkit_judge() (bus/bus-polkit.c): each row is what CheckAuthorization gave (an error
 * name, or is_authorized and is_challenge) and whether the call allowed interaction; out come the
 * outcome, the D-Bus error the caller gets and words its message must carry (the action, what to
 * do). The asynchronous query itself is tested against a stand-in authority in test-polkit.sh.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bus/bus-polkit.h"
#include "check-util.h"
#include "shared/util.h"

#define ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"
#define INTERACTIVE "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

static const struct {
        PolkitAnswer answer;
        bool interactive;
        PolkitOutcome outcome;
        const char *error_name;
        const char *words[3];
} rows[] = {
        { { .is_authorized = true }, false, POLKIT_ALLOWED, NULL, {} },
        { { .is_authorized = true }, true, POLKIT_ALLOWED, NULL, {} },
        /* A challenge polkit would have put to an agent had the caller allowed it. */
        { { .is_challenge = true }, false, POLKIT_INTERACTIVE, INTERACTIVE,
          { "org.benchd.benchd1.submit", "interactive" } },
        /* Interactive and still a challenge: polkitd found no agent to ask (what polkitd 122 answers
         * a user without an agent, tests/integration/test-systemd.sh). */
        { { .is_challenge = true }, true, POLKIT_DENIED, ACCESS_DENIED,
          { "org.benchd.benchd1.submit", "no polkit authentication agent", "pkttyagent" } },
        { {}, false, POLKIT_DENIED, ACCESS_DENIED, { "not allowed", "org.benchd.benchd1.submit", "root" } },
        { {}, true, POLKIT_DENIED, ACCESS_DENIED, { "not allowed" } },
        /* An agent asked, and the user closed its prompt. */
        { { .dismissed = true }, true, POLKIT_DENIED, ACCESS_DENIED, { "not allowed", "dismissed" } },
        { { .error_name = "org.freedesktop.DBus.Error.ServiceUnknown" }, false, POLKIT_UNAVAILABLE,
          ACCESS_DENIED, { "polkit is not running", "root", "org.freedesktop.PolicyKit1" } },
        { { .error_name = "org.freedesktop.DBus.Error.NameHasNoOwner" }, true, POLKIT_UNAVAILABLE,
          ACCESS_DENIED, { "polkit is not running" } },
        /* An error is never taken for a yes, whatever else the answer says. */
        { { .error_name = "org.freedesktop.DBus.Error.NoReply", .error_message = "timed out",
            .is_authorized = true }, false, POLKIT_FAILED, ACCESS_DENIED,
          { "did not answer", "org.freedesktop.DBus.Error.NoReply", "timed out" } },
        { { .error_name = "org.freedesktop.PolicyKit1.Error.Failed" }, false, POLKIT_FAILED, ACCESS_DENIED,
          { "org.freedesktop.PolicyKit1.Error.Failed" } },
};

START_TEST(test_rows) {
        const char *name = NULL;
        char *msg = NULL;
        int r;

        r = polkit_judge(&rows[_i].answer, "org.benchd.benchd1.submit", "submitting jobs", rows[_i].interactive,
                         &name, &msg);
        ck_assert_int_eq(r, rows[_i].outcome);
        if (rows[_i].outcome == POLKIT_ALLOWED) {
                ck_assert_ptr_null(name);
                ck_assert_ptr_null(msg);
                return;
        }
        ck_assert_str_eq(name, rows[_i].error_name);
        ck_assert_ptr_nonnull(msg);
        ck_assert_msg(strstr(msg, "submitting jobs"), "row %d: '%s' does not say what was refused", _i, msg);
        for (size_t k = 0; k < ELEMENTSOF(rows[_i].words) && rows[_i].words[k]; k++)
                ck_assert_msg(strstr(msg, rows[_i].words[k]), "row %d: '%s' lacks '%s'", _i, msg,
                              rows[_i].words[k]);
        free(msg);
}
END_TEST

static Suite *polkit_suite(void) {
        Suite *s = suite_create("polkit");
        TCase *tc = tcase_create("judge");

        tcase_add_loop_test(tc, test_rows, 0, ELEMENTSOF(rows));
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(polkit_suite());
}
