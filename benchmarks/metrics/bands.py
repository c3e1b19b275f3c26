"""Reading bands: where the seeds call a metric's value excellent, good or in need of attention, declared once
per metric and found by the name reports give it (docs/metric-guide.md#reading-bands).

A band is a reading aid, not a measurement: nothing is stored (report.json holds no band), every renderer
rates the value it shows. Seed 004 §11.2 gives three levels. Seeds 000–003 give four for NoiseSensitivity,
ContextRelevance and SemanticSimilarity (excellent, good, moderate, poor); their third and fourth are read
here as "needs attention", so every band speaks the same three words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

Rating = Literal["excellent", "good", "needs attention"]

# A mean summed from decimals can land a hair beside a bound (0.8000000000000002 for 0.8): within this slack
# it is on the bound, as the table means it.
_SLACK = 1e-9


@dataclass(frozen=True)
class Band:
    """A metric's three levels: past `excellent` it is excellent, past `attention` (the other way) it needs
    attention, and between them it is good.

    `on_bound` says where a value exactly on a bound falls, since the seeds differ: §11.2 writes "> 0.8 | 0.5–0.8 |
    < 0.5", so both bounds are good ("good"); the four-level tables of seeds 000–003 are consecutive ranges
    ("0.7–0.9", "0.9–1.0"), each opening at its bound, so a bound belongs to the range above it ("higher").
    """

    excellent: float
    attention: float
    source: str  # where the seeds give it, e.g. "seed 004 §11.2"
    higher_is_better: bool = True
    on_bound: Literal["good", "higher"] = "good"

    def rate(self, value: float) -> Rating:
        """The level of `value`, a finite number on the metric's scale."""
        if not math.isfinite(value):
            raise ValueError(f"cannot rate {value}: not a finite number")
        if self._beyond(value, self.excellent, better=True):
            return "excellent"
        if self._beyond(value, self.attention, better=False):
            return "needs attention"
        return "good"

    def describe(self) -> str:
        """The three levels in one line, best first: "> 0.8 excellent, 0.5–0.8 good, < 0.5 needs attention"."""
        up = ">" if self.on_bound == "good" else "≥"  # a bound that opens the range above it belongs to it
        best, worst = (up, "<") if self.higher_is_better else ("<", up)
        low, high = sorted((self.excellent, self.attention))
        return (f"{best} {self.excellent:g} excellent, {low:g}–{high:g} good, "
                f"{worst} {self.attention:g} needs attention")

    def _beyond(self, value: float, bound: float, *, better: bool) -> bool:
        """Whether `value` lies past `bound` on its better side (`better`) or its worse one, bound included as
        `on_bound` says."""
        above = better == self.higher_is_better  # the side past the bound is the side above it
        if self.on_bound == "good":
            return value > bound + _SLACK if above else value < bound - _SLACK
        return value >= bound - _SLACK if above else value < bound - _SLACK


_SECTION_11_2 = "seed 004 §11.2"
_RETRIEVAL = Band(0.8, 0.5, _SECTION_11_2)
_JUDGE_PIPELINE = Band(0.95, 0.85, _SECTION_11_2)

# Keyed by the names reports give the metrics (tier 1's and real-users' retrieval, `bench evaluate`'s judged
# metrics, `bench judge`'s and `bench judge-pipeline`'s own); `band_for` finds the per-judge and `avg_` forms.
BANDS: dict[str, Band] = {
    "hit_rate@1": _RETRIEVAL,
    "mrr": _RETRIEVAL,
    "ndcg@10": _RETRIEVAL,
    "faithfulness": Band(0.9, 0.7, _SECTION_11_2),
    "e2e_score": Band(0.8, 0.6, _SECTION_11_2),
    "accuracy": _JUDGE_PIPELINE,  # "Accuracy (Judge Pipeline)": bench judge-pipeline's
    # §11.2's Consistency: its table's 0.95 / 0.85, stricter than seed 004's prose ("> 0.9 reliable, < 0.7
    # unstable"); the table is what is rated against
    "consistency_score": _JUDGE_PIPELINE,
    # lower is better: 0.0–0.1 excellent, 0.1–0.3 good robustness; 0.3–0.5 moderate, 0.5–1.0 poor
    "noise_sensitivity": Band(0.1, 0.3, "seeds 000/001, NoiseSensitivity", higher_is_better=False,
                              on_bound="higher"),
    # 90–100% excellent, 70–89% good; 50–69% mixed, 0–49% poor
    "context_relevance": Band(0.9, 0.7, "seed 002, score interpretation", on_bound="higher"),
    # 0.9–1.0 semantically identical, 0.8–0.9 very similar; 0.5–0.8 moderate, 0.0–0.5 low
    "semantic_similarity": Band(0.9, 0.8, "seed 003, SemanticSimilarity", on_bound="higher"),
}


def band_for(metric: str) -> Band | None:
    """The band of a report's metric, None when the seeds give it none. A judge model's own number
    (`faithfulness/<model>`) is read on its metric's band, and a mean of a judge's ratings (`avg_faithfulness` of
    tiers 2 and 3 and `bench judge`, tier 3's `avg_e2e_score` and `avg_semantic_similarity`) on its rating's."""
    name = metric.split("/", 1)[0]
    return BANDS.get(name) or BANDS.get(name.removeprefix("avg_"))
