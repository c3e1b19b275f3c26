"""The viewer's pages as HTML text, from what was read: pure functions, no file is touched here.

Site layout (every link relative, see `html.page`):
- `index.html`: every run, filterable by tier, dataset and status, with the trend of each main metric;
- `runs/<run folder>/index.html`: a run's metrics, distributions, the first page of its items, settings and
  provenance; `items-<k>.html` beside it: the following pages of items;
- `compare/<run folder>.html`: a run against the run before it on the same tier and dataset.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from benchmarks.compare.markdown import ARROWS
from benchmarks.compare.result import CompareResult, MetricRow, MostRegressed
from benchmarks.item_record import outcome_of
from benchmarks.metrics.bands import band_for
from benchmarks.report.lowest_items import one_line
from benchmarks.report.markdown import CALIBRATED_MARK, CALIBRATED_NOTE, metric_band
from benchmarks.report_model import Report
from benchmarks.view import charts
from benchmarks.view.html import chart, esc, interval, number, page, table
from benchmarks.view.items import ItemIndex
from benchmarks.view.runs import RunEntry

PAGE_SIZE = 500  # items a page lists
CELL = 160  # characters of an input or explanation a table cell shows (the item's detail has all of it)
QUESTION_KEYS = ("question", "user_input", "query")  # the input a row shows (every input is in its detail)
CHARTED = 24  # metrics a run page draws a distribution for, in the report's order
VERDICT_CLASS = {"pass": "status-ok", "regression": "status-regression", "broken run": "status-broken"}


@dataclass(frozen=True)
class Links:
    """Where a run's pages are and which comparisons involve it, relative to the site's top."""

    run: dict[str, str]  # run key -> its page
    compare: dict[str, str]  # candidate run key -> its comparison with the run before it
    compared_by: dict[str, str]  # base run key -> the comparison where it is the base


def run_href(key: str) -> str:
    return f"runs/{quote(key)}/index.html"


def items_href(page_number: int) -> str:
    return "index.html" if page_number == 1 else f"items-{page_number}.html"


def compare_href(candidate_key: str) -> str:
    return f"compare/{quote(candidate_key.replace('/', '__'))}.html"


def run_root(key: str) -> str:
    return "../" * (2 + key.count("/"))


# --- index ---------------------------------------------------------------------------------------------


def index_page(entries: Sequence[RunEntry], links: Links, *, title: str) -> str:
    rows = []
    for entry in reversed(entries):  # newest first
        name = (f'<a href="{esc(links.run[entry.key])}">{esc(entry.run_id)}</a>' if entry.key in links.run
                else esc(entry.run_id))
        why = f'<div class="muted">{esc(one_line(entry.error, CELL))}</div>' if entry.error else ""
        compared = (f'<a href="{esc(links.compare[entry.key])}">vs previous</a>' if entry.key in links.compare
                    else "")
        rows.append(f'<tr data-tier="{esc(entry.tier)}" data-dataset="{esc(entry.dataset)}" '
                     f'data-status="{esc(entry.status)}">'
                     f"<td>{name}{why}</td><td>{esc(entry.tier)}</td><td>{esc(entry.dataset)}</td>"
                     f'<td class="mono">{esc(entry.started_at)}</td>{_status_cell(entry.status)}'
                     f"<td>{esc(entry.main_metric or '')}</td>"
                     f'<td class="num" data-key="{_key(entry.main_value)}">{number(entry.main_value)}</td>'
                     f'<td class="num">{interval(entry.ci95)}</td><td>{compared}</td></tr>')
    head = "".join(f"<th{' class=num' if h in ('value', '95% CI') else ''}>{h}</th>" for h in (
        "run", "tier", "dataset", "started", "status", "main metric", "value", "95% CI", "compare"))
    filters = "".join(_select("runs", name, sorted({getattr(e, name) for e in entries}))
                      for name in ("tier", "dataset", "status"))
    series = _series(entries)
    trend = chart("fig-trends", charts.trends(series)) if series else ""
    body = (f'<p class="lead">{len(entries)} run{"s" if len(entries) != 1 else ""}, newest first. A run links to its '
            f"items, worst first; “vs previous” to bench compare’s verdict against the run before it.</p>"
            f'<div class="filters">{filters}<span class="muted" data-count="runs">{len(entries)} shown</span></div>'
            f'<table id="runs" class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            + (f"<h2>Trends</h2>{trend}" if trend else ""))
    return page(title, body, root="", charts=bool(trend))


def _series(entries: Sequence[RunEntry]) -> dict[str, list[tuple[str, float | None, str]]]:
    """Each tier and dataset with two runs or more: its main metric over time."""
    groups: dict[str, list[tuple[str, float | None, str]]] = {}
    for entry in entries:
        groups.setdefault(f"{entry.tier} on {entry.dataset}: {entry.main_metric}", []).append(
            (entry.started_at, entry.main_value, entry.run_id))
    return {label: points for label, points in groups.items() if len(points) > 1}


def _select(table_id: str, name: str, values: Iterable[str]) -> str:
    options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
    return (f'<label>{name} <select name="{name}" data-filters="{table_id}"><option value="">all</option>'
            f"{options}</select></label>")


def _status_cell(status: str) -> str:
    return f'<td class="status-{esc(status.split()[0])}">{esc(status)}</td>'


def _key(value: float | None) -> str:
    return "" if value is None else repr(value)


# --- a run ---------------------------------------------------------------------------------------------


def run_page(entry: RunEntry, items: ItemIndex | None, first: str, data: str, pages: int, links: Links) -> str:
    """A run: what it measured, how its items spread, its worst items, and what it ran on."""
    report = entry.report
    assert report is not None and entry.folder is not None
    root = run_root(entry.key)
    crumbs = [(root + "index.html", "all runs")]
    related = []
    if entry.key in links.compare:
        related.append(f'<a href="{esc(root + links.compare[entry.key])}">compared with the run before</a>')
    if entry.key in links.compared_by:
        related.append(f'<a href="{esc(root + links.compared_by[entry.key])}">compared with the run after</a>')
    duration = report.volatile.duration_s
    lead = (f'<p class="lead">{esc(report.title or report.tier)} · {esc(report.dataset.name)} · started '
            f"{esc(entry.started_at or '?')}{f' · {duration:.1f} s' if duration is not None else ''} · status "
            f'<span class="status-{esc(entry.status.split()[0])}">{esc(entry.status)}</span>'
            f"{' · ' + ' · '.join(related) if related else ''}</p>")
    error = f'<p class="status-failed">{esc(entry.error)}</p>' if entry.error else ""
    jump = '<p class="muted">jump to <a href="#worst-items">items</a> · <a href="#distributions">distributions</a> · ' \
        '<a href="#settings">settings and provenance</a></p>'
    sections = [lead, error, jump, "<h2>Metrics</h2>", _metrics_table(entry, items)]
    drawn = [(n, t) for n, t in (items.tallies.items() if items else []) if len(t.values)][:CHARTED]
    if items is not None:
        sections += ["<h2 id=\"worst-items\">Items</h2>", _items_section(entry, items, first, data, 1, pages)]
    else:
        sections.append('<h2 id="worst-items">Items</h2><p class="muted">This run wrote no items.jsonl.</p>')
    if drawn:
        sections.append("<h2 id=\"distributions\">Score distributions</h2><div class=\"charts\">" + "".join(
            chart(f"fig-{number_}", charts.distribution(name, tally.values))
            for number_, (name, tally) in enumerate(drawn)) + "</div>")
    sections += _run_details(report.written())
    return page(f"{report.tier} · {entry.run_id}", "".join(sections), root=root, crumbs=crumbs, charts=bool(drawn))


def items_page(entry: RunEntry, items: ItemIndex, rows: str, data: str, page_number: int, pages: int) -> str:
    """One more page of a run's items, in the same order as the run page's first."""
    root = run_root(entry.key)
    crumbs = [(root + "index.html", "all runs"), ("index.html", entry.run_id)]
    body = _items_section(entry, items, rows, data, page_number, pages)
    return page(f"{entry.tier} · {entry.run_id} · items, page {page_number} of {pages}", body, root=root,
                crumbs=crumbs)


def _metrics_table(entry: RunEntry, items: ItemIndex | None) -> str:
    """Each metric's value and interval, its reading band where the seeds give one, and what it rests on."""
    report = entry.report
    assert report is not None
    rows, calibrated = [], False
    for name, metric in report.metrics.items():
        tally = items.tallies.get(name) if items else None
        counts = ([str(tally.n), str(tally.ok), str(tally.undetermined), str(tally.failed)] if tally and tally.n
                  else [str(metric.n), "", "", str(metric.errors)])
        main = " (main)" if name == report.main_metric else ""
        direction = {True: "higher", False: "lower", None: "—"}[metric.higher_is_better]
        rows.append([f"<code>{esc(name)}</code>{main}", _num_cell(metric.value), interval(metric.ci95),
                     _band_cell(report, name), *counts, direction])
        calibrated = calibrated or metric_band(report, name).endswith(CALIBRATED_MARK)
    head = ["metric", "value", "95% CI", "reading", "n", "ok", "undetermined", "failed", "better"]
    note = f'<p class="muted">{esc(CALIBRATED_NOTE)}.</p>' if calibrated else ""
    return table(head, rows, cls="metrics") + note


