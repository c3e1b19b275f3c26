"""`bench visualize`: the embedding space drawn in 2D or 3D (docs/commands/visualize.md).

A diagnostic picture, not a metric: it helps to see outliers, clusters and empty regions that
Tier 0's numbers summarise. The corpus vectors are read back from pgvector, exactly as production
search sees them (as Tier 0 does); question vectors come through the same cached embedder.

The projection is UMAP (umap-learn) with the parameters below and `random_state=seed`, so a rerun
draws the same picture. Without umap-learn, or with too few points for UMAP's spectral layout,
bench falls back to PCA of the unit-normalised vectors and the figure's title says so. The page is
one HTML file with plotly.js inlined: it opens in a browser with no network.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rich.console import Console

from benchmarks.config import Settings
from benchmarks.dataset import Dataset
from benchmarks.errors import BenchError, extra_hint

# UMAP's own defaults for neighbours and spread; cosine because pgvector search ranks by cosine distance.
N_NEIGHBORS = 15
MIN_DIST = 0.1
METRIC = "cosine"
DEFAULT_LIMIT = 5000
SNIPPET_CHARS = 120
NO_TOPIC = "(none)"
SYMBOLS = {"corpus": "circle", "question": "diamond"}

On = Literal["corpus", "questions", "both"]
ColorBy = Literal["topic", "dataset"]


@dataclass(frozen=True)
class Projection:
    coordinates: np.ndarray  # (n, dimensions), float64
    method: Literal["umap", "pca"]
    params: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """How the picture was made, for its title."""
        if self.method == "umap":
            p = self.params
            return (f"UMAP (n_neighbors={p['n_neighbors']}, min_dist={p['min_dist']}, metric={p['metric']}, "
                    f"seed={p['random_state']})")
        return f"PCA fallback ({self.params['reason']})"


def project(vectors: np.ndarray, *, dimensions: int, seed: int) -> Projection:
    """Project vectors to 2 or 3 dimensions: UMAP when umap-learn is importable, else PCA."""
    if dimensions not in (2, 3):
        raise ValueError(f"dimensions must be 2 or 3, got {dimensions}")
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.ndim != 2 or len(matrix) == 0:
        raise BenchError("nothing to draw: no embeddings were selected")
    umap = _import_umap()
    if umap is None:
        return _pca(matrix, dimensions, f"umap-learn is not installed: {extra_hint('viz')}")
    # UMAP's spectral layout needs more points than dimensions + 1; below that PCA still draws them.
    if len(matrix) < dimensions + 2:
        return _pca(matrix, dimensions, f"{len(matrix)} points are too few for UMAP")
    params = {"n_neighbors": min(N_NEIGHBORS, len(matrix) - 1), "min_dist": MIN_DIST, "metric": METRIC,
              "random_state": seed, "n_components": dimensions}
    with warnings.catch_warnings():
        # "n_jobs overridden by setting random_state": the price of a reproducible layout, and expected.
        warnings.simplefilter("ignore", UserWarning)
        coordinates = umap.UMAP(**params).fit_transform(matrix.astype(np.float32))
    return Projection(np.asarray(coordinates, dtype=np.float64), "umap", params)


def _import_umap() -> Any:
    try:
        import umap
    except ImportError:
        return None
    return umap


def _pca(matrix: np.ndarray, dimensions: int, reason: str) -> Projection:
    """PCA by exact SVD of the unit-normalised, centred vectors; signs fixed, so it is deterministic."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    centred = unit - unit.mean(axis=0)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)
    k = min(dimensions, len(s))
    # The sign of a singular vector is arbitrary: make each axis's largest loading positive.
    signs = np.sign(vt[np.arange(k), np.abs(vt[:k]).argmax(axis=1)])
    signs[signs == 0] = 1
    coordinates = np.zeros((len(matrix), dimensions))
    coordinates[:, :k] = u[:, :k] * s[:k] * signs
    return Projection(coordinates, "pca", {"reason": reason, "solver": "exact SVD", "normalised": "unit L2",
                                           "n_components": dimensions})


