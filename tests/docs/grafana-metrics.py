#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""contrib/grafana/benchd.json asks only for metrics benchd writes: the dashboard parses as JSON,
has panels with queries, and every benchd_* name in its PromQL expressions (panels and template
variables) is a family benchd writes. The names benchd writes come from the second argument: a
benchd.prom file (its TYPE lines; the integration test passes the real file) or the C source that
declares the families (daemon/bus/manager-metrics.c; the unit suite passes that)."""
import json
import re
import sys

NAME = re.compile(r"benchd_[a-z_]+")


def written_names(path):
    text = open(path).read()
    if path.endswith(".prom"):
        return set(re.findall(r"^# TYPE (benchd_[a-z_]+) ", text, re.M))
    return set(re.findall(r'"(benchd_[a-z_]+)"', text))


def expressions(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("expr", "definition") and isinstance(v, str):
                yield v
            elif k == "query" and isinstance(v, str):
                yield v
            else:
                yield from expressions(v)
    elif isinstance(node, list):
        for v in node:
            yield from expressions(v)


def main():
    dashboard, source = sys.argv[1], sys.argv[2]
    d = json.load(open(dashboard))
    written = written_names(source)
    if not written:
        sys.exit(f"{source}: no benchd_ metric names found; expected a benchd.prom file or manager-metrics.c")
    panels = d.get("panels") or []
    if not panels or not all(p.get("targets") for p in panels):
        sys.exit(f"{dashboard}: expected panels, each with at least one query")
    used = set()
    for e in expressions(d):
        used |= set(NAME.findall(e))
    unknown = sorted(used - written)
    if unknown:
        sys.exit(f"{dashboard}: queries use {', '.join(unknown)}, which benchd does not write "
                 f"(it writes {', '.join(sorted(written))})")
    print(f"{dashboard}: {len(panels)} panels; {len(used)} metric names, all written by benchd: {', '.join(sorted(used))}")


if __name__ == "__main__":
    main()
