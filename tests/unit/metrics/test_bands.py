"""The seeds' reading bands: each level on and beside its bounds, and the names reports give the metrics."""

import math
from pathlib import Path

import pytest

from benchmarks.metrics.bands import BANDS, band_for


@pytest.mark.parametrize(
    ("metric", "value", "rating"),
    [
        # seed 004 §11.2: "> 0.8 | 0.5–0.8 | < 0.5", both bounds good
        ("hit_rate@1", 0.81, "excellent"),
        ("hit_rate@1", 0.8, "good"),
        ("mrr", 0.5, "good"),
        ("ndcg@10", 0.49, "needs attention"),
        ("ndcg@10", 0.8000000000000002, "good"),  # a mean a hair above the bound is on it
        ("faithfulness", 0.9, "good"),
        ("faithfulness", 0.91, "excellent"),
        ("faithfulness", 0.7, "good"),
        ("faithfulness", 0.69, "needs attention"),
        ("avg_e2e_score", 0.6, "good"),
        ("avg_e2e_score", 0.59, "needs attention"),
        ("avg_e2e_score", 0.85, "excellent"),
        ("accuracy", 0.96, "excellent"),
        ("accuracy", 0.95, "good"),
        ("accuracy", 0.85, "good"),
        ("accuracy", 0.84, "needs attention"),
        ("consistency_score", 0.97, "excellent"),
        ("consistency_score/judge-a", 0.8, "needs attention"),
        # seeds 000–003: consecutive ranges, a bound opening the range above it
        ("context_relevance", 0.9, "excellent"),
        ("context_relevance", 0.8999999999999999, "excellent"),
        ("context_relevance", 0.89, "good"),
        ("context_relevance", 0.7, "good"),
        ("context_relevance", 0.69, "needs attention"),  # the seed's "mixed" and "poor"
        ("semantic_similarity", 0.9, "excellent"),
        ("avg_semantic_similarity", 0.8, "good"),
        ("semantic_similarity/judge-a", 0.79, "needs attention"),
        # lower is better
        ("noise_sensitivity", 0.0, "excellent"),
        ("noise_sensitivity", 0.09, "excellent"),
        ("noise_sensitivity", 0.1, "good"),
        ("noise_sensitivity", 0.29, "good"),
        ("noise_sensitivity", 0.3, "needs attention"),  # the seed's "moderate" opens at 0.3
        ("noise_sensitivity", 1.0, "needs attention"),
    ],
)
def test_levels_on_and_beside_the_bounds(metric, value, rating):
    band = band_for(metric)
    assert band is not None and band.rate(value) == rating


@pytest.mark.parametrize("metric", ["rouge_l", "hit_rate@3", "ndcg@5", "avg_answer_relevance", "precision",
                                    "mean_abs_difference", "retrieval_hit_rate@1", "avg_rouge1_f"])
def test_a_metric_the_seeds_do_not_band_has_none(metric):
    assert band_for(metric) is None


def test_the_names_reports_give_the_banded_metrics():
    """Every band the seeds give, under the name a tier reports it (tier 1, evaluate, judge, judge-pipeline)."""
    assert set(BANDS) == {"hit_rate@1", "mrr", "ndcg@10", "faithfulness", "e2e_score", "accuracy",
                          "consistency_score", "noise_sensitivity", "context_relevance", "semantic_similarity"}


def test_each_row_of_section_11_2_is_declared_once():
    assert band_for("hit_rate@1") is band_for("ndcg@10") is band_for("mrr")
    assert band_for("accuracy") is band_for("consistency_score")
    assert band_for("avg_faithfulness") is band_for("faithfulness/judge-a") is BANDS["faithfulness"]


@pytest.mark.parametrize(("metric", "described"), [
    ("mrr", "> 0.8 excellent, 0.5–0.8 good, < 0.5 needs attention"),
    ("accuracy", "> 0.95 excellent, 0.85–0.95 good, < 0.85 needs attention"),
    ("context_relevance", "≥ 0.9 excellent, 0.7–0.9 good, < 0.7 needs attention"),
    ("noise_sensitivity", "< 0.1 excellent, 0.1–0.3 good, ≥ 0.3 needs attention"),
])
def test_describe_says_the_levels_and_which_side_a_bound_falls_on(metric, described):
    band = band_for(metric)
    assert band is not None and band.describe() == described


def test_sources_name_the_seed():
    assert BANDS["ndcg@10"].source == "seed 004 §11.2"
    assert all(band.source.startswith("seed") for band in BANDS.values())


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_number_is_not_rated(value):
    with pytest.raises(ValueError):
        BANDS["mrr"].rate(value)


def test_the_docs_table_is_the_declared_bands():
    """docs/metric-guide.md's bands table, row for row: a threshold changed in code changes what the docs say."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "metric-guide.md").read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `")
            and line.split(" | ")[0].strip("| `") in BANDS and "excellent" in line]
    assert rows == [f"| `{name}` | {band.describe()} | {band.source} |" for name, band in BANDS.items()]
