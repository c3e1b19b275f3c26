"""Run one tier: check -> input -> tier.run -> report files; journaled when its items cost calls.

Every report command goes through `run_tier`, so each gets the same sequence: its settings scoped
to those it declared, its input read once, progress on stderr, a run folder that exists from the
first finished item (resumable tiers), Ctrl-C turned into a resume hint, and one report writer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from benchmarks import input_language, local_judge
from benchmarks import report as report_doc
from benchmarks._version import __version__
from benchmarks.config import Origins, ScopedSettings, Settings
from benchmarks.console import ProgressLines, progress_interval
from benchmarks.errors import BenchError, RunInterrupted
from benchmarks.inputs import InputSet, Sampling
from benchmarks.readers.datasets import resolve
from benchmarks.report_model import Report, Resumed, Volatile
from benchmarks.run_files import provenance
from benchmarks.run_files import writer as reports
from benchmarks.run_files.atomic import check_writable_folder
from benchmarks.run_files.journal import RunIdentity, RunJournal
from benchmarks.tiers import TIERS
from benchmarks.tiers.base import RunContext, Tier, TierResult
from benchmarks.transport.redaction import redacted

S = TypeVar("S", bound=InputSet)


@dataclass(frozen=True)
class RunOutcome:
    report: Report
    directory: Path | None  # None when nothing was written (the Python API's choice)
    items: list[dict[str, Any]] = field(default_factory=list)


def run_tier(tier_name: str, spec: str, settings: Settings, origins: Origins, *,
             output_dir: Path | None = None, resume: Path | None = None, stderr: Console | None = None,
             inputs: InputSet | None = None, write: bool = True) -> RunOutcome:
    """Run a tier and write its report. `origins`: where each setting came from, to name a refused one as the
    user gave it; `inputs`: the tier's input already in memory (the Python API), instead of reading `spec`;
    `write` False builds the report without writing any file (nor journaling items)."""
    with origins.naming():
        tier = TIERS[tier_name]
        if resume is not None and not tier.resumable:
            raise BenchError(f"{tier_name} has nothing to resume: its items cost no calls, run it again")
        if resume is not None and output_dir is not None:
            raise BenchError("--resume continues in the stopped run's own folder: leave out --output-dir")
        if write:
            check_folders(tier, settings, origins, output_dir=output_dir, resume=resume)
        scoped = ScopedSettings(settings, (*tier.reads, *report_doc.LOCAL_SETTINGS), f"tier {tier.name}")
        # the input before the tier's own check: reading it is cheap, while the check imports the tier's module
        # (numpy, the database, the LLM client), so a bad line is refused in a fraction of a second
        inputs = (limited(tier, inputs, settings) if inputs is not None
                  else tier.input.load(spec, scoped, sampling(tier, settings)))
        decided = input_language.resolve(inputs, settings, origins, reads=tier.reads)
    with decided.origins.naming():  # a language told from the input is named as such from here on
        return _run_decided(tier, spec, decided, stderr or Console(stderr=True), output_dir=output_dir,
                            resume=resume, write=write)


def _run_decided(tier: Tier[Any], spec: str, decided: input_language.Resolved, console: Console, *,
                 output_dir: Path | None, resume: Path | None, write: bool) -> RunOutcome:
    """The run once its settings, language included, are decided: the tier's checks, then its items."""
    settings, origins, inputs = decided.settings, decided.origins, decided.inputs
    scoped = ScopedSettings(settings, (*tier.reads, *report_doc.LOCAL_SETTINGS), f"tier {tier.name}")
    tier.check(scoped, origins)
    warnings = tier.check_inputs(scoped, inputs)
    if warnings and "strict" in tier.reads and settings.strict:
        more = f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""
        raise BenchError(f"{origins.named('strict')}: {warnings[0].removeprefix('warning: ')}{more}")
    for line in (*decided.said, *warnings):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    run = TierRun(tier, inputs, settings, scoped, origins)
    folder = resolve(spec) if tier.input.name == "dataset" and spec else None
    with local_judge_for(tier, settings, origins, console) as judge:
        # the tier's services open the local judge's server; the report and the resume identity keep the settings
        # as given, which name its weights (local_model), not the port it happened to get
        served = scoped if judge is None else ScopedSettings(judge.settings(settings), (*tier.reads,
                                                             *report_doc.LOCAL_SETTINGS), f"tier {tier.name}")
        if not tier.resumable or not write:
            clock = RunClock.start()
            with progress_bar(console, tier.name) as progress:
                result = tier.run(RunContext(served, inputs, progress, dataset_dir=folder))
            return run.publish(stamped(result, judge), clock, output_dir, write=write)
        with journaled(run, spec=spec, output_dir=output_dir, resume=resume) as (journal, clock):
            with progress_bar(console, tier.name) as progress:
                result = tier.run(RunContext(served, inputs, progress, dataset_dir=folder, journal=journal))
            if journal.restored:
                result.volatile.resumed = Resumed(restored_items=len(journal.restored))
            journal.close()
            outcome = run.publish(stamped(result, judge), clock, journal.directory,
                                  point_latest=journal.manifest["point_latest"])
            journal.finish()
            return outcome


