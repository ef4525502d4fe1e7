#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The date the man pages carry: $SOURCE_DATE_EPOCH (what dpkg-buildpackage sets from
debian/changelog, for reproducible builds), else the date of the source tree's last commit,
else of its meson.build; never the build's own day, so two builds of one source agree."""
import datetime
import os
import subprocess
import sys

source = sys.argv[1]
epoch = os.environ.get("SOURCE_DATE_EPOCH")
if not epoch:
    try:
        epoch = subprocess.run(["git", "-C", source, "log", "-1", "--format=%ct"], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        epoch = ""
if not epoch:
    epoch = os.stat(os.path.join(source, "meson.build")).st_mtime
print(datetime.datetime.fromtimestamp(int(float(epoch)), datetime.timezone.utc).strftime("%Y-%m-%d"))
