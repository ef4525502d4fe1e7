#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The table of job spec keys in docs/DESIGN.md ("Job spec") is the spec registry's: this renders
`benchctl help spec --json` as the Markdown table the document carries between its spec-keys markers
and fails when they differ. With --write it rewrites that part of the document instead (after adding
a key)."""
import json
import subprocess
import sys

BEGIN, END = "<!-- spec-keys: begin (tests/docs/spec-keys-table.py --write) -->", "<!-- spec-keys: end -->"


def size_text(v):
    """As spec_size_text() writes it: the largest exact binary suffix."""
    for suffix in "EPTGMK":
        unit = 1 << (10 * ("KMGTPE".index(suffix) + 1))
        if v >= unit and v % unit == 0:
            return f"{v // unit}{suffix}"
    return str(v)


def render(keys):
    lines = ["| key | type | default | unit | meaning |", "| --- | --- | --- | --- | --- |"]
    for k in keys:
        meaning = k["description"]
        if "min" in k:
            lo, hi = k["min"], k["max"]
            if k["type"] == "size":
                lo, hi = size_text(lo), size_text(hi)
            meaning += f" ({lo}..{hi})"
        cells = [f"`{k['key']}`", k["type"], k["default"] or "", k["unit"] or "", meaning]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def main():
    write = "--write" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 2:
        sys.exit("usage: spec-keys-table.py [--write] BENCHCTL docs/DESIGN.md")
    benchctl, doc = args
    keys = json.loads(subprocess.run([benchctl, "help", "spec", "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    text = open(doc, encoding="utf-8").read()
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        sys.exit(f"{doc}: no block between '{BEGIN}' and '{END}'")
    head, old, tail = text[:b], text[b + len(BEGIN):e].strip("\n"), text[e + len(END):]
    new = render(keys)
    if write:
        open(doc, "w", encoding="utf-8").write(head + BEGIN + "\n" + new + "\n" + END + tail)
        print(f"{doc}: spec keys written ({len(keys)})")
        return
    if old != new:
        import difflib
        diff = "\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), doc, "benchctl help spec",
                                              lineterm=""))
        sys.exit(f"{doc}'s spec keys differ from the registry; run tests/docs/spec-keys-table.py --write "
                 f"build/client/benchctl docs/DESIGN.md\n{diff}")
    print(f"{len(keys)} spec keys, as in the registry")


main()
