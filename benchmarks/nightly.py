"""`bench nightly`: a suite of tier runs from a TOML file, an append-only index and a trend page.

Suite file format::

    # top-level keys: any setting name, the defaults of every run (as in bench.toml)
    bootstrap_resamples = 200

    [[run]]
    tier = "tier1"            # a name of benchmarks.tiers.TIERS
    dataset = "synthetic"     # as for --dataset

    [[run]]
    tier = "tier2"
    dataset = "synthetic"
    generator = "extractive"  # per-run settings
    judge_backend = "offline"
    informational = true      # its regressions are reported, but do not fail the night

Settings of a run, strongest first: the nightly command's own flags (--data-dir, --reports-dir), the
run's table, the environment, the suite's top-level keys, bench.toml, the defaults. The whole file is
validated before the first run starts.

Every run, ok or failed, appends one JSON line to `<reports_dir>/index.jsonl` (flushed per line,
never rewritten). Reports go to `<reports_dir>/nightly/<YYYY-MM-DD>/<tier>-<dataset>/`; the trend
page `<reports_dir>/nightly/trends.html` is re-rendered from the index after every suite.

The night fails (exit code 1, `exit_code`) when a run failed, or when `bench compare` found a regression
against a run's previous ok run (its verdict: a failing gate, or a primary metric without value) and the
run is not `informational`: a nightly job exists to make someone look, and cron and CI look at exit codes.
"""

from __future__ import annotations

import html
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from rich.console import Console
from rich.table import Table

from benchmarks.config import Layer, Origins, Settings, load_settings, refused_key
from benchmarks.errors import BenchError
from benchmarks.run_files import writer as reports
from benchmarks.run_files.atomic import atomic_write, check_writable_folder
from benchmarks.run_files.index import append_index, index_path, read_index
from benchmarks.run_files.index_line import ComparedVerdict, IndexLine
from benchmarks.tiers import TIERS
from benchmarks.toml_file import read_toml

if TYPE_CHECKING:  # bench compare is imported where a comparison runs (compare_with_previous)
    from benchmarks.compare.result import CompareResult

NIGHTLY_DIR = "nightly"
TRENDS_FILE = "trends.html"
TRENDS_DIV_ID = "bench-trends"
MAX_TICKS = 12  # date labels an x axis shows at most (every k-th run beyond)
NO_VALUE_HEIGHT = 0.5  # where a series without any value draws its failed runs' crosses, on an unlabeled 0-1 axis
RUN_KEYS = ("tier", "dataset", "informational")
ALERTS = ("regression", "broken run")  # the verdicts of bench compare that fail a night


@dataclass(frozen=True)
class SuiteRun:
    tier: str
    dataset: str
    settings: dict[str, Any]
    informational: bool = False  # its regressions are reported and recorded, but do not fail the night


@dataclass(frozen=True)
class Suite:
    path: Path
    defaults: dict[str, Any]
    runs: tuple[SuiteRun, ...]


@dataclass
class RunRecord:
    """One run of the suite as the summary shows it; `line` is what went into index.jsonl."""

    line: IndexLine
    previous: IndexLine | None = None
    deltas: dict[str, dict[str, float | None]] = field(default_factory=dict)
    compare_note: str = ""
    compare_md: Path | None = None

    @property
    def regressed(self) -> list[str]:
        return regressed_metrics(self.line)

    @property
    def alerts(self) -> bool:
        """Does this run fail the night: it failed, or it regressed and is not informational."""
        return self.line["status"] != "ok" or (bool(self.regressed) and not self.line.get("informational"))


# ---------------------------------------------------------------------------------------------- suite file


