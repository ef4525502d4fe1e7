/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ELF reading of elfdeps.h. Headers are read with pread() into the 64-bit structures (32-bit
 * files are widened on the way), every offset and size checked against the file's size before it
 * is used, and the tables bounded: a malformed or hostile file gives -EBADMSG, never a read out of
 * bounds or an allocation of its choosing.
 */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfdeps.h"
#include "shared/strv.h"
#include "shared/util.h"

#define PHNUM_MAX 256u
#define DYNAMIC_MAX (UINT64_C(64) << 10)
#define STRTAB_MAX (UINT64_C(4) << 20)
#define CONF_DEPTH_MAX 8
#define SCRIPT_DEPTH_MAX 4
#define CLOSURE_FILES_MAX 512u

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define HOST_ELFDATA ELFDATA2LSB
#else
#define HOST_ELFDATA ELFDATA2MSB
#endif

static int read_at(int fd, void *buf, size_t n, uint64_t off, uint64_t file_size) {
        ssize_t k;

        if (off > file_size || n > file_size - off)
                return -EBADMSG;
        k = pread(fd, buf, n, (off_t) off);
        if (k < 0)
                return -errno;
        return (size_t) k == n ? 0 : -EBADMSG;
}

typedef struct Phdr {
        uint32_t type;
        uint64_t offset, vaddr, filesz;
} Phdr;

static int read_phdrs(int fd, const Elf64_Ehdr *eh, bool is64, uint64_t file_size, Phdr *ret, size_t *ret_n) {
        size_t entsize = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

        if (eh->e_phnum > PHNUM_MAX || (eh->e_phnum > 0 && eh->e_phentsize != entsize))
                return -EBADMSG;
        for (size_t i = 0; i < eh->e_phnum; i++) {
                uint64_t off = eh->e_phoff + i * entsize;
                int r;

                if (is64) {
                        Elf64_Phdr p;
                        r = read_at(fd, &p, sizeof(p), off, file_size);
                        if (r < 0)
                                return r;
                        ret[i] = (Phdr) { p.p_type, p.p_offset, p.p_vaddr, p.p_filesz };
                } else {
                        Elf32_Phdr p;
                        r = read_at(fd, &p, sizeof(p), off, file_size);
                        if (r < 0)
                                return r;
                        ret[i] = (Phdr) { p.p_type, p.p_offset, p.p_vaddr, p.p_filesz };
                }
        }
        *ret_n = eh->e_phnum;
        return 0;
}

/* The file offset of a virtual address, through the PT_LOAD segments. */
static int vaddr_to_offset(const Phdr *ph, size_t n, uint64_t vaddr, uint64_t *ret) {
        for (size_t i = 0; i < n; i++)
                if (ph[i].type == PT_LOAD && vaddr >= ph[i].vaddr && vaddr - ph[i].vaddr < ph[i].filesz) {
                        *ret = ph[i].offset + (vaddr - ph[i].vaddr);
                        return 0;
                }
        return -EBADMSG;
}

/* A NUL-terminated string at off of a table of size bytes. */
static int table_string(const char *table, uint64_t size, uint64_t off, char **ret) {
        const char *end;

        if (off >= size || !(end = memchr(table + off, 0, size - off)))
                return -EBADMSG;
        *ret = strdup(table + off);
        return *ret ? 0 : -ENOMEM;
}

