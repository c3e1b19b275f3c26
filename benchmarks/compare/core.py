"""Compare two runs: pure, from loaded runs to one result dict (rendered as Markdown or JSON)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from benchmarks.compare import cases as case_flips
from benchmarks.compare import status as st
from benchmarks.compare.agreement import agreement_changes
from benchmarks.compare.gates import Gate, Gates
from benchmarks.compare.load import BrokenRun, LoadedRun
from benchmarks.compare.paired import clusters_of, item_value, paired_bootstrap
from benchmarks.compare.result import (
    CasesPart,
    CompareResult,
    ConfigDiffEntry,
    ItemsSummary,
    MetricRow,
    Mismatch,
    MostRegressed,
    RegressedItem,
    RunIdentity,
    Status,
    Verdict,
)
from benchmarks.errors import BenchError
from benchmarks.item_record import MISSING, ItemRecord
from benchmarks.report_model import Report

# a run on a real-user log (ux, real-users) is over the log's rows: another log, or rows added under one name,
# is another input, as another dataset is; each key is an attribute path of the report (`_get`)
IDENTITY = (("tier", "tier"), ("tier_version", "tier version"), ("schema_version", "report schema version"),
            ("dataset.content_sha256", "dataset content (sha256)"), ("log.name", "log name"),
            ("log.log_entries", "log rows"), ("log.content_sha256", "log content (sha256)"))
# bench evaluate's samples: their ids, user_input and reference (samples.SampleSet.questions_sha256)
QUESTIONS = ("dataset.questions_sha256", "the questions (ids, user_input, reference; sha256)")
# what decides a judge's grades, read by `judge_identity` from whichever layout a tier writes
JUDGE_KEYS = ("backend", "model", "mode", "verdicts", "verdict_reading", "prompts_sha256", "language",
              "structured_output", "local", "offline_sha256")
NOT_DIFFED = ("provenance.git_commit", "provenance.git_dirty")
NUMERIC_PATH_KEYS = ("cpu", "libm", "blas", "numpy_simd")
EXIT_PASS, EXIT_REGRESSION, EXIT_USAGE, EXIT_BROKEN = 0, 1, 2, 3
LISTED = 20  # ids listed per kind of dropped/failed item
ValueTables = dict[str, dict[str, Any]]  # metric → item id → its value (float, None failed, MISSING)
Pairs = list[tuple[ItemRecord, ItemRecord]]  # the items of both runs, by id


class PerItem(NamedTuple):
    """One metric over the paired items: candidate − base, whether both have a value, the failed on each side."""
    diffs: np.ndarray
    valid: np.ndarray
    failed_base: int
    failed_candidate: int
    base_values: np.ndarray


class LostAndGained(NamedTuple):
    """The base's scored items, those of them with no value in the candidate, and the other way round."""
    scored_base: int
    lost: list[str]
    gained: list[str]


class Incomparable(BenchError):
    exit_code = EXIT_USAGE


