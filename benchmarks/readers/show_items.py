"""Load the judge tiers' items: show/no-show items (docs/commands/judge-pipeline.md), answers to rate and answer pairs
(docs/commands/judge.md).

One JSON object per line. Show/no-show items: `id`, `question`, `context`, `answer`,
`ground_truth_show` (true/false, or yes/no, да/нет). Answers to rate: `id` and what the rating
reads of `question`, `context`, `answer`, `reference`; `ground_truth_show` and `labels` (people's scores
by rating, as `bench evaluate` reads them) when present. Answer pairs:
`id`, `question`, `context`, `answer_a`, `answer_b`, and `better` (a, b or tie) when labelled.
Missing fields are one error that lists them all, at the first line lacking one and with how many
lines do, so a user fixes the file in one go.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, StrictBool, create_model
from pydantic_core import PydanticCustomError

from benchmarks.errors import BenchError, InputError
from benchmarks.inputs import ItemSet
from benchmarks.metrics.pairwise import Better
from benchmarks.readers.datasets import SHIPPED
from benchmarks.readers.lines import read_file, read_jsonl, unique_id
from benchmarks.readers.records import Id, Labels, OptionalText, Text, sorted_labels, validate
from benchmarks.shipped import shipped_dir

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


def _truth(value: Any) -> Any:
    """true/false, or the words a spreadsheet holds for them (yes/no, да/нет, 1/0)."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if word not in _TRUTH:
        raise PydanticCustomError("truth", f"expected true/false (or yes/no, да/нет), got {value!r}")
    return _TRUTH[word]


def _verdict(value: Any) -> Any:
    """a, b or tie, read whatever the case and spacing (people type "A" or "Tie")."""
    word = value.strip().lower() if isinstance(value, str) else None
    if word not in ("a", "b", "tie"):
        raise PydanticCustomError("better", f"expected a, b or tie, got {value!r}")
    return word


Truth = Annotated[StrictBool, BeforeValidator(_truth)]
Verdict = Annotated[Better, BeforeValidator(_verdict)]


class ShowRecord(BaseModel):
    """A line of a judge-pipeline file: an answer, and whether it should be shown."""

    id: Id
    question: Text
    context: Text
    answer: Text
    ground_truth_show: Truth

    def to_item(self) -> ShowItem:
        return ShowItem(id=self.id, question=self.question, context=self.context, answer=self.answer,
                        show=self.ground_truth_show)


class RatedRecord(BaseModel):
    """A line of answers to rate: the texts a rating does not read may be left out (`_needing` requires the
    ones it does)."""

    id: Id
    question: OptionalText = None
    context: OptionalText = None
    answer: OptionalText = None
    reference: OptionalText = None
    ground_truth_show: Truth | None = None
    labels: Labels | None = None

    def to_item(self) -> RatedItem:
        return RatedItem(id=self.id, question=self.question or "", context=self.context or "",
                         answer=self.answer or "", reference=self.reference or "", show=self.ground_truth_show,
                         labels=sorted_labels(self.labels))


@functools.cache
def _needing(needs: tuple[str, ...]) -> type[RatedRecord]:
    """The rated record whose texts in `needs` must say something."""
    # mypy matches a **dict against create_model's every keyword (__doc__: str, __config__...), not its fields alone
    needing: type[RatedRecord] = create_model(  # type: ignore[call-overload]
        "RatedRecordNeeding", __base__=RatedRecord, **{name: (Text, ...) for name in needs})
    return needing


class PairRecord(BaseModel):
    """A line of answer pairs, labelled with the better one when `better` is given."""

    id: Id
    question: Text
    context: Text
    answer_a: Text
    answer_b: Text
    better: Verdict | None = None

    def to_pair(self) -> AnswerPair:
        return AnswerPair(id=self.id, question=self.question, context=self.context, answer_a=self.answer_a,
                          answer_b=self.answer_b, better=self.better)


Record = TypeVar("Record", ShowRecord, RatedRecord, PairRecord)


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
    return [record.to_item() for record in _records(path, ShowRecord, REQUIRED, "the judge-pipeline tier", data)]


def load_rated_items(path: Path, needs: Sequence[str], needed_by: str, data: bytes | None = None) -> list[RatedItem]:
    """Items whose every line has the fields in `needs` (besides `id`); `needed_by` names who reads them."""
    return [record.to_item()
            for record in _records(path, _needing(tuple(needs)), ("id", *needs), needed_by, data)]


def load_pairs(path: Path, data: bytes | None = None) -> list[AnswerPair]:
    return [record.to_pair() for record in _records(path, PairRecord, PAIR_FIELDS, "bench judge --pairwise", data)]


def _records(path: Path, model: type[Record], required: Sequence[str], needed_by: str,
             data: bytes | None = None) -> list[Record]:
    """Every line as its record, with a unique id, once no line lacks a required field (else one error for the
    file, so the user adds the fields in one go)."""
    lines = list(read_jsonl(path, data))
    _refuse_lacking(path, lines, required, needed_by)
    seen: dict[str, int] = {}
    records = []
    for line, raw in lines:
        record = validate(model, raw, path, line)
        unique_id(seen, record.id, path, line, "id")
        records.append(record)
    if not records:
        raise InputError(path, "no items")
    return records


def _refuse_lacking(path: Path, lines: Sequence[tuple[int, dict[str, Any]]], required: Sequence[str],
                    needed_by: str) -> None:
    """One error at the first line lacking a required field, naming every field some line lacks."""
    lacking = {line: missing for line, record in lines
               if (missing := [name for name in required if record.get(name) is None])}
    if lacking:
        fields = [name for name in required if any(name in missing for missing in lacking.values())]
        more = f" (on {len(lacking)} lines; the first is shown)" if len(lacking) > 1 else ""
        raise InputError(path, f"missing field(s) {needed_by} needs: {', '.join(fields)}{more}", line=min(lacking))
