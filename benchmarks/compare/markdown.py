"""The comparison as a GitHub comment: a hidden marker (for a sticky comment), a headline, the primary
metrics, the rest in <details>, the config diff and the most regressed items, under LIMIT characters."""

from __future__ import annotations

from typing import Any

from benchmarks.compare.cases import NAMED, SMALL_SET
from benchmarks.compare.result import AgreementChange, CompareResult, MetricRow, RunIdentity
from benchmarks.compare.status import RELIABLE_UNITS, case_rule

MARKER = "<!-- bench-compare -->"
LIMIT = 60_000  # GitHub refuses comments over 65,536 characters
CELL = 120  # characters a table cell keeps
ARROWS = {"regressed": "▼ regressed", "improved": "▲ improved", "~": "~ (not significant)",
          "unchanged": "unchanged", "not comparable": "not comparable", "n/a": "n/a"}
ICON = {"pass": "✅", "regression": "❌", "broken run": "💥"}


def render(result: CompareResult, limit: int = LIMIT) -> str:
    """Halve the long tables' rows until the text fits; cut as a last resort (never expected)."""
    rows: int | None = None
    while True:
        text = _render(result, rows)
        if len(text) <= limit:
            return text
        longest = max(len(result["config_diff"]), len(result["metrics"]), 1)
        rows = longest // 2 if rows is None else rows // 2
        if rows == 0:
            note = "\n\n… cut to fit a GitHub comment; see `--format json` for everything.\n"
            return text[:limit - len(note)] + note


def _render(r: CompareResult, rows: int | None) -> str:
    kind, b, c = r["kind"], r["base"], r["candidate"]
    on = f"`{_cell(c['dataset'])}`" + (f" (log `{_cell(c['log'])}`)" if c["log"] else "")
    out = [MARKER, f"## {ICON[r['verdict']]} bench compare — {kind['tier']} v{kind['tier_version']} on {on}: "
           f"{_verdict(r)}", "",
           f"base {_commit(b)} → candidate {_commit(c)} · {_items_line(r)} · paired bootstrap over "
           f"{'source documents' if r['bootstrap']['unit'] == 'source document' else 'items'}, "
           f"{r['bootstrap']['resamples']} resamples, seed {r['bootstrap']['seed']}, "
           f"{r['bootstrap']['interval']} intervals", ""]
    warnings = _warnings(r)
    out += [*warnings, ""] if warnings else []
    primary = [m for m in r["metrics"] if m["primary"]]
    rest = [m for m in r["metrics"] if not m["primary"]]
    out += _table(primary) + _holm_note(r) + _unreliable_note(primary) + _flips(primary) + [""]
    if rest:
        out += ["<details><summary>Other metrics (" + str(len(rest)) + ")</summary>", ""]
        out += _table(_cap(rest, rows)) + _more(rest, rows) + _unreliable_note(_cap(rest, rows))
        out += _flips(_cap(rest, rows)) + ["", "</details>", ""]
    out += _agreement(r["agreement"])
    diff = r["config_diff"]
    out += [f"<details><summary>Config diff ({len(diff)} setting{'s' if len(diff) != 1 else ''})</summary>", ""]
    if diff:
        out += ["| setting | base | candidate |", "|---|---|---|"]
        out += [f"| `{_cell(d['key'])}` | {_cell(d['base'])} | {_cell(d['candidate'])} |" for d in _cap(diff, rows)]
        out += _more(diff, rows)
    else:
        out.append("Settings and provenance are identical.")
    out += ["", "</details>", ""]
    worst = r["most_regressed"]
    if worst and worst["items"]:
        out += [f"<details><summary>Most regressed items on <code>{_cell(worst['metric'])}</code></summary>", "",
                "| item | base | candidate | Δ |", "|---|---:|---:|---:|"]
        out += [f"| `{_cell(i['id'], 80)}` | {_num(i['base'])} | {_num(i['candidate'])} | {_num(i['delta'], True)} |"
                for i in worst["items"]]
        out += ["", "</details>", ""]
    items = r["items"]
    if items["available"] and (items["n_dropped"] or items["n_added"]):
        out.append(f"Dropped items (in base, not in candidate): {items['n_dropped']}"
                   + _ids(items["dropped"], items["n_dropped"]) + f" · added: {items['n_added']}"
                   + _ids(items["added"], items["n_added"]))
    failed = [m for m in r["metrics"] if m["failed"]["candidate"] > m["failed"]["base"]]
    if failed:
        out.append("Failed items in the candidate: " + ", ".join(
            f"`{m['metric']}` {m['failed']['candidate']} (base {m['failed']['base']})" for m in failed[:20]))
    if r["unknown_gates"]:
        out.append("Gates for metrics neither report has: " + ", ".join(f"`{_cell(n)}`" for n in r["unknown_gates"]))
    return "\n".join(out).rstrip("\n") + "\n"


