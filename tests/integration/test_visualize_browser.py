"""`bench visualize` end to end: vectors from pgvector, the page opened in a real headless Chromium.

The page must render offline: Chromium runs with background networking off and a fresh profile,
loads the file from disk, and the plot must be drawn (a screenshot that is not one flat colour, and
plotly's rendered SVG or WebGL elements in the DOM after its scripts ran).
"""

import json
import re
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.integration.browser import CHROMIUM
from tests.integration.conftest import CORPUS, QUESTIONS, write_bench_dataset

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("chromium_on_path")]


TOPICS = {"q1": "vpn", "q2": "vacation", "q3": "parking"}


def _with_topics(root: Path) -> Path:
    """The conftest dataset, plus the topic field bench colours by (chunks: their title; some questions)."""
    for name, topic_of in (("corpus.jsonl", lambda r: r["title"]), ("questions.jsonl", lambda r: TOPICS.get(r["id"]))):
        path = root / name
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for record in records:
            if topic_of(record):
                record["topic"] = topic_of(record)
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def _chromium(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess:
    profile = Path(tmp_path / f"chromium-profile-{len(list(tmp_path.glob('chromium-profile-*')))}")
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               f"--user-data-dir={profile}", "--window-size=1000,800", "--virtual-time-budget=5000", *extra, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


def _png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """A tiny PNG decoder (8-bit RGB or RGBA, not interlaced): width, height and the unfiltered rows."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    channels = 3 if colour == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, upper_left = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(row[x:x + 3]) for row in rows for x in range(0, stride, channels)]


def _assert_rendered(tmp_path: Path, page: Path, name: str) -> str:
    """Screenshot (exists, non-empty, not one flat colour) and the DOM after scripts ran; returns the DOM."""
    screenshot = tmp_path / f"{name}.png"
    shot = _chromium(tmp_path, page.resolve().as_uri(), f"--screenshot={screenshot}")
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert screenshot.is_file() and screenshot.stat().st_size > 0
    width, height, pixels = _png_pixels(screenshot)
    assert (width, height) == (1000, 800)
    colours = set(pixels)
    assert len(colours) > 20, f"the screenshot is (nearly) one flat colour: {len(colours)} colours"
    # Axes, grid and text are grey; plotly's palette is saturated: the markers themselves are on screen.
    assert any(max(c) - min(c) > 80 for c in colours), "no coloured marker in the screenshot"

    dom = _chromium(tmp_path, page.resolve().as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert re.search(r'<div[^>]+class="plotly-graph-div[^"]*"', dom.stdout), "no plot element"
    assert 'class="main-svg"' in dom.stdout and 'class="gl-container"' in dom.stdout, "plotly did not render"
    return dom.stdout


def _page_path(result) -> Path:
    assert result.exit_code == 0, result.output
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.is_file() and path.suffix == ".html"
    return path


def test_visualize_2d_by_topic_renders_in_headless_chromium(bench, tmp_path):
    dataset = _with_topics(write_bench_dataset(tmp_path / "tiny"))
    result = bench("visualize", "--dataset", dataset, "--on", "both")
    page = _page_path(result)
    assert page == tmp_path / "reports" / "tiny" / "visualize" / "both-by-topic-2d.html"
    text = page.read_text()
    assert "UMAP (n_neighbors=12, min_dist=0.1, metric=cosine, seed=0)" in text
    dom = _assert_rendered(tmp_path, page, "tiny-2d")
    # One SVG marker per chunk and question, and the legend names the topics with their counts.
    assert dom.count('class="point"') == len(CORPUS) + len(QUESTIONS)
    legend = re.findall(r'class="legendtext"[^>]*>([^<]+)<', dom)
    assert legend == ["expenses (1)", "laptop (1)", "parking (2)", "vacation (3)", "vpn (3)", "(none) (3)"]


def test_visualize_3d_by_dataset_renders_in_headless_chromium(bench, tmp_path):
    tiny = _with_topics(write_bench_dataset(tmp_path / "tiny"))
    other = write_bench_dataset(tmp_path / "other", corpus={
        "lunch#1": ("The canteen serves lunch from 12:00 to 14:30 on working days.", "lunch"),
        "lunch#2": ("Vegetarian dishes are marked green on the canteen menu.", "lunch"),
        "badge#1": ("A lost badge is replaced at the reception desk for a fee of ten euros.", "badge"),
    }, questions=[("o1", "When is lunch served?", ["lunch#1"])])
    output = tmp_path / "pages" / "both.html"
    result = bench("visualize", "-d", tiny, "-d", other, "--color", "dataset", "--3d", "--limit", "8",
                   "--output", output)
    assert _page_path(result) == output
    dom = _assert_rendered(tmp_path, output, "both-3d")
    scene = re.search(r'class="gl-container"><div id="scene"[^>]*>(.*?)</div>', dom, re.DOTALL)
    assert scene and "<canvas" in scene.group(1), "no WebGL canvas in the 3D scene"
    legend = re.findall(r'class="legendtext"[^>]*>([^<]+)<', dom)
    assert [re.sub(r" \(\d+\)$", "", name) for name in legend] == ["other", "tiny"]
    assert sum(int(re.search(r"\((\d+)\)$", name).group(1)) for name in legend) == 8
    assert "seeded sample of 8 of 10 (seed 0)" in output.read_text()

    again = bench("visualize", "-d", tiny, "-d", other, "--color", "dataset", "--3d", "--limit", "8",
                  "--output", tmp_path / "pages" / "again.html")
    assert _page_path(again).read_bytes() == output.read_bytes(), "the same run must draw the same page"
