/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Becoming the caller (run-as.h): the user database's groups, the three set*id() calls, and the
 * checks that nothing of root is left.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared/run-as.h"
#include "shared/util.h"

#define GROUPS_MAX 65536

int user_groups(uid_t uid, gid_t *ret_gid, gid_t **ret_groups, size_t *ret_n) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ gid_t *gids = NULL;
        struct passwd pw, *found = NULL;
        long size_hint = sysconf(_SC_GETPW_R_SIZE_MAX);
        size_t size = size_hint > 0 ? (size_t) size_hint : 4096;
        int n, r;

        for (;;) {
                free(buf);
                buf = malloc(size);
                if (!buf)
                        return -ENOMEM;
                r = getpwuid_r(uid, &pw, buf, size, &found);
                if (r != ERANGE)
                        break;
                if (size > 1024 * 1024)
                        return -ERANGE;
                size *= 2;
        }
        if (r != 0)
                return -r;
        if (!found)
                return -ESRCH;
        n = 16;
        for (;;) {
                int want = n;
                gid_t *g = reallocarray(gids, (size_t) n, sizeof(gid_t));

                if (!g)
                        return -ENOMEM;
                gids = g;
                if (getgrouplist(pw.pw_name, pw.pw_gid, gids, &want) >= 0) {
                        n = want;
                        break;
                }
                if (want <= n || want > GROUPS_MAX)
                        return -E2BIG;
                n = want;
        }
        *ret_gid = pw.pw_gid;
        *ret_groups = TAKE_PTR(gids);
        *ret_n = (size_t) n;
        return 0;
}

/* Whether any capability set of ours holds anything. */
static int have_capabilities(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(d); i++)
                if (d[i].effective || d[i].permitted || d[i].inheritable)
                        return 1;
        for (unsigned long cap = 0; cap <= CAP_LAST_CAP; cap++) {
                int r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
                if (r > 0)
                        return 1;
                if (r < 0 && errno != EINVAL)
                        return -errno;
        }
        return 0;
}

int run_as_user(uid_t uid, char **reterr) {
        _cleanup_free_ gid_t *groups = NULL;
        uid_t ruid, euid, suid;
        gid_t gid, rgid, egid, sgid;
        pid_t parent = getppid();
        size_t n = 0;
        int r;

        if (uid == 0)
                return 0;
        r = user_groups(uid, &gid, &groups, &n);
        if (r == -ESRCH)
                return reterr_set(reterr, -EPERM, "uid %u, who submitted the job, has no entry in the user database "
                                  "(removed since?); benchd runs a caller's step only as that caller and refuses "
                                  "to guess its groups", (unsigned) uid);
        if (r < 0)
                return reterr_set(reterr, r, "cannot read the groups of uid %u from the user database: %s",
                                  (unsigned) uid, strerror(-r));

        /* Groups first: once the uid is not 0 they cannot be changed any more. */
        if (setgroups(n, groups) < 0)
                return reterr_set(reterr, -errno, "cannot take the %zu groups of uid %u: %m", n, (unsigned) uid);
        if (setresgid(gid, gid, gid) < 0)
                return reterr_set(reterr, -errno, "cannot take gid %u of uid %u: %m", (unsigned) gid, (unsigned) uid);
        if (setresuid(uid, uid, uid) < 0)
                return reterr_set(reterr, -errno, "cannot take uid %u: %m", (unsigned) uid);

        if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0 || ruid != uid ||
            euid != uid || suid != uid || rgid != gid || egid != gid || sgid != gid)
                return reterr_set(reterr, -EPERM, "after taking uid %u and gid %u the process still has another "
                                  "identity; refusing to go on", (unsigned) uid, (unsigned) gid);
        r = have_capabilities();
        if (r != 0)
                return reterr_set(reterr, r < 0 ? r : -EPERM, "after taking uid %u the process %s; refusing to go on",
                                  (unsigned) uid, r < 0 ? "cannot tell its capabilities" : "still has capabilities");

        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return reterr_set(reterr, -errno, "cannot restrict the process after taking uid %u: %m",
                                  (unsigned) uid);
        /* Cleared by the change of credentials. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                return reterr_set(reterr, -errno, "cannot ask to die with benchd: %m");
        if (getppid() != parent)
                return reterr_set(reterr, -ESRCH, "benchd went away while the process took uid %u", (unsigned) uid);
        return 0;
}
