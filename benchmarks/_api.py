"""bench from Python: score samples and run any tier from a notebook or a pytest suite.

A private module: its public names are re-exported by the package (`from benchmarks import evaluate`),
so they can move here without breaking anyone. Every call takes the CLI's own path: settings resolved by
`load_settings` (the values given here on top of the environment, bench.toml and the defaults), the tier
run by `run_tier`, the report built by the same code. A number the API returns is therefore the number
`bench` reports for the same samples and settings, and nothing here scores anything itself.

Heavy modules (numpy, torch, the database) are imported when a function is called, never when this
module is, so `import benchmarks` and `bench --help` stay fast.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from benchmarks.errors import BenchError, InputError, by_closeness, extra_hint
from benchmarks.samples import FIELDS, Sample, SampleSet
from benchmarks.tiers.base import Metric

if TYPE_CHECKING:
    import pandas

    from benchmarks.config import Origins, Settings
    from benchmarks.report_model import Report

T = TypeVar("T")
SampleLike = Sample | Mapping[str, Any]
Names = Sequence[str] | str  # a list of names, or one comma-separated string as on the command line
# the argument of `evaluate` that gives each of these settings: errors name it as written, `metrics=[...]`
_ARGUMENTS = {"metrics": "metrics", "llm_models": "models", "judge_backend": "judge", "language": "language"}


@dataclass(frozen=True)
class MetricScore:
    """One metric on one sample, over every judge model: what `items.jsonl` holds, folded the way the report
    folds it, so a notebook can sort and filter samples without re-deriving the report's rules.

    `value` is the mean of the models that scored (status ok), as the report's per-sample mean is, or None
    when none did; `status` is "ok" when any model scored, else the first model's status (undetermined,
    parse_error, api_error), so a failed sample is never a silent None. `explanation` is the judge's own
    reasons (each model's prefixed by its name when there are several); `per_model` keeps each model's value
    (None where it did not score) for checking agreement; `duration_ms` is the judging time summed over the
    models."""

    value: float | None
    status: str
    explanation: str
    per_model: dict[str, float | None]
    duration_ms: float


@dataclass(frozen=True)
class SampleResult:
    """A sample's scores by metric name, under the sample's id (the one given, or `s00001`... by position, as
    a JSONL file without ids would get), so a result leads back to its input."""

    id: str
    scores: dict[str, MetricScore]


@dataclass(frozen=True)
class ReportedMetric(Metric):
    """One metric as the run's report gives it (`result["faithfulness"]`): the report's entry (value, n, errors,
    95% CI, direction, agreement with labels) and, where the report counts judge statuses per metric
    (evaluate), those counts, so the number is read with what it rests on without digging in the report."""

    statuses: dict[str, int] | None = None

    @classmethod
    def of(cls, report: Report, name: str) -> ReportedMetric:
        """Read from the report rather than kept apart, so it cannot disagree with report.json."""
        entry = report.metrics[name]
        # plain data, as report.json and a tier's Metric hold it
        agreement = entry.agreement.written() if entry.agreement else None
        counted = (report.notes.statuses or {}).get(name)  # other tiers count statuses otherwise, or not
        return cls(value=entry.value, n=entry.n, errors=entry.errors,
                   ci95=None if entry.ci95 is None else (entry.ci95[0], entry.ci95[1]),  # two, as validated
                   higher_is_better=entry.higher_is_better, agreement=agreement,
                   statuses=counted if isinstance(counted, dict) else None)


class _ByMetric:
    """What Evaluation and Run share: their report, read by metric name (`result["ndcg@10"]`, `"mrr" in
    result`) as the report names the metrics."""

    report: Report

    @property
    def metrics(self) -> dict[str, float | int | None]:
        """Each reported metric's value by name (`faithfulness`, and `faithfulness/<model>` with several
        models; `ndcg@10` of tier1): the report's numbers without their n, errors and CI."""
        return {name: metric.value for name, metric in self.report.metrics.items()}

    def __getitem__(self, metric: str) -> ReportedMetric:
        """A mistyped name is a KeyError listing the reported metrics, the likeliest first."""
        if metric not in self.report.metrics:
            raise KeyError(f"unknown metric {metric!r}; reported, closest first: "
                           f"{', '.join(by_closeness(metric, self.report.metrics))}")
        return ReportedMetric.of(self.report, metric)

    def __contains__(self, metric: object) -> bool:
        """Whether the report has this metric: `in` asks about names, as indexing does (not about samples)."""
        return isinstance(metric, str) and metric in self.report.metrics


