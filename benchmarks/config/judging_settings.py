"""The judge and the judged metrics: backend, mode, language, which metrics, and each metric's options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from benchmarks.config.coercion import table
from benchmarks.config.declare import ABOVE_0, AT_LEAST_1, CALIBRATED, Range, Rule, setting
from benchmarks.metrics.weights import WEIGHT_PRESETS, AnswerCorrectnessWeights
from benchmarks.rubric_table import parse_rubrics

PromptLanguage = Literal["en", "ru"]  # the languages bench's judge prompts are written in
PROMPT_LANGUAGES: tuple[PromptLanguage, ...] = get_args(PromptLanguage)


def _weights(text: str) -> Any:
    """answer_correctness weights: a preset's name, or 'F,S'; None when the text is neither."""
    if text in WEIGHT_PRESETS:
        return text
    try:
        factual, semantic = (float(part) for part in text.split(","))
        return AnswerCorrectnessWeights(factual=factual, semantic=semantic)
    except ValueError:
        return None


def correctness_weights(settings: Any) -> Any:
    """The answer_correctness weights the setting names (checked when the settings were loaded)."""
    return _weights(settings.correctness_weights)


def check_rubrics(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """The `rubrics` table checked: names, scales, fields, criteria in the prompt languages."""
    return parse_rubrics(raw, where, languages=PROMPT_LANGUAGES)


@dataclass(frozen=True)
class JudgingSettings:
    judge_backend: Literal["llm", "local", "offline"] = setting(
        "llm", "llm: judge_model at llm_base_url grades answers; local: bench starts llama.cpp's server on "
        "local_model for the run and stops it after (pip install 'tierbench[local]'); offline: embedding and "
        "token-overlap proxies, no LLM."
    )
    local_model: str = setting(
        "qwen2.5-coder-1.5b", "--judge local: the weights, a path to a .gguf file or a known model "
        "(qwen2.5-coder-1.5b, qwen2.5-coder-0.5b) fetched once from the Hugging Face Hub into data_dir/models and "
        "checked by sha256."
    )
    judge_mode: Literal["direct", "reasoned"] = setting(
        "direct", "direct: the judge answers with the score alone; reasoned: it reasons first, then gives the "
        "score in a strict short format."
    )
    judge_verdicts: Literal["yes-no", "statements"] = setting(
        "yes-no", "How the LLM judge gives faithfulness and context_recall verdicts. yes-no: one short question per "
        "claim of the answer (bench's claims) after the instructions and the context, read as the probability of Yes "
        "where the server returns token log-probabilities (asked once a run), else as the Yes or No it answers; "
        "statements: RAGAS's form, the judge lists the statements, then a JSON verdict list (for large models).",
    )
    language: PromptLanguage = setting(
        "en", "Prompt and explanation language of bench evaluate, judge and judge-pipeline; left unset, their "
        "input's own, told by script (en when it tells none). Tiers 2 and 3 take the dataset's.",
        shown_default="auto (told from the samples or items; en when they tell none)"
    )
    metrics: tuple[str, ...] | None = setting(
        None, "bench evaluate: the metrics to compute, comma-separated: the judged metrics listed under the "
        "command's description, or a rubric declared in bench.toml ([rubrics.<name>]). bench.toml: a list."
    )
    extra_metrics: tuple[str, ...] | None = setting(
        None, "Tiers 2 and 3: metrics of bench evaluate graded as well (e.g. faithfulness in RAGAS form, or a "
        "rubric of bench.toml); bench.toml: a list; environment and flag: comma-separated."
    )
    rubrics: dict[str, dict[str, Any]] | None = setting(
        None,
        "Your own judged metrics for --metrics (bench evaluate, tiers 2 and 3): a criterion the LLM judge scores "
        "per sample. bench.toml, at the end of the file: [rubrics.politeness] then criteria = { en = \"Is the "
        "response polite?\", ru = \"Вежлив ли ответ?\" }, scale = \"binary\" (0 or 1) or \"1-5\", and needs = "
        "[\"user_input\", \"response\"] (the sample fields shown to the judge); environment: the same table as JSON.",
        parse=lambda raw, where: check_rubrics(table(raw, f"{where}: expected a table of rubrics"), where),
    )
    judge_rating: Literal["faithfulness", "answer_relevance", "answer_correctness", "e2e_score"] = setting(
        "faithfulness", "bench judge: the seed rating the judge gives (faithfulness, answer_relevance, "
        "answer_correctness on 1–5, e2e_score; the last two read a reference)."
    )
    delta: float = setting(
        0.5, "bench judge: two scores of one item agree when they differ by at most this.",
        Range(0, 4, why="the widest judge scale, 1–5"),
    )
    relevancy_questions: int = setting(
        3, "response_relevancy: questions generated per response.", AT_LEAST_1
    )
    similarity_threshold: float | None = setting(
        None, "semantic_similarity: report 1.0 when the calibrated similarity (0 = as alike as unrelated texts, "
        "1 = identical) is at least this, else 0.0.", CALIBRATED
    )
    correctness_weights: str = setting(
        "default", "answer_correctness: default (0.75/0.25), equal, factual-focused, semantic-focused, or 'F,S' "
        "custom weights of the factual and the semantic part.",
        Rule(lambda text: _weights(text) is not None,
             f"expected one of {', '.join(WEIGHT_PRESETS)} or 'F,S' (two weights)"),
    )
    factual_mode: Literal["f1", "precision", "recall"] = setting("f1", "factual_correctness: the claim-level score.")
    factual_beta: float = setting(1.0, "factual_correctness: beta of the F-beta score.", ABOVE_0)
    claim_counting: Literal["sides", "ragas"] = setting(
        "sides", "factual_correctness and answer_correctness: sides (recall = reference claims the response supports "
        "/ reference claims) or ragas (RAGAS's numbers: recall = tp / (tp + fn) over the response's supported claims, "
        "0.0 instead of undetermined, both statement lists empty = a perfect match, rounded to 2 decimals)."
    )
    noise_mode: Literal["relevant", "irrelevant"] = setting(
        "relevant", "noise_sensitivity: count wrong statements traceable to relevant or to irrelevant contexts."
    )
    precision_against: Literal["auto", "reference", "response"] = setting(
        "auto", "context_precision: judge each context against the reference, the response, or auto (the "
        "reference when the sample has one)."
    )
