#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The Debian mirrors this machine's apt is configured with, for building a Debian root
# (nspawn-root.sh): read from /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line
# format) and /etc/apt/sources.list.d/*.sources (deb822), as apt reads them.
#
#   apt-mirrors.py [--root DIR] [--suite SUITE]            the candidates, one URI a line
#   apt-mirrors.py --reachable [--suite SUITE] URI...      the first that serves SUITE
#
# Candidates, in the order apt reads them, each once, without a trailing slash: the URIs of "deb"
# entries (not deb-src, not Enabled: no) that carry the component main, first those whose suites
# include SUITE (default bookworm), then those of other plain suites (no "-updates", "-security",
# no flat repository), since a Debian mirror serves every release. --root reads DIR/etc/apt
# instead of /etc/apt (for tests). --reachable fetches URI/dists/SUITE/Release from each (15 s
# each, honouring http_proxy) and prints the first that answers; exit 1 with one line per URI
# saying why when none does.

import argparse
import glob
import os
import sys
import urllib.error
import urllib.request


def one_line_entries(text):
    """Entries of the one-line format: 'deb [opt=val ...] URI SUITE [COMPONENT...]'."""
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        kind = words.pop(0)
        # Options: "[a=b c=d]", "[ a=b ]", possibly split over several words.
        if words and words[0].startswith("["):
            while words and "]" not in words[0]:
                words.pop(0)
            if words:
                rest = words.pop(0).split("]", 1)[1]
                if rest:
                    words.insert(0, rest)
        if len(words) < 2:
            continue
        yield {"types": [kind], "uris": [words[0]], "suites": [words[1]], "components": words[2:],
               "enabled": True}


def deb822_entries(text):
    """Entries of the deb822 format: paragraphs of 'Field: value' lines, continuation lines
    starting with white space, '#' comment lines anywhere."""
    paragraphs, fields, last = [], {}, None
    for line in text.splitlines() + [""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if fields:
                paragraphs.append(fields)
            fields, last = {}, None
            continue
        if line[0] in " \t" and last:
            fields[last] += " " + line.strip()
            continue
        if ":" not in line:
            continue
        name, value = line.split(":", 1)
        last = name.strip().lower()
        fields[last] = value.strip()
    for p in paragraphs:
        yield {"types": p.get("types", "").split(), "uris": p.get("uris", "").split(),
               "suites": p.get("suites", "").split(), "components": p.get("components", "").split(),
               "enabled": p.get("enabled", "yes").lower() not in ("no", "false", "0")}


def entries(root):
    apt = os.path.join(root, "etc/apt")
    files = [os.path.join(apt, "sources.list")]
    # apt reads *.list and *.sources of sources.list.d in alphabetical order, nothing else.
    files += sorted(glob.glob(os.path.join(apt, "sources.list.d", "*.list")) +
                    glob.glob(os.path.join(apt, "sources.list.d", "*.sources")))
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        parse = deb822_entries if path.endswith(".sources") else one_line_entries
        yield from parse(text)


def candidates(root, suite):
    exact, other = [], []
    for e in entries(root):
        if not e["enabled"] or "deb" not in e["types"] or "main" not in e["components"]:
            continue
        plain = [s for s in e["suites"] if "-" not in s and not s.endswith("/")]
        for uri in e["uris"]:
            uri = uri.rstrip("/")
            if not uri.startswith(("http://", "https://", "ftp://", "file:/")):
                continue
            if suite in e["suites"]:
                exact.append(uri)
            elif plain:
                other.append(uri)
    seen, out = set(), []
    for uri in exact + other:
        if uri not in seen:
            seen.add(uri)
            out.append(uri)
    return out


def reachable(uris, suite):
    why = []
    for uri in uris:
        url = "%s/dists/%s/Release" % (uri.rstrip("/"), suite)
        try:
            with urllib.request.urlopen(url, timeout=15) as r:
                if r.status == 200:
                    print(uri)
                    return 0
                why.append("%s: HTTP %d" % (url, r.status))
        except (urllib.error.URLError, OSError, ValueError) as e:
            why.append("%s: %s" % (url, getattr(e, "reason", e)))
    for w in why:
        print(w)
    return 1


def main():
    ap = argparse.ArgumentParser(description="Debian mirrors from the apt configuration")
    ap.add_argument("--root", default="/", help="read ROOT/etc/apt (default /)")
    ap.add_argument("--suite", default="bookworm", help="the release wanted (default bookworm)")
    ap.add_argument("--reachable", action="store_true", help="print the first URI given that serves SUITE")
    ap.add_argument("uris", nargs="*")
    a = ap.parse_args()
    if a.reachable:
        return reachable(a.uris, a.suite)
    for uri in candidates(a.root, a.suite):
        print(uri)
    return 0


if __name__ == "__main__":
    sys.exit(main())
