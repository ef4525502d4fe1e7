#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A slow automount for tests: an indirect autofs mount at ROOT whose daemon is this process. A
# lookup of ROOT/NAME by any process outside our process group sleeps in the kernel (autofs_wait)
# until we answer, exactly as a path across a hung NFS automount does; so a check that stat()s
# such a target blocks, deterministically, for as long as the test wants.
#
#   autofs-hold.py ROOT REAL STATUS CONTROL
#
# STATUS gets a line per event: "ready" once mounted, "pending NAME PID" for each request (PID is
# the process that is waiting), "released NAME" when one is answered. CONTROL is a FIFO the test
# writes commands to, one a line:
#   hold   requests wait (the start)
#   serve  answer the waiting requests and every later one: REAL is bind-mounted on ROOT/NAME
#   forget NAME  detach ROOT/NAME and remove it, so that the next lookup of NAME asks again
#   quit   end
# On SIGTERM, quit or the death of the process that started us, the mount goes catatonic (every
# waiting and later lookup fails at once) and everything we mounted is detached, so nothing is left
# behind however the test ends. fuse-hold.py does the same with FUSE, for kernels without autofs.

import ctypes
import errno
import fcntl
import os
import select
import signal
import struct
import sys

AUTOFS_IOC_READY = 0x9360
AUTOFS_IOC_CATATONIC = 0x9362
MS_BIND = 4096
MNT_DETACH = 2
PR_SET_PDEATHSIG = 1
# struct autofs_v5_packet: hdr (proto, type), token, dev, ino, uid, gid, pid, tgid, len, name
PACKET = struct.Struct("=iiIIQIIIII")

libc = ctypes.CDLL(None, use_errno=True)


def check(r, what):
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def mount(src, target, fstype, flags, data):
    check(libc.mount(src.encode(), target.encode(), fstype.encode() if fstype else None,
                     ctypes.c_ulong(flags), data.encode() if data else None), "mount " + target)


def umount_detach(target):
    libc.umount2(target.encode(), MNT_DETACH)


def main():
    root, real, status_path, control_path = sys.argv[1:5]

    def status(line):
        fd = os.open(status_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, (line + "\n").encode())
        os.close(fd)

    def on_term(signo, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    # Die with the test that started us, however it dies (we leave its process group below).
    parent = os.getppid()
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        return
    # Our own process group: lookups by its members are the daemon's and never wait.
    os.setpgrp()
    r, w = os.pipe()
    os.set_inheritable(w, True)
    mount("benchd-test", root, "autofs", 0,
          "fd=%d,pgrp=%d,minproto=5,maxproto=5,indirect" % (w, os.getpgrp()))
    os.close(w)
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    control = os.open(control_path, os.O_RDWR | os.O_NONBLOCK)
    mounted = []
    waiting = []        # (token, name)
    serving = False
    buf = b""

    def is_mounted(path):
        # From the mount table, not a stat of the path: that would be a lookup of our own.
        with open("/proc/self/mounts") as f:
            return any(line.split()[1] == path for line in f)

    def answer(token, name):
        path = os.path.join(root, name)
        # Mounted again when the test took it away (to make the next lookup wait once more).
        if not is_mounted(path):
            try:
                os.mkdir(path)
            except FileExistsError:
                pass
            mount(real, path, None, MS_BIND, None)
            if path not in mounted:
                mounted.append(path)
        fcntl.ioctl(root_fd, AUTOFS_IOC_READY, token)
        status("released %s" % name)

    status("ready")
    try:
        while True:
            ready, _, _ = select.select([r, control], [], [])
            if r in ready:
                pkt = os.read(r, 4096)
                _, _, token, _, _, _, _, pid, _, length = PACKET.unpack_from(pkt)
                name = pkt[PACKET.size:PACKET.size + length].decode(errors="replace")
                status("pending %s %d" % (name, pid))
                if serving:
                    answer(token, name)
                else:
                    waiting.append((token, name))
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
                        for token, name in waiting:
                            answer(token, name)
                        waiting = []
                    elif cmd == "hold":
                        serving = False
                    elif cmd.startswith("forget "):
                        path = os.path.join(root, cmd[len("forget "):])
                        umount_detach(path)
                        try:
                            os.rmdir(path)      # only the automount daemon may, in its mount
                        except FileNotFoundError:
                            pass
                        status("forgot %s" % os.path.basename(path))
                    elif cmd == "quit":
                        return
    finally:
        try:
            fcntl.ioctl(root_fd, AUTOFS_IOC_CATATONIC, 0)
        except OSError as e:
            if e.errno != errno.EINVAL:
                raise
        for path in reversed(mounted):
            umount_detach(path)
        umount_detach(root)


if __name__ == "__main__":
    main()
