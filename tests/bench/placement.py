# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where the loop device's worker ran: the IPIs per I/O of a measured run (tests/bench/vs-fio and
tests/bench/anchors).

At depth 1 (one I/O in flight, one job) on a loop device every I/O takes three tasks in turn: the
submitter blocks in its system call, the loop device's worker (a kworker of an unbound workqueue)
reads or writes the image, and ksoftirqd completes the request and wakes the submitter. Where the
scheduler puts the worker decides the figure: on the submitter's CPU the three just switch in
turn (13-18 us an I/O measured here on 2 CPUs, for fio and benchd alike); on the other CPU, woken
out of idle, each I/O costs two IPIs and 40-55 us (alike again). Which of the two a run gets
changes from run to run and within one, for either tool, with the same system calls. The IPIs
per I/O of each run show it: about 0 on the submitter's CPU, about 2 across. Two runs whose IPIs
per I/O differ by more than PLACEMENT_IPIS did not run alike: their ratio says where the worker
ran, not how fast either tool is.
"""

import os
import signal
import sys
import time

PLACEMENT_IPIS = 0.25


def cross_cpu_wakeups():
    """The IPIs every CPU has taken so far (/proc/interrupts' RES and CAL rows, all CPUs): a task
    woken on another CPU that is idle costs one (a reschedule or a function-call IPI, as the
    waker's CPU queues the wakeup there). None where /proc/interrupts has neither row."""
    n, found = 0, False
    try:
        with open("/proc/interrupts") as f:
            for line in f:
                head, _, rest = line.partition(":")
                if head.strip() in ("RES", "CAL"):
                    found = True
                    n += sum(int(x) for x in rest.split() if x.isdigit())
    except OSError:
        return None
    return n if found else None


class Wakeups:
    """IPIs per I/O over a measured command: the rate of cross-CPU wakeups over its wall time
    divided by its I/O rate (start-up and ramp are in the wall time, at the same rate), so both
    tools' runs are measured alike."""

    def __enter__(self):
        self.i0, self.t0 = cross_cpu_wakeups(), time.monotonic()
        return self

    def __exit__(self, *exc):
        self.i1, self.t1 = cross_cpu_wakeups(), time.monotonic()

    def per_io(self, iops):
        if self.i0 is None or self.i1 is None or not iops or self.t1 <= self.t0:
            return float("nan")
        return (self.i1 - self.i0) / (self.t1 - self.t0) / iops


def alike(a, b):
    """Whether two runs' IPIs per I/O say the loop device's worker ran alike for both (nan, where
    the machine does not count IPIs, counts as alike: nothing tells them apart)."""
    if a != a or b != b:
        return True
    return abs(a - b) <= PLACEMENT_IPIS


WQ_CPUMASK = "/sys/devices/virtual/workqueue/cpumask"


class WorkqueuePlacement:
    """--placement of tests/bench/anchors: free leaves the loop device's worker where the kernel
    puts it; same and across restrict the kernel's unbound workqueues (the loop device's among
    them) to CPU 0, where the tools are pinned, or to every other CPU, for as long as the context
    lasts. The mask the machine had is written back on exit, also after an exception, and on
    SIGTERM, SIGINT or SIGHUP (which then exit)."""

    def __init__(self, mode):
        if mode not in ("free", "same", "across"):
            raise ValueError(f"'{mode}' is not a placement: use free, same or across")
        self.mode, self.saved = mode, None

    def mask(self):
        """The hex CPU mask the mode puts the unbound workqueues on, or None for free."""
        if self.mode == "free":
            return None
        if self.mode == "same":
            return "1"
        n = os.cpu_count() or 1
        bits = ((1 << n) - 1) & ~1
        # The kernel's cpumask format: 32-bit words in hex, the highest first, separated by commas.
        words = []
        while True:
            words.append(bits & 0xffffffff)
            bits >>= 32
            if not bits:
                break
        words.reverse()
        return ",".join([f"{words[0]:x}"] + [f"{w:08x}" for w in words[1:]])

    def check(self):
        if self.mode == "free":
            return
        if self.mode == "across" and (os.cpu_count() or 1) < 2:
            raise ValueError("across needs a second CPU for the loop device's worker; this machine has one")
        if not os.access(WQ_CPUMASK, os.W_OK):
            raise OSError(f"{WQ_CPUMASK} is not writable here (needs root and a kernel with unbound "
                          "workqueue masks); use --placement=free")

    def describe(self):
        if self.mode == "free":
            return "the loop device's worker where the kernel puts it"
        where = "CPU 0, the tools' CPU" if self.mode == "same" else "the CPUs other than the tools' CPU 0"
        return f"tools on CPU 0, the loop device's worker on {where} (unbound workqueue mask {self.mask()})"

    def _restore(self, *_):
        if self.saved is not None:
            with open(WQ_CPUMASK, "w") as f:
                f.write(self.saved)
            self.saved = None

    def __enter__(self):
        if self.mode == "free":
            return self
        with open(WQ_CPUMASK) as f:
            self.saved = f.read().strip()
        self.handlers = {}
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            self.handlers[sig] = signal.signal(sig, self._on_signal)
        with open(WQ_CPUMASK, "w") as f:
            f.write(self.mask())
        return self

    def _on_signal(self, sig, _frame):
        self._restore()
        sys.exit(f"placement: signal {sig}: the workqueue mask is restored")

    def __exit__(self, *exc):
        self._restore()
        if self.mode != "free":
            for sig, h in self.handlers.items():
                signal.signal(sig, h)
