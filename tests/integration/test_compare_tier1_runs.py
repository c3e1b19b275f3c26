"""`bench compare` on two real `bench tier1` runs of a tiny dataset."""

import json

import pytest

pytestmark = pytest.mark.integration


def test_compare_two_real_tier1_runs(bench, tiny, tmp_path):
    for name, top_k in (("base", "10"), ("cand", "20")):
        result = bench("tier1", "--dataset", tiny, "--output-dir", tmp_path / name, "--top-k", top_k)
        assert result.exit_code == 0, result.output
    same = bench("compare", tmp_path / "base", tmp_path / "base", "--resamples", "500")
    assert same.exit_code == 0, same.output
    assert same.output.startswith("<!-- bench-compare -->") and "unchanged" in same.output
    changed = bench("compare", tmp_path / "base", tmp_path / "cand" / "report.json", "--format", "json",
                    "--resamples", "500")
    assert changed.exit_code == 0, changed.output
    data = json.loads(changed.output)
    assert data["items"]["n_paired"] == data["items"]["n_base"]
    assert any(d["key"] == "settings.top_k" for d in data["config_diff"])
    assert {m["metric"] for m in data["metrics"]} >= {"ndcg@10", "mrr", "recall@10"}
