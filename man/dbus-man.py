#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""org.benchd.Benchd1(5), benchd's D-Bus API, rendered from the interface XML of dbus/ (the
contract benchd's vtables are checked against) as systemd documents its bus APIs: per object the
interface in busctl's notation, then each method, signal and property with the comment that
precedes it in the XML, and the named errors of daemon/shared/bus-names.h.

Usage: dbus-man.py VERSION DATE OUTPUT BUS-NAMES.H INTERFACE.XML..."""
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roff  # noqa: E402

CONST = "org.freedesktop.DBus.Property.EmitsChangedSignal"

# What each named error means; a name bus-names.h defines without an entry here fails the build,
# so a new error cannot go undocumented.
ERRORS = {
    "InvalidSpec": "The job spec (or a filter, or an import document) is not valid: an unknown key, a value "
                   "of the wrong type or out of its bounds, a combination the rules refuse. The message names "
                   "the key and what would be right.",
    "NotFound": "No job, run, profile or device of that id or name.",
    "Unsafe": "A write to the target is refused by the safety rules: the device is mounted, in use or "
              "carries data and is not marked scratch, destructive=true is missing, or the target became "
              "another object or was put to use between submission and the step's start.",
    "QueueFull": "The queue holds as many jobs as it may (benchd --max-queue), the caller has "
                 "MaxQueuedJobsPerUser= jobs queued, too many calls wait for their checks, or too many "
                 "prunes wait.",
    "NoSpace": "The target's filesystem lacks the space (or inodes) the job needs, or the database's "
               "filesystem is full.",
    "NotCancellable": "The job has ended already.",
    "NotReady": "Job.Start: the job is no fleet job, its step is not ready yet (Phase is not ready), or it "
                "was given its start already.",
    "ClockOffset": "Job.Start: the clock offset the caller measured is beyond the step's "
                   "fleet_clock_tolerance_ms and the start was not corrected by it.",
}

# The other errors benchd replies with, from D-Bus itself.
STANDARD_ERRORS = {
    "org.freedesktop.DBus.Error.AccessDenied": "The caller may not: polkit refused the action the message "
                                               "names, the call is root's only, or the caller could not use "
                                               "the target itself.",
    "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired": "polkit wants a password and the call did "
                                                                   "not allow interactive authorization.",
    "org.freedesktop.DBus.Error.LimitsExceeded": "The reply would exceed its bound (16 MiB, or the samples of "
                                                 "one reply); the message says how to ask for less.",
    "org.freedesktop.DBus.Error.InvalidArgs": "An argument out of range, or an import document that is not "
                                              "one benchd could have written.",
}


def header_comment(raw):
    """The comment before <node>, less the SPDX line: the interface's introduction."""
    head = raw[:raw.index("<node")]
    comments = [c for c in re.findall(r"<!--(.*?)-->", head, re.S) if "SPDX-License-Identifier" not in c]
    return comments[-1] if comments else ""


def paragraphs(comment):
    return [p for p in re.split(r"\n\s*\n", comment.strip()) if p.strip()]


def parse(path):
    raw = open(path, encoding="utf-8").read()
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.fromstring(raw, parser=parser)
    ifaces = []
    for iface in root.findall("interface"):
        members, doc = [], None
        for el in iface:
            if el.tag is ET.Comment:
                doc = el.text
                continue
            annotations = {a.get("name"): a.get("value") for a in el.findall("annotation")}
            members.append({"kind": el.tag, "name": el.get("name"), "doc": doc or "",
                            "args": [(a.get("direction", "in" if el.tag == "method" else ""), a.get("type"),
                                      a.get("name")) for a in el.findall("arg")],
                            "type": el.get("type"), "access": el.get("access"),
                            "const": annotations.get(CONST) == "const"})
            doc = None
        ifaces.append({"name": iface.get("name"), "intro": header_comment(raw), "members": members})
    return ifaces


def object_path(iface):
    """The object path the header comment gives ("... at /org/benchd/Benchd1/job/<id>")."""
    m = re.search(r"\bat (/org/benchd/\S*?)[,.(\s]", iface["intro"])
    return m.group(1) if m else "/org/benchd/Benchd1"