@contextmanager
def local_judge_for(tier: Tier[Any], settings: Settings, origins: Origins, console: Console
                    ) -> Iterator[local_judge.LocalJudge | None]:
    """Under `--judge local`, the judge's server for the whole run (every metric and language), started after
    every check and stopped when the run ends, however it ends; None for any other judge."""
    if "judge_backend" not in tier.reads or settings.judge_backend != "local":
        yield None
        return
    if settings.llm_models:
        raise BenchError(f"{origins.named('llm_models')}: --judge local runs one model, local_model")
    problem = local_judge.check_model(settings.local_model)
    if problem:
        raise BenchError(f"{origins.named('local_model')}: {problem}")

    def say(line: str) -> None:
        console.print(line, highlight=False, soft_wrap=True, markup=False)

    with local_judge.started(settings.local_model, settings.data_dir / "models", say=say) as judge:
        yield judge


def stamped(result: TierResult, judge: local_judge.LocalJudge | None) -> TierResult:
    """The tier's result with the local judge's weights, runtime and context in its judge provenance."""
    if judge is not None and result.provenance.judge is not None:
        result.provenance.judge.local = judge.describe()
    return result


def check_folders(tier: Tier[Any], settings: Settings, origins: Origins, *, output_dir: Path | None,
                  resume: Path | None) -> None:
    """Every folder the run will write, refused before any work: an unwritable one used to surface as a
    traceback once the whole run had computed, and its results were lost."""
    folders: list[tuple[Path, str]] = []
    if resume is None:
        folders.append((output_dir, "--output-dir") if output_dir is not None
                       else (settings.reports_dir, origins.named("reports_dir")))
    if "data_dir" in tier.reads:
        folders.append((settings.data_dir, origins.named("data_dir")))
    for path, name in folders:
        check_writable_folder(path, name)


def unmeasured(report: Report) -> str | None:
    """Why a finished run measured nothing (its main metric has no value: n = 0, every item failed or was
    left out), else None. Such a run is not a success: its report is kept, its exit code and nightly
    status say it failed."""
    name = report.main_metric
    metric = report.metrics.get(name)
    if metric is not None and metric.n and metric.value is not None:
        return None
    errors = metric.errors if metric else 0
    why = f"the run measured nothing: its main metric {name} has no value (n = 0, {errors} error(s))"
    warnings = ", ".join(f"{w.code} ×{w.count}" for w in report.warnings)
    return why + (f"; warnings: {warnings}" if warnings else "")


def sampling(tier: Tier[Any], settings: Settings) -> Sampling | None:
    """The sample the run reads: `limit` of the items, seeded, when the tier reads that setting (tier 0 calls its
    own pairwise cap --limit), else None (all). Decided here, once, so every tier, the report and the resume
    identity see the same sample, whether the loader draws it while reading or `limited` draws it after."""
    if "limit" not in tier.reads or settings.limit is None:
        return None
    return Sampling(settings.limit, settings.seed)


def limited(tier: Tier[Any], inputs: S, settings: Settings) -> S:
    """The items the run reads of a set already loaded (the Python API's): see `sampling`."""
    sample = sampling(tier, settings)
    return inputs if sample is None else inputs.sample(sample.n, sample.seed)