@dataclass(frozen=True)
class Evaluation(_ByMetric):
    """What `evaluate` returns. `samples` are in the order they were given (the report's items are sorted by
    id); `report` is the aggregate as a `benchmarks.report.Report`, the model report.json is written from
    (each metric with value, n, errors and 95% CI, the statuses, the judges' agreement, provenance; its
    `benchmarks.report.document` is report.json's content), so it can be saved, diffed or compared like any
    run; `items` are the raw per-sample rows (with the judges' raw completions); `directory` is where the
    run's files were written, None when none were."""

    samples: list[SampleResult]
    report: Report
    items: list[dict[str, Any]]
    directory: Path | None = None

    def __iter__(self) -> Iterator[SampleResult]:
        """The per-sample results in input order (indexing, by contrast, is by metric name)."""
        return iter(self.samples)

    def __len__(self) -> int:
        return len(self.samples)

    def to_records(self) -> list[dict[str, Any]]:
        """One flat row per sample, in input order, for a table or a CSV without any other library: `id`, the
        sample's fields (None where not given), each metric's value, each judge model's as `<metric>/<model>`
        when there are several, and the metric's status as `<metric>.status`."""
        given = {item["id"]: {**item["inputs"], **item["answer"]} for item in self.items}
        return [{"id": sample.id, **{name: given[sample.id][name] for name in FIELDS}, **_columns(sample.scores)}
                for sample in self.samples]

    def to_pandas(self) -> pandas.DataFrame:
        """`to_records` as a pandas DataFrame. pandas is an optional extra: without it this is an ImportError
        that says how to install it."""
        try:
            import pandas
        except ImportError as exc:
            raise ImportError(f"Evaluation.to_pandas needs pandas: {extra_hint('pandas')}", name="pandas") from exc
        return pandas.DataFrame(self.to_records())

    def __repr__(self) -> str:  # the report and items are long: a notebook shows the numbers
        return f"Evaluation(metrics={self.metrics!r}, samples={len(self.samples)}, directory={self.directory!r})"


@dataclass(frozen=True)
class Run(_ByMetric):
    """What `run` returns: the tier's report (a `benchmarks.report.Report`, the model of report.json), its
    items as items.jsonl holds them (iterating a Run goes over them), and the run folder (None when nothing
    was written)."""

    report: Report
    items: list[dict[str, Any]]
    directory: Path | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return (f"Run(tier={self.report.tier!r}, metrics={self.metrics!r}, items={len(self.items)}, "
                f"directory={self.directory!r})")


def evaluate(samples: Iterable[SampleLike], metrics: Names | None, *, models: Names | None = None,
             judge: str | None = None, language: str | None = None, settings: Mapping[str, Any] | None = None,
             config: str | PathLike[str] | None = None, output_dir: str | PathLike[str] | None = None,
             name: str = "samples") -> Evaluation:
    """Score single-turn samples with bench evaluate's metrics, as `bench evaluate` would.

    `samples`: `Sample` objects or mappings with RAGAS's field names (`user_input`, `retrieved_contexts`,
    `response`, `reference`) or bench's (`question`, `contexts`, `answer`, `reference_answer`), and an optional
    `id` (default: `s00001`, `s00002`... by position); other keys are ignored. `metrics`: names such as
    `["faithfulness", "semantic_similarity"]` (a rubric of bench.toml or of `settings["rubrics"]` too).
    `models`: judge models compared side by side (default: the configured judge model); `judge`: "llm", "local"
    (bench starts llama.cpp's server on `settings["local_model"]` for the call) or "offline" (embedding and
    token-overlap proxies, no LLM); `language`: "en" or "ru". Arguments left None
    take the value from `settings`, the environment (BENCH_*), bench.toml (or the `config` file) or the
    default, in that order; `settings` holds any other setting by its bench.toml name, e.g.
    `{"llm_base_url": ..., "llm_concurrency": 4}`. Files (report.json, report.md, items.jsonl) are written
    only when `output_dir` is given. `name` is the dataset name the report shows.

    Raises BenchError (with a message that names the sample and field, or the setting) on bad input or
    configuration. Callable inside a running event loop (a Jupyter cell): the run then happens in a worker
    thread while this call waits."""
    return _off_the_loop(lambda: _evaluate(samples, metrics, models=models, judge=judge, language=language,
                                           settings=settings, config=config, output_dir=output_dir, name=name))


