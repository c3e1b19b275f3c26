"""bench nightly without services: suite validation, the index, the previous run, the trend page, the
shipped suite, cron line and GitHub Actions workflow."""

import json
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks.errors import BenchError
from benchmarks.nightly import TRENDS_DIV_ID, load_suite, previous_run, render_trends, resolve_settings
from benchmarks.run_files.index import append_index, read_index
from benchmarks.tiers import TIERS

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp_path, text):
    path = tmp_path / "suite.toml"
    path.write_text(text)
    return path


def test_suite_is_parsed_with_defaults_and_per_run_settings(tmp_path):
    path = _write(tmp_path, 'seed = 3\n[[run]]\ntier = "tier1"\ndataset = "synthetic"\nindex = "hnsw"\n'
                            '[[run]]\ntier = "tier2"\ndataset = "synthetic"\ngenerator = "extractive"\n')
    suite = load_suite(path)
    assert suite.defaults == {"seed": 3}
    assert [(r.tier, r.dataset, r.settings) for r in suite.runs] == [
        ("tier1", "synthetic", {"index": "hnsw"}), ("tier2", "synthetic", {"generator": "extractive"})]
    resolved = resolve_settings(suite, {"reports_dir": tmp_path / "r"}, config_file=None, environ={})
    assert [(s.seed, s.index, s.generator, s.reports_dir) for s, _ in resolved] == [
        (3, "hnsw", "openai", tmp_path / "r"), (3, "exact", "extractive", tmp_path / "r")]


def test_environment_beats_suite_defaults_but_not_the_run_table(tmp_path):
    path = _write(tmp_path, 'seed = 3\n[[run]]\ntier = "tier1"\ndataset = "x"\n'
                            '[[run]]\ntier = "tier1"\ndataset = "x"\nseed = 5\n')
    resolved = resolve_settings(load_suite(path), {}, environ={"BENCH_SEED": "7"})
    assert [s.seed for s, _ in resolved] == [7, 5]
    # the report names where each value came from: the suite file is not the command line
    assert [sources["seed"] for _, sources in resolved] == ["env", "suite"]
    flagged = resolve_settings(load_suite(path), {"seed": 9}, environ={})
    assert [sources["seed"] for _, sources in flagged] == ["cli", "cli"]


