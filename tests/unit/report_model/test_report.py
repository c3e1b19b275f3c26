"""The report's model is closed: every key a tier writes is declared by its block, a key no block declares is
refused where it is written and where it is read (bench compare: one line, exit 2), and the reports of schema 2
are still read, laid out as schema 3 lays them out."""

from __future__ import annotations

import inspect
import json

import pytest
from pydantic import BaseModel, ValidationError
from typer.testing import CliRunner

import benchmarks.report_model as model
from benchmarks.cli import app
from benchmarks.compare import load_run
from benchmarks.report_model import SCHEMA_VERSION, Judge, Notes, Provenance, Report, upgrade
from tests.unit.compare_helpers import tier1_items, write_run


def blocks() -> list[type[BaseModel]]:
    return [cls for _, cls in inspect.getmembers(model, inspect.isclass) if issubclass(cls, BaseModel)]


def test_every_block_of_the_report_is_closed_and_strict():
    found = blocks()
    assert len(found) > 40
    assert [cls.__name__ for cls in found if cls.model_config.get("extra") != "forbid"] == []
    assert [cls.__name__ for cls in found if cls.model_config.get("strict") is not True] == []


@pytest.mark.parametrize(("block", "keys"), [
    (Provenance, {"promts_sha256": {}}),
    (Judge, {"backend": "llm", "promts_sha256": {}}),
    (Notes, {"avg_faithfulness": "a note under a name made up at run time"}),
])
def test_a_key_no_block_declares_is_refused_where_the_tier_writes_it(block, keys):
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        block.model_validate(keys)


def test_a_value_of_another_type_is_refused_too():
    with pytest.raises(ValidationError):
        Notes.model_validate({"depth": "10"})


def test_bench_compare_refuses_a_report_with_a_misspelled_key_in_one_line_with_exit_2(tmp_path):
    items = tier1_items({"ndcg@10": [0.5, 0.6, 0.7]})
    base = write_run(tmp_path / "base", items)
    cand = write_run(tmp_path / "cand", items, provenance={"judge": {"backend": "llm", "promts_sha256": {}}})
    result = CliRunner().invoke(app, ["compare", str(base), str(cand)])
    assert result.exit_code == 2
    message = result.output.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert str(cand / "report.json") in message
    assert "provenance.judge.promts_sha256: a key no block of report schema 3 declares" in message


def schema_2_evaluate() -> dict:
    """bench evaluate's report.json as schema 2 laid it out: the prompt hashes beside the judge block."""
    return {"schema_version": 2, "tier": "evaluate", "tier_version": "1.2", "title": "RAGAS-style evaluation",
            "main_metric": "faithfulness", "dataset": {"name": "s", "content_sha256": "ab" * 32, "samples": 2},
            "provenance": {"bench_version": "0.1.0", "judge": {"backend": "llm", "models": ["j"]},
                           "prompts_sha256": {"faithfulness": "cd" * 32}},
            "settings": {}, "settings_sources": {},
            "metrics": {"faithfulness": {"value": 0.5, "n": 2, "errors": 0, "ci95": None,
                                         "higher_is_better": True}},
            "notes": {"agreement": {}}, "warnings": [],
            "volatile": {"embedding_cache": {"hits": 3, "embedded": 1, "seconds_embedding": 0.5,
                                             "by_purpose": {}}}}


def test_a_schema_2_report_is_read_as_schema_3_lays_it_out(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps(schema_2_evaluate()), encoding="utf-8")
    report = load_run(tmp_path).report
    assert report.schema_version == SCHEMA_VERSION == 3
    assert report.provenance.judge is not None
    assert report.provenance.judge.prompts_sha256 == {"faithfulness": "cd" * 32}
    assert "prompts_sha256" not in report.provenance.model_dump(exclude_unset=True)
    assert report.volatile.embedding_cache is not None and report.volatile.embedding_cache.cache_hits == 3


def test_schema_2_notes_under_run_time_names_get_their_fixed_names():
    judge = {"schema_version": 2, "tier": "judge",
             "notes": {"rating": "faithfulness", "avg_faithfulness": "mean over items",
                       "avg_faithfulness_by_ground_truth_show": {"true": 0.9, "false": None},
                       "agreement": {"mean_absolute_difference": 0.1, "krippendorff_alpha_interval": 0.8,
                                     "units": 4, "reason": None}}}
    notes = upgrade(judge)["notes"]
    assert notes["means"] == "mean over items"
    assert notes["means_by_ground_truth_show"] == {"true": 0.9, "false": None}
    assert notes["agreement"] == {"avg_faithfulness": judge["notes"]["agreement"]}
    pairwise = upgrade({"schema_version": 2, "tier": "judge-pairwise", "notes": {"agreement": {"tie": 1}}})
    assert pairwise["notes"]["agreement"] == {"preferences": {"tie": 1}}
    tier1 = upgrade({"schema_version": 2, "tier": "tier1", "notes": {"ann_recall@10": "share of exact search's"}})
    assert tier1["notes"] == {"ann_recall": "share of exact search's"}
    current = {"schema_version": 3, "notes": {"means": "as written"}}
    assert upgrade(current) is current


def test_an_upgraded_report_validates_whole():
    Report.model_validate(upgrade(schema_2_evaluate()))


def test_the_first_schema_2_layouts_are_read_too():
    """Reading bands written as notes (bench judge, judge-pipeline) and ux's cache note without its raw threshold."""
    judge = upgrade({"schema_version": 2, "tier": "judge", "notes": {"consistency_band": "good", "rating": "x"}})
    assert judge["notes"] == {"rating": "x"}
    pipeline = upgrade({"schema_version": 2, "tier": "judge-pipeline", "notes": {"accuracy_band": "good"}})
    assert pipeline["notes"] == {}
    Notes.model_validate({"cache": {"threshold": 0.8, "hit": "h", "cached_questions": 1, "cached_score": 5,
                                    "test_questions": 2, "history_sessions": 1, "test_sessions": 1, "split": "s",
                                    "hit_rate_curve": [], "undetermined": None}})


@pytest.mark.parametrize("provenance", [{"judge": None, "prompts_sha256": {}}, ["not", "a", "block"]])
def test_a_malformed_schema_2_report_is_a_broken_run_not_a_traceback(tmp_path, provenance):
    document = {**schema_2_evaluate(), "provenance": provenance}
    (tmp_path / "report.json").write_text(json.dumps(document), encoding="utf-8")
    result = CliRunner().invoke(app, ["compare", str(tmp_path), str(tmp_path)])
    assert result.exit_code == 3 and "Traceback" not in result.output
    assert "not a bench report" in result.output


def test_a_file_that_is_no_report_is_a_broken_run_even_with_keys_of_its_own(tmp_path):
    (tmp_path / "report.json").write_text(json.dumps({"verdict": "pass", "metrics": []}), encoding="utf-8")
    result = CliRunner().invoke(app, ["compare", str(tmp_path), str(tmp_path)])
    assert result.exit_code == 3 and "not a bench report" in result.output
