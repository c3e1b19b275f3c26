"""Reading a user's JSONL file line by line: bytes read once (parsed and hashed from the same bytes), each
line decoded and parsed with its number, ids unique within the file; every failure one InputError naming
the file and line. Shared by every reader of JSONL input."""

from __future__ import annotations

import io
import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.errors import InputError

BOM = "\ufeff"


def read_file(path: Path) -> bytes:
    """An input file's bytes, read once: parsed from memory and hashed from the same bytes."""
    if not path.is_file():
        raise InputError(path, "file not found")
    return path.read_bytes()


def read_jsonl(path: Path, data: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a file (or of its bytes already read), with their line numbers. The bytes are decoded
    in one call; only a file that is not UTF-8 is gone through line by line, to name the line."""
    raw = read_file(path) if data is None else data
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        with io.BytesIO(raw) as handle:
            for number, raw_line in enumerate(handle, start=1):
                decode_line(raw_line, path, number)
        raise
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(BOM):  # Windows editors and spreadsheets put one first (the hash covers it still)
            line = line[1:]
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not valid JSON ({json_problem(exc)})", line=number) from None
        if not isinstance(record, dict):
            raise InputError(path, "expected a JSON object", line=number)
        yield number, record


def decode_line(raw: bytes, path: Path, line: int) -> str:
    """A line of a user's text file; the UTF-8 BOM Windows editors and spreadsheets put first is dropped (the
    content hash still covers the bytes as read)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 (byte {exc.start + 1} of the line){_likely_encoding(raw, path)}",
                         line=line) from None


def _likely_encoding(raw: bytes, path: Path) -> str:
    """What the file probably is, and how to convert it: the Cyrillic code page Windows and Russian Excel save
    in when its bytes read as mostly Cyrillic letters there, else the Western one."""
    cyrillic = raw.decode("cp1251", errors="replace")
    letters = [c for c in cyrillic if c.isalpha() and not c.isascii()]
    encoding = "cp1251" if letters and sum("CYRILLIC" in unicodedata.name(c, "") for c in letters) > len(letters) / 2 \
        else "cp1252"
    return (f"; it looks like {encoding}: convert it with iconv -f {encoding} -t utf-8 {path.name} > "
            f"{path.stem}-utf8{path.suffix}")


def unique_id(seen: dict[str, int], key: str, path: Path, line: int, field: str) -> None:
    """An id may stand for one record of its file only (the record's model checks its form)."""
    if key in seen:
        raise InputError(path, f"duplicate id '{key}' (first on line {seen[key]})", line=line, field=field)
    seen[key] = line


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong and at which column, in one phrase: json's own messages may end in "at" ("Unterminated
    string starting at"), which must not read "starting at at column 7"."""
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