@pytest.mark.parametrize(("text", "message"), [
    ('[[run]]\ntier = "tier9"\ndataset = "synthetic"\n', "run #1: tier: expected one of tier0"),
    ('[[run]]\ntier = "tier1"\ndataset = "s"\n[[run]]\ntier = "tier1"\ndataset = "s"\ngenrator = "x"\n',
     "run #2 (tier1 on s): key 'genrator': unknown setting"),
    ('[[run]]\ntier = "tier1"\n', "run #1 (tier1): dataset: expected"),
    ('colour = 1\n[[run]]\ntier = "tier1"\ndataset = "s"\n', "top level: key 'colour': unknown setting"),
    ('seed = 1\n', "expected at least one run table"),
    ('[[run]]\ntier = "tier1"\ndataset = "s"\nllm_api_key = "k"\n', "secrets are read from the environment only"),
    ('[[run\n', "unreadable suite file"),
])
def test_suite_errors_name_the_file_and_the_run(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(BenchError) as caught:
        load_suite(path)
    assert str(caught.value).startswith(f"{path}: ") and message in str(caught.value)
    assert caught.value.exit_code == 2


def test_bad_values_fail_the_whole_suite_before_anything_runs(tmp_path):
    path = _write(tmp_path, '[[run]]\ntier = "tier1"\ndataset = "s"\n[[run]]\ntier = "tier2"\ndataset = "s"\n'
                            'generator = "magic"\n')
    with pytest.raises(BenchError) as refused:
        resolve_settings(load_suite(path), {}, environ={})
    # named as the suite's key, where the user wrote it, once (not as a flag nobody typed)
    assert str(refused.value).startswith(f"{path}: run #2 (tier2 on s): key 'generator': expected one of openai")
    assert str(refused.value).count(str(path)) == 1


def test_a_bad_top_level_value_is_named_once_by_its_file_and_key(tmp_path):
    path = _write(tmp_path, 'top_k = 3\n[[run]]\ntier = "tier1"\ndataset = "s"\n')
    with pytest.raises(BenchError) as refused:
        resolve_settings(load_suite(path), {}, environ={})
    assert str(refused.value) == (f"{path}: top level: key 'top_k': must be at least 10 "
                                  "(the largest metric cutoff), got 3")


def test_a_suite_value_is_named_by_its_file_and_key_long_after_loading(tmp_path):
    path = _write(tmp_path, 'seed = 3\n[[run]]\ntier = "tier1"\ndataset = "s"\ntop_k = 12\n')
    (_, origins), = resolve_settings(load_suite(path), {"data_dir": tmp_path / "d"}, environ={})
    assert origins.named("seed") == f"{path}: top level: key 'seed'"
    assert origins.named("top_k") == f"{path}: run #1 (tier1 on s): key 'top_k'"
    assert origins.named("data_dir") == "--data-dir"
    assert (origins["seed"], origins["top_k"], origins["data_dir"], origins["index"]) == (
        "suite", "suite", "cli", "default")


def test_missing_suite_file(tmp_path):
    with pytest.raises(BenchError, match="no such suite file"):
        load_suite(tmp_path / "nope.toml")


def _line(run_id, tier="tier1", dataset="synthetic", status="ok", value=0.5, day="2026-01-01"):
    """An index line as a bench before suite entries wrote it (no `entry`, no `informational`)."""
    return {"run_id": run_id, "started_at": f"{day}T02:00:00+00:00", "tier": tier, "dataset": dataset,
            "suite": "nightly.toml", "nightly": day, "content_sha256": "a" * 64,
            "status": status, "error": None if status == "ok" else "boom",
            "report": f"nightly/{day}/{tier}-{dataset}/report.json" if status == "ok" else None,
            "main_metric": "ndcg@10", "main_value": value if status == "ok" else None,
            "metrics": {"ndcg@10": value, "hit_rate@1": 0.25} if status == "ok" else {}}


def test_previous_run_is_the_latest_earlier_ok_line_of_the_same_tier_and_dataset(tmp_path):
    index = tmp_path / "index.jsonl"
    for line in (_line("a"), _line("b", dataset="other"), _line("c", value=0.6), _line("d", tier="tier0"),
                 _line("e", status="failed"), _line("f", value=0.7)):
        append_index(index, line)
    assert previous_run(index, "tier1", "synthetic")["run_id"] == "f"
    assert previous_run(index, "tier1", "synthetic", before="f")["run_id"] == "c"
    assert previous_run(index, "tier1", "synthetic", before="c")["run_id"] == "a"
    assert previous_run(index, "tier1", "synthetic", before="a") is None
    assert previous_run(index, "tier3", "synthetic") is None
    assert previous_run(read_index(index), "tier0", "synthetic")["run_id"] == "d"


def test_two_entries_of_one_tier_and_dataset_each_compare_with_their_own_last_run(tmp_path):
    """An HNSW entry beside an exact one: each night each is compared with itself, never with the other."""
    from benchmarks.nightly import SuiteRun, entry_key

    exact, hnsw = (SuiteRun("tier1", "synthetic", {}),
                   SuiteRun("tier1", "synthetic", {"index": "hnsw", "ef_search": 100}))
    assert entry_key(exact) == "" and entry_key(hnsw) == "ef_search=100, index=hnsw"
    index = tmp_path / "index.jsonl"
    for line in (_line("old"), {**_line("x1"), "entry": ""}, {**_line("h1"), "entry": entry_key(hnsw)},
                 {**_line("x2"), "entry": ""}):
        append_index(index, line)
    assert previous_run(index, "tier1", "synthetic", entry=entry_key(hnsw))["run_id"] == "h1"
    assert previous_run(index, "tier1", "synthetic", entry="")["run_id"] == "x2"
    assert previous_run(index, "tier1", "synthetic", entry="", before="x1")["run_id"] == "old"  # written before entries
    assert previous_run(tmp_path / "missing.jsonl", "tier1", "synthetic") is None


def test_index_is_appended_and_a_torn_last_line_is_skipped(tmp_path):
    index = tmp_path / "deep" / "index.jsonl"
    append_index(index, _line("a"))
    with index.open("a") as out:
        out.write('{"run_id": "torn"')
    before = index.read_text()
    append_index(index, _line("b"))
    assert index.read_text().startswith(before)
    assert [line["run_id"] for line in read_index(index)] == ["a"]  # the torn line swallowed b's start
    index.write_text(before + "\n")
    append_index(index, _line("b"))
    assert [line["run_id"] for line in read_index(index)] == ["a", "b"]


@pytest.mark.parametrize(("change", "problem"), [
    ({"main_vlaue": 0.5}, "main_vlaue: Extra inputs are not permitted"),
    ({"status": "done"}, "status: Input should be 'ok' or 'failed'"),
    ({"metrics": {"ndcg@10": "0.5"}}, "metrics.ndcg@10.int: Input should be a valid integer"),
    ({"compare": {"verdict": "pass", "metrics": []}}, "compare.markdown: Field required"),
])
def test_a_line_that_is_no_index_line_is_refused_naming_its_file_and_line(tmp_path, change, problem):
    """JSON that is not an index line is no crash's torn tail: it is refused, where it is, in one line."""
    index = tmp_path / "index.jsonl"
    append_index(index, {**_line("a"), "entry": "", "informational": False})
    with index.open("a") as out:
        out.write(json.dumps({**_line("b"), **change}) + "\n")
    with pytest.raises(BenchError) as refused:
        read_index(index)
    assert str(refused.value) == f"{index}:2: not a line of bench's run index ({problem})"


def test_lines_of_an_older_bench_and_a_compared_run_are_read_as_written(tmp_path):
    index = tmp_path / "index.jsonl"
    compared = {**_line("b"), "entry": "index=hnsw", "informational": True, "previous_run_id": "a",
                "main_delta": 0.0, "compare": {"verdict": "regression", "metrics": ["ndcg@10"],
                                               "markdown": "nightly/2026-01-01/tier1-synthetic/compare.md"}}
    for line in (_line("a"), compared):
        append_index(index, line)
    assert read_index(index) == [_line("a"), compared]
    assert previous_run(index, "tier1", "synthetic", entry="")["run_id"] == "a"


def _traces(page):
    """The data argument of the page's Plotly.newPlot call."""
    after = page.split("Plotly.newPlot(", 1)[1].split(f'"{TRENDS_DIV_ID}",', 1)[1].lstrip()
    return json.JSONDecoder().raw_decode(after)[0]


def test_trend_page_is_self_contained_and_deterministic():
    lines = [_line("a", value=0.5, day="2026-01-01"), _line("b", status="failed", day="2026-01-02"),
             _line("c", value=0.6, day="2026-01-03"), _line("d", tier="tier0", day="2026-01-03")]
    page = render_trends(lines)
    assert page == render_trends(lines)
    assert f'id="{TRENDS_DIV_ID}"' in page and "cdn.plot.ly/plotly" not in page and len(page) > 1_000_000
    names = {trace["name"]: trace for trace in _traces(page)}
    main = names["tier1 / synthetic: ndcg@10"]
    assert main["y"] == [0.5, 0.6] and main.get("visible", True) is True
    assert names["tier1 / synthetic: hit_rate@1"]["visible"] == "legendonly"
    assert names["tier1 / synthetic: failed"]["x"] == [1] and main["x"] == [0, 2]  # run after run
    assert "tier1 on synthetic: ndcg@10 (3 runs, 1 failed)" in page
    assert "no runs yet" in render_trends([])


def _layout(page):
    after = page.split("Plotly.newPlot(", 1)[1].split(f'"{TRENDS_DIV_ID}",', 1)[1].lstrip()
    decoder = json.JSONDecoder()
    _, end = decoder.raw_decode(after)
    return decoder.raw_decode(after[end:].lstrip(", \n"))[0]


def test_two_runs_of_one_night_are_two_steps_labelled_with_their_time_of_day():
    """The observed case: a night's run and its rerun minutes later drew as one point on a 24-hour axis."""
    first = _line("a", value=0.5, day="2026-01-01")
    again = {**_line("b", value=0.7, day="2026-01-01"), "started_at": "2026-01-01T02:07:00+00:00"}
    page = render_trends([again, first])
    main = {t["name"]: t for t in _traces(page)}["tier1 / synthetic: ndcg@10"]
    assert main["x"] == [0, 1] and main["y"] == [0.5, 0.7]
    axis = _layout(page)["xaxis"]
    assert axis["tickvals"] == [0, 1] and axis["ticktext"] == ["2026-01-01 02:00", "2026-01-01 02:07"]
    nights = [_line(f"n{i}", day=f"2026-01-{i + 1:02d}") for i in range(30)]
    labelled = _layout(render_trends(nights))["xaxis"]["tickvals"]
    assert labelled == list(range(0, 30, 3))  # at most 12 dates on the axis


def test_a_series_without_any_value_is_titled_by_its_metric_and_marks_each_failed_run():
    """An index line of an evaluate run that failed before its report named a main metric has none: the series
    is titled without one, and its crosses sit on an unlabeled 0-1 axis, not at no height at all."""
    lines = [{**_line("a", tier="evaluate", status="failed"), "main_metric": None},
             _line("b", tier="tier2", status="failed", day="2026-01-01"),
             _line("c", tier="tier2", status="failed", day="2026-01-02")]
    page = render_trends(lines)
    names = {trace["name"]: trace for trace in _traces(page)}
    assert names["evaluate / synthetic: failed"]["y"] == [0.5]
    assert names["tier2 / synthetic: failed"]["y"] == [0.5, 0.5]
    assert "evaluate on synthetic (1 run, 1 failed)" in page and "synthetic: None" not in page
    assert "tier2 on synthetic: ndcg@10 (2 runs, 2 failed)" in page


def test_shipped_suite_is_valid():
    suite = load_suite(ROOT / "nightly.example.toml")
    tiers = [run.tier for run in suite.runs]
    assert tiers == ["tier0", "tier1", "tier2", "tier3", "ux", "real-users", "judge"]
    assert all(run.dataset == "synthetic" for run in suite.runs)
    for run in suite.runs:
        if run.tier == "judge":
            assert run.settings["judge_backend"] == "offline"  # the example runs offline
        if run.tier in ("tier2", "tier3"):
            assert run.settings["generator"] == "extractive" and run.settings["judge_backend"] == "offline"
    assert "judge-pipeline" in (ROOT / "nightly.example.toml").read_text()
    resolve_settings(suite, {}, environ={})
    assert set(tiers) <= set(TIERS)


def test_cron_line_runs_the_shipped_suite():
    lines = [line for line in (ROOT / "deploy" / "cron" / "bench-nightly").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert len(lines) == 1
    fields = lines[0].split(None, 5)
    assert len(fields) == 6 and all(f for f in fields[:5])
    command = fields[5]
    assert "cd " in command and ".venv/bin/bench nightly --suite nightly.example.toml" in command and ">>" in command


def test_workflow_is_valid_yaml_with_nightly_and_pull_request_jobs():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "bench.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as True
    assert set(triggers) == {"schedule", "workflow_dispatch", "pull_request"}
    assert triggers["schedule"][0]["cron"]
    jobs = workflow["jobs"]
    nightly = "\n".join(step.get("run", "") for step in jobs["nightly"]["steps"])
    assert "make setup" in nightly and "bench nightly --suite nightly.example.toml" in nightly
    assert any("upload-artifact" in step.get("uses", "") for step in jobs["nightly"]["steps"])
    # reports/ is restored before the suite and saved after it, so each night compares with the last
    uses = [step.get("uses", "") for step in jobs["nightly"]["steps"]]
    restore, save = uses.index("actions/cache/restore@v4"), uses.index("actions/cache/save@v4")
    suite = next(i for i, step in enumerate(jobs["nightly"]["steps"]) if "bench nightly" in step.get("run", ""))
    assert restore < suite < save
    assert {jobs["nightly"]["steps"][i]["with"]["path"] for i in (restore, save)} == {"reports"}
    assert jobs["nightly"]["steps"][save]["if"] == "always()"
    assert "schedule" in jobs["nightly"]["if"] and "pull_request" in jobs["pr"]["if"]
    pr = "\n".join(step.get("run", "") for step in jobs["pr"]["steps"])
    assert "bench tier1 --dataset synthetic -o reports/pr" in pr
    # the baseline is the base commit's, computed on the same runner before the candidate (README: numbers
    # across machines)
    baseline = pr.index('git worktree add ../bench-base "${{ github.event.pull_request.base.sha }}"')
    assert baseline < pr.index('bench tier1 --dataset synthetic -o "$GITHUB_WORKSPACE/reports/base"') \
        < pr.index("bench tier1 --dataset synthetic -o reports/pr")
    assert jobs["pr"]["steps"][0]["with"]["fetch-depth"] == 0
    assert "bench compare reports/base reports/pr > compare.md || true" in pr
    assert any("sticky-pull-request-comment" in step.get("uses", "") for step in jobs["pr"]["steps"])
    assert jobs["pr"]["permissions"]["pull-requests"] == "write"
    checks = "\n".join(step.get("run", "") for step in jobs["checks"]["steps"])
    assert "pull_request" in jobs["checks"]["if"] and checks.index("make setup") < checks.index("make test")


def test_without_bench_compare_the_deltas_come_from_the_index(monkeypatch, tmp_path):
    from benchmarks.nightly import RunRecord, compare_with_previous

    monkeypatch.setitem(sys.modules, "benchmarks.compare", None)  # import fails as if the module were absent
    record = RunRecord({**_line("b", value=0.75), "report": "x/b/report.json"}, previous=_line("a", value=0.5))
    compare_with_previous(record, tmp_path)
    assert record.deltas["ndcg@10"] == {"base": 0.5, "candidate": 0.75, "delta": 0.25}
    assert record.deltas["hit_rate@1"]["delta"] == 0
    assert record.compare_note == "statistical comparison not run (bench compare is not available)"
    assert record.compare_md is None


def test_a_failing_comparison_is_a_note_not_a_crash(tmp_path):
    import benchmarks.compare  # noqa: F401  part of the package: missing, the test fails
    from benchmarks.nightly import RunRecord, compare_with_previous

    record = RunRecord({**_line("b"), "report": "x/b/report.json"},
                       previous={**_line("a"), "report": "x/a/report.json"})
    compare_with_previous(record, tmp_path)  # neither report exists
    assert record.compare_note.startswith("statistical comparison not run (") and record.compare_md is None


def test_informational_is_a_run_flag_not_a_setting(tmp_path):
    path = _write(tmp_path, '[[run]]\ntier = "tier1"\ndataset = "s"\ninformational = true\nseed = 2\n'
                            '[[run]]\ntier = "tier1"\ndataset = "s"\n')
    runs = load_suite(path).runs
    assert [(r.informational, r.settings) for r in runs] == [(True, {"seed": 2}), (False, {})]
    bad = _write(tmp_path, '[[run]]\ntier = "tier1"\ndataset = "s"\ninformational = "yes"\n')
    with pytest.raises(BenchError, match=r"run #1 \(tier1 on s\): informational: expected true or false, got 'yes'"):
        load_suite(bad)


def _failed_record():
    from benchmarks.nightly import RunRecord

    return RunRecord(_line("f", status="failed"))


def _compared(tmp_path, shift, *, informational=False):
    """A nightly record whose report moved by `shift` against the previous night's, compared by bench compare."""
    from benchmarks.nightly import RunRecord, compare_with_previous
    from tests.unit.compare_helpers import shifted, tier1_items, write_run

    base, cand = shifted(300, shift)
    write_run(tmp_path / "nightly" / "d1" / "tier1-s", tier1_items({"ndcg@10": base}))
    write_run(tmp_path / "nightly" / "d2" / "tier1-s", tier1_items({"ndcg@10": cand}))
    line = {**_line("b", value=sum(cand) / 300), "report": "nightly/d2/tier1-s/report.json",
            "informational": informational}
    record = RunRecord(line, previous={**_line("a", value=sum(base) / 300), "report": "nightly/d1/tier1-s/report.json"})
    compare_with_previous(record, tmp_path)
    return record


def test_a_regression_is_recorded_named_and_fails_the_night(tmp_path):
    from io import StringIO

    from rich.console import Console

    from benchmarks.nightly import exit_code, print_summary

    record = _compared(tmp_path, -0.1)
    assert record.line["compare"] == {"verdict": "regression", "metrics": ["ndcg@10"],
                                      "markdown": "nightly/d2/tier1-s/compare.md"}
    assert record.regressed == ["ndcg@10"] and exit_code([record]) == 1
    out = StringIO()
    print_summary([record], Console(file=out, width=200))
    text = out.getvalue()
    assert "❌ regression: ndcg@10" in text
    assert "REGRESSION: tier1 on synthetic (b vs a): ndcg@10; see nightly/d2/tier1-s/compare.md" in text
    assert "1 ok, 0 failed, 1 regressed" in text

    passed = _compared(tmp_path / "pass", 0.0)
    assert passed.line["compare"]["verdict"] == "pass" and passed.regressed == [] and exit_code([passed]) == 0
    assert exit_code([passed, _failed_record()]) == 1


def test_an_informational_run_reports_its_regression_without_failing_the_night(tmp_path):
    from io import StringIO

    from rich.console import Console

    from benchmarks.nightly import exit_code, print_summary

    record = _compared(tmp_path, -0.1, informational=True)
    assert record.regressed == ["ndcg@10"] and exit_code([record]) == 0
    out = StringIO()
    print_summary([record], Console(file=out, width=200))
    assert "(informational: reported, does not fail the night)" in out.getvalue()
    assert "1 regressed (1 informational)" in out.getvalue()
    assert exit_code([record, _failed_record()]) == 1  # a failed run fails the night, informational or not


def test_trend_page_marks_regressed_runs():
    regressed = {**_line("c", value=0.4, day="2026-01-03"),
                 "compare": {"verdict": "regression", "metrics": ["ndcg@10"], "markdown": "x/compare.md"}}
    lines = [_line("a", value=0.5, day="2026-01-01"), regressed]
    page = render_trends(lines)
    names = {trace["name"]: trace for trace in _traces(page)}
    marked = names["tier1 / synthetic: regression"]
    assert marked["x"] == [1] and marked["y"] == [0.4]
    assert "c: regression in ndcg@10" in marked["hovertext"][0]
    assert "tier1 on synthetic: ndcg@10 (2 runs, 1 regressed)" in page
    assert "regression" not in {t["name"].rsplit(": ", 1)[-1] for t in _traces(render_trends(lines[:1]))}
