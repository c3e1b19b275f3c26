"""What a tier is: a declaration (name, version, input, the settings it reads, main metric) and its entry points.

The declaration is light (no heavy import), so the CLI builds every command's options from it and
`bench --help` starts without numpy, torch or the database. Its entry points (`run`, `check`, ...) are
methods a tier's declaration overrides with a body that imports the tier's module, so the heavy module is
imported only when the tier runs, while mypy (and a reader) follow the call into it.
"""

from __future__ import annotations

import itertools
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # the journal's module writes files through reports, which imports this one
    from benchmarks.config import Origins, ScopedSettings, Settings
    from benchmarks.inputs import InputSet, Sampling, Warning
    from benchmarks.metrics.stats import Summary
    from benchmarks.progress import Bars
    from benchmarks.report_model import Notes, Provenance, Volatile
    from benchmarks.run_files.journal import RunJournal

Loaded = TypeVar("Loaded", bound="InputSet", covariant=True)  # the kind of set an input kind's loader returns
Input = TypeVar("Input", bound="InputSet")  # the set a tier reads

@dataclass(frozen=True)
class Metric:
    """One reported number. `higher_is_better` is None for descriptive numbers (geometry)."""

    value: float | int | None
    n: int
    errors: int = 0
    ci95: tuple[float, float] | None = None
    higher_is_better: bool | None = True
    # with human labels (bench evaluate, bench judge): the judge's agreement with them (metrics.label_agreement);
    # absent from the report when None
    agreement: dict[str, Any] | None = None

    @classmethod
    def from_summary(cls, summary: Summary, *, higher_is_better: bool | None = True) -> Metric:
        return cls(summary.value, summary.n, summary.errors, summary.ci95, higher_is_better)


@dataclass
class TierResult:
    """What a tier ran and found. Its blocks are the report's own models (benchmarks.report_model), so a key no
    block declares fails where the tier writes it; bench adds its own provenance and volatile keys beside them."""

    metrics: dict[str, Metric]
    items: list[dict[str, Any]]
    notes: Notes
    provenance: Provenance
    volatile: Volatile
    files: dict[str, str] = field(default_factory=dict)
    warnings: list[Warning] = field(default_factory=list)
    main_metric: str | None = None  # when the run chose it (evaluate: its first metric), else the tier's
    # the real-user log the run read (ux, real-users): what its numbers are over, so it is part of the run's
    # identity as its dataset is (the report's `log` block, checked by `bench compare`)
    log: InputSet | None = None


@dataclass
class RunContext(Generic[Input]):
    settings: ScopedSettings  # only the settings the tier declared it reads
    inputs: Input  # what the tier's input kind loaded: a Dataset, SampleSet, ItemSet
    progress: Bars
    dataset_dir: Path | None = None  # where a dataset was read from: its side files (logs.jsonl) live there
    journal: RunJournal | None = None  # resumable tiers append each finished item here and skip restored ones


@dataclass(frozen=True)
class ReportKind:
    """What a report says it is: the key `bench compare` uses to refuse unlike reports."""

    name: str
    version: str
    title: str
    main_metric: str


@dataclass(frozen=True)
class InputKind(ABC, Generic[Loaded]):
    """What a tier reads through --dataset. Its `load` is a declaration's method whose body imports the loader of
    services, so the registry stays light; its type parameter is what that loader is annotated to return."""

    name: str
    help: str

    @abstractmethod
    def load(self, spec: str, settings: Settings, sample: Sampling | None) -> Loaded:
        """The set `spec` names, as `load(spec, settings).sample(sample.n, sample.seed)` when a sample is asked: a
        loader that can draw it as it reads, so the units left out are never held (a million-question dataset);
        any other set is drawn from once loaded (`sampled`)."""


def sampled(loaded: Input, sample: Sampling | None) -> Input:
    """A whole set, loaded, with the sample a run asks of it."""
    return loaded if sample is None else loaded.sample(sample.n, sample.seed)


@dataclass(frozen=True)
class Tier(ReportKind, ABC, Generic[Input]):
    """A report command. `reads` are the settings its run (and the services it opens) read: the only ones its
    report shows and a resumed run must match; `flags` names a setting's option where the command calls it
    differently. A tier's declaration is a subclass whose `run` (and, if it has them, `check`, `check_inputs`,
    `identity`) imports the tier's module in its body: a module that leaves out the run's heavy imports (scipy, the
    database, torch) for its checks, when it has one, keeps a refused command well under a second."""

    input: InputKind[Input]
    summary: str = ""
    metrics: tuple[str, ...] = ()  # the names its report may hold; "{setting}" stands for each of its values
    reads: tuple[str, ...] = ()
    flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    resumable: bool = False  # its items cost calls: each is journaled as it finishes and --resume skips it
    command: str = ""  # the bench command that runs it, when not its name (judge --pairwise)
    lists_lowest_items: bool = False  # its report.md lists each metric's lowest-scoring items, with their why

    @property
    def invocation(self) -> str:
        return self.command or self.name

    def metric_names(self, settings: Settings) -> frozenset[str]:
        """The declared metrics with their placeholders filled from the run's settings (`{judges}`: the judge
        models, as the run picks them)."""
        names: set[str] = set()
        for pattern in self.metrics:
            fields = re.findall(r"{(\w+)}", pattern)
            for values in itertools.product(*(_values(settings, f) for f in fields)):
                names.add(pattern.format_map(dict(zip(fields, values, strict=True))))
        return frozenset(names)

    def require_declared(self, result: TierResult, settings: Settings) -> None:
        """A report holds only the metrics its tier declares, its main one among them: a number the
        declaration does not name would reach reports, compare and the docs unannounced. A bug of the tier,
        so it stops the run before anything is written."""
        declared = self.metric_names(settings)
        undeclared = sorted(set(result.metrics) - declared)
        main = result.main_metric or self.main_metric
        if undeclared or main not in declared:
            raise UndeclaredMetric(f"tier {self.name} publishes metrics its declaration (benchmarks.tiers) does "
                                   f"not name: {undeclared or [main]}")

    @abstractmethod
    def run(self, ctx: RunContext[Input]) -> TierResult:
        """The tier's work on its input: the module's `run(ctx)`."""

    def identity(self, settings: Settings) -> dict[str, Any]:
        """What else a resumed run must match beyond the settings: the content of files they name. None here."""
        return {}

    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        """Refuses, before any input is read, what the run could not do; `origins`: where each setting came from,
        to name a refused one as the user gave it. Nothing is refused here."""

    def check_inputs(self, settings: ScopedSettings, inputs: Input) -> list[str]:
        """What the run's input lacks, refused before any work (an error) or said up front (the lines returned).
        Nothing is lacked here."""
        return []


class UndeclaredMetric(RuntimeError):
    """A tier's result holds a metric its declaration does not name (a bug of bench, not of the input)."""


def _values(settings: Any, name: str) -> tuple[str, ...]:
    if name == "judges":  # imported here: the registry must stay light for the CLI
        from benchmarks.chat.request import judge_models

        return judge_models(settings)
    value = getattr(settings, name)
    return tuple(value) if isinstance(value, tuple) else () if value is None else (str(value),)
