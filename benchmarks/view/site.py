"""`bench view`: write the static site of a reports folder (docs/commands/view.md).

This is the viewer's only I/O: it reads the runs (`runs.discover`), their items (`items.scan`, then the lines a
page shows), runs bench compare on each comparable pair, renders the pages (`pages`) and writes them with the
assets beside them. The site is rebuilt whole each time, into a fresh folder that then replaces the old one,
so a reader never sees half of one build and half of another, and a run deleted from the folder leaves no page;
only bench compare's results are carried over from the last build, where nothing they rest on changed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from threadpoolctl import threadpool_limits

from benchmarks._version import __version__
from benchmarks.compare import compare, load_gates, load_run
from benchmarks.compare.gates import DEFAULT_FILE as DEFAULT_GATES
from benchmarks.compare.load import LoadedRun
from benchmarks.compare.result import CompareResult
from benchmarks.errors import BenchError
from benchmarks.run_files.reader import BrokenRun
from benchmarks.view import pages
from benchmarks.view.items import ITEMS_FILE, ItemIndex, read_at, scan
from benchmarks.view.runs import RunEntry, comparable_pairs, discover

CACHE = ".cache/compare"  # the site's own: bench compare's results by what decided them (`_pair_key`)
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
    # on other cores while this one writes the runs' pages
    with _comparisons(pairs, staging / CACHE, site / CACHE) as collect:
        item_pages = 0
        for position, entry in enumerate(entries):
            if entry.report is not None:
                more, entries[position] = _write_run(staging, entry, links)  # its items may turn out unreadable
                item_pages += more
                if progress is not None:
                    progress.advance(task)
        for (base, candidate), compared in zip(pairs, collect(), strict=True):
            html = (pages.refused_page(base, candidate, compared, links) if isinstance(compared, str)
                    else pages.compare_page(base, candidate, *compared, links))
            _write(staging / pages.compare_href(candidate.key), html)
            if progress is not None:
                progress.advance(task)
    _write(staging / "index.html", pages.index_page(entries, links, title=f"Runs in {reports_dir.name or reports_dir}"))
    _replace(staging, site)
    return Built(site=site, runs=len(entries), run_pages=len(links.run), item_pages=item_pages,
                 compare_pages=len(pairs), seconds=time.perf_counter() - started)


def _write_run(site: Path, entry: RunEntry, links: pages.Links) -> tuple[int, RunEntry]:
    """A run's page and its further pages of items: how many item pages beyond the first it wrote, and the run as
    the index lists it (unreadable, with why, when its items are)."""
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
    return total - 1, entry


Compared = tuple[CompareResult, dict[str, Any] | None] | str  # compare's result and the scatter, or its refusal


@contextmanager
def _comparisons(pairs: list[tuple[RunEntry, RunEntry]], cache: Path, previous: Path
                 ) -> Iterator[Callable[[], list[Compared]]]:
    """bench compare on every pair, started on the usable cores as this is entered (each pair is independent,
    and a nightly folder's comparisons are most of a build's work); the function it gives returns the results
    in the pairs' order once they are all in.

    A pair the last build compared, with the same files, the same gates file and the same bench, is read from
    that build's cache (`previous`) rather than compared again: a nightly rebuild compares only its new runs.
    Every result goes into this build's cache (`cache`)."""
    keys = [_pair_key(b.folder, c.folder) for b, c in pairs]
    known = {i: json.loads((previous / f"{k}.json").read_text()) for i, k in enumerate(keys)
             if (previous / f"{k}.json").is_file()}
    # a tier and dataset's pairs one after another share their runs: a run is read once for both of its pairs
    # (by each worker, which takes a stretch of them)
    order = sorted((i for i in range(len(pairs)) if i not in known),
                   key=lambda i: (pairs[i][1].tier, pairs[i][1].dataset, i))
    jobs = [(pairs[i][0].folder, pairs[i][1].folder) for i in order]
    workers = min(len(jobs) // MIN_PAIRS_A_WORKER, len(os.sched_getaffinity(0)))

    def in_order(done: Iterable[Compared]) -> list[Compared]:
        out: list[Compared] = [(known[i][0], known[i][1]) if i in known else "not compared" for i in range(len(pairs))]
        for i, result in zip(order, done, strict=True):
            out[i] = result
        cache.mkdir(parents=True, exist_ok=True)
        for key, result in zip(keys, out, strict=True):
            if not isinstance(result, str):
                (cache / f"{key}.json").write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
        return out

    if workers < 2:
        yield lambda: in_order(_compared(*job) for job in jobs)
        _load.cache_clear()
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_one_thread) as pool:
        running = pool.map(_compared, *zip(*jobs, strict=True), chunksize=-(-len(jobs) // workers))
        yield lambda: in_order(running)


def _one_thread() -> None:
    """A worker's BLAS on one thread: the workers already fill the cores, and each BLAS starting a thread a core
    beside them made two workers slower than one (measured: 4.9 s against 4.2 s for 90 comparisons)."""
    threadpool_limits(1)


def _pair_key(base: Path | None, candidate: Path | None) -> str:
    """What decides a comparison: both runs' files, the gates file bench compare reads, and bench itself."""
    assert base is not None and candidate is not None
    digest = hashlib.sha256(__version__.encode())
    gates = Path(DEFAULT_GATES)
    digest.update(gates.read_bytes() if gates.is_file() else b"-")
    for path in (base / "report.json", base / ITEMS_FILE, candidate / "report.json", candidate / ITEMS_FILE):
        digest.update(str(path.name).encode())
        if path.is_file():
            with path.open("rb") as data:
                digest.update(hashlib.file_digest(data, "sha256").digest())
    return digest.hexdigest()


def _compared(base: Path | None, candidate: Path | None) -> Compared:
    """bench compare on one pair, as `bench compare BASE CANDIDATE` runs it; why, when it refuses the pair."""
    assert base is not None and candidate is not None
    try:
        before, after = _load(base), _load(candidate)
        result = compare(before, after, load_gates(None))
    except BenchError as exc:  # a broken run, a gates file it cannot read
        return str(exc)
    main = after.report.main_metric
    scatter = (pages.paired_scatter(main, before.items, after.items)
               if before.items is not None and after.items is not None else None)
    return result, scatter


@functools.lru_cache(maxsize=2)
def _load(folder: Path) -> LoadedRun:
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
