"""How `bench compare` decides significance: Holm–Bonferroni across several primary metrics, 5% for the rest,
and intervals over fewer than 20 units marked unreliable."""

import numpy as np
import pytest

from benchmarks.compare import compare, load_run, render
from benchmarks.compare.gates import Gates, parse
from benchmarks.compare.status import holm
from tests.unit.compare_helpers import tier1_items, write_run

N = 400


def test_holm_levels_and_step_down():
    assert holm({"a": 0.01, "b": 0.04, "c": 0.03}) == {
        "a": {"alpha": pytest.approx(0.05 / 3), "significant": True},
        "c": {"alpha": pytest.approx(0.025), "significant": False},
        "b": {"alpha": pytest.approx(0.05), "significant": False},  # within its level; the step-down stopped
    }
    assert holm({"a": 0.001, "b": 0.02}) == {"a": {"alpha": 0.025, "significant": True},
                                             "b": {"alpha": 0.05, "significant": True}}
    assert holm({"only": 0.049}) == {"only": {"alpha": 0.05, "significant": True}}
    assert holm({}) == {}


def runs(tmp_path, shifts: dict[str, float]):
    """Two runs of N items: every metric's differences are ±0.2 around its shift, so its paired t is
    20·shift/0.2 (shift -0.0215: t -2.15, p about 0.03; shift 0: p 1)."""
    spread = np.where(np.arange(N) % 2 == 0, 0.2, -0.2)
    base = {name: [0.5] * N for name in shifts}
    cand = {name: [round(0.5 + s + x, 6) for x in spread] for name, s in shifts.items()}
    return (load_run(write_run(tmp_path / "b", tier1_items(base))),
            load_run(write_run(tmp_path / "c", tier1_items(cand))))


def row(result, name):
    return next(m for m in result["metrics"] if m["metric"] == name)


def test_a_change_significant_alone_is_not_under_holm_across_two_primary_metrics(tmp_path):
    b, c = runs(tmp_path, {"ndcg@10": -0.0215, "mrr": 0.0})
    alone = compare(b, c, Gates(), resamples=4000)
    assert 0.025 < row(alone, "ndcg@10")["p_value"] < 0.05
    assert row(alone, "ndcg@10")["alpha"] == 0.05 and row(alone, "ndcg@10")["status"] == "regressed"
    assert alone["exit_code"] == 1 and "Holm" not in render(alone)
    gates = parse({"metrics": {"ndcg@10": {"primary": True}, "mrr": {"primary": True}}})
    both = compare(b, c, gates, resamples=4000)
    assert both["significance"] == {"alpha": 0.05, "holm": ["ndcg@10", "mrr"]}
    ndcg = row(both, "ndcg@10")
    assert ndcg["alpha"] == 0.025 and not ndcg["significant"] and ndcg["status"] == "~"
    assert ndcg["ci95"][1] < 0  # its own 95% interval excludes 0: Holm, not the interval, decided
    assert row(both, "mrr")["alpha"] == 0.05 and both["exit_code"] == 0
    text = render(both)
    assert "Holm–Bonferroni across the 2 primary metrics (family-wise 5%)" in text
    assert "The other metrics are tested at 5% each." in text


def test_other_metrics_stay_at_five_percent(tmp_path):
    b, c = runs(tmp_path, {"ndcg@10": 0.0, "recall@10": 0.0, "mrr": -0.0215})
    result = compare(b, c, parse({"metrics": {"ndcg@10": {"primary": True}, "recall@10": {"primary": True}}}),
                     resamples=4000)
    assert row(result, "mrr")["alpha"] == 0.05 and row(result, "mrr")["status"] == "regressed"
    assert result["exit_code"] == 0 and result["warnings"] == ["mrr"]


@pytest.mark.parametrize(("n", "documents", "units", "unreliable"), [
    (15, None, 15, True), (400, None, 400, False), (400, 10, 10, True), (400, 25, 25, False)])
def test_intervals_over_fewer_than_20_units_are_marked_unreliable(tmp_path, n, documents, units, unreliable):
    rng = np.random.default_rng(2)
    base = rng.uniform(0.3, 0.7, n).round(6).tolist()
    cand = np.clip(np.array(base) - 0.05 + rng.normal(0, 0.05, n), 0, 1).round(6).tolist()
    docs = [f"d{i % documents}" for i in range(n)] if documents else None
    b = write_run(tmp_path / "b", tier1_items({"ndcg@10": base}, documents=docs))
    c = write_run(tmp_path / "c", tier1_items({"ndcg@10": cand}, documents=docs))
    result = compare(load_run(b), load_run(c), Gates(), resamples=1000)
    ndcg = row(result, "ndcg@10")
    assert (ndcg["ci_units"], ndcg["ci_unreliable"]) == (units, unreliable)
    text = render(result)
    assert ("] † |" in text) is unreliable and ("† fewer than 20 source documents" in text) is unreliable
