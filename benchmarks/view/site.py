"""`bench view`: write the static site of a reports folder (docs/commands/view.md).

This is the viewer's only I/O: it reads the runs (`runs.discover`), their items (`items.scan`, then the lines a
page shows), runs bench compare on each comparable pair, renders the pages (`pages`) and writes them with the
assets beside them. The site is rebuilt whole each time, into a fresh folder that then replaces the old one,
so a reader never sees half of one build and half of another, and a run deleted from the folder leaves no page.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from benchmarks.compare import compare, load_gates, load_run
from benchmarks.compare.core import Incomparable
from benchmarks.compare.load import Run
from benchmarks.errors import BenchError
from benchmarks.run_files.reader import BrokenRun
from benchmarks.view import pages
from benchmarks.view.items import ITEMS_FILE, ItemIndex, read_at, scan
from benchmarks.view.runs import RunEntry, comparable_pairs, discover

MIN_PAIRS_A_WORKER = 8  # fewer comparisons than this a core are not worth starting a process for


class Bar(Protocol):
    """What the build needs of a progress display: rich's Progress, or bench's plain lines off a terminal."""

    def add_task(self, description: str, *, total: float | None = ...) -> Any: ...

    def advance(self, task_id: Any, advance: float = ...) -> None: ...


@dataclass(frozen=True)
class Built:
    """What one build wrote: where, how many pages of each kind, and how long it took."""

    site: Path
    runs: int
    run_pages: int
    item_pages: int
    compare_pages: int
    seconds: float


def build(reports_dir: Path, output: Path | None = None, *, progress: Bar | None = None) -> Built:
    """The site of every run under `reports_dir`, written to `output` (default `reports_dir/site`); `progress`
    (a rich bar, or plain lines off a terminal) counts the runs and comparisons done."""
    started = time.perf_counter()
    if not reports_dir.is_dir():
        raise BenchError(f"{reports_dir}: no such reports folder")
    site = output if output is not None else reports_dir / "site"
    if site.resolve() == reports_dir.resolve() or reports_dir.resolve().is_relative_to(site.resolve()):
        raise BenchError(f"--output {site}: the site would replace the reports it is built from; name another folder")
    entries = discover(reports_dir, skip=site)
    if not entries:
        raise BenchError(f"{reports_dir}: no runs here (no report.json and no index.jsonl line)")
    staging = site.with_name(f".{site.name}.building")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "assets").mkdir(parents=True)
    _assets(staging / "assets")
    pairs = comparable_pairs(entries)
    links = pages.Links(run={e.key: pages.run_href(e.key) for e in entries if e.report is not None},
                        compare={c.key: pages.compare_href(c.key) for _, c in pairs},
                        compared_by={b.key: pages.compare_href(c.key) for b, c in pairs})
    task = progress.add_task("runs and comparisons", total=len(pairs) + len(links.run)) if progress else None
    written = 0
    for (base, candidate), compared in zip(pairs, _compare_all(pairs, progress, task), strict=True):
        if compared is None:  # first: a pair bench compare refuses takes its links away
            links.compare.pop(candidate.key, None)
            links.compared_by.pop(base.key, None)
            continue
        _write(staging / pages.compare_href(candidate.key), pages.compare_page(base, candidate, *compared, links))
        written += 1
    item_pages = 0
    for entry in entries:
        if entry.report is not None:
            item_pages += _write_run(staging, entry, links)
            if progress is not None:
                progress.advance(task)
    _write(staging / "index.html", pages.index_page(entries, links, title=f"Runs in {reports_dir.name or reports_dir}"))
    _replace(staging, site)
    return Built(site=site, runs=len(entries), run_pages=len(links.run), item_pages=item_pages,
                 compare_pages=written, seconds=time.perf_counter() - started)


def _write_run(site: Path, entry: RunEntry, links: pages.Links) -> int:
    """A run's page and its further pages of items; returns how many item pages beyond the first it wrote."""
    report, folder = entry.report, entry.folder
    assert report is not None and folder is not None
    target = site / "runs" / entry.key
    items: ItemIndex | None = None
    path = folder / ITEMS_FILE
    if path.is_file():
        metric = report.metrics.get(report.main_metric)
        try:
            items = scan(path, list(report.metrics), report.main_metric,
                         metric.higher_is_better if metric else True)
        except BrokenRun as exc:
            entry = replace(entry, status="unreadable", error=str(exc))
    count = len(items.offsets) if items else 0
    total = max(1, -(-count // pages.PAGE_SIZE))
    for number in range(1, total + 1):
        rows = data = ""
        if items is not None:
            lines = list(read_at(items.path, items.offsets[(number - 1) * pages.PAGE_SIZE:number * pages.PAGE_SIZE]))
            rows = pages.item_rows((json.loads(line) for line in lines), report.main_metric,
                                   (number - 1) * pages.PAGE_SIZE + 1)
            data = pages.items_data(lines)
            if number > 1:
                _write(target / pages.items_href(number), pages.items_page(entry, items, rows, data, number, total))
                continue
        _write(target / pages.items_href(1), pages.run_page(entry, items, rows, data, total, links))
    return total - 1


Compared = tuple[dict[str, Any], dict[str, Any] | None] | None  # bench compare's result and the scatter, or refused


def _compare_all(pairs: list[tuple[RunEntry, RunEntry]], progress: Bar | None, task: Any) -> list[Compared]:
    """bench compare on every pair, on every usable core: each is independent, and a nightly folder's comparisons
    are most of a build's time (a paired bootstrap of 10,000 resamples each)."""
    # a tier and dataset's pairs one after another share their runs: a run is read once for both of its pairs
    # (by each worker, which takes a stretch of them)
    order = sorted(range(len(pairs)), key=lambda i: (pairs[i][1].tier, pairs[i][1].dataset, i))
    jobs = [(pairs[i][0].folder, pairs[i][1].folder) for i in order]
    workers = min(len(jobs) // MIN_PAIRS_A_WORKER, len(os.sched_getaffinity(0)))
    done: list[Compared] = []
    if workers < 2:
        for base, candidate in jobs:
            done.append(_compared(base, candidate))
            if progress is not None:
                progress.advance(task)
        _load.cache_clear()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for compared in pool.map(_compared, *zip(*jobs, strict=True), chunksize=-(-len(jobs) // workers)):
                done.append(compared)
                if progress is not None:
                    progress.advance(task)
    out: list[Compared] = [None] * len(pairs)
    for position, i in enumerate(order):
        out[i] = done[position]
    return out


def _compared(base: Path | None, candidate: Path | None) -> Compared:
    """bench compare on one pair, as `bench compare BASE CANDIDATE` runs it; None when it refuses the pair."""
    assert base is not None and candidate is not None
    try:
        before, after = _load(base), _load(candidate)
        result = compare(before, after, load_gates(None))
    except (Incomparable, BrokenRun):
        return None
    main = after.report.main_metric
    scatter = (pages.paired_scatter(main, before.items, after.items)
               if before.items is not None and after.items is not None else None)
    return result, scatter


@functools.lru_cache(maxsize=2)
def _load(folder: Path) -> Run:
    """A run as bench compare reads it, kept while the next pair, which shares it, is compared."""
    return load_run(folder)


def _assets(folder: Path) -> None:
    """The site's stylesheet and script, and plotly.js from the installed plotly package (nothing from a CDN)."""
    own = resources.files("benchmarks.view") / "assets"
    for name in ("view.css", "view.js"):
        (folder / name).write_bytes((own / name).read_bytes())
    plotly = resources.files("plotly") / "package_data" / "plotly.min.js"
    (folder / "plotly.min.js").write_bytes(plotly.read_bytes())


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _replace(staging: Path, site: Path) -> None:
    """The new build in the old one's place: the old one is moved aside first, then removed."""
    old = site.with_name(f".{site.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if site.exists():
        site.rename(old)
    staging.rename(site)
    shutil.rmtree(old, ignore_errors=True)
