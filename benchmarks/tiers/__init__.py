"""The one registry of tiers: every report command, declared here and run from its module.

A new tier is a module (with `run(ctx)` and, if it refuses some settings, `check(settings, origins)`)
plus one declaration here: a `Tier` subclass whose methods import that module when called (the registry
stays light: `bench --help` imports no tier), and its instance with its input, the settings it reads, the
metrics its report holds and the main one. `reads` lists every setting the run and the services it opens read;
the runner hands the tier only those (reading another fails at once), so a report shows, and a
resume must match, exactly the settings that made its numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchmarks.judge.judged_metrics import builtin
from benchmarks.metrics import names
from benchmarks.tiers.base import InputKind, RunContext, Tier, TierResult, sampled

if TYPE_CHECKING:  # the sets the loaders return and what the checks take; the registry imports none of their modules
    from benchmarks.config import Origins, ScopedSettings, Settings
    from benchmarks.dataset import Dataset
    from benchmarks.inputs import ItemSet, Sampling
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

# each kind's loader, imported when a run reads its input

class DatasetInput(InputKind["Dataset"]):
    def load(self, spec: str, settings: Settings, sample: Sampling | None) -> Dataset:
        from benchmarks.readers import datasets

        return datasets.load_input(spec, settings, sample=sample)  # drawn while reading: a dataset can be huge


class SamplesInput(InputKind["SampleSet"]):
    def load(self, spec: str, settings: Settings, sample: Sampling | None) -> SampleSet:
        from benchmarks.readers import samples

        return sampled(samples.load_input(spec, settings), sample)


class RatedItemsInput(InputKind["ItemSet[RatedItem]"]):
    def load(self, spec: str, settings: Settings, sample: Sampling | None) -> ItemSet[RatedItem]:
        from benchmarks.tiers import judge

        return sampled(judge.load_items(spec, settings), sample)


class AnswerPairsInput(InputKind["ItemSet[AnswerPair]"]):
    def load(self, spec: str, settings: Settings, sample: Sampling | None) -> ItemSet[AnswerPair]:
        from benchmarks.readers import show_items

        return sampled(show_items.load_pairs_input(spec, settings), sample)


class ShowItemsInput(InputKind["ItemSet[ShowItem]"]):
    def load(self, spec: str, settings: Settings, sample: Sampling | None) -> ItemSet[ShowItem]:
        from benchmarks.readers import show_items

        return sampled(show_items.load_show_input(spec, settings), sample)


DATASET = DatasetInput(
    "dataset", "A shipped dataset (synthetic, synthetic-ru) or a directory in bench's JSONL format or in BEIR format "
    "(corpus.jsonl, queries.jsonl, qrels/test.tsv).")
SAMPLES = SamplesInput(
    "samples", "A shipped labelled set (labelled-en, labelled-ru; labelled-{short,joined,extrinsic}-{en,ru}, "
    "labelled-seeds) or samples as JSONL or CSV, with RAGAS column names (user_input, retrieved_contexts, response, "
    "reference) or bench's (question, contexts, answer, reference_answer).")
RATED_ITEMS = RatedItemsInput(
    "judge-items", "A shipped dataset (its judge_pipeline.jsonl), a folder holding that file, or a JSONL file of items "
    "with id, question, context, answer (reference when the rating reads it).")
ANSWER_PAIRS = AnswerPairsInput(
    "judge-pairs", "A shipped dataset (its judge_pairs.jsonl), a folder holding that file, or a JSONL file of pairs "
    "with id, question, context, answer_a, answer_b and optionally better (a, b or tie).")
SHOW_ITEMS = ShowItemsInput(
    "show-items", "A shipped dataset (its judge_pipeline.jsonl), a folder holding that file, or a JSONL file of items "
    "with id, question, context, answer and ground_truth_show.")

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


# each tier's entry points, importing its module when called: only the tier that runs is imported

class GeometryTier(Tier["Dataset"]):
    def run(self, ctx: RunContext[Dataset]) -> TierResult:
        from benchmarks.tiers import tier0

        return tier0.run(ctx)


class RetrievalTier(Tier["Dataset"]):
    def run(self, ctx: RunContext[Dataset]) -> TierResult:
        from benchmarks.tiers import tier1

        return tier1.run(ctx)


class GenerationTier(Tier["Dataset"]):
    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        from benchmarks.tiers import tier2

        tier2.check(settings, origins)

    def run(self, ctx: RunContext[Dataset]) -> TierResult:
        from benchmarks.tiers import tier2

        return tier2.run(ctx)


class EndToEndTier(Tier["Dataset"]):
    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        from benchmarks.tiers import tier3

        tier3.check(settings, origins)

    def run(self, ctx: RunContext[Dataset]) -> TierResult:
        from benchmarks.tiers import tier3

        return tier3.run(ctx)


class UxTier(Tier["Dataset"]):
    def run(self, ctx: RunContext[Dataset]) -> TierResult:
        from benchmarks.tiers import ux

        return ux.run(ctx)


class RealUsersTier(Tier["Dataset"]):
    def run(self, ctx: RunContext[Dataset]) -> TierResult:
        from benchmarks.tiers import real_users

        return real_users.run(ctx)


class EvaluateTier(Tier["SampleSet"]):
    """Its checks live apart from its run (evaluate_checks leaves out the run's heavy imports), so a refused
    command costs well under a second."""

    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        from benchmarks.tiers import evaluate_checks

        evaluate_checks.check(settings, origins)

    def check_inputs(self, settings: ScopedSettings, inputs: SampleSet) -> list[str]:
        from benchmarks.tiers import evaluate_checks

        return evaluate_checks.check_inputs(settings, inputs)

    def identity(self, settings: Settings) -> dict[str, Any]:
        from benchmarks.tiers import evaluate

        return evaluate.identity(settings)

    def run(self, ctx: RunContext[SampleSet]) -> TierResult:
        from benchmarks.tiers import evaluate

        return evaluate.run(ctx)


class JudgeTier(Tier["ItemSet[RatedItem]"]):
    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        from benchmarks.tiers import judge

        judge.check(settings, origins)

    def check_inputs(self, settings: ScopedSettings, inputs: ItemSet[RatedItem]) -> list[str]:
        from benchmarks.tiers import judge

        return judge.check_inputs(settings, inputs)

    def run(self, ctx: RunContext[ItemSet[RatedItem]]) -> TierResult:
        from benchmarks.tiers import judge

        return judge.run(ctx)


class JudgePairwiseTier(Tier["ItemSet[AnswerPair]"]):
    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        from benchmarks.tiers import judge_pairwise

        judge_pairwise.check(settings, origins)

    def run(self, ctx: RunContext[ItemSet[AnswerPair]]) -> TierResult:
        from benchmarks.tiers import judge_pairwise

        return judge_pairwise.run(ctx)


class JudgePipelineTier(Tier["ItemSet[ShowItem]"]):
    def check(self, settings: ScopedSettings, origins: Origins) -> None:
        from benchmarks.tiers import judge_pipeline

        judge_pipeline.check(settings, origins)

    def identity(self, settings: Settings) -> dict[str, Any]:
        from benchmarks.tiers import judge_pipeline

        return judge_pipeline.identity(settings)

    def run(self, ctx: RunContext[ItemSet[ShowItem]]) -> TierResult:
        from benchmarks.tiers import judge_pipeline

        return judge_pipeline.run(ctx)


TIERS: dict[str, Tier[Any]] = {tier.name: tier for tier in (
    GeometryTier(
        "tier0", "1.0", "Tier 0 — embedding geometry", "avg_nn_distance", input=DATASET,
        summary="Tier 0: geometry of the embedding space (no labels needed).",
        metrics=("total_samples", "avg_nn_distance", "std_nn_distance", "density_score", "avg_spread", "max_spread",
                 "spread_std", "effective_dimensionality", "avg_pairwise_distance", "std_pairwise_distance",
                 "min_pairwise_distance", "max_pairwise_distance"),
        reads=(*EMBEDDING, *INDEX, "seed", "neighbours", "distance", "pairwise_limit", "embeddings_of"),
        flags={"neighbours": ("--k",), "pairwise_limit": ("--limit",), "embeddings_of": ("--on",)}),
    RetrievalTier(
        "tier1", "1.0", "Tier 1 — retrieval", "ndcg@10", input=DATASET,
        summary="Tier 1: retrieval from pgvector against ground truth (hit rate, MRR, recall, precision, nDCG).",
        metrics=(*names.RETRIEVAL, "retrieval_consistency", "ann_recall@{top_k}"),
        reads=(*EMBEDDING, *INDEX, *STATS, "top_k", "relevance", "consistency_runs",
               "latency_queries", "latency_seconds",
               "limit")),
    GenerationTier(
        "tier2", "1.1", "Tier 2 — generation on a fixed context", "avg_faithfulness", input=DATASET,
        summary="Tier 2: generation on the dataset's fixed context, judged (faithfulness, relevance, correctness "
                "1–5), with ROUGE, BLEU and repeatability.",
        metrics=("avg_faithfulness", "avg_answer_relevance", "avg_answer_correctness", *ANSWER_TEXT),
        reads=(*ANSWERING, "limit"), flags=ANSWERING_FLAGS, resumable=True),
    EndToEndTier(
        "tier3", "1.1", "Tier 3 — end to end", "avg_e2e_score", input=DATASET,
        summary="Tier 3: end to end: retrieve from pgvector, answer from the retrieved chunks, judge (e2e score, "
                "similarity to the reference, ROUGE, BLEU, repeatability), with each item's retrieval hit.",
        metrics=("avg_e2e_score", "avg_semantic_similarity", "avg_dot_similarity", "avg_euclidean_distance",
                 *ANSWER_TEXT, "retrieval_hit_rate@{e2e_top_k}"),
        reads=(*ANSWERING, *INDEX, "e2e_top_k", "limit"), flags={**ANSWERING_FLAGS, "e2e_top_k": ("--top-k",)},
        resumable=True),
    UxTier(
        "ux", "1.1", "UX — cache reuse and dialog continuity", "cache_hit_rate", input=DATASET,
        summary="User experience from real-user logs: semantic cache hit rate (and its curve over thresholds), "
                "context preservation and multi-turn consistency of sessions.",
        metrics=("cache_hit_rate", "context_preservation", "multi_turn_consistency"),
        reads=(*EMBEDDING, *LOGS, *STATS, "cache_threshold", "test_share", "similarity_baseline"),
        flags={"cache_threshold": ("--threshold",)}),
    RealUsersTier(
        "real-users", "1.0", "Real users — retrieval on logged questions", "hit_rate@1",
        input=DATASET,
        summary="Real users' logged questions: retrieval against the page production showed, chunk utilisation "
                "and topic coverage.",
        metrics=(*names.RETRIEVAL, "chunk_utilization"),
        reads=(*EMBEDDING, *INDEX, *LOGS, *STATS, "topics", "top_k")),
    EvaluateTier(
        "evaluate", "1.2", "RAGAS-style evaluation", "", input=SAMPLES,
        summary="RAGAS-style metrics on single-turn samples, judged by one or several LLMs (or offline proxies). "
                f"Judged metrics: {', '.join(builtin.names())}.",
        metrics=per_judge("{metrics}"),
        reads=(*EMBEDDING, *LLM, *JUDGED, *STATS, "llm_models", "judge_backend", "local_model", "language", "metrics",
               "limit",
               "strict"),
        flags=EVALUATE_FLAGS, resumable=True, lists_lowest_items=True),
    JudgeTier(
        "judge", "1.1", "Judge — repeatability, errors and latency of the LLM judge", "consistency_score",
        input=RATED_ITEMS,
        summary="The LLM judge itself: repeatability of its scores, errors, latency; with --pairwise, position bias.",
        metrics=per_judge("consistency_score", "mean_abs_difference", "error_rate", "avg_{judge_rating}"),
        reads=(*EMBEDDING, *LLM, *STATS, "llm_models", "judge_backend", "local_model", "judge_mode", "repeats",
               "delta", "judge_rating", "language", "limit", "similarity_baseline", "strict"),
        flags={"judge_rating": ("--metric", "-m"), "judge_backend": ("--judge",), "judge_mode": ("--mode",)},
        resumable=True, lists_lowest_items=True),
    JudgePairwiseTier(
        "judge-pairwise", "1.0", "Judge — position bias and accuracy on answer pairs", "position_consistency",
        input=ANSWER_PAIRS, command="judge --pairwise",
        summary="The LLM judge on answer pairs, both orders: position bias, ties and, with labels, accuracy.",
        metrics=per_judge("position_consistency", "first_position_rate", "tie_rate", "pairwise_accuracy",
                          "error_rate"),
        reads=(*LLM, *STATS, "llm_models", "judge_backend", "local_model", "judge_mode", "language", "limit"),
        flags={"judge_backend": ("--judge",), "judge_mode": ("--mode",)}, resumable=True,
        lists_lowest_items=True),
    JudgePipelineTier(
        "judge-pipeline", "1.0", "Judge pipeline — production show/no-show judge", "accuracy",
        input=SHOW_ITEMS,
        summary="The production show/no-show judge as a classifier: accuracy, precision, recall, F1, confusion.",
        metrics=("accuracy", "precision", "recall", "f1_score", "unparseable_rate"),
        reads=(*LLM, *STATS, "language", "show_judge_via", "show_judge_template", "show_judge_model",
               "show_judge_http_url", "show_judge_http_request", "show_judge_http_response_path",
               "show_judge_http_api_key", "limit"),
        flags={"show_judge_via": ("--via",), "show_judge_template": ("--prompt-template",),
               "show_judge_model": ("--model",)}, resumable=True, lists_lowest_items=True),
)}
