/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the tool root (daemon/worker/toolroot.c) and of what it is built from (elfdeps.c):
 *   - the ELF closure of mke2fs, mkfs.btrfs, mkfs.xfs, tune2fs, e2fsck, mdadm, lvm (those
 *     installed), /bin/sh and this test itself is the set of files ldd(1) names, the dynamic
 *     loader's own answer, by real path;
 *   - elf_deps_read() on files that are not ELF, truncated, or whose tables point outside the
 *     file: refused, never read out of bounds; a "#!" script brings its interpreter;
 *   - ld.so.conf with includes (relative and absolute globs), comments, hwcap lines, duplicates;
 *   - the plan: the program's files read-only, mke2fs.conf under /config with MKE2FS_CONFIG, a
 *     device's sysfs directory and its links, LD_LIBRARY_PATH, and no path of the host's /etc,
 *     /root, /home, /var, /srv or /tmp;
 *   - as root (test-toolroot-root): a root built and entered through the sandbox, with /bin/sh and
 *     coreutils in it: / holds nothing but what was asked, /etc/passwd and /root are not there,
 *     every write but to the writable directory fails, /dev holds only its nodes, /proc shows the
 *     sandbox's own processes only, and the writable directory takes a file the host then sees.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-util.h"
#include "elfdeps.h"
#include "sandbox.h"
#include "shared/strv.h"
#include "shared/util.h"
#include "toolroot.h"

static char self_path[PATH_MAX];

/* ---- the closure against ldd ---- */

/* The real paths ldd names for program: "name => /path (0x...)" and the interpreter's line. */
static char **ldd_files(const char *program) {
        _cleanup_free_ char *cmd = NULL, *line = NULL;
        char **files = NULL;
        size_t size = 0;
        FILE *f;

        ck_assert_int_ge(asprintf(&cmd, "ldd '%s' 2>/dev/null", program), 0);
        f = popen(cmd, "re");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(strv_new_empty(&files), 0);
        while (getline(&line, &size, f) > 0) {
                char *p = strstr(line, "=> "), *real;

                p = p ? p + 3 : line + strspn(line, " \t");
                if (*p != '/')
                        continue;       /* linux-vdso.so.1, statically linked */
                p[strcspn(p, " \t\n")] = 0;
                real = realpath(p, NULL);
                ck_assert_msg(real, "ldd names %s, which does not exist", p);
                if (!strv_contains(files, real))
                        ck_assert_int_eq(strv_push(&files, real), 0);
                free(real);
        }
        ck_assert_int_eq(pclose(f), 0);
        return files;
}

static const char *const closure_programs[] = {
        "/usr/sbin/mke2fs", "/usr/sbin/mkfs.btrfs", "/usr/sbin/mkfs.xfs", "/usr/sbin/tune2fs",
        "/usr/sbin/e2fsck", "/usr/sbin/mdadm", "/usr/sbin/lvm", "/bin/sh", self_path,
};

START_TEST(test_closure_is_ldds) {
        const char *program = closure_programs[_i];
        _cleanup_strv_free_ char **files = NULL, **dirs = NULL, **want = NULL, **got = NULL;
        _cleanup_free_ char *err = NULL, *real_program = NULL;
        char *programs[] = { (char *) program, NULL };

        if (access(program, X_OK) < 0) {
                printf("%s is not installed here: its case is skipped\n", program);
                return;
        }
        ck_assert_msg(elf_closure(programs, "/etc/ld.so.conf", &files, &dirs, &err) == 0, "%s: %s", program,
                      strna(err));
        ck_assert_str_eq(files[0], program);
        real_program = realpath(program, NULL);
        ck_assert_int_eq(strv_new_empty(&got), 0);
        for (char **f = files + 1; *f; f++) {
                _cleanup_free_ char *real = realpath(*f, NULL);
                ck_assert_msg(real, "%s: %s does not exist", program, *f);
                if (!strv_contains(got, real))
                        ck_assert_int_eq(strv_push(&got, real), 0);
        }
        want = ldd_files(program);
        strv_sort(got);
        strv_sort(want);
        for (size_t i = 0; got[i] || want[i]; i++)
                ck_assert_msg(got[i] && want[i] && streq(got[i], want[i]), "%s: the closure has %s where ldd has %s",
                              program, strna(got[i]), strna(want[i]));
        /* Each library's directory is on LD_LIBRARY_PATH. */
        for (char **f = files + 1; *f; f++) {
                _cleanup_free_ char *dir = strdup(*f);
                *strrchr(dir, '/') = 0;
                ck_assert_msg(strv_contains(dirs, dir) || streq(*f, "/lib64/ld-linux-x86-64.so.2") ||
                              strstr(*f, "ld-linux") || strstr(*f, "ld64.so") || strstr(*f, "ld-linux-"),
                              "%s: %s's directory is not among the library directories", program, *f);
        }
}
END_TEST