def compare(base: LoadedRun, cand: LoadedRun, gates: Gates | None = None, *, allow_mismatch: bool = False,
            seed: int = 0, resamples: int = 10_000) -> CompareResult:
    gates = gates or Gates()
    mismatches = identity_diff(base.report, cand.report)
    if mismatches and not allow_mismatch:
        raise Incomparable("the runs are not comparable: " + "; ".join(_describe(m) for m in mismatches)
                           + " (use --allow-mismatch to compare anyway)")
    judge_changed = _judge_diff(base.report, cand.report)
    judged = judged_metrics(base) | judged_metrics(cand) if judge_changed else frozenset()
    numeric_path_changed = _numeric_path_diff(base.report, cand.report)
    by_id = (_by_id(base), _by_id(cand)) if base.items is not None and cand.items is not None else None
    paired, items = _pair_items(by_id)
    names = [n for n in base.report.metrics if n in cand.report.metrics]
    tables = (_value_tables(by_id[0], names), _value_tables(by_id[1], names)) if by_id else ({}, {})
    paired_ids = [b["id"] for b, _ in paired]
    per_item = _per_item(tables, paired_ids, names)
    lost = _lost_and_gained(tables, [n for n in names if n in per_item])
    clusters = clusters_of([b.get("cluster") for b, _ in paired])
    with_items = [n for n in names if n in per_item]
    cis = dict(zip(with_items, paired_bootstrap(
        np.array([per_item[n].diffs for n in with_items]).reshape(len(with_items), -1),
        np.array([per_item[n].valid for n in with_items]).reshape(len(with_items), -1),
        clusters=clusters, resamples=resamples, seed=seed), strict=True)) if with_items else {}
    main = cand.report.main_metric or base.report.main_metric
    primaries = [n for n in gates.primaries(main) if n in names]
    # the primary metrics with a paired test gate the exit code together: Holm–Bonferroni across them
    holm_family = [n for n in primaries if cis.get(n) is not None and n not in judged]
    holm_levels = st.holm({n: test.p for n in holm_family if (test := cis[n]) is not None})
    rows = []
    for name in names:
        b, c = base.report.metrics[name], cand.report.metrics[name]
        hib = b.higher_is_better
        gate = gates.for_metric(name)
        primary = name in primaries
        delta = None if b.value is None or c.value is None else round(c.value - b.value, 6)
        values = per_item.get(name)
        test = cis.get(name)
        tested = st.paired_test(test, holm_levels.get(name)) if values is not None else None
        paired_delta = (round(float(values.diffs[values.valid].mean()), 6) if values.valid.any() else None
                        ) if values is not None else None
        # the verdict's change: over the items both runs scored when there are items, so an item that lost its
        # value can never lift the candidate's mean into an "improvement"
        change = paired_delta if values is not None else delta
        status: Status
        basis: str | None
        if name in judged:
            status, basis = st.NOT_COMPARABLE, "the judge changed: " + ", ".join(judge_changed)
        else:
            status, basis = st.status(b.value, c.value, change, tested["significant"] if tested else None, hib, gate,
                                      base_ci=b.ci95 if values is None else None,
                                      cand_ci=c.ci95 if values is None else None)
            if values is None and basis is None:
                basis = "no per-item values"
        effect = st.min_effect(gate, b.value, c.value) if b.value is not None and c.value is not None else None
        row: MetricRow
        if values is None or tested is None:
            row = {"metric": name, "primary": primary, "base": b.value, "candidate": c.value, "delta": delta,
                   "ci95": None, "higher_is_better": hib, "n_paired": None,
                   "failed": {"base": b.errors, "candidate": c.errors},
                   "change": change, "status": status, "basis": basis, "min_effect": effect, "gate": None}
        else:
            gone = lost[name]
            row = {"metric": name, "primary": primary, "base": b.value, "candidate": c.value, "delta": delta,
                   "ci95": None if test is None else [round(test.low, 6), round(test.high, 6)],
                   "higher_is_better": hib, "n_paired": int(values.valid.sum()),
                   "failed": {"base": values.failed_base, "candidate": values.failed_candidate},
                   "paired_delta": paired_delta, "scored_base": gone.scored_base, "n_lost": len(gone.lost),
                   "lost": gone.lost[:LISTED], "n_gained": len(gone.gained), "gained": gone.gained[:LISTED],
                   **tested, **_cases(gate, tables, name, paired_ids, hib, base.report, cand.report),
                   "change": change, "status": status, "basis": basis, "min_effect": effect, "gate": None}
        problems = st.violations(row, gate, primary=primary) if status != st.NOT_COMPARABLE else []
        action = gate.action or ("fail" if primary else "warn")
        row["gate"] = {"violations": problems, "action": action} if problems else None
        rows.append(row)
    broken = [r["metric"] for r in rows if r["primary"] and r["candidate"] is None and r["base"] is not None]
    failing = [r["metric"] for r in rows if r["gate"] and r["gate"]["action"] == "fail"]
    warning = [r["metric"] for r in rows if r["gate"] and r["gate"]["action"] == "warn"]
    exit_code = EXIT_BROKEN if broken else EXIT_REGRESSION if failing else EXIT_PASS
    verdict: Verdict = "broken run" if broken else "regression" if failing else "pass"
    return {
        "kind": {"tier": cand.report.tier, "tier_version": cand.report.tier_version},
        "verdict": verdict,
        "exit_code": exit_code,
        "failing": failing, "warnings": warning, "broken": broken,
        "base": _identity(base), "candidate": _identity(cand),
        "mismatches": mismatches,
        "judge_changed": judge_changed,
        "numeric_path_changed": numeric_path_changed,
        "bootstrap": {"resamples": resamples, "seed": seed,
                      "unit": "source document" if clusters is not None else "item",
                      "clusters": int(clusters.max()) + 1 if clusters is not None else None,
                      "interval": "expanded percentile"},
        "significance": {"alpha": st.ALPHA, "holm": holm_family},
        "items": items,
        "primary": primaries,
        "metrics": rows,
        "config_diff": config_diff(base.report, cand.report),
        "most_regressed": _most_regressed(rows, per_item, paired, primaries),
        "agreement": agreement_changes(base.report, cand.report, paired, resamples=resamples, seed=seed),
        "missing_metrics": {"base_only": [n for n in base.report.metrics if n not in cand.report.metrics],
                            "candidate_only": [n for n in cand.report.metrics if n not in base.report.metrics]},
        "unknown_gates": sorted(set(gates.metrics or {}) - set(names)),
        "gates_file": gates.source,
    }