def load_suite(path: Path) -> Suite:
    """Parse and check the suite's shape: tiers, datasets and setting names (values: `resolve_settings`)."""
    data = read_toml(path, "suite file")
    assert data is not None
    runs_raw = data.pop("run", None)
    for name in data:
        _check_setting(path, "top level", name)
    if not isinstance(runs_raw, list) or not runs_raw or not all(isinstance(r, dict) for r in runs_raw):
        raise BenchError(f"{path}: expected at least one run table with tier and dataset (see nightly.example.toml)")
    runs = []
    for number, raw in enumerate(runs_raw, start=1):
        where = f"run #{number}"
        tier, dataset = raw.get("tier"), raw.get("dataset")
        if tier not in TIERS:
            raise BenchError(f"{path}: {where}: tier: expected one of {', '.join(TIERS)}, got {tier!r}")
        if not isinstance(dataset, str) or not dataset.strip():
            raise BenchError(f"{path}: {where} ({tier}): dataset: expected a dataset name or folder, got {dataset!r}")
        settings = {k: v for k, v in raw.items() if k not in RUN_KEYS}
        for name in settings:
            _check_setting(path, f"{where} ({tier} on {dataset})", name)
        informational = raw.get("informational", False)
        if not isinstance(informational, bool):
            raise BenchError(f"{path}: {where} ({tier} on {dataset}): informational: expected true or false, "
                             f"got {informational!r}")
        runs.append(SuiteRun(tier, dataset, settings, informational))
    return Suite(path, data, tuple(runs))


def _check_setting(path: Path, where: str, name: str) -> None:
    problem = refused_key(name)
    if problem is not None:
        raise BenchError(f"{path}: {where}: key '{name}': {problem}")


def resolve_settings(suite: Suite, flags: Mapping[str, Any], *, config_file: Path | None = None,
                     environ: Mapping[str, str] | None = None) -> list[tuple[Settings, Origins]]:
    """Every run's settings, resolved before anything runs: a bad value fails the whole suite at once. The
    suite's top-level keys are defaults below the environment; a run's own keys and the flags are above it."""
    defaults = _suite_layer(suite.defaults, f"{suite.path}: top level")
    resolved = []
    for number, run in enumerate(suite.runs, start=1):
        where = f"{suite.path}: run #{number} ({run.tier} on {run.dataset})"
        try:
            resolved.append(load_settings(flags, config_file=config_file, environ=environ, below_env=(defaults,),
                                          above_env=(_suite_layer(run.settings, where),)))
        except BenchError as exc:
            message = str(exc)  # a suite key's message names its place already; any other gets the run's
            raise BenchError(message if message.startswith(f"{suite.path}: ") else f"{where}: {message}") from None
    return resolved


def _suite_layer(values: Mapping[str, Any], where: str) -> Layer:
    return Layer("suite", values, {name: f"{where}: key '{name}'" for name in values})


# ---------------------------------------------------------------------------------------------- index.jsonl


def entry_key(run: SuiteRun) -> str:
    """What tells a suite's entries of one tier and dataset apart: the settings of its own [[run]] table
    ("index=hnsw, ef_search=100"; "" for none), so an HNSW run is compared with last night's HNSW run, never
    with the exact one beside it."""
    return ", ".join(f"{name}={value}" for name, value in sorted(run.settings.items()))


def previous_run(index: Path | Iterable[IndexLine], tier: str, dataset: str, *, entry: str = "",
                 before: str | None = None) -> IndexLine | None:
    """The latest ok line of this tier, dataset and suite entry (`entry_key`; a line written before entries were
    recorded counts as an entry of no settings of its own), earlier than run `before` when given (else the
    last)."""
    lines = read_index(index) if isinstance(index, Path) else list(index)
    if before is not None:
        ids = [line["run_id"] for line in lines]
        if before in ids:
            lines = lines[:ids.index(before)]
    for line in lines[::-1]:  # latest first (mypy reads reversed() as Any)
        if line["status"] == "ok" and line["tier"] == tier and line["dataset"] == dataset \
                and line.get("entry", "") == entry:
            return line
    return None


# ---------------------------------------------------------------------------------------------- running


