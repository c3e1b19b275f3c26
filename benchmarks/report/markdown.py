"""report.md, rendered from report.json (never from in-memory state), so the two agree, and for the tiers that
list their lowest-scoring items from items.jsonl's records beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from benchmarks.metrics.bands import band_for
from benchmarks.report.lowest_items import Lowest, lowest_items

if TYPE_CHECKING:  # the renderer reads the model's attributes; the CLI imports this module without pydantic
    from benchmarks.report_model import (
        DatasetBlock,
        GeneratorBlock,
        Judge,
        LabelAgreement,
        LogBlock,
        NumericPath,
        Report,
        RetrievalSplit,
        SimilarityBlock,
    )

OUTCOMES_HEADER = "ok / undet. / err."  # see format_outcomes
CALIBRATED_MARK = "†"
CALIBRATED_NOTE = (f"{CALIBRATED_MARK} the value is on the calibrated similarity scale (below): its band is read "
                   "there, not on the scale the seed wrote it for")
LOWEST_COUNT = 5


def render(report: Report, items: Sequence[Mapping[str, Any]] = ()) -> str:
    """report.md; `items` are the run's item records when its tier lists its lowest-scoring items, else none."""
    ds, prov, log = report.dataset, report.provenance, report.log
    logged = f" · log `{log.name}` (sha256 `{log.content_sha256[:12]}`, {log_counts(log)})" if log else ""
    lines = [
        f"# {report.title}: {ds.name}",
        "",
        f"Tier `{report.tier}` v{report.tier_version} · dataset `{ds.name}` {ds.version or ''} "
        f"(sha256 `{ds.content_sha256[:12]}`, {dataset_counts(ds, log)}){logged} · "
        f"bench {prov.bench_version}" + (f" · commit `{prov.git_commit[:12]}`" if prov.git_commit else "")
        + (" (dirty)" if prov.git_dirty else ""),
        "",
    ]
    if prov.embedder is not None:
        e = prov.embedder
        lines.append(f"Embedder `{e.id}` ({e.dimension} dimensions, {e.engine or e.backend})" +
                     (f" · index `{prov.index.type}`" if prov.index is not None else "") +
                     (f" · PostgreSQL {prov.store.postgres}, pgvector {prov.store.pgvector} "
                      f"({prov.store.backend})" if prov.store is not None else ""))
        lines.append("")
    if prov.numeric_path:
        lines += [numeric_path_line(prov.numeric_path), ""]
    if prov.generator is not None:
        lines += [_system_line(prov.generator, prov.judge), ""]
    bands = {name: metric_band(report, name) for name in report.metrics}
    banded = any(bands.values())
    lines += [f"| metric | value |{' band |' if banded else ''} 95% CI | n | {OUTCOMES_HEADER} |",
              f"|---|---:|{'---|' if banded else ''}---|---:|---:|"]
    for name, m in report.metrics.items():
        marker = " ★" if name == report.main_metric else ""
        band = (f" {bands[name]} |" if bands[name] else " |") if banded else ""
        lines.append(f"| `{name}`{marker} | {format_value(m.value)} |{band} {format_ci(m.ci95)} | {m.n} | "
                     f"{format_outcomes(report, name)} |")
    lines.append("")
    if banded:
        lines += [*band_lines(bands), ""]
    if prov.similarity and prov.similarity.metrics:
        lines += [similarity_line(prov.similarity), ""]
    agreeing = {name: m.agreement for name, m in report.metrics.items() if m.agreement}
    if agreeing:
        lines += agreement_table(agreeing)
    if report.notes.e2e_by_retrieval:
        lines += _retrieval_table(report.notes.e2e_by_retrieval)
    lines += lowest_section(report, items)
    if report.warnings:
        lines += ["## Warnings", ""]
        for w in report.warnings:
            examples = f" (e.g. {', '.join(w.examples)})" if w.examples else ""
            lines.append(f"- **{w.code}** ×{w.count}: {w.message}{examples}")
        lines.append("")
    notes = report.notes.written()  # every note, the tier's own ones too, as the file has them
    if notes:
        lines += ["## How these numbers were computed", ""]
        lines += _notes(notes)
        lines.append("")
    lines += ["## Settings", "", "| setting | value |", "|---|---|"]
    for name, value in sorted(report.settings.items()):
        source = report.settings_sources.get(name)
        shown = "—" if value is None else f"`{_inline(value)}`"
        lines.append(f"| `{name}` | {shown}" + (f" ({source})" if source else "") + " |")
    lines.append("")
    return "\n".join(lines)