def _agreement(rows: list[AgreementChange]) -> list[str]:
    """Which judge agrees better with the samples' labels, metric by metric (compare.agreement)."""
    if not rows:
        return []
    words = {"candidate": "the candidate agrees better", "base": "the base agrees better",
             "neither": "neither, within the interval", "undetermined": "undetermined"}
    out = ["Agreement with the samples' labels (paired over questions):", "",
           "| metric | statistic | n | base | candidate | Δ (95% CI) | which agrees better |",
           "|---|---|---:|---:|---:|---|---|"]
    for row in rows:
        interval = f" [{_num(row['ci95'][0], True)}, {_num(row['ci95'][1], True)}]" if row["ci95"] else ""
        out.append(f"| `{_cell(row['metric'])}` | {row['statistic']} | {row['n']} | {_num(row['base'])} | "
                   f"{_num(row['candidate'])} | {_num(row['delta'], True)}{interval} | {words[row['better']]} |")
    return [*out, ""]


def _verdict(r: CompareResult) -> str:
    if r["verdict"] == "broken run":
        return "broken candidate run (" + ", ".join(r["broken"]) + " has no value)"
    if r["failing"]:
        names = ", ".join(f"`{n}`" for n in r["failing"])
        return names + (" fails its gate" if len(r["failing"]) == 1 else " fail their gates")
    regressed = [m["metric"] for m in r["metrics"] if m["status"] == "regressed"]
    tail = f" ({len(regressed)} non-gating metric{'s' if len(regressed) != 1 else ''} regressed)" if regressed else ""
    return "no gated regression" + tail


def _warnings(r: CompareResult) -> list[str]:
    """The ⚠️ lines above the tables: what a reader must know before trusting the verdict."""
    out = [f"> ⚠️ compared with --allow-mismatch: {m['what']} differs "
           f"(`{_cell(_sha(m['base']))}` vs `{_cell(_sha(m['candidate']))}`)" for m in r["mismatches"]]
    if r["judge_changed"]:
        out.append(f"> ⚠️ the judge changed ({', '.join(r['judge_changed'])}): {_judged_words(r['metrics'])}")
    out += [f"> ⚠️ {_lost_words(m)}" for m in r["metrics"] if m["primary"] and (m.get("n_lost") or m.get("n_gained"))]
    if r["numeric_path_changed"]:
        out.append(f"> ⚠️ computed on different floating-point paths ({', '.join(r['numeric_path_changed'])}): the "
                   "embedder's vectors can differ in their last digits and reorder a question or two; compute both "
                   "runs on one machine, or share one embedding cache (docs/operations.md: numbers across machines)")
    return out


def _judged_words(metrics: list[MetricRow]) -> str:
    """Which metrics the changed judge made not comparable, named (a few), or that it grades none of them
    (judge --pairwise measures the judge itself)."""
    names = [m["metric"] for m in metrics if m["status"] == "not comparable"]
    if not names:
        return "it grades none of these metrics"
    shown = ", ".join(f"`{_cell(n, 60)}`" for n in names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6
                                                                 else "")
    return f"the metrics it grades are not comparable ({shown})"


def _lost_words(m: MetricRow) -> str:
    """"20 of 60 items lost their `faithfulness` value: `q1`, `q7`, … (3 gained one)": what the paired means
    leave out, and which items to open."""
    words = f"{m.get('n_lost', 0)} of {m['scored_base']} items lost their `{_cell(m['metric'])}` value"
    words += _named(m.get("lost") or [], m.get("n_lost", 0), ": ")
    return words + (f" ({m['n_gained']} gained one)" if m.get("n_gained") else "")


def _flips(metrics: list[MetricRow]) -> list[str]:
    """Under a table, per metric whose cases changed side: which went from pass to fail and back, named."""
    out = []
    for m in metrics:
        cases = m.get("cases")
        if not cases or not (cases["n_to_fail"] or cases["n_to_pass"]):
            continue
        out.append(f"- `{_cell(m['metric'])}` cases (pass: {case_rule(cases)}; {cases['passing_base']} "
                   f"of {cases['n']} passed, now {cases['passing_candidate']}): pass → fail {cases['n_to_fail']}"
                   + _named(cases["to_fail"], cases["n_to_fail"], ": ") + f"; fail → pass {cases['n_to_pass']}"
                   + _named(cases["to_pass"], cases["n_to_pass"], ": ")
                   + (f" · sign test p = {cases['sign_test_p']:.3g}, reported, not gated (the paired bootstrap "
                      f"decides from {SMALL_SET} cases)" if cases["max_flipped_to_fail"] is None else ""))
    return ["", *out] if out else []