def run_suite(suite: Suite, resolved: Sequence[tuple[Settings, Origins]], *, stdout: Console,
              stderr: Console, today: datetime | None = None) -> list[RunRecord]:
    """Run every entry; a failing one is recorded and the next one starts. The index and trends follow."""
    from benchmarks.runner import run_tier, unmeasured

    check_folders(resolved)
    for reports_dir in dict.fromkeys(settings.reports_dir for settings, _ in resolved):
        read_index(index_path(reports_dir))  # a line that is no index line stops the suite before its first run
    day = (today or datetime.now(UTC)).strftime("%Y-%m-%d")
    records = []
    for number, (run, (settings, origins)) in enumerate(zip(suite.runs, resolved, strict=True), start=1):
        folder = _free_folder(settings.reports_dir / NIGHTLY_DIR / day / f"{run.tier}-{_slug(run.dataset)}")
        stderr.print(f"nightly [{number}/{len(suite.runs)}]: {run.tier} on {run.dataset}", highlight=False)
        started = datetime.now(UTC)
        line: IndexLine  # the run's line of index.jsonl
        try:
            outcome = run_tier(run.tier, run.dataset, settings, origins, output_dir=folder, stderr=stderr)
        except Exception as exc:  # a failing tier must not stop the suite; BenchError included
            error = str(exc) if isinstance(exc, BenchError) else f"{type(exc).__name__}: {exc}"
            stderr.print(f"[red]nightly: {run.tier} on {run.dataset} failed:[/red] {error}", highlight=False,
                         soft_wrap=True)
            line = {"tier": run.tier, "dataset": run.dataset, "entry": entry_key(run), "suite": str(suite.path),
                    "nightly": day, "informational": run.informational,
                    "run_id": reports.new_run_id(started), "started_at": _iso(started),
                    "content_sha256": None, "status": "failed", "error": error, "report": None,
                    "main_metric": _declared_main_metric(run.tier, settings), "main_value": None, "metrics": {}}
        else:
            report = outcome.report
            metrics = {name: metric.value for name, metric in report.metrics.items()}
            reason = unmeasured(report)  # its report is kept and linked, but it is no success
            assert outcome.directory is not None  # run_tier writes the run's files unless asked not to
            if reason is not None:
                stderr.print(f"[red]nightly: {run.tier} on {run.dataset} failed:[/red] {reason}", highlight=False,
                             soft_wrap=True)
            line = {"tier": run.tier, "dataset": run.dataset, "entry": entry_key(run), "suite": str(suite.path),
                    "nightly": day, "informational": run.informational,
                    "run_id": report.volatile.run_id, "started_at": report.volatile.started_at,
                    "content_sha256": report.dataset.content_sha256,
                    "status": "ok" if reason is None else "failed", "error": reason,
                    "report": _relative(outcome.directory / "report.json", settings.reports_dir),
                    "main_metric": report.main_metric, "main_value": metrics.get(report.main_metric),
                    "metrics": metrics}
        record = RunRecord(line)
        index = index_path(settings.reports_dir)
        if line["status"] == "ok":
            record.previous = previous_run(index, run.tier, run.dataset, entry=line["entry"])
            if record.previous is not None:
                compare_with_previous(record, settings.reports_dir)
                line["previous_run_id"] = record.previous["run_id"]
                line["main_delta"] = record.deltas.get(line["main_metric"] or "", {}).get("delta")
        append_index(index, line)
        records.append(record)
    reports_dirs = dict.fromkeys(settings.reports_dir for settings, _ in resolved)
    for reports_dir in reports_dirs:
        path = write_trends(reports_dir)
        stderr.print(f"nightly: trends at {path}", highlight=False, soft_wrap=True)
    print_summary(records, stdout)
    return records


def check_folders(resolved: Sequence[tuple[Settings, Origins]]) -> None:
    """The reports and data folders of every run, refused before the first run starts, not at its end."""
    for settings, origins in resolved:
        for name in ("reports_dir", "data_dir"):
            check_writable_folder(getattr(settings, name), origins.named(name))


