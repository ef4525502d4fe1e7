#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/integration/apt-mirrors.py, which picks the Debian mirror for test-systemd's root from the
# machine's apt configuration, on written configurations: the one-line format (options in
# brackets, deb-src, comments, other suites and archives), deb822 (several paragraphs, comments
# between fields, continuation lines, several URIs, Enabled: no, deb-src only, flat repositories),
# both together in apt's reading order, files apt ignores, and an empty configuration. Then
# --reachable against a local HTTP server: the first URI serving dists/SUITE/Release wins, and
# every failure is named when none does.

import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "integration", "apt-mirrors.py")

failures = []


def run(*args):
    r = subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout.splitlines()


def check(what, got, want):
    if got != want:
        failures.append("%s: expected %r, got %r" % (what, want, got))
    else:
        print("ok: %s" % what)


TMP = tempfile.mkdtemp(prefix="test-apt-mirrors.")


def config(files):
    root = tempfile.mkdtemp(dir=TMP)
    os.makedirs(os.path.join(root, "etc/apt/sources.list.d"))
    for name, text in files.items():
        with open(os.path.join(root, "etc/apt", name), "w") as f:
            f.write(text)
    return root


ONE_LINE = """\
# the main archive
deb http://ftp.de.debian.org/debian/ bookworm main contrib
deb-src http://src.example.org/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://opt.example.org/debian bookworm main
deb [ arch=amd64 ] http://spaced.example.org/debian bookworm main   # a comment after the entry
deb http://deb.debian.org/debian bookworm-updates main
deb http://security.debian.org/debian-security bookworm-security main
deb http://deb.debian.org/debian bookworm contrib
deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb http://old.example.org/debian bullseye main
"""

DEB822 = """\
Types: deb
# a comment between fields, as on Debian's cloud images
URIs: http://mirror-a.example.org/debian http://mirror-b.example.org/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example.org/debian-security
Suites: bookworm-security
Components: main

Types: deb deb-src
URIs:
 http://continued.example.org/debian
Suites: bookworm
Components: main non-free-firmware

Enabled: no
Types: deb
URIs: http://disabled.example.org/debian
Suites: bookworm
Components: main

Types: deb-src
URIs: http://srconly.example.org/debian
Suites: bookworm
Components: main

Types: deb
URIs: https://deb.nodesource.com/node_20.x
Suites: nodistro
Components: main

Types: deb
URIs: http://flat.example.org/repo
Suites: ./
"""


def main():
    root = config({"sources.list": ONE_LINE})
    check("one-line format", run("--root", root)[1], [
        "http://ftp.de.debian.org/debian", "http://opt.example.org/debian", "http://spaced.example.org/debian",
        "http://old.example.org/debian"])

    root = config({"sources.list": "", "sources.list.d/debian.sources": DEB822})
    check("deb822 format", run("--root", root)[1], [
        "http://mirror-a.example.org/debian", "http://mirror-b.example.org/debian",
        "http://continued.example.org/debian", "https://deb.nodesource.com/node_20.x"])
    check("deb822, another suite first", run("--root", root, "--suite", "trixie")[1], [
        "http://mirror-a.example.org/debian", "http://mirror-b.example.org/debian",
        "http://continued.example.org/debian", "https://deb.nodesource.com/node_20.x"])

    # Both, in apt's order: sources.list, then sources.list.d/ alphabetically; files with other
    # names (a.list.disabled, b.sources.save) are not read; duplicates once.
    root = config({
        "sources.list": "deb http://z.example.org/debian bookworm main\n",
        "sources.list.d/b.sources": "Types: deb\nURIs: http://b.example.org/debian\nSuites: bookworm\nComponents: main\n",
        "sources.list.d/a.list": "deb http://a.example.org/debian bookworm main\n"
                                 "deb http://z.example.org/debian/ bookworm main\n",
        "sources.list.d/a.list.disabled": "deb http://ignored.example.org/debian bookworm main\n",
        "sources.list.d/b.sources.save": "Types: deb\nURIs: http://ignored2.example.org/debian\nSuites: bookworm\n"
                                         "Components: main\n",
    })
    check("both formats, apt's order", run("--root", root)[1], [
        "http://z.example.org/debian", "http://a.example.org/debian", "http://b.example.org/debian"])

    root = config({})
    check("no configuration", run("--root", root), (0, []))

    # --reachable: a server with dists/bookworm/Release only.
    www = tempfile.mkdtemp(dir=TMP)
    os.makedirs(os.path.join(www, "good/debian/dists/bookworm"))
    with open(os.path.join(www, "good/debian/dists/bookworm/Release"), "w") as f:
        f.write("Suite: stable\n")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=www, **kw)

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    env_proxy = {k: os.environ.pop(k) for k in list(os.environ) if k.lower().endswith("_proxy")}
    rc, out = run("--reachable", base + "/missing/debian", base + "/good/debian", base + "/good2/debian")
    check("--reachable: the first that serves bookworm", (rc, out), (0, [base + "/good/debian"]))
    rc, out = run("--reachable", "--suite", "trixie", base + "/good/debian", "http://127.0.0.1:1/debian")
    check("--reachable: none serves trixie (exit)", rc, 1)
    check("--reachable: each failure named", [o.split(": ", 1)[0] for o in out],
          [base + "/good/debian/dists/trixie/Release", "http://127.0.0.1:1/debian/dists/trixie/Release"])
    os.environ.update(env_proxy)
    srv.shutdown()

    shutil.rmtree(TMP)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
