#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Stops benchd's workers at chosen system calls, so that a test can act between two of a worker's
# steps without racing it: the races of test-safety-caller.sh (a directory swapped for another, a
# name turned into a symlink, a cancel in the middle of the creates) happen at exactly the point
# they aim at, on every run, with no hook in the worker.
#
#   syscall-stop.py BENCHD_PID WORKER_PATH RULE...
#
# A RULE is SYSCALL:REGEX[:N]: the return of the N-th call (default 1) of SYSCALL (mkdirat, openat,
# openat2, unlinkat) by a benchd-worker process or thread whose path argument matches REGEX
# (Python re.search) holds that thread there, once: the system call has completed, the next one
# has not begun. On stdout, a line each:
#   READY                                        attached
#   STOP RULE_INDEX TID SYSCALL RETURN_VALUE PATH  a thread is held; a line on stdin lets it go:
#                                                "cont", or "done" to trace no more system calls
#                                                from then on (each costs the worker two stops)
#   SIGNAL TID SIGNO                             a worker thread's handler of SIGNO has run (seen
#                                                at its rt_sigreturn, while system calls are traced)
#   EXIT PID                                     a worker process ended
# While a thread is held everything else runs on (benchd answers calls, its children come and go);
# a second hit waits for the first to be let go. A held thread that dies (kill -9) is held no more:
# nothing is to be sent for it.
#
# benchd is attached with PTRACE_SEIZE and continued at every stop: only its forks, execs, exits
# and signals stop it; its children likewise, until one execs the worker, whose system calls are
# then traced (its threads and children too). Every tracee is detached at its PTRACE_EVENT_EXIT
# stop, so that its parent learns of its end without a tracer in between (sd-event, waiting on a
# pidfd, can miss an exit reported to a tracer first).
#
# Prints "SKIP reason" and exits 77 where it cannot work (another architecture, no ptrace, a kernel
# without PTRACE_GET_SYSCALL_INFO). When the tracer exits (the test kills it), the kernel detaches
# every tracee and lets it run on.

import ctypes
import errno
import os
import platform
import re
import select
import signal
import struct
import sys
import time

PTRACE_CONT = 7
PTRACE_DETACH = 17
PTRACE_SYSCALL = 24
PTRACE_SEIZE = 0x4206
PTRACE_GET_SYSCALL_INFO = 0x420E
PTRACE_O_TRACESYSGOOD = 0x01
PTRACE_O_TRACEFORK = 0x02
PTRACE_O_TRACEVFORK = 0x04
PTRACE_O_TRACECLONE = 0x08
PTRACE_O_TRACEEXEC = 0x10
PTRACE_O_TRACEEXIT = 0x40
PTRACE_EVENT_EXIT = 6
PTRACE_EVENT_STOP = 128
PTRACE_SYSCALL_INFO_ENTRY = 1
PTRACE_SYSCALL_INFO_EXIT = 2
WALL = 0x40000000

SYSCALLS = {
    "x86_64": {"openat": 257, "mkdirat": 258, "unlinkat": 263, "openat2": 437},
    "aarch64": {"openat": 56, "mkdirat": 34, "unlinkat": 35, "openat2": 437},
}
RT_SIGRETURN = {"x86_64": 15, "aarch64": 139}

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


DEBUG = bool(os.environ.get("SYSCALL_STOP_DEBUG"))


def debug(fmt, *args):
    if DEBUG:
        sys.stderr.write("%.6f %s\n" % (time.monotonic(), fmt % args))
        sys.stderr.flush()


def skip(reason):
    out("SKIP " + reason)
    sys.exit(77)


def ptrace(request, pid, addr=0, data=0):
    r = libc.ptrace(request, pid, ctypes.c_void_p(addr), ctypes.c_void_p(data))
    if r == -1:
        e = ctypes.get_errno()
        if e:
            raise OSError(e, os.strerror(e))
    return r


def resume(pid, traced, sig=0):
    try:
        ptrace(PTRACE_SYSCALL if traced else PTRACE_CONT, pid, 0, sig)
    except ProcessLookupError:
        pass


