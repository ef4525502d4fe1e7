#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/bench/anchors_verdict.py, the verdict tests/bench/anchors gives a figure, on constructed
# pairs (benchd, tool): every verdict reached (within target, explained, outside, undecided,
# shown, no ratio), the bounds of both targets (±10%, ±20%) included and just past, the verdict
# taken on the per-pair ratios' interquartile range (a drift both tools share decides nothing,
# pairs that disagree leave it undecided, one stray pair at either end moves nothing), and a tool
# that gives no figure; depth-1 figures judged on the pairs alike in where the loop device's worker
# ran (tests/bench/placement.py), and undecided with too few of them. Each documented deliberate difference names a phrase that its profile
# file (daemon/profiles/) really says.

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import anchors_verdict as av  # noqa: E402

PROFILES = os.path.join(HERE, "..", "..", "daemon", "profiles")
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: expected {want!r}, got {got!r}")
    else:
        print(f"ok: {what}")


def word(kind, pairs, explained=None):
    return av.judge(kind, pairs, explained).word


def same(ratio, n=5, tool=100.0):
    """n pairs, each tool's figure exactly the same every time: no spread."""
    return [(tool * ratio, tool)] * n


# Within: no spread, ratio inside; both bounds included, for both targets.
check("ratio 1.00, no spread", word("seq", same(1.0)), "within target")
check("ratio 1.10 exactly (block)", word("block", same(1.10)), "within target")
check("ratio 0.90 exactly (rand)", word("rand", same(0.90)), "within target")
check("ratio 1.20 exactly (char)", word("char", same(1.20)), "within target")
check("ratio 0.80 exactly (meta)", word("meta", same(0.80)), "within target")
# Just past a bound, no spread: outside.
check("ratio 1.101 (seq)", word("seq", same(1.101)), "outside")
check("ratio 0.899 (seq)", word("seq", same(0.899)), "outside")
check("ratio 1.201 (char)", word("char", same(1.201)), "outside")
check("ratio 0.799 (meta)", word("meta", same(0.799)), "outside")
# The per-character target is wider than the block one: 1.15 is outside one and within the other.
check("ratio 1.15 (block)", word("block", same(1.15)), "outside")
check("ratio 1.15 (char)", word("char", same(1.15)), "within target")

# The verdict is on the per-pair ratios, not on each tool's own spread. The machine drifts
# between pairs: both tools 60..140 across the pairs, benchd 1.05 times the tool in every pair.
# Each tool's own spread is 40%, the ratios' none: within target (a verdict on the tools' spreads
# could not decide it).
drift = [(1.05 * x, x) for x in (60.0, 140.0, 100.0, 80.0, 120.0)]
v = av.judge("seq", drift)
check("both tools drift 60..140, ratio 1.05 in every pair: within", v.word, "within target")
check("its median ratio", round(v.ratio, 6), 1.05)
check("its IQR", (round(v.lo, 6), round(v.hi, 6)), (1.05, 1.05))
# The same drift with benchd 1.15 times the tool in every pair: outside, however much both drift.
check("both tools drift, ratio 1.15 in every pair: outside",
      word("seq", [(1.15 * x, x) for x in (60.0, 140.0, 100.0, 80.0, 120.0)]), "outside")
# The reverse: each tool steady (spreads of 1%) but the pairs disagree, benchd 0.80..1.20 of the
# tool: the ratios' IQR 0.85..1.15 straddles both bounds: undecided, though the median is 1.00.
scatter = [(80.0, 100.0), (85.0, 99.0), (100.0, 100.0), (115.0, 101.0), (120.0, 100.0)]
v = av.judge("seq", [(b * t / 100, t) for b, t in scatter])
check("steady tools, pair ratios 0.80..1.20: undecided", v.word, "undecided")
check("its IQR is the 2nd and 4th ratio of 5", (round(v.lo, 6), round(v.hi, 6)), (0.85, 1.15))
check("its min..max", (round(v.pair_range[0], 6), round(v.pair_range[1], 6)), (0.8, 1.2))
# The IQR, not min..max: one stray pair at each end (0.70 and 1.40) moves neither quartile.
v = av.judge("rand", [(r * 100, 100.0) for r in (0.70, 0.95, 1.00, 1.05, 1.40)])
check("one stray pair at each end, the middle 0.95..1.05: within", v.word, "within target")
check("the stray pairs are in min..max", (round(v.pair_range[0], 6), round(v.pair_range[1], 6)), (0.7, 1.4))
# The median inside the target but the IQR across its bound: undecided, either side.
check("median 0.95, IQR 0.88..1.00: undecided",
      word("seq", [(r * 100, 100.0) for r in (0.85, 0.88, 0.95, 1.00, 1.02)]), "undecided")