/* A script's interpreter is part of its closure. */
START_TEST(test_closure_script) {
        char path[] = "/tmp/test-toolroot-script.XXXXXX";
        _cleanup_strv_free_ char **files = NULL, **dirs = NULL;
        _cleanup_free_ char *err = NULL;
        char *programs[] = { path, NULL };
        int fd = mkstemp(path);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, "#!/bin/sh -e\necho hi\n", 21), 21);
        close(fd);
        ck_assert_msg(elf_closure(programs, "/etc/ld.so.conf", &files, &dirs, &err) == 0, "%s", strna(err));
        ck_assert_str_eq(files[0], path);
        ck_assert_str_eq(files[1], "/bin/sh");
        ck_assert_uint_ge(strv_length(files), 4);       /* sh, its interpreter, libc */

        /* A script with a relative interpreter cannot be followed. */
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        ck_assert_int_eq(write(fd, "#!sh\n", 5), 5);
        close(fd);
        free(err);
        err = NULL;
        ck_assert_int_eq(elf_closure(programs, "/etc/ld.so.conf", &files, &dirs, &err), -ENOEXEC);
        ck_assert_msg(strstr(err, "interpreter 'sh' cannot be followed"), "%s", err);
        unlink(path);

        free(err);
        err = NULL;
        programs[0] = (char *) "/nonexistent/mkfs.nothing";
        ck_assert_int_eq(elf_closure(programs, "/etc/ld.so.conf", &files, &dirs, &err), -ENOENT);
        ck_assert_msg(strstr(err, "/nonexistent/mkfs.nothing"), "%s", err);
}
END_TEST

/* ---- malformed files ---- */

static int read_bytes(const void *data, size_t n, ElfDeps *ret) {
        char path[] = "/tmp/test-toolroot-elf.XXXXXX";
        int fd = mkstemp(path), r;

        ck_assert_int_ge(fd, 0);
        unlink(path);
        ck_assert_int_eq(write(fd, data, n), (ssize_t) n);
        r = elf_deps_read(fd, ret);
        close(fd);
        return r;
}

