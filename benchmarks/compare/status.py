"""A metric's status and its gate verdict.

Status (Δ = candidate − base; "worse" follows the metric's `higher_is_better`):

- `not comparable`: the judge model, mode or prompts changed and the metric is graded by the judge;
- `n/a`: a value is missing on either side, or the metric is descriptive (`higher_is_better` null);
- `regressed` / `improved`: the change is significant and |Δ| ≥ the minimum effect;
- `~`: |Δ| ≥ the minimum effect but the change is not significant (large but not significant);
- `unchanged`: otherwise.

Significant: the paired bootstrap's two-sided p-value of Δ = 0 (the inversion of its 95% expanded percentile
interval, paired.py) is at most the metric's level. Each metric is tested at 5% on its own, except the primary
metrics, which gate the exit code together: across them Holm–Bonferroni keeps the chance that any of them
reads significant by chance at 5% (family-wise), testing the smallest p-value at 5%/m, the next at 5%/(m−1),
and so on, stopping at the first that fails. So with several primary metrics a 95% interval may exclude 0
and the change still be `~`. An interval over fewer than RELIABLE_UNITS units is marked unreliable.

The minimum effect is the gate's `min_effect`, else 0.01 when both values lie in 0–1, else 1% of
|base|. A metric without per-item values has no paired test: when both reports give a 95% CI and the
two intervals do not overlap the change counts as significant, otherwise it is `~` at most; when
neither report has a CI the values alone decide (|Δ| ≥ minimum effect) and the row says so.

Δ is the paired one — the mean difference over the items both runs scored — whenever the runs have items;
the difference of the two reports' means (each over whichever items scored in that run) decides only when
they have none.

Gate: a metric violates its gate when it `regressed` by more than `max_drop` (default 0), or the
candidate is below `floor` (above it for lower-is-better metrics), or — on a primary metric — more items
lost their value than `max_lost` allows (LOST_DEFAULT), or more cases flipped from pass to fail than its
cases allow (cases.py). A violation fails the comparison (exit 1) when the
gate's action is `fail`, which is the default for primary metrics only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, TypedDict

from benchmarks.compare.gates import Gate
from benchmarks.compare.paired import Paired
from benchmarks.compare.result import CasesRecord, MetricRow, PairedTest, Status

REGRESSED: Final = "regressed"
IMPROVED: Final = "improved"
UNCHANGED: Final = "unchanged"
LARGE: Final = "~"
NOT_COMPARABLE: Final = "not comparable"
NA: Final = "n/a"
# Items a primary metric may lose without failing, as a share of the base's scored items: 2%, but always one
# (a single flaky API error in a nightly run is not a regression) and never a third (losing a third of the
# questions always fails, however few there are).
LOST_DEFAULT = 0.02
ALPHA = 0.05  # each metric's level, and the primary metrics' family-wise level
# Units (source documents, else items) with a value below which a row's interval is marked unreliable: at 20
# units the intervals already cover Δ only 87–93% of the time on bounded metrics, and 66% on a sparse hit/miss
# change (perf/compare_coverage.py, BENCHMARKS.md)
RELIABLE_UNITS = 20


class HolmLevel(TypedDict):
    alpha: float
    significant: bool


def holm(p_values: dict[str, float], alpha: float = ALPHA) -> dict[str, HolmLevel]:
    """Holm–Bonferroni over a family of tests: per metric, its p-value's level (alpha/(m − rank), rank 0 the
    smallest p; ties in the given order) and whether it is significant — p within its level, and every
    smaller p within its own (the step-down stops at the first failure). Controls the family-wise error rate
    at `alpha` under any dependence between the tests, which the primary metrics of one run have."""
    out: dict[str, HolmLevel] = {}
    going = True
    for rank, name in enumerate(sorted(p_values, key=p_values.__getitem__)):
        level = alpha / (len(p_values) - rank)
        going = going and p_values[name] <= level
        out[name] = {"alpha": level, "significant": going}
    return out


def paired_test(test: Paired | None, holm_level: HolmLevel | None) -> PairedTest:
    """A row's significance fields from its paired bootstrap: p-value, the level it was held to (Holm's for a
    primary metric, else ALPHA), the verdict, and the units behind the interval with the unreliable flag. A
    metric without an interval (fewer than two units with a value) is never significant."""
    if test is None:
        return {"p_value": None, "alpha": None, "significant": False, "ci_units": None, "ci_unreliable": None}
    level: HolmLevel = holm_level or {"alpha": ALPHA, "significant": test.p <= ALPHA}
    return {"p_value": round(test.p, 6), "alpha": round(level["alpha"], 6),
            "significant": level["significant"], "ci_units": test.units,
            "ci_unreliable": test.units < RELIABLE_UNITS}


def lost_allowed(gate: Gate, scored_base: int) -> int:
    """How many items may lose their value: `max_lost` (a share of the base's scored items) or LOST_DEFAULT,
    at least one, and fewer than a third of them; `max_lost = 0` allows none."""
    share = LOST_DEFAULT if gate.max_lost is None else gate.max_lost
    if share <= 0:
        return 0
    return min(max(1, math.floor(share * scored_base)), math.ceil(scored_base / 3) - 1)


def min_effect(gate: Gate, base: float, cand: float) -> float:
    if gate.min_effect is not None:
        return gate.min_effect
    if 0.0 <= base <= 1.0 and 0.0 <= cand <= 1.0:
        return 0.01
    return 0.01 * abs(base)


def status(
    base: float | None,
    cand: float | None,
    delta: float | None,
    significant: bool | None,
    higher_is_better: bool | None,
    gate: Gate,
    *,
    base_ci: Sequence[float] | None = None,
    cand_ci: Sequence[float] | None = None,
) -> tuple[Status, str | None]:
    """(status, basis): basis says how significance was decided when there was no paired test
    (`significant` None)."""
    if base is None or cand is None or delta is None or higher_is_better is None:
        return NA, None
    effect = min_effect(gate, base, cand)
    large = abs(delta) >= effect and delta != 0
    basis = None
    if significant is None and base_ci and cand_ci:
        significant = cand_ci[0] > base_ci[1] or cand_ci[1] < base_ci[0]
        basis = "no per-item values: the reports' own CIs compared"
    elif significant is None:
        significant = True
        basis = "no per-item values and no CIs: values compared"
    if not large:
        return UNCHANGED, basis
    if not significant:
        return LARGE, basis
    better = delta > 0 if higher_is_better else delta < 0
    return (IMPROVED if better else REGRESSED), basis


def case_rule(cases: CasesRecord) -> str:
    """A row's `cases` pass rule as a reader reads it: "≥ 0.5" (cases.py writes it as ">=" and the threshold)."""
    return f"{'≥' if cases['passes_at'] == '>=' else '≤'} {cases['threshold']:g}"


def violations(row: MetricRow, gate: Gate, *, primary: bool = False) -> list[str]:
    """Why a compared metric breaks its gate (empty: it passes), each reason with the value, the bound and the
    gap between them, so that no number reads as another."""
    found: list[str] = []
    change = row["change"]
    if row["status"] == REGRESSED and change is not None:  # regressed: both values and Δ are there
        allowed = gate.max_drop or 0.0
        if abs(change) > allowed:
            way = "drop" if row["higher_is_better"] else "rise"
            bound = f"at most {allowed:.4g} allowed, {abs(change) - allowed:.4g} over" if allowed else \
                "none allowed"
            found.append(f"Δ {change:+.4f} is a significant {way}; {bound}")
    if primary and row.get("n_lost"):
        allowed_lost = lost_allowed(gate, row["scored_base"])
        if row["n_lost"] > allowed_lost:
            found.append(f"{row['n_lost']} of {row['scored_base']} items lost their value; at most {allowed_lost} "
                         f"may, {row['n_lost'] - allowed_lost} over")
    cases = row.get("cases")
    # the flips break the gate only where they are counted against an allowance (cases.record)
    if cases and cases["breaks_gate"] and (allowed_flips := cases["max_flipped_to_fail"]) is not None:
        flips = (f"{cases['n_to_fail']} of {cases['passing_base']} passing cases now fail (pass: "
                 f"{case_rule(cases)}), {cases['n_to_pass']} now pass")
        found.append(f"{flips}; at most {allowed_flips} may, {cases['n_to_fail'] - allowed_flips} over")
    cand, hib = row["candidate"], row["higher_is_better"]
    if gate.floor is not None and cand is not None and hib is not None and row["status"] != NOT_COMPARABLE:
        if hib and cand < gate.floor:
            found.append(f"candidate {cand:.4f} is below the floor {gate.floor:g} by {gate.floor - cand:.4g}")
        elif not hib and cand > gate.floor:
            found.append(f"candidate {cand:.4f} is above the ceiling {gate.floor:g} by {cand - gate.floor:.4g}")
    return found
