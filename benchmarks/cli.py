"""The `bench` command line: parses options and calls the runner, nothing else."""

from __future__ import annotations

import functools
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional, TypeVar

import typer
from rich.console import Console

from benchmarks import __version__
from benchmarks.config import help_for, load_settings
from benchmarks.errors import BenchError, RunInterrupted

app = typer.Typer(
    help="Benchmark a retrieval-augmented generation system tier by tier, on real services.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
db_app = typer.Typer(help="Manage bench's PostgreSQL schema and stored collections.", no_args_is_help=True)
app.add_typer(db_app, name="db")

stdout = Console()
stderr = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def _opt(name: str, flag: str | None = None, **extra: Any) -> Any:
    return typer.Option(f"--{flag or name.replace('_', '-')}", help=help_for(name), show_default=False, **extra)


DatasetOpt = Annotated[
    str,
    typer.Option("--dataset", "-d", help="A shipped dataset (synthetic, synthetic-ru) or a directory in bench's "
                 "JSONL format or in BEIR format (corpus.jsonl, queries.jsonl, qrels/test.tsv)."),
]
OutputOpt = Annotated[
    Optional[Path],
    typer.Option("--output-dir", "-o", help="Write report.json, report.md, items.jsonl (and run.trec) into this "
                 "folder directly, instead of <reports-dir>/<dataset>/<tier>/<run-id>."),
]
ResumeOpt = Annotated[
    Optional[Path],
    typer.Option("--resume", help="Continue the stopped run in this folder (the one an interrupted run names), "
                 "with the same options: finished items are kept, only the rest is done."),
]
ConfigOpt = Annotated[
    Optional[Path], typer.Option("--config", help="Settings file (default: ./bench.toml when it exists).")
]
DataDirOpt = Annotated[Optional[Path], _opt("data_dir")]
ReportsDirOpt = Annotated[Optional[Path], _opt("reports_dir")]
ModelOpt = Annotated[Optional[str], _opt("embedding_model")]
BackendOpt = Annotated[Optional[str], _opt("embedding_backend")]
BaseUrlOpt = Annotated[Optional[str], _opt("embedding_base_url")]
DimensionsOpt = Annotated[Optional[int], _opt("embedding_dimensions")]
BatchOpt = Annotated[Optional[int], _opt("embedding_batch_size")]
IndexOpt = Annotated[Optional[str], _opt("index")]
EfSearchOpt = Annotated[Optional[int], _opt("ef_search")]
HnswMOpt = Annotated[Optional[int], _opt("hnsw_m")]
HnswEfcOpt = Annotated[Optional[int], _opt("hnsw_ef_construction")]
SeedOpt = Annotated[Optional[int], _opt("seed")]
BootstrapOpt = Annotated[Optional[int], _opt("bootstrap_resamples")]


def guarded(command: F) -> F:
    """Turn user errors into one line on stderr and exit code 2; bugs keep their traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BenchError as exc:
            stderr.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except RunInterrupted as exc:
            if sys.argv[1:2] == [command.__name__.replace("_", "-")]:  # the interrupted command was typed
                hint = resume_command(sys.argv[1:], exc.directory)
            else:  # run by another command (bench nightly): its options are not on this command line
                hint = (f"bench {exc.command} --dataset {shlex.quote(exc.dataset)} <the same options> "
                        f"--resume {shlex.quote(str(exc.directory))}")
            stderr.print(f"{exc}\nresume with: {hint}", highlight=False, soft_wrap=True, markup=False)
            raise typer.Exit(130) from None
        except KeyboardInterrupt:
            stderr.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        stdout.print(f"bench {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print bench's version and exit.")
    ] = False,
) -> None:
    """Benchmark a retrieval-augmented generation system tier by tier, on real services."""


def _run(tier: str, options: dict[str, Any], renamed: dict[str, str] | None = None) -> None:
    """Split a command's options into run arguments and settings flags (some flags have short names)."""
    from benchmarks.console import print_summary
    from benchmarks.runner import run_tier

    flags = dict(options)
    dataset, output_dir, config = flags.pop("dataset"), flags.pop("output_dir"), flags.pop("config")
    if "no_cache" in flags:
        flags["llm_cache"] = False if flags.pop("no_cache") else None
    for flag, setting in (renamed or {}).items():
        flags[setting] = flags.pop(flag)
    resume = flags.pop("resume", None)
    _no_output_dir_with_resume(output_dir, resume)
    settings, sources = load_settings(flags, config_file=config)
    outcome = run_tier(tier, dataset, settings, sources, output_dir=output_dir, resume=resume, stderr=stderr)
    print_summary(outcome.report, outcome.directory, stdout)


def _no_output_dir_with_resume(output_dir: Path | None, resume: Path | None) -> None:
    if resume is not None and output_dir is not None:
        raise BenchError("--resume continues in the stopped run's own folder: leave out --output-dir")


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


@app.command()
@guarded
def tier0(
    dataset: DatasetOpt,
    k: Annotated[Optional[int], _opt("neighbours", "k")] = None,
    distance: Annotated[Optional[str], _opt("distance")] = None,
    limit: Annotated[Optional[int], _opt("pairwise_limit", "limit")] = None,
    on: Annotated[Optional[str], _opt("embeddings_of", "on")] = None,
    output_dir: OutputOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    embedding_backend: BackendOpt = None,
    embedding_base_url: BaseUrlOpt = None,
    embedding_dimensions: DimensionsOpt = None,
    embedding_batch_size: BatchOpt = None,
    seed: SeedOpt = None,
) -> None:
    """Tier 0: geometry of the embedding space (no labels needed)."""
    _run("tier0", locals(), {"k": "neighbours", "limit": "pairwise_limit", "on": "embeddings_of"})


@app.command()
@guarded
def tier1(
    dataset: DatasetOpt,
    top_k: Annotated[Optional[int], _opt("top_k")] = None,
    relevance: Annotated[Optional[str], _opt("relevance")] = None,
    consistency_runs: Annotated[Optional[int], _opt("consistency_runs")] = None,
    latency_queries: Annotated[Optional[int], _opt("latency_queries")] = None,
    index: IndexOpt = None,
    ef_search: EfSearchOpt = None,
    hnsw_m: HnswMOpt = None,
    hnsw_ef_construction: HnswEfcOpt = None,
    retrieval_batch_size: Annotated[Optional[int], _opt("retrieval_batch_size")] = None,
    retrieval_workers: Annotated[Optional[int], _opt("retrieval_workers")] = None,
    output_dir: OutputOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    embedding_backend: BackendOpt = None,
    embedding_base_url: BaseUrlOpt = None,
    embedding_dimensions: DimensionsOpt = None,
    embedding_batch_size: BatchOpt = None,
    seed: SeedOpt = None,
    bootstrap_resamples: BootstrapOpt = None,
) -> None:
    """Tier 1: retrieval from pgvector against ground truth (hit rate, MRR, recall, precision, nDCG)."""
    _run("tier1", locals())


GeneratorOpt = Annotated[Optional[str], _opt("generator")]
GeneratorTemplateOpt = Annotated[Optional[Path], _opt("generator_template")]
JudgeBackendOpt = Annotated[Optional[str], _opt("judge_backend", "judge")]
JudgeModeOpt = Annotated[Optional[str], _opt("judge_mode", "mode")]
RepeatsOpt = Annotated[Optional[int], _opt("repeats")]
ExtraMetricsOpt = Annotated[Optional[str], _opt("extra_metrics", "metrics")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM response cache.")]
ConcurrencyOpt = Annotated[Optional[int], _opt("llm_concurrency", "concurrency")]
LanguageOpt = Annotated[str, typer.Option("--language", help="Prompt and explanation language: en or ru.")]
SentencesOpt = Annotated[Optional[int], _opt("extractive_sentences")]
ANSWERING_FLAGS = {"judge": "judge_backend", "mode": "judge_mode", "metrics": "extra_metrics",
                   "concurrency": "llm_concurrency"}


@app.command()
@guarded
def tier2(
    dataset: DatasetOpt,
    generator: GeneratorOpt = None,
    generator_template: GeneratorTemplateOpt = None,
    judge: JudgeBackendOpt = None,
    mode: JudgeModeOpt = None,
    repeats: RepeatsOpt = None,
    metrics: ExtraMetricsOpt = None,
    extractive_sentences: SentencesOpt = None,
    no_cache: NoCacheOpt = False,
    concurrency: ConcurrencyOpt = None,
    output_dir: OutputOpt = None,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    seed: SeedOpt = None,
    bootstrap_resamples: BootstrapOpt = None,
) -> None:
    """Tier 2: generation on the dataset's fixed context, judged (faithfulness, relevance, correctness 1–5),
    with ROUGE, BLEU and repeatability."""
    _run("tier2", locals(), ANSWERING_FLAGS)


@app.command()
@guarded
def tier3(
    dataset: DatasetOpt,
    top_k: Annotated[Optional[int], _opt("e2e_top_k", "top-k")] = None,
    generator: GeneratorOpt = None,
    generator_template: GeneratorTemplateOpt = None,
    judge: JudgeBackendOpt = None,
    mode: JudgeModeOpt = None,
    repeats: RepeatsOpt = None,
    metrics: ExtraMetricsOpt = None,
    extractive_sentences: SentencesOpt = None,
    index: IndexOpt = None,
    ef_search: EfSearchOpt = None,
    no_cache: NoCacheOpt = False,
    concurrency: ConcurrencyOpt = None,
    output_dir: OutputOpt = None,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    embedding_backend: BackendOpt = None,
    embedding_base_url: BaseUrlOpt = None,
    seed: SeedOpt = None,
    bootstrap_resamples: BootstrapOpt = None,
) -> None:
    """Tier 3: end to end: retrieve from pgvector, answer from the retrieved chunks, judge (e2e score,
    similarity to the reference, ROUGE, BLEU, repeatability), with each item's retrieval hit."""
    _run("tier3", locals(), {**ANSWERING_FLAGS, "top_k": "e2e_top_k"})


@app.command()
@guarded
def visualize(
    dataset: Annotated[list[str], typer.Option("--dataset", "-d", help="A shipped dataset or a dataset directory "
                                               "(as for tier0); repeat the option to draw several in one space.")],
    on: Annotated[str, typer.Option("--on", help="Draw the corpus embeddings (as stored in pgvector), the "
                                    "question embeddings, or both.")] = "corpus",
    color: Annotated[str, typer.Option("--color", help="Colour points by their topic field ('(none)' when "
                                       "missing) or by dataset.")] = "topic",
    three_d: Annotated[bool, typer.Option("--3d", help="Draw in 3D instead of 2D.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="Draw at most this many embeddings: a seeded sample "
                                       "beyond it.")] = 5000,
    output: Annotated[Optional[Path], typer.Option("--output", help="The HTML file to write (default: "
                                                   "<reports-dir>/<dataset>/visualize/<on>-by-<color>-<2d|3d>"
                                                   ".html).")] = None,
    seed: SeedOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    embedding_backend: BackendOpt = None,
    embedding_base_url: BaseUrlOpt = None,
    embedding_dimensions: DimensionsOpt = None,
    embedding_batch_size: BatchOpt = None,
) -> None:
    """The embedding space in 2D or 3D (UMAP), as one self-contained HTML page that opens offline."""
    from benchmarks.visualize import VisualizeRequest, run_visualize

    _choice("--on", on, ("corpus", "questions", "both"))
    _choice("--color", color, ("topic", "dataset"))
    settings, _ = load_settings({"seed": seed, "data_dir": data_dir, "reports_dir": reports_dir,
                                 "embedding_model": embedding_model, "embedding_backend": embedding_backend,
                                 "embedding_base_url": embedding_base_url,
                                 "embedding_dimensions": embedding_dimensions,
                                 "embedding_batch_size": embedding_batch_size}, config_file=config)
    request = VisualizeRequest(datasets=tuple(dataset), on=on, color=color,  # type: ignore[arg-type]
                               dimensions=3 if three_d else 2, limit=limit, output=output)
    path = run_visualize(request, settings, stderr=stderr)
    stdout.print(str(path), highlight=False, soft_wrap=True)


LogsOpt = Annotated[Optional[str], _opt("logs")]
LogsDatabaseOpt = Annotated[Optional[str], _opt("logs_database_url")]


@app.command()
@guarded
def ux(
    dataset: DatasetOpt,
    logs: LogsOpt = None,
    threshold: Annotated[Optional[float], _opt("cache_threshold", "threshold")] = None,
    test_share: Annotated[Optional[float], _opt("test_share")] = None,
    logs_database_url: LogsDatabaseOpt = None,
    output_dir: OutputOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    embedding_backend: BackendOpt = None,
    embedding_base_url: BaseUrlOpt = None,
    seed: SeedOpt = None,
    bootstrap_resamples: BootstrapOpt = None,
) -> None:
    """User experience from real-user logs: semantic cache hit rate (and its curve over thresholds),
    context preservation and multi-turn consistency of sessions."""
    _run("ux", locals(), {"threshold": "cache_threshold"})


@app.command("real-users")
@guarded
def real_users(
    dataset: DatasetOpt,
    logs: LogsOpt = None,
    topics: Annotated[Optional[int], _opt("topics")] = None,
    top_k: Annotated[Optional[int], _opt("top_k")] = None,
    logs_database_url: LogsDatabaseOpt = None,
    index: IndexOpt = None,
    ef_search: EfSearchOpt = None,
    output_dir: OutputOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    embedding_backend: BackendOpt = None,
    embedding_base_url: BaseUrlOpt = None,
    seed: SeedOpt = None,
    bootstrap_resamples: BootstrapOpt = None,
) -> None:
    """Retrieval on real users' logged questions (confluence_url as ground truth), chunk utilisation and
    topic coverage."""
    _run("real-users", locals())


@app.command()
@guarded
def nightly(
    suite: Annotated[Optional[Path], typer.Option("--suite", help="TOML suite: top-level settings (defaults of "
                                                  "every run) and [[run]] tables with tier, dataset and per-run "
                                                  "settings (see nightly.example.toml).")] = None,
    trends_only: Annotated[bool, typer.Option("--trends-only", help="Only re-render <reports-dir>/nightly/"
                                              "trends.html from <reports-dir>/index.jsonl.")] = False,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
) -> None:
    """Run a suite of tiers, record every run in reports/index.jsonl, compare with the previous run and
    render a trend page; a failing run is reported and the suite goes on (exit code 1 when any failed)."""
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
    if any(record.line["status"] != "ok" for record in records):
        raise typer.Exit(1)


@app.command()
@guarded
def compare(
    base: Annotated[Path, typer.Argument(help="The base run: its folder or its report.json.", show_default=False)],
    candidate: Annotated[Path, typer.Argument(help="The candidate run: its folder or its report.json.",
                                              show_default=False)],
    gates: Annotated[Optional[Path], typer.Option("--gates", help="Gates file (default: ./bench.gates.toml when "
                                                  "it exists).")] = None,
    allow_mismatch: Annotated[bool, typer.Option("--allow-mismatch", help="Compare runs on different datasets "
                                                 "or tier versions anyway (the differences are shown).")] = False,
    output_format: Annotated[str, typer.Option("--format", help="markdown (a GitHub comment) or json.")] = "markdown",
    output: Annotated[Optional[Path], typer.Option("--output", help="Write here instead of stdout.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the paired bootstrap.")] = 0,
    resamples: Annotated[int, typer.Option("--resamples", help="Paired bootstrap resamples.")] = 10_000,
) -> None:
    """Two runs side by side, for pull requests and nightly regressions. Exit 0 pass, 1 regression, 2 usage
    error or incomparable runs, 3 a broken run."""
    import json

    from benchmarks.compare import compare as run_compare
    from benchmarks.compare import load_gates, load_run, render

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
        output.write_text(text, encoding="utf-8")
    raise typer.Exit(result["exit_code"])


@app.command()
@guarded
def evaluate(
    dataset: Annotated[Path, typer.Option("--dataset", "-d", help="Samples as JSONL or CSV, with RAGAS column "
                                          "names (user_input, retrieved_contexts, response, reference) or bench's "
                                          "(question, contexts, answer, reference_answer).")],
    metrics: Annotated[str, typer.Option("--metrics", "-m", help="Comma-separated metrics: faithfulness, "
                                         "context_precision, context_recall, context_entity_recall, "
                                         "noise_sensitivity, response_relevancy, semantic_similarity, "
                                         "factual_correctness, answer_correctness, context_relevance.")],
    models: Annotated[Optional[str], typer.Option("--models", help="Comma-separated judge models; each metric "
                                                  "runs on every one (default: llm_models, else judge_model).")] = None,
    language: LanguageOpt = "en",
    judge: Annotated[str, typer.Option("--judge", help="llm: the configured LLM judges; offline: embedding and "
                                       "token-overlap proxies, for metrics where one is meaningful.")] = "llm",
    questions: Annotated[int, typer.Option("--questions", help="response_relevancy: questions generated per "
                                           "response.")] = 3,
    threshold: Annotated[Optional[float], typer.Option("--threshold", help="semantic_similarity: report 1.0 when "
                                                       "the cosine is at least this, else 0.0.")] = None,
    weights: Annotated[str, typer.Option("--weights", help="answer_correctness: default (0.75/0.25), equal, "
                                         "factual-focused, semantic-focused, or 'F,S' custom weights.")] = "default",
    factual_mode: Annotated[str, typer.Option("--factual-mode", help="factual_correctness: f1, precision or "
                                              "recall.")] = "f1",
    beta: Annotated[float, typer.Option("--beta", help="factual_correctness: beta of the F-beta score.")] = 1.0,
    noise_mode: Annotated[str, typer.Option("--noise-mode", help="noise_sensitivity: relevant or "
                                            "irrelevant.")] = "relevant",
    precision_against: Annotated[str, typer.Option("--precision-against", help="context_precision: judge each "
                                                   "context against the reference, the response, or auto "
                                                   "(the reference when the sample has one).")] = "auto",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the judge calls and an estimate of prompt "
                                          "tokens the run would need, and make none.")] = False,
    no_cache: NoCacheOpt = False,
    concurrency: ConcurrencyOpt = None,
    output_dir: OutputOpt = None,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
) -> None:
    """RAGAS-style metrics on single-turn samples, judged by one or several LLMs (or offline proxies)."""
    from benchmarks.console import print_summary
    from benchmarks.evaluate import EvaluateRequest, parse_metrics, parse_weights, run_evaluate
    from benchmarks.judge.llm_judge import JudgeOptions

    settings, sources = _llm_settings(config, no_cache=no_cache, llm_concurrency=concurrency, data_dir=data_dir,
                                      reports_dir=reports_dir, embedding_model=embedding_model)
    _choice("--language", language, ("en", "ru"))
    _choice("--judge", judge, ("llm", "offline"))
    _choice("--factual-mode", factual_mode, ("f1", "precision", "recall"))
    _choice("--noise-mode", noise_mode, ("relevant", "irrelevant"))
    _choice("--precision-against", precision_against, ("auto", "reference", "response"))
    request = EvaluateRequest(
        path=dataset,
        metrics=parse_metrics(metrics),
        backend=judge,  # type: ignore[arg-type]
        language=language,  # type: ignore[arg-type]
        models=_names(models),
        options=JudgeOptions(questions=questions, threshold=threshold, weights=parse_weights(weights),
                             factual_mode=factual_mode, beta=beta, noise_mode=noise_mode,  # type: ignore[arg-type]
                             precision_against=precision_against),  # type: ignore[arg-type]
    )
    if dry_run:
        _print_plan(request, settings)
        return
    _no_output_dir_with_resume(output_dir, resume)
    outcome = run_evaluate(request, settings, sources, output_dir=output_dir, resume=resume, stderr=stderr)
    print_summary(outcome.report, outcome.directory, stdout)


