#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Concurrent D-Bus clients of benchd for tests/integration/test-load.sh: CLIENTS connections of
# their own in one process, each calling benchd asynchronously, one call at a time, for SECONDS:
# submitting small jobs (and invalid ones, which must be refused with InvalidSpec), listing and
# querying jobs and runs, reading job objects and the Manager's properties, GetManagedObjects, and
# cancelling jobs, its own and others' (queued, running or ended). One process and GLib's main
# loop, not a process per call, so the load is on benchd and not on fork().
#
#   load-client.py --address A --target DIR --clients N --seconds S --seed X [--wait-jobs S]
#                  [--user-bound N]
#
# Every call must be answered: with its reply, or with an error that is a defined answer for that
# call (ACCEPTED below: QueueFull when the queue is full, NotCancellable for a job that ended...).
# No reply within CALL_TIMEOUT_S, a lost connection or any other error is a failure. With
# --wait-jobs, once the load stops, the process waits (at most that long) for JobRemoved of every
# job it queued, heard on a connection of its own. With --user-bound (benchd's
# MaxQueuedJobsPerUser=), a caller other than root checks that it never has more jobs queued. It
# prints one JSON object: calls, answers and errors by kind and name (QueueFull by the bound it
# met), latencies, the ids it queued, their results, and the failures.

import argparse
import json
import os
import random
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "org.benchd.Benchd1"
MANAGER = "/org/benchd/Benchd1"
MANAGER_IFACE = "org.benchd.Benchd1.Manager"
JOB_IFACE = "org.benchd.Benchd1.Job"
JOB_PREFIX = MANAGER + "/job/"
PROPS = "org.freedesktop.DBus.Properties"
OBJMGR = "org.freedesktop.DBus.ObjectManager"
ERR = "org.benchd.Benchd1.Error."
DBUS_ERR = "org.freedesktop.DBus.Error."

# Far beyond what any call takes even on a loaded machine; sd-bus' own default is 25 s.
CALL_TIMEOUT_S = 30

# The errors that are an answer, by kind of call. Anything else is a failure.
ACCEPTED = {
    # The queue (64 by default) or the checks in flight (16) are full, or this user's bound.
    "submit": {ERR + "QueueFull"},
    "submit_invalid": {ERR + "InvalidSpec"},
    # The job ended before the call (or while polkit was asked); another user's job without
    # polkit's consent; too many cancellations waiting for polkit.
    "cancel": {ERR + "NotCancellable", DBUS_ERR + "AccessDenied", DBUS_ERR + "LimitsExceeded"},
    "job_cancel": {ERR + "NotCancellable", DBUS_ERR + "AccessDenied", DBUS_ERR + "LimitsExceeded",
                   DBUS_ERR + "UnknownObject"},
    # An ended job's object goes after its linger time, or earlier when more than 256 linger.
    "job_getall": {DBUS_ERR + "UnknownObject"},
    "list_jobs": set(),
    "list_all_jobs": set(),
    "query_runs": set(),
    "query_job_runs": set(),
    "get_run": set(),
    "manager_props": set(),
    "managed_objects": set(),
}

# kind: weight
MIX = {
    "submit": 28,
    "submit_invalid": 4,
    "cancel": 14,
    "job_cancel": 4,
    "job_getall": 10,
    "list_jobs": 10,
    "list_all_jobs": 4,
    "query_runs": 8,
    "query_job_runs": 6,
    "get_run": 5,
    "manager_props": 5,
    "managed_objects": 2,
}

# Invalid specs: each must be refused with InvalidSpec, never queued.
INVALID = [
    {"workload": "write", "size": "0"},
    {"workload": "no-such-workload", "size": "1M"},
    {"workload": "write", "target": "relative/path", "size": "1M"},
    {"workload": "write", "size": "1M", "no_such_key": "x"},
    {"workload": "write", "size": "1M", "block_size": "3000", "direct": True},
]


