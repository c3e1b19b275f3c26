"""Errors a user can act on.

Anything raised as a `BenchError` is printed as one clear line (no traceback) and ends the
process with exit code 2; everything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path


class BenchError(Exception):
    """A problem with the user's input, configuration or environment."""

    exit_code = 2


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
