/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tool root of toolroot.h. Built by the worker, in its own mount namespace, so that every
 * failure comes back as a message naming the path, and the sandbox's child (a fork of one thread)
 * only mounts its procfs and turns around. Paths are reproduced component by component from the
 * host's: a directory becomes an empty directory of the tmpfs, a symlink the same symlink (then
 * followed, on the host's side, to the rest of the path), the last component a bind mount,
 * remounted read-only (nosuid, nodev) at once, so nothing made afterwards can land in a host
 * directory. Every target is built from the canonical host path under the root's directory, so
 * no symlink inside the root is ever followed while the host is still visible.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfdeps.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "toolroot.h"

#define SYMLINKS_MAX 40u
#define ROOT_TMPFS "mode=0755,size=4m,nr_inodes=4096"
#define DEV_TMPFS "mode=0755,size=64k,nr_inodes=64"

struct ToolRoot {
        char *dir;
        ToolRootPlan plan;
        char *writable;         /* the writable target, or NULL */
        bool md;                /* /sys and /dev writable too (ToolRootSpec.md) */
        bool mounted;
};

/* ---- the plan ---- */

void toolroot_plan_clear(ToolRootPlan *p) {
        for (size_t i = 0; i < p->n_entries; i++) {
                free(p->entries[i].source);
                free(p->entries[i].target);
        }
        free(p->entries);
        strv_free(p->env);
        *p = (ToolRootPlan) {};
}

static int plan_add(ToolRootPlan *p, const char *source, const char *target, ToolRootBind bind) {
        ToolRootEntry *e;

        for (size_t i = 0; i < p->n_entries; i++)
                if (streq(p->entries[i].target, target ?: source))
                        return 0;
        e = realloc(p->entries, (p->n_entries + 1) * sizeof(ToolRootEntry));
        if (!e)
                return -ENOMEM;
        p->entries = e;
        e = &p->entries[p->n_entries];
        *e = (ToolRootEntry) { .source = strdup(source), .target = strdup(target ?: source), .bind = bind };
        if (!e->source || !e->target) {
                free(e->source);
                free(e->target);
                return -ENOMEM;
        }
        p->n_entries++;
        return 0;
}

/* A device's sysfs directory (the whole disk's, for a partition) and the links that lead to it. */
static int plan_device(ToolRootPlan *p, const ToolRootDevice *d) {
        _cleanup_free_ char *real = NULL, *partition = NULL, *block = NULL;
        char link[64];
        int r;

        snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d->dev), minor(d->dev));
        real = realpath(link, NULL);
        if (!real)
                return 0;       /* no sysfs: the tool does without, as it would on the host */
        if (asprintf(&partition, "%s/partition", real) < 0)
                return -ENOMEM;
        if (access(partition, F_OK) == 0)
                *strrchr(real, '/') = 0;
        if (asprintf(&block, "/sys/block/%s", strrchr(real, '/') + 1) < 0)
                return -ENOMEM;
        r = plan_add(p, real, NULL, TOOLROOT_BIND_OPTIONAL);
        if (r >= 0)
                r = plan_add(p, link, NULL, TOOLROOT_BIND_OPTIONAL);
        if (r >= 0)
                r = plan_add(p, block, NULL, TOOLROOT_BIND_OPTIONAL);
        return r;
}

