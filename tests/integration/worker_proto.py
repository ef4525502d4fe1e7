# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon's side of the benchd-worker protocol (daemon/shared/proto.h), for tests that talk to
a real benchd-worker in --protocol-fd mode: spawn it, read its frames, send it one SPEC (and for a
filesystem step the FS_SETUP after it), decode what comes back."""
import socket
import struct
import subprocess

MAGIC, VERSION = 0x48434E42, 1
HELLO, SPEC, PHASE, SAMPLE, HISTOGRAM, RESULT, ERROR, LOG, PHASE_RESULT, FS_SETUP, FS_INFO = range(1, 12)
GUARD_NONE, GUARD_DIRECTORY, GUARD_FILE, GUARD_BLOCK = range(4)
GUARD_SCRATCH = 1
FS_STAGE_MAKE, FS_STAGE_MOUNT = 1, 2


def _string(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def _take_string(pl, o):
    n, = struct.unpack_from("<I", pl, o)
    return pl[o + 4:o + 4 + n].decode(), o + 4 + n


def decode_error(pl):
    """(errno, message) of an ERROR payload."""
    code, n = struct.unpack_from("<II", pl)
    return code, pl[8:8 + n].decode()


def decode_fs_info(pl):
    """An FS_INFO payload as a dict."""
    d, o = {}, 0
    d["fs_type"], o = _take_string(pl, o)
    d["uuid"], o = _take_string(pl, o)
    d["mkfs_command"], o = _take_string(pl, o)
    d["mkfs_usec"], = struct.unpack_from("<Q", pl, o)
    d["mkfs_output"], o = _take_string(pl, o + 8)
    d["mount_options"], o = _take_string(pl, o)
    for k in ("size_bytes", "used_bytes", "avail_bytes", "inodes", "inodes_free"):
        d[k], = struct.unpack_from("<Q", pl, o)
        o += 8
    assert o == len(pl), (o, len(pl))
    return d


def member(path, flags=GUARD_SCRATCH, diskseq=None):
    """(path, dev, diskseq, flags) of a block device as benchd would check it."""
    import os
    st = os.stat(path)
    if diskseq is None:
        try:
            diskseq = int(open(f"/sys/dev/block/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}/diskseq").read())
        except OSError:
            diskseq = 0
    return (path, st.st_rdev, diskseq, flags)


class Worker:
    def __init__(self, path, args=()):
        """args: more options after --protocol-fd (e.g. --run-as=UID)."""
        self.sock, child = socket.socketpair()
        self.proc = subprocess.Popen([path, f"--protocol-fd={child.fileno()}", *args], pass_fds=[child.fileno()])
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

    def send_fs_setup(self, stage, fs_type, members, layout="single", mkfs_options="", mount_options="",
                      expect_uuid=""):
        """members: (path, dev, diskseq, flags) tuples, see member()."""
        payload = struct.pack("<I", stage) + b"".join(_string(x) for x in (fs_type, layout, mkfs_options,
                                                                           mount_options, expect_uuid))
        payload += struct.pack("<I", len(members))
        for path, dev, diskseq, flags in members:
            payload += _string(path) + struct.pack("<QQI", dev, diskseq, flags)
        self.sock.sendall(struct.pack("<IHHII", MAGIC, VERSION, FS_SETUP, len(payload), 0) + payload)

    def frames(self):
        """Every frame until EOF."""
        out = []
        while (f := self.frame()) is not None:
            out.append(f)
        return out
