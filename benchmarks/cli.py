"""The `bench` command line: parses options and calls the runner, nothing else.

Every report command is built from its tier's declaration (`benchmarks.tiers.TIERS`): its options
are the settings the tier reads (`benchmarks.options`), so a new setting or tier needs no code here.
"""

from __future__ import annotations

import functools
import inspect
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from benchmarks._version import REPORT_SCHEMA_VERSION, __version__
from benchmarks.config import load_settings
from benchmarks.console import stdout_console
from benchmarks.errors import BenchError, RunInterrupted
from benchmarks.options import DATABASE, RUN, Flag, PanelledCommand, command, flags_of, option
from benchmarks.tiers import EMBEDDING, TIERS
from benchmarks.tiers.base import Tier

app = typer.Typer(
    help="Benchmark a retrieval-augmented generation system tier by tier, on real services.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
db_app = typer.Typer(help="Manage bench's PostgreSQL schema and stored collections.", no_args_is_help=True)
app.add_typer(db_app, name="db")

stdout = stdout_console()
stderr = Console(stderr=True)
EXIT_UNMEASURED = 3  # the run finished and wrote its report but measured nothing (as bench compare's broken run)
P = ParamSpec("P")
R = TypeVar("R")
ConfigOpt = Annotated[Path | None, typer.Option("--config", rich_help_panel=RUN,
                                                   help="Settings file (default: ./bench.toml when it exists).")]
DataDirOpt = Annotated[Path | None, typer.Option("--data-dir", rich_help_panel=DATABASE,
                                                    help="Folder for bench's own state (the embedded PostgreSQL, "
                                                         "the caches). [env: BENCH_DATA_DIR]")]


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Turn user errors into one line on stderr and exit code 2; bugs keep their traceback."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except BenchError as exc:
            # escaped: a message may hold brackets ("pip install 'tierbench[local]'") that are not markup
            stderr.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except RunInterrupted as exc:
            if sys.argv[1:2] == [exc.command.split()[0]]:  # the interrupted command was typed
                hint = resume_command(sys.argv[1:], exc.directory)
            else:  # run by another command (bench nightly): its options are not on this command line
                hint = (f"bench {exc.command} --dataset {shlex.quote(exc.dataset)} <the same options> "
                        f"--resume {shlex.quote(str(exc.directory))}")
            stderr.print(f"{exc}\nresume with: {hint}", highlight=False, soft_wrap=True, markup=False)
            raise typer.Exit(130) from None
        except KeyboardInterrupt:
            stderr.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper


def resume_command(arguments: list[str], directory: Path) -> str:
    """The interrupted command line again, writing into the stopped run's folder."""
    kept: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
        elif argument in ("--resume", "--output-dir", "-o"):
            skip = True
        elif not argument.startswith(("--resume=", "--output-dir=")):
            kept.append(argument)
    return shlex.join(["bench", *kept, "--resume", str(directory)])


def _version(value: bool) -> None:
    if value:
        stdout.print(f"bench {__version__} (tierbench; report schema {REPORT_SCHEMA_VERSION})")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print bench's version and exit.")
    ] = False,
) -> None:
    """Benchmark a retrieval-augmented generation system tier by tier, on real services."""
    from benchmarks.errors import interrupt_on_termination

    interrupt_on_termination()  # SIGTERM/SIGHUP take Ctrl-C's path: items kept, embedded server stopped


# --- the report commands, one per tier ------------------------------------------------------------


def settings_from(flags: list[Flag], values: dict[str, Any], config: Path | None) -> tuple[Any, Any]:
    """The settings with the command line's values on top, each given one named by the flag it was typed as."""
    given = {f.setting: values.pop(f.setting) for f in flags}
    return load_settings(given, config_file=config, flags={f.setting: f.typed_as for f in flags})


