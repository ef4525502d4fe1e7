# SPDX-License-Identifier: LGPL-2.1-or-later
"""The verdict tests/bench/anchors gives each figure, from its pairs (benchd, tool).

Every figure is judged on the spread of its per-pair ratios benchd/tool, not on each tool's own
spread: the two runs of a pair are seconds apart, the pairs minutes, and on a shared machine how
fast both tools go drifts between pairs by more than they differ within one. The ratio of each
pair cancels that drift (as tests/bench/vs-fio's ratios do); what is left to judge is how far the
ratios of the pairs agree with each other. With r the median of the per-pair ratios and [q1, q3]
their interquartile range (quartiles by the inclusive method: with 5 pairs the second and fourth
ratio, so one stray pair at either end moves neither; with one pair, that ratio):

  within target  [q1, q3] lies inside the target: ±10% for block, sequential and random figures,
                 ±20% for per-character and metadata figures (bounds included)
  explained      not within target, and the difference is a deliberate one the profile file
                 documents: the verdict names it (EXPLAINED; each phrase is in the profile file,
                 which tests/unit/test-anchors-verdict.py checks)
  outside        [q1, q3] lies wholly outside the target
  undecided      [q1, q3] straddles a bound of the target: the pairs cannot decide
  shown          latency and %CP figures, which have no target
  no ratio       no pair with both figures (the tool printed +++++, too fast to time)

The verdict carries r, [q1, q3] (lo, hi) and the ratios' min..max (pair_range), which the table
prints beside it.

A depth-1 figure on a loop device also depends on where the kernel ran the loop device's worker,
which changes from run to run for either tool (tests/bench/placement.py): given each pair's IPIs
per I/O (placement), only the pairs whose two runs had the worker alike are judged, and the
verdict says how many of them there were (alike = (k, n)); with fewer than MIN_ALIKE such pairs
it is undecided, whatever the ratios of the others say. min..max stays that of every pair.
"""

import statistics

from placement import alike as placement_alike

# The fewest pairs alike in placement that a depth-1 figure is judged on.
MIN_ALIKE = 3

# Figure classes and their targets (issue 23's): None is shown, not judged.
TARGETS = {"block": 0.10, "seq": 0.10, "rand": 0.10, "char": 0.20, "meta": 0.20, "lat": None, "cpu": None}

# Deliberate differences, documented in daemon/profiles/PROFILE.ini: (profile, figure) -> (name, the
# phrase of the profile file that documents it).
EXPLAINED = {
    ("bonnie", "Rewrite"): ("Rewrite starts with its file's pages dropped, bonnie++'s evicts its block write's "
                            "8K pages (bonnie.ini)",
                            "Rewrite starts with its file's pages dropped, where bonnie++'s starts with the cache "
                            "full of the 8K pages its block write left"),
    ("crystal", "rnd4k-q32t1-read"): ("benchd spends less CPU per I/O than fio, and at depth 32 a device faster "
                                      "than the CPU reads more IOPS with it (crystal.ini)",
                                      "RND4K Q32T1 then reads more IOPS with benchd than with fio"),
    ("crystal", "rnd4k-q32t1-write"): ("benchd spends less CPU per I/O than fio, and at depth 32 a device faster "
                                       "than the CPU writes more IOPS with it (crystal.ini)",
                                       "RND4K Q32T1 writes more IOPS with benchd than with fio"),
}

EPS = 1e-9


def spread(values):
    """Half the range over the median, as a fraction (nan with fewer than two values)."""
    v = [x for x in values if x is not None]
    if len(v) < 2:
        return float("nan")
    m = statistics.median(v)
    return (max(v) - min(v)) / 2 / m if m else float("nan")


class Verdict:
    def __init__(self, word, ratio=None, lo=None, hi=None, target=None, why=None, pair_range=None, alike=None):
        self.word, self.ratio, self.lo, self.hi, self.target, self.why = word, ratio, lo, hi, target, why
        self.pair_range, self.alike = pair_range, alike

    def text(self):
        t = f"±{self.target * 100:.0f}%" if self.target is not None else ""
        if self.alike and self.alike[0] < self.alike[1]:
            # Judged on the pairs alike in placement only: say so where the verdict is read.
            t += f"; on the {self.alike[0]} of {self.alike[1]} pairs alike in placement"
        if self.word == "undecided" and self.lo is None:
            return f"undecided ({t}: fewer than {MIN_ALIKE})"
        if self.word == "within target":
            return f"within target ({t})"
        if self.word == "explained":
            return f"explained ({t}): {self.why}"
        if self.word in ("outside", "undecided"):
            return f"{self.word} ({t}; pair ratios' IQR {self.lo:.2f}..{self.hi:.2f})"
        if self.word == "no ratio" and self.why:
            return f"no ratio ({self.why})"
        return self.word

    def __repr__(self):
        return f"Verdict({self.text()!r})"


def quartiles(values):
    """(q1, q3) of values: statistics.quantiles' inclusive method, which interpolates between the
    values at (n - 1) / 4 and 3 (n - 1) / 4 of the sorted ones (with 5 values exactly the second
    and fourth); a single value is both."""
    v = sorted(values)
    if len(v) == 1:
        return v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[2]


def judge(kind, pairs, explained=None, placement=None):
    """The verdict of one figure of class kind from its pairs [(benchd, tool)], either None when
    that tool gave no figure; explained: the name of a documented deliberate difference, or None;
    placement: for a depth-1 figure, each pair's IPIs per I/O [(benchd, tool)], or None."""
    if kind not in TARGETS:
        raise ValueError(f"figure class '{kind}' is not one of {', '.join(TARGETS)}")
    if placement is not None and len(placement) != len(pairs):
        raise ValueError(f"{len(placement)} placements for {len(pairs)} pairs: give one per pair")
    target = TARGETS[kind]
    both = [(i, b / t) for i, (b, t) in enumerate(pairs) if b is not None and t not in (None, 0)]
    if not both:
        tool = [t for _, t in pairs if t is not None]
        return Verdict("no ratio", target=target, why=None if tool else "tool: +++++")
    ratios = [x for _, x in both]
    rng = (min(ratios), max(ratios))
    n_alike = None
    if placement is not None:
        judged = [x for i, x in both if placement_alike(*placement[i])]
        n_alike = (len(judged), len(both))
        if target is not None and len(judged) < MIN_ALIKE:
            return Verdict("undecided", statistics.median(ratios), target=target, pair_range=rng, alike=n_alike)
        ratios = judged or ratios
    r = statistics.median(ratios)
    lo, hi = quartiles(ratios)
    if target is None:
        return Verdict("shown", ratio=r, lo=lo, hi=hi, pair_range=rng, alike=n_alike)
    inside_lo, inside_hi = 1 - target - EPS, 1 + target + EPS
    if lo >= inside_lo and hi <= inside_hi:
        return Verdict("within target", r, lo, hi, target, pair_range=rng, alike=n_alike)
    if explained:
        return Verdict("explained", r, lo, hi, target, why=explained, pair_range=rng, alike=n_alike)
    if hi < inside_lo or lo > inside_hi:
        return Verdict("outside", r, lo, hi, target, pair_range=rng, alike=n_alike)
    return Verdict("undecided", r, lo, hi, target, pair_range=rng, alike=n_alike)


def explanation(profile, figure):
    """The name of the documented deliberate difference of profile's figure, or None."""
    e = EXPLAINED.get((profile, figure))
    return e[0] if e else None