def metric_band(report: Report, name: str) -> str:
    """The band of a metric's value as a table shows it ("good", "good †" when read on the calibrated scale), ""
    when it has none. A `--threshold` semantic_similarity is a share of samples at or above the threshold, not
    a similarity: no band reads it."""
    band, value = band_for(name), report.metrics[name].value
    thresholded = (name.split("/", 1)[0] == "semantic_similarity"
                   and report.settings.get("similarity_threshold") is not None)
    if band is None or value is None or thresholded:
        return ""
    calibrated = report.provenance.similarity is not None and name in report.provenance.similarity.metrics
    return band.rate(value) + (f" {CALIBRATED_MARK}" if calibrated else "")


def band_lines(shown: Mapping[str, str]) -> list[str]:
    """What the bands of a table mean (`shown`: each metric's `metric_band`), one line per band with the metrics
    read on it, and the calibrated scale's note where a band is read on it."""
    found: dict[str, list[str]] = {}
    for name, cell in shown.items():
        band = band_for(name)
        if cell and band is not None:
            found.setdefault(f"{band.describe()} ({band.source})", []).append(f"`{name}`")
    lines = [f"Band of {', '.join(names)}: {meaning}." for meaning, names in found.items()]
    if any(cell.endswith(CALIBRATED_MARK) for cell in shown.values()):
        lines.append(f"{CALIBRATED_NOTE}.")
    return lines if len(lines) == 1 else [f"- {line}" for line in lines]


