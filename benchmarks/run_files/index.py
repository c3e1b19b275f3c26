"""The append-only index of runs (`<reports_dir>/index.jsonl`) that `bench nightly` keeps and its trends read.

Each line is flushed and synced as it is written and the file is never rewritten, so a crash can at
most cut the last line short, and a reader skips such a line rather than failing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from benchmarks.errors import BenchError, first_problem
from benchmarks.run_files.index_line import INDEX_LINE, IndexLine

INDEX_FILE = "index.jsonl"


def index_path(reports_dir: Path) -> Path:
    return reports_dir / INDEX_FILE


def append_index(path: Path, line: IndexLine) -> None:
    """One JSON line, flushed and synced at once; the file is only ever appended to."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        out.flush()
        os.fsync(out.fileno())


def read_index(path: Path) -> list[IndexLine]:
    """The index's lines in file order. A line cut short by a crash is skipped, not fatal; a line that is JSON
    but no index line (a key no line declares, a value of the wrong type, a key missing) is refused in one line
    naming the file and the line."""
    if not path.is_file():
        return []
    lines = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            lines.append(INDEX_LINE.validate_json(text))
        except ValidationError as exc:
            if exc.errors()[0]["type"] == "json_invalid":
                continue
            raise BenchError(f"{path}:{number}: not a line of bench's run index ({first_problem(exc)})") from None
    return lines
