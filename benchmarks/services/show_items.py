"""Load the judge tiers' items: show/no-show items (seed 004 §9), answers to rate and answer pairs (§8).

One JSON object per line. Show/no-show items: `id`, `question`, `context`, `answer`,
`ground_truth_show` (true/false, or yes/no, да/нет). Answers to rate: `id` and what the rating
reads of `question`, `context`, `answer`, `reference`; `ground_truth_show` when present. Answer pairs:
`id`, `question`, `context`, `answer_a`, `answer_b`, and `better` (a, b or tie) when labelled.
Missing fields are one error that lists them all, at the first line lacking one and with how many
lines do, so a user fixes the file in one go.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchmarks.dataset import Warning
from benchmarks.errors import BenchError, InputError
from benchmarks.services.datasets import SHIPPED, _read_jsonl, _string, _unique
from benchmarks.services.shipped import shipped_dir

FILE_NAME = "judge_pipeline.jsonl"
PAIRS_FILE_NAME = "judge_pairs.jsonl"
REQUIRED = ("id", "question", "context", "answer", "ground_truth_show")
PAIR_FIELDS = ("id", "question", "context", "answer_a", "answer_b")
Better = Literal["a", "b", "tie"]
_TRUTH = {"true": True, "yes": True, "да": True, "1": True, "false": False, "no": False, "нет": False, "0": False}


@dataclass(frozen=True)
class ShowItem:
    id: str
    question: str
    context: str
    answer: str
    show: bool


@dataclass(frozen=True)
class RatedItem:
    """An answer for a judge to rate; fields the rating does not read may be empty."""

    id: str
    question: str
    context: str
    answer: str
    reference: str
    show: bool | None  # the show/no-show label, when the file has one

    def variables(self) -> dict[str, str]:
        return {"question": self.question, "context": self.context, "answer": self.answer,
                "reference": self.reference}


@dataclass(frozen=True)
class AnswerPair:
    id: str
    question: str
    context: str
    answer_a: str
    answer_b: str
    better: Better | None  # the label, when the file has one


@dataclass(frozen=True)
class ShowItemSet:
    name: str
    language: str
    content_sha256: str
    items: tuple[ShowItem, ...]
    warnings: tuple[Warning, ...] = ()

    def report_block(self) -> dict[str, object]:
        return {"name": self.name, "language": self.language, "format": "judge-pipeline-jsonl",
                "content_sha256": self.content_sha256, "items": len(self.items)}


def resolve(spec: str, file_name: str = FILE_NAME) -> Path:
    """A shipped dataset's items, a folder holding `file_name`, or a JSONL file."""
    path = shipped_dir("datasets") / spec / file_name if spec in SHIPPED else Path(spec)
    if path.is_dir():
        path = path / file_name
    if not path.is_file():
        raise BenchError(f"{path}: no such file (give a .jsonl of items, or a dataset folder that holds "
                         f"{file_name})")
    return path


def load_show_items(path: Path) -> list[ShowItem]:
    return [
        ShowItem(
            id=item_id,
            question=_string(record, "question", path, line, required=True),
            context=_string(record, "context", path, line, required=True),
            answer=_string(record, "answer", path, line, required=True),
            show=_truth(record["ground_truth_show"], path, line),
        )
        for line, record, item_id in _records(path, REQUIRED, "the judge-pipeline tier")
    ]


def load_rated_items(path: Path, needs: Sequence[str], needed_by: str) -> list[RatedItem]:
    """Items whose every line has the fields in `needs` (besides `id`); `needed_by` names who reads them."""
    def text(record: dict[str, Any], name: str, line: int) -> str:
        return _string(record, name, path, line, required=name in needs)

    return [
        RatedItem(
            id=item_id,
            question=text(record, "question", line),
            context=text(record, "context", line),
            answer=text(record, "answer", line),
            reference=text(record, "reference", line),
            show=None if record.get("ground_truth_show") is None else _truth(record["ground_truth_show"], path, line),
        )
        for line, record, item_id in _records(path, ("id", *needs), needed_by)
    ]


def load_pairs(path: Path) -> list[AnswerPair]:
    return [
        AnswerPair(
            id=item_id,
            question=_string(record, "question", path, line, required=True),
            context=_string(record, "context", path, line, required=True),
            answer_a=_string(record, "answer_a", path, line, required=True),
            answer_b=_string(record, "answer_b", path, line, required=True),
            better=None if record.get("better") is None else _better(record["better"], path, line),
        )
        for line, record, item_id in _records(path, PAIR_FIELDS, "bench judge --pairwise")
    ]


def _records(path: Path, required: Sequence[str], needed_by: str) -> list[tuple[int, dict[str, Any], str]]:
    """Every line with its unique id, once no line lacks a required field (else one error for the file)."""
    seen: dict[str, int] = {}
    rows = []
    lacking: dict[int, list[str]] = {}
    for line, record in _read_jsonl(path):
        missing = [name for name in required if record.get(name) is None]
        if missing:
            lacking[line] = missing
            continue
        item_id = _string(record, "id", path, line, required=True)
        _unique(seen, item_id, path, line, "id")
        rows.append((line, record, item_id))
    if lacking:
        fields = [name for name in required if any(name in missing for missing in lacking.values())]
        more = f" (on {len(lacking)} lines; the first is shown)" if len(lacking) > 1 else ""
        raise InputError(path, f"missing field(s) {needed_by} needs: {', '.join(fields)}{more}", line=min(lacking))
    if not rows:
        raise InputError(path, "no items")
    return rows


def _truth(value: object, path: Path, line: int) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if word not in _TRUTH:
        raise InputError(path, f"expected true/false (or yes/no, да/нет), got {value!r}", line=line,
                         field="ground_truth_show")
    return _TRUTH[word]


def _better(value: object, path: Path, line: int) -> Better:
    word = str(value).strip().lower() if isinstance(value, str) else None
    if word not in ("a", "b", "tie"):
        raise InputError(path, f"expected a, b or tie, got {value!r}", line=line, field="better")
    return word  # type: ignore[return-value]
