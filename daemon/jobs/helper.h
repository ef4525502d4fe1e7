/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A short-lived helper process for work that may block on a slow disk (removing a job's files,
 * checking a target), so that the event loop only watches it. fork without exec: the child runs
 * one function on its copy of our memory and _exit()s; what it reports comes back through a
 * pipe, read on the loop as it arrives, bounded; a pidfd child source says when it is gone and a
 * timer kills it when it takes too long. Shared by cleanup.c and verdict-query.c.
 *
 * The pids of live helpers are kept per process (helper_live_pids()), so that the stray sweep of
 * supervisor.c, which kills every child that is not a worker, leaves them alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct Helper Helper;

/* Runs in the child. fd is the write end of the report pipe (fd 3 by then; every other descriptor
 * but stdin, stdout and stderr is closed, the bus and the database included); the return value is
 * the child's exit status. The child has the parent's memory but none of its threads or event
 * loop: it calls libc and the pure code it was given, never sd-bus, sd-event or SQLite, and it
 * ends in _exit(), so no atexit handler or stdio buffer of the parent's runs twice. */
typedef int (*HelperRun)(int fd, void *userdata);

typedef struct HelperOptions {
        const char *name;       /* the child's comm (at most 15 bytes), e.g. "benchd-cleanup" */
        size_t report_max;      /* the most bytes the child may write; more and it is killed */
        uint64_t timeout_usec;  /* after it the child is sent SIGKILL */
        /* Call back at the timeout, right after the SIGKILL, instead of once the child is reaped:
         * for a caller that owes someone an answer. A process in uninterruptible sleep (a read
         * from a dying disk) dies only when that I/O ends; the event loop reaps it whenever. */
        bool done_at_timeout;
} HelperOptions;

typedef struct HelperResult {
        const uint8_t *report;  /* what the child wrote, valid during the callback */
        size_t report_size;
        bool overflow;          /* it wrote more than report_max (it was killed; report is cut) */
        bool timed_out;         /* killed by us after the timeout */
        bool reaped;            /* the child is gone; false only for a done_at_timeout callback */
        int code;               /* when reaped: CLD_EXITED, CLD_KILLED or CLD_DUMPED */
        int status;             /* when reaped: the exit status or the signal */
} HelperResult;

/* Called once; the Helper may be freed from here. */
typedef void (*HelperDone)(Helper *h, const HelperResult *result, void *userdata);

/* Forks a child that runs run(fd, run_userdata). 0 with *ret, or a negative errno (no child). */
int helper_spawn(sd_event *e, const HelperOptions *options, HelperRun run, void *run_userdata, HelperDone cb,
                 void *userdata, Helper **ret);
/* Without calling back. A child still running is sent SIGKILL and reaped by the event loop when it
 * has gone (or left to init when the loop is freed first): this never waits for it. */
Helper *helper_free(Helper *h);

/* Sends SIGKILL now; done comes when the child is reaped (timed_out false). */
void helper_kill(Helper *h);
pid_t helper_pid(Helper *h);

/* How many helpers of this process are alive (forked, not yet reaped), and up to size of their
 * pids into pids. */
size_t helper_live_pids(pid_t *pids, size_t size);

/* In the child: writes all of data to fd (the report pipe), across short writes. 0 or a negative
 * errno. A report longer than the pipe's buffer blocks until the parent has read the start. */
int helper_report(int fd, const void *data, size_t size);
