#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One version everywhere: benchd --version, benchd-worker --version and benchctl --version print
their name and meson's project version, the man pages carry it, and debian/changelog's newest entry
is that version (the package is native: its version is the project's). The runs' provenance
(environment "benchd_version") and the Manager's Version property come from the same BENCHD_VERSION
and are checked against the installed package by tests/integration/test-systemd.sh.

Usage: versions.py VERSION CHANGELOG BINARY... -- MANPAGE..."""
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if len(args) < 3 or "--" not in args:
        sys.exit(__doc__.split("\n\n")[-1])
    version, changelog = args[0], args[1]
    binaries, pages = args[2:args.index("--")], args[args.index("--") + 1:]
    problems = []
    for b in binaries:
        name = b.rsplit("/", 1)[-1]
        out = subprocess.run([b, "--version"], capture_output=True, text=True)
        if out.returncode != 0 or out.stdout != f"{name} {version}\n":
            problems.append(f"{name} --version printed {out.stdout!r} (exit {out.returncode}); expected "
                            f"'{name} {version}'")
    first = open(changelog, encoding="utf-8").readline()
    m = re.match(r"^(\S+) \(([^)]+)\) ", first)
    if not m or m.group(1) != "benchd" or m.group(2) != version:
        problems.append(f"{changelog} begins {first.strip()!r}; expected 'benchd ({version}) ...': add an entry "
                        f"(dch -v {version}) when meson.build's version changes")
    for page in pages:
        th = next((line for line in open(page, encoding="utf-8") if line.startswith(".TH ")), "")
        if f'"benchd {version}"' not in th:
            problems.append(f"{page}: .TH line {th.strip()!r} does not carry \"benchd {version}\"")
    if problems:
        sys.exit("\n".join(problems))
    print(f"version {version}: {len(binaries)} programs, {changelog}, {len(pages)} man pages")


main()
