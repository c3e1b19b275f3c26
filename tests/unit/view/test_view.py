"""`bench view` without a browser: which runs it finds, the order of a run's items, pages, comparisons, refusals."""

import json
import re

import pytest
from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.errors import BenchError
from benchmarks.item_record import score
from benchmarks.run_files.index import append_index
from benchmarks.view import build, pages
from benchmarks.view.items import scan
from benchmarks.view.runs import discover
from tests.unit.compare_helpers import item, write_run


def _stamp(folder, run_id, started):
    report = json.loads((folder / "report.json").read_text())
    report["volatile"] = {"run_id": run_id, "started_at": started}
    (folder / "report.json").write_text(json.dumps(report))
    return folder


def _mixed_items():
    """Values, a failure and an undetermined item, on one metric."""
    return [item("b", {"m": 0.5}), item("a", {"m": 0.5}), item("c", {"m": 0.1}), item("d", {"m": None}),
            item("e", {"m": {"bench": score(None, "undetermined", "no statements")}}), item("f", {"m": 0.9})]


def test_items_go_worst_first_then_failed_then_undetermined(tmp_path):
    folder = write_run(tmp_path / "r", _mixed_items(), main="m")
    index = scan(folder / "items.jsonl", ["m"], "m", True)
    rows = pages.item_rows((json.loads(line) for line in _lines(folder, index.offsets)), "m", 1)
    assert re.findall(r'<td class="mono">(\w)</td>', rows) == ["c", "a", "b", "f", "d", "e"]
    tally = index.tallies["m"]
    assert (tally.n, tally.ok, tally.failed, tally.undetermined) == (6, 4, 1, 1)
    assert sorted(tally.values) == [0.1, 0.5, 0.5, 0.9]
    # where lower is better, the worst is the highest
    lower = scan(folder / "items.jsonl", ["m"], "m", False)
    assert [json.loads(line)["id"] for line in _lines(folder, lower.offsets)][:4] == ["f", "a", "b", "c"]


def _lines(folder, offsets):
    data = (folder / "items.jsonl").read_bytes()
    return [data[o:data.index(b"\n", o)] for o in offsets]


def test_a_bad_items_line_names_its_file_and_line(tmp_path):
    folder = write_run(tmp_path / "r", _mixed_items(), main="m")
    with (folder / "items.jsonl").open("a") as out:
        out.write('{"id": "x"}\n')
    with pytest.raises(BenchError, match=r"items\.jsonl:7: not an item record"):
        scan(folder / "items.jsonl", ["m"], "m", True)


def test_runs_are_found_with_the_index_and_paired_when_comparable(tmp_path):
    reports = tmp_path / "reports"
    first = _stamp(write_run(reports / "crafted" / "tier1" / "r1", _mixed_items(), main="m"), "r1", "2026-01-01")
    second = _stamp(write_run(reports / "crafted" / "tier1" / "r2", _mixed_items(), main="m"), "r2", "2026-01-02")
    _stamp(write_run(reports / "crafted" / "tier1" / "r3", _mixed_items(), main="m", sha="b" * 64), "r3",
           "2026-01-03")  # another dataset content: not comparable with r2
    (reports / "crafted" / "tier1" / "latest").symlink_to(second.name)  # a link is not another run
    append_index(reports / "index.jsonl", _line("tier2", "r0", "2025-12-31", "failed", None,
                                                error="the server went away"))
    append_index(reports / "index.jsonl", _line("tier1", "r1", "2026-01-01", "ok", "crafted/tier1/r1/report.json"))
    entries = discover(reports)
    assert [(e.run_id, e.status, e.folder) for e in entries] == [
        ("r0", "failed", None), ("r1", "ok", first), ("r2", "ok", second),
        ("r3", "ok", reports / "crafted" / "tier1" / "r3")]
    assert entries[0].error == "the server went away"
    assert entries[1].main_value == pytest.approx(0.5)  # the mean of the four values

    built = build(reports)
    assert (built.runs, built.run_pages, built.compare_pages) == (4, 3, 1)
    index = (reports / "site" / "index.html").read_text()
    assert index.count('href="compare/') == 1 and "the server went away" in index
    compare = (reports / "site" / "compare" / "crafted__tier1__r2.html").read_text()
    assert "<h1>compare · tier1 · r2</h1>" in compare and "unchanged" in compare
    run = (reports / "site" / "runs" / "crafted" / "tier1" / "r2" / "index.html").read_text()
    assert 'href="../../../../compare/crafted__tier1__r2.html"' in run
    assert 'href="../../../../assets/view.css"' in run  # every link relative, so the site opens from files
    assert not re.search(r'(src|href)="(https?:)?//', run + index + compare)  # nothing from the network
    assert (reports / "site" / "assets" / "plotly.min.js").stat().st_size > 1_000_000


