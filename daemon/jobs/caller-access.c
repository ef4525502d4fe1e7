/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether an unprivileged caller could use a target themselves (caller-access.h): the kernel's
 * permission rule evaluated for the caller's uid and groups on every directory of the canonical
 * path and on the target, from stat() and the access ACL.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "jobs/caller-access.h"
#include "shared/run-as.h"
#include "shared/util.h"

/* The encoding of system.posix_acl_access (linux/posix_acl_xattr.h): a little-endian header with
 * version 2, then entries of tag, perm and id. */
#define ACL_XATTR_VERSION 0x0002u
#define ACL_TAG_USER_OBJ 0x01u
#define ACL_TAG_USER 0x02u
#define ACL_TAG_GROUP_OBJ 0x04u
#define ACL_TAG_GROUP 0x08u
#define ACL_TAG_MASK 0x10u
#define ACL_TAG_OTHER 0x20u
#define ACL_HEADER_SIZE 4u
#define ACL_ENTRY_SIZE 8u
#define ACL_XATTR_MAX (64u * 1024u)

typedef struct AclEntry {
        uint16_t tag, perm;
        uint32_t id;
} AclEntry;

static uint32_t le32_at(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static AclEntry acl_entry_at(const uint8_t *base, size_t i) {
        const uint8_t *p = base + ACL_HEADER_SIZE + i * ACL_ENTRY_SIZE;

        return (AclEntry) {
                .tag = (uint16_t) (p[0] | p[1] << 8),
                .perm = (uint16_t) (p[2] | p[3] << 8),
                .id = le32_at(p + 4),
        };
}

static bool in_groups(const CallerIdentity *who, gid_t gid) {
        for (size_t i = 0; i < who->n_gids; i++)
                if (who->gids[i] == gid)
                        return true;
        return false;
}

static bool grants(unsigned perm, int want) {
        return ((int) perm & want) == want;
}

/* posix_acl_permission(): the owner's entry alone for the owner; a named user's entry under the
 * mask; the first group entry (the owning group's or a named one) that matches and grants
 * decides, under the mask, and when groups matched but none grants, the answer is no; else the
 * others' entry. The kernel keeps the entries sorted by tag, and so does this. */
static int acl_allows(const uint8_t *acl, size_t n, const struct stat *st, const CallerIdentity *who, int want) {
        unsigned mask = 07;
        bool group_matched = false;

        for (size_t i = 0; i < n; i++) {
                AclEntry e = acl_entry_at(acl, i);

                if (e.tag == ACL_TAG_MASK)
                        mask = e.perm & 07;
        }
        for (size_t i = 0; i < n; i++) {
                AclEntry e = acl_entry_at(acl, i);

                switch (e.tag) {
                case ACL_TAG_USER_OBJ:
                        if (who->uid == st->st_uid)
                                return grants(e.perm, want);
                        break;
                case ACL_TAG_USER:
                        if (who->uid == (uid_t) e.id)
                                return grants(e.perm & mask, want);
                        break;
                case ACL_TAG_GROUP_OBJ:
                case ACL_TAG_GROUP:
                        if (in_groups(who, e.tag == ACL_TAG_GROUP_OBJ ? st->st_gid : (gid_t) e.id)) {
                                group_matched = true;
                                if (grants(e.perm, want))
                                        return grants(e.perm & mask, want);
                        }
                        break;
                case ACL_TAG_MASK:
                        break;
                case ACL_TAG_OTHER:
                        return group_matched ? 0 : grants(e.perm, want);
                default:
                        return -EBADMSG;
                }
        }
        /* A valid ACL has an entry for the others; one without is not one the kernel would keep. */
        return -EBADMSG;
}

int caller_access_allows(const struct stat *st, const void *acl, size_t acl_size, const CallerIdentity *who,
                         int want) {
        mode_t m = st->st_mode;

        if (who->uid == 0)
                return 1;
        if (acl) {
                const uint8_t *a = acl;

                if (acl_size < ACL_HEADER_SIZE || (acl_size - ACL_HEADER_SIZE) % ACL_ENTRY_SIZE != 0 ||
                    le32_at(a) != ACL_XATTR_VERSION)
                        return -EBADMSG;
                return acl_allows(a, (acl_size - ACL_HEADER_SIZE) / ACL_ENTRY_SIZE, st, who, want);
        }
        if (who->uid == st->st_uid)
                return grants((m >> 6) & 07, want);
        if (in_groups(who, st->st_gid))
                return grants((m >> 3) & 07, want);
        return grants(m & 07, want);
}

int caller_groups(uid_t uid, gid_t **ret, size_t *ret_n) {
        gid_t gid;
        int r;

        r = user_groups(uid, &gid, ret, ret_n);
        if (r == -ESRCH) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        return r;
}

/* The access ACL of path: 0 with *ret NULL when it has none (or the filesystem keeps none). */
static int read_acl(const char *path, uint8_t **ret, size_t *ret_size) {
        _cleanup_free_ uint8_t *buf = NULL;
        ssize_t n;

        *ret = NULL;
        *ret_size = 0;
        n = lgetxattr(path, "system.posix_acl_access", NULL, 0);
        if (n < 0)
                return errno == ENODATA || errno == EOPNOTSUPP ? 0 : -errno;
        if ((size_t) n > ACL_XATTR_MAX)
                return -E2BIG;
        buf = malloc(MAX((size_t) n, (size_t) 1));
        if (!buf)
                return -ENOMEM;
        n = lgetxattr(path, "system.posix_acl_access", buf, (size_t) n);
        if (n < 0)
                return errno == ENODATA || errno == EOPNOTSUPP ? 0 : -errno;
        *ret = TAKE_PTR(buf);
        *ret_size = (size_t) n;
        return 0;
}

static const char *want_text(int want) {
        switch (want) {
        case CALLER_ACCESS_SEARCH:
                return "search";
        case CALLER_ACCESS_WRITE | CALLER_ACCESS_SEARCH:
                return "create files in";
        case CALLER_ACCESS_READ:
                return "read";
        default:
                return "read and write";
        }
}

/* 1, 0, or a negative errno with *ret_reason. */
static int check_one(const char *path, const CallerIdentity *who, int want, char **ret_reason) {
        _cleanup_free_ uint8_t *acl = NULL;
        size_t acl_size = 0;
        struct stat st;
        int r;

        if (lstat(path, &st) < 0) {
                r = -errno;
                if (asprintf(ret_reason, "cannot tell whether uid %u may %s %s: %s", (unsigned) who->uid,
                             want_text(want), path, strerror(-r)) < 0)
                        *ret_reason = NULL;
                return r;
        }
        r = read_acl(path, &acl, &acl_size);
        if (r < 0) {
                if (asprintf(ret_reason, "cannot read the access ACL of %s to tell whether uid %u may %s it: %s",
                             path, (unsigned) who->uid, want_text(want), strerror(-r)) < 0)
                        *ret_reason = NULL;
                return r;
        }
        r = caller_access_allows(&st, acl, acl_size, who, want);
        if (r < 0) {
                if (asprintf(ret_reason, "the access ACL of %s does not decode, so whether uid %u may %s it cannot "
                             "be told", path, (unsigned) who->uid, want_text(want)) < 0)
                        *ret_reason = NULL;
                return r;
        }
        if (r == 0 && asprintf(ret_reason, "uid %u may not %s %s (owner uid %u, group %u, mode %04o%s)",
                               (unsigned) who->uid, want_text(want), path, (unsigned) st.st_uid, (unsigned) st.st_gid,
                               (unsigned) (st.st_mode & 07777), acl ? ", and an ACL" : "") < 0)
                *ret_reason = NULL;
        return r;
}

int caller_may_use(const char *path, bool is_directory, bool writes, uid_t uid, char **ret_reason) {
        _cleanup_free_ char *canon = NULL, *denied = NULL;
        _cleanup_free_ gid_t *gids = NULL;
        size_t n_gids = 0;
        CallerIdentity who;
        int r;

        *ret_reason = NULL;
        if (uid == 0)
                return 0;
        canon = realpath(path, NULL);
        if (!canon) {
                r = -errno;
                if (asprintf(ret_reason, "cannot resolve %s to tell whether uid %u may use it: %s", path,
                             (unsigned) uid, strerror(-r)) < 0)
                        *ret_reason = NULL;
                return r;
        }
        r = caller_groups(uid, &gids, &n_gids);
        if (r < 0) {
                if (asprintf(ret_reason, "cannot read the groups of uid %u from the user database to tell whether "
                             "it may use %s: %s", (unsigned) uid, path, strerror(-r)) < 0)
                        *ret_reason = NULL;
                return r;
        }
        who = (CallerIdentity) { .uid = uid, .gids = gids, .n_gids = n_gids };

        /* Search on "/" and every directory down to the target's parent. */
        r = check_one("/", &who, CALLER_ACCESS_SEARCH, &denied);
        if (r <= 0)
                goto refuse;
        for (char *slash = strchr(canon + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                r = check_one(canon, &who, CALLER_ACCESS_SEARCH, &denied);
                *slash = '/';
                if (r <= 0)
                        goto refuse;
        }
        r = check_one(canon, &who,
                      is_directory ? CALLER_ACCESS_WRITE | CALLER_ACCESS_SEARCH
                                   : CALLER_ACCESS_READ | (writes ? CALLER_ACCESS_WRITE : 0),
                      &denied);
        if (r > 0)
                return 0;
refuse:
        if (r < 0) {
                *ret_reason = TAKE_PTR(denied);
                return r;
        }
        if (asprintf(ret_reason, "%s: %s; benchd runs as root and acts for the caller only where the caller "
                     "could %s, so choose %s you can use (or have root submit the job)", path,
                     denied ?: "access denied", is_directory ? "create the files itself" : "open the file itself",
                     is_directory ? "a directory" : "a file") < 0)
                *ret_reason = NULL;
        return -EACCES;
}

/* The directory holding the path dir names, in place ("/" stays "/"). */
static void path_up(char *dir) {
        char *slash = strrchr(dir, '/');

        if (!slash || slash == dir)
                strcpy(dir, "/");
        else
                *slash = '\0';
}

int caller_may_reach(const char *path, uid_t uid, char **ret_reason) {
        _cleanup_free_ char *rest = NULL, *denied = NULL;
        _cleanup_free_ gid_t *gids = NULL;
        char dir[PATH_MAX] = "/";
        size_t n_gids = 0;
        unsigned links = 0;
        CallerIdentity who;
        int r;

        *ret_reason = NULL;
        if (uid == 0 || !path || path[0] != '/')
                return 0;
        r = caller_groups(uid, &gids, &n_gids);
        if (r < 0) {
                if (asprintf(ret_reason, "cannot read the groups of uid %u from the user database to tell whether "
                             "it may reach %s: %s", (unsigned) uid, path, strerror(-r)) < 0)
                        *ret_reason = NULL;
                return r;
        }
        who = (CallerIdentity) { .uid = uid, .gids = gids, .n_gids = n_gids };
        rest = strdup(path);
        if (!rest)
                return -ENOMEM;

        /* As the kernel walks a path for the caller: each component looked up in the directory
         * reached so far, which needs search permission on it; symlinks followed through their
         * text (the caller can read a link in a directory it may search). Wherever the caller
         * would be stopped by something else (nothing there, not a directory, too many links, too
         * long), what is there is the caller's to learn: the checks after this one say it. */
        for (;;) {
                char comp[NAME_MAX + 1], cand[PATH_MAX];
                const char *p = rest;
                size_t len;
                struct stat st;

                p += strspn(p, "/");
                if (!*p)
                        return 0;
                len = strcspn(p, "/");
                if (len > NAME_MAX)
                        return 0;
                memcpy(comp, p, len);
                comp[len] = '\0';
                memmove(rest, p + len, strlen(p + len) + 1);

                r = check_one(dir, &who, CALLER_ACCESS_SEARCH, &denied);
                if (r < 0) {
                        *ret_reason = TAKE_PTR(denied);
                        return r;
                }
                if (r == 0) {
                        if (asprintf(ret_reason, "%s, a directory on the way to the target: benchd does not tell a "
                                     "caller about what it may not reach, so choose a target you can reach (or have "
                                     "root submit the job)", strna(denied)) < 0)
                                *ret_reason = NULL;
                        return -EACCES;
                }
                free(denied);
                denied = NULL;

                if (streq(comp, "."))
                        continue;
                if (streq(comp, "..")) {
                        path_up(dir);
                        continue;
                }
                if (snprintf(cand, sizeof(cand), "%s%s%s", dir, streq(dir, "/") ? "" : "/", comp) >= (int) sizeof(cand))
                        return 0;
                if (lstat(cand, &st) < 0)
                        return 0;
                if (S_ISLNK(st.st_mode)) {
                        char link[PATH_MAX];
                        ssize_t n;
                        char *joined;

                        if (++links > 40)
                                return 0;
                        n = readlink(cand, link, sizeof(link) - 1);
                        if (n <= 0)
                                return 0;
                        link[n] = '\0';
                        if (asprintf(&joined, "%s/%s", link, rest) < 0)
                                return -ENOMEM;
                        free(rest);
                        rest = joined;
                        if (link[0] == '/')
                                strcpy(dir, "/");
                        continue;
                }
                if (!S_ISDIR(st.st_mode))
                        return 0;
                strcpy(dir, cand);
        }
}