def sample_indices(total: int, limit: int | None, seed: int) -> np.ndarray:
    """Which of `total` points to draw: all when they fit, else a seeded sample, in ascending order."""
    if limit is not None and limit < 1:
        raise BenchError(f"--limit: expected at least 1, got {limit}")
    if limit is None or total <= limit:
        return np.arange(total)
    return np.sort(np.random.default_rng(seed).choice(total, size=limit, replace=False))


def hover_text(point_id: str, text: str, extra: str = "") -> str:
    """The id in bold, then the first SNIPPET_CHARS characters of the text (escaped: plotly reads tags)."""
    snippet = " ".join(text.split())
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[:SNIPPET_CHARS].rstrip() + "…"
    head = f"<b>{html.escape(point_id)}</b>" + (f" ({html.escape(extra)})" if extra else "")
    return f"{head}<br>{html.escape(snippet)}"


def render_html(
    coordinates: np.ndarray,
    labels: Sequence[str],
    hover: Sequence[str],
    title: str,
    *,
    symbols: Sequence[str] | None = None,
) -> str:
    """A self-contained page: one trace per colour group, plotly.js inlined (no network needed).

    The title's lines (newlines) become the figure's lines; the page's <title> joins them with " — ".
    """
    import plotly.graph_objects as go

    coordinates = np.asarray(coordinates, dtype=np.float64)
    if len(coordinates) != len(labels) or len(labels) != len(hover):
        raise ValueError("coordinates, labels and hover texts must have the same length")
    three_d = coordinates.shape[1] == 3
    figure = go.Figure()
    for label in _group_order(labels):
        rows = [i for i, name in enumerate(labels) if name == label]
        marker: dict[str, Any] = {"size": 4 if three_d else 7, "opacity": 0.85}
        if symbols is not None:
            marker["symbol"] = [symbols[i] for i in rows]
        common = {"name": f"{label} ({len(rows)})", "mode": "markers", "marker": marker,
                  "hovertext": [hover[i] for i in rows], "hoverinfo": "text"}
        if three_d:
            figure.add_trace(go.Scatter3d(x=coordinates[rows, 0], y=coordinates[rows, 1], z=coordinates[rows, 2],
                                          **common))
        else:
            figure.add_trace(go.Scatter(x=coordinates[rows, 0], y=coordinates[rows, 1], **common))
    lines = [html.escape(line) for line in title.splitlines()]
    figure.update_layout(title={"text": "<br>".join(lines), "font": {"size": 14}}, template="plotly_white",
                         showlegend=True, legend={"title": {"text": "colour"}},
                         margin={"l": 40, "r": 20, "t": 40 + 20 * len(lines), "b": 40})
    # A fixed div id (plotly's default is a random UUID): the same input gives the same bytes.
    page: str = figure.to_html(include_plotlyjs=True, full_html=True, default_height="95vh", div_id="bench-visualize",
                          config={"displaylogo": False, "responsive": True})
    return page.replace("<head>", f"<head><title>{' — '.join(lines)}</title>", 1)


def _group_order(labels: Sequence[str]) -> list[str]:
    """Colour groups by name, the unlabelled group last, so colours are stable between runs."""
    return sorted(set(labels), key=lambda name: (name == NO_TOPIC, name))


@dataclass(frozen=True)
class Point:
    dataset: str
    kind: Literal["corpus", "question"]
    id: str
    text: str
    topic: str


@dataclass(frozen=True)
class VisualizeRequest:
    datasets: tuple[str, ...]
    on: On = "corpus"
    color: ColorBy = "topic"
    dimensions: int = 2
    limit: int = DEFAULT_LIMIT
    output: Path | None = None


def points_of(dataset: Dataset, label: str, on: On) -> list[Point]:
    """A dataset's points in a fixed order: chunks by id, then questions by id."""
    points: list[Point] = []
    if on in ("corpus", "both"):
        points += [Point(label, "corpus", c.id, c.text, c.topic or NO_TOPIC)
                   for c in sorted(dataset.chunks, key=lambda c: c.id)]
    if on in ("questions", "both"):
        points += [Point(label, "question", q.id, q.text, q.topic or NO_TOPIC)
                   for q in sorted(dataset.questions, key=lambda q: q.id)]
    return points