int toolroot_plan(const ToolRootSpec *spec, const char *ld_so_conf, ToolRootPlan *ret, char **reterr) {
        _cleanup_(toolroot_plan_clear) ToolRootPlan p = {};
        _cleanup_strv_free_ char **files = NULL, **lib_dirs = NULL;
        int r;

        r = elf_closure(spec->programs, ld_so_conf, &files, &lib_dirs, reterr);
        if (r < 0)
                return r;
        r = strv_push(&p.env, "PATH=/usr/sbin:/usr/bin:/sbin:/bin");
        if (r >= 0)
                r = strv_push(&p.env, "LANG=C");
        if (r >= 0 && lib_dirs[0]) {
                _cleanup_free_ char *v = strdup("LD_LIBRARY_PATH=");

                for (char **d = lib_dirs; v && *d; d++) {
                        char *n = NULL;
                        if (asprintf(&n, "%s%s%s", v, d == lib_dirs ? "" : ":", *d) < 0)
                                n = NULL;
                        free(v);
                        v = n;
                }
                r = v ? strv_push(&p.env, v) : -ENOMEM;
        }
        for (char *const *e = spec->env; r >= 0 && e && *e; e++)
                r = strv_push(&p.env, *e);
        for (char **f = files; r >= 0 && *f; f++)
                r = plan_add(&p, *f, NULL, TOOLROOT_BIND_READONLY);

        for (size_t i = 0; r >= 0 && i < spec->n_files; i++) {
                const ToolRootFile *f = &spec->files[i];
                _cleanup_free_ char *target = NULL, *var = NULL;

                if (!f->env) {
                        r = plan_add(&p, f->path, NULL, TOOLROOT_BIND_OPTIONAL);
                        continue;
                }
                if (access(f->path, R_OK) < 0)
                        continue;       /* the tool's built-in defaults, as on the host */
                if (asprintf(&target, TOOLROOT_CONFIG_DIR "/%s", strrchr(f->path, '/') + 1) < 0 ||
                    asprintf(&var, "%s=%s", f->env, target) < 0)
                        return -ENOMEM;
                r = plan_add(&p, f->path, target, TOOLROOT_BIND_READONLY);
                if (r >= 0)
                        r = strv_push(&p.env, var);
        }
        /* mdadm's root has the whole of /sys, the devices' directories in it. */
        for (size_t i = 0; r >= 0 && !spec->md && i < spec->n_devices; i++)
                r = plan_device(&p, &spec->devices[i]);
        for (char *const *s = spec->sys; r >= 0 && !spec->md && s && *s; s++)
                r = plan_add(&p, *s, NULL, TOOLROOT_BIND_OPTIONAL);
        if (r >= 0 && spec->writable)
                r = plan_add(&p, spec->writable, NULL, TOOLROOT_BIND_WRITABLE);
        if (r >= 0 && spec->md)
                r = plan_add(&p, "/sys", NULL, TOOLROOT_BIND_WRITABLE);
        if (r < 0)
                return r;
        *ret = p;
        p = (ToolRootPlan) {};
        return 0;
}

/* ---- building it ---- */

/* Binds host (lstat()ed as st) at inroot, which does not exist yet, and remounts it read-only
 * (or, writable, noexec) at once. */
