"""The one reader of a user's TOML file (bench.toml, a nightly suite, bench.gates.toml).

It sits beside config rather than in run_files.atomic because config reads bench.toml and the services
import config: below both, every TOML file fails the same way, as one line that names it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError


def read_toml(path: Path, what: str, *, missing_ok: bool = False) -> dict[str, Any] | None:
    """A TOML file, parsed; `what` names it in errors ("gates file": "<path>: no such gates file",
    "<path>: unreadable gates file: <reason>"). With missing_ok, a file that does not exist gives None."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM from a Windows editor is fine
    except FileNotFoundError:
        if missing_ok:
            return None
        raise BenchError(f"{path}: no such {what}") from None
    except UnicodeDecodeError as exc:  # saved in a legacy code page (cp1251, latin-1) by an old editor
        reason = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise BenchError(f"{path}: unreadable {what}: {reason}") from None
    except OSError as exc:
        raise BenchError(f"{path}: unreadable {what}: {exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BenchError(f"{path}: unreadable {what}: not valid TOML: {exc}") from None
