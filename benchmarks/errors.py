"""Errors a user can act on.

Anything raised as a `BenchError` is printed as one clear line (no traceback) and ends the
process with exit code 2; everything else is a bug and keeps its traceback. A mistyped name is
answered with the known names closest to it (`closest`), whatever kind of name it is.
"""

from __future__ import annotations

import difflib
import signal
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # this module stays light: every command imports it
    from pydantic import ValidationError
    from pydantic_core import ErrorDetails

TERMINATION_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # `kill`, a closed terminal or ssh session
CLOSE = 0.6  # difflib's cutoff: names less alike than this share too little for one to be a typo of the other


class BenchError(Exception):
    """A problem with the user's input, configuration or environment."""

    exit_code = 2


class SettingError(BenchError):
    """A setting's value refused where it is checked, which does not know how the user gave it: a flag, a
    Python argument, a variable, a bench.toml key. What does know (`config.Origins.naming`, around a run) names
    it that way, so the check's wording is written once for the command line and the Python API; unnamed, it
    says the setting."""

    def __init__(self, setting: str, problem: str):
        self.setting, self.problem = setting, problem
        super().__init__(f"{setting}: {problem}")


class InputError(BenchError):
    """Bad input data, located by file, line and field so the user can fix it at once."""

    def __init__(self, path: Path | str, message: str, *, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.detail = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field '{field}': {message}" if field else message
        super().__init__(f"{where}: {what}")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run whose finished items are kept: says where, and how to go on.

    A KeyboardInterrupt, so that whatever runs tiers in a loop (bench nightly) stops too."""

    def __init__(self, directory: Path, finished: int, command: str, dataset: str):
        self.directory, self.finished, self.command, self.dataset = directory, finished, command, dataset
        super().__init__(f"interrupted: {finished} finished item(s) kept in {directory / 'items.jsonl'}")


DISTRIBUTION = "tierbench"  # the name bench installs under (pyproject.toml); `bench` on the index is another project


def extra_hint(extra: str) -> str:
    """How to install one of bench's extras, installed or in a checkout: the name must be bench's own, since
    `pip install 'bench[...]'` would fetch an unrelated package."""
    return f"pip install '{DISTRIBUTION}[{extra}]' (in a checkout: .venv/bin/pip install -e '.[{extra}]')"


def by_closeness(name: str, known: Iterable[str]) -> list[str]:
    """Every known name, those most like `name` first (ties keep their order): a list of choices a mistyped
    name leads with what was probably meant."""
    return sorted(known, key=lambda candidate: -_likeness(name, candidate))


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The few known names alike enough to `name` to be what was meant, the closest first; none when none is,
    so that a message suggests a typo's fix rather than a random name."""
    return [candidate for candidate in by_closeness(name, known) if _likeness(name, candidate) >= CLOSE][:n]


def _likeness(name: str, candidate: str) -> float:
    return difflib.SequenceMatcher(None, name, candidate).ratio()


def interrupt_on_termination() -> None:
    """Make SIGTERM and SIGHUP stop bench as Ctrl-C does, instead of killing it on the spot.

    Killed on the spot, bench runs no `finally` and no atexit handler: the embedded PostgreSQL would
    outlive it and a run would not say what it kept. As a KeyboardInterrupt the signal takes Ctrl-C's
    path: finished items kept, the resume command printed, the server stopped at exit (exit code 130).
    A handler someone else installed (a signal already ignored, say) is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in TERMINATION_SIGNALS:
        if signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, _raise_interrupt)


def _raise_interrupt(number: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(number).name)


def first_problem(exc: ValidationError) -> str:
    """The first of pydantic's complaints about a file's content, as `field.path: message`."""
    error = exc.errors()[0]
    where = problem_path(error)
    return f"{where}: {error['msg']}" if where else error["msg"]


def problem_path(error: ErrorDetails) -> str:
    """Where in the document a complaint is, as a dotted path (empty for the document itself)."""
    return ".".join(str(part) for part in error["loc"])
