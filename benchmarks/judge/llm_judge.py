"""Run a metric's judge calls for one sample: render, call the LLM service, parse, repair once, score.

Every outcome (`benchmarks.outcome.Outcome`) carries a status (ok, parse_error, truncated, api_error,
undetermined), an explanation in the prompt's language (the judge's own reasons), the number of calls
and the duration, and the raw completions, so a changed score function can re-score items.jsonl
without new calls.

Which metric reads which fields and is scored by which coroutine is declared in
`benchmarks.judge.catalog`; the coroutines of the built-in metrics are the methods below named after
them, each called as `scorer(judge, sample, model, trace)`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from benchmarks.config import Settings, correctness_weights
from benchmarks.judge import shapes
from benchmarks.judge.offline import split_sentences
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
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome, Status
from benchmarks.samples import Sample
from benchmarks.services.llm import ResponseSchema

if TYPE_CHECKING:  # the judge only calls the service it is handed
    from benchmarks.services.llm import LLMService

Embed = Callable[[Sequence[str]], np.ndarray]
# How a metric is scored: (judge, sample, judge model, trace) -> (score, the judge's reasons)
Scorer = Callable[["LLMJudge", Sample, str, "Trace"], Awaitable[tuple[Outcome, str]]]


class Scored(Protocol):
    """What the judge needs of a metric's declaration (`catalog.JudgedMetric`): the fields and the scorer."""

    @property
    def needs(self) -> tuple[str, ...]: ...

    @property
    def score(self) -> Scorer: ...

CONTEXT_SEPARATOR = "\n\n"
STATEMENTS_PER_SENTENCE = 4
SENTENCE_SLACK = 2  # a judge may split sentences where bench's splitter does not
CONTEXT_RELEVANCE_TEMPERATURE = 0.1  # NVIDIA's setting for its context-relevance judges
# The repair restates the form the answer must take; what the parser tried is no help to a model.
REPAIR = {
    "en": "Your answer could not be used: {error}. Reply again with only one JSON object of this form: {form}",
    "ru": "Ваш ответ не удалось использовать: {error}. Ответьте ещё раз только одним JSON-объектом такого вида: "
          "{form}",
}