async def aevaluate(samples: Iterable[SampleLike], metrics: Names | None, *, models: Names | None = None,
                    judge: str | None = None, language: str | None = None,
                    settings: Mapping[str, Any] | None = None, config: str | PathLike[str] | None = None,
                    output_dir: str | PathLike[str] | None = None, name: str = "samples") -> Evaluation:
    """`evaluate` for async code: the same arguments and result. The run happens in a worker thread, since the
    tier runs its own event loop (with its bounded concurrency and retries), and the caller's loop stays free;
    cancelling the awaiting task does not stop a run already started."""
    return await asyncio.to_thread(_evaluate, samples, metrics, models=models, judge=judge, language=language,
                                   settings=settings, config=config, output_dir=output_dir, name=name)


def run(tier: str, dataset: str | PathLike[str], *, settings: Mapping[str, Any] | None = None,
        config: str | PathLike[str] | None = None, output_dir: str | PathLike[str] | None = None,
        write: bool = True) -> Run:
    """Run any tier as its command would: `tier` is its name in the registry ("tier1", "tier2", "evaluate",
    "judge-pipeline", ...), `dataset` what the command's --dataset takes (a shipped dataset such as
    "synthetic", a folder, a samples or items file). `settings` holds settings by their bench.toml names
    (e.g. `{"top_k": 20, "index": "hnsw"}`), on top of the environment and bench.toml (or `config`).
    With `write` (the default) the run's files go into `output_dir`, or a new run folder under reports_dir with
    `latest` beside it, as the CLI does; `write=False` builds the report without writing any file."""
    from benchmarks.tiers import TIERS

    if tier not in TIERS:
        raise BenchError(f"unknown tier {tier!r}; known: {', '.join(TIERS)}")
    if output_dir is not None and not write:
        raise BenchError("output_dir is where files are written: leave it out with write=False")
    resolved, origins = _settings(settings, {}, config)
    outcome = _off_the_loop(lambda: _run_tier(tier, str(dataset), resolved, origins, output_dir=output_dir,
                                              write=write))
    return Run(report=outcome.report, items=outcome.items, directory=outcome.directory)


def _evaluate(samples: Iterable[SampleLike], metrics: Names | None, *, models: Names | None, judge: str | None,
              language: str | None, settings: Mapping[str, Any] | None, config: str | PathLike[str] | None,
              output_dir: str | PathLike[str] | None, name: str) -> Evaluation:
    arguments = {"metrics": metrics, "llm_models": models, "judge_backend": judge, "language": language}
    resolved, origins = _settings(settings, arguments, config)
    sample_set = samples_to_set(samples, name=name, language=resolved.language)
    outcome = _run_tier("evaluate", name, resolved, origins, inputs=sample_set, output_dir=output_dir,
                        write=output_dir is not None)
    judged_by = outcome.report.provenance.judge
    assert judged_by is not None and judged_by.models is not None  # evaluate names its judge models
    models_run = judged_by.models
    by_id = {item["id"]: item for item in outcome.items}
    results = [SampleResult(sample.id, {metric: _score(by_id[sample.id]["scores"][metric], models_run)
                                        for metric in resolved.metrics or ()})
               for sample in sample_set.samples if sample.id in by_id]  # a `limit` runs a sample of them
    return Evaluation(samples=results, report=outcome.report, items=outcome.items, directory=outcome.directory)


def _settings(given: Mapping[str, Any] | None, arguments: Mapping[str, Any], config: str | PathLike[str] | None
              ) -> tuple[Settings, Origins]:
    """The settings as the CLI resolves them, with `given` and the named arguments where the CLI has its flags;
    each given value is named in messages as it was spelled."""
    from benchmarks.config import SETTING_FIELDS, load_settings, unknown_setting

    values = dict(given or {})
    unknown = [key for key in values if key not in SETTING_FIELDS]
    if unknown:
        raise BenchError("; ".join(f"settings[{key!r}]: {unknown_setting(key)}" for key in unknown))
    typed = {key: f"settings[{key!r}]" for key, value in values.items() if value is not None}
    for key, value in arguments.items():
        if value is None:
            continue
        if values.get(key) is not None and _same(values[key]) != _same(value):
            raise BenchError(f"{_ARGUMENTS[key]}= and settings[{key!r}] disagree: give it once")
        values[key], typed[key] = value, f"{_ARGUMENTS[key]}={value!r}"
    return load_settings(values, config_file=None if config is None else Path(config), flags=typed, given_by="api")


def _same(value: Any) -> Any:
    """A list and a tuple of the same names are one value."""
    return list(value) if isinstance(value, (list, tuple)) else value


def _run_tier(tier: str, spec: str, settings: Settings, origins: Origins, *, output_dir: str | PathLike[str] | None,
              write: bool, inputs: SampleSet | None = None) -> Any:
    from benchmarks.runner import run_tier

    return run_tier(tier, spec, settings, origins, inputs=inputs, write=write,
                    output_dir=None if output_dir is None else Path(output_dir))