int elf_deps_read(int fd, ElfDeps *ret) {
        _cleanup_(elf_deps_clear) ElfDeps d = {};
        _cleanup_free_ Phdr *ph = NULL;
        _cleanup_free_ char *strtab = NULL;
        _cleanup_free_ uint64_t *dyn = NULL;
        unsigned char ident[EI_NIDENT];
        Elf64_Ehdr eh = {};
        uint64_t strtab_addr = 0, strtab_size = 0, runpath = UINT64_MAX, rpath = UINT64_MAX, file_size;
        size_t n_ph = 0, n_dyn = 0, n_needed = 0;
        struct stat st;
        bool is64;
        int r;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -ENOEXEC;
        file_size = (uint64_t) st.st_size;
        r = read_at(fd, ident, sizeof(ident), 0, file_size);
        if (r < 0)
                return r == -EBADMSG ? -ENOEXEC : r;
        if (memcmp(ident, ELFMAG, SELFMAG) != 0 || ident[EI_DATA] != HOST_ELFDATA ||
            (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64))
                return -ENOEXEC;
        is64 = ident[EI_CLASS] == ELFCLASS64;
        if (is64) {
                r = read_at(fd, &eh, sizeof(eh), 0, file_size);
        } else {
                Elf32_Ehdr e;
                r = read_at(fd, &e, sizeof(e), 0, file_size);
                eh = (Elf64_Ehdr) { .e_type = e.e_type, .e_machine = e.e_machine, .e_phoff = e.e_phoff,
                                    .e_phentsize = e.e_phentsize, .e_phnum = e.e_phnum };
        }
        if (r < 0)
                return r;
        d.elf_class = ident[EI_CLASS];
        d.machine = eh.e_machine;

        ph = calloc(MAX(eh.e_phnum, (uint16_t) 1), sizeof(Phdr));
        if (!ph)
                return -ENOMEM;
        r = read_phdrs(fd, &eh, is64, file_size, ph, &n_ph);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n_ph; i++) {
                if (ph[i].type == PT_INTERP) {
                        _cleanup_free_ char *buf = NULL;

                        if (ph[i].filesz == 0 || ph[i].filesz > PATH_MAX || d.interp)
                                return -EBADMSG;
                        buf = malloc(ph[i].filesz);
                        if (!buf)
                                return -ENOMEM;
                        r = read_at(fd, buf, ph[i].filesz, ph[i].offset, file_size);
                        if (r < 0)
                                return r;
                        r = table_string(buf, ph[i].filesz, 0, &d.interp);
                        if (r < 0)
                                return r;
                }
                if (ph[i].type == PT_DYNAMIC) {
                        size_t entsize = is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
                        _cleanup_free_ uint8_t *raw = NULL;

                        if (dyn || ph[i].filesz > DYNAMIC_MAX)
                                return -EBADMSG;
                        n_dyn = ph[i].filesz / entsize;
                        raw = malloc(MAX(ph[i].filesz, (uint64_t) 1));
                        dyn = calloc(2 * MAX(n_dyn, (size_t) 1), sizeof(uint64_t));
                        if (!raw || !dyn)
                                return -ENOMEM;
                        r = read_at(fd, raw, ph[i].filesz, ph[i].offset, file_size);
                        if (r < 0)
                                return r;
                        for (size_t k = 0; k < n_dyn; k++) {
                                if (is64) {
                                        Elf64_Dyn e;
                                        memcpy(&e, raw + k * entsize, sizeof(e));
                                        dyn[2 * k] = (uint64_t) e.d_tag;
                                        dyn[2 * k + 1] = e.d_un.d_val;
                                } else {
                                        Elf32_Dyn e;
                                        memcpy(&e, raw + k * entsize, sizeof(e));
                                        dyn[2 * k] = (uint64_t) (int64_t) e.d_tag;
                                        dyn[2 * k + 1] = e.d_un.d_val;
                                }
                        }
                }
        }

        /* The string table first: DT_NEEDED and the paths are offsets into it. */
        for (size_t k = 0; k < n_dyn && dyn[2 * k] != DT_NULL; k++) {
                uint64_t tag = dyn[2 * k], val = dyn[2 * k + 1];

                if (tag == DT_STRTAB)
                        strtab_addr = val;
                else if (tag == DT_STRSZ)
                        strtab_size = val;
                else if (tag == DT_NEEDED)
                        n_needed++;
                else if (tag == DT_RUNPATH)
                        runpath = val;
                else if (tag == DT_RPATH)
                        rpath = val;
        }
        if (n_needed > 0 || runpath != UINT64_MAX || rpath != UINT64_MAX) {
                uint64_t off;

                if (strtab_size == 0 || strtab_size > STRTAB_MAX)
                        return -EBADMSG;
                r = vaddr_to_offset(ph, n_ph, strtab_addr, &off);
                if (r < 0)
                        return r;
                strtab = malloc(strtab_size);
                if (!strtab)
                        return -ENOMEM;
                r = read_at(fd, strtab, strtab_size, off, file_size);
                if (r < 0)
                        return r;
                d.needed = calloc(n_needed + 1, sizeof(char *));
                if (!d.needed)
                        return -ENOMEM;
        }
        n_needed = 0;
        for (size_t k = 0; k < n_dyn && dyn[2 * k] != DT_NULL; k++)
                if (dyn[2 * k] == DT_NEEDED) {
                        r = table_string(strtab, strtab_size, dyn[2 * k + 1], &d.needed[n_needed]);
                        if (r < 0)
                                return r;
                        n_needed++;
                }
        if (runpath != UINT64_MAX && (r = table_string(strtab, strtab_size, runpath, &d.runpath)) < 0)
                return r;
        if (rpath != UINT64_MAX && (r = table_string(strtab, strtab_size, rpath, &d.rpath)) < 0)
                return r;

        *ret = d;
        d = (ElfDeps) {};
        return 0;
}

