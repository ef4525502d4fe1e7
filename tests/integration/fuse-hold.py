#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A slow directory for tests, for kernels without autofs: a FUSE filesystem at ROOT whose server is
# this process, speaking the kernel's protocol on /dev/fuse directly (no libfuse). A lookup of
# ROOT/NAME sleeps in the kernel (request_wait_answer) until we reply, exactly as a path across a
# hung NFS automount does; so a check that stat()s such a target blocks, deterministically, for
# as long as the test wants. The same interface as autofs-hold.py, so that a test uses either:
#
#   fuse-hold.py ROOT REAL STATUS CONTROL
#
# STATUS gets a line per event: "ready" once mounted, "pending NAME PID" for each lookup of a name
# that is not being served (PID is the process that waits), "released NAME" when one is answered,
# "interrupted NAME PID" when a waiting process was killed (we then let its lookup fail). CONTROL
# is a FIFO the test writes commands to, one a line:
#   hold   lookups wait (the start)
#   serve  answer the waiting lookups and every later one: ROOT/NAME becomes a symbolic link to
#          REAL, so the waiting stat() goes on to REAL (autofs-hold.py bind-mounts REAL there; a
#          FUSE server cannot mount on a name while a lookup of it waits, and a link resolves to
#          the same directory)
#   forget NAME  the next lookup of NAME asks again (entries are never cached: every path walk
#          through ROOT/NAME comes to us, and a name served is answered at once until forgotten)
#   quit   end
# On SIGTERM, quit, or the death of the process that started us, /dev/fuse is closed (every
# waiting and later lookup fails at once with ENOTCONN) and ROOT is detached, so nothing is left
# behind however the test ends.
#
# Never look anything up under ROOT from this process: the lookup would wait for ourselves.

import ctypes
import errno
import os
import select
import signal
import stat
import struct
import sys

MS_NOSUID = 2
MS_NODEV = 4
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1

FUSE_LOOKUP = 1
FUSE_FORGET = 2
FUSE_GETATTR = 3
FUSE_READLINK = 5
FUSE_STATFS = 17
FUSE_INIT = 26
FUSE_OPENDIR = 27
FUSE_READDIR = 28
FUSE_RELEASEDIR = 29
FUSE_INTERRUPT = 36
FUSE_BATCH_FORGET = 42
FUSE_ROOT_ID = 1
FUSE_PARALLEL_DIROPS = 1 << 18    # lookups in one directory need not wait for each other
FUSE_KERNEL_VERSION = 7
FUSE_MINOR = 31                 # what we speak: fuse_attr and fuse_entry_out as since 7.9
BUFFER = 8192 + 65536           # at least FUSE_MIN_READ_BUFFER, and more than max_write

IN_HEADER = struct.Struct("<IIQQIIIHH")         # len opcode unique nodeid uid gid pid extlen pad
OUT_HEADER = struct.Struct("<IiQ")              # len error unique
ATTR = struct.Struct("<QQQQQQIIIIIIIIII")       # ino size blocks atime mtime ctime *nsec mode nlink uid gid rdev blksize flags
ENTRY = struct.Struct("<QQQQII")                # nodeid generation entry_valid attr_valid *_nsec
ATTR_OUT = struct.Struct("<QII")                # attr_valid attr_valid_nsec dummy
INIT_IN = struct.Struct("<IIII")                # major minor max_readahead flags
INIT_OUT = struct.Struct("<IIIIHHIIHHI7I")      # major minor max_readahead flags max_background
                                                # congestion_threshold max_write time_gran max_pages
                                                # map_alignment flags2 unused[7]
KSTATFS = struct.Struct("<QQQQQIIII6I")
OPEN_OUT = struct.Struct("<QII")

libc = ctypes.CDLL(None, use_errno=True)


