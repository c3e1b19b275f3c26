"""`bench visualize` without services: sampling, projection, the self-contained page."""

import builtins
import json
import re

import numpy as np
import pytest

from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.errors import BenchError
from benchmarks.visualize import (
    NO_TOPIC,
    SNIPPET_CHARS,
    hover_text,
    points_of,
    project,
    render_html,
    sample_indices,
)


def _vectors(n: int, d: int = 16, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d))


@pytest.fixture
def no_umap(monkeypatch):
    """Make `import umap` fail, as on a machine without umap-learn."""
    real_import = builtins.__import__

    def guarded_import(name, *args, **kwargs):
        if name == "umap" or name.startswith("umap."):
            raise ImportError("No module named 'umap'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded_import)


def test_sampling_is_reproducible_sorted_and_seeded():
    first = sample_indices(1000, 50, seed=7)
    assert np.array_equal(first, sample_indices(1000, 50, seed=7))
    assert len(first) == 50 and len(set(first.tolist())) == 50
    assert np.all(np.diff(first) > 0)
    assert not np.array_equal(first, sample_indices(1000, 50, seed=8))
    assert np.array_equal(sample_indices(30, 50, seed=7), np.arange(30))
    assert np.array_equal(sample_indices(30, None, seed=7), np.arange(30))
    with pytest.raises(BenchError, match="--limit"):
        sample_indices(30, 0, seed=7)


def test_pca_fallback_when_umap_cannot_be_imported_is_deterministic(no_umap):
    vectors = _vectors(40)
    first = project(vectors, dimensions=2, seed=0)
    assert first.method == "pca"
    assert "umap-learn is not installed" in first.describe()
    assert first.coordinates.shape == (40, 2)
    again = project(vectors.copy(), dimensions=2, seed=3)
    assert np.array_equal(first.coordinates, again.coordinates)
    three = project(vectors, dimensions=3, seed=0)
    assert three.coordinates.shape == (40, 3)
    # The first two axes of the 3D projection are the 2D projection.
    assert np.allclose(three.coordinates[:, :2], first.coordinates)


def test_pca_axes_hold_the_most_variance(no_umap):
    rng = np.random.default_rng(0)
    # Directions e0 + t * e1 (cosine sees directions): they vary along e1, little elsewhere.
    base = np.zeros((200, 8))
    base[:, 0], base[:, 1] = 1.0, rng.uniform(-1, 1, size=200)
    base += rng.normal(scale=0.001, size=base.shape)
    coordinates = project(base, dimensions=2, seed=0).coordinates
    assert coordinates[:, 0].var() > 10 * coordinates[:, 1].var()


@pytest.mark.slow  # over 10 s: make test-fast leaves it out
def test_umap_is_used_and_is_reproducible():
    """umap-learn is a dependency (pyproject.toml): without it this fails, it does not skip."""
    import umap  # noqa: F401
    vectors = _vectors(30)
    first = project(vectors, dimensions=2, seed=5)
    assert first.method == "umap"
    assert first.params["metric"] == "cosine" and first.params["random_state"] == 5
    assert "UMAP" in first.describe()
    assert np.array_equal(first.coordinates, project(vectors, dimensions=2, seed=5).coordinates)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_inputs_still_draw(n):
    projection = project(_vectors(n), dimensions=2, seed=0)
    assert projection.coordinates.shape == (n, 2)
    assert np.isfinite(projection.coordinates).all()


def test_few_points_use_fewer_umap_neighbours():
    import umap  # noqa: F401  a dependency: missing, this fails
    projection = project(_vectors(6), dimensions=3, seed=0)
    assert projection.method == "umap" and projection.params["n_neighbors"] == 5
    assert projection.coordinates.shape == (6, 3)


def test_project_rejects_nothing_and_bad_dimensions():
    with pytest.raises(BenchError, match="nothing to draw"):
        project(np.zeros((0, 4)), dimensions=2, seed=0)
    with pytest.raises(ValueError):
        project(_vectors(5), dimensions=4, seed=0)


def test_hover_shows_the_id_and_the_start_of_the_text_escaped():
    text = "<b>bold</b> " + "word " * 100
    hover = hover_text("doc#1", text)
    assert hover.startswith("<b>doc#1</b><br>&lt;b&gt;bold")
    snippet = hover.split("<br>", 1)[1]
    assert snippet.endswith("…") and len(snippet) < SNIPPET_CHARS + 20


def test_points_keep_topics_and_mark_missing_ones():
    dataset = Dataset(name="d", version="", language="", format="bench", content_sha256="",
                      chunks=(Chunk(id="b", text="two", topic="vpn"), Chunk(id="a", text="one")),
                      questions=(Question(id="q1", text="why?", relevant={}, topic="vpn"),))
    points = points_of(dataset, "d", "both")
    assert [(p.kind, p.id, p.topic) for p in points] == [
        ("corpus", "a", NO_TOPIC), ("corpus", "b", "vpn"), ("question", "q1", "vpn")]
    assert [p.id for p in points_of(dataset, "d", "questions")] == ["q1"]


def _figure(page: str) -> tuple[list[dict], dict]:
    """The data and layout arguments of the page's Plotly.newPlot call."""
    decoder = json.JSONDecoder()
    start = re.search(r'Plotly\.newPlot\(\s*"[^"]+",\s*', page).end()
    data, end = decoder.raw_decode(page, start)
    layout, _ = decoder.raw_decode(page, re.compile(r",\s*").match(page, end).end())
    return data, layout


def _traces(page: str) -> list[dict]:
    return _figure(page)[0]


def _page(coordinates, labels):
    hover = [hover_text(f"id-{i}", f"text number {i}") for i in range(len(labels))]
    return render_html(coordinates, labels, hover, "tiny: 5 corpus embeddings\nPCA fallback (test)")


def test_html_is_self_contained_with_one_trace_per_group_and_the_title():
    import plotly.offline

    labels = ["vpn", "vacation", "vpn", NO_TOPIC, "vacation"]
    page = _page(_vectors(5, 2), labels)
    bundle = plotly.offline.get_plotlyjs()
    assert bundle in page, "plotly.js must be inlined"
    rest = page.replace(bundle, "")
    # The bundle itself names CDNs as defaults of features a scatter never uses (maps, topojson);
    # everything bench writes around it must load nothing from the network.
    assert "cdn" not in rest.lower()
    assert not re.search(r"<script[^>]+src=", page) and not re.search(r"<link[^>]+href=", page)
    assert not re.search(r"(src|href)=[\"']?https?:", rest)
    traces = _traces(page)
    assert [(t["type"], t["name"], len(t["hovertext"])) for t in traces] == [
        ("scatter", "vacation (2)", 2), ("scatter", "vpn (2)", 2), ("scatter", "(none) (1)", 1)]
    assert traces[1]["hovertext"][0].startswith("<b>id-0</b>")
    assert "<title>tiny: 5 corpus embeddings — PCA fallback (test)</title>" in page
    assert _figure(page)[1]["title"]["text"] == "tiny: 5 corpus embeddings<br>PCA fallback (test)"
    assert "id-3" in page and "text number 3" in page
    assert 'class="plotly-graph-div"' in page


def test_html_in_3d_uses_scatter3d():
    page = _page(_vectors(4, 3), ["a", "b", "a", "b"])
    assert [(t["type"], len(t["hovertext"])) for t in _traces(page)] == [("scatter3d", 2), ("scatter3d", 2)]


def test_text_cannot_close_the_script():
    page = render_html(np.zeros((1, 2)), ["t"], [hover_text("x", "</script><script>alert(1)</script>")], "t")
    assert "</script><script>alert(1)" not in page
