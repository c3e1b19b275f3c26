"""Which of two judges agrees better with the same labels: a paired difference, not two numbers side by side.

Both runs graded the same labelled samples (`bench evaluate` and `bench judge` keep each sample's labels in
its record's `inputs.labels`: a metric's labels are those of its name, or of the `label` its agreement names,
as the judge tier's `avg_faithfulness` reads the `faithfulness` labels). For each metric both reports measured
agreement on, one statistic is compared: pairwise accuracy when the labels pair answers to one question, else
ROC AUC (binary labels) or Spearman (graded).
The two judges' statistics are computed on the samples both scored, and the interval of their difference
comes from resampling questions (a question's answers together), each resample scoring both judges on the
same draw; the candidate agrees better when that interval lies above 0, worse when below, and otherwise
the data cannot tell.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.compare.paired import item_value
from benchmarks.compare.result import AgreementChange
from benchmarks.item_record import ItemRecord
from benchmarks.metrics import label_agreement as la

if TYPE_CHECKING:
    from benchmarks.report_model import Report

Statistic = Callable[[np.ndarray, np.ndarray, np.ndarray], float | None]
STATISTICS: Mapping[str, Statistic] = {
    "pairwise_accuracy": la.pairwise_accuracy,
    "roc_auc": lambda s, y, g: la.roc_auc(s, y),
    "spearman": lambda s, y, g: la.spearman(s, y),
}


def agreement_changes(base: Report, cand: Report, pairs: Sequence[tuple[ItemRecord, ItemRecord]], *,
                      resamples: int, seed: int) -> list[AgreementChange]:
    """One row per metric whose agreement both reports give (`pairs`: the items of both runs, by id)."""
    rows = []
    for name, metric in base.metrics.items():
        b = metric.agreement
        c = cand.metrics[name].agreement if name in cand.metrics else None
        if not b or not c or "/" in name:
            continue
        statistic = next((s for s in ("pairwise_accuracy", "roc_auc")
                          if (found := getattr(b, s)) is not None and found.value is not None), "spearman")
        rows.append(_row(name, b.label or name, statistic, pairs, resamples=resamples, seed=seed))
    return rows


def _row(name: str, label_key: str, statistic: str, pairs: Sequence[tuple[ItemRecord, ItemRecord]], *,
         resamples: int, seed: int) -> AgreementChange:
    labelled = []
    for base_item, cand_item in pairs:
        label = (base_item.get("inputs", {}).get("labels") or {}).get(label_key)
        b, c = item_value(base_item, name), item_value(cand_item, name)
        if label is not None and isinstance(b, float) and isinstance(c, float):
            labelled.append((b, c, float(label), _question(base_item)))
    row: AgreementChange = {"metric": name, "statistic": statistic, "n": len(labelled), "base": None,
                            "candidate": None, "delta": None, "ci95": None, "better": "undetermined"}
    if not labelled:
        return row
    b, c, y, g = (np.array(column, dtype=object if k == 3 else float)
                  for k, column in enumerate(zip(*labelled, strict=False)))
    compute = STATISTICS[statistic]
    row["base"], row["candidate"] = compute(b, y, g), compute(c, y, g)
    if row["base"] is None or row["candidate"] is None:
        return row
    row["delta"] = row["candidate"] - row["base"]
    row["ci95"] = _paired_interval(compute, b, c, y, g, resamples=resamples, seed=seed)
    if row["ci95"] is not None:
        low, high = row["ci95"]
        row["better"] = "candidate" if low > 0 else "base" if high < 0 else "neither"
    return row


def _question(item: ItemRecord) -> str:
    """What pairs an answer with the others to its question: evaluate's `user_input`, the judge tier's
    `question`, else the item is alone."""
    inputs = item["inputs"]
    return str(inputs.get("user_input") or inputs.get("question") or item["id"])


def _paired_interval(compute: Statistic, b: np.ndarray, c: np.ndarray, y: np.ndarray, g: np.ndarray, *,
                     resamples: int, seed: int) -> list[float] | None:
    """Both judges scored on each draw of questions (`label_agreement.group_resamples`): the interval of their
    difference."""
    deltas = []
    for rows, codes in la.group_resamples(g, resamples=resamples, seed=seed):
        base, cand = compute(b[rows], y[rows], codes), compute(c[rows], y[rows], codes)
        if base is not None and cand is not None:
            deltas.append(cand - base)
    interval = la.percentile_interval(deltas)
    return None if interval is None else [round(interval[0], 6), round(interval[1], 6)]