def _named(ids: list[str], total: int, lead: str) -> str:
    """The first NAMED ids, then how many more."""
    if not ids:
        return ""
    shown = ", ".join(f"`{_cell(i, 60)}`" for i in ids[:NAMED])
    return f"{lead}{shown}" + (f" and {total - min(len(ids), NAMED)} more" if total > NAMED else "")


def _delta(m: MetricRow) -> str:
    """The change the verdict used; beside it the reports' means' difference when that reads otherwise."""
    shown = _num(m["change"], True)
    if m.get("paired_delta") is not None and m["delta"] is not None and _num(m["delta"], True) != shown:
        return f"{shown} paired (means {_num(m['delta'], True)})"
    return shown


def _table(metrics: list[MetricRow]) -> list[str]:
    lines = ["| metric | base | candidate | Δ | 95% CI of Δ | lost / gained "
             "| cases pass → fail / fail → pass | status |",
             "|---|---:|---:|---:|---|---:|---:|---|"]
    for m in metrics:
        mark = " †" if m.get("ci_unreliable") else ""
        ci = f"[{_num(m['ci95'][0], True)}, {_num(m['ci95'][1], True)}]{mark}" if m["ci95"] else \
            f"— ({m['basis']})" if m["basis"] else "—"
        lost = f"{m['n_lost']} / {m['n_gained']}" if "n_lost" in m else "—"
        cases = m.get("cases")
        flips = f"{cases['n_to_fail']} / {cases['n_to_pass']}" if cases else "—"
        lines.append(f"| `{_cell(m['metric'])}` | {_num(m['base'])} | {_num(m['candidate'])} | "
                     f"{_delta(m)} | {ci} | {lost} | {flips} | {_status(m)} |")
    return lines


def _status(m: MetricRow) -> str:
    """A row's verdict: a broken gate first, with its reasons, then what the statistics say of Δ; so a row
    whose gate fails the comparison never reads as a mere "not significant"."""
    if not m["gate"]:
        return ARROWS[m["status"]]
    lead = "⛔ **fails its gate**" if m["gate"]["action"] == "fail" else "⚠️ breaks its gate (warning)"
    return f"{lead}: {'; '.join(m['gate']['violations'])} · Δ {ARROWS[m['status']]}"


def _holm_note(r: CompareResult) -> list[str]:
    """Under the primary table, when several primary metrics gate together: their significance was held to
    Holm's levels, not 5% each, so a 95% interval that excludes 0 may still read `~`."""
    family = r["significance"]["holm"]
    if len(family) < 2:
        return []
    rows = {m["metric"]: m for m in r["metrics"]}
    tests = ", ".join(f"`{_cell(n, 60)}` p = {rows[n]['p_value']:.4g} (level {rows[n]['alpha']:.4g}"
                      f"{'' if rows[n]['significant'] else ', not significant'})" for n in family)
    alpha = r["significance"]["alpha"]
    return ["", f"Holm–Bonferroni across the {len(family)} primary metrics (family-wise {alpha:.0%}): "
                f"{tests}. The other metrics are tested at {alpha:.0%} each."]


def _unreliable_note(metrics: list[MetricRow]) -> list[str]:
    """The footnote to a † beside an interval."""
    if not any(m.get("ci_unreliable") for m in metrics):
        return []
    return ["", f"† fewer than {RELIABLE_UNITS} source documents (or items) with a value on both sides: the "
                "interval, and the verdict from it, are unreliable (they cover the true change less often "
                "than 95%)."]


def _cap(rows: list[Any], limit: int | None) -> list[Any]:
    return rows if limit is None else rows[:limit]


def _more(rows: list[Any], limit: int | None) -> list[str]:
    return [f"| … {len(rows) - limit} more | | | | | | | |"] if limit is not None and len(rows) > limit else []


def _ids(ids: list[str], total: int) -> str:
    if not ids:
        return ""
    return " (" + ", ".join(f"`{_cell(i, 60)}`" for i in ids[:10]) + (", …" if total > 10 else "") + ")"


def _items_line(r: CompareResult) -> str:
    items = r["items"]
    if not items["available"]:
        return "no items.jsonl: report values only"
    return f"{items['n_paired']} paired items"


def _commit(side: RunIdentity) -> str:
    commit = side["git_commit"]
    return f"`{commit[:12]}`" if commit else f"`{_cell(side['path'], 60)}`"


def _num(value: Any, signed: bool = False) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:+.4f}" if signed else f"{value:.4f}"
    return f"{value:+}" if signed else str(value)


def _sha(value: Any) -> Any:
    """A sha256 shortened to 12 characters, as report.md shows it."""
    return value[:12] if isinstance(value, str) and len(value) == 64 else value


def _cell(value: Any, width: int = CELL) -> str:
    text = "—" if value is None else str(value)
    text = text.replace("|", "\\|").replace("\n", " ").replace("`", "'")
    return text if len(text) <= width else text[:width - 1] + "…"