def _band_cell(report: Report, name: str) -> str:
    """The seeds' reading of the value (report.md's and the console's word), its band on hover and in the text
    a screen reader gets."""
    shown, band = metric_band(report, name), band_for(name)
    if not shown or band is None:
        return ""
    meaning = f"{band.describe()} ({band.source})"
    return f'<span class="band-{esc(shown.split()[0])}" title="{esc(meaning)}">{esc(shown)}</span>'


def _num_cell(value: float | int | None) -> str:
    return f'<span class="mono">{number(value)}</span>'


def _items_section(entry: RunEntry, items: ItemIndex, rows: str, data: str, page_number: int, pages: int) -> str:
    report = entry.report
    assert report is not None
    total = len(items.offsets)
    start = (page_number - 1) * PAGE_SIZE
    pager = _pager(page_number, pages)
    where = (f"items {start + 1}–{min(start + PAGE_SIZE, total)} of {total}" if total else "no items")
    head = "".join(f"<th{' class=num' if h in ('#', report.main_metric) else ''}>{esc(h)}</th>"
                   for h in ("#", "id", report.main_metric, "status", "why", "question", "answer", "detail"))
    statuses = _select("items", "status", ["ok", "undetermined", "failed"])
    return (f'<p class="lead">{where}, worst <code>{esc(report.main_metric)}</code> first; items without a value '
            f"on it come last (failed, then undetermined). Click a heading to sort this page; the search box reads "
            f"every field of an item.</p>"
            f'<div class="filters"><input type="search" placeholder="search ids, inputs, answers, explanations" '
            f'data-search="items">{statuses}<span class="muted" data-count="items"></span></div>{pager}'
            f'<table id="items" class="sortable items"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
            f"{pager}{data}")