@dataclass(frozen=True)
class JudgeOptions:
    questions: int = 3  # response_relevancy: questions generated per response
    threshold: float | None = None  # semantic_similarity: calibrated similarity >= threshold -> 1.0, else 0.0
    weights: str | judged.AnswerCorrectnessWeights = "default"
    factual_mode: judged.FactualMode = "f1"
    beta: float = 1.0
    claim_counting: judged.ClaimCounting = "sides"  # factual and answer correctness: bench's counts or RAGAS's
    noise_mode: judged.NoiseMode = "relevant"
    precision_against: Literal["auto", "reference", "response"] = "auto"  # context_precision's yardstick

    @classmethod
    def from_settings(cls, settings: Settings) -> JudgeOptions:
        """The options the settings name: one constructor for `bench evaluate` and tiers 2 and 3's --metrics."""
        return cls(questions=settings.relevancy_questions, threshold=settings.similarity_threshold,
                   weights=correctness_weights(settings), factual_mode=settings.factual_mode,
                   beta=settings.factual_beta, claim_counting=settings.claim_counting, noise_mode=settings.noise_mode,
                   precision_against=settings.precision_against)


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
    """Scores the metrics it is given (`catalog.metrics(settings.rubrics)`: their declarations name this
    class's scorers, so the catalog imports this module and not the other way round)."""

    def __init__(self, service: LLMService, language: Language, embed: Embed | None,
                 options: JudgeOptions = JudgeOptions(), *, metrics: Mapping[str, Scored],
                 scale: SimilarityScale | None = None):
        self.service = service
        self.language = language
        if embed is not None and scale is None:
            raise ValueError("an embedder comes with its similarity scale (services.similarity_calibration)")
        self.embed = embed
        self.scale = scale
        self.options = options
        self.metrics = metrics

    async def score(self, metric: str, sample: Sample, model: str) -> Outcome:
        """The metric's outcome for one sample, named, with the model, calls, duration and raw completions.
        No per-call latencies: the judge latency tiers 2 and 3 report is that of the seed ratings' calls."""
        started = time.perf_counter()
        trace = Trace()
        declared = self.metrics[metric]
        missing = sample.missing(declared.needs)
        if missing:
            found = Outcome.undetermined(f"missing field(s): {', '.join(missing)}")
        else:
            try:
                score, explanation = await declared.score(self, sample, model, trace)
            except JudgeFailed as failure:
                found = Outcome.failed(failure.status, str(failure))
            else:
                reasons = "; ".join(p for p in (score.explanation, explanation) if p)
                found = replace(score, explanation=reasons) if score.ok else score
        return replace(found, name=metric, model=model, calls=trace.calls,
                       duration_ms=round((time.perf_counter() - started) * 1000, 3), raw=tuple(trace.raw))

    # --- one call, with one repair attempt --------------------------------------------------------

    async def ask(self, call: JudgeCall, variables: Mapping[str, str], model: str, trace: Trace,
                  shape: type[shapes.Shape] | None = None, **options: Any) -> Any:
        """One call of `call`'s template in the judge's language, its answer validated against `shape`
        (default: the call's own), repaired once."""
        prompt = render(call, self.language, variables)
        return await ask_json(self.service, prompt, shape or call.shape, call=call.name, language=self.language,
                              model=model, trace=trace, **{"max_tokens": call.token_budget(variables), **options})

    async def _statements(self, question: str, text: str, model: str, trace: Trace) -> list[str]:
        answer = await self.ask(STATEMENTS, {"question": question, "text": text}, model, trace,
                                shapes.Statements.at_most(statement_bound(text)))
        return list(answer.statements)

    async def _verdicts(self, context: str, statements: Sequence[str], model: str, trace: Trace) -> list[Any]:
        """One verdict per statement; no call at all when there is nothing to judge."""
        if not statements:
            return []
        answer = await self.ask(STATEMENT_VERDICTS, {"context": context, "statements": statements_block(statements)},
                                 model, trace, shapes.StatementVerdicts.expecting(len(statements)))
        return list(answer.verdicts)

    def _vectors(self, texts: Sequence[str]) -> tuple[np.ndarray, SimilarityScale]:
        """The texts' embeddings, with the scale their similarities are read on."""
        if self.embed is None or self.scale is None:  # both or neither (__init__)
            raise JudgeFailed("undetermined", "this metric needs an embedding model")
        return self.embed(list(texts)), self.scale

    # --- the built-in metrics, each referenced by its declaration in `catalog` -------------------

    async def faithfulness(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        statements = await self._statements(s.user_input, s.response, model, trace)
        verdicts = await self._verdicts(_joined(s.retrieved_contexts), statements, model, trace)
        return judged.faithfulness([v.verdict for v in verdicts]), _reasons(verdicts, "verdict")

    async def context_precision(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        """Reference-based or response-based; auto takes the reference when the sample has one."""
        side = self.options.precision_against
        if side == "auto":
            side = "reference" if s.reference is not None else "response"
        against = getattr(s, side)
        if against is None:
            raise JudgeFailed("undetermined", f"missing field(s): {side}")
        answers = await asyncio.gather(*(
            self.ask(CONTEXT_USEFULNESS, {"question": s.user_input, "context": c, "reference": against}, model,
                      trace)
            for c in s.retrieved_contexts
        ))
        explanation = " | ".join(f"#{i + 1}: {a.verdict} ({a.reason})" for i, a in enumerate(answers))
        return judged.context_precision([a.verdict for a in answers]), explanation

    async def context_recall(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        answer = await self.ask(REFERENCE_ATTRIBUTION, {"question": s.user_input,
                                                         "context": _joined(s.retrieved_contexts),
                                                         "reference": s.reference}, model, trace,
                                shapes.Attributions.at_most(len(split_sentences(s.reference or "")) + SENTENCE_SLACK))
        classified = list(answer.classifications)
        return judged.context_recall([c.attributed for c in classified]), _reasons(classified, "attributed")

    async def context_entity_recall(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        reference, contexts = await asyncio.gather(
            self.ask(ENTITIES, {"text": s.reference}, model, trace),
            self.ask(ENTITIES, {"text": _joined(s.retrieved_contexts)}, model, trace),
        )
        found = {judged.normalise_entity(e) for e in contexts.entities}
        missed = [e for e in reference.entities if judged.normalise_entity(e) not in found]
        explanation = f"missing from the contexts: {', '.join(missed)}" if missed else ""
        return judged.context_entity_recall(reference.entities, contexts.entities), explanation

    async def noise_sensitivity(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
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

    async def response_relevancy(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        # distinct seeds make the n questions n distinct requests (and cache entries), as RAGAS's n samples
        answers = await asyncio.gather(*(
            self.ask(QUESTION_GENERATION, {"response": s.response}, model, trace, seed=i)
            for i in range(self.options.questions)
        ))
        vectors, scale = self._vectors([s.user_input, *(a.question for a in answers)])
        generated = [judged.GeneratedQuestion(embedding=v, noncommittal=bool(a.noncommittal))
                     for v, a in zip(vectors[1:], answers, strict=True)]
        explanation = " | ".join(a.question for a in answers)
        return judged.response_relevancy(vectors[0], generated, scale=scale), explanation

    async def semantic_similarity(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        (response, reference), scale = self._vectors([s.response, s.reference])
        return judged.semantic_similarity(response, reference, scale=scale, threshold=self.options.threshold), ""

    async def factual_correctness(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        mode, ragas = self.options.factual_mode, self.options.claim_counting == "ragas"
        response_claims, reference_claims = await asyncio.gather(  # RAGAS counts the response's claims in every mode
            self._claims(s.response, model, trace) if mode != "recall" or ragas else _none(),
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
        score = judged.factual_correctness(verdicts, mode=mode, beta=self.options.beta,
                                           counting=self.options.claim_counting)
        return score, _reasons([*(precision_side or []), *(recall_side or [])], "verdict")

    async def _claims(self, text: str, model: str, trace: Trace) -> list[str]:
        return list((await self.ask(CLAIMS, {"text": text}, model, trace,
                                    shapes.Claims.at_most(statement_bound(text)))).claims)

    async def answer_correctness(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        response, reference = await asyncio.gather(
            self._statements(s.user_input, s.response, model, trace),
            self._statements(s.user_input, s.reference, model, trace),
        )
        if response or reference:
            answer = await self.ask(
                STATEMENT_CLASSIFICATION,
                {"question": s.user_input, "response_statements": statements_block(response),
                 "reference_statements": statements_block(reference)},
                model, trace, shapes.StatementClassification.expecting(len(response), len(reference)),
            )
            counts = judged.ClaimCounts(tp=len(answer.TP), fp=len(answer.FP), fn=len(answer.FN))
        else:
            counts = judged.ClaimCounts(tp=0, fp=0, fn=0)
        if self.options.claim_counting == "ragas":  # RAGAS: F1 in floats, unrounded; no statement at all is 1.0
            factual = Outcome.scored(judged.ragas_fbeta(counts, 1.0) if response or reference else 1.0)
        else:
            factual = judged.factual_correctness(counts, mode="f1")
        (response_vector, reference_vector), scale = self._vectors([s.response, s.reference])
        similarity = judged.semantic_similarity(response_vector, reference_vector, scale=scale)
        explanation = f"TP {counts.tp}, FP {counts.fp}, FN {counts.fn}; similarity {similarity.value}"
        return judged.answer_correctness(factual, similarity, weights=self.options.weights), explanation

    async def context_relevance(self, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
        answers = await asyncio.gather(*(
            self.ask(CONTEXT_RATING, {"question": s.user_input, "context": c}, model, trace,
                      temperature=CONTEXT_RELEVANCE_TEMPERATURE)
            for c in s.retrieved_contexts
        ))
        explanation = " | ".join(f"#{i + 1}: {a.rating} ({a.reason})" for i, a in enumerate(answers))
        return judged.context_relevance([a.rating for a in answers]), explanation


async def ask_json(service: LLMService, prompt: str, shape: type[shapes.Shape], *, call: str,
                   language: Language, model: str, trace: Trace, repeat: int = 0, max_tokens: int | None = None,
                   lone_number: str | None = None, **options: Any) -> Any:
    """One judge request whose answer must validate against `shape` (its schema sent as the endpoint
    allows), with one repair attempt that restates the required form; raises `JudgeFailed` otherwise.

    `max_tokens`: the call's budget (the service keeps it within `llm_max_tokens`); an answer cut off by it
    is `truncated`, not repaired (the same budget would cut it again). `lone_number`: the field a reply
    holding only a number may fill (direct ratings); each raw call records how its answer was read. A reply
    that fails validation is dropped from the reply cache, so a rerun asks again rather than repeat it."""
    schema = ResponseSchema(call, shape.response_schema())
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    for attempt in ("first", "repair"):
        completion = await service.complete(messages, role="judge", model=model, repeat=repeat, schema=schema,
                                            max_tokens=max_tokens, **options)
        trace.calls += 1
        record = {"call": call, "attempt": attempt, "status": completion.status, "text": completion.text,
                  "cached": completion.cached}
        trace.raw.append(record)
        trace.latency_ms.append(completion.latency_ms)
        if completion.status != "ok":
            raise JudgeFailed("api_error", f"{call}: {completion.error or completion.status}")
        parsed = parse_output(completion.text, shape, lone_number=lone_number)
        if parsed.status == "ok":
            record["read"] = parsed.read
            return parsed.value
        if completion.truncated:
            record["status"] = "truncated"
            raise JudgeFailed("truncated", f"{call}: the answer ran past its token limit and was cut off")
        service.discard(completion)
        messages = [*messages, {"role": "assistant", "content": completion.text or ""},
                    {"role": "user", "content": REPAIR[language].format(error=parsed.error, form=shape.skeleton())}]
    raise JudgeFailed("parse_error", f"{call}: {parsed.error} (after one repair attempt)")


def statement_bound(text: str) -> int:
    """The most statements (or claims) a text can honestly make: a few per sentence. Generous, since it only
    has to stop a judge that repeats itself, never one that decomposes finely."""
    return STATEMENTS_PER_SENTENCE * max(1, len(split_sentences(text))) + SENTENCE_SLACK


async def _none() -> None:
    return None


def _joined(contexts: Sequence[str] | None) -> str:
    return CONTEXT_SEPARATOR.join(contexts or ())


def _reasons(verdicts: Sequence[Any], flag: str) -> str:
    """The judge's reasons for the statements it did not accept: what a reader needs to see first."""
    rejected = [f"«{v.statement}»: {v.reason}" for v in verdicts if not getattr(v, flag, 1)]
    return " | ".join(rejected)