def _cases(gate: Gate, tables: tuple[ValueTables, ValueTables], name: str, paired_ids: list[str],
           higher_is_better: bool | None, base: Report, cand: Report) -> CasesPart:
    """A row's `cases` (cases.py) when the metric has a direction and a pass threshold, else nothing."""
    threshold = case_flips.threshold_for(gate, [*tables[0][name].values(), *tables[1][name].values()],
                                         _pass_mark(cand, name) or _pass_mark(base, name))
    if higher_is_better is None or threshold is None:
        return {}
    cases = case_flips.cases_of(tables[0][name], tables[1][name], paired_ids, threshold, higher_is_better)
    return {"cases": case_flips.record(cases, gate, LISTED)}


def identity_diff(base: Report, cand: Report) -> list[Mismatch]:
    out: list[Mismatch] = []
    for key, label in IDENTITY:
        if key == "dataset.content_sha256" and _get(base, QUESTIONS[0]) and _get(cand, QUESTIONS[0]):
            key, label = QUESTIONS  # an evaluate set: its answers are the system under test, its questions the set
        b, c = _get(base, key), _get(cand, key)
        if b != c:
            out.append({"key": key, "what": label, "base": b, "candidate": c})
    return out


def _describe(m: Mismatch) -> str:
    return f"{m['what']} differs ({_short(m['base'])} vs {_short(m['candidate'])})"


def _short(value: Any) -> str:
    text = str(value)
    return text[:12] if len(text) == 64 else text


def _get(report: Report, dotted: str) -> Any:
    """The value at an attribute path such as `log.name`; None past a block the report does not have."""
    value: Any = report
    for part in dotted.split("."):
        value = getattr(value, part, None)
    return value


def _pass_mark(report: Report, metric: str) -> float | None:
    """The pass mark a report declares for a metric ("faithfulness/model-a" is faithfulness by one judge)."""
    marks = report.notes.pass_marks or {}
    mark = marks.get(metric, marks.get(metric.split("/", 1)[0]))
    return None if mark is None else float(mark)


