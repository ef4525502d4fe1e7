# SPDX-License-Identifier: LGPL-2.1-or-later
"""The daemon's side of the benchd-worker protocol (daemon/shared/proto.h), for tests that talk to
a real benchd-worker in --protocol-fd mode: spawn it, read its frames, send it one SPEC (and for a
filesystem step the FS_SETUP after it; for a fleet step the START once it is ready), decode what
comes back.

A copy of the C description: tests/unit/test-worker-proto.py holds it to proto.h's numbers and
names and to the bytes proto.c writes, so a frame type or field added there fails that test until
it is added here."""
import socket
import struct
import subprocess

MAGIC, VERSION, HEADER_SIZE = 0x48434E42, 2, 16
(HELLO, SPEC, PHASE, SAMPLE, HISTOGRAM, RESULT, ERROR, LOG, PHASE_RESULT, FS_SETUP, FS_INFO, POSITION_RESULT,
 STEADY_STATE, START, FS_RELEASED) = range(1, 16)
# The frame types (enum ProtoType) by their names without PROTO_.
TYPES = dict(HELLO=HELLO, SPEC=SPEC, PHASE=PHASE, SAMPLE=SAMPLE, HISTOGRAM=HISTOGRAM, RESULT=RESULT, ERROR=ERROR,
             LOG=LOG, PHASE_RESULT=PHASE_RESULT, FS_SETUP=FS_SETUP, FS_INFO=FS_INFO,
             POSITION_RESULT=POSITION_RESULT, STEADY_STATE=STEADY_STATE, START=START, FS_RELEASED=FS_RELEASED)
GUARD_NONE, GUARD_DIRECTORY, GUARD_FILE, GUARD_BLOCK = range(4)
GUARD_SCRATCH = 1
FS_STAGE_MAKE, FS_STAGE_MOUNT = 1, 2


