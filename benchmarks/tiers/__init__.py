"""The one registry of tiers: every report command, declared here and run from its module.

A new tier is a module (with `run(ctx)` and, if it refuses some settings, `check(settings, origins)`)
plus one declaration here: its input, the settings it reads, the metrics its report holds and the
main one. `reads` lists every setting the run and the services it opens read;
the runner hands the tier only those (reading another fails at once), so a report shows, and a
resume must match, exactly the settings that made its numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.judge import judged_metrics
from benchmarks.metrics import names
from benchmarks.tiers.base import InputKind, Tier

if TYPE_CHECKING:  # the sets the loaders return; the registry imports none of their modules
    from benchmarks.dataset import Dataset
    from benchmarks.inputs import ItemSet
    from benchmarks.readers.show_items import AnswerPair, RatedItem, ShowItem
    from benchmarks.samples import SampleSet

STORE = ("data_dir", "database_url", "retrieval_workers")  # the pool holds a connection per retrieval worker
EMBEDDING = (*STORE, "embedding_backend", "embedding_model", "embedding_base_url", "embedding_api_key",
             "embedding_dimensions", "embedding_models", "embedding_batch_size", "embedding_timeout_s",
             "embedding_concurrency", "embedding_max_attempts", "embedding_query_prefix",
             "embedding_document_prefix")
INDEX = ("index", "ef_search", "hnsw_m", "hnsw_ef_construction", "hnsw_build_memory", "hnsw_build_workers",
         "retrieval_batch_size", "retrieval_workers")
STATS = ("seed", "bootstrap_resamples")
LLM = ("chat_backend", "providers", "llm_base_url", "llm_api_key", "llm_model", "judge_model", "llm_temperature",
       "llm_max_tokens", "llm_top_p", "llm_concurrency", "llm_max_attempts", "llm_timeout_s", "llm_cache", "llm_prices",
       "llm_structured_output")
# how the metrics of bench evaluate are asked (also tiers 2 and 3's --metrics)
JUDGED = ("relevancy_questions", "similarity_threshold", "correctness_weights", "factual_mode", "factual_beta",
          "noise_mode", "precision_against", "rubrics", "similarity_baseline", "claim_counting", "judge_verdicts")
ANSWERING = (*EMBEDDING, *LLM, *JUDGED, *STATS, "generator", "generator_model", "generator_template",
             "generator_http_url", "generator_http_request", "generator_http_response_path", "generator_http_api_key",
             "extractive_sentences", "judge_backend", "local_model", "judge_mode", "repeats", "extra_metrics")
LOGS = ("logs", "logs_database_url", "logs_table")

DATASET: InputKind[Dataset] = InputKind(
    "dataset", "A shipped dataset (synthetic, synthetic-ru) or a directory in bench's JSONL format or in BEIR format "
    "(corpus.jsonl, queries.jsonl, qrels/test.tsv).", "benchmarks.readers.datasets:load_input",
    draws_while_reading=True)
SAMPLES: InputKind[SampleSet] = InputKind(
    "samples", "A shipped labelled set (labelled-en, labelled-ru; labelled-{short,joined,extrinsic}-{en,ru}, "
    "labelled-seeds) or samples as JSONL or CSV, with RAGAS column names (user_input, retrieved_contexts, response, "
    "reference) or bench's (question, contexts, answer, reference_answer).",
    "benchmarks.readers.samples:load_input")
RATED_ITEMS: InputKind[ItemSet[RatedItem]] = InputKind(
    "judge-items", "A shipped dataset (its judge_pipeline.jsonl), a folder holding that file, or a JSONL file of items "
    "with id, question, context, answer (reference when the rating reads it).",
    "benchmarks.tiers.judge:load_items")
ANSWER_PAIRS: InputKind[ItemSet[AnswerPair]] = InputKind(
    "judge-pairs", "A shipped dataset (its judge_pairs.jsonl), a folder holding that file, or a JSONL file of pairs "
    "with id, question, context, answer_a, answer_b and optionally better (a, b or tie).",
    "benchmarks.readers.show_items:load_pairs_input")
SHOW_ITEMS: InputKind[ItemSet[ShowItem]] = InputKind(
    "show-items", "A shipped dataset (its judge_pipeline.jsonl), a folder holding that file, or a JSONL file of items "
    "with id, question, context, answer and ground_truth_show.", "benchmarks.readers.show_items:load_show_input")

# the options of the judged metrics, named as bench evaluate has always named them
JUDGED_FLAGS = {"relevancy_questions": ("--questions",), "similarity_threshold": ("--threshold",),
                "correctness_weights": ("--weights",), "factual_beta": ("--beta",)}
ANSWERING_FLAGS = {**JUDGED_FLAGS, "judge_backend": ("--judge",), "judge_mode": ("--mode",),
                   "extra_metrics": ("--metrics",)}
EVALUATE_FLAGS = {**JUDGED_FLAGS, "metrics": ("--metrics", "-m"), "judge_backend": ("--judge",)}

ANSWER_TEXT = (*names.TEXT, *names.REPEATS, "{extra_metrics}")


def per_judge(*names: str) -> tuple[str, ...]:
    """Each metric, and with several judge models each model's own (`name/model`)."""
    return (*names, *(f"{name}/{{judges}}" for name in names))