def synopsis(iface):
    """The interface in busctl introspect's notation, as systemd's bus API pages show it."""
    def sig(m):
        if m["kind"] == "method":
            return ", ".join(f"{d} {t} {n}" for d, t, n in m["args"])
        return ", ".join(f"{t} {n}" for _, t, n in m["args"])

    out = [f"node {object_path(iface)} {{", f"  interface {iface['name']} {{"]
    for kind, title in (("method", "methods"), ("signal", "signals"), ("property", "properties")):
        ms = [m for m in iface["members"] if m["kind"] == kind]
        if not ms:
            continue
        out.append(f"    {title}:")
        for m in ms:
            if kind == "property":
                if m["const"]:
                    out.append(f'      @{CONST}("const")')
                ro = "readonly " if m["access"] == "read" else ""
                out.append(f"      {ro}{m['type']} {m['name']} = ...;")
            else:
                # One argument a line beyond the first, aligned after the parenthesis.
                args = sig(m).split(", ")
                lead = f"      {m['name']}("
                for i, a in enumerate(args):
                    last = i == len(args) - 1
                    out.append((lead if i == 0 else " " * len(lead)) + a + (");" if last else ","))
    out += ["  };", "};"]
    return [".PP", ".RS 4", ".EX"] + [roff.word(line) for line in out] + [".EE", ".RE"]


def member_entries(iface, kind):
    out = []
    for m in (m for m in iface["members"] if m["kind"] == kind):
        if kind == "property":
            head = f"\\fB{roff.word(m['name'])}\\fR ({roff.word(m['type'])}, " + \
                   ("read-only" if m["access"] == "read" else m["access"]) + \
                   (", constant" if m["const"] else "") + ")"
        else:
            # The arguments are in the synopsis above: a head stays one short line.
            head = f"\\fB{roff.word(m['name'])}\\fR()"
        out += [".TP", head]
        doc = m["doc"].strip()
        if doc:
            out.append(roff.text(doc))
    return out


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__.split("\n\n")[-1])
    version, date, output, bus_names = sys.argv[1:5]
    ifaces = []
    for path in sys.argv[5:]:
        ifaces += parse(path)
    ifaces.sort(key=lambda i: ["Manager", "Job", "Device"].index(i["name"].rsplit(".", 1)[1])
                if i["name"].rsplit(".", 1)[1] in ("Manager", "Job", "Device") else 9)

    defined = re.findall(r'"org\.benchd\.Benchd1\.Error\.(\w+)"', open(bus_names, encoding="utf-8").read())
    undocumented = [e for e in defined if e not in ERRORS]
    if undocumented:
        sys.exit(f"{bus_names} defines errors man/dbus-man.py does not describe: {', '.join(undocumented)}")
    stale = [e for e in ERRORS if e not in defined]
    if stale:
        sys.exit(f"man/dbus-man.py describes errors {bus_names} no longer defines: {', '.join(stale)}")

    lines = [
        '.\\" SPDX-License-Identifier: LGPL-2.1-or-later',
        '.\\" Generated by man/dbus-man.py from the interface XML in dbus/; do not edit.',
        roff.th("org.benchd.Benchd1", 5, date, version),
        ".SH NAME",
        "org.benchd.Benchd1 \\- the D\\-Bus interface of benchd",
        ".SH INTRODUCTION",
        roff.text("benchd(8) owns the name org.benchd.Benchd1 on the system bus. The Manager object "
                  "takes jobs and answers queries of the history; each queued, running or recently ended "
                  "job is an object of its own, and each block device another. benchctl(1) is a client "
                  "of this API and nothing more, so everything it does can be done with busctl(1) or any "
                  "D-Bus binding, e.g. `busctl introspect org.benchd.Benchd1 /org/benchd/Benchd1`."),
        ".PP",
        roff.text("Reading is open to everyone; the methods that change something authorise each call "
                  "(root, or the polkit actions benchd(8) lists). The interface XML is installed in "
                  "/usr/share/dbus-1/interfaces/."),
    ]
    for iface in ifaces:
        short = iface["name"].rsplit(".", 1)[1]
        lines.append(f".SH THE {short.upper()} OBJECT")
        for i, p in enumerate(paragraphs(iface["intro"])):
            lines += ([".PP"] if i else []) + [roff.text(p)]
        lines += synopsis(iface)
        for kind, title in (("method", "Methods"), ("signal", "Signals"), ("property", "Properties")):
            entries = member_entries(iface, kind)
            if entries:
                lines += [f".SS {title}"] + entries
    lines += [".SH ERRORS", roff.text("Every error's message says what was wrong and what would be right.")]
    for name in defined:
        lines += [".TP", roff.word(f"org.benchd.Benchd1.Error.{name}"), roff.text(ERRORS[name])]
    for name, doc in STANDARD_ERRORS.items():
        lines += [".TP", roff.word(name), roff.text(doc)]
    lines += [
        ".SH SEE ALSO",
        ".BR benchd (8),",
        ".BR benchctl (1),",
        ".BR benchd\\-spec (7),",
        ".BR busctl (1),",
        ".BR polkit (8)",
    ]
    with open(output + ".tmp", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(output + ".tmp", output)


main()
