"""A metric's status and its gate verdict.

Status (Δ = candidate − base; "worse" follows the metric's `higher_is_better`):

- `not comparable`: the judge model, mode or prompts changed and the metric is graded by the judge;
- `n/a`: a value is missing on either side, or the metric is descriptive (`higher_is_better` null);
- `regressed` / `improved`: the 95% CI of Δ excludes 0 and |Δ| ≥ the minimum effect;
- `~`: |Δ| ≥ the minimum effect but the CI includes 0 (large but not significant);
- `unchanged`: otherwise.

The minimum effect is the gate's `min_effect`, else 0.01 when both values lie in 0–1, else 1% of
|base|. A metric without per-item values has no paired CI: when both reports give a 95% CI and the
two intervals do not overlap the change counts as significant, otherwise it is `~` at most; when
neither report has a CI the values alone decide (|Δ| ≥ minimum effect) and the row says so.

Δ is the paired one — the mean difference over the items both runs scored — whenever the runs have items;
the difference of the two reports' means (each over whichever items scored in that run) decides only when
they have none.

Gate: a metric violates its gate when it `regressed` by more than `max_drop` (default 0), or the
candidate is below `floor` (above it for lower-is-better metrics), or — on a primary metric — more items
lost their value than `max_lost` allows (LOST_DEFAULT). A violation fails the comparison (exit 1) when the
gate's action is `fail`, which is the default for primary metrics only.
"""

from __future__ import annotations

import math
from typing import Any

from benchmarks.compare.gates import Gate

REGRESSED, IMPROVED, UNCHANGED, LARGE, NOT_COMPARABLE, NA = (
    "regressed", "improved", "unchanged", "~", "not comparable", "n/a")
# Items a primary metric may lose without failing, as a share of the base's scored items: 2%, but always one
# (a single flaky API error in a nightly run is not a regression) and never a third (losing a third of the
# questions always fails, however few there are).
LOST_DEFAULT = 0.02


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
    ci: tuple[float, float] | None,
    higher_is_better: bool | None,
    gate: Gate,
    *,
    base_ci: Any = None,
    cand_ci: Any = None,
) -> tuple[str, str | None]:
    """(status, basis): basis says how significance was decided when there was no paired CI."""
    if base is None or cand is None or delta is None or higher_is_better is None:
        return NA, None
    effect = min_effect(gate, base, cand)
    large = abs(delta) >= effect and delta != 0
    basis = None
    if ci is not None:
        significant = ci[0] > 0 or ci[1] < 0
    elif base_ci and cand_ci:
        significant = cand_ci[0] > base_ci[1] or cand_ci[1] < base_ci[0]
        basis = "no per-item values: the reports' own CIs compared"
    else:
        significant = True
        basis = "no per-item values and no CIs: values compared"
    if not large:
        return UNCHANGED, basis
    if not significant:
        return LARGE, basis
    better = delta > 0 if higher_is_better else delta < 0
    return (IMPROVED if better else REGRESSED), basis


def violations(row: dict[str, Any], gate: Gate, *, primary: bool = False) -> list[str]:
    """Why a compared metric breaks its gate (empty: it passes)."""
    found: list[str] = []
    if row["status"] == REGRESSED:
        allowed = gate.max_drop or 0.0
        if abs(row["change"]) > allowed:
            found.append(f"regressed by {abs(row['change']):.4g}" + (f" (max drop {allowed:g})" if allowed else ""))
    if primary and row.get("n_lost"):
        allowed_lost = lost_allowed(gate, row["scored_base"])
        if row["n_lost"] > allowed_lost:
            found.append(f"{row['n_lost']} of {row['scored_base']} items lost their value (at most {allowed_lost})")
    cand, hib = row["candidate"], row["higher_is_better"]
    if gate.floor is not None and cand is not None and hib is not None and row["status"] != NOT_COMPARABLE:
        if (hib and cand < gate.floor) or (not hib and cand > gate.floor):
            found.append(f"{cand:.4g} {'below' if hib else 'above'} the {'floor' if hib else 'ceiling'} {gate.floor:g}")
    return found