def check(r, what):
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def main():
    root, real, status_path, control_path = sys.argv[1:5]
    real_bytes = real.encode()

    def status(line):
        fd = os.open(status_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, (line + "\n").encode())
        os.close(fd)

    def on_term(signo, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    # Die with the test that started us, however it dies.
    parent = os.getppid()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        return

    fuse = os.open("/dev/fuse", os.O_RDWR | os.O_CLOEXEC)
    check(libc.mount(b"benchd-test", root.encode(), b"fuse", ctypes.c_ulong(MS_NOSUID | MS_NODEV),
                     ("fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other" % fuse).encode()), "mount " + root)
    control = os.open(control_path, os.O_RDWR | os.O_NONBLOCK)
    nodes = {}          # name -> node id, for the links we made
    names = {}          # node id -> name
    served = set()      # names answered until forgotten
    waiting = {}        # unique -> (name, pid)
    serving = False
    buf = b""

    def reply(unique, error=0, payload=b""):
        try:
            os.write(fuse, OUT_HEADER.pack(OUT_HEADER.size + len(payload), error, unique) + payload)
        except FileNotFoundError:
            pass        # the request is gone: its process was killed before we answered

    def link_attr(node):
        return ATTR.pack(node, len(real_bytes), 0, 0, 0, 0, 0, 0, 0, stat.S_IFLNK | 0o777, 1, 0, 0, 0, 4096, 0)

    def root_attr():
        return ATTR.pack(FUSE_ROOT_ID, 0, 0, 0, 0, 0, 0, 0, 0, stat.S_IFDIR | 0o755, 2, 0, 0, 0, 4096, 0)

    def answer(unique, name):
        node = nodes.get(name)
        if node is None:
            node = nodes[name] = len(nodes) + 2
            names[node] = name
        # Valid for no time at all: the next path walk through ROOT/NAME asks again.
        reply(unique, 0, ENTRY.pack(node, 0, 0, 0, 0, 0) + link_attr(node))

    def serve_lookup(unique, name, pid):
        if name in served:
            answer(unique, name)
            return
        status("pending %s %d" % (name, pid))
        if serving:
            served.add(name)
            answer(unique, name)
            status("released %s" % name)
        else:
            waiting[unique] = (name, pid)

    def request(data):
        _, opcode, unique, nodeid, _, _, pid, _, _ = IN_HEADER.unpack_from(data)
        arg = data[IN_HEADER.size:]
        if opcode == FUSE_INIT:
            major, minor, readahead, offered = INIT_IN.unpack_from(arg)
            if major != FUSE_KERNEL_VERSION:
                reply(unique, -errno.EPROTO)
                return
            # Without parallel directory operations the kernel lets one lookup in ROOT at a time
            # reach us: the 16 checks of test-slow-check must all wait at once.
            reply(unique, 0, INIT_OUT.pack(FUSE_KERNEL_VERSION, min(minor, FUSE_MINOR), readahead,
                                           offered & FUSE_PARALLEL_DIROPS, 0, 0, 4096, 1, 0, 0, 0, *([0] * 7)))
        elif opcode == FUSE_LOOKUP:
            name = arg.split(b"\0", 1)[0].decode(errors="replace")
            if nodeid != FUSE_ROOT_ID:
                reply(unique, -errno.ENOENT)
            else:
                serve_lookup(unique, name, pid)
        elif opcode == FUSE_GETATTR:
            if nodeid == FUSE_ROOT_ID:
                reply(unique, 0, ATTR_OUT.pack(0, 0, 0) + root_attr())
            elif nodeid in names:
                reply(unique, 0, ATTR_OUT.pack(0, 0, 0) + link_attr(nodeid))
            else:
                reply(unique, -errno.ENOENT)
        elif opcode == FUSE_READLINK:
            if nodeid in names:
                reply(unique, 0, real_bytes)
            else:
                reply(unique, -errno.EINVAL)
        elif opcode == FUSE_INTERRUPT:
            (target,) = struct.unpack_from("<Q", arg)
            if target in waiting:
                name, waiter = waiting.pop(target)
                status("interrupted %s %d" % (name, waiter))
                reply(target, -errno.EINTR)
        elif opcode in (FUSE_FORGET, FUSE_BATCH_FORGET):
            pass        # no reply
        elif opcode == FUSE_STATFS:
            reply(unique, 0, KSTATFS.pack(0, 0, 0, 0, 0, 4096, 255, 4096, 0, *([0] * 6)))
        elif opcode == FUSE_OPENDIR and nodeid == FUSE_ROOT_ID:
            reply(unique, 0, OPEN_OUT.pack(0, 0, 0))
        elif opcode in (FUSE_READDIR, FUSE_RELEASEDIR):
            reply(unique)       # an empty directory
        else:
            reply(unique, -errno.ENOSYS)

    # The kernel's INIT is queued by the mount: answer it before saying ready.
    request(os.read(fuse, BUFFER))
    status("ready")
    try:
        while True:
            ready, _, _ = select.select([fuse, control], [], [])
            if fuse in ready:
                try:
                    data = os.read(fuse, BUFFER)
                except (InterruptedError, FileNotFoundError):
                    data = None         # a request withdrawn while we read
                except OSError as e:
                    if e.errno == errno.ENODEV:
                        return          # unmounted
                    raise
                if data:
                    request(data)
            if control in ready:
                try:
                    buf += os.read(control, 4096)
                except BlockingIOError:
                    pass
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    cmd = line.decode().strip()
                    if cmd == "serve":
                        serving = True
                        for unique, (name, _) in list(waiting.items()):
                            served.add(name)
                            answer(unique, name)
                            status("released %s" % name)
                        waiting.clear()
                    elif cmd == "hold":
                        serving = False
                    elif cmd.startswith("forget "):
                        name = cmd[len("forget "):]
                        served.discard(name)
                        status("forgot %s" % name)
                    elif cmd == "quit":
                        return
    finally:
        os.close(fuse)          # aborts the connection: nothing waits for us any more
        libc.umount2(root.encode(), MNT_DETACH)


if __name__ == "__main__":
    main()
