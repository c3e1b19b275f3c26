"""A large questions file surveyed in a second process while this one reads the corpus.

With `--limit`, a dataset keeps a few thousand of its questions, yet every line must still be validated (a bad
line anywhere stops the run) and every id checked unique: at a million chunks and 1.4 million questions that is
half the load, and it needs nothing the corpus gives. So a second process validates the questions file and
reports only what the loader draws from: how many questions, where each line starts and its checksum (to read the
drawn lines again and know them for the lines validated), every chunk id the questions judge (which the loader
checks against the corpus) and the sha256 of the bytes it read (which the loader checks against its own read, the
one that feeds the content hash). Anything else (an invalid line, a duplicate id, a judgment of a chunk the corpus
lacks, a file that changed between the two reads, a worker that failed) sends the loader to its one-process read,
which gives the same result or words the error.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any, Protocol

from benchmarks.readers.blocks import Unhandled, line_checksum, read_records

WORTH_A_PROCESS = 64 << 20  # bytes of questions from which a second process pays for its start (about a second)


class Judged(Protocol):
    id: str
    relevant: dict[str, int]


@dataclass(frozen=True)
class Survey:
    total: int
    starts: array[int]  # where each question's line starts in the file
    checksums: array[int]  # each line's crc32
    referenced: frozenset[str]  # every chunk id a question judges
    sha256: str  # of the file's bytes as read


def survey(path: Path, model: type[Any]) -> Survey:
    """Every line of `path` validated as `model`, its ids unique; `Unhandled` otherwise (run in the worker)."""
    gc.disable()  # millions of records, no cycles: see datasets._collection_paused
    own = hashlib.sha256()
    ids: set[str] = set()
    referenced: set[str] = set()
    starts, checksums = array("q"), array("L")
    for batch in read_records(path, model, [own], starts=True):
        records: list[Judged] = batch.records
        ids.update(map(attrgetter("id"), records))
        for record in records:
            referenced.update(record.relevant)
        starts.extend(batch.starts)
        checksums.extend(map(line_checksum, batch.lines))
    if not starts or len(ids) < len(starts):
        raise Unhandled
    return Survey(len(starts), starts, checksums, frozenset(referenced), own.hexdigest())


@contextmanager
def surveying(path: Path, model: type[Any]) -> Iterator[Any]:
    """A survey of `path` started in a second process, or None where one does not pay (a small file, one core).
    The process never outlives the block: a corpus that fails first ends it at once."""
    if not path.is_file() or path.stat().st_size < WORTH_A_PROCESS or _cores() < 2:
        yield None
        return
    pool = multiprocessing.get_context("spawn").Pool(1)
    try:
        yield pool.apply_async(survey, (path, model))
    finally:
        pool.terminate()
        pool.join()


def _cores() -> int:
    """The cores this process may run on (a container's or taskset's share, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def surveyed(pending: Any) -> Survey:
    """The worker's survey; `Unhandled` for anything it could not vouch for, whatever it raised (the one-process
    read then gives the result, or the located error)."""
    try:
        result: Survey = pending.get()
    except Exception:  # the worker's Unhandled, or its failure: either way, the loader reads the file itself
        raise Unhandled from None
    return result
