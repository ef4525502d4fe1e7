#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What test-report.sh reads out of a `benchctl report` page and of what Chromium made of it.

  report_check.py data PAGE.html           the embedded data (script#benchd-data) as JSON
  report_check.py charts PAGE.html         how many charts the page must draw, from its data
  report_check.py marks PAGE.html          how many regression marks its history charts must draw
  report_check.py state DOM.html           pre#benchd-report-state of a --dump-dom, as JSON
  report_check.py png PICTURE.png          "WIDTHxHEIGHT COLOURS NONWHITE%" of a screenshot
  report_check.py same A.json B.json WHAT  fails unless both files hold the same JSON value

The chart count follows the page's rules (client/report/report.js) from the data alone, so a page
that silently drew fewer charts than its data calls for fails.
"""

import html
import json
import re
import sys
import zlib


def page_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="benchd-data">(.*?)</script>', text, re.S)
    if not m:
        sys.exit("%s: no script#benchd-data" % path)
    body = m.group(1)
    # The page's only "</" are its own tags: the data has every one escaped.
    if "</" in body or "<!--" in body:
        sys.exit("%s: the data holds an unescaped </ or <!--" % path)
    return json.loads(body)


IOZONE_TESTS = ("write", "rewrite", "read", "reread", "randread", "randwrite", "backward-read", "stride-read")


def regression_marks(d):
    """How many regression marks the history charts must draw: the flagged runs that have a point."""
    flagged = {g["run_id"] for g in d.get("regressions") or []}
    return len({r["id"] for r in d.get("results") or []
                if r["id"] in flagged and r.get("status") == "succeeded" and run_rate_ok(r)})


def shape(run):
    return (run.get("workload"), run.get("block_size"), run.get("queue_depth") or 1, run.get("jobs") or 1)


def run_rate_ok(run):
    b = (run.get("bytes_read") or 0) + (run.get("bytes_written") or 0)
    have = run.get("bytes_read") is not None or run.get("bytes_written") is not None
    if have and (run.get("duration_usec") or 0) > 0:
        return True
    return isinstance(run.get("mib_per_s"), (int, float)) or isinstance(run.get("mb_per_s"), (int, float))


COMPARE_KEYS = ("mib_per_s", "iops", "lat_p50_ns", "lat_p99_ns")


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def view_charts(v):
    """The charts of one job view (show --job --json), a matrix's entries' included."""
    n = 0
    if v["view"] == "iozone":
        tests = set()
        for fs in v["file_sizes"]:
            for r in fs["records"]:
                tests |= {k for k, x in r.items() if k != "block_size" and number(x) and x > 0}
        n += len(tests)
    elif v["view"] in ("crystal", "steps"):
        n += 1
    elif v["view"] == "matrix":
        for e in v["entries"]:
            if e.get("view"):
                n += view_charts(e["view"])
        c = v["compare"]
        rows = {(x["workload"], x["block_size"], x["queue_depth"], x["jobs"]) for x in c["cells"]}
        if v.get("profile") == "iozone":
            # A heat map (a table), and a chart per iozone test some entry has a positive mean of.
            n += len({x["workload"] for x in c["cells"] if x["workload"] in IOZONE_TESTS and x.get("block_size")
                      and number(x["mib_per_s"].get("mean")) and x["mib_per_s"]["mean"] > 0})
        elif len(rows) <= 16:
            n += sum(1 for key in COMPARE_KEYS if any(number((x.get(key) or {}).get("mean")) for x in c["cells"]))
    return n


def expected_charts(d):
    n = 0
    for run in d.get("runs") or []:
        if run.get("samples"):
            n += 3
        if sum(b[1] for b in run.get("histogram") or []) > 0:
            n += 1
    if d.get("view"):
        n += view_charts(d["view"])
    if d.get("compare") is not None:
        for key in COMPARE_KEYS:
            if any(number((c.get(key) or {}).get("mean")) for c in d["compare"]["cells"]):
                n += 1
    if d.get("fleet") is not None:
        # A fleet run: per step the sum over time (when there is one) and a chart per host's run
        # with samples.
        f = d["fleet"]
        for i, step in enumerate(f.get("all_hosts") or []):
            if step.get("timeline"):
                n += 1
            n += sum(1 for h in f.get("hosts") or [] if len(h.get("runs") or []) > i and h["runs"][i].get("samples"))
    if d.get("results") is not None:
        n += len({shape(r) for r in d["results"] if r.get("status") == "succeeded" and run_rate_ok(r)})
    return n


def dom_state(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r'<pre id="benchd-report-state"[^>]*>(.*?)</pre>', text, re.S)
    if not m:
        sys.exit("%s: no pre#benchd-report-state in the DOM" % path)
    return json.loads(html.unescape(m.group(1)))


def png_stats(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height = int.from_bytes(ihdr[0:4], "big"), int.from_bytes(ihdr[4:8], "big")
    depth, ctype = ihdr[8], ihdr[9]
    if depth != 8 or ctype not in (2, 6):
        sys.exit("%s: PNG of depth %d colour type %d; expected 8-bit RGB(A)" % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours, nonwhite, i = set(), 0, 0
    for _ in range(height):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 0xFF
            elif ftype == 2:
                line[x] = (line[x] + b) & 0xFF
            elif ftype == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        for x in range(0, stride, bpp * 4):  # every fourth pixel is enough to tell
            px = bytes(line[x:x + 3])
            colours.add(px)
            if px != b"\xff\xff\xff":
                nonwhite += 1
        prev = line
    sampled = height * ((width + 3) // 4)
    return width, height, len(colours), 100.0 * nonwhite / max(sampled, 1)


def main(argv):
    cmd = argv[1]
    if cmd == "data":
        print(json.dumps(page_data(argv[2])))
    elif cmd == "charts":
        print(expected_charts(page_data(argv[2])))
    elif cmd == "marks":
        print(regression_marks(page_data(argv[2])))
    elif cmd == "state":
        print(json.dumps(dom_state(argv[2])))
    elif cmd == "png":
        w, h, colours, nonwhite = png_stats(argv[2])
        print("%dx%d %d %.1f" % (w, h, colours, nonwhite))
    elif cmd == "same":
        a, b = json.load(open(argv[2])), json.load(open(argv[3]))
        if a != b:
            def short(v):
                r = repr(v)
                return r if len(r) < 120 else r[:120] + "..."

            def diff(x, y, path="$"):
                if type(x) != type(y):
                    return "%s: %s vs %s" % (path, short(x), short(y))
                if isinstance(x, dict):
                    for k in sorted(set(x) | set(y)):
                        if k not in x or k not in y:
                            return "%s.%s: only in %s" % (path, k, "the page" if k in x else "the verb")
                        d = diff(x[k], y[k], path + "." + k)
                        if d:
                            return d
                elif isinstance(x, list):
                    if len(x) != len(y):
                        return "%s: %d vs %d items" % (path, len(x), len(y))
                    for k, (p, q) in enumerate(zip(x, y)):
                        d = diff(p, q, "%s[%d]" % (path, k))
                        if d:
                            return d
                elif x != y:
                    return "%s: %s vs %s" % (path, short(x), short(y))
                return None
            sys.exit("%s: the page's data differs from the verb's --json: %s" % (argv[4], diff(a, b)))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