static int bind_one(const char *host, const char *inroot, const struct stat *st, ToolRootBind bind, char **reterr) {
        unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV |
                              (bind == TOOLROOT_BIND_WRITABLE ? MS_NOEXEC : MS_RDONLY);
        struct stat rst;

        if (lstat(inroot, &rst) == 0)
                return 0;       /* bound already, or inside what is */
        if (S_ISDIR(st->st_mode)) {
                if (mkdir(inroot, 0755) < 0)
                        return reterr_set(reterr, -errno, "cannot create %s in the tool's root: %m", host);
        } else if (S_ISREG(st->st_mode)) {
                _cleanup_close_ int fd = open(inroot, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (fd < 0)
                        return reterr_set(reterr, -errno, "cannot create %s in the tool's root: %m", host);
        } else
                return reterr_set(reterr, -EINVAL, "%s is neither a file nor a directory; the tool's root binds "
                                  "only those", host);
        if (mount(host, inroot, NULL, MS_BIND, NULL) < 0)
                return reterr_set(reterr, -errno, "cannot bind %s into the tool's root: %m", host);
        if (mount(NULL, inroot, NULL, flags, NULL) < 0)
                return reterr_set(reterr, -errno, "cannot make %s in the tool's root %s: %m", host,
                                  bind == TOOLROOT_BIND_WRITABLE ? "nosuid, nodev and noexec" : "read-only");
        return 0;
}

/* Makes path (absolute, on the host) exist in the root as it does on the host: directories on the
 * way as directories, symlinks as the same symlinks, then followed; the last component bound. */
static int reproduce(ToolRoot *t, const char *path, ToolRootBind bind, char **reterr) {
        char cur[PATH_MAX] = "", rest[PATH_MAX], host[PATH_MAX], inroot[PATH_MAX];
        unsigned links = 0;

        if ((size_t) snprintf(rest, sizeof(rest), "%s", path + strspn(path, "/")) >= sizeof(rest))
                return reterr_set(reterr, -ENAMETOOLONG, "%s: the path is too long", path);
        while (rest[0]) {
                size_t k = strcspn(rest, "/");
                char comp[NAME_MAX + 1];
                struct stat st;
                bool last;

                if (k > NAME_MAX)
                        return reterr_set(reterr, -ENAMETOOLONG, "%s: a name in it is too long", path);
                memcpy(comp, rest, k);
                comp[k] = 0;
                k += strspn(rest + k, "/");
                memmove(rest, rest + k, strlen(rest + k) + 1);
                last = rest[0] == 0;

                if (streq(comp, "."))
                        continue;
                if (streq(comp, "..")) {
                        char *s = strrchr(cur, '/');
                        if (s)
                                *s = 0;
                        continue;
                }
                if ((size_t) snprintf(host, sizeof(host), "%s/%s", cur, comp) >= sizeof(host) ||
                    (size_t) snprintf(inroot, sizeof(inroot), "%s%s", t->dir, host) >= sizeof(inroot))
                        return reterr_set(reterr, -ENAMETOOLONG, "%s: the path is too long", path);
                if (lstat(host, &st) < 0)
                        return reterr_set(reterr, -errno, "cannot find %s: %m", host);

                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX], next[PATH_MAX];
                        ssize_t n;

                        if (++links > SYMLINKS_MAX)
                                return reterr_set(reterr, -ELOOP, "%s: too many symlinks", path);
                        n = readlink(host, target, sizeof(target) - 1);
                        if (n < 0)
                                return reterr_set(reterr, -errno, "cannot read the symlink %s: %m", host);
                        target[n] = 0;
                        if (symlink(target, inroot) < 0) {
                                struct stat rst;
                                int e = errno;

                                if (e != EEXIST || lstat(inroot, &rst) < 0 || !S_ISLNK(rst.st_mode))
                                        return reterr_set(reterr, -e, "cannot create the symlink %s in the tool's "
                                                          "root: %s", host, strerror(e));
                        }
                        if ((size_t) snprintf(next, sizeof(next), "%s%s%s", target, rest[0] ? "/" : "", rest) >=
                            sizeof(next))
                                return reterr_set(reterr, -ENAMETOOLONG, "%s: the path is too long", path);
                        if (target[0] == '/')
                                cur[0] = 0;
                        memcpy(rest, next + strspn(next, "/"), strlen(next + strspn(next, "/")) + 1);
                        continue;
                }
                if (last)
                        return bind_one(host, inroot, &st, bind, reterr);
                if (!S_ISDIR(st.st_mode))
                        return reterr_set(reterr, -ENOTDIR, "%s: %s is not a directory", path, host);
                if (mkdir(inroot, 0755) < 0 && errno != EEXIST)
                        return reterr_set(reterr, -errno, "cannot create %s in the tool's root: %m", host);
                memcpy(cur, host, strlen(host) + 1);
        }
        return 0;
}

/* A configuration file bound under TOOLROOT_CONFIG_DIR: the file itself, whatever links led to it. */
static int bind_config(ToolRoot *t, const char *source, const char *target, char **reterr) {
        _cleanup_free_ char *real = realpath(source, NULL);
        char inroot[PATH_MAX];
        struct stat st;

        if (!real || stat(real, &st) < 0)
                return reterr_set(reterr, -errno, "cannot find %s: %m", source);
        if (!S_ISREG(st.st_mode))
                return reterr_set(reterr, -EINVAL, "%s is not a regular file", source);
        snprintf(inroot, sizeof(inroot), "%s" TOOLROOT_CONFIG_DIR, t->dir);
        if (mkdir(inroot, 0755) < 0 && errno != EEXIST)
                return reterr_set(reterr, -errno, "cannot create " TOOLROOT_CONFIG_DIR " in the tool's root: %m");
        if ((size_t) snprintf(inroot, sizeof(inroot), "%s%s", t->dir, target) >= sizeof(inroot))
                return -ENAMETOOLONG;
        return bind_one(real, inroot, &st, TOOLROOT_BIND_READONLY, reterr);
}

/* /dev: a tmpfs of its own (device nodes need a mount without nodev), read-only once filled. A
 * device node stays writable on a read-only mount. */
