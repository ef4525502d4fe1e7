/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the tools of a filesystem step share (mkfs and tune2fs/e2fsck in fsprep.c and fsconvert.c,
 * sfdisk in fspart.c, mdadm and lvm in layout-md.c and layout-lvm.c): where the program is, its run
 * in the sandbox (sandbox.h) in a root of its own (toolroot.h), its output made fit for FS_INFO and
 * for messages, its record. It calls nothing of those files, so they depend on it and not on each
 * other.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"
#include "shared/proto.h"
#include "toolroot.h"

/* In the worker's mount namespace only: its tmpfs (fsprep.h's FSPREP_DIR), where the tools' roots
 * are built; the root fstool_run() builds. */
#define FSTOOL_DIR "/tmp"
#define FSTOOL_ROOT FSTOOL_DIR "/toolroot"

/* What a failure message quotes of mkfs's output, at most. */
#define FSTOOL_SUMMARY_MAX 1000u

typedef struct FsPrepOptions {
        /* Polled while mkfs runs (a SIGTERM to the worker): mkfs is killed, -ECANCELED. May be NULL. */
        bool (*stop_requested)(void);
} FsPrepOptions;

/* Runs program (one of fs_type's tools: mkfs.<fs>, tune2fs, e2fsck, sfdisk) with argv in the sandbox, in
 * a root of its own with devices (or the writable directory, for the trial's images): 0 when it ran,
 * with *ret filled whatever its exit status, its output cleaned (fstool_output_clean()). input: its stdin,
 * or NULL. */
int fstool_run(const char *fs_type, const char *program, char *const *argv, const ToolRootDevice *devices,
               size_t n_devices, const char *writable, const char *input, const FsPrepOptions *opts,
               SandboxResult *ret, char **reterr);
/* The absolute path of a program in /usr/sbin, /usr/bin, /sbin or /bin; -EINVAL with a message when
 * none has it. */
int fstool_find_program(const char *name, char **ret, char **reterr);
/* Appends what ran (argv joined, its time, exit status and output) to info's commands. -E2BIG when
 * PROTO_FS_COMMANDS_MAX ran already. */
int fstool_command_add(ProtoFsInfo *info, char *const *argv, const SandboxResult *res);
/* "exit 1", "killed by signal 9" for a waitpid() status. */
void fstool_status_text(int status, char *buf, size_t size);

/* The pure parts, for tests. */

/* Makes len bytes of captured output a string for FS_INFO: an incomplete UTF-8 character at the
 * end dropped; backspaces and carriage returns applied as a terminal would (progress counters),
 * blanks at the ends of lines dropped; invalid bytes and the other control characters but \n and
 * \t replaced by '?'. buf has room for len + 1 bytes; returns the new length, never more. */
size_t fstool_output_clean(char *buf, size_t len);
/* The part of mkfs's output a message quotes: its lines up to a usage text, blank ones skipped,
 * trimmed, joined with "; ", at most FSTOOL_SUMMARY_MAX bytes; "no output" when none. */
char *fstool_output_summary(const char *output);
/* The words of argv joined by blanks; NULL without memory. */
char *fstool_join_argv(char *const *argv);