def _names(text: str | None) -> tuple[str, ...] | None:
    """A comma-separated option (--models a,b) as names; None when not given."""
    return tuple(name.strip() for name in text.split(",") if name.strip()) if text else None


def _llm_settings(config: Path | None, *, no_cache: bool, **flags: Any) -> tuple[Any, Any]:
    """Settings of a command that calls an LLM: --no-cache turns the cache off, its absence leaves it to config."""
    return load_settings({**flags, "llm_cache": False if no_cache else None}, config_file=config)


def _choice(option: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise BenchError(f"{option}: expected one of {', '.join(choices)}, got {value!r}")


def _print_plan(request: Any, settings: Any) -> None:
    from rich.table import Table

    from benchmarks.evaluate import judge_models, plan, read_samples
    from benchmarks.services.llm import require_llm

    if request.backend == "offline":
        raise BenchError("--dry-run counts LLM calls; --judge offline makes none")
    require_llm(settings, dry_run=True)
    models = judge_models(request.models, settings)
    rows = plan(request, read_samples(request), models)
    table = Table(title=f"dry run: {', '.join(models)} (no call made)")
    for column in ("metric", "calls", "estimated prompt tokens"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for row in rows:
        table.add_row(row["metric"], str(row["calls"]), str(row["estimated_prompt_tokens"]))
    table.add_row("total", str(sum(r["calls"] for r in rows)), str(sum(r["estimated_prompt_tokens"] for r in rows)))
    stdout.print(table)


@app.command("judge-pipeline")
@guarded
def judge_pipeline(
    dataset: DatasetOpt,
    prompt_template: Annotated[Optional[Path], typer.Option("--prompt-template", help="Your production judge's "
                                                            "prompt, with {question}, {context} and {answer} "
                                                            "placeholders (literal braces doubled). Default: "
                                                            "bench's prompt in --language.")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="The production judge's model (default: "
                                                 "judge_model, else llm_model).")] = None,
    language: Annotated[str, typer.Option("--language", help="Language of bench's default prompt: en or "
                                          "ru.")] = "en",
    via: Annotated[str, typer.Option("--via", help="llm: the prompt goes to the configured LLM; http: each item "
                                     "goes to your own judge service (show_judge_http_url, "
                                     "show_judge_http_request, show_judge_http_response_path).")] = "llm",
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM response "
                                           "cache (latency is measured on calls the endpoint answers).")] = False,
    concurrency: ConcurrencyOpt = None,
    output_dir: OutputOpt = None,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
) -> None:
    """The production show/no-show judge as a classifier: accuracy, precision, recall, F1, confusion."""
    from benchmarks.console import print_summary
    from benchmarks.judge_pipeline import production_judge, run_judge_pipeline

    _choice("--language", language, ("en", "ru"))
    _choice("--via", via, ("llm", "http"))
    settings, sources = _llm_settings(config, no_cache=no_cache, llm_concurrency=concurrency, data_dir=data_dir,
                                      reports_dir=reports_dir)
    judge = production_judge(via, settings, prompt_template=prompt_template, model=model,  # type: ignore[arg-type]
                             language=language)  # type: ignore[arg-type]
    _no_output_dir_with_resume(output_dir, resume)
    outcome = run_judge_pipeline(dataset, settings, sources, judge=judge, language=language,  # type: ignore[arg-type]
                                 output_dir=output_dir, resume=resume, stderr=stderr)
    print_summary(outcome.report, outcome.directory, stdout)


