"""Run a metric's judge calls for one sample: render, call the LLM service, parse, repair once, score.

Every outcome carries a status (ok, parse_error, api_error, undetermined), an explanation in the
prompt's language (the judge's own reasons), the number of calls and the duration, and the raw
completions, so a changed score function can re-score items.jsonl without new calls.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from benchmarks.errors import BenchError
from benchmarks.judge import shapes
from benchmarks.judge.parsing import parse_output
from benchmarks.judge.prompts import (
    CLAIMS,
    CONTEXT_RATING,
    CONTEXT_USEFULNESS,
    ENTITIES,
    QUESTION_GENERATION,
    REFERENCE_ATTRIBUTION,
    STATEMENT_CLASSIFICATION,
    STATEMENT_VERDICTS,
    STATEMENTS,
    JudgeCall,
    Language,
    render,
    statements_block,
)
from benchmarks.metrics import judged
from benchmarks.samples import Sample
from benchmarks.services.llm import LLMService

Status = Literal["ok", "parse_error", "api_error", "undetermined"]
Embed = Callable[[Sequence[str]], np.ndarray]

CONTEXT_SEPARATOR = "\n\n"
CONTEXT_RELEVANCE_TEMPERATURE = 0.1  # NVIDIA's setting for its context-relevance judges
REPAIR = {
    "en": "Your answer could not be used: {error}. Reply again with only the JSON object, in the format "
    "the instructions give.",
    "ru": "Ваш ответ не удалось разобрать: {error}. Ответьте ещё раз — только JSON-объектом в формате, "
    "который задан в инструкции.",
}

# What each metric reads from a sample; a sample without one of these is reported per field.
NEEDS: Mapping[str, tuple[str, ...]] = {
    "faithfulness": ("user_input", "response", "retrieved_contexts"),
    "context_precision": ("user_input", "retrieved_contexts"),
    "context_recall": ("user_input", "retrieved_contexts", "reference"),
    "context_entity_recall": ("retrieved_contexts", "reference"),
    "noise_sensitivity": ("user_input", "response", "reference", "retrieved_contexts"),
    "response_relevancy": ("user_input", "response"),
    "semantic_similarity": ("response", "reference"),
    "factual_correctness": ("response", "reference"),
    "answer_correctness": ("user_input", "response", "reference"),
    "context_relevance": ("user_input", "retrieved_contexts"),
}
LOWER_IS_BETTER = frozenset({"noise_sensitivity"})


def require_known(metrics: Sequence[str]) -> None:
    """`--metrics` of evaluate and tiers 2/3: one message naming the unknown metrics and the known ones."""
    unknown = [m for m in metrics if m not in NEEDS]
    if unknown or not metrics:
        raise BenchError(f"--metrics: unknown metric(s) {', '.join(unknown) or '(none given)'}; "
                         f"known: {', '.join(NEEDS)}")


@dataclass(frozen=True)
class JudgeOptions:
    questions: int = 3  # response_relevancy: questions generated per response
    threshold: float | None = None  # semantic_similarity: cosine >= threshold -> 1.0, else 0.0
    weights: str | judged.AnswerCorrectnessWeights = "default"
    factual_mode: judged.FactualMode = "f1"
    beta: float = 1.0
    noise_mode: judged.NoiseMode = "relevant"
    precision_against: Literal["auto", "reference", "response"] = "auto"  # context_precision's yardstick


@dataclass(frozen=True)
class JudgeOutcome:
    metric: str
    model: str
    value: float | None
    status: Status
    explanation: str
    calls: int
    duration_ms: float
    raw: tuple[dict[str, Any], ...] = ()


class HasStatus(Protocol):
    """Any judge outcome: RAGAS-form metric, seed rating or pairwise verdict."""

    @property
    def status(self) -> Status: ...


def status_counts(outcomes: Iterable[HasStatus]) -> dict[str, int]:
    """Outcomes per status, every status listed (zeros included), so two reports line up."""
    counts = dict.fromkeys(("ok", "undetermined", "parse_error", "api_error"), 0)
    for outcome in outcomes:
        counts[outcome.status] += 1
    return counts


class JudgeFailed(Exception):
    """A call that ended without a usable answer: the sample's status and why."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class Trace:
    calls: int = 0
    raw: list[dict[str, Any]] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)  # per call, as the LLM service measured it