def _judge_diff(base: Report, cand: Report) -> list[str]:
    """What of the judge changed. A structured-output mode counts only for a model both runs recorded one for:
    a run that made no call (all restored, or none needed) says nothing about how its judge was asked."""
    b, c = judge_identity(base), judge_identity(cand)
    changed = [key for key in JUDGE_KEYS if key != "structured_output" and b.get(key) != c.get(key)]
    modes_b, modes_c = b.get("structured_output") or {}, c.get("structured_output") or {}
    if any(modes_b[m] != modes_c[m] for m in modes_b.keys() & modes_c.keys()):
        changed.append("structured_output")
    return changed


def judge_identity(report: Report) -> dict[str, Any]:
    """The judge of a report in one layout, whatever its tier wrote: tiers 2 and 3 name one `model` and keep
    their prompts' hashes in the judge block, evaluate names its `models` and keeps the hashes beside the
    block, judge and judge --pairwise name `models`. `structured_output`: how each judge model was asked for
    JSON in the end (`volatile.llm`; under `auto` what its endpoint accepted), by model, where recorded;
    `verdicts` and `verdict_reading`: yes-no or statements verdicts, and how each model's yes-no verdicts were
    read (probability or parsed), since a probability and a parsed 0/1 are different numbers; `local`: the weights,
    runtime and context of a judge bench started (`--judge local`); `offline_sha256`: the offline judge's code.
    A report without a judge block has none: {}."""
    judge = report.provenance.judge
    if judge is None:
        return {}
    models = sorted(map(str, judge.models or ([judge.model] if judge.model else [])))
    llm = report.volatile.llm
    recorded = (llm.structured_output.by_model if llm and llm.structured_output else None) or {}
    return {"backend": judge.backend, "model": models, "mode": judge.mode,
            "verdicts": judge.verdicts, "verdict_reading": judge.verdict_reading,
            "prompts_sha256": judge.prompts_sha256,
            "language": judge.language,
            "structured_output": {m: recorded[m] for m in models if recorded.get(m)},
            "local": judge.local.model_dump() if judge.local else None,
            "offline_sha256": judge.offline_sha256}


def _numeric_path_diff(base: Report, cand: Report) -> list[str]:
    """What of the floating-point path differs between the machines the runs were computed on."""
    b, c = base.provenance.numeric_path, cand.provenance.numeric_path
    if not b or not c:
        return []
    return [key for key in NUMERIC_PATH_KEYS if getattr(b, key) != getattr(c, key)]


def judged_metrics(run: LoadedRun) -> frozenset[str]:
    """The metrics the run's judge graded, as its report declares them (`provenance.judge.metrics`, written by
    every tier with a judge)."""
    judge = run.report.provenance.judge
    if judge is None or judge.metrics is None:
        return frozenset()
    return frozenset(judge.metrics)


def _identity(run: LoadedRun) -> RunIdentity:
    r = run.report
    return {"path": str(run.path), "git_commit": r.provenance.git_commit, "dataset": r.dataset.name,
            "content_sha256": r.dataset.content_sha256, "log": r.log.name if r.log else None,
            "items": None if run.items is None else len(run.items)}


def _pair_items(by_id: tuple[dict[str, ItemRecord], dict[str, ItemRecord]] | None) -> tuple[Pairs, ItemsSummary]:
    """The items of both runs paired by id, and what the result says of them (None: a run without items.jsonl)."""
    if by_id is None:
        return [], {"available": False, "dropped": [], "added": [], "n_base": None, "n_candidate": None}
    b, c = by_id
    paired = [i for i in b if i in c]
    dropped = [i for i in b if i not in c]
    added = [i for i in c if i not in b]
    return [(b[i], c[i]) for i in paired], {
        "available": True, "n_base": len(b), "n_candidate": len(c), "n_paired": len(paired),
        "dropped": dropped[:LISTED], "n_dropped": len(dropped), "added": added[:LISTED], "n_added": len(added)}


def _by_id(run: LoadedRun) -> dict[str, ItemRecord]:
    out: dict[str, ItemRecord] = {}
    for item in run.items or []:
        key = item["id"]
        if key in out:
            raise BrokenRun(f"{run.path.parent / 'items.jsonl'}: item id '{key}' appears twice")
        out[key] = item
    return out