def compare_with_previous(record: RunRecord, reports_dir: Path) -> None:
    """The one coupling with `bench compare`: its Markdown when available, else per-metric deltas only."""
    previous, line = record.previous, record.line
    if previous is None:
        return
    for name, value in line["metrics"].items():
        base = previous["metrics"].get(name)
        if _number(base) or _number(value):
            delta = value - base if _number(base) and _number(value) else None
            record.deltas[name] = {"base": base, "candidate": value, "delta": delta}
    try:  # bench compare's API (benchmarks/compare/__init__.py): load_run, load_gates, compare, render
        from benchmarks.compare import compare, load_gates, load_run, render
    except ImportError:
        record.compare_note = "statistical comparison not run (bench compare is not available)"
        return
    if not previous["report"] or not line["report"]:
        record.compare_note = "statistical comparison not run (no report path in the index)"
        return
    base_dir, candidate_dir = (reports_dir / Path(p).parent for p in (previous["report"], line["report"]))
    try:
        result = compare(load_run(base_dir), load_run(candidate_dir), load_gates(None))
        markdown = render(result)
    except Exception as exc:  # the nightly suite must not die on a comparison (incomparable runs included)
        record.compare_note = f"statistical comparison not run ({type(exc).__name__}: {exc})"
        return
    record.compare_md = candidate_dir / "compare.md"
    atomic_write(record.compare_md, markdown)
    line["compare"] = verdict_of(result, _relative(record.compare_md, reports_dir))
    record.compare_note = f"compared with {previous['run_id']}: {_relative(record.compare_md, reports_dir)}"


def regressed_metrics(line: IndexLine) -> list[str]:
    """The metrics bench compare failed against the previous run (its failing gates, or primary metrics left
    without a value), informational or not; empty when it passed or did not run."""
    verdict = line.get("compare")
    return list(verdict["metrics"]) if verdict is not None and verdict["verdict"] in ALERTS else []


def verdict_of(result: CompareResult, markdown_path: str) -> ComparedVerdict:
    """What the index keeps of a comparison: bench compare's verdict, the metrics behind it (failing gates, or
    primary metrics without a value in a broken run) and where its Markdown is."""
    metrics = result["broken"] if result["verdict"] == "broken run" else result["failing"]
    return {"verdict": result["verdict"], "metrics": list(metrics), "markdown": markdown_path}


def exit_code(records: Sequence[RunRecord]) -> int:
    """1 when any run failed or regressed (informational runs' regressions aside), else 0."""
    return 1 if any(record.alerts for record in records) else 0


def print_summary(records: Sequence[RunRecord], console: Console) -> None:
    table = Table(title="bench nightly")
    for column in ("tier", "dataset", "status", "main metric", "vs previous"):
        table.add_column(column)
    for record in records:
        line = record.line
        main = f"{line['main_metric']} = {_fmt(line['main_value'])}" if line["status"] == "ok" else ""
        if line["status"] != "ok":
            versus = line["error"] or ""
        elif record.previous is None:
            versus = "first run"
        else:
            delta = record.deltas.get(line["main_metric"] or "", {}).get("delta")
            versus = f"{_fmt(delta, signed=True)} (vs {record.previous['run_id']})"
            if record.regressed:
                versus += f" ❌ {line['compare']['verdict']}: {', '.join(record.regressed)}"
        table.add_row(line["tier"], line["dataset"], line["status"], main, versus)
    console.print(table)
    for record in records:
        if record.compare_note:
            console.print(f"{record.line['tier']} on {record.line['dataset']}: {record.compare_note}",
                          highlight=False, soft_wrap=True)
    for record in records:
        if record.regressed:
            console.print(regression_line(record), highlight=False, soft_wrap=True)
    console.print(totals_line(records), highlight=False)