static int make_dev(ToolRoot *t, const ToolRootDevice *devices, size_t n, bool writable, bool dm, char **reterr) {
        static const struct {
                const char *name;
                unsigned major, minor;
        } chars[] = {
                { "null", 1, 3 }, { "zero", 1, 5 }, { "full", 1, 7 }, { "random", 1, 8 }, { "urandom", 1, 9 },
        };
        char dev[PATH_MAX], node[PATH_MAX + NAME_MAX + 2];
        mode_t mask;
        int r = 0;

        if ((size_t) snprintf(dev, sizeof(dev), "%s/dev", t->dir) >= sizeof(dev))
                return -ENAMETOOLONG;
        if (mkdir(dev, 0755) < 0)
                return reterr_set(reterr, -errno, "cannot create /dev in the tool's root: %m");
        if (mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, DEV_TMPFS) < 0)
                return reterr_set(reterr, -errno, "cannot mount a tmpfs on /dev in the tool's root: %m");
        mask = umask(0);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(chars); i++) {
                snprintf(node, sizeof(node), "%s/%s", dev, chars[i].name);
                if (mknod(node, S_IFCHR | 0666, makedev(chars[i].major, chars[i].minor)) < 0)
                        r = reterr_set(reterr, -errno, "cannot make /dev/%s in the tool's root: %m", chars[i].name);
        }
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (strchr(devices[i].name, '/') || !devices[i].name[0] ||
                    (size_t) snprintf(node, sizeof(node), "%s/%s", dev, devices[i].name) >= sizeof(node))
                        r = reterr_set(reterr, -EINVAL, "'%s' is not a kernel name of a device", devices[i].name);
                else if (mknod(node, S_IFBLK | 0600, devices[i].dev) < 0)
                        r = reterr_set(reterr, -errno, "cannot make /dev/%s in the tool's root: %m", devices[i].name);
        }
        if (r >= 0 && dm) {
                /* device-mapper's control node, its minor as the host's misc device has it. */
                _cleanup_fclose_ FILE *f = fopen("/sys/class/misc/device-mapper/dev", "re");
                unsigned major, minor;

                snprintf(node, sizeof(node), "%s/mapper", dev);
                if (!f || fscanf(f, "%u:%u", &major, &minor) != 2)
                        r = reterr_set(reterr, -ENODEV, "the kernel has no device-mapper "
                                       "(/sys/class/misc/device-mapper/dev cannot be read)");
                else if (mkdir(node, 0755) < 0)
                        r = reterr_set(reterr, -errno, "cannot make /dev/mapper in the tool's root: %m");
                else {
                        snprintf(node, sizeof(node), "%s/mapper/control", dev);
                        if (mknod(node, S_IFCHR | 0600, makedev(major, minor)) < 0)
                                r = reterr_set(reterr, -errno, "cannot make /dev/mapper/control in the tool's root: %m");
                }
        }
        umask(mask);
        if (r < 0 || writable)
                return r;
        if (mount(NULL, dev, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
                return reterr_set(reterr, -errno, "cannot make /dev in the tool's root read-only: %m");
        return 0;
}

int toolroot_new(const ToolRootSpec *spec, const char *dir, ToolRoot **ret, char **reterr) {
        _cleanup_(toolroot_freep) ToolRoot *t = NULL;
        char path[PATH_MAX];
        int r;

        t = calloc(1, sizeof(ToolRoot));
        if (!t)
                return -ENOMEM;
        t->dir = strdup(dir);
        if (!t->dir)
                return -ENOMEM;
        r = toolroot_plan(spec, "/etc/ld.so.conf", &t->plan, reterr);
        if (r < 0)
                return r;
        if (spec->writable && !(t->writable = strdup(spec->writable)))
                return -ENOMEM;

        if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, ROOT_TMPFS) < 0)
                return reterr_set(reterr, -errno, "cannot mount a tmpfs for the tool's root on %s: %m", dir);
        t->mounted = true;

        for (size_t i = 0; i < t->plan.n_entries; i++) {
                const ToolRootEntry *e = &t->plan.entries[i];

                if (!streq(e->source, e->target))
                        r = bind_config(t, e->source, e->target, reterr);
                else
                        r = reproduce(t, e->source, e->bind, reterr);
                if (r == -ENOENT && e->bind == TOOLROOT_BIND_OPTIONAL) {
                        if (reterr) {
                                free(*reterr);
                                *reterr = NULL;
                        }
                        continue;
                }
                if (r < 0)
                        return r;
        }
        t->md = spec->md || spec->dm;
        r = make_dev(t, spec->devices, spec->n_devices, spec->md || spec->dm, spec->dm, reterr);
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "%s/proc", dir);
        if (mkdir(path, 0555) < 0)
                return reterr_set(reterr, -errno, "cannot create /proc in the tool's root: %m");
        if (mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
                return reterr_set(reterr, -errno, "cannot make the tool's root read-only: %m");
        *ret = TAKE_PTR(t);
        return 0;
}

