"""A large JSONL file read in blocks and validated many lines per call: the dataset loader's fast path at a million
lines.

The exact reader (`lines.read_jsonl`, `records.validate`, `lines.unique_id`) holds the whole file and goes line by
line in Python, which is what lets it name a problem's file, line and field. This one holds one block at a time,
hashes the bytes as they come, and hands a block's lines to pydantic in one call, each line still parsed as a JSON
document of its own (`Json[Model]`), so a record can never run across lines nor a line hold two.

It accepts only what the exact reader accepts, with the same values. Where jiter and `json.loads` differ, jiter is
the stricter and the line fails here: a lone surrogate escape ("\\ud800"), a BOM opening a later line, a line blank
only by Unicode's whitespace (U+00A0, U+001C) all raise `Unhandled`, as does any invalid JSON, any validation error
and bytes that are not UTF-8 (checked in jiter's strings and refused outside them). Duplicate keys (the last wins),
NaN and Infinity, big integers, "\\r\\n" line ends and trailing whitespace read the same in both (the tests hold
them to it). On `Unhandled` the caller reads the file the exact way, for its result or its located error.
"""

from __future__ import annotations

import codecs
import operator
import zlib
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, compress, count
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

from pydantic import BaseModel, Json, TypeAdapter, ValidationError

from benchmarks.errors import InputError

BLOCK_SIZE = 4 << 20  # bytes read at a time: large enough that a call validates thousands of lines
M = TypeVar("M", bound=BaseModel)


class Unhandled(Exception):
    """The fast reader met something only the exact one reads right: the caller reads the file that way."""


@dataclass(frozen=True)
class Batch(Generic[M]):
    """A block's records, their lines' bytes and (when asked for) where each line starts in the file."""

    records: list[M]
    lines: list[bytes]
    starts: list[int]


@cache
def _adapter(model: type[M]) -> TypeAdapter[list[M]]:
    """Each line validated as a JSON document of its own, a whole list of them in one call."""
    return TypeAdapter(list[Json[model]])  # type: ignore[valid-type]


def validated(model: type[M], lines: list[bytes]) -> list[M]:
    """The lines' records, or `Unhandled` at the first problem (the exact reader locates it)."""
    try:
        return _adapter(model).validate_python(lines)
    except ValidationError:
        raise Unhandled from None


def open_input(path: Path) -> BinaryIO:
    """An input file opened for reading in blocks (a missing one refused as `lines.read_file` refuses it)."""
    if not path.is_file():
        raise InputError(path, "file not found")
    return path.open("rb")


def read_records(path: Path, model: type[M], digests: Sequence[Any], *, starts: bool = False
                 ) -> Iterator[Batch[M]]:
    """The file's records, a block at a time, its bytes fed to `digests` (hashlib objects) as they are read."""
    with open_input(path) as handle, _Hashing(digests) as hashing:
        for offset, data in _blocks(handle, hashing):
            lines, line_starts = _nonblank(data, offset, starts)
            yield Batch(validated(model, lines), lines, line_starts)


def line_checksum(line: bytes) -> int:
    """What tells a line read again from the line first read (a crc32: the bytes are checked whole elsewhere)."""
    return zlib.crc32(line)


def reread(path: Path, starts: Sequence[int], checksums: Sequence[int]) -> list[bytes]:
    """The lines that start at `starts`, read again; `Unhandled` when one is no longer the line first read (its
    crc32), so what is parsed is always the bytes that were validated."""
    lines = []
    with open_input(path) as handle:
        for start, expected in zip(starts, checksums, strict=True):
            handle.seek(start)
            line = handle.readline().removesuffix(b"\n")
            if line_checksum(line) != expected:
                raise Unhandled
            lines.append(line)
    return lines


def _blocks(handle: BinaryIO, hashing: _Hashing) -> Iterator[tuple[int, bytes]]:
    """The file's complete lines, a block at a time, with the offset of the first; a BOM opening the file is
    hashed but not parsed (the exact reader drops it too)."""
    offset, tail = 0, b""
    while block := handle.read(BLOCK_SIZE):
        hashing.update(block)
        data = tail + block
        if offset == 0 and data.startswith(codecs.BOM_UTF8):
            offset, data = len(codecs.BOM_UTF8), data[len(codecs.BOM_UTF8):]
        cut = data.rfind(b"\n") + 1
        if cut:
            yield offset, data[:cut - 1]
        offset, tail = offset + cut, data[cut:]
    if tail:
        yield offset, tail


def _nonblank(data: bytes, offset: int, starts: bool) -> tuple[list[bytes], list[int]]:
    """The lines of `data` that are not blank by ASCII whitespace (one blank only by Unicode's fails to parse, for
    the exact reader to skip) and, if asked, where each starts in the file."""
    lines = data.split(b"\n")
    kept = list(map(bytes.strip, lines))
    if not starts:
        return list(compress(lines, kept)), []
    line_starts = map(operator.add, accumulate(map(len, lines), initial=offset), count())
    return list(compress(lines, kept)), list(compress(line_starts, kept))


class _Hashing:
    """Digests fed in a thread: hashlib releases the GIL on large buffers, so hashing runs beside the parse (one
    block at a time, in order)."""

    def __init__(self, digests: Sequence[Any]):
        self._digests = digests
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="hashing")
        self._pending: Future[None] | None = None

    def __enter__(self) -> _Hashing:
        return self

    def __exit__(self, *exc: object) -> None:
        self._wait()
        self._pool.shutdown()

    def update(self, block: bytes) -> None:
        self._wait()
        self._pending = self._pool.submit(self._feed, block)

    def _feed(self, block: bytes) -> None:
        for digest in self._digests:
            digest.update(block)

    def _wait(self) -> None:
        if self._pending is not None:
            self._pending.result()
            self._pending = None
