/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a program needs to start in a root of its own (toolroot.h): its ELF interpreter and the
 * shared libraries it loads, read from the files themselves rather than from ldd, which runs the
 * dynamic loader on them. elf_deps_read() parses one ELF file (PT_INTERP, and from PT_DYNAMIC the
 * DT_NEEDED names, DT_RUNPATH and DT_RPATH); elf_closure() follows them from a list of programs
 * (a "#!" script's interpreter too) and finds each library as the dynamic loader would without
 * its cache: the object's DT_RPATH (when it has no DT_RUNPATH) and DT_RUNPATH with $ORIGIN, then
 * the directories of /etc/ld.so.conf and its includes (what ldconfig builds the cache from), then
 * /lib64, /usr/lib64, /lib and /usr/lib; a file of another ELF class or machine is skipped, as
 * the loader skips it.
 *
 * Libraries a program loads with dlopen() are not in DT_NEEDED; a tool that needs some names them
 * as files of its root. Only the host's own byte order is read: a program of another one could not
 * run here anyway.
 */
#pragma once

#include <stdint.h>

typedef struct ElfDeps {
        char *interp;           /* PT_INTERP, or NULL (static, or a library) */
        char **needed;          /* DT_NEEDED in order, NULL-terminated; NULL when none */
        char *runpath;          /* DT_RUNPATH, or NULL */
        char *rpath;            /* DT_RPATH, or NULL */
        uint8_t elf_class;      /* ELFCLASS32, ELFCLASS64 */
        uint16_t machine;       /* e_machine */
} ElfDeps;

/* -ENOEXEC: not an ELF file of this byte order; -EBADMSG: headers or tables that point outside
 * the file or exceed the bounds below; -errno of a read. */
int elf_deps_read(int fd, ElfDeps *ret);
void elf_deps_clear(ElfDeps *d);

/* The directories of an ld.so.conf file, in order, with its "include" globs (relative to the
 * file's directory) followed to a depth of 8; "hwcap" lines and comments skipped. A missing file
 * is no directory. */
int ld_so_conf_dirs(const char *path, char ***ret);

/* Every file the programs need to run, in the order found: each program as given, its
 * interpreter, each library by the path it was found at (the loader opens that path; symlinks on
 * the way are the caller's to reproduce). *ret_lib_dirs: the directories the libraries were found
 * in, in order, for LD_LIBRARY_PATH. ld_so_conf: normally "/etc/ld.so.conf". -ENOENT with a
 * message when a program or a library is not there, other errors with a message. */
int elf_closure(char *const *programs, const char *ld_so_conf, char ***ret_files, char ***ret_lib_dirs,
                char **reterr);