def test_large_runs_are_paginated(tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "PAGE_SIZE", 4)
    items = [item(f"q{i:02d}", {"m": i / 10}) for i in range(10)]
    write_run(tmp_path / "reports" / "big", items, main="m")
    built = build(tmp_path / "reports")
    assert built.item_pages == 2
    site = tmp_path / "reports" / "site" / "runs" / "big"
    first, third = (site / "index.html").read_text(), (site / "items-3.html").read_text()
    assert "items 1–4 of 10" in first and 'href="items-2.html"' in first
    assert "items 9–10 of 10" in third and re.findall(r'<td class="mono">(q\d+)</td>', third) == ["q08", "q09"]


def test_a_rebuild_replaces_the_site_whole(tmp_path):
    write_run(tmp_path / "reports" / "one", [item("a", {"m": 1.0})], main="m")
    gone = write_run(tmp_path / "reports" / "two", [item("a", {"m": 1.0})], main="m")
    build(tmp_path / "reports")
    assert (tmp_path / "reports" / "site" / "runs" / "two" / "index.html").exists()
    (gone / "report.json").unlink()
    build(tmp_path / "reports")
    assert not (tmp_path / "reports" / "site" / "runs" / "two").exists()
    assert not list(tmp_path.glob("reports/.site*"))  # no staging folder left behind


