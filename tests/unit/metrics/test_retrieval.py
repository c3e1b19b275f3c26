"""Tier 1 metrics: hand-computed cases, then equality with trec_eval (pytrec-eval-terrier) to 1e-9."""

import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.metrics.names import retrieval_names
from benchmarks.metrics.retrieval import evaluate, ranking_consistency, trec_order
from benchmarks.store.vectors import Hit
from benchmarks.tiers.tier1 import rank_results

NAN = float("nan")

TREC_NAMES = {
    "hit_rate@1": "success_1", "hit_rate@5": "success_5", "hit_rate@10": "success_10",
    "mrr": "recip_rank",
    "recall@1": "recall_1", "recall@3": "recall_3", "recall@5": "recall_5", "recall@10": "recall_10",
    "precision@1": "P_1", "precision@3": "P_3", "precision@5": "P_5", "precision@10": "P_10",
    "ndcg@5": "ndcg_cut_5", "ndcg@10": "ndcg_cut_10",
}
TREC_MEASURES = {"success.1,5,10", "recip_rank", "recall.1,3,5,10", "P.1,3,5,10", "ndcg_cut.5,10"}


def one(run, qrels):
    result = evaluate({"q": run}, {"q": qrels})
    return {name: float(values[0]) for name, values in result.values.items()}


def test_names_are_the_report_keys():
    assert retrieval_names() == tuple(TREC_NAMES)


def test_single_relevant_at_rank_two():
    m = one([("a", 0.9), ("b", 0.8), ("c", 0.7)], {"b": 1})
    assert m["hit_rate@1"] == 0.0 and m["hit_rate@5"] == 1.0
    assert m["mrr"] == 0.5
    assert m["recall@1"] == 0.0 and m["recall@3"] == 1.0
    assert m["precision@1"] == 0.0
    assert m["precision@3"] == pytest.approx(1 / 3)
    assert m["precision@10"] == pytest.approx(1 / 10)  # divides by k although only 3 were retrieved
    assert m["ndcg@5"] == pytest.approx(1 / math.log2(3))  # DCG 1/log2(3), ideal 1


def test_graded_ndcg_uses_linear_gain_and_all_judged_documents():
    # retrieved: b (grade 1) then a (grade 2); c (grade 2) is judged but not retrieved
    m = one([("b", 0.9), ("a", 0.8), ("x", 0.1)], {"a": 2, "b": 1, "c": 2})
    dcg = 1 / math.log2(2) + 2 / math.log2(3)
    ideal = 2 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert m["ndcg@5"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert m["recall@3"] == pytest.approx(2 / 3)
    assert m["mrr"] == 1.0


def test_ideal_dcg_is_cut_at_k():
    qrels = {f"d{i}": 1 for i in range(12)}
    m = one([(f"d{i}", 1.0 - i / 100) for i in range(12)], qrels)
    assert m["ndcg@5"] == pytest.approx(1.0) and m["ndcg@10"] == pytest.approx(1.0)
    assert m["recall@10"] == pytest.approx(10 / 12)


def test_ties_are_broken_by_document_id_descending():
    assert trec_order([("a", 0.5), ("c", 0.5), ("b", 0.7)]) == [("b", 0.7), ("c", 0.5), ("a", 0.5)]
    # "a" is relevant and tied with "z": trec_eval puts "z" first, so the hit is at rank 2
    m = one([("a", 0.5), ("z", 0.5)], {"a": 1})
    assert m["hit_rate@1"] == 0.0 and m["mrr"] == 0.5


def test_a_nan_score_ranks_below_every_real_score_and_above_the_padding():
    # a zero vector has no cosine: "a" is last of the three retrieved, not at rank 10 behind the padding
    m = one([("a", NAN), ("b", 0.5), ("c", 0.9)], {"a": 1})
    assert m["mrr"] == pytest.approx(1 / 3)
    assert m["hit_rate@1"] == 0.0 and m["hit_rate@5"] == 1.0
    assert m["recall@1"] == 0.0 and m["recall@3"] == 1.0
    assert m["precision@3"] == pytest.approx(1 / 3)
    assert m["ndcg@5"] == pytest.approx(1 / math.log2(4))


def test_nan_scores_tie_with_each_other_and_with_minus_infinity_by_document_id_descending():
    ranking = [("a", NAN), ("m", -math.inf), ("b", -0.5), ("z", NAN)]
    assert [doc for doc, _ in trec_order(ranking)] == ["b", "z", "m", "a"]
    assert one(ranking, {"z": 1})["mrr"] == 0.5
    assert one(ranking, {"m": 1})["mrr"] == pytest.approx(1 / 3)
    assert one(ranking, {"a": 1})["mrr"] == 0.25


def test_a_url_whose_chunks_all_score_nan_is_ranked_last_not_dropped():
    hits = [Hit("c1", "u/a", NAN), Hit("c2", "u/b", 0.2), Hit("c3", "u/a", NAN), Hit("c4", "u/c", NAN),
            Hit("c5", "u/c", 0.7)]
    ranked = rank_results(hits, "url", 10)
    assert [url for url, _ in ranked] == ["u/c", "u/b", "u/a"]
    assert ranked[0][1] == 0.7  # a url is scored by its best chunk
    assert math.isnan(ranked[2][1])  # NaN only when every chunk of it is


def test_grade_zero_is_judged_not_relevant():
    m = one([("a", 0.9), ("b", 0.8)], {"a": 0, "b": 1})
    assert m["mrr"] == 0.5 and m["recall@10"] == 1.0


def test_empty_results_score_zero():
    m = one([], {"a": 1})
    assert all(value == 0.0 for value in m.values())


def test_queries_without_relevant_documents_are_excluded_and_listed():
    result = evaluate({"q1": [("a", 1.0)], "q2": [("a", 1.0)], "q3": [("b", 1.0)]},
                      {"q1": {"a": 1}, "q2": {}, "q3": {"b": 0}})
    assert result.qids == ["q1"]
    assert result.without_relevant == ["q2", "q3"]
    assert result.means()["mrr"] == 1.0


def test_queries_only_in_the_run_are_ignored():
    result = evaluate({"q1": [("a", 1.0)], "extra": [("a", 1.0)]}, {"q1": {"a": 1}})
    assert result.qids == ["q1"]


def test_mean_over_queries():
    result = evaluate({"q1": [("a", 1.0)], "q2": [("x", 1.0), ("b", 0.5)]}, {"q1": {"a": 1}, "q2": {"b": 1}})
    assert result.means()["mrr"] == pytest.approx(0.75)
    assert result.means()["hit_rate@1"] == pytest.approx(0.5)


def test_ranking_consistency():
    first = [["a", "b"], ["c", "d"]]
    same = [["a", "b"], ["c", "d"]]
    swapped = [["a", "b"], ["d", "c"]]
    assert ranking_consistency([first, same, swapped]).tolist() == [1.0, 0.5]
    with pytest.raises(ValueError):
        ranking_consistency([first])


def _trec_reference(run, qrels):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES)
    return evaluator.evaluate({q: dict(r) for q, r in run.items() if r})


