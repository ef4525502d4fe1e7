#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A stand-in polkit authority for tests: owns org.freedesktop.PolicyKit1 on the given bus and
# answers CheckAuthorization from a rules file, so that benchd's authorisation can be tested
# without a polkitd and its agents. Only the subject kind benchd uses, "system-bus-name", is
# understood; the uid behind the name is asked of the bus (GetConnectionUnixUser), as polkitd does.
#
#   polkit-standin.py ADDRESS RULES LOG
#
# RULES is read again at every request, one rule a line: "ACTION UID ANSWER", UID a number or *,
# ANSWER yes, no or challenge ("challenge" grants when the call allowed interaction, as an agent
# whose user typed the password would). The first matching rule wins; none means no. LOG gets one
# JSON object a line per request: subject kind and name, uid, action, details, flags, answer.
# Runs with the system python3: it needs python3-dbus and python3-gi (GLib's main loop).

import json
import sys

import dbus
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "org.freedesktop.PolicyKit1"
PATH = "/org/freedesktop/PolicyKit1/Authority"
IFACE = "org.freedesktop.PolicyKit1.Authority"
ALLOW_USER_INTERACTION = 1


def answer_for(rules_path, action, uid):
    try:
        lines = open(rules_path).read().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        words = line.split()
        if len(words) != 3 or line.lstrip().startswith("#"):
            continue
        if words[0] == action and words[1] in ("*", str(uid)):
            return words[2]
    return "no"


class Authority(dbus.service.Object):
    def __init__(self, bus, rules, log):
        super().__init__(bus, PATH)
        self.bus = bus
        self.rules = rules
        self.log = log

    @dbus.service.method(IFACE, in_signature="(sa{sv})sa{ss}us", out_signature="(bba{ss})")
    def CheckAuthorization(self, subject, action, details, flags, cancel_id):
        kind, fields = subject
        name = str(fields.get("name", ""))
        uid = -1
        if kind == "system-bus-name" and name:
            uid = int(self.bus.get_unix_user(name))
        rule = answer_for(self.rules, str(action), uid) if uid >= 0 else "no"
        interactive = bool(flags & ALLOW_USER_INTERACTION)
        if rule == "yes" or (rule == "challenge" and interactive):
            result = (True, False)
        elif rule == "challenge":
            result = (False, True)
        else:
            result = (False, False)
        entry = {"kind": str(kind), "name": name, "uid": uid, "action": str(action),
                 "details": {str(k): str(v) for k, v in details.items()}, "flags": int(flags),
                 "cancel_id": str(cancel_id), "rule": rule, "authorized": result[0],
                 "challenge": result[1]}
        with open(self.log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        return dbus.Struct((result[0], result[1], dbus.Dictionary({}, signature="ss")),
                           signature="bba{ss}")


def main():
    address, rules, log = sys.argv[1:4]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    Authority(bus, rules, log)
    # Last, so that a test waiting for the name finds the object there.
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)
    loop.run()
    del name


if __name__ == "__main__":
    main()
