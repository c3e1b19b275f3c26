"""Cases as assertions: each item passes or fails a metric's threshold, and compare counts the items that
changed side.

A team with ten hand-written cases reads a pull request case by case, as promptfoo and DeepEval teach it to:
"q3 passed and now fails". The paired bootstrap cannot see that on ten cases (its interval spans almost
everything and is marked unreliable), so the flips are a gate of their own beside it:

- A case passes a metric when its value is at or above the threshold (at or below for a lower-is-better
  metric). The threshold is the gate's `pass_threshold`; without one, the pass mark the metric declares in the
  report (`notes.pass_marks`: faithfulness 0.7, so one fabricated sentence beside a supported one fails); else
  DEFAULT_THRESHOLD for a 0–1 metric (every per-item value of both runs within 0–1, DeepEval's default), and a
  metric on another scale has no cases.
- Cases are the items both runs scored; an item that lost its value is counted by the lost-items gate.
- The flips to fail break the gate when there are more than the gate's `max_flipped_to_fail`. Left unset, it is
  0 under SMALL_SET cases and no limit from there on. Under SMALL_SET the paired bootstrap's interval is
  unreliable (status.py) and every case was written by hand: a case that passed and now fails is the change a
  reviewer must see, and a rerun with the same judge and cache flips none. From SMALL_SET cases on the paired
  bootstrap decides: it reads every case's value, not only those that crossed the threshold, so it is the
  stronger test of the same change, and gating the flips too would make two tests at 5% of one change (a
  false alarm up to twice as often). There the flips are reported with the exact one-sided sign test over
  the cases that changed side (McNemar's exact test), so a reader sees whether chance would often give as
  many flips to fail against the flips back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from benchmarks.compare.gates import Gate
from benchmarks.compare.result import CasesRecord
from benchmarks.compare.status import RELIABLE_UNITS

DEFAULT_THRESHOLD = 0.5
SMALL_SET = RELIABLE_UNITS  # below it the bootstrap's interval is marked unreliable
EXACT_TRIALS = 2_000  # flips up to which the sign test is summed exactly (a few milliseconds at most)
NAMED = 10  # case ids a Markdown line names before it counts the rest


@dataclass(frozen=True)
class Cases:
    """One metric's cases: how many, how many pass on each side, and which changed side (ids in item order)."""
    threshold: float
    higher_is_better: bool
    n: int
    passing_base: int
    passing_candidate: int
    to_fail: tuple[str, ...]
    to_pass: tuple[str, ...]

    @property
    def p_value(self) -> float | None:
        """The exact one-sided sign test's p of as many flips to fail or more, were each flip as likely either
        way; None when nothing flipped."""
        flips = len(self.to_fail) + len(self.to_pass)
        if not flips:
            return None
        return sign_test(len(self.to_fail), flips)


def sign_test(successes: int, trials: int) -> float:
    """P(X ≥ successes) for X ~ Binomial(trials, ½): summed exactly in integers and divided once, so correctly
    rounded, up to EXACT_TRIALS; beyond, scipy's (imported then: scipy.stats alone costs bench compare and bench
    view about a second of start-up)."""
    if trials <= EXACT_TRIALS:
        outcomes: int = 2 ** trials  # an int, so the one division rounds the exact ratio
        return sum(math.comb(trials, k) for k in range(successes, trials + 1)) / outcomes
    from scipy.stats import binomtest

    return float(binomtest(successes, trials, 0.5, alternative="greater").pvalue)


def threshold_for(gate: Gate, values: list[Any], declared: float | None = None) -> float | None:
    """The metric's pass threshold: the gate's, else the pass mark the metric declares (`declared`), else the
    default for a metric whose values all lie in 0–1 (`values`: every per-item value of both runs, floats and the
    markers of none)."""
    if gate.pass_threshold is not None:
        return gate.pass_threshold
    if declared is not None:
        return declared
    numbers = [v for v in values if isinstance(v, float)]
    if numbers and all(0.0 <= v <= 1.0 for v in numbers):
        return DEFAULT_THRESHOLD
    return None


def cases_of(base: dict[str, Any], cand: dict[str, Any], ids: list[str], threshold: float,
             higher_is_better: bool) -> Cases:
    """The cases over `ids` (the paired items), from each run's item id → value table."""
    scored = [i for i in ids if isinstance(base.get(i), float) and isinstance(cand.get(i), float)]

    def passes(value: float) -> bool:
        return value >= threshold if higher_is_better else value <= threshold

    was = {i: passes(base[i]) for i in scored}
    now = {i: passes(cand[i]) for i in scored}
    return Cases(threshold, higher_is_better, len(scored), sum(was.values()), sum(now.values()),
                 tuple(i for i in scored if was[i] and not now[i]), tuple(i for i in scored if now[i] and not was[i]))


def allowed(gate: Gate, cases: Cases) -> int | None:
    """How many cases may flip to fail; None when the flips do not gate (a large set and no count set)."""
    if gate.max_flipped_to_fail is not None:
        return gate.max_flipped_to_fail
    return 0 if cases.n < SMALL_SET else None


def record(cases: Cases, gate: Gate, listed: int) -> CasesRecord:
    """The row's `cases` entry: counts, the first `listed` ids of each way (the Markdown names the first
    NAMED), the sign test's p, the allowance and whether the flips break the gate."""
    count = allowed(gate, cases)
    p = cases.p_value
    return {"threshold": cases.threshold, "passes_at": ">=" if cases.higher_is_better else "<=", "n": cases.n,
            "passing_base": cases.passing_base, "passing_candidate": cases.passing_candidate,
            "n_to_fail": len(cases.to_fail), "n_to_pass": len(cases.to_pass),
            "to_fail": list(cases.to_fail[:listed]), "to_pass": list(cases.to_pass[:listed]),
            "sign_test_p": None if p is None else round(p, 6), "max_flipped_to_fail": count,
            "breaks_gate": count is not None and len(cases.to_fail) > count}