def default_output(settings: Settings, names: Sequence[str], request: VisualizeRequest) -> Path:
    folder = "+".join(name.replace("/", "_") for name in names)
    return settings.reports_dir / folder / "visualize" / f"{request.on}-by-{request.color}-{request.dimensions}d.html"


def run_visualize(request: VisualizeRequest, settings: Settings, *, stderr: Console) -> Path:
    """Load, sample, fetch vectors, project, render; returns the written HTML file."""
    from benchmarks.corpus_index import open_index
    from benchmarks.readers.datasets import load_dataset
    from benchmarks.run_files.atomic import write_file
    from benchmarks.runner import progress_bar

    datasets = [load_dataset(spec) for spec in request.datasets]
    labels = _dataset_labels(request.datasets, [d.name for d in datasets])
    points = [p for dataset, label in zip(datasets, labels, strict=True) for p in points_of(dataset, label, request.on)]
    if not points:
        raise BenchError("nothing to draw: the datasets have no " + ("questions" if request.on == "questions"
                                                                     else "embeddings"))
    chosen = sample_indices(len(points), request.limit, settings.seed)
    selected = [points[i] for i in chosen]
    vectors: dict[tuple[str, str, str], np.ndarray] = {}
    with progress_bar(stderr) as progress:
        for dataset, label in zip(datasets, labels, strict=True):
            mine = [p for p in selected if p.dataset == label]
            if not mine:
                continue
            with open_index(settings, dataset, progress) as corpus:
                wanted = {p.id for p in mine if p.kind == "corpus"}
                if wanted:
                    ids, _, stored = corpus.store.embeddings(corpus.space_id)
                    vectors.update({(label, "corpus", i): v for i, v in zip(ids, stored, strict=True) if i in wanted})
                questions = [p for p in mine if p.kind == "question"]
                if questions:
                    embedded = corpus.embed([p.text for p in questions], purpose="questions", progress=progress)
                    vectors.update({(label, "question", p.id): v for p, v in zip(questions, embedded, strict=True)})
        missing = [p for p in selected if (p.dataset, p.kind, p.id) not in vectors]
        if missing:
            raise BenchError(f"{missing[0].dataset}: chunk '{missing[0].id}' has no vector in pgvector "
                             f"({len(missing)} missing)")
        status = progress.add_task(f"projecting {len(selected)} embeddings to {request.dimensions}D", total=None)
        projection = project(np.stack([vectors[p.dataset, p.kind, p.id] for p in selected]),
                             dimensions=request.dimensions, seed=settings.seed)
        progress.remove_task(status)
    if projection.method == "pca":
        stderr.print(f"visualize: {projection.describe()}", highlight=False)
    page = render_html(
        projection.coordinates,
        [p.topic if request.color == "topic" else p.dataset for p in selected],
        [hover_text(p.id, p.text, p.dataset if len(datasets) > 1 else "") for p in selected],
        _title(request, labels, projection, len(selected), len(points), settings.seed),
        symbols=[SYMBOLS[p.kind] for p in selected] if request.on == "both" else None,
    )
    path = request.output or default_output(settings, labels, request)
    write_file(path, page)
    return path


def _dataset_labels(specs: Sequence[str], names: Sequence[str]) -> list[str]:
    """Datasets are named by their name; two of the same name by what was given on the command line."""
    if len(set(specs)) != len(specs):
        raise BenchError("--dataset: the same dataset is given twice")
    return [spec if names.count(name) > 1 else name for spec, name in zip(specs, names, strict=True)]


def _title(request: VisualizeRequest, labels: Sequence[str], projection: Projection, shown: int, total: int,
           seed: int) -> str:
    what = {"corpus": "corpus embeddings", "questions": "question embeddings",
            "both": "corpus (circles) and question (diamonds) embeddings"}[request.on]
    sample = f"{shown}" if shown == total else f"seeded sample of {shown} of {total} (seed {seed})"
    return f"{', '.join(labels)}: {sample} {what}, coloured by {request.color}\n{projection.describe()}"
