"""What every tier reads, whatever its kind: a named input set, hashed on the one read that loaded it.

A report's `dataset` block is the set's identity (name, language, format, content sha256 and its
counts), so `bench compare` and `--resume` compare runs only over the same bytes. A set cut down by
`--limit` says so in that block too, so a limited run is never taken for (or resumed as) a full one.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Generic, Self, TypeVar

T = TypeVar("T")
ITEM_TEXTS = ("question", "context", "answer", "answer_a", "answer_b", "reference")  # what judges read of an item


@dataclass(frozen=True)
class Warning:
    """A problem in the data that does not stop the run but must be seen in the report."""

    code: str
    message: str
    count: int
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class Limit:
    """A run on `n` of a set's `of` items, drawn with `seed`: enough to redraw exactly the same items."""

    n: int
    of: int
    seed: int


@dataclass(frozen=True)
class Sampling:
    """A run's `--limit n` with its `--seed`, asked of a loader that can draw the sample while it reads (a dataset's
    questions), so the units left out are never held; what it returns equals the whole set's `sample(n, seed)`."""

    n: int
    seed: int


@dataclass(frozen=True, kw_only=True)
class InputSet:
    name: str
    format: str
    content_sha256: str
    language: str = ""
    warnings: tuple[Warning, ...] = ()
    limit: Limit | None = None  # set by `sample` when it dropped items
    # the field holding what `sample` draws (questions, samples, items); "" when a set cannot be limited
    unit: ClassVar[str] = ""

    def counts(self) -> dict[str, object]:
        """What the set holds, by kind (documents and questions, samples, items)."""
        return {}

    def unit_texts(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each unit's id and the texts a judge reads of it, for telling their language; none for a set whose
        language is declared or detected where it is loaded (a dataset)."""
        return []

    def report_block(self) -> dict[str, object]:
        limit = {"limit": asdict(self.limit)} if self.limit else {}
        return {"name": self.name, "language": self.language, "format": self.format,
                "content_sha256": self.content_sha256, **self.counts(), **limit}

    def sample(self, n: int, seed: int) -> Self:
        """The set with a seeded sample of `n` of its units, in their original order (everything else, e.g. a
        dataset's corpus, kept whole). A sample that would drop nothing returns the set itself, unmarked: its
        report then is, and resumes as, a full run's."""
        if not self.unit:
            raise TypeError(f"{type(self).__name__} has nothing to sample")
        units = getattr(self, self.unit)
        if n >= len(units):
            return self
        kept = tuple(units[i] for i in seeded_indices(len(units), n, seed))
        changes: dict[str, Any] = {self.unit: kept}  # the field named by `unit`, whichever it is
        return replace(self, **changes, limit=Limit(n, len(units), seed))


def seeded_indices(total: int, n: int, seed: int) -> list[int]:
    """`n` distinct indices below `total`, ascending, the same for the same seed (stdlib, so light modules
    that load inputs need no numpy)."""
    return sorted(random.Random(seed).sample(range(total), n))


@dataclass(frozen=True, kw_only=True)
class ItemSet(InputSet, Generic[T]):
    """Items of one JSONL file: samples to judge, answers to rate, answer pairs, show/no-show items."""

    items: tuple[T, ...]
    noun: str = "items"  # how the report counts them
    unit: ClassVar[str] = "items"

    def counts(self) -> dict[str, object]:
        return {self.noun: len(self.items)}

    def unit_texts(self) -> list[tuple[str, tuple[str, ...]]]:
        return [(str(getattr(item, "id", "")), tuple(value for name in ITEM_TEXTS
                                                     if isinstance(value := getattr(item, name, None), str)))
                for item in self.items]
