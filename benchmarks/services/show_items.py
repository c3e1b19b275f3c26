"""Load the judge tiers' items: show/no-show items (seed 004 §9), answers to rate and answer pairs (§8).

One JSON object per line. Show/no-show items: `id`, `question`, `context`, `answer`,
`ground_truth_show` (true/false, or yes/no, да/нет). Answers to rate: `id` and what the rating
reads of `question`, `context`, `answer`, `reference`; `ground_truth_show` and `labels` (people's scores
by rating, as `bench evaluate` reads them) when present. Answer pairs:
`id`, `question`, `context`, `answer_a`, `answer_b`, and `better` (a, b or tie) when labelled.
Missing fields are one error that lists them all, at the first line lacking one and with how many
lines do, so a user fixes the file in one go.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.errors import BenchError, InputError
from benchmarks.inputs import ItemSet
from benchmarks.metrics.pairwise import Better
from benchmarks.services.dataset_files import SHIPPED, _read_jsonl, _string, _unique, read_file, read_labels
from benchmarks.services.shipped import shipped_dir

FILE_NAME = "judge_pipeline.jsonl"
PAIRS_FILE_NAME = "judge_pairs.jsonl"
REQUIRED = ("id", "question", "context", "answer", "ground_truth_show")
PAIR_FIELDS = ("id", "question", "context", "answer_a", "answer_b")
T = TypeVar("T")
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
    # people's scores by rating, on the rating's scale: what the judge's agreement is measured on
    labels: tuple[tuple[str, float], ...] = ()

    def variables(self) -> dict[str, str]:
        return {"question": self.question, "context": self.context, "answer": self.answer,
                "reference": self.reference}

    def label(self, rating: str) -> float | None:
        return dict(self.labels).get(rating)


@dataclass(frozen=True)
class AnswerPair:
    id: str
    question: str
    context: str
    answer_a: str
    answer_b: str
    better: Better | None  # the label, when the file has one


def resolve(spec: str, file_name: str = FILE_NAME) -> Path:
    """A shipped dataset's items, a folder holding `file_name`, or a JSONL file."""
    path = shipped_dir("datasets") / spec / file_name if spec in SHIPPED else Path(spec)
    if path.is_dir():
        path = path / file_name
    if not path.is_file():
        raise BenchError(f"{path}: no such file (give a .jsonl of items, or a dataset folder that holds "
                         f"{file_name})")
    return path


def load_show_input(spec: str, settings: Any) -> ItemSet[ShowItem]:
    """The input of bench judge-pipeline."""
    path = resolve(spec)
    data = read_file(path)
    return _item_set(path, data, "judge-pipeline-jsonl", settings.language, load_show_items(path, data))


def load_pairs_input(spec: str, settings: Any) -> ItemSet[AnswerPair]:
    """The input of bench judge --pairwise."""
    path = resolve(spec, PAIRS_FILE_NAME)
    data = read_file(path)
    return _item_set(path, data, "judge-pairs-jsonl", settings.language, load_pairs(path, data))


def rated_input(spec: str, settings: Any, needs: Sequence[str], needed_by: str) -> ItemSet[RatedItem]:
    """The input of bench judge: answers to rate, each line holding what the rating reads (`needs`)."""
    path = resolve(spec)
    data = read_file(path)
    return _item_set(path, data, "judge-items-jsonl", settings.language, load_rated_items(path, needs, needed_by, data))


def _item_set(path: Path, data: bytes, format: str, language: str, items: Sequence[T]) -> ItemSet[T]:
    """Named as the shipped dataset or folder it came from, else by the file's stem."""
    name = path.parent.name if path.name in (FILE_NAME, PAIRS_FILE_NAME) else path.stem
    return ItemSet(name=name, format=format, language=language, content_sha256=hashlib.sha256(data).hexdigest(),
                   items=tuple(items))


def load_show_items(path: Path, data: bytes | None = None) -> list[ShowItem]:
    return [
        ShowItem(
            id=item_id,
            question=_string(record, "question", path, line, required=True),
            context=_string(record, "context", path, line, required=True),
            answer=_string(record, "answer", path, line, required=True),
            show=_truth(record["ground_truth_show"], path, line),
        )
        for line, record, item_id in _records(path, REQUIRED, "the judge-pipeline tier", data)
    ]


def load_rated_items(path: Path, needs: Sequence[str], needed_by: str, data: bytes | None = None) -> list[RatedItem]:
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
            labels=read_labels(record.get("labels"), path, line, "labels"),
        )
        for line, record, item_id in _records(path, ("id", *needs), needed_by, data)
    ]


def load_pairs(path: Path, data: bytes | None = None) -> list[AnswerPair]:
    return [
        AnswerPair(
            id=item_id,
            question=_string(record, "question", path, line, required=True),
            context=_string(record, "context", path, line, required=True),
            answer_a=_string(record, "answer_a", path, line, required=True),
            answer_b=_string(record, "answer_b", path, line, required=True),
            better=None if record.get("better") is None else _better(record["better"], path, line),
        )
        for line, record, item_id in _records(path, PAIR_FIELDS, "bench judge --pairwise", data)
    ]


def _records(path: Path, required: Sequence[str], needed_by: str,
             data: bytes | None = None) -> list[tuple[int, dict[str, Any], str]]:
    """Every line with its unique id, once no line lacks a required field (else one error for the file)."""
    seen: dict[str, int] = {}
    rows = []
    lacking: dict[int, list[str]] = {}
    for line, record in _read_jsonl(path, data):
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
