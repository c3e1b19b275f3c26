"""The real-user log is part of a ux or real-users run's identity: `bench compare` refuses runs on another log, or
on rows added under one log name, unless --allow-mismatch; and the report's header counts the log's rows."""

import json

from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.report import render
from benchmarks.report.markdown import dataset_counts
from benchmarks.report_model import DatasetBlock, Report
from tests.unit.compare_helpers import write_run

LOG = {"name": "prod-2026-11", "format": "bench-database", "language": "", "content_sha256": "c" * 64,
       "log_entries": 16, "sessions": 5}


def log_run(folder, log):
    metrics = {"cache_hit_rate": {"value": 0.5, "n": 4, "errors": 0, "ci95": None, "higher_is_better": True}}
    folder = write_run(folder, None, metrics, tier="ux", main="cache_hit_rate")
    report = json.loads((folder / "report.json").read_text())
    report["log"] = log
    (folder / "report.json").write_text(json.dumps(report))
    return folder


def compare_cli(*args):
    return CliRunner().invoke(app, ["compare", *map(str, args)], catch_exceptions=False)


def test_the_same_log_compares(tmp_path):
    result = compare_cli(log_run(tmp_path / "b", LOG), log_run(tmp_path / "c", dict(LOG)))
    assert result.exit_code == 0, result.output
    assert "on `crafted` (log `prod-2026-11`)" in result.output


def test_rows_added_under_the_same_log_name_are_refused(tmp_path):
    grown = {**LOG, "content_sha256": "d" * 64, "log_entries": 18}
    b, c = log_run(tmp_path / "b", LOG), log_run(tmp_path / "c", grown)
    refused = compare_cli(b, c)
    assert refused.exit_code == 2
    assert "log rows differs (16 vs 18)" in refused.output and "log content (sha256) differs" in refused.output
    allowed = compare_cli(b, c, "--allow-mismatch")
    assert allowed.exit_code == 0, allowed.output
    assert "compared with --allow-mismatch: log rows differs (`16` vs `18`)" in allowed.output


def test_another_log_or_a_run_without_one_is_refused(tmp_path):
    other = {**LOG, "name": "prod-2026-12"}
    refused = compare_cli(log_run(tmp_path / "b", LOG), log_run(tmp_path / "c", other))
    assert refused.exit_code == 2 and "log name differs (prod-2026-11 vs prod-2026-12)" in refused.output
    without = compare_cli(write_run(tmp_path / "old", None, {"cache_hit_rate": {"value": 0.5, "n": 4}}, tier="ux",
                                    main="cache_hit_rate"), log_run(tmp_path / "new", LOG))
    assert without.exit_code == 2 and "log content (sha256) differs" in without.output


def test_the_header_counts_the_log_not_the_datasets_questions():
    dataset = {"name": "synthetic", "version": "1", "content_sha256": "a" * 64, "documents": 311, "questions": 439}
    report = Report.model_validate({
        "schema_version": 3, "title": "UX", "tier": "ux", "tier_version": "1.0",
        "main_metric": "cache_hit_rate", "dataset": dataset, "log": LOG, "provenance": {"bench_version": "0"},
        "metrics": {}, "settings": {}, "settings_sources": {}})
    header = render(report).splitlines()[2]
    assert "dataset `synthetic` 1 (sha256 `aaaaaaaaaaaa`, 311 documents)" in header
    assert "log `prod-2026-11` (sha256 `cccccccccccc`, 16 log entries, 5 sessions)" in header
    assert "439" not in header
    # a run without a log: as before
    assert dataset_counts(DatasetBlock.model_validate(dataset)) == "311 documents, 439 questions"
