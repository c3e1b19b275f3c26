"""Files written whole or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.errors import BenchError


def atomic_write(path: Path, content: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(content)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide reports from teammates and CI readers
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_file(path: Path, content: str) -> None:
    """atomic_write, creating the missing parent folders first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, content)


def check_writable_folder(path: Path, name: str) -> None:
    """Refuse, before any work, a folder bench could not create or write in, naming the flag or setting.

    Tried for real (a temporary folder made and removed in the folder, or in its nearest existing ancestor),
    because permission bits lie: root passes every access() check, /proc and read-only mounts refuse anyway.
    Nothing is left behind, so a run refused later leaves no empty folder."""
    existing = path.absolute()
    while not os.path.lexists(existing) and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        where = "is" if existing == path.absolute() else f"cannot hold a folder: {existing} is"
        raise BenchError(f"{name}: {path} {where} not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(dir=existing, prefix=".bench-write-check-"))
    except OSError as exc:
        raise BenchError(f"{name}: {path}: cannot create a folder in {existing} ({exc.strerror})") from None