void elf_deps_clear(ElfDeps *d) {
        free(d->interp);
        strv_free(d->needed);
        free(d->runpath);
        free(d->rpath);
        *d = (ElfDeps) {};
}

/* ---- ld.so.conf ---- */

static int conf_read(const char *path, unsigned depth, char ***dirs) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL, *copy = NULL;
        const char *base;
        size_t size = 0;
        int r;

        if (depth > CONF_DEPTH_MAX)
                return -ELOOP;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        base = dirname(copy);

        while (getline(&line, &size, f) > 0) {
                char *s = line, *e;

                s[strcspn(s, "#\n")] = 0;
                s += strspn(s, " \t");
                e = s + strlen(s);
                while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
                        *--e = 0;
                if (!*s)
                        continue;
                if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
                        _cleanup_free_ char *pattern = NULL;
                        glob_t g = {};

                        s += 7 + strspn(s + 7, " \t");
                        if (asprintf(&pattern, "%s%s%s", s[0] == '/' ? "" : base, s[0] == '/' ? "" : "/", s) < 0)
                                return -ENOMEM;
                        if (glob(pattern, 0, NULL, &g) == 0)
                                for (size_t i = 0; i < g.gl_pathc; i++) {
                                        r = conf_read(g.gl_pathv[i], depth + 1, dirs);
                                        if (r < 0) {
                                                globfree(&g);
                                                return r;
                                        }
                                }
                        globfree(&g);
                        continue;
                }
                if (strncmp(s, "hwcap", 5) == 0 && (s[5] == ' ' || s[5] == '\t'))
                        continue;
                if (s[0] != '/' || strv_contains(*dirs, s))
                        continue;
                r = strv_push(dirs, s);
                if (r < 0)
                        return r;
        }
        return 0;
}

int ld_so_conf_dirs(const char *path, char ***ret) {
        _cleanup_strv_free_ char **dirs = NULL;
        int r;

        r = strv_new_empty(&dirs);
        if (r >= 0)
                r = conf_read(path, 0, &dirs);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(dirs);
        return 0;
}

/* ---- the closure ---- */

typedef struct Closure {
        char **files;           /* as the loader opens them */
        char **lib_dirs;
        char **parsed;          /* real paths read already */
        char **conf_dirs;
        char **reterr;
} Closure;

static int closure_add_file(Closure *c, const char *path) {
        if (strv_contains(c->files, path))
                return 0;
        if (strv_length(c->files) >= CLOSURE_FILES_MAX)
                return reterr_set(c->reterr, -E2BIG, "more than %u files to bind into the tool's root",
                                  CLOSURE_FILES_MAX);
        return strv_push(&c->files, path);
}

/* The directories of a DT_RUNPATH or DT_RPATH, $ORIGIN the directory of the object; entries with
 * other substitutions ($LIB, $PLATFORM) are left out. */
