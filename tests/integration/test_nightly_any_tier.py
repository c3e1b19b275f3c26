"""`bench nightly` runs every kind of report command: evaluate and judge with the offline judge, the
production judge pipeline against an OpenAI-compatible endpoint (the local test server), beside tier 1."""

import json

import pytest

from benchmarks.run_files.index import read_index
from tests.integration.conftest import write_bench_dataset
from tests.integration.openai_server import FakeOpenAI
from tests.integration.test_judge_pipeline_cli import ITEMS, production_judge, write_items

pytestmark = pytest.mark.integration

SAMPLES = [
    {"id": "s1", "user_input": "How many vacation days?", "response": "You get 28 days of paid vacation.",
     "retrieved_contexts": ["Employees get 28 days of paid vacation per year."],
     "reference": "28 days of paid vacation per year."},
    {"id": "s2", "user_input": "Where is the VPN gateway?", "response": "It is vpn-lis.example.com.",
     "retrieved_contexts": ["The VPN gateway for the Lisbon office is vpn-lis.example.com."],
     "reference": "vpn-lis.example.com"},
]


@pytest.mark.slow  # over 10 s: make test-fast leaves it out
def test_a_suite_names_evaluate_judge_and_judge_pipeline_as_tiers(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    items = write_items(tmp_path / "items.jsonl")
    suite = tmp_path / "suite.toml"
    suite.write_text(f"""
bootstrap_resamples = 50

[[run]]
tier = "evaluate"
dataset = "{samples}"
metrics = ["faithfulness", "semantic_similarity"]
judge_backend = "offline"

[[run]]
tier = "judge"
dataset = "synthetic"
judge_backend = "offline"

[[run]]
tier = "judge-pipeline"
dataset = "{items}"

[[run]]
tier = "tier1"
dataset = "{write_bench_dataset(tmp_path / 'tiny')}"
""")
    with FakeOpenAI() as server:
        server.responder = production_judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "prod-judge")
        result = bench("nightly", "--suite", suite)
    assert result.exit_code == 0, result.output
    lines = read_index(tmp_path / "reports" / "index.jsonl")
    assert [(line["tier"], line["status"]) for line in lines] == [
        ("evaluate", "ok"), ("judge", "ok"), ("judge-pipeline", "ok"), ("tier1", "ok")]
    evaluate, judge, pipeline, _ = lines
    assert evaluate["main_metric"] == "faithfulness" and evaluate["main_value"] is not None
    assert judge["main_metric"] == "consistency_score" and judge["main_value"] == 1.0  # a proxy repeats itself
    assert pipeline["main_metric"] == "accuracy" and pipeline["main_value"] == pytest.approx(2 / len(ITEMS))
    report = json.loads((tmp_path / "reports" / pipeline["report"]).read_text())
    assert report["provenance"]["production_judge"]["model"] == "prod-judge"
    # a report names only the settings its tier reads
    assert "hnsw_m" not in report["settings"] and "show_judge_via" in report["settings"]
    assert report["settings_sources"] == {"bootstrap_resamples": "suite", "llm_base_url": "env",
                                          "llm_model": "env", "language": "detected"}  # the items' own
