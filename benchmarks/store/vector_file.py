"""A space's vectors kept in files beside the database, so the next run's exact search memory-maps them instead of
reading them out of PostgreSQL again (13 s for the 1.5 GB of a million chunks; mapping them takes milliseconds).

A pair of files is named by the space and its `VectorStore.rows_key`: the digest of the corpus its rows were made
equal to and a token every sync that writes rows draws anew. A file is therefore only ever read while the table
holds exactly the rows it was written from: a changed corpus has another digest, rewritten rows another token, and
a space of another server (the same corpus embedded elsewhere) another token again. `vectors.npy` holds the
vectors in the table's order as read; `places.npy` each one's index in the corpus, whose chunk ids and urls the
digest vouches for. A file that cannot be read whole, or is not the shape the corpus calls for, is ignored, and the
vectors are read from the database as before.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FOLDER = "vectors"  # under data_dir


@dataclass(frozen=True)
class KeptVectors:
    matrix: np.ndarray  # (rows, dimension) float32, memory-mapped read-only
    places: np.ndarray  # each row's index in the corpus


def read(data_dir: Path, space_id: int, key: str, rows: int, dimension: int) -> KeptVectors | None:
    """The space's kept vectors under `key`, or None when there are none that fit a corpus of `rows` chunks."""
    vectors, places = _paths(data_dir, space_id, key)
    try:
        matrix = np.load(vectors, mmap_mode="r")
        where = np.load(places)
    except (OSError, ValueError, EOFError):
        return None
    if (matrix.dtype != np.float32 or matrix.shape != (rows, dimension) or where.shape != (rows,)
            or where.dtype != np.int64 or (rows and (where.min() < 0 or where.max() >= rows))):
        return None
    return KeptVectors(matrix, where)


def write(data_dir: Path, space_id: int, key: str, matrix: np.ndarray, places: np.ndarray) -> bool:
    """Keep the space's vectors under `key`, replacing what was kept for it before; False when the disk refused
    (a full disk costs the next run a read from the database, not this run its results). Each file is written
    whole under a temporary name first, the places last, so a reader never maps half a file."""
    folder = data_dir / FOLDER
    wanted = _paths(data_dir, space_id, key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob(f"space{space_id}-*.npy"):
            if old not in wanted:
                old.unlink(missing_ok=True)
        for path, values in zip(wanted, (matrix, places), strict=True):
            partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
            try:
                with partial.open("wb") as handle:
                    np.save(handle, np.ascontiguousarray(values))
                os.replace(partial, path)
            finally:
                with contextlib.suppress(OSError):
                    partial.unlink(missing_ok=True)
    except OSError:
        return False
    return True


def forget(data_dir: Path, space_id: int) -> None:
    """Remove what was kept for a space (a dropped one: its id is never given again, its files never read)."""
    folder = data_dir / FOLDER
    if folder.is_dir():
        for kept in folder.glob(f"space{int(space_id)}-*.npy"):
            kept.unlink(missing_ok=True)


def _paths(data_dir: Path, space_id: int, key: str) -> tuple[Path, Path]:
    stem = data_dir / FOLDER / f"space{int(space_id)}-{key}"
    return stem.with_name(f"{stem.name}.vectors.npy"), stem.with_name(f"{stem.name}.places.npy")
