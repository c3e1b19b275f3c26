"""What a tier is: a declaration (name, version, input, the settings it reads, main metric) and a run function.

The declaration is light (no heavy import), so the CLI builds every command's options from it and
`bench --help` starts without numpy, torch or the database; the run function is imported only
when the tier runs.
"""

from __future__ import annotations

import importlib
import itertools
import re
from collections.abc import Callable, Mapping
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

LoadedSet = TypeVar("LoadedSet", bound="InputSet", covariant=True)  # the kind of set an input kind's loader returns


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
class RunContext:
    settings: ScopedSettings  # only the settings the tier declared it reads
    inputs: Any  # what the tier's input kind loaded: a Dataset, SampleSet, ItemSet
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
class InputKind(Generic[LoadedSet]):
    """What a tier reads through --dataset: its loader (a `module:function` of services, imported when used).
    `draws_while_reading`: the loader takes `sample=` and draws a --limit sample as it reads, so the units left out
    are never held (a million-question dataset); any other loader's set is sampled once loaded. Its type parameter is
    the set the loader returns, declared with the kind since the loader is named by a string."""

    name: str
    help: str
    loader: str
    draws_while_reading: bool = False

    def load(self, spec: str, settings: Any, sample: Sampling | None = None) -> LoadedSet:
        """The set `spec` names, as `load(spec, settings).sample(sample.n, sample.seed)` when a sample is asked."""
        module, function = self.loader.split(":")
        loader = getattr(importlib.import_module(module), function)
        if sample is not None and self.draws_while_reading:
            drawn: LoadedSet = loader(spec, settings, sample=sample)
            return drawn
        loaded: LoadedSet = loader(spec, settings)
        return loaded if sample is None else loaded.sample(sample.n, sample.seed)


@dataclass(frozen=True)
class Tier(ReportKind):
    """A report command. `reads` are the settings its run (and the services it opens) read: the only ones its
    report shows and a resumed run must match; `flags` names a setting's option where the command calls it
    differently; `check` refuses, before any input is read, what the run could not do."""

    input: InputKind[InputSet]
    summary: str = ""
    metrics: tuple[str, ...] = ()  # the names its report may hold; "{setting}" stands for each of its values
    reads: tuple[str, ...] = ()
    flags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    module: str = ""  # benchmarks.tiers.<module> holds run(ctx) and, if any, check(settings, origins)
    # benchmarks.tiers.<checks>, when given, holds check and check_inputs instead: a module that leaves out the
    # run's heavy imports (scipy, the database, torch), so a refused command costs well under a second of them
    checks: str = ""
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

    def implementation(self) -> Any:
        return importlib.import_module(f"benchmarks.tiers.{self.module}")

    def run(self, ctx: RunContext) -> TierResult:
        result: TierResult = self.implementation().run(ctx)
        return result

    def identity(self, settings: Settings) -> dict[str, Any]:
        """What else a resumed run must match beyond the settings: the content of files they name (the module's
        `identity(settings)`, if it has one)."""
        identity: Callable[[Settings], dict[str, Any]] | None = getattr(self.implementation(), "identity", None)
        return {} if identity is None else identity(settings)

    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        """`origins`: where each setting came from, to name a refused one as the user gave it."""
        check: Callable[[Settings, Origins], None] | None = getattr(self._checks(), "check", None)
        if check is not None:
            check(settings, origins)

    def check_inputs(self, settings: ScopedSettings, inputs: InputSet) -> list[str]:
        """What the run's input lacks, refused before any work (an error) or said up front (the lines returned):
        the module's `check_inputs(settings, inputs)`, if it has one."""
        check: Callable[[Settings, InputSet], list[str]] | None = getattr(self._checks(), "check_inputs", None)
        return [] if check is None else check(settings, inputs)

    def _checks(self) -> Any:
        return importlib.import_module(f"benchmarks.tiers.{self.checks or self.module}")


class UndeclaredMetric(RuntimeError):
    """A tier's result holds a metric its declaration does not name (a bug of bench, not of the input)."""


def _values(settings: Any, name: str) -> tuple[str, ...]:
    if name == "judges":  # imported here: the registry must stay light for the CLI
        from benchmarks.chat.request import judge_models

        return judge_models(settings)
    value = getattr(settings, name)
    return tuple(value) if isinstance(value, tuple) else () if value is None else (str(value),)