def _pager(current: int, pages: int) -> str:
    if pages <= 1:
        return ""
    shown = sorted({1, pages, *range(max(1, current - 3), min(pages, current + 3) + 1)})
    parts, previous = [], 0
    for number_ in shown:
        if number_ - previous > 1:
            parts.append("<span>…</span>")
        parts.append(f'<span class="current">{number_}</span>' if number_ == current
                     else f'<a href="{items_href(number_)}">{number_}</a>')
        previous = number_
    return f'<div class="pager">pages: {"".join(parts)}</div>'


def item_rows(records: Iterable[Mapping[str, Any]], main: str, first_rank: int) -> str:
    """The items' table rows: each with its main value, status and why in the row; the rest of the record is in
    the page's data (`items_data`), drawn into the row's detail when it is opened."""
    out = []
    for number_, record in enumerate(records):
        rank = first_rank + number_
        scores = record.get("scores") or {}
        value, outcome = outcome_of(scores.get(main))
        why = _explanations(scores.get(main))
        inputs = record.get("inputs") or {}
        asked = next((inputs[k] for k in QUESTION_KEYS if isinstance(inputs.get(k), str)),
                     next((v for v in inputs.values() if isinstance(v, str)), ""))
        out.append(f'<tr data-i="{number_}" data-status="{outcome or "n/a"}"><td class="num">{rank}</td>'
                   f'<td class="mono">{esc(record.get("id"))}</td>'
                   f'<td class="num" data-key="{_key(value)}">{number(value)}</td>'
                   f'<td class="status-{outcome or "na"}">{outcome or "n/a"}</td>'
                   f"<td>{esc(one_line(why, CELL))}</td><td>{esc(one_line(asked, CELL))}</td>"
                   f"<td>{esc(one_line(_answered(record.get('answer')), CELL))}</td>"
                   '<td><details class="item"><summary>open</summary></details></td></tr>')
    return "".join(out)


def items_data(lines: Sequence[str]) -> str:
    """The page's items as its script reads them (each row's detail, drawn when opened, and the search): the
    lines of items.jsonl as they are, so nothing is parsed and written again."""
    return ('<script type="application/json" id="items-data">['
            + ",".join(line.strip().replace("</", "<\\/") for line in lines) + "]</script>")


