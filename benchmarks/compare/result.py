"""What `bench compare` finds, declared: the result `core.compare` builds, `--format json` prints, the GitHub
comment (markdown.py), the nightly suite and the viewer read, and the viewer caches.

TypedDicts, not models: the result is plain JSON data built once and dumped as built, so its keys keep the
order they are written in (the bytes `--format json` users and the viewer's cache hold), and mypy refuses a
key no shape declares wherever the result is written or read. A key marked NotRequired is one a part of the
comparison adds only when it has what it rests on (per-item values, items.jsonl on both sides).

No `from __future__ import annotations` here: Python 3.11 sees NotRequired only in evaluated annotations, and
the tests read each shape's required and optional keys.
"""

from typing import Any, Literal, NotRequired, TypedDict

Verdict = Literal["pass", "regression", "broken run"]
Status = Literal["regressed", "improved", "unchanged", "~", "not comparable", "n/a"]
Action = Literal["fail", "warn"]
Better = Literal["candidate", "base", "neither", "undetermined"]
Unit = Literal["source document", "item"]
# a setting's or a provenance key's value as the report holds it, or an identity key's (a name, a count, a hash)
ReportValue = Any


class Kind(TypedDict):
    tier: str
    tier_version: str


class RunIdentity(TypedDict):
    """One side of the comparison: where its files are and what it ran on."""
    path: str
    git_commit: str | None
    dataset: str
    content_sha256: str | None
    log: str | None
    items: int | None  # None: no items.jsonl


class Mismatch(TypedDict):
    """An identity key the runs differ in (compared anyway under --allow-mismatch)."""
    key: str
    what: str
    base: ReportValue
    candidate: ReportValue


class Bootstrap(TypedDict):
    resamples: int
    seed: int
    unit: Unit
    clusters: int | None
    interval: str


class Significance(TypedDict):
    alpha: float
    holm: list[str]  # the primary metrics tested together (Holm–Bonferroni)


class ItemsSummary(TypedDict):
    """The items paired by id; the counts past the first LISTED ids only when both runs have items."""
    available: bool
    n_base: int | None
    n_candidate: int | None
    n_paired: NotRequired[int]
    dropped: list[str]
    n_dropped: NotRequired[int]
    added: list[str]
    n_added: NotRequired[int]


class FailedCounts(TypedDict):
    base: int
    candidate: int


class PairedTest(TypedDict):
    """A metric row's significance from its paired bootstrap (status.paired_test), for a metric with per-item
    values."""
    p_value: float | None
    alpha: float | None
    significant: bool
    ci_units: int | None
    ci_unreliable: bool | None


class CasesRecord(TypedDict):
    """A metric's cases as assertions (cases.py): how many passed on each side, which changed side."""
    threshold: float
    passes_at: Literal[">=", "<="]
    n: int
    passing_base: int
    passing_candidate: int
    n_to_fail: int
    n_to_pass: int
    to_fail: list[str]
    to_pass: list[str]
    sign_test_p: float | None
    max_flipped_to_fail: int | None  # None: the flips do not gate
    breaks_gate: bool


class CasesPart(TypedDict, total=False):
    """A metric row's `cases`, absent for a metric without a direction or a pass threshold."""
    cases: CasesRecord


class GateVerdict(TypedDict):
    violations: list[str]
    action: Action


class MetricRow(TypedDict):
    """One metric both reports hold. The keys from `paired_delta` to `cases` come from per-item values (written
    in that order, between `failed` and `change`): the lost and gained items, then PairedTest's, then
    CasesPart's."""
    metric: str
    primary: bool
    base: float | None
    candidate: float | None
    delta: float | None  # the reports' means' difference
    ci95: list[float] | None
    higher_is_better: bool | None
    n_paired: int | None
    failed: FailedCounts
    paired_delta: NotRequired[float | None]
    scored_base: NotRequired[int]
    n_lost: NotRequired[int]
    lost: NotRequired[list[str]]
    n_gained: NotRequired[int]
    gained: NotRequired[list[str]]
    p_value: NotRequired[float | None]
    alpha: NotRequired[float | None]
    significant: NotRequired[bool]
    ci_units: NotRequired[int | None]
    ci_unreliable: NotRequired[bool | None]
    cases: NotRequired[CasesRecord]
    change: float | None  # what the verdict used: the paired Δ when there are items, else `delta`
    status: Status
    basis: str | None  # how significance was decided without a paired test
    min_effect: float | None
    gate: GateVerdict | None


class RegressedItem(TypedDict):
    id: str
    base: float
    candidate: float
    delta: float
    question: str | None


class MostRegressed(TypedDict):
    metric: str
    items: list[RegressedItem]


class ConfigDiffEntry(TypedDict):
    key: str  # dotted: settings.top_k, provenance.judge.model
    base: ReportValue
    candidate: ReportValue


class AgreementChange(TypedDict):
    """Which judge agrees better with the samples' labels on one metric (agreement.py)."""
    metric: str
    statistic: str
    n: int
    base: float | None
    candidate: float | None
    delta: float | None
    ci95: list[float] | None
    better: Better


class MissingMetrics(TypedDict):
    base_only: list[str]
    candidate_only: list[str]


class CompareResult(TypedDict):
    kind: Kind
    verdict: Verdict
    exit_code: int
    failing: list[str]
    warnings: list[str]
    broken: list[str]  # primary metrics the candidate has no value for
    base: RunIdentity
    candidate: RunIdentity
    mismatches: list[Mismatch]
    judge_changed: list[str]
    numeric_path_changed: list[str]
    bootstrap: Bootstrap
    significance: Significance
    items: ItemsSummary
    primary: list[str]
    metrics: list[MetricRow]
    config_diff: list[ConfigDiffEntry]
    most_regressed: MostRegressed | None
    agreement: list[AgreementChange]
    missing_metrics: MissingMetrics
    unknown_gates: list[str]
    gates_file: str | None