def queue_full_why(name, text):
    """Which bound a QueueFull met, told apart by its message: "(queue)", "(user)", "(checking)"."""
    if name != ERR + "QueueFull":
        return ""
    if "the queue is full" in text:
        return "(queue)"
    if "jobs queued, at most" in text:
        return "(user)"
    if "being checked" in text:
        return "(checking)"
    return "(?)"


def u32(v):
    return dbus.UInt32(v)


def u64(v):
    return dbus.UInt64(v)


class Stats:
    def __init__(self):
        self.calls = {}
        self.answers = {}
        self.errors = {}        # kind -> name -> count
        self.latency = {}       # kind -> [seconds]
        self.failures = []
        self.outstanding = 0

    def fail(self, text):
        if len(self.failures) < 50:
            self.failures.append(text)
        else:
            self.failures[-1] = "... (more failures)"


class Shared:
    """What the clients of this process know together."""

    def __init__(self, target, rng):
        self.target = target
        self.rng = rng
        self.queued = []        # ids this process queued, in order
        self.queued_set = set()
        self.seen = []          # ids seen in ListJobs replies (anyone's)
        self.runs = []          # run ids seen in QueryRuns replies
        self.removed = {}       # id -> JobRemoved result
        self.stopping = False
        self.user_bound = 0     # MaxQueuedJobsPerUser= of benchd, to check it holds
        self.spare = set()      # ids never to cancel (the test's job holding the queue)