@dataclass(frozen=True)
class TierRun:
    """A tier on its input under its settings: what its report and its resume identity are made of."""

    tier: Tier[Any]
    inputs: InputSet
    settings: Settings
    scoped: ScopedSettings  # the same settings as the tier sees them
    origins: Origins

    def identity(self) -> RunIdentity:
        # bench's own version too: items judged by one release are not mixed with another's
        return RunIdentity.of(self.tier.name, f"{self.tier.version} (bench {__version__})",
                              self.inputs.report_block(), redacted(self.settings, self.tier.reads),
                              self.tier.identity(self.scoped))

    def directory(self, clock: RunClock) -> Path:
        return reports.run_directory(self.settings.reports_dir, self.inputs.name, self.tier.name, clock.run_id)

    def publish(self, result: TierResult, clock: RunClock, output_dir: Path | None, *,
                point_latest: bool | None = None, write: bool = True) -> RunOutcome:
        """Build the report and write the run's files: into output_dir, or a new run folder plus `latest`."""
        self.tier.require_declared(result, self.settings)
        report = report_doc.build(self.tier, result, self.inputs,
                                  redacted(self.settings, (*self.tier.reads, *report_doc.LOCAL_SETTINGS)),
                                  {k: v for k, v in self.origins.items() if k in self.tier.reads},
                                  clock.volatile(), environment=provenance.environment())
        if not write:
            return RunOutcome(report=report, directory=None, items=report_doc.normalise(result.items))
        directory = output_dir or self.directory(clock)
        reports.write_run(directory, report_doc.render_files(report, result.items, result.files,
                                                             lowest_items=self.tier.lists_lowest_items))
        if point_latest is None:
            point_latest = output_dir is None  # a folder the user named is theirs; run folders get `latest`
        if point_latest:
            reports.point_latest(directory)
        return RunOutcome(report=report, directory=directory, items=report_doc.normalise(result.items))


@contextmanager
def journaled(run: TierRun, *, spec: str, output_dir: Path | None, resume: Path | None
              ) -> Iterator[tuple[RunJournal, RunClock]]:
    """The run folder exists from the start, with run.json and the items journal; `resume` (a stopped run's
    folder) continues that run instead, when nothing that decides its numbers differs. Ctrl-C becomes
    RunInterrupted (where the items are, how to go on); a run that stops before its first item leaves no
    folder behind. A difference from the stopped run names a setting given for this run as it was given."""
    clock = RunClock.start()
    if resume is not None:
        journal = RunJournal.resume(resume, run.identity(), run.origins.typed())
        clock = replace(clock, run_id=journal.manifest["run_id"],
                        started_at=datetime.fromisoformat(journal.manifest["started_at"]))
    else:
        journal = RunJournal.start(output_dir or run.directory(clock), run.identity(), run_id=clock.run_id,
                                   started_at=clock.started_at.isoformat(timespec="seconds"),
                                   point_latest=output_dir is None)
    try:
        yield journal, clock
    except BaseException as exc:
        if resume is None and journal.finished == 0:
            journal.discard()
            raise
        journal.close()
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, RunInterrupted):
            raise RunInterrupted(journal.directory, journal.finished, run.tier.invocation, spec) from None
        raise


@dataclass(frozen=True)
class RunClock:
    """When a run started, for the report's volatile block; its id names the run folder."""

    run_id: str
    started_at: datetime
    started: float

    @classmethod
    def start(cls) -> RunClock:
        return cls(reports.new_run_id(), datetime.now(UTC), time.perf_counter())

    def volatile(self) -> Volatile:
        return Volatile(run_id=self.run_id, started_at=self.started_at.isoformat(timespec="seconds"),
                        duration_s=round(time.perf_counter() - self.started, 3))


def progress_bar(console: Console, label: str = "bench") -> Progress | ProgressLines:
    """Rich bars on a terminal; elsewhere (cron, CI, `2>log`) timestamped lines at a steady pace, since bars
    drawn to a file are never shown and a log would stay empty for the whole run."""
    if not console.is_terminal:
        return ProgressLines(console.file, label, progress_interval())
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