check("median 1.12, IQR 1.09..1.14: undecided",
      word("seq", [(r * 100, 100.0) for r in (1.05, 1.09, 1.12, 1.14, 1.20)]), "undecided")
# The IQR wholly past a bound: outside, above and below, though one pair is inside.
check("IQR 1.13..1.16, one pair at 1.02: outside",
      word("seq", [(r * 100, 100.0) for r in (1.02, 1.13, 1.15, 1.16, 1.30)]), "outside")
check("IQR 0.80..0.85, one pair at 0.95: outside",
      word("block", [(r * 100, 100.0) for r in (0.75, 0.80, 0.82, 0.85, 0.95)]), "outside")
# The per-character target is wider: the same ratios (IQR 0.80..0.85) are within ±20%.
check("IQR 0.80..0.85 (char): within",
      word("char", [(r * 100, 100.0) for r in (0.75, 0.80, 0.82, 0.85, 0.95)]), "within target")
# Three pairs: the quartiles interpolate (0.90, 1.00, 1.20: 0.95..1.10, the bound included).
v = av.judge("seq", [(r * 100, 100.0) for r in (1.20, 0.90, 1.00)])
check("three pairs 0.90, 1.00, 1.20: IQR 0.95..1.10", (round(v.lo, 6), round(v.hi, 6)), (0.95, 1.1))
check("three pairs 0.90, 1.00, 1.20: within (bound included)", v.word, "within target")
check("three pairs 0.90, 1.00, 1.22: undecided", word("seq", [(r * 100, 100.0) for r in (1.22, 0.90, 1.00)]),
      "undecided")
# The verdict's text gives the IQR it judged.
v = av.judge("seq", [(r * 100, 100.0) for r in (1.02, 1.13, 1.15, 1.16, 1.30)])
check("outside's text names the IQR", "1.13..1.16" in v.text(), True)

# Explained: a documented difference turns outside and undecided into explained, never within.
check("outside, explained", word("block", same(1.25), "page cache"), "explained")
check("undecided, explained", word("seq", [(b * t / 100, t) for b, t in scatter], "page cache"), "explained")
check("within, explanation not needed", word("block", same(1.05), "page cache"), "within target")
v = av.judge("block", same(1.25), "page cache")
check("explained's text names the difference", "page cache" in v.text(), True)

# Shown, not judged: latency and %CP, whatever their ratio.
check("latency 2x: shown", word("lat", same(2.0)), "shown")
check("%CP 0.1x: shown", word("cpu", same(0.1)), "shown")
# No ratio: the tool gave no figure (+++++), or benchd none.
v = av.judge("meta", [(5000.0, None), (5200.0, None)])
check("tool +++++: no ratio", (v.word, "+++++" in v.text()), ("no ratio", True))
check("benchd none: no ratio", word("meta", [(None, 100.0)]), "no ratio")
# Pairs with one side missing are left out of the ratio, not counted as zero.
check("a +++++ pair left out", word("meta", [(100.0, 100.0), (5000.0, None), (104.0, 100.0)]), "within target")
# One pair: its ratio is the whole IQR.
check("one pair at 1.09", word("seq", [(109.0, 100.0)]), "within target")
check("one pair at 1.11", word("seq", [(111.0, 100.0)]), "outside")