def regression_line(record: RunRecord) -> str:
    """A regressed run, its metrics and its comparison, in one line for a log read by a person or a grep."""
    line, verdict = record.line, record.line["compare"]
    informational = " (informational: reported, does not fail the night)" if line.get("informational") else ""
    return (f"{verdict['verdict'].upper()}: {line['tier']} on {line['dataset']} ({line['run_id']} vs "
            f"{record.previous['run_id'] if record.previous else '?'}): {', '.join(record.regressed)}; "
            f"see {verdict['markdown']}{informational}")


def totals_line(records: Sequence[RunRecord]) -> str:
    failed = sum(r.line["status"] != "ok" for r in records)
    regressed = [r for r in records if r.regressed]
    informational = sum(bool(r.line.get("informational")) for r in regressed)
    return (f"{len(records) - failed} ok, {failed} failed, {len(regressed)} regressed"
            + (f" ({informational} informational)" if informational else ""))


# ---------------------------------------------------------------------------------------------- trend page


def write_trends(reports_dir: Path) -> Path:
    path = reports_dir / NIGHTLY_DIR / TRENDS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, render_trends(read_index(index_path(reports_dir))))
    return path


def render_trends(lines: Sequence[IndexLine]) -> str:
    """One self-contained page: a subplot per (tier, dataset), its main metric run after run (others hidden).

    Each run is one step of the x axis, labelled with its date and time of day: on a time axis two runs of one
    night (a rerun after a fix) drew as one point, and a month of nights hid them among each other."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    groups: dict[tuple[str, str], list[IndexLine]] = {}
    for line in lines:
        groups.setdefault((line["tier"], line["dataset"]), []).append(line)
    keys = sorted(groups)
    title = f"bench nightly trends: {len(lines)} runs" if lines else "bench nightly trends: no runs yet"
    if not keys:
        figure = go.Figure()
    else:
        figure = make_subplots(rows=len(keys), cols=1, vertical_spacing=min(0.3 / len(keys), 0.12),
                               subplot_titles=[_subplot_title(k, groups[k]) for k in keys])
    for row, key in enumerate(keys, start=1):
        runs = sorted(groups[key], key=lambda r: str(r["started_at"]))
        at = {id(r): position for position, r in enumerate(runs)}  # each run a step of the x axis
        ok = [r for r in runs if r["status"] == "ok"]
        main = _main_metric(runs)
        names = ([main] if main else []) + sorted({n for r in ok for n in r["metrics"]} - {main})
        for name in names:
            points = [r for r in ok if _number(r["metrics"].get(name))]
            if not points and name != main:
                continue
            figure.add_trace(go.Scatter(
                x=[at[id(r)] for r in points], y=[r["metrics"][name] for r in points], mode="lines+markers",
                name=f"{key[0]} / {key[1]}: {name}", legendgroup=f"{key[0]}/{key[1]}",
                visible=True if name == main else "legendonly",
                hovertext=[f"{html.escape(str(r['run_id']))}, {_when(r)}<br>{html.escape(name)} = "
                           f"{r['metrics'][name]:.4g}" for r in points],
                hoverinfo="text"), row=row, col=1)
        regressed = [r for r in ok if main and regressed_metrics(r) and _number(r["metrics"].get(main))]
        if main and regressed:
            figure.add_trace(go.Scatter(
                x=[at[id(r)] for r in regressed], y=[r["metrics"][main] for r in regressed], mode="markers",
                marker={"symbol": "triangle-down", "size": 13, "color": "orange",
                        "line": {"color": "red", "width": 1}},
                name=f"{key[0]} / {key[1]}: regression", legendgroup=f"{key[0]}/{key[1]}",
                hovertext=[html.escape(f"{_regression_text(r)}, {_when(r)}") for r in regressed], hoverinfo="text"),
                row=row, col=1)
        last = _last_value(ok, main) if main else None
        failed = [r for r in runs if r["status"] != "ok"]
        if failed:
            figure.add_trace(go.Scatter(
                x=[at[id(r)] for r in failed], y=[NO_VALUE_HEIGHT if last is None else last] * len(failed),
                mode="markers", marker={"symbol": "x", "size": 10, "color": "red"},
                name=f"{key[0]} / {key[1]}: failed", legendgroup=f"{key[0]}/{key[1]}",
                hovertext=[html.escape(f"{_when(r)}: {r['error']}")[:300] for r in failed], hoverinfo="text"),
                row=row, col=1)
        figure.update_yaxes(title_text=html.escape(main or ""), row=row, col=1)
        if last is None:  # nothing measured: the crosses mark when runs failed, at a height that means nothing
            figure.update_yaxes(range=[0, 1], showticklabels=False, row=row, col=1)
        ticks = list(range(0, len(runs), max(1, math.ceil(len(runs) / MAX_TICKS))))
        figure.update_xaxes(tickmode="array", tickvals=ticks, ticktext=[_when(runs[i]) for i in ticks],
                            range=[-0.5, len(runs) - 0.5], row=row, col=1)
    figure.update_layout(title={"text": html.escape(title), "font": {"size": 14}}, template="plotly_white",
                         showlegend=True, height=max(400, 300 * len(keys)),
                         margin={"l": 60, "r": 20, "t": 60, "b": 40})
    # Fixed div id (plotly's default is a random UUID) and plotly.js inlined: no network, stable bytes.
    page: str = figure.to_html(include_plotlyjs=True, full_html=True, div_id=TRENDS_DIV_ID,
                          config={"displaylogo": False, "responsive": True})
    return page.replace("<head>", f"<head><title>{html.escape(title)}</title>", 1)


def _subplot_title(key: tuple[str, str], runs: Sequence[IndexLine]) -> str:
    failed = sum(r["status"] != "ok" for r in runs)
    regressed = sum(r["status"] == "ok" and bool(regressed_metrics(r)) for r in runs)
    extra = (f", {failed} failed" if failed else "") + (f", {regressed} regressed" if regressed else "")
    main, plural = _main_metric(runs), "s" if len(runs) > 1 else ""
    return html.escape(f"{key[0]} on {key[1]}{f': {main}' if main else ''} ({len(runs)} run{plural}{extra})")


def _main_metric(runs: Sequence[IndexLine]) -> str | None:
    """The series' main metric, as the latest run naming one gives it: in an index written before failed runs
    recorded the metric they were to measure, a failed evaluate run names none."""
    named = [r["main_metric"] for r in runs if r["main_metric"]]
    return str(named[-1]) if named else None


def _when(run: IndexLine) -> str:
    """A run's start as its axis label: date and time of day, in the run's own wall clock."""
    started = str(run["started_at"] or "")
    return started[:16].replace("T", " ") if len(started) >= 16 else started


def _regression_text(line: IndexLine) -> str:
    verdict = line["compare"]
    return (f"{line['run_id']}: {verdict['verdict']} in {', '.join(verdict['metrics'])}"
            + (" (informational)" if line.get("informational") else ""))


def _declared_main_metric(tier: str, settings: Settings) -> str | None:
    """The main metric a failed run would have had, for its trend: the tier's, else (evaluate) the first of
    its metrics, as its report names it."""
    return TIERS[tier].main_metric or next(iter(settings.metrics or ()), None)


def _last_value(ok: Sequence[IndexLine], name: str) -> float | None:
    values = [r["metrics"][name] for r in ok if _number(r["metrics"].get(name))]
    return values[-1] if values else None


# ---------------------------------------------------------------------------------------------- helpers


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fmt(value: Any, *, signed: bool = False) -> str:
    if not _number(value):
        return "—"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _slug(dataset: str) -> str:
    name = Path(dataset).name if ("/" in dataset or os.sep in dataset) else dataset
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "dataset"


def _free_folder(folder: Path) -> Path:
    """The folder itself, or folder-2, folder-3, ... when an earlier run of the day has it."""
    candidate, number = folder, 1
    while candidate.exists():
        number += 1
        candidate = folder.with_name(f"{folder.name}-{number}")
    return candidate


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")
