"""Find the files bench ships beside its code (migrations, datasets).

In a checkout (editable install) they sit at the repository root; in a wheel they are packed
under benchmarks/_shipped. One lookup serves both so nothing else cares how bench was installed.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.errors import BenchError

_PACKAGE = Path(__file__).resolve().parent


def shipped_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_shipped" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise BenchError(f"bench's '{name}' folder is missing from this installation; reinstall bench")
