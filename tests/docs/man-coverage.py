#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The hand-written man pages cannot drift from the code: every command of benchctl's verb table
and every option of its option table (long and short) is an entry of benchctl(1) and nothing else
is; the same for the options of benchd(8) and benchd-worker(8); and every key the daemon's
benchd.conf parsers take (a `streq(name, "Key")` in daemon/) is an entry of benchd.conf(5), and no
entry there is a key nobody reads.

Usage: man-coverage.py SOURCE-ROOT MAN-BUILD-DIR"""
import glob
import os
import re
import sys


def c_options(path):
    """The long and short options of the getopt_long table(s) in a C file."""
    text = open(path, encoding="utf-8").read()
    longs, shorts = set(), set()
    for name, val in re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*(?:no|required|optional)_argument,\s*NULL,\s*'
                                r"([^}]*?)\s*\}", text):
        longs.add(name)
        m = re.fullmatch(r"'(.)'", val)
        if m:
            shorts.add(m.group(1))
    return longs, shorts


def c_verbs(path):
    text = open(path, encoding="utf-8").read()
    return set(re.findall(r'\{\s*"([a-z][a-z-]*)",\s*-?\d+,\s*-?\d+,\s*verb_\w+\s*\}', text))


def conf_keys(daemon_dir):
    keys = {}
    for path in glob.glob(os.path.join(daemon_dir, "**", "*.c"), recursive=True):
        for key in re.findall(r'streq\(name, "([A-Z][A-Za-z]+)"\)', open(path, encoding="utf-8").read()):
            keys.setdefault(key, os.path.relpath(path, os.path.dirname(daemon_dir)))
    return keys


def sections(page):
    """{SECTION NAME: [the head line of each .TP in it]}."""
    out, current, lines = {}, None, open(page, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            current = line[4:].strip().strip('"')
            out.setdefault(current, [])
        elif line.startswith(".TP") and current and i + 1 < len(lines):
            out[current].append(lines[i + 1])
    return out


def plain(head):
    """A .TP head as text: macro name, quotes and font escapes gone, \\- as -."""
    head = re.sub(r"^\.[A-Z]+\s+", "", head)
    head = re.sub(r"\\f[BIRP]", "", head).replace('"', "").replace("\\-", "-").replace("\\&", "")
    return head


def head_options(heads):
    longs, shorts = set(), set()
    for h in map(plain, heads):
        longs |= set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", h))
        shorts |= set(re.findall(r"(?<![\w-])-([a-zA-Z])(?![\w-])", h))
    return longs, shorts


def compare(what, code, page, code_where, page_where, problems):
    for x in sorted(code - page):
        problems.append(f"{what} '{x}' of {code_where} is missing from {page_where}")
    for x in sorted(page - code):
        problems.append(f"{page_where} documents {what} '{x}', which {code_where} does not have")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[-1])
    src, man = sys.argv[1:]
    problems = []

    # benchctl(1): commands and options.
    page = os.path.join(man, "benchctl.1")
    secs = sections(page)
    verbs = c_verbs(os.path.join(src, "client/benchctl.c"))
    if len(verbs) < 10:
        problems.append(f"found only {len(verbs)} verbs in client/benchctl.c: the verb table's shape changed?")
    documented = {plain(h).split()[0] for h in secs.get("COMMANDS", []) if plain(h).split()}
    compare("command", verbs, documented, "benchctl's verb table", "benchctl(1) COMMANDS", problems)
    for prog, c_file, page_name in (("benchctl", "client/benchctl.c", "benchctl.1"),
                                    ("benchd", "daemon/benchd.c", "benchd.8"),
                                    ("benchd-worker", "daemon/worker/main.c", "benchd-worker.8")):
        longs, shorts = c_options(os.path.join(src, c_file))
        if len(longs) < 5:
            problems.append(f"found only {len(longs)} options in {c_file}: the option table's shape changed?")
        m_longs, m_shorts = head_options(sections(os.path.join(man, page_name)).get("OPTIONS", []))
        where = f"{page_name[:-2]}({page_name[-1]}) OPTIONS"
        compare("option --", longs, m_longs, f"{prog}'s option table", where, problems)
        compare("option -", shorts, m_shorts, f"{prog}'s option table", where, problems)

    # benchd.conf(5): the keys the daemon parses.
    keys = conf_keys(os.path.join(src, "daemon"))
    if len(keys) < 5:
        problems.append(f"found only {len(keys)} benchd.conf keys in daemon/: the parsers' shape changed?")
    heads = sections(os.path.join(man, "benchd.conf.5")).get("OPTIONS", [])
    documented = {m.group(1) for h in heads for m in [re.match(r"([A-Z][A-Za-z]+)=", plain(h))] if m}
    compare("key", set(keys), documented, "the daemon's benchd.conf parsers", "benchd.conf(5) OPTIONS", problems)

    if problems:
        sys.exit("\n".join(problems))
    print(f"benchctl(1): {len(verbs)} commands; benchctl(1), benchd(8), benchd-worker(8): every option; "
          f"benchd.conf(5): {len(keys)} keys ({', '.join(sorted(keys))})")


main()