/* A copy of this test's own ELF header, altered. */
static size_t self_header(unsigned char *buf, size_t size) {
        int fd = open(self_path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        ck_assert_int_ge(fd, 0);
        n = read(fd, buf, size);
        close(fd);
        ck_assert_int_gt(n, 64);
        return (size_t) n;
}

START_TEST(test_elf_malformed) {
        unsigned char buf[4096];
        ElfDeps d = {};
        size_t n;

        ck_assert_int_eq(read_bytes("#!/bin/sh\n", 10, &d), -ENOEXEC);
        ck_assert_int_eq(read_bytes("\x7f" "ELF", 4, &d), -ENOEXEC);   /* shorter than e_ident */
        ck_assert_int_eq(read_bytes("", 0, &d), -ENOEXEC);

        n = self_header(buf, sizeof(buf));
        buf[5] = buf[5] == 1 ? 2 : 1;           /* the other byte order */
        ck_assert_int_eq(read_bytes(buf, n, &d), -ENOEXEC);

        n = self_header(buf, sizeof(buf));
        ck_assert_int_eq(read_bytes(buf, 40, &d), -EBADMSG);   /* the header cut short */

        n = self_header(buf, sizeof(buf));
        buf[56] = 0xff;                         /* e_phnum (64-bit): 0x..ff, more than the bound */
        buf[57] = 0xff;
        ck_assert_int_eq(read_bytes(buf, n, &d), -EBADMSG);

        n = self_header(buf, sizeof(buf));
        memset(buf + 32, 0x7f, 8);              /* e_phoff far beyond the file */
        ck_assert_int_eq(read_bytes(buf, n, &d), -EBADMSG);

        /* The program headers present, the segments they point to cut off. */
        n = self_header(buf, sizeof(buf));
        ck_assert_int_eq(read_bytes(buf, n, &d), -EBADMSG);
}
END_TEST

START_TEST(test_elf_self) {
        _cleanup_(elf_deps_clear) ElfDeps d = {};
        int fd = open(self_path, O_RDONLY | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(elf_deps_read(fd, &d), 0);
        close(fd);
        ck_assert_ptr_nonnull(d.interp);
        ck_assert(strv_contains(d.needed, "libc.so.6"));
        ck_assert_uint_ge(strv_length(d.needed), 1);
}
END_TEST

/* ---- ld.so.conf ---- */

START_TEST(test_ld_so_conf) {
        char dir[] = "/tmp/test-toolroot-conf.XXXXXX", path[PATH_MAX];
        _cleanup_strv_free_ char **dirs = NULL;
        FILE *f;

        ck_assert_ptr_nonnull(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/conf.d", dir);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/conf.d/b.conf", dir);
        f = fopen(path, "we");
        fputs("/b/lib\n/a/lib  # again\n", f);
        fclose(f);
        snprintf(path, sizeof(path), "%s/conf.d/a.conf", dir);
        f = fopen(path, "we");
        fprintf(f, "# comment\n\n  /a/lib\t\nhwcap 1 nosegneg\ninclude %s/abs.conf\n", dir);
        fclose(f);
        snprintf(path, sizeof(path), "%s/abs.conf", dir);
        f = fopen(path, "we");
        fputs("/abs/lib\nrelative/lib\n", f);
        fclose(f);
        snprintf(path, sizeof(path), "%s/ld.so.conf", dir);
        f = fopen(path, "we");
        fputs("/first\ninclude conf.d/*.conf\n/last\n", f);
        fclose(f);

        ck_assert_int_eq(ld_so_conf_dirs(path, &dirs), 0);
        ck_assert_uint_eq(strv_length(dirs), 5);
        ck_assert_str_eq(dirs[0], "/first");
        ck_assert_str_eq(dirs[1], "/a/lib");    /* conf.d/a.conf before b.conf, as glob() sorts */
        ck_assert_str_eq(dirs[2], "/abs/lib");
        ck_assert_str_eq(dirs[3], "/b/lib");
        ck_assert_str_eq(dirs[4], "/last");

        strv_free(dirs);
        dirs = NULL;
        ck_assert_int_eq(ld_so_conf_dirs("/nonexistent/ld.so.conf", &dirs), 0);
        ck_assert_uint_eq(strv_length(dirs), 0);

        /* An include of itself ends at the depth bound. */
        f = fopen(path, "we");
        fputs("include ld.so.conf\n", f);
        fclose(f);
        strv_free(dirs);
        dirs = NULL;
        ck_assert_int_eq(ld_so_conf_dirs(path, &dirs), -ELOOP);

        snprintf(path, sizeof(path), "rm -rf '%s'", dir);
        ck_assert_int_eq(system(path), 0);
}
END_TEST

/* ---- the plan ---- */

static bool under(const char *path, const char *dir) {
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

START_TEST(test_plan) {
        _cleanup_(toolroot_plan_clear) ToolRootPlan p = {};
        _cleanup_free_ char *err = NULL, *link = NULL;
        char *programs[] = { (char *) "/usr/sbin/mke2fs", NULL };
        char *sys[] = { (char *) "/sys/fs/ext4/features", NULL };
        static const ToolRootFile files[] = { { "/etc/mke2fs.conf", "MKE2FS_CONFIG" } };
        struct stat st;
        ToolRootDevice dev;
        bool has_link = false, has_conf = false, has_ldpath = false;
        ToolRootSpec spec = { .programs = programs, .files = files, .n_files = 1, .sys = sys, .devices = &dev,
                              .n_devices = 1 };

        if (access(programs[0], X_OK) < 0 || access("/etc/mke2fs.conf", R_OK) < 0) {
                printf("mke2fs is not installed here: the plan's case is skipped\n");
                return;
        }
        /* The device of / (a real block device's dev_t, its sysfs directory present). */
        ck_assert_int_eq(stat("/", &st), 0);
        dev = (ToolRootDevice) { .name = "x", .dev = st.st_dev };
        ck_assert_int_ge(asprintf(&link, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev)), 0);

        ck_assert_msg(toolroot_plan(&spec, "/etc/ld.so.conf", &p, &err) == 0, "%s", strna(err));
        ck_assert_str_eq(p.entries[0].source, "/usr/sbin/mke2fs");
        ck_assert_int_eq(p.entries[0].bind, TOOLROOT_BIND_READONLY);
        for (size_t i = 0; i < p.n_entries; i++) {
                const ToolRootEntry *e = &p.entries[i];
                static const char *const host[] = { "/etc", "/root", "/home", "/var", "/srv", "/tmp" };

                ck_assert_int_ne(e->bind, TOOLROOT_BIND_WRITABLE);
                if (streq(e->source, "/etc/mke2fs.conf")) {
                        ck_assert_str_eq(e->target, TOOLROOT_CONFIG_DIR "/mke2fs.conf");
                        has_conf = true;
                        continue;
                }
                ck_assert_str_eq(e->source, e->target);
                for (size_t k = 0; k < ELEMENTSOF(host); k++)
                        ck_assert_msg(!under(e->target, host[k]), "%s in the root", e->target);
                has_link = has_link || streq(e->source, link);
        }
        ck_assert(has_conf);
        ck_assert_msg(has_link || access(link, F_OK) < 0, "%s not in the plan", link);
        ck_assert(strv_contains(p.env, "MKE2FS_CONFIG=" TOOLROOT_CONFIG_DIR "/mke2fs.conf"));
        ck_assert(strv_contains(p.env, "LANG=C"));
        for (char **e = p.env; *e; e++)
                has_ldpath = has_ldpath || strncmp(*e, "LD_LIBRARY_PATH=/", 17) == 0;
        ck_assert(has_ldpath);

        /* A configuration file the host does not have is left out, with its variable. */
        static const ToolRootFile missing[] = { { "/nonexistent/x.conf", "X_CONFIG" }, { "/nonexistent/y.conf", NULL } };
        toolroot_plan_clear(&p);
        spec = (ToolRootSpec) { .programs = programs, .files = missing, .n_files = 2 };
        ck_assert_int_eq(toolroot_plan(&spec, "/etc/ld.so.conf", &p, NULL), 0);
        for (char **e = p.env; *e; e++)
                ck_assert_msg(strncmp(*e, "X_CONFIG=", 9) != 0, "%s", *e);
}
END_TEST

/* mdadm's root (ToolRootSpec.md): the host's whole /sys, writable, and no sysfs entry of its own
 * for the devices or the spec's sys list (all of it is under /sys). */
START_TEST(test_plan_md) {
        _cleanup_(toolroot_plan_clear) ToolRootPlan p = {};
        _cleanup_free_ char *err = NULL;
        char *programs[] = { (char *) "/bin/sh", NULL };
        char *sys[] = { (char *) "/sys/devices/system/cpu/online", NULL };
        ToolRootDevice dev;
        struct stat st;
        unsigned n_sys = 0;
        ToolRootSpec spec = { .programs = programs, .sys = sys, .devices = &dev, .n_devices = 1, .md = true };

        ck_assert_int_eq(stat("/", &st), 0);
        dev = (ToolRootDevice) { .name = "x", .dev = st.st_dev };
        ck_assert_msg(toolroot_plan(&spec, "/etc/ld.so.conf", &p, &err) == 0, "%s", strna(err));
        for (size_t i = 0; i < p.n_entries; i++) {
                const ToolRootEntry *e = &p.entries[i];

                if (!under(e->target, "/sys"))
                        continue;
                n_sys++;
                ck_assert_str_eq(e->target, "/sys");
                ck_assert_int_eq(e->bind, TOOLROOT_BIND_WRITABLE);
        }
        ck_assert_uint_eq(n_sys, 1);
}
END_TEST

/* ---- as root: a root built and entered ---- */

static char *run_in_root(const ToolRoot *root, const char *script, int *ret_status) {
        _cleanup_(sandbox_result_clear) SandboxResult res = {};
        _cleanup_free_ char *err = NULL;
        char *argv[] = { (char *) "sh", (char *) "-c", (char *) script, NULL };
        Sandbox sb = { .path = "/bin/sh", .argv = argv, .root = root };

        ck_assert_msg(sandbox_run(&sb, &res, &err) == 0, "%s", strna(err));
        *ret_status = res.status;
        return TAKE_PTR(res.output);
}

/* The text between "<marker>\n" and the next "---" line. */
static char *section(const char *out, const char *marker) {
        _cleanup_free_ char *m = NULL;
        const char *p, *e;

        ck_assert_int_ge(asprintf(&m, "%s\n", marker), 0);
        p = strstr(out, m);
        ck_assert_msg(p, "no %s in: %s", marker, out);
        p += strlen(m);
        e = strstr(p, "---\n");
        return strndup(p, e ? (size_t) (e - p) : strlen(p));
}

/* The case's directory, made and removed by the (unforked) fixture: the case's mounts live only
 * in its own mount namespace, so what is removed here is plain directories. */
static char base[] = "/var/tmp/test-toolroot.XXXXXX";

static void base_setup(void) {
        ck_assert_ptr_nonnull(mkdtemp(base));
}

static void base_teardown(void) {
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf --one-file-system '%s'", base);
        (void) !system(cmd);
}

START_TEST(test_root_entered) {
        char dir[128], writable[128], path[PATH_MAX];
        _cleanup_(toolroot_freep) ToolRoot *root = NULL;
        _cleanup_free_ char *err = NULL, *out = NULL, *script = NULL, *want = NULL;
        char *programs[] = { (char *) "/bin/sh", (char *) "/bin/ls", (char *) "/bin/cat", (char *) "/bin/touch",
                             (char *) "/bin/grep", NULL };
        static const ToolRootFile files[] = { { "/etc/ld.so.conf", "LDCONF_FILE" } };
        ToolRootDevice dev = { .name = "loopX", .dev = makedev(7, 250) };
        ToolRootSpec spec = { .programs = programs, .files = files, .n_files = 1, .devices = &dev, .n_devices = 1 };
        struct stat st;
        int status, pids = -1;

        /* A mount namespace of this (forked) case's own: everything goes with it. */
        ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        snprintf(dir, sizeof(dir), "%s/root", base);
        snprintf(writable, sizeof(writable), "%s/out", base);
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        ck_assert_int_eq(mkdir(writable, 0700), 0);
        spec.writable = writable;

        ck_assert_msg(toolroot_new(&spec, dir, &root, &err) == 0, "%s", strna(err));
        ck_assert_int_ge(asprintf(&script,
                                  "exec 2>&1; echo '<root>'; ls -a /; echo ---; echo '<dev>'; ls /dev; echo ---; "
                                  "echo '<host>'; cat /etc/passwd; ls /root /home /srv /tmp /etc; echo ---; "
                                  "echo '<proc>'; cat /proc/1/comm; echo pids=$(ls /proc | grep -c '^[0-9]'); "
                                  "echo ---; echo '<writes>'; touch /x /usr/y /dev/z %s/n; echo ---; "
                                  "echo '<writable>'; touch %s/made && echo made; ls %s; echo ---; "
                                  "echo '<config>'; echo \"$LDCONF_FILE\"; cat \"$LDCONF_FILE\" >/dev/null && "
                                  "echo read; echo ---", base, writable, base), 0);
        out = run_in_root(root, script, &status);
        /* What the root showed, for the log: as TAP comments, since the -root run speaks TAP. */
        for (const char *l = out; *l; ) {
                size_t n = strcspn(l, "\n");
                printf("# %.*s\n", (int) n, l);
                l += n + (l[n] == '\n');
        }
        fflush(stdout);

        /* / has what was asked: the programs' and libraries' directories (as the host's links),
         * config, dev, proc, and the way to the writable directory; no sysfs: loopX has none. */
        ck_assert_str_eq(section(out, "<root>"), ".\n..\nbin\nconfig\ndev\nlib\nlib64\nproc\nusr\nvar\n");
        ck_assert_str_eq(section(out, "<dev>"), "full\nloopX\nnull\nrandom\nurandom\nzero\n");
        ck_assert_str_eq(section(out, "<host>"),
                         "cat: /etc/passwd: No such file or directory\n"
                         "ls: cannot access '/root': No such file or directory\n"
                         "ls: cannot access '/home': No such file or directory\n"
                         "ls: cannot access '/srv': No such file or directory\n"
                         "ls: cannot access '/tmp': No such file or directory\n"
                         "ls: cannot access '/etc': No such file or directory\n");
        /* PID 1 of its namespace is sh itself; the command substitution's subshell and the
         * pipeline's two are the only others. */
        _cleanup_free_ char *proc = section(out, "<proc>");
        ck_assert_msg(strncmp(proc, "sh\npids=", 8) == 0 && sscanf(proc + 8, "%d", &pids) == 1 && pids >= 1 &&
                      pids <= 4, "%s", proc);
        ck_assert_int_ge(asprintf(&want, "touch: cannot touch '/x': Read-only file system\n"
                                         "touch: cannot touch '/usr/y': Read-only file system\n"
                                         "touch: cannot touch '/dev/z': Read-only file system\n"
                                         "touch: cannot touch '%s/n': Read-only file system\n", base), 0);
        ck_assert_str_eq(section(out, "<writes>"), want);
        /* Of the writable directory's parent only the way to it is there. */
        ck_assert_str_eq(section(out, "<writable>"), "made\nout\n");
        ck_assert_str_eq(section(out, "<config>"), TOOLROOT_CONFIG_DIR "/ld.so.conf\nread\n");
        ck_assert(WIFEXITED(status));

        /* The host sees the file made in the writable directory, and nothing else. */
        snprintf(path, sizeof(path), "%s/made", writable);
        ck_assert_int_eq(stat(path, &st), 0);
        snprintf(path, sizeof(path), "%s/n", base);
        ck_assert_int_eq(stat(path, &st), -1);

        root = toolroot_free(root);
        /* Detached: the directory is empty again. */
        snprintf(path, sizeof(path), "%s/usr", dir);
        ck_assert_int_eq(stat(path, &st), -1);
}
END_TEST

/* What the root case needs beyond root: a configuration file to bind (check_run_cases()). */
static const char *missing_root_entered(void) {
        if (geteuid() != 0)
                return "building a tool root needs root (mounts, mknod)";
        if (access("/etc/ld.so.conf", R_OK) < 0)
                return "no /etc/ld.so.conf here to bind as a configuration file";
        return NULL;
}

/* The root case runs as test-toolroot-root (--root), skipped with the reason where the machine
 * lacks what it needs. */
static int toolroot_root_cases(void) {
        TCase *tr = tcase_create("root");

        tcase_set_timeout(tr, 60);
        tcase_add_unchecked_fixture(tr, base_setup, base_teardown);
        tcase_add_test(tr, test_root_entered);
        return check_run_cases("toolroot-root", (const CheckCase[]) { { "root", tr, missing_root_entered } }, 1);
}

static Suite *toolroot_suite(void) {
        Suite *s = suite_create("toolroot");
        TCase *tc = tcase_create("plain");

        tcase_set_timeout(tc, 60);
        tcase_add_loop_test(tc, test_closure_is_ldds, 0, ELEMENTSOF(closure_programs));
        tcase_add_test(tc, test_closure_script);
        tcase_add_test(tc, test_elf_malformed);
        tcase_add_test(tc, test_elf_self);
        tcase_add_test(tc, test_ld_so_conf);
        tcase_add_test(tc, test_plan);
        tcase_add_test(tc, test_plan_md);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        bool root = argc > 1 && streq(argv[1], "--root");
        ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

        if (n < 0)
                return EXIT_FAILURE;
        self_path[n] = 0;
        if (root)
                return toolroot_root_cases();
        return check_run(toolroot_suite());
}