ToolRoot *toolroot_free(ToolRoot *t) {
        if (!t)
                return NULL;
        if (t->mounted)
                (void) umount2(t->dir, MNT_DETACH | UMOUNT_NOFOLLOW);
        toolroot_plan_clear(&t->plan);
        free(t->writable);
        free(t->dir);
        free(t);
        return NULL;
}

char *const *toolroot_env(const ToolRoot *t) {
        return t->plan.env;
}

/* ---- in the sandbox's child ---- */

/* A mount point of /proc/self/mountinfo, with the \NNN octal escapes undone, in place. */
static void unescape_octal(char *s) {
        char *w = s;

        for (char *r = s; *r; r++) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
                    r[3] <= '7') {
                        *w++ = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = 0;
}

/* The per-mount flags of mountinfo's options field, which a bind remount must repeat. */
static unsigned long mount_flags_of(const char *opts) {
        static const struct {
                const char *name;
                unsigned long flag;
        } map[] = {
                { "nosuid", MS_NOSUID }, { "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
                { "noatime", MS_NOATIME }, { "nodiratime", MS_NODIRATIME }, { "relatime", MS_RELATIME },
        };
        unsigned long flags = 0;
        const char *p = opts;

        while (*p) {
                size_t n = strcspn(p, ",");

                for (size_t i = 0; i < ELEMENTSOF(map); i++)
                        if (strlen(map[i].name) == n && strncmp(p, map[i].name, n) == 0)
                                flags |= map[i].flag;
                p += n;
                if (*p == ',')
                        p++;
        }
        return flags;
}

/* Remounts (read-only, or writable again) the mounts of /proc/self/mountinfo: all of them, or
 * the one at only. Where mount_setattr() is missing (before Linux 5.12). */
static int remount_each(bool readonly, const char *only) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t size = 0;

        if (!f)
                return -errno;
        while (getline(&line, &size, f) > 0) {
                char mnt[PATH_MAX], opts[1024];

                if (sscanf(line, "%*s %*s %*s %*s %4095s %1023s", mnt, opts) != 2)
                        continue;
                unescape_octal(mnt);
                if (only && !streq(mnt, only))
                        continue;
                if (mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND | mount_flags_of(opts) | (readonly ? MS_RDONLY : 0),
                          NULL) < 0)
                        return -errno;
        }
        return 0;
}

static int make_readonly(const char *const *writable, size_t n) {
        int r;
#if defined(SYS_mount_setattr) && defined(MOUNT_ATTR_RDONLY) && defined(AT_RECURSIVE)
        struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY }, rw = { .attr_clr = MOUNT_ATTR_RDONLY };

        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof(ro)) == 0) {
                for (size_t i = 0; i < n; i++)
                        if (writable[i] && syscall(SYS_mount_setattr, AT_FDCWD, writable[i], 0, &rw, sizeof(rw)) < 0)
                                return -errno;
                return 0;
        }
        if (errno != ENOSYS)
                return -errno;
#endif
        r = remount_each(true, NULL);
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (writable[i])
                        r = remount_each(false, writable[i]);
        return r;
}

static int failed(const char **ret_what, const char *what, int r) {
        *ret_what = what;
        return r;
}

int toolroot_enter(const ToolRoot *t, const char **ret_what) {
        char proc[PATH_MAX];
        int r;

        /* Our PID namespace's: no other process, so no /proc/PID/fd/N into another's files. */
        snprintf(proc, sizeof(proc), "%s/proc", t->dir);
        if (mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                return failed(ret_what, "mounting /proc", -errno);
        if (chdir(t->dir) < 0)
                return failed(ret_what, "entering the tool's root", -errno);
        if (syscall(SYS_pivot_root, ".", ".") == 0) {
                /* The old root is stacked on the new one: detach it, and the host is gone. */
                if (umount2(".", MNT_DETACH) < 0)
                        return failed(ret_what, "detaching the old root", -errno);
        } else if (errno != EINVAL || chroot(".") < 0)
                return failed(ret_what, "making the tool's root the root", -errno);
        if (chdir("/") < 0)
                return failed(ret_what, "entering /", -errno);
        const char *writable[] = { t->writable, t->md ? "/sys" : NULL, t->md ? "/dev" : NULL };
        r = make_readonly(writable, ELEMENTSOF(writable));
        if (r < 0)
                return failed(ret_what, "making the mount tree read-only", r);
        return 0;
}
