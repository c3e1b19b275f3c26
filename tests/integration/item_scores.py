"""The check every tier's items must pass: their `scores` reproduce report.json, so `bench compare`, which reads
only the items' scores, pairs the same numbers the report shows."""

import json
import math
from pathlib import Path

from benchmarks.item_record import ITEM_RECORD, value_of


def read_items(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]


def assert_scores_reproduce_report(folder: Path) -> set[str]:
    """Every item is an item record; for each metric its items score, the mean of their numeric values is the
    report's value and the failed ones are its errors. Returns the metrics checked.

    Within 1e-6, not to the 6th decimal: items.jsonl rounds each value to 6 decimals as report.json rounds the
    mean, so the mean of rounded values may sit up to 5e-7 from the exact mean, and its rounding one unit off."""
    report = json.loads((folder / "report.json").read_text())
    records = [ITEM_RECORD.validate_python(row) for row in read_items(folder)]
    metrics = {name for record in records for name in record["scores"]}
    for name in metrics:
        assert name in report["metrics"], f"{name} is scored per item but not a metric of the report"
        values = [value_of(record["scores"].get(name)) for record in records]
        numbers = [v for v in values if isinstance(v, float)]
        expected = report["metrics"][name]
        if expected["value"] is None:
            assert not numbers, name
        else:
            assert math.isclose(sum(numbers) / len(numbers), expected["value"], abs_tol=1e-6 + 1e-12), name
        assert len(numbers) == expected["n"], name
        assert values.count(None) == expected.get("errors", 0), name
    return metrics
