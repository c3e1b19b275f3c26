"""`bench view` in a real browser: runs made by bench itself, the site opened from files in headless Chromium,
and a person's path through it clicked: the index, a run's worst items, the next page, a comparison.

Set BENCH_SCREENSHOTS to a folder to keep the pages' screenshots there (`make screenshots` writes docs/images).
"""

import json
import os
from pathlib import Path

import pytest

from benchmarks.view import pages
from tests.integration.browser import Browser
from tests.integration.conftest import QUESTIONS

pytestmark = pytest.mark.slow
DRAWN = "document.querySelector('#items > tbody > tr:first-child details').getAttribute('data-drawn')"
LABELLED = Path(__file__).resolve().parents[2] / "datasets" / "labelled" / "en.jsonl"


def _faithfulness(items: Path) -> dict[str, float]:
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    return {r["id"]: r["scores"]["faithfulness"]["offline"]["value"] for r in rows}


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("BENCH_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def site(bench, tiny, tmp_path, monkeypatch):
    """Two tier 1 runs on one dataset (so one comparison) and an offline evaluate run of the labelled set."""
    for _ in range(2):
        assert bench("tier1", "--dataset", tiny).exit_code == 0
    evaluated = bench("evaluate", "--dataset", LABELLED, "--metrics", "faithfulness", "--judge", "offline",
                      "--limit", "50")
    assert evaluated.exit_code == 0, evaluated.output
    monkeypatch.setattr(pages, "PAGE_SIZE", 20)  # 50 samples: three pages
    result = bench("view")
    assert result.exit_code == 0, result.output
    index = Path(result.stdout.strip().splitlines()[-1])
    assert index == tmp_path / "reports" / "site" / "index.html"
    return index


def test_a_person_finds_the_worst_items_and_the_comparison(site, tmp_path):
    reports = tmp_path / "reports"
    (evaluate_run,) = [p.parent for p in reports.glob("*/evaluate/*/report.json") if p.parent.name != "latest"]
    values = _faithfulness(evaluate_run / "items.jsonl")
    latest_tier1 = (reports / "tiny" / "tier1" / "latest").resolve()
    shots = _shots(tmp_path)
    with Browser(tmp_path / "profile") as browser:
        browser.open(site.as_uri())
        browser.wait_for("document.querySelectorAll('.chart .main-svg').length", "the trend chart drawn")
        runs = browser.evaluate("Array.from(document.querySelectorAll('#runs > tbody > tr')).map(r => r.innerText)")
        assert len(runs) == 3
        assert sum("tier1\ttiny" in r and "ndcg@10" in r and "ok" in r for r in runs) == 2
        assert any("evaluate" in r and "faithfulness" in r for r in runs)
        browser.screenshot(shots / "view-index.png")

        # filtering by tier hides the other rows
        browser.evaluate("const s = document.querySelector('select[name=tier]'); s.value = 'evaluate'; "
                         "s.dispatchEvent(new Event('change'))")
        assert browser.evaluate("Array.from(document.querySelectorAll('#runs > tbody > tr')).filter(r => !r.hidden)"
                                ".length") == 1

        # click 1: the run; its items are there, worst first, with why
        browser.click("#runs > tbody > tr:not([hidden]) td a", navigates=True)
        assert "evaluate" in browser.text("h1")
        rows = browser.evaluate("Array.from(document.querySelectorAll('#items > tbody > tr')).map(r => "
                                "[r.cells[1].innerText, r.cells[2].innerText, r.cells[4].innerText])")
        assert len(rows) == 20
        worst = sorted(values.items(), key=lambda kv: (kv[1], kv[0]))
        assert [r[0] for r in rows] == [item for item, _ in worst[:20]]
        assert rows[0][1] == f"{worst[0][1]:.4f}"
        assert rows[0][2].startswith("unsupported by the contexts"), rows[0]
        browser.wait_for("document.querySelectorAll('.chart .main-svg').length", "the score distribution drawn")
        browser.screenshot(shots / "view-run.png")

        # the item's detail opens on a click and shows what the system was asked and answered
        browser.click("#items > tbody > tr:first-child details summary")
        browser.wait_for(DRAWN, "the item's detail drawn")
        detail = browser.text("#items > tbody > tr:first-child details")
        sample = next(json.loads(line) for line in LABELLED.read_text().splitlines()
                      if json.loads(line)["id"] == worst[0][0])
        assert sample["user_input"] in detail and sample["response"] in detail

        # sorting by id, and the search box
        browser.click("#items > thead th:nth-child(2)")
        ids = browser.evaluate("Array.from(document.querySelectorAll('#items > tbody > tr'))"
                               ".map(r => r.cells[1].innerText)")
        assert ids == sorted(ids)
        browser.type("input[data-search=items]", worst[5][0])
        visible = browser.evaluate("Array.from(document.querySelectorAll('#items > tbody > tr')).filter(r => !r.hidden)"
                                   ".map(r => r.cells[1].innerText)")
        assert visible == [worst[5][0]]

        # the next page goes on where the first stopped
        browser.click(".pager a[href='items-2.html']", navigates=True)
        ranks = browser.evaluate("Array.from(document.querySelectorAll('#items > tbody > tr')).map(r => "
                                 "[r.cells[0].innerText, r.cells[1].innerText])")
        assert ranks[0] == ["21", worst[20][0]] and len(ranks) == 20

        # back to the index, to the comparison of the two tier 1 runs
        browser.open(site.as_uri())
        browser.click("#runs > tbody > tr td a[href^='compare/']", navigates=True)
        assert browser.text(".verdict") == "pass"
        table = browser.text("table.compare")
        assert "ndcg@10 (primary)" in table and "unchanged" in table
        browser.wait_for("document.querySelectorAll('.chart .main-svg').length", "the per-item scatter drawn")
        scored = [json.loads(line) for line in (latest_tier1 / "items.jsonl").read_text().splitlines()]
        scored = [r for r in scored if r["scores"].get("ndcg@10", {}).get("bench", {}).get("status") == "ok"]
        assert 0 < len(scored) <= len(QUESTIONS)
        assert browser.evaluate("document.querySelectorAll('.chart .point').length") == len(scored)
        browser.screenshot(shots / "view-compare.png")

        # a tier 1 run: each question's ranked chunks, the relevant ones marked
        browser.click("nav a:last-child", navigates=True)
        browser.click("#items > tbody > tr:first-child details summary")
        browser.wait_for(DRAWN, "the item's detail drawn")
        assert browser.evaluate("document.querySelectorAll('#items > tbody > tr:first-child li.relevant').length") >= 1
