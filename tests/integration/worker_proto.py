# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon's side of the benchd-worker protocol (daemon/shared/proto.h), for tests that talk to
a real benchd-worker in --protocol-fd mode: spawn it, read its frames, send it one SPEC."""
import socket
import struct
import subprocess

MAGIC, VERSION = 0x48434E42, 1
HELLO, SPEC, PHASE, SAMPLE, HISTOGRAM, RESULT, ERROR, LOG, PHASE_RESULT = range(1, 10)
GUARD_NONE, GUARD_DIRECTORY, GUARD_FILE, GUARD_BLOCK = range(4)


class Worker:
    def __init__(self, path):
        self.sock, child = socket.socketpair()
        self.proc = subprocess.Popen([path, f"--protocol-fd={child.fileno()}"], pass_fds=[child.fileno()])
        child.close()

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            c = self.sock.recv(n - len(buf))
            if not c:
                return None
            buf += c
        return buf

    def frame(self):
        """(type, payload), or None at EOF."""
        h = self.recv_exact(16)
        if h is None:
            return None
        magic, ver, typ, ln, res = struct.unpack("<IHHII", h)
        assert magic == MAGIC and ver == VERSION and res == 0, (magic, ver, res)
        return typ, self.recv_exact(ln)

    def send_spec(self, job_id, step, text, guard=(GUARD_NONE, 0, 0, 0, 0)):
        """guard: (kind, flags, dev, ino, diskseq) as the daemon sends it after the text."""
        text = text.encode()
        payload = struct.pack("<QII", job_id, step, len(text)) + text + struct.pack("<II3Q", *guard)
        self.sock.sendall(struct.pack("<IHHII", MAGIC, VERSION, SPEC, len(payload), 0) + payload)

    def frames(self):
        """Every frame until EOF."""
        out = []
        while (f := self.frame()) is not None:
            out.append(f)
        return out
