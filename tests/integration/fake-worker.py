# SPDX-License-Identifier: LGPL-2.1-or-later
# A stand-in for benchd-worker that speaks the real protocol (daemon/shared/proto.h) and then
# behaves well or badly on purpose, so test-faults.sh can check what benchd accepts from a worker
# and stores. The mode is the part of the program's name after "fake-py-" (the daemon execs it
# with a clean environment and its own arguments, so the name is what carries it); the name
# "fake-py-label" takes the mode from the job's label instead, so one benchd serves many modes.
#
# It expects a write step of 8M in blocks of 32K (256 I/Os). Its honest figures are what the
# engine would send for them: t_ms from its own clock, the RESULT the sum of the SAMPLEs, a
# HISTOGRAM of exactly the 256 latencies, and percentiles computed from it. The lying modes break
# one rule of daemon/shared/proto-plausible.h and are otherwise honest, so the rule named in
# benchd's error is the one the mode breaks. Every other rule, and every other way a worker can
# misbehave in its frames, is a row of tests/unit/test-worker-judge.c, which needs no process;
# the modes here are what test-faults.sh still checks end to end, through the database.
#   honest        PHASE measure, two SAMPLEs, PHASE cleanup, HISTOGRAM, RESULT
#   rate          a SAMPLE of 10^15 bytes in 100 ms, beyond the 1 TB/s ceiling
#   result-p99    a RESULT whose p99 is not what its HISTOGRAM gives
#   utf8          a LOG and an ERROR in UTF-8 with a control character and an invalid byte
#   orphan-MODE   first a child that calls setsid() and sleeps, named benchd-test-orphan:DIR
#                 (DIR: where this program lives) with its pid in DIR/orphan-MODE.pid; then MODE
#
# The frame numbers and the SAMPLE frames come from worker_proto.py, the tests' copy of the
# protocol that test-worker-proto holds to daemon/shared/proto*.c; test-faults.sh puts its
# directory on sys.path in the line after the shebang.
import os
import struct
import sys
import time

from worker_proto import MAGIC, VERSION, HELLO, SPEC, PHASE, SAMPLE, HISTOGRAM, RESULT, ERROR, LOG, encode_record

START = time.monotonic()
mode = os.path.basename(sys.argv[0]).split("fake-py-", 1)[1]
fd = None
for a in sys.argv[1:]:
    if a.startswith("--protocol-fd="):
        fd = int(a.split("=", 1)[1])
if fd is None:
    for n in sorted(os.listdir("/proc/self/fd"), key=int):
        try:
            if os.readlink("/proc/self/fd/" + n).startswith("socket:"):
                fd = int(n)
                break
        except OSError:
            pass


def send(ftype, payload):
    os.write(fd, struct.pack("<IHHII", MAGIC, VERSION, ftype, len(payload), 0) + payload)


def recv_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            sys.exit(2)
        buf += chunk
    return buf