@app.command("judge")
@guarded
def judge(
    dataset: Annotated[str, typer.Option("--dataset", "-d", help="A shipped dataset (synthetic, synthetic-ru: its "
                                         "judge_pipeline.jsonl, or judge_pairs.jsonl with --pairwise), a folder "
                                         "holding that file, or a JSONL file: items with id, question, context, "
                                         "answer (reference when the rating reads it), or pairs with id, question, "
                                         "context, answer_a, answer_b and optionally better (a, b or tie).")],
    metric: Annotated[Optional[str], typer.Option("--metric", "-m", help="The rating the judge gives: "
                                                  "faithfulness (default), answer_relevance, answer_correctness "
                                                  "(1–5) or e2e_score; the last two read a reference.")] = None,
    pairwise: Annotated[bool, typer.Option("--pairwise", help="Ask which of two answers is better, in both "
                                           "orders: position bias, ties and, with labels, accuracy.")] = False,
    models: Annotated[Optional[str], typer.Option("--models", help="Comma-separated judge models; each one rates "
                                                  "every item (default: llm_models, else judge_model).")] = None,
    language: LanguageOpt = "en",
    judge: JudgeBackendOpt = None,
    mode: JudgeModeOpt = None,
    repeats: RepeatsOpt = None,
    delta: Annotated[Optional[float], _opt("delta")] = None,
    no_cache: NoCacheOpt = False,
    concurrency: ConcurrencyOpt = None,
    output_dir: OutputOpt = None,
    resume: ResumeOpt = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    reports_dir: ReportsDirOpt = None,
    embedding_model: ModelOpt = None,
    seed: SeedOpt = None,
    bootstrap_resamples: BootstrapOpt = None,
) -> None:
    """The LLM judge itself: repeatability of its scores, errors, latency; with --pairwise, position bias."""
    from benchmarks.console import print_summary
    from benchmarks.judge_tier import JudgeRequest, run_judge

    _choice("--language", language, ("en", "ru"))
    settings, sources = _llm_settings(config, no_cache=no_cache, llm_concurrency=concurrency, judge_backend=judge,
                                      judge_mode=mode, repeats=repeats, delta=delta, data_dir=data_dir,
                                      reports_dir=reports_dir, embedding_model=embedding_model, seed=seed,
                                      bootstrap_resamples=bootstrap_resamples)
    request = JudgeRequest(spec=dataset, rating=metric, pairwise=pairwise, language=language,  # type: ignore[arg-type]
                           models=_names(models))
    _no_output_dir_with_resume(output_dir, resume)
    outcome = run_judge(request, settings, sources, output_dir=output_dir, resume=resume, stderr=stderr)
    print_summary(outcome.report, outcome.directory, stdout)