def _value_tables(rows: dict[str, ItemRecord], names: list[str]) -> ValueTables:
    """metric → item id → its value, read once per run."""
    return {name: {key: item_value(item, name) for key, item in rows.items()} for name in names}


def _per_item(tables: tuple[ValueTables, ValueTables], paired_ids: list[str], names: list[str]) -> dict[str, PerItem]:
    """The metrics with per-item values, over the paired items."""
    out: dict[str, PerItem] = {}
    for name in names:
        bv = [tables[0][name][key] for key in paired_ids]
        cv = [tables[1][name][key] for key in paired_ids]
        if all(v is MISSING for v in bv) and all(v is MISSING for v in cv):
            continue
        b_ok = np.array([isinstance(v, float) for v in bv])
        c_ok = np.array([isinstance(v, float) for v in cv])
        b_arr = np.array([v if isinstance(v, float) else 0.0 for v in bv], dtype=float)
        c_arr = np.array([v if isinstance(v, float) else 0.0 for v in cv], dtype=float)
        failed_base = int(sum(v is None for v in bv))
        failed_cand = int(sum(v is None for v in cv))
        out[name] = PerItem(c_arr - b_arr, b_ok & c_ok, failed_base, failed_cand, b_arr)
    return out


def _lost_and_gained(tables: tuple[ValueTables, ValueTables], names: list[str]) -> dict[str, LostAndGained]:
    """Per metric, the items that had a value in the base and have none in the candidate (undetermined, failed,
    or gone from its items) — lost — and the other way round — gained. Paired means leave them out, so they
    are counted here: a candidate that stops answering a third of its questions has not improved."""
    out: dict[str, LostAndGained] = {}
    for name in names:
        b_values, c_values = tables[0][name], tables[1][name]
        scored_base = [i for i, v in b_values.items() if isinstance(v, float)]
        lost = [i for i in scored_base if not isinstance(c_values.get(i), float)]
        gained = [i for i, v in c_values.items() if isinstance(v, float) and not isinstance(b_values.get(i), float)]
        out[name] = LostAndGained(len(scored_base), lost, gained)
    return out


def _most_regressed(rows: list[MetricRow], per_item: dict[str, PerItem], paired: Pairs,
                    primaries: list[str]) -> MostRegressed | None:
    name = next((n for n in primaries if n in per_item), None) or next(iter(per_item), None)
    if name is None:
        return None
    row = next(r for r in rows if r["metric"] == name)
    values = per_item[name]
    d = values.diffs
    sign = -1.0 if row["higher_is_better"] is False else 1.0
    worse = np.where(values.valid, d * sign, np.inf)
    order = np.argsort(worse, kind="stable")[:10]
    listed: list[RegressedItem] = []
    for i in order:
        if not np.isfinite(worse[i]) or worse[i] >= 0:
            break
        base_value = float(values.base_values[i])
        listed.append({"id": paired[i][0]["id"], "base": round(base_value, 6),
                       "candidate": round(base_value + float(d[i]), 6), "delta": round(float(d[i]), 6),
                       "question": _shown_input(paired[i][0])})
    return {"metric": name, "items": listed}


def _shown_input(item: ItemRecord) -> str | None:
    """What a reader recognises an item by: the first text among its inputs (the question, the user input)."""
    return next((value for value in item["inputs"].values() if isinstance(value, str) and value), None)


def config_diff(base: Report, cand: Report) -> list[ConfigDiffEntry]:
    """Every setting and provenance key whose value differs, by its dotted path; keys a tier added of its own
    count as much as declared ones, so both are read as the file has them."""
    b = _flatten({"settings": base.settings, "provenance": base.provenance.written()})
    c = _flatten({"settings": cand.settings, "provenance": cand.provenance.written()})
    return [{"key": k, "base": b.get(k), "candidate": c.get(k)} for k in sorted(set(b) | set(c))
            if b.get(k) != c.get(k) and k not in NOT_DIFFED]


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}