def lowest_section(report: Report, items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The lowest-scoring items of each metric the items score (a judge model's own `name/model` is in its
    metric's rows, each scorer's value shown), with the ones that could not be ranked counted."""
    found: list[Lowest] = []
    for name, metric in report.metrics.items():
        if "/" in name or metric.higher_is_better is None:  # a model's own: in its metric's rows; descriptive
            continue
        lowest = lowest_items(items, name, higher_is_better=metric.higher_is_better, count=LOWEST_COUNT)
        if lowest is not None:
            found.append(lowest)
    if not found:
        return []
    lines = ["## Lowest-scoring items", "",
             f"Each metric's {LOWEST_COUNT} worst items (the highest where lower is better), ties by id, with the "
             "item's explanation on one line; items.jsonl has them whole.", ""]
    for lowest in found:
        lines += _lowest_table(lowest)
    return lines


def _lowest_table(lowest: Lowest) -> list[str]:
    lines = [f"### `{lowest.metric}`", ""]
    if lowest.scored > 1 and lowest.alike:  # none is lower than another: say so, the rows are only the first ids
        lines += [f"All {lowest.scored} scored items have the same value; the first by id:", ""]
    if lowest.listed:
        lines += ["| id | value | why |", "|---|---:|---|"]
        for row in lowest.listed:
            each = ", ".join(f"{scorer} {format_value(value)}" for scorer, value in row.by_scorer)
            shown = format_value(row.value) + (f" ({each})" if each else "")
            lines.append(f"| `{_cell(row.id)}` | {_cell(shown)} | {_cell(row.why) or '—'} |")
        lines.append("")
    unranked = [f"{len(ids)} {what} ({', '.join(f'`{i}`' for i in ids[:LOWEST_COUNT])}"
                f"{', …' if len(ids) > LOWEST_COUNT else ''})"
                for what, ids in (("undetermined", lowest.undetermined), ("failed", lowest.failed)) if ids]
    scored = f"{lowest.scored} item{'' if lowest.scored == 1 else 's'} scored"
    lines.append(scored + (f"; not ranked: {', '.join(unranked)}" if unranked else "") + ".")
    return [*lines, ""]


def numeric_path_line(path: NumericPath) -> str:
    """Where the numbers were computed, as far as it decides their last digits (docs/operations.md: numbers across
    machines)."""
    overrides = ", ".join(f"{name}={value}" for name, value in (path.overrides or {}).items())
    return (f"Computed on {path.cpu} · {path.libm} · {path.blas} · numpy SIMD {path.numpy_simd}"
            + (f" · overridden: {overrides}" if overrides else ""))


AGREEMENT_COLUMNS = ("roc_auc", "spearman", "kendall", "pairwise_accuracy", "accuracy", "cohen_kappa")


def agreement_table(agreeing: Mapping[str, LabelAgreement]) -> list[str]:
    """The judge against the samples' labels, one row per metric (and judge model): each statistic with its 95%
    interval, and the n it rests on where that is not the row's (pairs for pairwise accuracy)."""
    columns = [c for c in AGREEMENT_COLUMNS if any(getattr(a, c) for a in agreeing.values())]
    lines = ["## Agreement with labels", "", f"| metric | labels | n | {' | '.join(columns)} |",
             f"|---|---|---:|{'---|' * len(columns)}"]
    for name, found in agreeing.items():
        cells = []
        for column in columns:
            stat = getattr(found, column)
            if not stat or stat.value is None:
                cells.append("—")
                continue
            pairs = f" ({stat.n} pairs)" if column == "pairwise_accuracy" else ""
            cells.append(f"{format_value(stat.value)} {format_ci(stat.ci95)}{pairs}")
        threshold = f", at {found.threshold:g}" if found.threshold is not None else ""
        lines.append(f"| `{name}` | {found.labels}{threshold} | {found.n} | {' | '.join(cells)} |")
    return [*lines, ""]


def similarity_line(scale: SimilarityBlock) -> str:
    """Which numbers are calibrated similarities, and on what scale (metrics.similarity_scale)."""
    prompt = f", prompt `{scale.prompt}`" if scale.prompt else ""
    return (f"Calibrated similarity (0 = as alike as unrelated texts, 1 = identical): "
            f"{', '.join(f'`{m}`' for m in scale.metrics)}. Baseline {scale.baseline:.4f} for "
            f"`{scale.model}` in {scale.language} ({scale.baseline_from}{prompt}); raw cosines are in "
            "items.jsonl.")


def _system_line(generator: GeneratorBlock, judge: Judge | None) -> str:
    """Who answered and who graded: the first thing a reader of a generation tier needs. A model is named with
    its endpoint, since one name may be served by many servers; the judge's only when it is another one."""
    answered = f"System under test `{generator.adapter}`" + (f" (`{generator.model}`)" if generator.model else "")
    if generator.url:
        answered += f" at `{generator.url}`"
    graded = "judge `?`"
    if judge is not None:
        graded = f"judge `{judge.backend}`" + (f" (`{judge.model}`, {judge.mode} mode)" if judge.model else "")
        if judge.url and judge.url != generator.url:
            graded += f" at `{judge.url}`"
    note = f" · {generator.note}" if generator.note else ""
    return f"{answered} · {graded}{note}"


def _retrieval_table(groups: RetrievalSplit) -> list[str]:
    """Tier 3: how retrieval errors carry into answers, e2e score where retrieval hit and missed."""
    lines = ["| retrieval | questions | scored | avg_e2e_score |", "|---|---:|---:|---:|"]
    for name, row in (("hit", groups.hit), ("miss", groups.miss)):
        lines.append(f"| {name} | {row.questions} | {row.scored} | {format_value(row.avg_e2e_score)} |")
    lines += [f"| no relevant chunk | {groups.no_relevant_chunk} | | |", ""]
    return lines


def metric_statuses(statuses: Mapping[str, Any] | None, name: str) -> Mapping[str, int] | None:
    """How the outcomes behind a metric ended, where the report says so, else None (never guessed).

    `notes.statuses` holds them per metric — `bench evaluate` under the metric's name, tiers 2 and 3 under
    the grade's (a rating's without `avg_`, a `--metrics` metric's as `ragas:<name>`) — or, in `bench judge`
    (with or without --pairwise), once for the run's ratings or verdicts, pooled over the judge models: they
    then belong to every pooled metric, not to one model's `name/model`."""
    if not statuses:
        return None
    if all(isinstance(count, int) for count in statuses.values()):
        return None if "/" in name else statuses
    for key in (f"ragas:{name}", name.removeprefix("avg_"), name):
        found = statuses.get(key)
        if isinstance(found, Mapping):
            return found
    return None


def format_outcomes(report: Report, name: str) -> str:
    """`ok / undet. / err.` of a metric: undetermined samples are left out of its mean, so a value over a
    handful of scored samples must show the rest. The errors are the metric's own count (the failed judge
    calls: parse_error, truncated, api_error; in tiers 2 and 3 also failed generations); ok and undetermined
    are "—" where the report does not count them."""
    statuses = metric_statuses(report.notes.statuses, name)
    errors = report.metrics[name].errors
    if statuses is None:
        return f"— / — / {errors}"
    return f"{statuses.get('ok', 0)} / {statuses.get('undetermined', 0)} / {errors}"


def dataset_counts(ds: DatasetBlock, log: LogBlock | None = None) -> str:
    """What the run read; a `--limit` sample says of how many, so a number over 20 items is never read as over
    all of them. A run on a real-user log (`log`: the report's log block) asks the log's questions, not the
    dataset's: those are left out here, and the log is counted beside (`log_counts`)."""
    kinds = ("documents", "samples", "items") if log else ("documents", "questions", "samples", "items")
    counts = ", ".join(f"{count} {key}" for key in kinds if (count := getattr(ds, key)) is not None)
    limit = ds.limit
    return counts if not limit else f"{counts}, limit {limit.n} of {limit.of} (seed {limit.seed})"


def log_counts(log: LogBlock) -> str:
    """The rows of a run's real-user log: what its metrics are over."""
    return f"{log.log_entries} log entries, {log.sessions} sessions"


def format_value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    return f"{value:.4f}"


def format_ci(ci: list[float] | None) -> str:
    return "—" if not ci else f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def _notes(notes: Mapping[str, Any], depth: int = 0) -> list[str]:
    """The notes as nested bullets: a mapping opens a level, a list of records (real-users' topics, ux's
    hit-rate curve) is a table in its bullet, anything else prose (`_inline`): never a Python repr."""
    out, indent = [], "  " * depth
    for key, value in notes.items():
        if isinstance(value, Mapping) and value:
            out += [f"{indent}- {key}:", *_notes(value, depth + 1)]
        elif isinstance(value, list) and value and all(isinstance(row, Mapping) for row in value):
            out += [f"{indent}- {key}:", "", *(f"{indent}  {line}" for line in _table(value)), ""]
        else:
            out.append(f"{indent}- {key}: {_inline(value)}")
    return out


def _table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Records as a Markdown table, a column per key in order of first appearance."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return [f"| {' | '.join(columns)} |", f"|{'---|' * len(columns)}",
            *(f"| {' | '.join(_cell(row.get(column)) for column in columns)} |" for row in rows)]


def _cell(value: Any) -> str:
    """A table cell's prose, its pipes escaped: one would split the row."""
    return _inline(value).replace("|", "\\|")


def _inline(value: Any) -> str:
    """A value as prose: None as —, booleans as bench.toml spells them, a list comma-separated, a mapping as
    `key: value` pairs; a list or mapping inside another in parentheses."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_nested(item)}" for key, item in value.items()) or "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(_nested(item) for item in value) or "—"
    return str(value)


def _nested(value: Any) -> str:
    return f"({_inline(value)})" if isinstance(value, (Mapping, list, tuple)) and value else _inline(value)