def string(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<I", len(b)) + b


def now_ms():
    return int((time.monotonic() - START) * 1000)


def sample(t_ms, interval_us, written, ios, progress, iowait=12.5, user=1.5, sys_=3.25,
           lat=(50000, 40000, 90000, 120000)):
    """A whole SAMPLE frame."""
    mean, p50, p99, mx = lat if ios else (0, 0, 0, 0)
    return encode_record(SAMPLE, t_ms=t_ms, interval_us=interval_us, bytes_read=0, bytes_written=written,
                         ios_read=0, ios_written=ios, ops=0, lat_mean_ns=mean, lat_p50_ns=p50, lat_p99_ns=p99,
                         lat_max_ns=mx, iowait_pct=iowait, cpu_user_pct=user, cpu_sys_pct=sys_, dev_util_pct=-1.0,
                         dev_queue=-1.0, progress=progress)


# The 256 honest latencies: each value the midpoint of its histogram bucket (index), so the
# percentiles histogram_percentile() gives are these values; mean and stddev of the population.
LATENCIES = [(30015, 1130, 1), (40063, 1180, 199), (89855, 1327, 50), (120063, 1386, 6)]
LAT_MIN, LAT_MEAN, LAT_STDDEV, LAT_MAX = 30015, 51623, 22382, 120063
P50, P90, P95, P99, P999, P9999 = 40063, 89855, 89855, 120063, 120063, 120063


def histogram(entries):
    return struct.pack("<I", len(entries)) + b"".join(struct.pack("<IQ", i, c) for i, c in entries)


def result(duration_us, written, ios, p99=P99):
    return struct.pack("<17Q4d", int(time.time() * 1e6) - duration_us, duration_us, 0, written, 0, ios, 0,
                       LAT_MIN, LAT_MEAN, LAT_STDDEV, P50, P90, P95, p99, P999, P9999, LAT_MAX,
                       12.5, 1.5, 3.25, -1.0) + string("") + \
        struct.pack("<QQIQQQQI", 0, 0, 0, 0, 0, 0, 0, 0)  # CPU times, no device counters, not judged


def spawn_orphan(name):
    """A child in a session of its own that outlives us unless benchd ends it."""
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setsid()
        with open(os.path.join(here, "orphan-%s.pid" % name), "w") as f:
            f.write("%d\n" % os.getpid())
        os.write(w, b"x")
        os.execvp("sleep", ["benchd-test-orphan:" + here, "300"])
    os.close(w)
    os.read(r, 1)       # it is in its own session and has written its pid
    os.close(r)


send(HELLO, struct.pack("<II", VERSION, os.getpid()))
magic, version, ftype, length, _ = struct.unpack("<IHHII", recv_exact(16))
payload = recv_exact(length)
assert ftype == SPEC, ftype
job_id, step, n = struct.unpack_from("<QII", payload)
spec = dict(l.split("=", 1) for l in payload[16:16 + n].decode().splitlines() if "=" in l)
if mode == "label":
    mode = spec["label"]
if mode.startswith("orphan-"):
    mode = mode[len("orphan-"):]
    spawn_orphan(mode)


def parse_size(v):
    v = v.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(v[-1:], 1)
    return int(v[:-1] if mult > 1 else v) * mult


size = parse_size(spec["size"])
bs = parse_size(spec["block_size"])
ios = size // bs

send(PHASE, struct.pack("<I", 0) + string("measure"))

if mode in ("honest", "result-p99"):
    assert ios == 256, "the honest figures are for 256 I/Os (8M in blocks of 32K)"
    half = size // 2
    time.sleep(0.05)
    t1 = now_ms()
    os.write(fd, sample(t1, t1 * 1000, half, ios // 2, 0.5, lat=(45000, 40063, 89855, 89855)))
    time.sleep(0.05)
    t2 = now_ms()
    os.write(fd, sample(t2, (t2 - t1) * 1000, size - half, ios - ios // 2, 1.0, lat=(58000, 40063, 120063, 120063)))
    send(PHASE, struct.pack("<I", 0) + string("cleanup"))
    send(HISTOGRAM, histogram([(i, c) for _, i, c in LATENCIES]))
    if mode == "result-p99":
        send(RESULT, result(t2 * 1000, size, ios, p99=P95))
    else:
        send(RESULT, result(t2 * 1000, size, ios))
    sys.exit(0)
elif mode == "utf8":
    text = "Ger\u00e4t nicht bereit: \u65e5\u672c\u8a9e".encode() + b"\x01\xff"
    send(LOG, struct.pack("<I", 3) + string(text))
    send(ERROR, struct.pack("<i", 5) + string(text))
    sys.exit(1)
elif mode == "rate":
    # One honest sample first: what came before the lie is kept.
    time.sleep(0.02)
    t1 = now_ms()
    os.write(fd, sample(t1, t1 * 1000, 4 * bs, 4, 0.1))
    blocks = 10 ** 15 // bs
    os.write(fd, sample(t1 + 100, 100000, blocks * bs, blocks, 0.2))
else:
    sys.exit("unknown mode " + mode)
time.sleep(30)
