"""The append-only index of runs (`<reports_dir>/index.jsonl`) that `bench nightly` keeps and its trends read.

Each line is flushed and synced as it is written and the file is never rewritten, so a crash can at
most cut the last line short, and a reader skips such a line rather than failing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

INDEX_FILE = "index.jsonl"


def index_path(reports_dir: Path) -> Path:
    return reports_dir / INDEX_FILE


def append_index(path: Path, line: Mapping[str, Any]) -> None:
    """One JSON line, flushed and synced at once; the file is only ever appended to."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        out.flush()
        os.fsync(out.fileno())


def read_index(path: Path) -> list[dict[str, Any]]:
    """The index's lines in file order; a line cut short by a crash is skipped, not fatal."""
    if not path.is_file():
        return []
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            lines.append(value)
    return lines
