"""report.json as one versioned model, shared by its writer (tiers build its blocks, `report.build` puts them
together) and every reader (the terminal summary, report.md, `bench compare`, the viewer, `bench nightly`, the
Python API), so that each key is named once, here, below the tiers that write it.

The file is the model's dump as the writer gave it, `Block.written()`: a block a tier did not
write stays out of the file rather than turning into a null, and each block dumps its keys sorted (metrics
keep their tier's reading order and come last), so the same run gives the same bytes and PR diffs stay quiet.
Every block is closed (`_block.Block`): a key no block declares is refused, written or read. A nested field is
optional when some tier goes without it.

A change of layout bumps SCHEMA_VERSION (its history in benchmarks/_version.py); `upgrade` reads the layouts an
older bench wrote into this one. Any change regenerates benchmarks/report/report.schema.json (`make
report-schema`).

The items (items.jsonl) are no model but a TypedDict, `benchmarks.item_record.ItemRecord`: a run can have a
million of them, and a model instance for each would more than double what loading them costs compare.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from benchmarks._version import REPORT_SCHEMA_VERSION
from benchmarks.report_model._block import Block, Interval, Number
from benchmarks.report_model.notes import Notes
from benchmarks.report_model.provenance import Provenance
from benchmarks.report_model.volatile import Volatile

SCHEMA_VERSION = REPORT_SCHEMA_VERSION
READABLE_VERSIONS = (2, SCHEMA_VERSION)  # the layouts `upgrade` reads


class LimitBlock(Block):
    """A `--limit` run: `n` of the set's `of` units, drawn with `seed`."""

    n: int = Field(description="Units the run kept: questions, samples, items or pairs.")
    of: int = Field(description="Units the whole set holds.")
    seed: int = Field(description="The seed the sample was drawn with: the same seed draws the same units.")


class DatasetBlock(Block):
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
    limit: LimitBlock | None = Field(
        default=None, description="Present when --limit left units out: which sample of the set ran.")


class LogBlock(Block):
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


# --- metrics ------------------------------------------------------------------------------------------


class AgreementStatistic(Block):
    value: Number | None = Field(
        description="The statistic; null where these samples leave it undefined (one class only, no pair).")
    ci95: Interval | None = Field(
        description="Its 95% bootstrap interval, [low, high], resampling questions with all their answers; null "
        "without a value.")
    n: int = Field(description="What it rests on: samples, or pairs for pairwise accuracy.")


class LabelAgreement(Block):
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


class MetricEntry(Block):
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
    agreement: LabelAgreement | None = Field(
        default=None, description="With people's labels on the units: how far the scores agree with them.")


class WarningEntry(Block):
    """A problem in the data that did not stop the run (inputs.Warning)."""

    code: str = Field(description="The problem's stable name (unknown_qrel_document, mixed_languages, ...).")
    message: str = Field(description="What happened, in a sentence.")
    count: int = Field(description="How many units it concerns.")
    examples: list[str] = Field(description="A few of those units, by id.")


# --- the report ---------------------------------------------------------------------------------------


class Report(Block):
    """A run's report (report.json). The fields compare needs to tell runs apart are required; the rest
    default to empty, as a report written by hand or by an earlier bench may lack them."""

    schema_version: Literal[3] = Field(
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


def upgrade(document: dict[str, Any]) -> dict[str, Any]:
    """A report.json of a readable older layout as this version lays it out (a copy; the current layout as given).
    It never raises: what it cannot read is left for validation to refuse.

    Version 2 kept bench evaluate's prompt hashes beside the judge block instead of in it, notes under names a
    tier made up at run time (tier 1's `ann_recall@<k>`, bench judge's `avg_<rating>` and
    `avg_<rating>_by_ground_truth_show`), bench judge's judge agreement unkeyed and bench judge --pairwise's under
    no metric, and bench evaluate's and bench judge's embedding cache hits as `hits`; its first releases also wrote
    a reading band as a note (bench judge's `consistency_band`, judge-pipeline's `accuracy_band`), which report.md
    now gives every metric, and ux's cache note without `raw_threshold`."""
    if document.get("schema_version") != 2:
        return document
    upgraded = {**document, "schema_version": SCHEMA_VERSION}
    provenance, notes, volatile = (upgraded.get(block) for block in ("provenance", "notes", "volatile"))
    if isinstance(provenance, dict) and "prompts_sha256" in provenance:
        provenance = dict(provenance)
        hashes = provenance.pop("prompts_sha256")
        judge = provenance.get("judge")
        provenance["judge"] = {**(judge if isinstance(judge, dict) else {}), "prompts_sha256": hashes}
        upgraded["provenance"] = provenance
    if isinstance(notes, dict):
        upgraded["notes"] = _notes_of_2(notes, upgraded.get("tier"))
    cache = volatile.get("embedding_cache") if isinstance(volatile, dict) else None
    if isinstance(volatile, dict) and isinstance(cache, dict) and "hits" in cache:
        upgraded["volatile"] = {**volatile, "embedding_cache": {("cache_hits" if k == "hits" else k): v
                                                                for k, v in cache.items()}}
    return upgraded


def _notes_of_2(notes: dict[str, Any], tier: object) -> dict[str, Any]:
    notes = {key: value for key, value in notes.items() if key not in ("consistency_band", "accuracy_band")}
    for key in [k for k in notes if k.startswith("ann_recall@")]:
        notes["ann_recall"] = notes.pop(key)
    rating = notes.get("rating") if tier == "judge" else None
    if isinstance(rating, str):
        if f"avg_{rating}" in notes:
            notes["means"] = notes.pop(f"avg_{rating}")
        if f"avg_{rating}_by_ground_truth_show" in notes:
            notes["means_by_ground_truth_show"] = notes.pop(f"avg_{rating}_by_ground_truth_show")
        if isinstance(notes.get("agreement"), dict) and "units" in notes["agreement"]:
            notes["agreement"] = {f"avg_{rating}": notes["agreement"]}
    if tier == "judge-pairwise" and isinstance(notes.get("agreement"), dict):
        notes["agreement"] = {"preferences": notes["agreement"]}
    return notes