def run_command(tier_name: str, flags: list[Flag], **values: Any) -> None:
    from benchmarks.console import print_summary
    from benchmarks.runner import run_tier, unmeasured

    settings, origins = settings_from(flags, values, values.pop("config"))
    outcome = run_tier(tier_name, values.pop("dataset"), settings, origins, output_dir=values.pop("output_dir"),
                       resume=values.pop("resume", None), stderr=stderr)
    assert outcome.directory is not None  # run_tier writes the run's files unless asked not to
    print_summary(outcome.report, outcome.directory, stdout)
    reason = unmeasured(outcome.report)
    if reason is not None:
        stderr.print(f"[red]error:[/red] {tier_name}: {reason}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_UNMEASURED)


def tier_parameters(tier: Tier[Any], flags: list[Flag], *, input_help: str | None = None) -> list[Any]:
    parameters = [option("dataset", str, "--dataset", "-d", help=input_help or tier.input.help, default=...),
                  *(flag.parameter() for flag in flags),
                  option("output_dir", Path | None, "--output-dir", "-o", panel=RUN,
                         help="Write report.json, report.md, items.jsonl (and run.trec) into this folder directly, "
                              "instead of <reports-dir>/<dataset>/<tier>/<run-id>."),
                  option("config", Path | None, "--config", panel=RUN,
                         help="Settings file (default: ./bench.toml when it exists).")]
    if tier.resumable:
        parameters.append(option("resume", Path | None, "--resume", panel=RUN,
                                 help="Continue the stopped run in this folder (the one an interrupted run names), "
                                      "with the same options: finished items are kept, only the rest is done."))
    return parameters


def _evaluate(flags: list[Flag], dry_run: bool, **values: Any) -> None:
    if not dry_run:
        return run_command("evaluate", flags, **values)
    from benchmarks.console import print_plan
    from benchmarks.runner import sampling
    from benchmarks.tiers import SAMPLES, evaluate

    settings, origins = settings_from(flags, values, values.pop("config"))
    sample = sampling(TIERS["evaluate"], settings)  # --limit counts only the samples the run would judge
    with origins.naming():
        models, rows = evaluate.plan(settings, SAMPLES.load(values["dataset"], settings, sample))
    print_plan(models, rows, stdout)


def _judge(flags: list[Flag], pairwise: bool, **values: Any) -> None:
    if pairwise and values.get("judge_rating") is not None:
        raise BenchError("--metric: not used with --pairwise, which asks which of two answers is better")
    run_command("judge-pairwise" if pairwise else "judge", flags, **values)


# a command's own switch beside its settings: (the option, the body that reads it, the --dataset help); a body is
# called with the flags, then the command's values by name (its switch's among them)
SWITCHES: dict[str, tuple[inspect.Parameter | None, Callable[..., None], str | None]] = {
    "evaluate": (option("dry_run", bool, "--dry-run", default=False, help="Print the judge calls and an estimate "
                        "of prompt tokens the run would need, and make none."), _evaluate, None),
    "judge": (option("pairwise", bool, "--pairwise", default=False, help="Ask which of two answers is better, in "
                     "both orders: position bias, ties and, with labels, accuracy (the judge-pairwise tier)."), _judge,
              f"{TIERS['judge'].input.help} With --pairwise: {TIERS['judge-pairwise'].input.help}"),
}

for _tier in TIERS.values():
    if _tier.command:  # run by another command's switch (judge --pairwise)
        continue
    _flags = flags_of(_tier.reads, _tier.flags)
    _switch, _body, _input_help = SWITCHES.get(_tier.name, (None, run_command, None))
    _parameters = [*tier_parameters(_tier, _flags, input_help=_input_help), *([_switch] if _switch else [])]
    _run = functools.partial(_body, _flags) if _switch else functools.partial(run_command, _tier.name, _flags)
    app.command(_tier.name, cls=PanelledCommand)(guarded(command(_tier.name, _parameters, _run, _tier.summary)))


# --- the other commands ---------------------------------------------------------------------------

_VISUAL_FLAGS = flags_of((*EMBEDDING, "seed"), {})


def _visualize(dataset: list[str], on: str, color: str, three_d: bool, limit: int, output: Path | None,
               config: Path | None, **values: Any) -> None:
    from benchmarks.visualize import VisualizeRequest, run_visualize

    for name, value, choices in (("--on", on, ("corpus", "questions", "both")),
                                 ("--color", color, ("topic", "dataset"))):
        if value not in choices:
            raise BenchError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
    settings, _ = settings_from(_VISUAL_FLAGS, values, config)
    request = VisualizeRequest(datasets=tuple(dataset), on=on, color=color,  # type: ignore[arg-type]
                               dimensions=3 if three_d else 2, limit=limit, output=output)
    stdout.print(str(run_visualize(request, settings, stderr=stderr)), highlight=False, soft_wrap=True)


app.command("visualize", cls=PanelledCommand)(guarded(command("visualize", [
    option("dataset", list[str], "--dataset", "-d", default=...,
           help="A shipped dataset or a dataset directory (as for tier0); repeat the option to draw several in one "
                "space."),
    option("on", str, "--on", default="corpus", help="Draw the corpus embeddings (as stored in pgvector), the question "
                                                     "embeddings, or both."),
    option("color", str, "--color", default="topic", help="Colour points by their topic field ('(none)' when missing) "
                                                          "or by dataset."),
    option("three_d", bool, "--3d", default=False, help="Draw in 3D instead of 2D."),
    option("limit", int, "--limit", default=5000, help="Draw at most this many embeddings: a seeded sample beyond it."),
    option("output", Path | None, "--output", panel=RUN,
           help="The HTML file to write (default: <reports-dir>/<dataset>/visualize/<on>-by-<color>-<2d|3d>.html)."),
    option("config", Path | None, "--config", panel=RUN,
           help="Settings file (default: ./bench.toml when it exists)."),
    *(flag.parameter() for flag in _VISUAL_FLAGS),
], _visualize, "The embedding space in 2D or 3D (UMAP), as one self-contained HTML page that opens offline.")))


@app.command(cls=PanelledCommand)
@guarded
def nightly(
    suite: Annotated[Path | None, typer.Option("--suite", help="TOML suite: top-level settings (defaults of "
                                                  "every run) and [[run]] tables with tier, dataset and per-run "
                                                  "settings (see nightly.example.toml).")] = None,
    trends_only: Annotated[bool, typer.Option("--trends-only", help="Only re-render <reports-dir>/nightly/"
                                              "trends.html from <reports-dir>/index.jsonl.")] = False,
    data_dir: DataDirOpt = None,
    config: ConfigOpt = None,
    reports_dir: Annotated[Path | None, typer.Option("--reports-dir", rich_help_panel=RUN,
                                                        help="Where reports, the index and the trend page go. "
                                                             "[env: BENCH_REPORTS_DIR]")] = None,
) -> None:
    """Run a suite of tiers, record every run in reports/index.jsonl, compare with the previous run and
    render a trend page; a failing run is reported and the suite goes on. Exit code 1 when any run failed or
    regressed against its previous run (runs marked informational = true aside), else 0."""
    from benchmarks import nightly as suite_runner

    flags = {"data_dir": data_dir, "reports_dir": reports_dir}
    if trends_only:
        settings, _ = load_settings(flags, config_file=config)
        stdout.print(str(suite_runner.write_trends(settings.reports_dir)), highlight=False, soft_wrap=True)
        return
    if suite is None:
        raise BenchError("--suite: a suite file is needed (or --trends-only)")
    loaded = suite_runner.load_suite(suite)
    resolved = suite_runner.resolve_settings(loaded, flags, config_file=config)
    records = suite_runner.run_suite(loaded, resolved, stdout=stdout, stderr=stderr)
    code = suite_runner.exit_code(records)
    if code:
        raise typer.Exit(code)


@app.command(cls=PanelledCommand)
@guarded
def view(
    reports_dir: Annotated[Path | None, typer.Argument(help="The reports folder (default: reports/, or "
                                                       "BENCH_REPORTS_DIR).", show_default=False)] = None,
    output: Annotated[Path | None, typer.Option("--output", help="Where the site goes (default: "
                                                "REPORTS_DIR/site).")] = None,
    serve: Annotated[bool, typer.Option("--serve", help="Then serve the site on 127.0.0.1 (a free port) and open "
                                        "a browser, until Ctrl-C.")] = False,
    config: ConfigOpt = None,
) -> None:
    """A static site of every run in a reports folder: runs with their trends, each run's metrics and items
    worst first, and bench compare's verdict between consecutive runs. It opens from the file system."""
    from benchmarks.runner import progress_bar
    from benchmarks.view import build, serve_site

    if reports_dir is None:
        settings, _ = load_settings({}, config_file=config)
        reports_dir = settings.reports_dir
    with progress_bar(stderr, "view") as progress:
        built = build(reports_dir, output, progress=progress)
    stderr.print(f"{built.runs} runs, {built.compare_pages} comparisons, {built.item_pages} further item pages "
                 f"in {built.seconds:.1f} s", highlight=False)
    stdout.print(str(built.site / "index.html"), highlight=False, soft_wrap=True)
    if serve:
        serve_site(built.site, announce=lambda url: stdout.print(f"serving {url} (Ctrl-C stops)", highlight=False,
                                                                  soft_wrap=True))


@app.command(cls=PanelledCommand)
@guarded
def compare(
    base: Annotated[Path, typer.Argument(help="The base run: its folder or its report.json.", show_default=False)],
    candidate: Annotated[Path, typer.Argument(help="The candidate run: its folder or its report.json.",
                                              show_default=False)],
    gates: Annotated[Path | None, typer.Option("--gates", help="Gates file (default: ./bench.gates.toml when "
                                                  "it exists).")] = None,
    allow_mismatch: Annotated[bool, typer.Option("--allow-mismatch", help="Compare runs on different datasets, "
                                                 "real-user logs or tier versions anyway (the differences are "
                                                 "shown).")] = False,
    seed: Annotated[int, typer.Option("--seed", rich_help_panel=RUN, help="Seed of the paired bootstrap.")] = 0,
    resamples: Annotated[int, typer.Option("--resamples", rich_help_panel=RUN,
                                           help="Paired bootstrap resamples.")] = 10_000,
    output_format: Annotated[str, typer.Option("--format", rich_help_panel=RUN,
                                               help="markdown (a GitHub comment) or json.")] = "markdown",
    output: Annotated[Path | None, typer.Option("--output", rich_help_panel=RUN,
                                                   help="Write here instead of stdout.")] = None,
) -> None:
    """Two runs side by side, for pull requests and nightly regressions. Exit 0 pass, 1 regression, 2 usage
    error or incomparable runs, 3 a broken run."""
    import json

    from benchmarks.compare import compare as run_compare
    from benchmarks.compare import load_gates, load_run, render
    from benchmarks.run_files.atomic import atomic_write

    if output_format not in ("markdown", "json"):
        raise BenchError(f"--format must be markdown or json, not {output_format!r}")
    if resamples < 0:
        raise BenchError("--resamples must not be negative")
    result = run_compare(load_run(base), load_run(candidate), load_gates(gates), allow_mismatch=allow_mismatch,
                         seed=seed, resamples=resamples)
    text = render(result) if output_format == "markdown" else json.dumps(result, ensure_ascii=False, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write(output, text)
    raise typer.Exit(result["exit_code"])


@app.command("import-logs", cls=PanelledCommand)
@guarded
def import_logs(
    file: Annotated[Path, typer.Argument(help="Real users' turns as JSONL or CSV: question (required), id, answer, "
                                         "confluence_url (or url), score (1–5), session_id, turn_order (or turn), "
                                         "created_at (ISO-8601).")],
    name: Annotated[str | None, typer.Option("--name", help="Log name the tiers read it back by (default: "
                                                "the file name without its extension).")] = None,
    data_dir: DataDirOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Load real users' logged turns into bench's own question_answer table; importing again is a no-op."""
    from benchmarks.readers.log_sources import import_logs as import_file

    settings, _ = load_settings({"data_dir": data_dir}, config_file=config)
    log = name if name is not None else file.stem
    stats = import_file(settings, file, log)
    stdout.print(f"{log}: {stats.inserted} inserted, {stats.updated} updated, {stats.unchanged} unchanged")


@db_app.command("upgrade", cls=PanelledCommand)
@guarded
def db_upgrade(data_dir: DataDirOpt = None, config: ConfigOpt = None) -> None:
    """Apply pending Alembic migrations (bench also does this by itself before every run)."""
    from benchmarks.store.database import connect

    settings, _ = load_settings({"data_dir": data_dir}, config_file=config)
    database = connect(settings)
    database.engine.dispose()
    applied = ", ".join(database.migrations_applied) or "none (already current)"
    stdout.print(f"{database.url_shown}: migrations applied: {applied}")


@db_app.command("drop-collection", cls=PanelledCommand)
@guarded
def db_drop_collection(
    name: Annotated[str, typer.Argument(help="Collection (dataset name) whose stored chunks are deleted.")],
    data_dir: DataDirOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Delete a collection's stored chunks and indexes (every embedding model), and the copies of their vectors kept
    in the data folder; the next run re-indexes."""
    from benchmarks.store import vector_file
    from benchmarks.store.database import connect, database_errors
    from benchmarks.store.vectors import drop_collection

    settings, _ = load_settings({"data_dir": data_dir}, config_file=config)
    database = connect(settings)
    try:
        with database_errors(database):
            removed = drop_collection(database.engine, name)
    finally:
        database.engine.dispose()
    for space_id in removed:
        vector_file.forget(settings.data_dir, space_id)
    stdout.print(f"{name}: {len(removed)} embedding space(s) removed")


if __name__ == "__main__":
    sys.exit(app())