@st.composite
def runs_and_qrels(draw, nan=False):
    """Random runs over a small document pool, so ties, duplicates of scores and misses are common; with
    `nan`, some scores are NaN too."""
    n_queries = draw(st.integers(1, 12))
    pool = [f"d{i:02d}" for i in range(draw(st.integers(1, 30)))]
    score = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, *([NAN] if nan else [])]),
                      st.floats(-1, 1, allow_nan=False))
    run, qrels = {}, {}
    for q in range(n_queries):
        docs = draw(st.lists(st.sampled_from(pool), max_size=25, unique=True))
        run[f"q{q}"] = [(doc, draw(score)) for doc in docs]
        judged = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8, unique=True))
        qrels[f"q{q}"] = {doc: draw(st.integers(0, 3)) for doc in judged}
    return run, qrels


@settings(max_examples=300, deadline=None)
@given(runs_and_qrels())
def test_equal_to_trec_eval(case):
    run, qrels = case
    ours = evaluate(run, qrels)
    reference = _trec_reference(run, qrels)
    for row, qid in enumerate(ours.qids):
        for name, trec_name in TREC_NAMES.items():
            expected = reference[qid][trec_name] if qid in reference else 0.0  # trec_eval -c for empty runs
            assert abs(ours.values[name][row] - expected) <= 1e-9, (qid, name)


@settings(max_examples=200, deadline=None)
@given(runs_and_qrels(nan=True))
def test_a_nan_score_counts_as_a_score_below_every_other(case):
    """trec_eval's own NaN handling is not bench's rule, so the reference gets -2 (below every drawn score)
    where bench gets NaN: both must rank those documents alike, last among the retrieved, ties by id."""
    run, qrels = case
    ours = evaluate(run, qrels)
    below_all = {q: [(doc, -2.0 if math.isnan(x) else x) for doc, x in r] for q, r in run.items()}
    reference = _trec_reference(below_all, qrels)
    for row, qid in enumerate(ours.qids):
        for name, trec_name in TREC_NAMES.items():
            expected = reference[qid][trec_name] if qid in reference else 0.0
            assert abs(ours.values[name][row] - expected) <= 1e-9, (qid, name)


def test_equal_to_trec_eval_on_a_large_random_run():
    rng = np.random.default_rng(7)
    run, qrels = {}, {}
    for q in range(500):
        docs = rng.choice(1000, size=100, replace=False)
        scores = np.round(rng.random(100), 2)  # two decimals: many ties
        run[f"q{q}"] = [(f"doc{d}", float(s)) for d, s in zip(docs, scores, strict=False)]
        judged = rng.choice(1000, size=rng.integers(1, 20), replace=False)
        qrels[f"q{q}"] = {f"doc{d}": int(rng.integers(0, 4)) for d in judged}
    ours = evaluate(run, qrels)
    reference = _trec_reference(run, qrels)
    for name, trec_name in TREC_NAMES.items():
        expected = np.array([reference[q][trec_name] for q in ours.qids])
        assert np.max(np.abs(ours.values[name] - expected)) <= 1e-9, name
