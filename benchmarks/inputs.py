"""What every tier reads, whatever its kind: a named input set, hashed on the one read that loaded it.

A report's `dataset` block is the set's identity (name, language, format, content sha256 and its
counts), so `bench compare` and `--resume` compare runs only over the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Warning:
    """A problem in the data that does not stop the run but must be seen in the report."""

    code: str
    message: str
    count: int
    examples: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class InputSet:
    name: str
    format: str
    content_sha256: str
    language: str = ""
    warnings: tuple[Warning, ...] = ()

    def counts(self) -> dict[str, object]:
        """What the set holds, by kind (documents and questions, samples, items)."""
        return {}

    def report_block(self) -> dict[str, object]:
        return {"name": self.name, "language": self.language, "format": self.format,
                "content_sha256": self.content_sha256, **self.counts()}


@dataclass(frozen=True, kw_only=True)
class ItemSet(InputSet, Generic[T]):
    """Items of one JSONL file: samples to judge, answers to rate, answer pairs, show/no-show items."""

    items: tuple[T, ...]
    noun: str = "items"  # how the report counts them

    def counts(self) -> dict[str, object]:
        return {self.noun: len(self.items)}
