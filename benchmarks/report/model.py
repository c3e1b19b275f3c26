"""report.json as one versioned model, shared by its writer (`build`) and every reader (the terminal summary,
report.md, `bench compare`, `bench nightly`, the Python API), so that each key is named once, here.

The file is the model's dump as the writer gave it, `model_dump(exclude_unset=True)`: a block a tier did not
write stays out of the file rather than turning into a null, and each block dumps its keys sorted (metrics
keep their tier's reading order and come last), so the same run gives the same bytes and PR diffs stay quiet.
Validation is strict, so no value is coerced on the way in (an int is not turned into a float): a report read
back and dumped again is the same file.

Blocks that tiers fill with keys of their own (provenance, notes, volatile, a dataset's counts, a label
agreement) allow extra keys and keep them as given; a key some reader reads is declared. Blocks built from
bench's own dataclasses (a metric, a warning) allow nothing else. A nested field is optional when some tier,
or an earlier report of this schema version, goes without it.

A change of layout that an older reader cannot take bumps SCHEMA_VERSION; any change regenerates
report.schema.json beside this module (`make report-schema`).

The items (items.jsonl) are no model but a TypedDict, `benchmarks.item_record.ItemRecord`: a run can have a
million of them, and a model instance for each would more than double what loading them costs compare.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from benchmarks._version import REPORT_SCHEMA_VERSION

SCHEMA_VERSION = REPORT_SCHEMA_VERSION  # its history is in benchmarks/_version.py

Number = int | float  # strict: an int stays an int, as the tier gave it
Interval = Annotated[list[Number], Field(min_length=2, max_length=2)]  # [low, high]: JSON has no tuple


class _Block(BaseModel):
    """A block of the report: validated without coercion, dumped with sorted keys."""

    model_config = ConfigDict(strict=True, extra="forbid")

    @model_serializer(mode="wrap")
    def _sorted(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return dict(sorted(dumped.items()))


class _OpenBlock(_Block):
    """A block tiers extend with keys of their own, kept as given: bench reads those only with the whole block
    (report.md's notes, compare's config diff), never by name."""

    model_config = ConfigDict(extra="allow")


# --- dataset and log ----------------------------------------------------------------------------------


class Limit(_Block):
    """A `--limit` run: `n` of the set's `of` units, drawn with `seed`."""

    n: int
    of: int
    seed: int


class DatasetBlock(_OpenBlock):
    """The input set's identity and what it holds; a set's own kind of unit may add its count."""

    name: str
    content_sha256: str
    version: str | None = None
    language: str | None = None
    format: str | None = None
    questions_sha256: str | None = None  # bench evaluate: its questions alone, what compare matches runs on
    documents: int | None = None
    questions: int | None = None
    samples: int | None = None
    items: int | None = None
    limit: Limit | None = None


class LogBlock(_OpenBlock):
    """The real-user log a run read (ux, real-users): part of the run's identity, as its dataset is."""

    name: str
    content_sha256: str
    log_entries: int
    sessions: int
    format: str | None = None
    language: str | None = None


# --- provenance ---------------------------------------------------------------------------------------


class NumericPath(_OpenBlock):
    """What decides the last digits of the numbers on the machine that computed them."""

    cpu: str
    libm: str
    blas: str
    numpy_simd: str
    overrides: dict[str, str] | None = None


class Embedder(_OpenBlock):
    id: str
    dimension: int
    backend: str
    engine: str | None = None


class Index(_OpenBlock):
    type: str


class Store(_OpenBlock):
    postgres: str
    pgvector: str
    backend: str


class Generator(_OpenBlock):
    """The system under test, as its adapter describes itself."""

    adapter: str
    model: str | None = None
    url: str | None = None
    note: str | None = None


class LocalJudge(_Block):
    """The judge bench started (`--judge local`): what decides its numbers beside the prompts and the reading."""

    model_file: str
    sha256: str
    runtime: str  # the runtime and its version: "xllamacpp 2026.10.11549"
    context_size: int  # tokens a call may fill (a server slot's context)


class Judge(_OpenBlock):
    """Who graded. Tiers 2 and 3 name one `model`, evaluate and judge their `models`; `metrics` are the
    report's metrics the judge graded, which compare makes not comparable when the judge changes."""

    backend: str
    model: str | None = None
    models: list[str] | None = None
    mode: str | None = None
    url: str | None = None
    language: str | None = None
    metrics: list[str] | None = None
    verdicts: str | None = None
    verdict_reading: dict[str, str] | None = None
    prompts_sha256: dict[str, str] | None = None
    local: LocalJudge | None = None
    offline_sha256: str | None = None  # the offline judge's code (judge.catalog.offline_sha256)


class Similarity(_OpenBlock):
    """The calibrated similarity's scale, and which of the report's metrics are read on it."""

    metrics: list[str]
    baseline: Number
    model: str
    language: str
    baseline_from: str
    prompt: str | None = None


class Provenance(_OpenBlock):
    """Where the numbers come from: bench and its environment, then what the tier ran on."""

    bench_version: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    python: str | None = None
    packages: dict[str, str | None] | None = None
    numeric_path: NumericPath | None = None
    embedder: Embedder | None = None
    index: Index | None = None
    store: Store | None = None
    generator: Generator | None = None
    judge: Judge | None = None
    similarity: Similarity | None = None
    prompts_sha256: dict[str, str] | None = None  # evaluate keeps its prompts' hashes beside the judge block


