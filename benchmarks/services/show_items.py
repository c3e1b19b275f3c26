"""Load labelled show/no-show items for the production-judge tier (seed 004 §9).

One JSON object per line: `id`, `question`, `context`, `answer`, `ground_truth_show` (true/false,
or yes/no, да/нет). A line without the fields the tier needs is one error that lists them all, so a
user fixes the file in one go.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.dataset import Warning
from benchmarks.errors import BenchError, InputError
from benchmarks.services.datasets import SHIPPED, _read_jsonl, _string, _unique
from benchmarks.services.shipped import shipped_dir

FILE_NAME = "judge_pipeline.jsonl"
REQUIRED = ("id", "question", "context", "answer", "ground_truth_show")
_TRUTH = {"true": True, "yes": True, "да": True, "1": True, "false": False, "no": False, "нет": False, "0": False}


@dataclass(frozen=True)
class ShowItem:
    id: str
    question: str
    context: str
    answer: str
    show: bool


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


def resolve(spec: str) -> Path:
    """A shipped dataset's items, a folder holding judge_pipeline.jsonl, or a JSONL file."""
    path = shipped_dir("datasets") / spec / FILE_NAME if spec in SHIPPED else Path(spec)
    if path.is_dir():
        path = path / FILE_NAME
    if not path.is_file():
        raise BenchError(f"{path}: no such file (give a .jsonl of show/no-show items, or a dataset folder "
                         f"that holds {FILE_NAME})")
    return path


def load_show_items(path: Path) -> list[ShowItem]:
    seen: dict[str, int] = {}
    items = []
    for line, record in _read_jsonl(path):
        missing = [name for name in REQUIRED if record.get(name) is None]
        if missing:
            raise InputError(path, f"missing field(s) the judge-pipeline tier needs: {', '.join(missing)}",
                             line=line)
        item_id = _string(record, "id", path, line, required=True)
        _unique(seen, item_id, path, line, "id")
        items.append(ShowItem(
            id=item_id,
            question=_string(record, "question", path, line, required=True),
            context=_string(record, "context", path, line, required=True),
            answer=_string(record, "answer", path, line, required=True),
            show=_truth(record["ground_truth_show"], path, line),
        ))
    if not items:
        raise InputError(path, "no items")
    return items


def _truth(value: object, path: Path, line: int) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if word not in _TRUTH:
        raise InputError(path, f"expected true/false (or yes/no, да/нет), got {value!r}", line=line,
                         field="ground_truth_show")
    return _TRUTH[word]
