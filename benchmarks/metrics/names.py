"""The names of the metrics bench computes itself (not judged), declared once: the modules that compute them and
the tiers that declare what their reports hold both read them here.

Light on purpose (no numpy): the tier registry reads these names when `bench --help` is built.
"""

from __future__ import annotations

from collections.abc import Sequence

HIT_CUTOFFS = (1, 5, 10)
RECALL_CUTOFFS = (1, 3, 5, 10)
PRECISION_CUTOFFS = (1, 3, 5, 10)
NDCG_CUTOFFS = (5, 10)


def retrieval_names(
    hit: Sequence[int] = HIT_CUTOFFS,
    recall: Sequence[int] = RECALL_CUTOFFS,
    precision: Sequence[int] = PRECISION_CUTOFFS,
    ndcg: Sequence[int] = NDCG_CUTOFFS,
) -> tuple[str, ...]:
    """The retrieval report keys (metrics.retrieval), in the order a reader expects them."""
    return (*(f"hit_rate@{k}" for k in hit), "mrr", *(f"recall@{k}" for k in recall),
            *(f"precision@{k}" for k in precision), *(f"ndcg@{k}" for k in ndcg))


RETRIEVAL = retrieval_names()
# an answer against its reference (metrics.text): ROUGE F1s on 0–1, sentence BLEU on 0–100
TEXT = ("avg_rouge1_f", "avg_rouge2_f", "avg_rougeL_f", "avg_bleu")
# one question's repeated answers against each other (metrics.text)
REPEATS = ("response_exact_match_rate", "response_semantic_consistency")