def samples_to_set(samples: Iterable[SampleLike], *, name: str = "samples", language: str = "en") -> SampleSet:
    """The samples as the input set of bench evaluate. They are read by the JSONL reader of `bench evaluate`
    (one sample a line), so field names, checks and default ids are those of a file; the content sha256 is
    that of their canonical JSONL (`canonical_jsonl`), so writing that text to a file and running the CLI on it
    gives a report that `bench compare` accepts as the same data."""
    from benchmarks.readers.samples import COLUMNS, load_samples

    if isinstance(samples, (str, bytes, PathLike, Mapping, Sample)):
        raise BenchError(f"samples: expected a list of samples (Sample objects or mappings), got "
                         f"{type(samples).__name__}; to evaluate a file, use run('evaluate', path, ...)")
    lines = []
    for index, sample in enumerate(samples):
        if isinstance(sample, Sample):
            record: dict[str, Any] = _sample_record(sample)
        elif isinstance(sample, Mapping):
            record = {str(key): value for key, value in sample.items() if key in COLUMNS}
        else:
            raise InputError(f"samples[{index}]", f"expected a Sample or a mapping, got {type(sample).__name__}")
        lines.append(_json_line(record, index, COLUMNS))
    if not lines:
        raise BenchError("samples: no samples")
    try:
        parsed = load_samples(Path("samples.jsonl"), "".join(lines).encode("utf-8"))
    except InputError as exc:  # the reader counts lines from 1; say which sample of the list it was
        at = exc.line or 1
        detail = re.sub(r"first on line (\d+)", lambda m: f"first at samples[{int(m[1]) - 1}]", exc.detail)
        raise InputError(f"samples[{at - 1}]", detail, field=exc.field) from None
    text = canonical_jsonl(parsed)
    return SampleSet(name=name, format="python", content_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                     samples=tuple(parsed), language=language)


def canonical_jsonl(samples: Iterable[Sample]) -> str:
    """One sample a line: id and the fields given, RAGAS's names, keys sorted, no spaces, UTF-8 as is."""
    return "".join(json.dumps(_sample_record(s), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
                   for s in samples)


def _sample_record(sample: Sample) -> dict[str, Any]:
    record: dict[str, Any] = {"id": sample.id}
    for name in FIELDS:
        value = getattr(sample, name)
        if value is not None:
            record[name] = value
    if sample.labels:
        record["labels"] = dict(sample.labels)
    return record


def _json_line(record: dict[str, Any], index: int, columns: Mapping[str, str]) -> str:
    """The sample as a JSONL line; a value JSON cannot hold is refused here, by sample and field."""
    for key, value in record.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            expected = {"retrieved_contexts": "a list of strings", "labels": "an object of metric names to numbers"
                        }.get(columns[key], "a string")
            raise InputError(f"samples[{index}]", f"expected {expected}, got {type(value).__name__}",
                             field=key) from None
    return json.dumps(record, ensure_ascii=False) + "\n"


def _score(by_model: Mapping[str, Mapping[str, Any]], models: Sequence[str]) -> MetricScore:
    """An item row's outcomes of one metric (model -> {value, status, explanation, calls, duration_ms, raw})
    folded over the models in the run's order."""
    rows = [(model, by_model[model]) for model in models]
    per_model = {model: row["value"] if row["status"] == "ok" else None for model, row in rows}
    scored = [value for value in per_model.values() if value is not None]
    status = "ok" if scored else rows[0][1]["status"]
    explanation = rows[0][1]["explanation"] if len(rows) == 1 else "\n".join(
        f"{model}: {row['explanation']}" for model, row in rows)
    return MetricScore(value=sum(scored) / len(scored) if scored else None, status=status, explanation=explanation,
                       per_model=per_model, duration_ms=sum(row["duration_ms"] or 0.0 for _, row in rows))


def _columns(scores: Mapping[str, MetricScore]) -> dict[str, Any]:
    """A sample's scores as `to_records` columns: value, each model's value (several models), status."""
    columns: dict[str, Any] = {}
    for metric, score in scores.items():
        columns[metric] = score.value
        if len(score.per_model) > 1:
            columns.update({f"{metric}/{model}": value for model, value in score.per_model.items()})
        columns[f"{metric}.status"] = score.status
    return columns


def _off_the_loop(work: Callable[[], T]) -> T:
    """Tiers run their own event loop (asyncio.run), which cannot start inside a running one (a Jupyter cell,
    an async test): there the work runs in a worker thread and this call waits for it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bench") as pool:
        return pool.submit(work).result()
