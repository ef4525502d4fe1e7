#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""debian/control's Build-Depends are scripts/deps.sh's build dependencies: each package the build
needs is in both, so `dpkg-buildpackage` and scripts/demo agree. Build-Depends may add
debhelper-compat (the packaging's own), and its <!nocheck> entries (what the unit suite needs) may
come from the test dependencies instead; gcc is Debian's build-essential, never listed.

Usage: debian-deps.py CONTROL DEPS.SH"""
import re
import subprocess
import sys


def build_depends(control):
    text = open(control, encoding="utf-8").read()
    m = re.search(r"^Build-Depends:(.*?)(?=^\S)", text, re.S | re.M)
    if not m:
        sys.exit(f"{control}: no Build-Depends field")
    always, nocheck = set(), set()
    for item in m.group(1).split(","):
        item = item.strip()
        if not item:
            continue
        name = re.match(r"[a-z0-9][a-z0-9+.-]*", item).group(0)
        (nocheck if "<!nocheck>" in item else always).add(name)
    return always, nocheck


def deps_sh(path, array):
    out = subprocess.run(["bash", "-c", f'. "$1"; printf "%s\\n" "${{{array}[@]}}"', "-", path],
                         capture_output=True, text=True, check=True).stdout.split()
    if not out:
        sys.exit(f"{path}: {array} is empty")
    return set(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[-1])
    control, deps = sys.argv[1:]
    always, nocheck = build_depends(control)
    build, test = deps_sh(deps, "BENCHD_BUILD_DEPS"), deps_sh(deps, "BENCHD_TEST_DEPS")
    problems = []
    for p in sorted(always - build - {"debhelper-compat"}):
        problems.append(f"{control} Build-Depends on {p}, which BENCHD_BUILD_DEPS of {deps} does not list")
    for p in sorted(build - always - nocheck - {"gcc"}):
        problems.append(f"BENCHD_BUILD_DEPS of {deps} lists {p}, which {control} does not Build-Depend on")
    for p in sorted(nocheck - build - test):
        problems.append(f"{control} Build-Depends on {p} <!nocheck>, which neither BENCHD_BUILD_DEPS nor "
                        f"BENCHD_TEST_DEPS of {deps} lists")
    if problems:
        sys.exit("\n".join(problems))
    print(f"{len(always) + len(nocheck)} build dependencies, as scripts/deps.sh lists them")


main()
