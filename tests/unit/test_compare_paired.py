"""The paired bootstrap against a slow reference, per-item extraction and clustering."""

import numpy as np
import pytest

from benchmarks.compare.paired import MISSING, cluster_key, clusters_of, item_value, paired_bootstrap


def reference(diffs, valid, clusters, resamples, seed):
    """One resample at a time, in plain Python, from the same draws."""
    n = len(diffs)
    units = n if clusters is None else max(clusters) + 1
    members = [[i for i in range(n) if (i if clusters is None else clusters[i]) == u] for u in range(units)]
    draws = np.random.default_rng(seed).integers(0, units, size=(resamples, units))
    means = []
    for row in draws:
        picked = [diffs[i] for u in row for i in members[u] if valid[i]]
        if picked:
            means.append(sum(picked) / len(picked))
    return tuple(np.percentile(means, [2.5, 97.5]))


@pytest.mark.parametrize("clustered", [False, True])
def test_matches_the_slow_reference(clustered):
    rng = np.random.default_rng(3)
    n = 40
    diffs = rng.normal(0.05, 0.2, n)
    valid = rng.random(n) > 0.1
    clusters = np.arange(n) // 4 if clustered else None
    got = paired_bootstrap(diffs[None, :], valid[None, :], clusters=clusters, resamples=300, seed=7,
                           block_rows=300)[0]
    want = reference(list(diffs), list(valid), None if clusters is None else list(clusters), 300, 7)
    assert got == pytest.approx(want, abs=1e-12)


def test_same_seed_same_interval_and_several_metrics_share_draws():
    rng = np.random.default_rng(0)
    d = rng.normal(0, 1, (3, 500))
    v = np.ones_like(d, dtype=bool)
    a = paired_bootstrap(d, v, resamples=1000, seed=1)
    b = paired_bootstrap(d, v, resamples=1000, seed=1)
    assert a == b and all(ci is not None for ci in a)
    single = paired_bootstrap(d[1:2], v[1:2], resamples=1000, seed=1)[0]
    assert single == pytest.approx(a[1])


def test_cluster_bootstrap_is_wider_when_items_of_a_document_move_together():
    rng = np.random.default_rng(5)
    documents = np.repeat(np.arange(20), 10)
    diffs = np.repeat(rng.normal(0, 0.2, 20), 10) + rng.normal(0, 0.01, 200)
    valid = np.ones(200, dtype=bool)
    plain = paired_bootstrap(diffs[None], valid[None], resamples=2000, seed=0)[0]
    clustered = paired_bootstrap(diffs[None], valid[None], clusters=documents, resamples=2000, seed=0)[0]
    assert (clustered[1] - clustered[0]) > 2 * (plain[1] - plain[0])


def test_no_valid_item_gives_no_interval():
    assert paired_bootstrap(np.zeros((1, 5)), np.zeros((1, 5), dtype=bool), resamples=50) == [None]


def test_clusters_only_when_items_share_a_document():
    assert clusters_of(["a", "b", None]) is None
    assert list(clusters_of(["a", "b", "a", None])) == [0, 1, 0, 2]


def test_cluster_keys_by_tier():
    assert cluster_key({"relevant": {"doc-x#2": 1, "doc-y#1": 3}}) == "doc-y"
    assert cluster_key({"context_ids": ["doc#1", "other#2"]}) == "doc"
    assert cluster_key({"id": "q1", "relevant": {}}) is None


def test_item_values_by_tier():
    assert item_value({"metrics": {"mrr": 0.5}}, "mrr", "tier1") == 0.5
    assert item_value({"metrics": {}}, "mrr", "tier1") is MISSING
    ok = {"grades": {"faithfulness": {"value": 0.8, "status": "ok"}}}
    bad = {"grades": {"faithfulness": {"value": None, "status": "judge_error"}}}
    assert item_value(ok, "avg_faithfulness", "tier2") == 0.8
    assert item_value(bad, "avg_faithfulness", "tier2") is None
    assert item_value({"text": {"rougeL_f": 0.4}}, "avg_rougeL_f", "tier2") == 0.4
    both = {"grades": {"faithfulness": {"value": 0.8, "status": "ok"},
                       "ragas:faithfulness": {"value": 0.25, "status": "ok"}}}
    assert (item_value(both, "avg_faithfulness", "tier2"), item_value(both, "faithfulness", "tier2")) == (0.8, 0.25)
    failed = {"answers": [{"status": "api_error"}, {"status": "ok"}], "text": {}, "repeats": {"exact_match": None}}
    assert item_value(failed, "avg_bleu", "tier2") is None and item_value(failed, "response_exact_match_rate", "t") is None
    unreferenced = {"answers": [{"status": "ok"}], "text": {}, "grades": {"e2e_score": {"status": "undetermined"}}}
    assert item_value(unreferenced, "avg_bleu", "tier3") is MISSING
    assert item_value(unreferenced, "avg_e2e_score", "tier3") is MISSING
    assert item_value({"retrieval_hit": False}, "retrieval_hit_rate@1", "tier3") == 0.0
    assert item_value({"retrieval_hit": None}, "retrieval_hit_rate@1", "tier3") is MISSING
    jp = {"decision": True, "ground_truth_show": True, "status": "ok"}
    assert item_value(jp, "accuracy", "judge-pipeline") == 1.0
    assert item_value({**jp, "ground_truth_show": False}, "accuracy", "judge-pipeline") == 0.0
    assert item_value({**jp, "status": "error", "decision": None}, "accuracy", "judge-pipeline") is None


def test_evaluate_sample_values_are_the_mean_over_the_judges_that_scored():
    two = {"metrics": {"faithfulness": {"a": {"value": 0.5, "status": "ok"}, "b": {"value": 1.0, "status": "ok"}}}}
    assert item_value(two, "faithfulness", "evaluate") == 0.75
    assert item_value(two, "faithfulness/b", "evaluate") == 1.0
    one_failed = {"metrics": {"faithfulness": {"a": {"value": None, "status": "api_error"},
                                               "b": {"value": 1.0, "status": "ok"}}}}
    assert item_value(one_failed, "faithfulness", "evaluate") == 1.0
    assert item_value(one_failed, "faithfulness/a", "evaluate") is None
    undetermined = {"metrics": {"faithfulness": {"a": {"value": None, "status": "undetermined"}}}}
    assert item_value(undetermined, "faithfulness", "evaluate") is MISSING
