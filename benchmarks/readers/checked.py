"""A large dataset, once read and checked, kept in data_dir by the bytes it was read from and the code that read
it: at a million chunks and 1.4 million questions a rerun reads the kept copy in about four seconds (while the
files hash), where parsing and validating every line again takes 25.

The key is the sha256 of every file the loader reads (corpus.jsonl, questions.jsonl, manifest.json: hashed side
by side, about two seconds at a million chunks), the folder, the dataset's name, the `--limit` sample, and the
source of bench itself with the versions of Python and pydantic, so a copy is only read back by the very code that
would have produced it from the very same bytes: what a run reports is what reading the files would have given.
The copy is in `marshal`'s format (plain strings, numbers, lists and dicts: nothing in it runs code when read),
written whole under a temporary name and renamed; one that cannot be read is ignored. A file that changes while
it is read is not kept. Each dataset name keeps one copy: a run with another sample or edited files replaces it.

Only sets of `KEPT_FROM_BYTES` or more are kept; below that, reading the files is about as fast.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pydantic
import pydantic_core

from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.inputs import Limit, Sampling, Warning

KEPT_FROM_BYTES = 64 << 20  # a set whose files hold fewer bytes is read from them each time
FOLDER = "datasets"  # under data_dir
FILES = ("corpus.jsonl", "questions.jsonl", "manifest.json")  # what the bench-format loader reads
_PACKAGE = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def kept_or_read(root: Path, name: str, sample: Sampling | None, data_dir: Path, read: Callable[[], Dataset]
                 ) -> Dataset:
    """The bench-format dataset in `root`, from its kept copy when one was written from these bytes, else `read()`
    and kept for the next run. The name's copy is read while the files are hashed (hashing lets go of the GIL), and
    used only if its key is the one the hashes make."""
    files = [root / f for f in FILES if (root / f).is_file()]
    if sum(f.stat().st_size for f in files) < KEPT_FROM_BYTES:
        return read()
    folder, prefix = data_dir / FOLDER, _name_hash(name)
    copies = sorted(folder.glob(f"{prefix}-*.marshal")) if folder.is_dir() else []
    hashes, kept = _hashed_beside(files, lambda: _read(copies[0], name) if copies else None)
    path = folder / f"{prefix}-{_key(root, name, sample, hashes)}.marshal"
    if kept is not None and copies[0] == path:
        return kept
    kept = None  # not held while the files are read
    dataset = read()
    if _hashed_beside(files, lambda: None)[0] == hashes:  # the bytes read are the bytes the key names
        _write(path, dataset)
    return dataset


def _hashed_beside(files: Sequence[Path], work: Callable[[], T]) -> tuple[list[tuple[str, str]], T]:
    """Each file's name and sha256, the files hashed side by side in threads while `work` runs here (hashlib lets
    go of the GIL on large blocks); and what `work` gave."""
    with ThreadPoolExecutor(len(files), thread_name_prefix="hashing") as pool:
        hashing = pool.map(_sha256, files)
        done = work()
        return list(zip([f.name for f in files], hashing, strict=True)), done


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _key(root: Path, name: str, sample: Sampling | None, hashes: list[tuple[str, str]]) -> str:
    """The folder is in it as well as the bytes: a warning may name the file it was read from."""
    drawn = None if sample is None else [sample.n, sample.seed]
    return hashlib.sha256(marshal.dumps([_code(), str(root.resolve()), name, drawn, hashes])).hexdigest()


@cache
def _code() -> str:
    """What decides how the files are read: bench's source, Python's version (marshal's format with it) and
    pydantic's."""
    digest = hashlib.sha256(f"{sys.version}\0{pydantic.VERSION}\0{pydantic_core.__version__}\0".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _name_hash(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _write(path: Path, dataset: Dataset) -> None:
    """Keep the dataset (with its corpus digest, which the store compares) in place of the name's older copy; a disk
    that refuses costs the next run a read of the files, not this run anything."""
    chunks = dataset.chunks
    value = {
        "set": [dataset.name, dataset.version, dataset.language, dataset.format, dataset.content_sha256],
        "warnings": [[w.code, w.message, w.count, list(w.examples)] for w in dataset.warnings],
        "limit": None if dataset.limit is None else [dataset.limit.n, dataset.limit.of, dataset.limit.seed],
        "chunks": [[c.id for c in chunks], [c.text for c in chunks], [c.title for c in chunks],
                   [c.url for c in chunks], [c.topic for c in chunks]],
        "questions": [[q.id, q.text, q.relevant, list(q.relevant_urls), q.reference_answer, q.topic, q.variant,
                       list(q.responses)] for q in dataset.questions],
        "corpus_digest": dataset.corpus_digest,
    }
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob(f"{path.name.split('-')[0]}-*.marshal"):
            old.unlink(missing_ok=True)
        with partial.open("wb") as handle:
            marshal.dump(value, handle)
        os.replace(partial, path)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _read(path: Path, name: str) -> Dataset | None:
    try:
        value: Any = marshal.loads(path.read_bytes())  # from a file, marshal reads each string by its own call
        kept_name, version, language, format_, content = value["set"]
        dataset = Dataset(
            name=kept_name, version=version, language=language, format=format_, content_sha256=content,
            warnings=tuple(Warning(code, message, count, tuple(examples))
                           for code, message, count, examples in value["warnings"]),
            limit=None if value["limit"] is None else Limit(*value["limit"]),
            chunks=tuple(map(Chunk, *value["chunks"])),
            questions=tuple(Question(qid, text, relevant, tuple(urls), reference, topic, variant, tuple(responses))
                            for qid, text, relevant, urls, reference, topic, variant, responses
                            in value["questions"]),
        )
    except (OSError, EOFError, ValueError, TypeError, KeyError):
        return None
    if kept_name != name:
        return None
    # the digest the store compares, computed by the run that kept the copy: the cached_property's own slot
    object.__setattr__(dataset, "corpus_digest", value["corpus_digest"])
    return dataset