def _answered(answer: Any) -> str:
    """What the system answered, in a line: its text, a response field, or the first ranked chunks' ids."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, dict):
        return str(answer.get("response") or answer.get("answer") or "")
    if isinstance(answer, list):
        return ", ".join(str(a[0] if isinstance(a, list | tuple) and a else a) for a in answer[:3])
    return ""


def _explanations(scores: Mapping[str, Any] | None) -> str:
    """Why the item got its value, scorer by scorer (the status where a scorer has no explanation)."""
    parts = []
    for scorer, score in (scores or {}).items():
        text = str(score.get("explanation") or "")
        status = str(score.get("status"))
        said = text if status == "ok" else f"{status}: {text}" if text else status
        if said:
            parts.append(said if len(scores or {}) == 1 else f"{scorer}: {said}")
    return " · ".join(parts)


def _run_details(report: dict[str, Any]) -> list[str]:
    """Settings, provenance, notes and warnings: every key the report holds, flattened to dotted names."""
    out = ['<h2 id="settings">Settings and provenance</h2>']
    for block in ("settings", "provenance", "dataset", "log", "notes", "volatile"):
        if report.get(block):
            rows = [[f"<code>{esc(k)}</code>", f'<span class="mono">{esc(v)}</span>'] for k, v in _flat(report[block])]
            out.append(f"<details{' open' if block == 'settings' else ''}><summary>{block} ({len(rows)})</summary>"
                       f"{table(['key', 'value'], rows)}</details>")
    warnings = report.get("warnings") or []
    if warnings:
        rows = [[f"<code>{esc(w['code'])}</code>", str(w["count"]), esc(w["message"]), esc(", ".join(w["examples"]))]
                for w in warnings]
        out.append(f"<h2>Warnings</h2>{table(['code', 'count', 'message', 'examples'], rows)}")
    return out


def _flat(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict) and value:
        return [pair for k, v in value.items() for pair in _flat(v, f"{prefix}.{k}" if prefix else str(k))]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [(prefix, text)]


# --- a comparison --------------------------------------------------------------------------------------


def compare_page(base: RunEntry, candidate: RunEntry, result: CompareResult, scatter: dict[str, Any] | None,
                 links: Links) -> str:
    """bench compare's verdict on two runs, its tables, and each paired item on the main metric."""
    root = "../"
    crumbs = [(root + "index.html", "all runs"), (root + links.run[base.key], f"base {base.run_id}"),
              (root + links.run[candidate.key], f"candidate {candidate.run_id}")]
    verdict = result["verdict"]
    failing = ", ".join(result["failing"])
    lead = (f'<p class="verdict {VERDICT_CLASS.get(verdict, "")}">{esc(verdict)}'
            f"{esc(': ' + failing + ' failed its gate') if failing else ''}</p>"
            f'<p class="lead">{esc(candidate.tier)} on {esc(candidate.dataset)}: base {esc(base.run_id)} '
            f"({esc(base.started_at)}) → candidate {esc(candidate.run_id)} ({esc(candidate.started_at)}). Paired "
            f"bootstrap over {esc(result['bootstrap']['unit'])}s, {result['bootstrap']['resamples']} resamples, "
            f"seed {result['bootstrap']['seed']}; gates from {esc(result['gates_file'] or 'bench defaults')}.</p>")
    warnings = [f"the judge changed ({', '.join(result['judge_changed'])}): the metrics it grades are not comparable"
                ] if result["judge_changed"] else []
    warnings += [f"computed on different floating-point paths ({', '.join(result['numeric_path_changed'])})"
                 ] if result["numeric_path_changed"] else []
    sections = [lead, *(f'<p class="status-undetermined">⚠ {esc(w)}</p>' for w in warnings),
                "<h2>Metrics</h2>", _compare_table(result["metrics"])]
    sections += _flipped(result["metrics"])
    if scatter is not None:
        sections.append(f"<h2>Per item</h2>{chart('fig-paired', scatter)}")
    sections += _regressed(result["most_regressed"])
    items = result["items"]
    if items["available"] and (items["n_dropped"] or items["n_added"]):
        sections.append(f"<h2>Dropped and added items</h2><p>dropped (in base, not in candidate): {items['n_dropped']}"
                        f" {esc(', '.join(items['dropped']))}; added: {items['n_added']} "
                        f"{esc(', '.join(items['added']))}</p>")
    diff = result["config_diff"]
    rows = [[f"<code>{esc(d['key'])}</code>", esc(d["base"]), esc(d["candidate"])] for d in diff]
    sections.append(f"<h2>Config diff</h2>{table(['setting', 'base', 'candidate'], rows)}" if rows
                    else "<h2>Config diff</h2><p>Settings and provenance are identical.</p>")
    return page(f"compare · {candidate.tier} · {candidate.run_id}", "".join(sections), root=root, crumbs=crumbs,
                charts=scatter is not None)


