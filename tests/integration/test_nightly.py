"""`bench nightly` end to end: a suite survives a failing tier, the index grows by appending, the
second night finds the first, and the trend page renders offline in a real headless Chromium."""

import json
import re

import pytest

from benchmarks.nightly import previous_run
from benchmarks.run_files.index import read_index
from tests.integration.conftest import write_bench_dataset
from tests.integration.test_visualize_browser import _chromium

pytestmark = pytest.mark.integration


def _suite(tmp_path, dataset):
    path = tmp_path / "suite.toml"
    path.write_text(f"""
bootstrap_resamples = 50

[[run]]
tier = "tier0"
dataset = "{dataset}"

[[run]]
tier = "tier2"               # fails: the tiny dataset holds no reference answers nor responses
dataset = "{dataset}"
generator = "precomputed"
judge_backend = "offline"

[[run]]
tier = "tier1"
dataset = "{dataset}"
""")
    return path


@pytest.mark.usefixtures("chromium_on_path")
def test_nightly_survives_a_failing_tier_appends_and_renders_trends(bench, tmp_path):
    dataset = write_bench_dataset(tmp_path / "tiny")
    suite = _suite(tmp_path, dataset)
    reports = tmp_path / "reports"

    first = bench("nightly", "--suite", suite)
    assert first.exit_code == 1, first.output
    assert "tier2 on" in first.stderr and "failed" in first.stderr
    assert "2 ok, 1 failed" in first.stdout
    lines = read_index(reports / "index.jsonl")
    assert [(line["tier"], line["status"]) for line in lines] == [("tier0", "ok"), ("tier2", "failed"),
                                                                  ("tier1", "ok")]
    failed = lines[1]
    assert failed["error"] and "reference_answer" in failed["error"] and failed["report"] is None
    for line in (lines[0], lines[2]):
        report = reports / line["report"]
        assert report.is_file() and report.parent.parent.parent.name == "nightly"
        assert line["main_value"] == json.loads(report.read_text())["metrics"][line["main_metric"]]["value"]
        assert len(line["content_sha256"]) == 64 and line["error"] is None
    assert lines[2]["main_metric"] == "ndcg@10" and "hit_rate@1" in lines[2]["metrics"]
    assert (reports / lines[2]["report"]).parent.name == "tier1-tiny"
    assert "first run" in first.stdout

    second = bench("nightly", "--suite", suite)
    assert second.exit_code == 1, second.output
    again = read_index(reports / "index.jsonl")
    assert len(again) == 6 and again[:3] == lines, "the index is appended to, never rewritten"
    assert (reports / again[5]["report"]).parent.name == "tier1-tiny-2"
    found = previous_run(reports / "index.jsonl", "tier1", str(dataset), before=again[5]["run_id"])
    assert found == lines[2]
    assert again[5]["previous_run_id"] == lines[2]["run_id"] and again[3]["previous_run_id"] == lines[0]["run_id"]
    assert again[5]["main_delta"] == pytest.approx(again[5]["main_value"] - lines[2]["main_value"])
    assert "previous_run_id" not in again[4] and "first run" not in second.stdout
    # bench compare is part of bench: its Markdown lies beside the new report, named in the summary
    compared = (reports / again[5]["report"]).parent / "compare.md"
    assert compared.is_file() and f"{compared.relative_to(reports).as_posix()}" in second.stdout

    page = reports / "nightly" / "trends.html"
    assert page.is_file()
    content = page.read_text()
    assert 'id="bench-trends"' in content and "cdn.plot.ly" not in content.split("<script")[0]
    only = bench("nightly", "--trends-only")
    assert only.exit_code == 0, only.output
    assert page.read_text() == content, "re-rendering the same index gives the same page"

    dom = _chromium(tmp_path, page.resolve().as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert re.search(r'<div[^>]+id="bench-trends"[^>]+class="plotly-graph-div', dom.stdout) or re.search(
        r'<div[^>]+class="plotly-graph-div[^"]*"[^>]+id="bench-trends"', dom.stdout), "no plot element"
    assert 'class="main-svg"' in dom.stdout, "plotly did not render"
    titles = re.findall(r'class="annotation-text[^"]*"[^>]*>([^<]+)<', dom.stdout)
    assert any("tier1 on" in t and "ndcg@10 (2 runs)" in t for t in titles), titles
    assert any("tier2 on" in t and "2 failed" in t for t in titles), titles


@pytest.mark.usefixtures("chromium_on_path")
def test_a_series_whose_every_run_failed_renders_its_metric_and_a_cross_per_run(bench, tmp_path):
    """evaluate on a missing file fails before its report names a main metric: the index records the first of
    its metrics, and the page draws a red cross per run on an unlabeled axis over a day, not milliseconds."""
    suite = tmp_path / "suite.toml"
    suite.write_text(f'[[run]]\ntier = "evaluate"\ndataset = "{tmp_path / "missing.jsonl"}"\n'
                     'metrics = ["faithfulness", "semantic_similarity"]\njudge_backend = "offline"\n')
    for _ in range(2):
        assert bench("nightly", "--suite", suite).exit_code == 1
    lines = read_index(tmp_path / "reports" / "index.jsonl")
    assert [(line["status"], line["main_metric"]) for line in lines] == [("failed", "faithfulness")] * 2

    dom = _chromium(tmp_path, (tmp_path / "reports" / "nightly" / "trends.html").resolve().as_uri(),
                    "--dump-dom").stdout
    titles = re.findall(r'class="annotation-text[^"]*"[^>]*>([^<]+)<', dom)
    assert titles == [f"evaluate on {tmp_path / 'missing.jsonl'}: faithfulness (2 runs, 2 failed)"]
    assert re.findall(r'class="ytitle"[^>]*data-unformatted="([^"]*)"', dom) == ["faithfulness"]
    assert 'class="ytick"' not in dom, "a series without values has no scale to read"
    crosses = re.findall(r'class="point"[^>]*style="[^"]*fill: rgb\(255, 0, 0\)', dom)
    assert len(crosses) == 2
    ticks = re.findall(r'class="xtick"><text[^>]*data-unformatted="([^"]*)"', dom)
    assert ticks and not any(re.search(r"\d:\d\d:\d\d", tick) for tick in ticks), ticks


def test_a_regression_against_the_previous_night_fails_the_night_unless_informational(bench, tmp_path):
    dataset = write_bench_dataset(tmp_path / "tiny")
    suite, reports = tmp_path / "suite.toml", tmp_path / "reports"

    def night(informational: bool):
        suite.write_text(f'bootstrap_resamples = 50\n[[run]]\ntier = "tier1"\ndataset = "{dataset}"\n'
                         + ("informational = true\n" if informational else ""))
        return bench("nightly", "--suite", suite)

    first = night(False)
    assert first.exit_code == 0, first.output
    assert "1 ok, 0 failed, 0 regressed" in first.stdout
    # the next night the run misses a floor of the gates file: bench compare's verdict is a regression
    (tmp_path / "bench.gates.toml").write_text('[metrics."ndcg@10"]\nfloor = 1.5\n')
    second = night(False)
    assert second.exit_code == 1, second.output
    lines = read_index(reports / "index.jsonl")
    compared = lines[1]["compare"]
    assert (lines[1]["status"], compared["verdict"], compared["metrics"]) == ("ok", "regression", ["ndcg@10"])
    assert (reports / compared["markdown"]).read_text().startswith("<!-- bench-compare -->")
    assert f"REGRESSION: tier1 on {dataset} ({lines[1]['run_id']} vs {lines[0]['run_id']}): ndcg@10" in second.stdout
    assert "1 ok, 0 failed, 1 regressed" in second.stdout
    page = (reports / "nightly" / "trends.html").read_text()
    assert ': regression"' in page and "(2 runs, 1 regressed)" in page  # plotly writes "/" as \u002f

    third = night(True)
    assert third.exit_code == 0, third.output
    assert "does not fail the night" in third.stdout and "1 regressed (1 informational)" in third.stdout
    last = read_index(reports / "index.jsonl")[2]
    assert last["informational"] is True and last["compare"]["verdict"] == "regression"
