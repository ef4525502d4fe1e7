/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program (mkfs) run so that, whatever arguments it was given, it can write to nothing but the
 * block devices it is handed: a child in a mount and PID namespace of its own, with the whole
 * mount tree read-only (mount_setattr(AT_RECURSIVE), or a remount per mount where that is missing),
 * a fresh tmpfs on /dev holding only those devices and null, zero, full, random, urandom, a fresh
 * /proc that shows only its own processes (so no /proc/PID/fd leads to another process's files),
 * an empty working directory, stdin /dev/null, a clean environment (PATH and
 * LANG=C only), and stdout and stderr into a pipe of which the first
 * SANDBOX_OUTPUT_MAX bytes are kept. A device node stays writable on a read-only mount (the kernel
 * checks write access to the mount only for files, directories and symlinks), which is what lets
 * the program write to its devices and nothing else.
 *
 * It keeps root's capabilities: mkfs.xfs needs CAP_SYS_ADMIN (BLKBSZSET). So the sandbox confines
 * what options can make a trusted mkfs do (undo files, external journals, log devices, extra
 * devices), not a hostile binary, which could remount.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SANDBOX_OUTPUT_MAX 4096u
/* Exit status of the child when the sandbox itself could not be built (its output says why). */
#define SANDBOX_EXIT_SETUP 126

typedef struct SandboxDevice {
        const char *name;       /* a kernel name: /dev/<name> in the sandbox */
        dev_t dev;
} SandboxDevice;

typedef struct Sandbox {
        const char *path;               /* the program, absolute */
        char *const *argv;
        const SandboxDevice *devices;
        size_t n_devices;
        const char *writable;           /* a mount point left writable (the images of --try-mkfs), or NULL */
        const char *cwd;                /* an empty directory */
        bool (*stop_requested)(void);   /* polled while it runs; may be NULL */
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
