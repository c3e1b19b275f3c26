"""Files written whole or not at all."""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

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


def read_toml(path: Path, what: str, *, missing_ok: bool = False) -> dict[str, Any] | None:
    """A TOML file, parsed; `what` names it in errors ("gates file": "<path>: no such gates file",
    "<path>: unreadable gates file: <reason>"). With missing_ok, a file that does not exist gives None."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if missing_ok:
            return None
        raise BenchError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BenchError(f"{path}: unreadable {what}: {exc}") from None
