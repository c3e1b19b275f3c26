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
import pickle
import subprocess
import sys
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any, Protocol

from benchmarks.machine import usable_cores
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
def surveying(path: Path, model: type[Any]) -> Iterator[subprocess.Popen[bytes] | None]:
    """A survey of the questions file `path` (records of `model`, named to the worker by module and name) started
    in a second interpreter (`python -m` this module: a fresh process imports nothing of its parent's, so it also
    serves a script without a main guard), or None where one does not pay (a small file, one core). The process
    never outlives the block: a corpus that fails first ends it at once."""
    if not path.is_file() or path.stat().st_size < WORTH_A_PROCESS or usable_cores() < 2:
        yield None
        return
    worker = subprocess.Popen([sys.executable, "-m", __name__, str(path), f"{model.__module__}:{model.__qualname__}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        yield worker
    finally:
        worker.kill()
        worker.wait()
        if worker.stdout:
            worker.stdout.close()


def surveyed(worker: subprocess.Popen[bytes]) -> Survey:
    """The worker's survey; `Unhandled` for anything it could not vouch for (the one-process read then gives the
    result, or the located error)."""
    out, _ = worker.communicate()
    if worker.returncode != 0:
        raise Unhandled
    found: Survey = pickle.loads(out)
    return found


if __name__ == "__main__":  # the worker: its survey pickled by the module's own name, as the loader knows it
    import importlib

    from benchmarks.readers import survey as module

    declared_in, name = sys.argv[2].split(":")
    try:
        result = module.survey(Path(sys.argv[1]), getattr(importlib.import_module(declared_in), name))
    except Unhandled:
        sys.exit(1)
    sys.stdout.buffer.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
