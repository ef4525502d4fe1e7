/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program (mkfs) run so that, whatever arguments it was given, it can read nothing of the host
 * and write to nothing but the block devices it is handed: a child in a mount and PID namespace
 * of its own whose root is a tool root (toolroot.h: the program, its libraries and configuration,
 * the devices' sysfs directories, a /dev with only those devices and null, zero, full, random,
 * urandom, and a fresh /proc that shows only its own processes, so no /proc/PID/fd leads to
 * another process's files), every mount read-only but the one writable directory, the working
 * directory /, stdin /dev/null, the root's environment (PATH, LANG=C, LD_LIBRARY_PATH, the
 * configuration's variables), and stdout and stderr into a pipe of which the first
 * SANDBOX_OUTPUT_MAX bytes are kept. A device node stays writable on a read-only mount (the kernel
 * checks write access to the mount only for files, directories and symlinks), which is what lets
 * the program write to its devices and nothing else.
 *
 * It keeps root's capabilities: mkfs.xfs needs CAP_SYS_ADMIN (BLKBSZSET). So the sandbox confines
 * what options can make a trusted mkfs do (copy host files in, undo files, external journals, log
 * devices, extra devices), not a hostile binary, which could remount.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "toolroot.h"

#define SANDBOX_OUTPUT_MAX 4096u
/* Exit status of the child when the sandbox itself could not be built (its output says why). */
#define SANDBOX_EXIT_SETUP 126

typedef struct Sandbox {
        const char *path;               /* the program, absolute: one of the root's programs */
        char *const *argv;
        const ToolRoot *root;           /* built (toolroot_new()) in the caller's mount namespace */
        bool (*stop_requested)(void);   /* polled while it runs; may be NULL */
        const char *input;              /* its stdin (sfdisk's script), or NULL: /dev/null */
} Sandbox;

typedef struct SandboxResult {
        int status;             /* as from waitpid() */
        uint64_t usec;          /* CLOCK_MONOTONIC from start to exit */
        char *output;           /* stdout and stderr, at most SANDBOX_OUTPUT_MAX bytes, NUL-terminated
                                 * (bytes as written: may hold NULs and broken UTF-8) */
        size_t output_len;
} SandboxResult;

/* Runs it to the end. 0 with *ret filled (output owned); -ECANCELED when stop_requested() said so
 * (the program was SIGKILLed and reaped); other errors with a message. */
int sandbox_run(const Sandbox *sb, SandboxResult *ret, char **reterr);
void sandbox_result_clear(SandboxResult *r);
