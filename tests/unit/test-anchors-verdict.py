#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/bench/anchors_verdict.py, the verdict tests/bench/anchors gives a figure, on constructed
# pairs (benchd, tool): every verdict reached (within target, explained, outside, undecided,
# shown, no ratio), the bounds of both targets (±10%, ±20%) included and just past, a spread
# that makes a ratio inside the target undecided and one outside it undecided too, and a tool
# that gives no figure. Each documented deliberate difference names a phrase that its profile
# file (daemon/profiles/) really says.

import math
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

# Spreads: the tool's figures 95..105 (spread 5%), benchd's 1.05 times them: widened 1.05 * 0.95 /
# 1.05 .. 1.05 * 1.05 / 0.95 = 0.95..1.16, across +10%: undecided though the median is inside.
spread_in = [(105 * x / 100, x) for x in (95.0, 100.0, 105.0, 98.0, 102.0)]
v = av.judge("seq", spread_in)
check("median 1.05 with 5% spreads: undecided", v.word, "undecided")
check("its median ratio", round(v.ratio, 6), 1.05)
check("its widened ratio straddles 1.10", v.lo < 1.10 < v.hi, True)
# The same spreads around a median of 1.16: widened 1.05..1.28, across +10% again.
spread_out = [(116 * x / 100, x) for x in (95.0, 100.0, 105.0, 98.0, 102.0)]
check("median 1.16 with 5% spreads: undecided", word("seq", spread_out), "undecided")
# Around 1.30 with the same spreads (1.18..1.44): wholly outside.
check("median 1.30 with 5% spreads: outside", word("seq", [(130 * x / 100, x) for x in (95.0, 100.0, 105.0)]),
      "outside")
# Around 1.02 with 2% spreads (0.98..1.06): wholly within.
check("median 1.02 with 2% spreads: within", word("seq", [(102 * x / 100, x) for x in (98.0, 100.0, 102.0)]),
      "within target")
# Only benchd's figures spread (90..110, 10%): ratio 1.00 widened to 0.90..1.10, bounds included.
check("benchd spread 10% around 1.00: within (bounds included)",
      word("seq", [(90.0, 100.0), (100.0, 100.0), (110.0, 100.0)]), "within target")
check("benchd spread 12% around 1.00: undecided",
      word("seq", [(88.0, 100.0), (100.0, 100.0), (112.0, 100.0)]), "undecided")
# A tool spread of 100% or more: the widened ratio has no upper bound.
v = av.judge("seq", [(100.0, 1.0), (100.0, 100.0), (100.0, 300.0)])
check("tool spread ≥ 100%: undecided, unbounded", (v.word, math.isinf(v.hi)), ("undecided", True))

# Explained: a documented difference turns outside and undecided into explained, never within.
check("outside, explained", word("block", same(1.25), "page cache"), "explained")
check("undecided, explained", word("seq", spread_out, "page cache"), "explained")
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
# One pair: no spread to widen by.
check("one pair at 1.09", word("seq", [(109.0, 100.0)]), "within target")

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