@app.command("import-logs")
@guarded
def import_logs(
    file: Annotated[Path, typer.Argument(help="Real users' turns as JSONL or CSV: question (required), id, answer, "
                                         "confluence_url (or url), score (1–5), session_id, turn_order (or turn), "
                                         "created_at (ISO-8601).")],
    name: Annotated[Optional[str], typer.Option("--name", help="Log name the tiers read it back by (default: "
                                                "the file name without its extension).")] = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Load real users' logged turns into bench's own question_answer table; importing again is a no-op."""
    from benchmarks.services.logs import import_logs as import_file

    settings, _ = load_settings({"data_dir": data_dir}, config_file=config)
    log = name if name is not None else file.stem
    stats = import_file(settings, file, log)
    stdout.print(f"{log}: {stats.inserted} inserted, {stats.updated} updated, {stats.unchanged} unchanged")


@db_app.command("upgrade")
@guarded
def db_upgrade(config: ConfigOpt = None, data_dir: DataDirOpt = None) -> None:
    """Apply pending Alembic migrations (bench also does this by itself before every run)."""
    from benchmarks.services.database import connect

    settings, _ = load_settings({"data_dir": data_dir}, config_file=config)
    database = connect(settings)
    database.engine.dispose()
    applied = ", ".join(database.migrations_applied) or "none (already current)"
    stdout.print(f"{database.url_shown}: migrations applied: {applied}")


@db_app.command("drop-collection")
@guarded
def db_drop_collection(
    name: Annotated[str, typer.Argument(help="Collection (dataset name) whose stored chunks are deleted.")],
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Delete a collection's stored chunks and indexes (every embedding model); the next run re-indexes."""
    from benchmarks.services.database import connect
    from benchmarks.services.store import drop_collection

    settings, _ = load_settings({"data_dir": data_dir}, config_file=config)
    database = connect(settings)
    try:
        removed = drop_collection(database.engine, name)
    finally:
        database.engine.dispose()
    stdout.print(f"{name}: {removed} embedding space(s) removed")


if __name__ == "__main__":
    sys.exit(app())