# Depth 1: where the loop device's worker ran (IPIs per I/O, about 0 on the submitter's CPU, about
# 2 across) moves a figure more than either tool does. Three pairs alike in placement at 1.00 and
# two where benchd's run had the worker across and the tool's did not, at 0.60: without the
# placements the IQR 0.60..1.00 leaves it undecided; with them only the alike pairs are judged
# (within), and the text says on how many.
mixed = [(r * 100, 100.0) for r in (1.00, 0.60, 1.01, 0.60, 0.99)]
place = [(0.1, 0.1), (1.9, 0.1), (1.8, 1.7), (2.0, 0.2), (0.0, 0.2)]
check("mixed placement, judged on every pair: undecided", word("rand", mixed), "undecided")
v = av.judge("rand", mixed, None, place)
check("mixed placement, judged on the alike pairs: within", v.word, "within target")
check("its alike count", v.alike, (3, 5))
check("its text says it was judged on 3 of 5 pairs", "on the 3 of 5 pairs alike in placement" in v.text(), True)
check("its min..max is every pair's", (round(v.pair_range[0], 6), round(v.pair_range[1], 6)), (0.6, 1.01))
# The alike pairs decide either way: alike pairs at 0.80 are outside, the others notwithstanding.
v = av.judge("rand", [(r * 100, 100.0) for r in (0.80, 1.00, 0.80, 1.00, 0.80)], None,
             [(0.1, 0.1), (0.1, 1.9), (1.9, 1.9), (1.9, 0.1), (0.0, 0.2)])
check("alike pairs at 0.80: outside", (v.word, v.alike), ("outside", (3, 5)))
# At the bound: 0.25 apart is alike, more is not.
check("IPIs 0.25 apart are alike", av.judge("rand", same(1.0, 3), None, [(0.5, 0.25)] * 3).alike, (3, 3))
check("IPIs 0.26 apart are not", av.judge("rand", same(1.0, 3), None, [(0.51, 0.25)] * 3).word, "undecided")
# Fewer than MIN_ALIKE alike pairs: undecided, however the ratios fall.
v = av.judge("rand", same(1.0), None, [(0.1, 0.1), (0.1, 0.1), (1.9, 0.1), (0.1, 1.9), (1.9, 0.1)])
check("2 of 5 alike: undecided", (v.word, "fewer than 3" in v.text()), ("undecided", True))
# Every pair alike: the same verdict as without placements, and no word of it in the text.
v = av.judge("rand", same(1.05), None, [(1.0, 1.1)] * 5)
check("all alike: within, as without", (v.word, "placement" in v.text()), ("within target", False))
# A machine that counts no IPIs (nan) cannot tell the runs apart: every pair is judged.
nan = float("nan")
check("no IPI counts: judged on every pair", av.judge("rand", mixed, None, [(nan, nan)] * 5).word, "undecided")
# Shown figures take the alike pairs too.
check("latency, mixed placement: shown on the alike pairs",
      (av.judge("lat", mixed, None, place).word, round(av.judge("lat", mixed, None, place).ratio, 6)),
      ("shown", 1.0))
# One placement per pair, or an error saying so.
try:
    av.judge("rand", same(1.0), None, [(0.1, 0.1)])
    failures.append("a placement list shorter than the pairs was accepted")
except ValueError as e:
    check("placements for the wrong number of pairs: error", "one per pair" in str(e), True)

# --placement's workqueue masks, in the kernel's cpumask format (32-bit words, highest first).
import placement  # noqa: E402
real_cpu_count = os.cpu_count
for n, want in ((2, "2"), (4, "e"), (33, "1,fffffffe"), (65, "1,ffffffff,fffffffe")):
    os.cpu_count = lambda n=n: n
    check(f"across on {n} CPUs: mask", placement.WorkqueuePlacement("across").mask(), want)
os.cpu_count = real_cpu_count
check("same: CPU 0 alone", placement.WorkqueuePlacement("same").mask(), "1")
check("free: no mask", placement.WorkqueuePlacement("free").mask(), None)
try:
    placement.WorkqueuePlacement("elsewhere")
    failures.append("an unknown placement was accepted")
except ValueError as e:
    check("unknown placement names the known ones", "free, same or across" in str(e), True)

# An unknown class is an error naming the known ones.
try:
    av.judge("bogus", same(1.0))
    failures.append("an unknown figure class was accepted")
except ValueError as e:
    check("unknown class names the known ones", "block" in str(e) and "bogus" in str(e), True)

# Every documented deliberate difference is in its profile file.
for (profile, figure), (name, phrase) in av.EXPLAINED.items():
    path = os.path.join(PROFILES, profile + ".ini")
    text = " ".join(" ".join(line.lstrip("#").split()) for line in open(path))
    check(f"{profile} {figure}: '{phrase}' is in {profile}.ini", " ".join(phrase.split()) in text, True)
    check(f"{profile} {figure}: explanation() names it", av.explanation(profile, figure), name)
check("a figure without one", av.explanation("dd", "no such figure"), None)

if failures:
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1)
print("all passed")
