"""A run's items for its pages, read in two passes so a run of a million items never sits in memory whole.

The first pass (`scan`) reads every line once and keeps, per item, only what orders it (its value on the run's
main metric and its id) and where its line starts; per metric it keeps the values for the score distribution
and the count of each outcome. The pages then read the lines they show, in order, by their offsets (`read_at`).

The order is the one a person looking for what went wrong wants: the worst value on the main metric first
(lowest, or highest for a metric where lower is better), ties by id; items without a value on it come after
the scored ones, failed before undetermined, so a run whose judge failed on half its items shows those too.
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.item_record import outcome_of
from benchmarks.run_files.reader import BrokenRun

ITEMS_FILE = "items.jsonl"
FAILED, UNDETERMINED = "failed", "undetermined"  # item_record.outcome_of's words


@dataclass
class Tally:
    """A metric's outcomes over the items it applies to (those with a score for it)."""

    n: int = 0
    ok: int = 0
    undetermined: int = 0
    failed: int = 0
    values: array[float] = field(default_factory=lambda: array("d"))


@dataclass(frozen=True)
class ItemIndex:
    path: Path
    offsets: list[int]  # where each item's line starts, in display order
    tallies: dict[str, Tally]


def scan(path: Path, metrics: Sequence[str], main: str, higher_is_better: bool | None) -> ItemIndex:
    """One pass over items.jsonl: the display order and the per-metric tallies (BrokenRun on a bad line)."""
    tallies = {name: Tally() for name in metrics}
    keys: list[tuple[int, float, str, int]] = []
    sign = -1.0 if higher_is_better is False else 1.0
    rank = {"ok": 0, FAILED: 1, UNDETERMINED: 2, "": 3}
    offset = 0
    try:
        with path.open("rb") as lines:
            for number, raw in enumerate(lines, 1):
                start, offset = offset, offset + len(raw)
                if not raw.strip():
                    continue
                record = _record(path, number, raw)
                for name in metrics:
                    value, outcome = outcome_of(record["scores"].get(name))
                    _count(tallies[name], value, outcome)
                value, outcome = outcome_of(record["scores"].get(main))
                keys.append((rank[outcome], sign * value if value is not None else 0.0, str(record["id"]), start))
    except OSError as exc:
        raise BrokenRun(f"{path}: unreadable items: {exc}") from None
    keys.sort()
    return ItemIndex(path, [k[3] for k in keys], tallies)


def read_at(path: Path, offsets: Sequence[int]) -> Iterator[str]:
    """The lines of the items that start at these offsets, in that order (the scan has checked each)."""
    with path.open("rb") as lines:
        for start in offsets:
            lines.seek(start)
            yield lines.readline().decode("utf-8")


def _record(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    """A line as an item record: an object with an id and scores by metric, else a broken run naming the line."""
    try:
        record = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BrokenRun(f"{path}:{number}: not JSON ({exc})") from None
    if not isinstance(record, dict) or "id" not in record or not isinstance(record.get("scores"), dict):
        raise BrokenRun(f"{path}:{number}: not an item record (it needs an id and scores)")
    return record


def _count(tally: Tally, value: float | None, outcome: str) -> None:
    if not outcome:
        return
    tally.n += 1
    if outcome == "ok":
        tally.ok += 1
        if value is not None and math.isfinite(value):
            tally.values.append(value)
    elif outcome == UNDETERMINED:
        tally.undetermined += 1
    else:
        tally.failed += 1