class Client:
    def __init__(self, index, address, shared, stats):
        self.index = index
        self.shared = shared
        self.stats = stats
        self.rng = random.Random(shared.rng.random())
        self.bus = dbus.bus.BusConnection(address)
        self.mine = []
        self.busy = False

    def pick(self, ids):
        return ids[self.rng.randrange(len(ids))] if ids else None

    def spec(self):
        # Small and quick, so that the queue moves: most write 1 MiB once; some write for a
        # bounded time, long enough to be cancelled while they run.
        s = {"target": self.shared.target, "workload": "write", "block_size": "64K",
             "sample_ms": u32(100), "label": "load-%d" % self.index}
        if self.rng.random() < 0.25:
            s.update({"size": "4M", "runtime_ms": u32(400)})
        else:
            s.update({"size": "1M"})
        return dbus.Dictionary(s, signature="sv")

    def invalid_spec(self):
        s = {"target": self.shared.target, "sample_ms": u32(100)}
        s.update(self.rng.choice(INVALID))
        return dbus.Dictionary(s, signature="sv")

    def call(self, kind, path, iface, method, sig, args, check=None):
        st = self.stats
        st.calls[kind] = st.calls.get(kind, 0) + 1
        st.outstanding += 1
        start = time.monotonic()

        def done():
            st.outstanding -= 1
            st.latency.setdefault(kind, []).append(time.monotonic() - start)
            self.busy = False
            GLib.idle_add(self.next)

        def on_reply(*reply):
            st.answers[kind] = st.answers.get(kind, 0) + 1
            if kind == "submit_invalid":
                st.fail("%s: an invalid spec %r was queued: %r" % (kind, args, reply))
            elif check:
                try:
                    check(*reply)
                except Exception as e:  # noqa: BLE001 (a wrong reply is a failure, whatever it is)
                    st.fail("%s: unexpected reply %r: %s" % (kind, reply, e))
            done()

        def on_error(e):
            name = e.get_dbus_name() if isinstance(e, dbus.DBusException) else type(e).__name__
            per = st.errors.setdefault(kind, {})
            label = name + queue_full_why(name, str(e))
            per[label] = per.get(label, 0) + 1
            if name in ACCEPTED[kind]:
                st.answers[kind] = st.answers.get(kind, 0) + 1
            else:
                st.fail("%s %s%r: %s: %s" % (kind, method, tuple(args), name, str(e)[:300]))
            done()

        self.busy = True
        self.bus.call_async(NAME, path, iface, method, sig, args, on_reply, on_error,
                            timeout=CALL_TIMEOUT_S)

    def next(self):
        if self.busy or self.shared.stopping:
            return False
        kinds = list(MIX)
        kind = self.rng.choices(kinds, weights=[MIX[k] for k in kinds])[0]
        getattr(self, "do_" + kind)()
        return False

    # ---- the calls ----

    def do_submit(self):
        def check(job_id, path):
            if str(path) != JOB_PREFIX + str(int(job_id)):
                raise ValueError("job path %s does not match id %d" % (path, job_id))
            self.mine.append(int(job_id))
            self.shared.queued.append(int(job_id))
            self.shared.queued_set.add(int(job_id))
        self.call("submit", MANAGER, MANAGER_IFACE, "SubmitJob", "a{sv}", [self.spec()], check)

    def do_submit_invalid(self):
        self.call("submit_invalid", MANAGER, MANAGER_IFACE, "SubmitJob", "a{sv}", [self.invalid_spec()])

    def cancel_target(self):
        # Mostly our own newest jobs (queued or running), sometimes anyone's but the spared.
        if self.mine and self.rng.random() < 0.7:
            return self.pick(self.mine[-8:])
        return self.pick([j for j in self.shared.seen[-64:] if j not in self.shared.spare]) or self.pick(self.mine)

    def do_cancel(self):
        job = self.cancel_target()
        if job is None:
            return self.do_list_jobs()
        self.call("cancel", MANAGER, MANAGER_IFACE, "CancelJob", "t", [u64(job)])

    def do_job_cancel(self):
        job = self.cancel_target()
        if job is None:
            return self.do_list_jobs()
        self.call("job_cancel", JOB_PREFIX + str(job), JOB_IFACE, "Cancel", "", [])

    def do_job_getall(self):
        job = self.pick(self.mine[-16:]) or self.pick(self.shared.seen[-64:])
        if job is None:
            return self.do_manager_props()

        def check(props):
            if int(props["Id"]) != job:
                raise ValueError("Id %s of job object %d" % (props["Id"], job))
            if str(props["State"]) not in ("queued", "running", "succeeded", "failed", "cancelled",
                                           "interrupted"):
                raise ValueError("State %s" % props["State"])
        self.call("job_getall", JOB_PREFIX + str(job), PROPS, "GetAll", "s", [JOB_IFACE], check)

    def note_jobs(self, jobs):
        for j in jobs:
            if "Id" in j:
                self.shared.seen.append(int(j["Id"]))
        del self.shared.seen[:-256]

    def do_list_jobs(self):
        f = dbus.Dictionary({"limit": u64(16)}, signature="sv")
        if self.rng.random() < 0.3:
            f["state"] = self.rng.choice(["queued", "running", "cancelled"])

        def check(jobs):
            self.note_jobs(jobs)
            # MaxQueuedJobsPerUser= holds under load (root has no such bound).
            bound = self.shared.user_bound
            if f.get("state") == "queued" and bound and os.getuid() != 0:
                n = sum(1 for j in jobs if int(j.get("SubmittedBy", -1)) == os.getuid())
                if n > bound:
                    raise ValueError("uid %d has %d jobs queued, more than MaxQueuedJobsPerUser=%d"
                                     % (os.getuid(), n, bound))
        self.call("list_jobs", MANAGER, MANAGER_IFACE, "ListJobs", "a{sv}", [f], check)

    def do_list_all_jobs(self):
        f = dbus.Dictionary({"all": True, "limit": u64(20)}, signature="sv")
        self.call("list_all_jobs", MANAGER, MANAGER_IFACE, "ListJobs", "a{sv}", [f], self.note_jobs)

    def note_runs(self, runs):
        for r in runs:
            for k in ("Id", "id"):
                if k in r:
                    self.shared.runs.append(int(r[k]))
                    break
        del self.shared.runs[:-256]

    def do_query_runs(self):
        f = dbus.Dictionary({"limit": u64(10)}, signature="sv")
        self.call("query_runs", MANAGER, MANAGER_IFACE, "QueryRuns", "a{sv}", [f], self.note_runs)

    def do_query_job_runs(self):
        job = self.pick(self.mine) or self.pick(self.shared.seen)
        if job is None:
            return self.do_query_runs()
        f = dbus.Dictionary({"job": u64(job), "limit": u64(10)}, signature="sv")
        self.call("query_job_runs", MANAGER, MANAGER_IFACE, "QueryRuns", "a{sv}", [f], self.note_runs)

    def do_get_run(self):
        run = self.pick(self.shared.runs)
        if run is None:
            return self.do_query_runs()
        self.call("get_run", MANAGER, MANAGER_IFACE, "GetRun", "t", [u64(run)])

    def do_manager_props(self):
        def check(props):
            for k in ("Version", "QueueLength", "RunningJob", "DatabasePath"):
                if k not in props:
                    raise ValueError("no %s" % k)
        self.call("manager_props", MANAGER, PROPS, "GetAll", "s", [MANAGER_IFACE], check)

    def do_managed_objects(self):
        self.call("managed_objects", MANAGER, OBJMGR, "GetManagedObjects", "", [])