def exe_of(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return ""


def read_string(pid, addr):
    try:
        with open("/proc/%d/mem" % pid, "rb", buffering=0) as f:
            f.seek(addr)
            data = f.read(4096)
    except (OSError, OverflowError, ValueError):
        return None
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


def syscall_info(pid):
    buf = ctypes.create_string_buffer(128)
    ptrace(PTRACE_GET_SYSCALL_INFO, pid, 128, ctypes.addressof(buf))
    op = buf.raw[0]
    if op == PTRACE_SYSCALL_INFO_ENTRY:
        nr, _, path = struct.unpack_from("<QQQ", buf.raw, 24)
        return op, nr, path
    if op == PTRACE_SYSCALL_INFO_EXIT:
        (rval,) = struct.unpack_from("<q", buf.raw, 24)
        return op, rval, None
    return op, None, None


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: syscall-stop.py BENCHD_PID WORKER_PATH SYSCALL:REGEX[:N]...\n")
        return 2
    benchd = int(sys.argv[1])
    worker = os.path.realpath(sys.argv[2])
    table = SYSCALLS.get(platform.machine())
    if not table:
        skip("system call numbers for %s are not known here" % platform.machine())
    names = {nr: name for name, nr in table.items()}
    sigreturn = RT_SIGRETURN[platform.machine()]
    rules = []
    for spec in sys.argv[3:]:
        parts = spec.split(":")
        if len(parts) not in (2, 3) or parts[0] not in table:
            sys.stderr.write("bad rule %r\n" % spec)
            return 2
        rules.append({"nr": table[parts[0]], "name": parts[0], "re": re.compile(parts[1]),
                      "nth": int(parts[2]) if len(parts) == 3 else 1, "seen": 0})

    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    options = (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
               PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
    try:
        for tid in os.listdir("/proc/%d/task" % benchd):
            ptrace(PTRACE_SEIZE, int(tid), 0, options)
    except OSError as e:
        skip("cannot trace benchd (pid %d): %s" % (benchd, e.strerror))

    entries = {}        # tid -> (nr, path) of the system call it is in
    workers = set()     # tgids of worker processes
    holds = []          # [(tid, traced, line)]: the first is announced and waits for "cont"
    is_worker = {}      # tid -> whether it runs the worker (known at its first stop and at exec)
    untrace = False     # "done": no more system calls traced, the rest runs at full speed
    delivered = {}      # tid -> signal passed on to a worker thread, until its handler returns
    probed = False
    out("READY")
    while True:
        if holds:
            # Held: everything else goes on (benchd answers calls, forks, gets signals) while the
            # test acts; its "cont" lets the held thread go.
            if select.select([sys.stdin], [], [], 0.01)[0]:
                line = sys.stdin.readline()
                if not line:
                    return 0
                if line.strip() == "done":
                    untrace = True
                tid, traced, _ = holds.pop(0)
                resume(tid, traced and not untrace)
                if holds:
                    out(holds[0][2])
        try:
            pid, status = os.waitpid(-1, WALL | (os.WNOHANG if holds else 0))
        except ChildProcessError:
            if holds:
                continue
            return 0
        if pid == 0:
            continue
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            entries.pop(pid, None)
            is_worker.pop(pid, None)
            if pid in workers:
                workers.discard(pid)
                out("EXIT %d" % pid)
            continue
        if not os.WIFSTOPPED(status):
            continue
        sig = os.WSTOPSIG(status)
        event = status >> 16
        debug("pid %d sig %d event %d", pid, sig, event)
        if pid not in is_worker or event == 4:
            is_worker[pid] = exe_of(pid) == worker
            if is_worker[pid]:
                try:
                    with open("/proc/%d/status" % pid) as f:
                        workers.add(int(next(l for l in f if l.startswith("Tgid:")).split()[1]))
                except (OSError, StopIteration, ValueError):
                    pass
        traced = is_worker[pid] and not untrace

        if sig == (signal.SIGTRAP | 0x80):
            try:
                op, a, b = syscall_info(pid)
            except OSError as e:
                if not probed and e.errno in (errno.EIO, errno.EINVAL):
                    skip("the kernel has no PTRACE_GET_SYSCALL_INFO")
                resume(pid, traced)
                continue
            probed = True
            if op == PTRACE_SYSCALL_INFO_ENTRY:
                entries[pid] = (a, read_string(pid, b) if a in names else None)
                debug("pid %d syscall %d", pid, a)
                if a == sigreturn and pid in delivered:
                    # Its handler has run (rt_sigreturn is how a handler returns).
                    out("SIGNAL %d %d" % (pid, delivered.pop(pid)))
            elif op == PTRACE_SYSCALL_INFO_EXIT and pid in entries:
                nr, path = entries.pop(pid)
                hit = None
                for i, rule in enumerate(rules):
                    if rule["nr"] != nr or path is None or not rule["re"].search(path):
                        continue
                    rule["seen"] += 1
                    if rule["seen"] == rule["nth"]:
                        hit = "STOP %d %d %s %d %s" % (i, pid, rule["name"], a, path)
                        break
                if hit:
                    holds.append((pid, traced, hit))
                    if len(holds) == 1:
                        out(hit)
                    continue
            resume(pid, traced)
        elif sig == signal.SIGTRAP and event == PTRACE_EVENT_EXIT:
            # Let it end untraced (see the top).
            entries.pop(pid, None)
            is_worker.pop(pid, None)
            delivered.pop(pid, None)
            announced = holds[0] if holds else None
            holds[:] = [h for h in holds if h[0] != pid]
            if holds and holds[0] is not announced:
                out(holds[0][2])
            try:
                ptrace(PTRACE_DETACH, pid, 0, 0)
            except OSError:
                pass
            tgid = next((t for t in workers if t == pid), None)
            if tgid is not None:
                workers.discard(tgid)
                out("EXIT %d" % tgid)
        elif sig == signal.SIGTRAP and event != 0:
            if event == 4:      # PTRACE_EVENT_EXEC: a worker now, perhaps
                entries.pop(pid, None)
            resume(pid, traced)
        elif event == PTRACE_EVENT_STOP:
            # A new tracee's first stop, or a group stop: on it goes (nothing here stops them).
            resume(pid, traced)
        else:
            # A signal on its way to the tracee: delivered.
            if is_worker.get(pid):
                delivered[pid] = sig
            resume(pid, traced, sig)


if __name__ == "__main__":
    sys.exit(main())
