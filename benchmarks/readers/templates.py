"""Template files: bench's own, shipped inside the package, and the ones a user names.

Read from the installed package (`importlib.resources`), so a wheel and a checkout agree; a user's
file that is missing or not UTF-8 is one error naming it, never a traceback.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

from benchmarks.errors import BenchError


@cache
def packaged(*parts: str) -> bytes:
    """The bytes of a file under `benchmarks/`, e.g. packaged("prompts", "en", "statements.txt")."""
    return files("benchmarks").joinpath(*parts).read_bytes()


def user_file(path: Path, what: str) -> str:
    """A template the user named (`what` says which, e.g. "prompt template"), as text."""
    if not path.is_file():
        raise BenchError(f"{path}: {what} not found")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BenchError(f"{path}: {what} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


@dataclass(frozen=True)
class Template:
    """A `str.format` prompt template: its text, where it came from and the placeholders it uses."""

    text: str
    source: str  # "bench:<language>" or the user's file name, never a machine path
    sha256: str
    fields: frozenset[str]


def prompt_template(path: Path | None, default: tuple[str, ...], *, what: str, language: str) -> Template:
    """The user's template (`path`), or bench's own (`default`, the parts of a packaged file), checked to be a
    valid template; which placeholders it may use is the caller's rule."""
    if path is None:
        raw, source = packaged(*default).decode("utf-8"), f"bench:{language}"
    else:
        raw, source = user_file(path, what), path.name
    try:
        fields = frozenset(name for _, name, _, _ in string.Formatter().parse(raw) if name is not None)
    except ValueError as exc:
        raise BenchError(f"{source}: not a valid template ({exc}); write literal braces as {{{{ and }}}}") from None
    return Template(raw, source, hashlib.sha256(raw.encode("utf-8")).hexdigest(), fields)
