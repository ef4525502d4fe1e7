# SPDX-License-Identifier: LGPL-2.1-or-later
# A stand-in for benchd-worker that speaks the real protocol (daemon/shared/proto.h) and then
# behaves well or badly on purpose, so test-faults.sh can check what benchd accepts from a worker
# and stores. The mode is the part of the program's name after "fake-py-" (the daemon execs it
# with a clean environment and its own arguments, so the name is what carries it):
#   honest    HELLO, PHASE, two SAMPLEs, HISTOGRAM, RESULT with exactly the asked size
#   nan       a SAMPLE whose iowait is NaN
#   flood     200 SAMPLEs at once
#   backwards two SAMPLEs whose t_ms goes back
#   phase-twice  the same PHASE_RESULT twice
#   phase-flood  17 PHASE_RESULTs with distinct names, one more than benchd takes from a step
import os
import struct
import sys
import time

MAGIC, VERSION = 0x48434E42, 1
HELLO, SPEC, PHASE, SAMPLE, HISTOGRAM, RESULT, PHASE_RESULT = 1, 2, 3, 4, 5, 6, 9

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
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def sample(t_ms, written, ios, progress, iowait=12.5):
    return struct.pack("<11Q6d", t_ms, 1000000, 0, written, 0, ios, 0,
                       50000, 40000, 90000, 120000,
                       iowait, 1.5, 3.25, -1.0, -1.0, progress)


send(HELLO, struct.pack("<II", VERSION, os.getpid()))
magic, version, ftype, length, _ = struct.unpack("<IHHII", recv_exact(16))
payload = recv_exact(length)
assert ftype == SPEC, ftype
job_id, step, n = struct.unpack_from("<QII", payload)
spec = dict(l.split("=", 1) for l in payload[16:16 + n].decode().splitlines() if "=" in l)


def parse_size(v):
    v = v.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(v[-1:], 1)
    return int(v[:-1] if mult > 1 else v) * mult


size = parse_size(spec["size"])
bs = parse_size(spec["block_size"])

send(PHASE, struct.pack("<I", 0) + string("measure"))
if mode == "honest":
    half = size // 2
    send(SAMPLE, sample(1000, half, half // bs, 0.5))
    send(SAMPLE, sample(2000, size - half, (size - half) // bs, 1.0))
    # All I/Os in one bucket (index 100).
    send(HISTOGRAM, struct.pack("<I", 1) + struct.pack("<IQ", 100, size // bs))
    send(RESULT, struct.pack("<17Q4d", int(time.time() * 1e6), 2000000, 0, size, 0, size // bs, 0,
                             30000, 50000, 7000, 40000, 60000, 70000, 90000, 110000, 115000, 120000,
                             12.5, 1.5, 3.25, -1.0) + string(""))
    sys.exit(0)
elif mode == "nan":
    send(SAMPLE, sample(1000, 4096, 1, 0.1, iowait=float("nan")))
elif mode == "flood":
    for i in range(200):
        send(SAMPLE, sample(1000 + i, 4096, 1, 0.1))
elif mode in ("phase-twice", "phase-flood"):
    def phase_result(name):
        # ops, duration, latency min/mean/p50/p99/max
        return string(name) + struct.pack("<7Q", 1000, 500000, 1000, 2000, 1900, 5000, 9000)
    names = ["create-seq", "create-seq"] if mode == "phase-twice" else \
        ["phase-" + chr(ord("a") + i) for i in range(17)]
    for n in names:
        send(PHASE_RESULT, phase_result(n))
elif mode == "backwards":
    send(SAMPLE, sample(2000, 4096, 1, 0.1))
    send(SAMPLE, sample(1000, 4096, 1, 0.2))
time.sleep(30)