def refused_page(base: RunEntry, candidate: RunEntry, reason: str, links: Links) -> str:
    """The pair's page when bench compare refused it: why, so a link never leads nowhere."""
    crumbs = [("../index.html", "all runs"), ("../" + links.run[base.key], f"base {base.run_id}"),
              ("../" + links.run[candidate.key], f"candidate {candidate.run_id}")]
    body = f'<p class="verdict status-failed">not compared</p><p>bench compare refused this pair: {esc(reason)}</p>'
    return page(f"compare · {candidate.tier} · {candidate.run_id}", body, root="../", crumbs=crumbs)


def _compare_table(metrics: Sequence[MetricRow]) -> str:
    rows = []
    for m in metrics:
        ci = interval(m["ci95"]) or (f"— ({m['basis']})" if m["basis"] else "—")
        lost = f"{m['n_lost']} / {m['n_gained']}" if "n_lost" in m else "—"
        cases = m.get("cases")
        flips = f"{cases['n_to_fail']} / {cases['n_to_pass']}" if cases else "—"
        gate = m["gate"]
        status = ARROWS[m["status"]] + (f" · {'fails' if gate['action'] == 'fail' else 'breaks'} its gate: "
                                        f"{'; '.join(gate['violations'])}" if gate else "")
        primary = " (primary)" if m["primary"] else ""
        rows.append([f"<code>{esc(m['metric'])}</code>{primary}", number(m["base"]), number(m["candidate"]),
                     number(m["change"]), esc(ci), lost, flips, esc(status)])
    return table(["metric", "base", "candidate", "Δ", "95% CI of Δ", "lost / gained", "cases pass → fail / fail → pass",
                  "status"], rows, cls="compare")


def _flipped(metrics: Sequence[MetricRow]) -> list[str]:
    """Per metric whose cases changed side, which did, by id; then the items that lost their value."""
    rows = []
    for m in metrics:
        cases = m.get("cases")
        if cases and (cases["n_to_fail"] or cases["n_to_pass"]):
            rows.append([f"<code>{esc(m['metric'])}</code>", f"pass → fail {cases['n_to_fail']}",
                         f'<span class="mono">{esc(", ".join(cases["to_fail"]))}</span>'])
            rows.append(["", f"fail → pass {cases['n_to_pass']}",
                         f'<span class="mono">{esc(", ".join(cases["to_pass"]))}</span>'])
        if m.get("n_lost"):
            rows.append([f"<code>{esc(m['metric'])}</code>", f"lost their value {m['n_lost']}",
                         f'<span class="mono">{esc(", ".join(m["lost"]))}</span>'])
    return [f"<h2>Flipped and lost items</h2>{table(['metric', 'change', 'items'], rows)}"] if rows else []


def _regressed(worst: MostRegressed | None) -> list[str]:
    if not worst or not worst["items"]:
        return []
    rows = [[f'<span class="mono">{esc(i["id"])}</span>', number(i["base"]), number(i["candidate"]),
             number(i["delta"])] for i in worst["items"]]
    return [f"<h2>Most regressed items on <code>{esc(worst['metric'])}</code></h2>"
            f"{table(['item', 'base', 'candidate', 'Δ'], rows)}"]


def paired_scatter(metric: str, base: Iterable[Mapping[str, Any]],
                   candidate: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The items both runs scored on `metric`, as a scatter of base against candidate (None when none are)."""
    before = {str(r["id"]): outcome_of((r.get("scores") or {}).get(metric))[0] for r in base}
    pairs: list[tuple[str, float, float]] = []
    for record in candidate:
        key = str(record["id"])
        was, now = before.get(key), outcome_of((record.get("scores") or {}).get(metric))[0]
        if was is not None and now is not None:
            pairs.append((key, was, now))
    if not pairs:
        return None
    return charts.paired(metric, [p[1] for p in pairs], [p[2] for p in pairs], [p[0] for p in pairs])