TIERS: dict[str, Tier] = {tier.name: tier for tier in (
    Tier("tier0", "1.0", "Tier 0 — embedding geometry", "avg_nn_distance", module="tier0", input=DATASET,
         summary="Tier 0: geometry of the embedding space (no labels needed).",
         metrics=("total_samples", "avg_nn_distance", "std_nn_distance", "density_score", "avg_spread", "max_spread",
                  "spread_std", "effective_dimensionality", "avg_pairwise_distance", "std_pairwise_distance",
                  "min_pairwise_distance", "max_pairwise_distance"),
         reads=(*EMBEDDING, *INDEX, "seed", "neighbours", "distance", "pairwise_limit", "embeddings_of"),
         flags={"neighbours": ("--k",), "pairwise_limit": ("--limit",), "embeddings_of": ("--on",)}),
    Tier("tier1", "1.0", "Tier 1 — retrieval", "ndcg@10", module="tier1", input=DATASET,
         summary="Tier 1: retrieval from pgvector against ground truth (hit rate, MRR, recall, precision, nDCG).",
         metrics=(*names.RETRIEVAL, "retrieval_consistency", "ann_recall@{top_k}"),
         reads=(*EMBEDDING, *INDEX, *STATS, "top_k", "relevance", "consistency_runs",
                "latency_queries", "latency_seconds",
                "limit")),
    Tier("tier2", "1.1", "Tier 2 — generation on a fixed context", "avg_faithfulness", module="tier2", input=DATASET,
         summary="Tier 2: generation on the dataset's fixed context, judged (faithfulness, relevance, correctness "
                 "1–5), with ROUGE, BLEU and repeatability.",
         metrics=("avg_faithfulness", "avg_answer_relevance", "avg_answer_correctness", *ANSWER_TEXT),
         reads=(*ANSWERING, "limit"), flags=ANSWERING_FLAGS, resumable=True),
    Tier("tier3", "1.1", "Tier 3 — end to end", "avg_e2e_score", module="tier3", input=DATASET,
         summary="Tier 3: end to end: retrieve from pgvector, answer from the retrieved chunks, judge (e2e score, "
                 "similarity to the reference, ROUGE, BLEU, repeatability), with each item's retrieval hit.",
         metrics=("avg_e2e_score", "avg_semantic_similarity", "avg_dot_similarity", "avg_euclidean_distance",
                  *ANSWER_TEXT, "retrieval_hit_rate@{e2e_top_k}"),
         reads=(*ANSWERING, *INDEX, "e2e_top_k", "limit"), flags={**ANSWERING_FLAGS, "e2e_top_k": ("--top-k",)},
         resumable=True),
    Tier("ux", "1.1", "UX — cache reuse and dialog continuity", "cache_hit_rate", module="ux", input=DATASET,
         summary="User experience from real-user logs: semantic cache hit rate (and its curve over thresholds), "
                 "context preservation and multi-turn consistency of sessions.",
         metrics=("cache_hit_rate", "context_preservation", "multi_turn_consistency"),
         reads=(*EMBEDDING, *LOGS, *STATS, "cache_threshold", "test_share", "similarity_baseline"),
         flags={"cache_threshold": ("--threshold",)}),
    Tier("real-users", "1.0", "Real users — retrieval on logged questions", "hit_rate@1", module="real_users",
         input=DATASET,
         summary="Real users' logged questions: retrieval against the page production showed, chunk utilisation "
                 "and topic coverage.",
         metrics=(*names.RETRIEVAL, "chunk_utilization"),
         reads=(*EMBEDDING, *INDEX, *LOGS, *STATS, "topics", "top_k")),
    Tier("evaluate", "1.2", "RAGAS-style evaluation", "", module="evaluate", checks="evaluate_checks", input=SAMPLES,
         summary="RAGAS-style metrics on single-turn samples, judged by one or several LLMs (or offline proxies). "
                 f"Judged metrics: {', '.join(judged_metrics.names())}.",
         metrics=per_judge("{metrics}"),
         reads=(*EMBEDDING, *LLM, *JUDGED, *STATS, "llm_models", "judge_backend", "local_model", "language", "metrics",
                "limit",
                "strict"),
         flags=EVALUATE_FLAGS, resumable=True, lists_lowest_items=True),
    Tier("judge", "1.1", "Judge — repeatability, errors and latency of the LLM judge", "consistency_score",
         module="judge", input=RATED_ITEMS,
         summary="The LLM judge itself: repeatability of its scores, errors, latency; with --pairwise, position bias.",
         metrics=per_judge("consistency_score", "mean_abs_difference", "error_rate", "avg_{judge_rating}"),
         reads=(*EMBEDDING, *LLM, *STATS, "llm_models", "judge_backend", "local_model", "judge_mode", "repeats",
                "delta", "judge_rating", "language", "limit", "similarity_baseline", "strict"),
         flags={"judge_rating": ("--metric", "-m"), "judge_backend": ("--judge",), "judge_mode": ("--mode",)},
         resumable=True, lists_lowest_items=True),
    Tier("judge-pairwise", "1.0", "Judge — position bias and accuracy on answer pairs", "position_consistency",
         module="judge_pairwise", input=ANSWER_PAIRS, command="judge --pairwise",
         summary="The LLM judge on answer pairs, both orders: position bias, ties and, with labels, accuracy.",
         metrics=per_judge("position_consistency", "first_position_rate", "tie_rate", "pairwise_accuracy",
                           "error_rate"),
         reads=(*LLM, *STATS, "llm_models", "judge_backend", "local_model", "judge_mode", "language", "limit"),
         flags={"judge_backend": ("--judge",), "judge_mode": ("--mode",)}, resumable=True,
         lists_lowest_items=True),
    Tier("judge-pipeline", "1.0", "Judge pipeline — production show/no-show judge", "accuracy",
         module="judge_pipeline", input=SHOW_ITEMS,
         summary="The production show/no-show judge as a classifier: accuracy, precision, recall, F1, confusion.",
         metrics=("accuracy", "precision", "recall", "f1_score", "unparseable_rate"),
         reads=(*LLM, *STATS, "language", "show_judge_via", "show_judge_template", "show_judge_model",
                "show_judge_http_url", "show_judge_http_request", "show_judge_http_response_path",
                "show_judge_http_api_key", "limit"),
         flags={"show_judge_via": ("--via",), "show_judge_template": ("--prompt-template",),
                "show_judge_model": ("--model",)}, resumable=True, lists_lowest_items=True),
)}