def _string(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def _take_string(pl, o):
    n, = struct.unpack_from("<I", pl, o)
    return pl[o + 4:o + 4 + n].decode(), o + 4 + n


def frame_bytes(typ, payload):
    """A whole frame: the header, then the payload."""
    return struct.pack("<IHHII", MAGIC, VERSION, typ, len(payload), 0) + payload


def parse_frame(data):
    """(type, payload) of one whole frame, checking its header."""
    magic, ver, typ, ln, res = struct.unpack_from("<IHHII", data)
    assert magic == MAGIC and ver == VERSION and res == 0, (magic, ver, res)
    assert len(data) == HEADER_SIZE + ln, (len(data), ln)
    return typ, data[HEADER_SIZE:]


def encode_spec(job_id, step, text, guard=(GUARD_NONE, 0, 0, 0, 0)):
    """A SPEC frame; guard: (kind, flags, dev, ino, diskseq) as the daemon sends it after the text."""
    text = text.encode()
    return frame_bytes(SPEC, struct.pack("<QII", job_id, step, len(text)) + text + struct.pack("<II3Q", *guard))


def encode_start(start_usec):
    """A START frame: a fleet step's measured phase begins (start_usec, CLOCK_REALTIME)."""
    return frame_bytes(START, struct.pack("<Q", start_usec))


def encode_fs_setup(stage, fs_type, members, layout="single", mkfs_options="", mount_options="", expect_uuid="",
                    partitions=0, partition=0, md_name="", md_options="", md_resync=0, md_release=0,
                    lvm_options="", lv_size=0, layout_flags=0):
    """An FS_SETUP frame; members: (path, dev, diskseq, flags) tuples, see member(); partitions: each
    member split into that many GPT partitions, the filesystem made on partition `partition` (1-based).
    md_name ("benchd-JOB-ENTRY"), md_options, md_resync (0 wait, 1 assume-clean) and md_release (1: the
    entry's last step, the members' md superblocks cleared at the end, FS_RELEASED) for the md layouts
    (and md-raid1+lvm, md_release only with layout_flags 1);
    md_name (the volume group), lvm_options, lv_size (bytes, 0: the whole group) and layout_flags (1: remove
    the volume group after the step) for the LVM layouts."""
    payload = struct.pack("<I", stage) + b"".join(_string(x) for x in (fs_type, layout, mkfs_options,
                                                                       mount_options, expect_uuid))
    payload += struct.pack("<I", len(members))
    for path, dev, diskseq, flags in members:
        payload += _string(path) + struct.pack("<QQI", dev, diskseq, flags)
    payload += struct.pack("<II", partitions, partition)
    payload += _string(md_name) + _string(md_options) + struct.pack("<II", md_resync, md_release)
    payload += _string(lvm_options) + struct.pack("<QI", lv_size, layout_flags)
    return frame_bytes(FS_SETUP, payload)


def decode_hello(pl):
    """A HELLO payload as a dict."""
    version, pid = struct.unpack("<II", pl)
    return {"version": version, "pid": pid}


def decode_text(pl):
    """A PHASE or LOG payload as a dict (level: LOG's syslog priority, 0 for PHASE)."""
    level, = struct.unpack_from("<I", pl)
    text, o = _take_string(pl, 4)
    assert o == len(pl), (o, len(pl))
    return {"level": level, "text": text}


# The worker's records (daemon/shared/proto-record.c): each frame type's fields in wire order, with
# their widths. test-worker-proto holds this to the C table; decode_record() follows it.
RECORDS = {
    "SAMPLE": (("t_ms", "u64"), ("interval_us", "u64"), ("bytes_read", "u64"), ("bytes_written", "u64"),
               ("ios_read", "u64"), ("ios_written", "u64"), ("ops", "u64"), ("lat_mean_ns", "u64"),
               ("lat_p50_ns", "u64"), ("lat_p99_ns", "u64"), ("lat_max_ns", "u64"), ("iowait_pct", "f64"),
               ("cpu_user_pct", "f64"), ("cpu_sys_pct", "f64"), ("dev_util_pct", "f64"), ("dev_queue", "f64"),
               ("progress", "f64")),
    "PHASE_RESULT": (("name", "string"), ("ops", "u64"), ("duration_usec", "u64"), ("lat_min_ns", "u64"),
                     ("lat_mean_ns", "u64"), ("lat_p50_ns", "u64"), ("lat_p99_ns", "u64"), ("lat_max_ns", "u64")),
    "POSITION_RESULT": (("index", "u32"), ("offset_bytes", "u64"), ("bytes", "u64"), ("duration_usec", "u64"),
                        ("lat_mean_ns", "u64"), ("lat_max_ns", "u64")),
    "STEADY_STATE": (("t_ms", "u64"),),
}
_WIDTHS = {"u32": "<I", "u64": "<Q", "f64": "<d"}


def decode_record(typ, pl):
    """A record's payload (a type of RECORDS, by number) as a dict of its fields."""
    name = next(k for k, v in TYPES.items() if v == typ)
    d, o = {}, 0
    for field, kind in RECORDS[name]:
        if kind == "string":
            d[field], o = _take_string(pl, o)
        else:
            d[field], = struct.unpack_from(_WIDTHS[kind], pl, o)
            o += struct.calcsize(_WIDTHS[kind])
    assert o == len(pl), (name, o, len(pl))
    return d


def encode_record(typ, **fields):
    """A whole frame of a record (a type of RECORDS, by number), its fields by name in any order."""
    name = next(k for k, v in TYPES.items() if v == typ)
    assert set(fields) == {f for f, _ in RECORDS[name]}, (name, sorted(fields))
    payload = b""
    for field, kind in RECORDS[name]:
        payload += _string(fields[field]) if kind == "string" else struct.pack(_WIDTHS[kind], fields[field])
    return frame_bytes(typ, payload)


def decode_position_result(pl):
    """A POSITION_RESULT payload (one offset of the position workload) as a dict."""
    return decode_record(POSITION_RESULT, pl)


def decode_steady_state(pl):
    """A STEADY_STATE payload as a dict."""
    return decode_record(STEADY_STATE, pl)


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
    n, = struct.unpack_from("<I", pl, o)
    o += 4
    d["commands"] = []
    for _ in range(n):
        c = {}
        c["command"], o = _take_string(pl, o)
        c["usec"], c["status"] = struct.unpack_from("<QI", pl, o)
        c["output"], o = _take_string(pl, o + 12)
        d["commands"].append(c)
    d["layout_commands"], o = _take_string(pl, o)
    for k in ("md_chunk_bytes", "md_resync_usec", "lv_extents", "lv_bytes"):
        d[k], = struct.unpack_from("<Q", pl, o)
        o += 8
    assert o == len(pl), (o, len(pl))
    return d


def decode_fs_released(pl):
    """An FS_RELEASED payload: what ran on the layout at the step's end (an LVM group's deactivation and
    removal, then what released an md array's members; a JSON array, as text)."""
    commands, o = _take_string(pl, 0)
    if o != len(pl):
        raise ValueError(f"FS_RELEASED payload of {len(pl)} bytes, {o} read")
    return {"commands": commands}


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
        h = self.recv_exact(HEADER_SIZE)
        if h is None:
            return None
        magic, ver, typ, ln, res = struct.unpack("<IHHII", h)
        assert magic == MAGIC and ver == VERSION and res == 0, (magic, ver, res)
        return typ, self.recv_exact(ln)

    def send_spec(self, job_id, step, text, guard=(GUARD_NONE, 0, 0, 0, 0)):
        """guard: (kind, flags, dev, ino, diskseq) as the daemon sends it after the text."""
        self.sock.sendall(encode_spec(job_id, step, text, guard))

    def send_fs_setup(self, stage, fs_type, members, layout="single", mkfs_options="", mount_options="",
                      expect_uuid="", partitions=0, partition=0, **md):
        """members: (path, dev, diskseq, flags) tuples, see member(); md: encode_fs_setup's md_* keys."""
        self.sock.sendall(encode_fs_setup(stage, fs_type, members, layout, mkfs_options, mount_options,
                                          expect_uuid, partitions, partition, **md))

    def frames(self):
        """Every frame until EOF."""
        out = []
        while (f := self.frame()) is not None:
            out.append(f)
        return out