def percentile(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, int(p * len(v)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--wait-jobs", type=float, default=0)
    ap.add_argument("--user-bound", type=int, default=0)
    # Never cancel these jobs (the test's job that holds the queue for the round).
    ap.add_argument("--spare", type=int, action="append", default=[])
    # Created when the load is over (every call answered), before waiting for the jobs to end.
    ap.add_argument("--loaded-file")
    a = ap.parse_args()

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    stats = Stats()
    shared = Shared(a.target, random.Random(a.seed))
    shared.user_bound = a.user_bound
    shared.spare = set(a.spare)
    loop = GLib.MainLoop()

    # JobRemoved, heard on a connection that makes no calls.
    listener = dbus.bus.BusConnection(a.address)

    def on_removed(job_id, path, result):
        shared.removed[int(job_id)] = str(result)
    listener.add_signal_receiver(on_removed, signal_name="JobRemoved", dbus_interface=MANAGER_IFACE,
                                 path=MANAGER)
    # A round trip, so that the match is in place before the first job is queued.
    listener.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "GetId", "", [])

    clients = [Client(i, a.address, shared, stats) for i in range(a.clients)]
    start = time.monotonic()
    for c in clients:
        GLib.idle_add(c.next)

    def on_stop():
        shared.stopping = True
        return False
    GLib.timeout_add(int(a.seconds * 1000), on_stop)

    # The load ends when every call made is answered (or CALL_TIMEOUT_S after the last one
    # could have been); then the jobs queued end.
    state = {"load_end": None, "deadline": None}

    def on_tick():
        now = time.monotonic()
        if not shared.stopping:
            return True
        if state["load_end"] is None:
            if stats.outstanding > 0 and now - start < a.seconds + CALL_TIMEOUT_S + 5:
                return True
            state["load_end"] = now
            state["deadline"] = now + a.wait_jobs
            if a.loaded_file:
                open(a.loaded_file, "w").close()
        pending = [j for j in shared.queued if j not in shared.removed]
        if pending and now < state["deadline"]:
            return True
        loop.quit()
        return False
    GLib.timeout_add(50, on_tick)
    loop.run()

    load_s = state["load_end"] - start
    if stats.outstanding:
        stats.fail("%d call(s) never answered" % stats.outstanding)
    pending = [j for j in shared.queued if j not in shared.removed]
    results = {}
    for j in shared.queued:
        if j in shared.removed:
            r = shared.removed[j].split(";")[0]
            results[r] = results.get(r, 0) + 1
    calls = sum(stats.calls.values())
    answered = sum(stats.answers.values())
    lat = [x for v in stats.latency.values() for x in v]
    out = {
        "clients": a.clients,
        "seconds": round(load_s, 2),
        "calls": stats.calls,
        "answers": stats.answers,
        "errors": stats.errors,
        "total_calls": calls,
        "total_answered": answered,
        "answered_per_s": round(answered / load_s, 1) if load_s > 0 else 0,
        "latency_ms": {"p50": round(1000 * percentile(lat, 0.5), 1),
                       "p99": round(1000 * percentile(lat, 0.99), 1),
                       "max": round(1000 * max(lat, default=0), 1)},
        "queued": shared.queued,
        "job_results": results,
        "not_removed": pending,
        "failures": stats.failures,
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