static int path_list(const char *list, const char *origin, char ***dirs) {
        _cleanup_free_ char *copy = strdup(list ?: "");
        char *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (char *e = strtok_r(copy, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
                _cleanup_free_ char *d = NULL;

                if (strncmp(e, "$ORIGIN", 7) == 0 || strncmp(e, "${ORIGIN}", 9) == 0) {
                        const char *rest = e + (e[1] == '{' ? 9 : 7);
                        if (asprintf(&d, "%s%s", origin, rest) < 0)
                                return -ENOMEM;
                } else if (strchr(e, '$') || e[0] != '/')
                        continue;
                else if (!(d = strdup(e)))
                        return -ENOMEM;
                r = strv_push(dirs, d);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether path is an ELF file of this class and machine (the loader skips others). */
static bool elf_matches(const char *path, uint8_t elf_class, uint16_t machine) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        unsigned char ident[EI_NIDENT];
        Elf64_Half m;

        if (fd < 0 || pread(fd, ident, sizeof(ident), 0) != (ssize_t) sizeof(ident) ||
            memcmp(ident, ELFMAG, SELFMAG) != 0 || ident[EI_CLASS] != elf_class || ident[EI_DATA] != HOST_ELFDATA ||
            pread(fd, &m, sizeof(m), offsetof(Elf64_Ehdr, e_machine)) != (ssize_t) sizeof(m))
                return false;
        /* e_machine sits at the same offset in both classes. */
        return m == machine;
}

static int closure_object(Closure *c, const char *path, unsigned depth);

static int closure_library(Closure *c, const char *name, const char *needed_by, const ElfDeps *by,
                           const char *origin) {
        _cleanup_strv_free_ char **dirs = NULL;
        static const char *const defaults[] = { "/lib64", "/usr/lib64", "/lib", "/usr/lib" };
        int r;

        if (strchr(name, '/')) {
                r = closure_add_file(c, name);
                return r < 0 ? r : closure_object(c, name, 0);
        }
        if (!by->runpath && by->rpath && (r = path_list(by->rpath, origin, &dirs)) < 0)
                return r;
        if (by->runpath && (r = path_list(by->runpath, origin, &dirs)) < 0)
                return r;
        for (char **d = c->conf_dirs; d && *d; d++)
                if ((r = strv_push(&dirs, *d)) < 0)
                        return r;
        for (size_t i = 0; i < ELEMENTSOF(defaults); i++)
                if ((r = strv_push(&dirs, defaults[i])) < 0)
                        return r;

        for (char **d = dirs; *d; d++) {
                _cleanup_free_ char *p = NULL;

                if (asprintf(&p, "%s/%s", *d, name) < 0)
                        return -ENOMEM;
                if (!elf_matches(p, by->elf_class, by->machine))
                        continue;
                r = closure_add_file(c, p);
                if (r >= 0 && !strv_contains(c->lib_dirs, *d))
                        r = strv_push(&c->lib_dirs, *d);
                if (r >= 0)
                        r = closure_object(c, p, 0);
                return r;
        }
        return reterr_set(c->reterr, -ENOENT, "cannot find %s, which %s needs (looked where the dynamic loader "
                          "looks: its run path, the directories of /etc/ld.so.conf, /lib64, /usr/lib64, /lib, "
                          "/usr/lib)", name, needed_by);
}

/* Reads one program or library (by its real path, once) and follows what it needs. */
static int closure_object(Closure *c, const char *path, unsigned depth) {
        _cleanup_(elf_deps_clear) ElfDeps d = {};
        _cleanup_free_ char *real = realpath(path, NULL), *origin = NULL;
        _cleanup_close_ int fd = -EBADF;
        char head[PATH_MAX + 3];
        ssize_t n;
        int r;

        if (!real)
                return reterr_set(c->reterr, -errno, "cannot find %s: %m", path);
        if (strv_contains(c->parsed, real))
                return 0;
        r = strv_push(&c->parsed, real);
        if (r < 0)
                return r;
        fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return reterr_set(c->reterr, -errno, "cannot open %s: %m", real);

        /* A script: its interpreter is a program of the root too. */
        n = pread(fd, head, sizeof(head) - 1, 0);
        if (n >= 2 && head[0] == '#' && head[1] == '!') {
                char *interp;

                head[n] = 0;
                head[strcspn(head, "\n")] = 0;
                interp = head + 2 + strspn(head + 2, " \t");
                interp[strcspn(interp, " \t")] = 0;
                if (interp[0] != '/' || depth >= SCRIPT_DEPTH_MAX)
                        return reterr_set(c->reterr, -ENOEXEC, "%s is a script whose interpreter '%s' cannot be "
                                          "followed", path, interp);
                r = closure_add_file(c, interp);
                return r < 0 ? r : closure_object(c, interp, depth + 1);
        }

        r = elf_deps_read(fd, &d);
        if (r < 0)
                return reterr_set(c->reterr, r, "cannot read %s as an ELF file: %s", real, strerror(-r));
        if (d.interp) {
                r = closure_add_file(c, d.interp);
                if (r >= 0)
                        r = closure_object(c, d.interp, depth);
                if (r < 0)
                        return r;
        }
        origin = strdup(real);
        if (!origin)
                return -ENOMEM;
        *strrchr(origin, '/') = 0;
        for (char **l = d.needed; l && *l; l++) {
                r = closure_library(c, *l, path, &d, origin);
                if (r < 0)
                        return r;
        }
        return 0;
}

int elf_closure(char *const *programs, const char *ld_so_conf, char ***ret_files, char ***ret_lib_dirs,
                char **reterr) {
        Closure c = { .reterr = reterr };
        int r;

        r = strv_new_empty(&c.files);
        if (r >= 0)
                r = strv_new_empty(&c.lib_dirs);
        if (r >= 0)
                r = ld_so_conf_dirs(ld_so_conf, &c.conf_dirs);
        for (char *const *p = programs; r >= 0 && p && *p; p++) {
                if ((*p)[0] != '/')
                        r = reterr_set(reterr, -EINVAL, "%s is not an absolute path", *p);
                if (r >= 0)
                        r = closure_add_file(&c, *p);
                if (r >= 0)
                        r = closure_object(&c, *p, 0);
        }
        strv_free(c.parsed);
        strv_free(c.conf_dirs);
        if (r < 0) {
                strv_free(c.files);
                strv_free(c.lib_dirs);
                return r;
        }
        *ret_files = c.files;
        *ret_lib_dirs = c.lib_dirs;
        return 0;
}
