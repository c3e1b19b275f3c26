"""What a tier is: metadata plus a run function from a context to results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from benchmarks.config import Settings
from benchmarks.dataset import Dataset, Warning
from benchmarks.metrics.stats import Summary

if TYPE_CHECKING:  # the journal's module writes files through reports, which imports this one
    from benchmarks.services.run_journal import RunJournal


@dataclass(frozen=True)
class Metric:
    """One reported number. `higher_is_better` is None for descriptive numbers (geometry)."""

    value: float | int | None
    n: int
    errors: int = 0
    ci95: tuple[float, float] | None = None
    higher_is_better: bool | None = True

    @classmethod
    def from_summary(cls, summary: Summary, *, higher_is_better: bool | None = True) -> Metric:
        return cls(summary.value, summary.n, summary.errors, summary.ci95, higher_is_better)


@dataclass
class TierResult:
    metrics: dict[str, Metric]
    items: list[dict[str, Any]]
    notes: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    volatile: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    warnings: list[Warning] = field(default_factory=list)


@dataclass
class RunContext:
    settings: Settings
    dataset: Dataset
    progress: Progress
    dataset_dir: Path | None = None  # where the dataset was read from: its side files (logs.jsonl) live there
    journal: RunJournal | None = None  # resumable tiers append each finished item here and skip restored ones


@dataclass(frozen=True)
class ReportKind:
    """What a report says it is: the key `bench compare` uses to refuse unlike reports."""

    name: str
    version: str
    title: str
    main_metric: str


@dataclass(frozen=True)
class Tier(ReportKind):
    run: Callable[[RunContext], TierResult]
    resumable: bool = False  # its items cost calls: each is journaled as it finishes and --resume skips it