class LLMJudge:
    def __init__(self, service: LLMService, language: Language, embed: Embed | None,
                 options: JudgeOptions = JudgeOptions()):
        self.service = service
        self.language = language
        self.embed = embed
        self.options = options
        self._metrics: dict[str, Callable[[Sample, str, Trace], Awaitable[tuple[judged.Score, str]]]] = {
            "faithfulness": self._faithfulness,
            "context_precision": self._context_precision,
            "context_recall": self._context_recall,
            "context_entity_recall": self._context_entity_recall,
            "noise_sensitivity": self._noise_sensitivity,
            "response_relevancy": self._response_relevancy,
            "semantic_similarity": self._semantic_similarity,
            "factual_correctness": self._factual_correctness,
            "answer_correctness": self._answer_correctness,
            "context_relevance": self._context_relevance,
        }

    async def score(self, metric: str, sample: Sample, model: str) -> JudgeOutcome:
        started = time.perf_counter()
        trace = Trace()
        missing = sample.missing(NEEDS[metric])
        if missing:
            return self._outcome(metric, model, None, "undetermined", f"missing field(s): {', '.join(missing)}",
                                 trace, started)
        try:
            score, explanation = await self._metrics[metric](sample, model, trace)
        except JudgeFailed as failure:
            return self._outcome(metric, model, None, failure.status, str(failure), trace, started)
        reason = "; ".join(p for p in (score.reason, explanation) if p) if score.status == "ok" else score.reason
        return self._outcome(metric, model, score.value, score.status, reason, trace, started)

    @staticmethod
    def _outcome(metric: str, model: str, value: float | None, status: Status, explanation: str, trace: Trace,
                 started: float) -> JudgeOutcome:
        return JudgeOutcome(metric, model, value, status, explanation, trace.calls,
                            round((time.perf_counter() - started) * 1000, 3), tuple(trace.raw))

    # --- one call, with one repair attempt --------------------------------------------------------

    async def _ask(self, call: JudgeCall, variables: Mapping[str, str], model: str, trace: Trace,
                   shape: type[shapes.Shape] | None = None, **options: Any) -> Any:
        prompt = render(call.name, self.language, variables)
        return await ask_json(self.service, prompt, shape or call.shape, call=call.name, language=self.language,
                              model=model, trace=trace, **options)

    async def _statements(self, question: str, text: str, model: str, trace: Trace) -> list[str]:
        answer = await self._ask(STATEMENTS, {"question": question, "text": text}, model, trace)
        return list(answer.statements)

    async def _verdicts(self, context: str, statements: Sequence[str], model: str, trace: Trace) -> list[Any]:
        """One verdict per statement; no call at all when there is nothing to judge."""
        if not statements:
            return []
        answer = await self._ask(STATEMENT_VERDICTS, {"context": context, "statements": statements_block(statements)},
                                 model, trace, shapes.StatementVerdicts.expecting(len(statements)))
        return list(answer.verdicts)

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        if self.embed is None:
            raise JudgeFailed("undetermined", "this metric needs an embedding model")
        return self.embed(list(texts))

    # --- the metrics ------------------------------------------------------------------------------

    async def _faithfulness(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        statements = await self._statements(s.user_input, s.response, model, trace)
        verdicts = await self._verdicts(_joined(s.retrieved_contexts), statements, model, trace)
        return judged.faithfulness([v.verdict for v in verdicts]), _reasons(verdicts, "verdict")

    async def _context_precision(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        """Reference-based or response-based; auto takes the reference when the sample has one."""
        side = self.options.precision_against
        if side == "auto":
            side = "reference" if s.reference is not None else "response"
        against = getattr(s, side)
        if against is None:
            raise JudgeFailed("undetermined", f"missing field(s): {side}")
        answers = await asyncio.gather(*(
            self._ask(CONTEXT_USEFULNESS, {"question": s.user_input, "context": c, "reference": against}, model,
                      trace)
            for c in s.retrieved_contexts
        ))
        explanation = " | ".join(f"#{i + 1}: {a.verdict} ({a.reason})" for i, a in enumerate(answers))
        return judged.context_precision([a.verdict for a in answers]), explanation

    async def _context_recall(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        answer = await self._ask(REFERENCE_ATTRIBUTION, {"question": s.user_input,
                                                         "context": _joined(s.retrieved_contexts),
                                                         "reference": s.reference}, model, trace)
        classified = list(answer.classifications)
        return judged.context_recall([c.attributed for c in classified]), _reasons(classified, "attributed")

    async def _context_entity_recall(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        reference, contexts = await asyncio.gather(
            self._ask(ENTITIES, {"text": s.reference}, model, trace),
            self._ask(ENTITIES, {"text": _joined(s.retrieved_contexts)}, model, trace),
        )
        found = {judged.normalise_entity(e) for e in contexts.entities}
        missed = [e for e in reference.entities if judged.normalise_entity(e) not in found]
        explanation = f"missing from the contexts: {', '.join(missed)}" if missed else ""
        return judged.context_entity_recall(reference.entities, contexts.entities), explanation

    async def _noise_sensitivity(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        response, reference = await asyncio.gather(
            self._statements(s.user_input, s.response, model, trace),
            self._statements(s.user_input, s.reference, model, trace),
        )
        contexts = list(s.retrieved_contexts)
        in_reference = await self._verdicts(s.reference, response, model, trace)
        per_context = await asyncio.gather(*(
            asyncio.gather(self._verdicts(c, reference, model, trace), self._verdicts(c, response, model, trace))
            for c in contexts
        ))
        verdicts = judged.NoiseSensitivityVerdicts(
            response_in_reference=tuple(v.verdict for v in in_reference),
            reference_in_context=tuple(tuple(v.verdict for v in ref) for ref, _ in per_context),
            response_in_context=tuple(tuple(v.verdict for v in resp) for _, resp in per_context),
        )
        return judged.noise_sensitivity(verdicts, self.options.noise_mode), _reasons(in_reference, "verdict")

    async def _response_relevancy(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        # distinct seeds make the n questions n distinct requests (and cache entries), as RAGAS's n samples
        answers = await asyncio.gather(*(
            self._ask(QUESTION_GENERATION, {"response": s.response}, model, trace, seed=i)
            for i in range(self.options.questions)
        ))
        vectors = self._vectors([s.user_input, *(a.question for a in answers)])
        generated = [judged.GeneratedQuestion(embedding=v, noncommittal=bool(a.noncommittal))
                     for v, a in zip(vectors[1:], answers, strict=True)]
        explanation = " | ".join(a.question for a in answers)
        return judged.response_relevancy(vectors[0], generated), explanation

    async def _semantic_similarity(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        response, reference = self._vectors([s.response, s.reference])
        return judged.semantic_similarity(response, reference, threshold=self.options.threshold), ""

    async def _factual_correctness(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        mode = self.options.factual_mode
        response_claims, reference_claims = await asyncio.gather(
            self._claims(s.response, model, trace) if mode != "recall" else _none(),
            self._claims(s.reference, model, trace) if mode != "precision" else _none(),
        )
        precision_side, recall_side = await asyncio.gather(
            self._verdicts(s.reference, response_claims, model, trace) if response_claims is not None else _none(),
            self._verdicts(s.response, reference_claims, model, trace) if reference_claims is not None else _none(),
        )
        verdicts = judged.ClaimVerdicts(
            response_supported=None if precision_side is None else tuple(v.verdict for v in precision_side),
            reference_supported=None if recall_side is None else tuple(v.verdict for v in recall_side),
        )
        score = judged.factual_correctness(verdicts, mode=mode, beta=self.options.beta)
        return score, _reasons([*(precision_side or []), *(recall_side or [])], "verdict")

    async def _claims(self, text: str, model: str, trace: Trace) -> list[str]:
        return list((await self._ask(CLAIMS, {"text": text}, model, trace)).claims)

    async def _answer_correctness(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        response, reference = await asyncio.gather(
            self._statements(s.user_input, s.response, model, trace),
            self._statements(s.user_input, s.reference, model, trace),
        )
        if response or reference:
            answer = await self._ask(
                STATEMENT_CLASSIFICATION,
                {"question": s.user_input, "response_statements": statements_block(response),
                 "reference_statements": statements_block(reference)},
                model, trace, shapes.StatementClassification.expecting(len(response), len(reference)),
            )
            counts = judged.ClaimCounts(tp=len(answer.TP), fp=len(answer.FP), fn=len(answer.FN))
        else:
            counts = judged.ClaimCounts(tp=0, fp=0, fn=0)
        factual = judged.factual_correctness(counts, mode="f1")
        response_vector, reference_vector = self._vectors([s.response, s.reference])
        similarity = judged.semantic_similarity(response_vector, reference_vector)
        explanation = f"TP {counts.tp}, FP {counts.fp}, FN {counts.fn}; similarity {similarity.value}"
        return judged.answer_correctness(factual, similarity, weights=self.options.weights), explanation

    async def _context_relevance(self, s: Sample, model: str, trace: Trace) -> tuple[judged.Score, str]:
        answers = await asyncio.gather(*(
            self._ask(CONTEXT_RATING, {"question": s.user_input, "context": c}, model, trace,
                      temperature=CONTEXT_RELEVANCE_TEMPERATURE)
            for c in s.retrieved_contexts
        ))
        explanation = " | ".join(f"#{i + 1}: {a.rating} ({a.reason})" for i, a in enumerate(answers))
        return judged.context_relevance([a.rating for a in answers]), explanation


async def ask_json(service: LLMService, prompt: str, shape: type[shapes.Shape], *, call: str,
                   language: Language, model: str, trace: Trace, repeat: int = 0, **options: Any) -> Any:
    """One judge request whose answer must validate against `shape`, with one repair attempt that
    quotes the parse error back to the model; raises `JudgeFailed` with the status otherwise."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    for attempt in ("first", "repair"):
        completion = await service.complete(messages, role="judge", model=model, repeat=repeat, **options)
        trace.calls += 1
        trace.raw.append({"call": call, "attempt": attempt, "status": completion.status,
                          "text": completion.text, "cached": completion.cached})
        trace.latency_ms.append(completion.latency_ms)
        if completion.status != "ok":
            raise JudgeFailed("api_error", f"{call}: {completion.error or completion.status}")
        parsed = parse_output(completion.text, shape)
        if parsed.status == "ok":
            return parsed.value
        messages = [*messages, {"role": "assistant", "content": completion.text or ""},
                    {"role": "user", "content": REPAIR[language].format(error=parsed.error)}]
    raise JudgeFailed("parse_error", f"{call}: {parsed.error} (after one repair attempt)")


async def _none() -> None:
    return None


def _joined(contexts: Sequence[str] | None) -> str:
    return CONTEXT_SEPARATOR.join(contexts or ())


def _reasons(verdicts: Sequence[Any], flag: str) -> str:
    """The judge's reasons for the statements it did not accept: what a reader needs to see first."""
    rejected = [f"«{v.statement}»: {v.reason}" for v in verdicts if not getattr(v, flag, 1)]
    return " | ".join(rejected)