def _line(tier, run_id, started_at, status, report, *, error=None):
    """A nightly index line (run_files.index_line) of a run on the crafted set."""
    return {"tier": tier, "dataset": "crafted", "suite": "nightly.toml", "nightly": started_at[:10], "run_id": run_id,
            "started_at": started_at, "content_sha256": None, "status": status, "error": error, "report": report,
            "main_metric": "m", "main_value": None, "metrics": {}}


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(app, ["view", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "nowhere: no such reports folder" in missing.output
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(app, ["view", str(tmp_path / "empty")])
    assert empty.exit_code == 2 and "no runs here" in empty.output
    write_run(tmp_path / "reports" / "one", [item("a", {"m": 1.0})], main="m")
    inside = runner.invoke(app, ["view", str(tmp_path / "reports"), "--output", str(tmp_path)])
    assert inside.exit_code == 2 and "would replace the reports" in inside.output
    index = tmp_path / "reports" / "index.jsonl"
    index.write_text(json.dumps({**_line("tier1", "r1", "2026-01-01", "ok", None), "stauts": "ok"}) + "\n")
    misspelt = runner.invoke(app, ["view", str(tmp_path / "reports"), "--output", str(tmp_path / "site")])
    assert misspelt.exit_code == 2
    assert f"{index}:1: not a line of bench's run index (stauts: Extra inputs are not permitted)" in misspelt.output
    assert "Traceback" not in missing.output + empty.output + inside.output + misspelt.output


def test_an_unreadable_report_is_listed_not_fatal(tmp_path):
    write_run(tmp_path / "reports" / "good", [item("a", {"m": 1.0})], main="m")
    (tmp_path / "reports" / "bad").mkdir()
    (tmp_path / "reports" / "bad" / "report.json").write_text("{not json")
    entries = discover(tmp_path / "reports")
    bad = next(e for e in entries if e.key == "bad")
    assert bad.status == "unreadable" and "unreadable report" in bad.error and bad.report is None
    built = build(tmp_path / "reports")
    assert built.run_pages == 1 and "unreadable report" in (tmp_path / "reports" / "site" / "index.html").read_text()


def test_comparisons_on_several_cores_write_the_same_pages(tmp_path, monkeypatch):
    from benchmarks.view import site

    reports = tmp_path / "reports"
    for n in range(3):
        items = [item(f"q{i}", {"m": (i * (n + 1)) % 7 / 7}) for i in range(12)]
        _stamp(write_run(reports / "crafted" / "tier1" / f"r{n}", items, main="m"), f"r{n}", f"2026-01-0{n + 1}")
    build(reports, tmp_path / "one")
    monkeypatch.setattr(site, "MIN_PAIRS_A_WORKER", 1)
    monkeypatch.setattr(site.os, "sched_getaffinity", lambda _: {0, 1})
    built = build(reports, tmp_path / "two")
    assert built.compare_pages == 2
    for page in ("crafted__tier1__r1.html", "crafted__tier1__r2.html"):
        assert (tmp_path / "one" / "compare" / page).read_text() == (tmp_path / "two" / "compare" / page).read_text()


def test_the_seeds_reading_bands_stand_beside_the_values(tmp_path):
    items = [item("q1", {"ndcg@10": 0.6, "hit_rate@1": 1.0, "precision@3": 0.3}),
             item("q2", {"ndcg@10": 0.7, "hit_rate@1": 0.8, "precision@3": 0.6})]
    write_run(tmp_path / "reports" / "r", items)
    build(tmp_path / "reports")
    page = (tmp_path / "reports" / "site" / "runs" / "r" / "index.html").read_text()
    cells = dict(re.findall(r"<code>([^<]+)</code>(?: \(main\))?</td><td>.*?</td><td>.*?</td><td>(.*?)</td>", page))
    assert 'class="band-good"' in cells["ndcg@10"] and ">good<" in cells["ndcg@10"]  # 0.65: 0.5–0.8
    assert ">excellent<" in cells["hit_rate@1"] and "seed 004 §11.2" in cells["hit_rate@1"]  # 0.9 > 0.8
    assert cells["precision@3"] == ""  # the seeds give precision no band


def test_a_rebuild_compares_only_what_changed(tmp_path, monkeypatch):
    from benchmarks.view import site

    reports = tmp_path / "reports"
    for n in range(3):
        items = [item(f"q{i}", {"m": (i * (n + 2)) % 5 / 5}) for i in range(8)]
        _stamp(write_run(reports / "crafted" / "tier1" / f"r{n}", items, main="m"), f"r{n}", f"2026-01-0{n + 1}")
    build(reports)
    first = (reports / "site" / "compare" / "crafted__tier1__r2.html").read_text()
    compared = []
    real = site.compare
    monkeypatch.setattr(site, "compare",
                        lambda base, cand, gates: compared.append(cand.path) or real(base, cand, gates))
    build(reports)
    assert compared == [] and (reports / "site" / "compare" / "crafted__tier1__r2.html").read_text() == first
    items = [item(f"q{i}", {"m": 1.0}) for i in range(8)]
    write_run(reports / "crafted" / "tier1" / "r2", items, main="m")  # r2 changed: only its pair is compared again
    _stamp(reports / "crafted" / "tier1" / "r2", "r2", "2026-01-03")
    build(reports)
    assert compared == [reports / "crafted" / "tier1" / "r2" / "report.json"]
    assert (reports / "site" / "compare" / "crafted__tier1__r2.html").read_text() != first


def test_broken_items_are_said_on_the_index_and_on_the_refused_comparison(tmp_path):
    reports = tmp_path / "reports"
    _stamp(write_run(reports / "crafted" / "tier1" / "r1", _mixed_items(), main="m"), "r1", "2026-01-01")
    broken = _stamp(write_run(reports / "crafted" / "tier1" / "r2", _mixed_items(), main="m"), "r2", "2026-01-02")
    with (broken / "items.jsonl").open("a") as out:
        out.write("{cut short\n")
    build(reports)
    index = (reports / "site" / "index.html").read_text()
    assert 'data-status="unreadable"' in index and "items.jsonl:7: not JSON" in index
    refused = (reports / "site" / "compare" / "crafted__tier1__r2.html").read_text()
    assert "not compared" in refused and "bench compare refused this pair" in refused and "items.jsonl:7" in refused


def test_serve_answers_on_localhost_until_ctrl_c(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    write_run(tmp_path / "reports" / "one", [item("a", {"m": 1.0})], main="m")
    command = [sys.executable, "-m", "benchmarks.cli", "view", str(tmp_path / "reports"), "--serve"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "BROWSER": "true"})  # the browser it opens: a no-op command
    try:
        assert server.stdout.readline().strip() == str(tmp_path / "reports" / "site" / "index.html")
        line = server.stdout.readline()
        url = re.fullmatch(r"serving (http://127\.0\.0\.1:\d+/index\.html) \(Ctrl-C stops\)\n", line).group(1)
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200 and "Runs in reports" in page.read().decode()
        with urllib.request.urlopen(url.replace("index.html", "assets/view.js"), timeout=10) as script:
            assert script.status == 200
    finally:
        server.send_signal(signal.SIGINT)
        _, errors = server.communicate(timeout=30)
    assert server.returncode == 0 and "Traceback" not in errors
