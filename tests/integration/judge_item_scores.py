"""The check every judge tier's run passes: its items' `scores` reproduce its report, as `bench compare` reads them.

For each metric an item scores, and each "<metric>/<model>" the report holds (compare reads it as
scores[metric][model]), the mean of the items' `item_record.value_of` over the items with a number equals the
report's value to its 6 decimals; for the metrics whose report counts failed items as its errors, so does the
count of failed (None) values.
"""

import json
from pathlib import Path

from benchmarks.item_record import ITEM_RECORD, Score, value_of


def check_scores_reproduce_report(folder: Path, *, errors_per_item: frozenset[str] = frozenset()) -> set[str]:
    """The report metrics checked; `errors_per_item` names those whose report errors are failed items."""
    metrics = json.loads((folder / "report.json").read_text())["metrics"]
    rows = [ITEM_RECORD.validate_json(line) for line in (folder / "items.jsonl").read_text().splitlines()]
    checked = set()
    for name in {metric for row in rows for metric in row["scores"]}:
        scorers = {scorer for row in rows for scorer in row["scores"].get(name, {})}
        views = {name: None, **{f"{name}/{scorer}": scorer for scorer in scorers if f"{name}/{scorer}" in metrics}}
        for key, scorer in views.items():
            values = [value_of(_picked(row["scores"].get(name), scorer)) for row in rows]
            numbers = [v for v in values if isinstance(v, float)]
            assert metrics[key]["value"] is not None and numbers, key
            assert abs(sum(numbers) / len(numbers) - metrics[key]["value"]) < 5e-7, key
            if name in errors_per_item:
                assert sum(v is None for v in values) == metrics[key]["errors"], key
            checked.add(key)
    return checked


def _picked(scores: dict[str, Score] | None, scorer: str | None) -> dict[str, Score] | None:
    if scores is None or scorer is None:
        return scores
    return {scorer: scores[scorer]} if scorer in scores else None