# --- metrics ------------------------------------------------------------------------------------------


class AgreementStatistic(_Block):
    value: Number | None
    ci95: Interval | None
    n: int  # what it rests on: samples, or pairs for pairwise accuracy


class Agreement(_OpenBlock):
    """A judge against people's labels (metrics.label_agreement), in the statistics of the labels' kind."""

    n: int
    labels: str
    labelled: int | None = None
    label: str | None = None  # the labels' name, where it is not the metric's (the judge tier's ratings)
    threshold: Number | None = None
    roc_auc: AgreementStatistic | None = None
    spearman: AgreementStatistic | None = None
    kendall: AgreementStatistic | None = None
    pairwise_accuracy: AgreementStatistic | None = None
    accuracy: AgreementStatistic | None = None
    cohen_kappa: AgreementStatistic | None = None


class MetricEntry(_Block):
    """One reported number (tiers.base.Metric). `higher_is_better` is None for descriptive numbers."""

    value: Number | None
    n: int
    errors: int = 0
    ci95: Interval | None = None
    higher_is_better: bool | None = True
    agreement: Agreement | None = None  # only with labels, so unlabelled reports keep their shape


class WarningEntry(_Block):
    """A problem in the data that did not stop the run (inputs.Warning)."""

    code: str
    message: str
    count: int
    examples: list[str]


# --- notes --------------------------------------------------------------------------------------------


class Queries(_OpenBlock):
    without_relevant: int  # tier 1: questions left out of the means


class RetrievalGroup(_OpenBlock):
    questions: int
    scored: int
    avg_e2e_score: Number | None


class RetrievalSplit(_OpenBlock):
    """Tier 3: the e2e score where retrieval hit and where it missed."""

    hit: RetrievalGroup
    miss: RetrievalGroup
    no_relevant_chunk: int


class Notes(_OpenBlock):
    """How the numbers were computed, in each tier's own words; report.md shows every note."""

    # per metric {status: count} (evaluate under the metric's name, tiers 2 and 3 under the grade's), or one
    # {status: count} for the whole run (judge): see report.markdown.metric_statuses
    statuses: dict[str, int | dict[str, int]] | None = None
    confusion: dict[str, int] | None = None  # judge-pipeline
    queries: Queries | None = None
    e2e_by_retrieval: RetrievalSplit | None = None
    # per metric, the value at or above which one item passes (at or below for a lower-is-better metric), as the
    # metric declares it (evaluate): what bench compare counts cases against unless a gate sets pass_threshold
    pass_marks: dict[str, Number] | None = None


# --- volatile -----------------------------------------------------------------------------------------


class Latency(_OpenBlock):
    n: int
    avg: Number | None = None
    p50: Number | None = None
    p95: Number | None = None


class RetrievalTiming(_OpenBlock):
    latency_ms: Latency | None = None


class StructuredOutput(_OpenBlock):
    by_model: dict[str, str] | None = None  # how each model was asked for JSON in the end


class LlmUsage(_OpenBlock):
    calls: int | None = None
    cache_hits: int | None = None
    api_errors: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    structured_output: StructuredOutput | None = None


class HnswBuild(_OpenBlock):
    seconds: Number
    index_megabytes: Number
    maintenance_work_mem: str
    parallel_workers: int


class Indexing(_OpenBlock):
    reused: bool
    chunks_added: int
    chunks_updated: int
    chunks_removed: int
    hnsw_build: HnswBuild | None = None


class EmbeddingCache(_OpenBlock):
    embedded: int | None = None
    cache_hits: int | None = None


class Volatile(_OpenBlock):
    """What differs from run to run on the same code and data: times, caches, machine-local paths."""

    run_id: str | None = None
    started_at: str | None = None
    duration_s: Number | None = None
    local_settings: dict[str, Any] | None = None
    retrieval: RetrievalTiming | None = None
    latency_ms: Latency | None = None
    generation_latency_ms: Latency | None = None
    judge_latency_ms: Latency | None = None
    llm: LlmUsage | None = None
    indexing: Indexing | None = None
    embedding_cache: EmbeddingCache | None = None


# --- the report ---------------------------------------------------------------------------------------


class Report(_Block):
    """A run's report (report.json). The fields compare needs to tell runs apart are required; the rest
    default to empty, as a report written by hand or by an earlier bench may lack them."""

    schema_version: Literal[2]  # SCHEMA_VERSION
    tier: str
    tier_version: str
    title: str = ""
    main_metric: str
    dataset: DatasetBlock
    log: LogBlock | None = None
    provenance: Provenance
    settings: dict[str, Any] = Field(default_factory=dict)
    settings_sources: dict[str, str] = Field(default_factory=dict)
    metrics: dict[str, MetricEntry]
    notes: Notes = Field(default_factory=Notes)
    warnings: list[WarningEntry] = Field(default_factory=list)
    volatile: Volatile = Field(default_factory=Volatile)

    @model_serializer(mode="wrap")
    def _sorted(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Sorted keys, the metrics last and in their tier's order (read as the tier ranks them)."""
        dumped: dict[str, Any] = handler(self)
        metrics = dumped.pop("metrics", None)
        return {**dict(sorted(dumped.items())), **({"metrics": metrics} if metrics is not None else {})}
