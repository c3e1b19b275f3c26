"""Run a metric's judge calls for one sample: render, call the LLM service, parse, repair once, score.

Every outcome (`benchmarks.outcome.Outcome`) carries a status (ok, parse_error, truncated, api_error,
undetermined), an explanation in the prompt's language (the judge's own reasons), the number of calls
and the duration, and the raw completions, so a changed score function can re-score items.jsonl
without new calls.

Which metric reads which fields and is scored by which coroutine is declared with the metric, in its
module of `benchmarks.judge.metrics`; each coroutine is called as `scorer(judge, sample, model, trace)`
and does its work with the toolkit below: `LLMJudge.ask` (one call, repaired once), the statements of
a text and verdicts on them (the calls several metrics share), and embeddings on their scale.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from benchmarks.config import Settings, correctness_weights
from benchmarks.judge import shapes
from benchmarks.judge.claims import split_sentences
from benchmarks.judge.parsing import parse_output
from benchmarks.judge.prompts import (
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
from benchmarks.services.llm_request import ResponseSchema

if TYPE_CHECKING:  # the judge only calls the service it is handed
    from benchmarks.services.llm import LLMService

Embed = Callable[[Sequence[str]], np.ndarray]
# How a metric is scored: (judge, sample, judge model, trace) -> (score, the judge's reasons)
Scorer = Callable[["LLMJudge", Sample, str, "Trace"], Awaitable[tuple[Outcome, str]]]


class Scored(Protocol):
    """What the judge needs of a metric's declaration (`judged_metric.JudgedMetric`): the fields and the scorer."""

    @property
    def needs(self) -> tuple[str, ...]: ...

    @property
    def score(self) -> Scorer: ...

CONTEXT_SEPARATOR = "\n\n"
STATEMENTS_PER_SENTENCE = 4
SENTENCE_SLACK = 2  # a judge may split sentences where bench's splitter does not
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
    """Scores the metrics it is given (`catalog.metrics(settings.rubrics)`), each with the scorer its
    declaration names; the scorers work with this class's toolkit, so the metrics import this module and
    not the other way round."""

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

    async def statements(self, question: str, text: str, model: str, trace: Trace) -> list[str]:
        """The atomic statements of `text` (a response or a reference), as the judge decomposes it."""
        answer = await self.ask(STATEMENTS, {"question": question, "text": text}, model, trace,
                                shapes.Statements.at_most(statement_bound(text)))
        return list(answer.statements)

    async def verdicts(self, context: str, statements: Sequence[str], model: str, trace: Trace) -> list[Any]:
        """One verdict per statement; no call at all when there is nothing to judge."""
        if not statements:
            return []
        answer = await self.ask(STATEMENT_VERDICTS, {"context": context, "statements": statements_block(statements)},
                                 model, trace, shapes.StatementVerdicts.expecting(len(statements)))
        return list(answer.verdicts)

    def vectors(self, texts: Sequence[str]) -> tuple[np.ndarray, SimilarityScale]:
        """The texts' embeddings, with the scale their similarities are read on."""
        if self.embed is None or self.scale is None:  # both or neither (__init__)
            raise JudgeFailed("undetermined", "this metric needs an embedding model")
        return self.embed(list(texts)), self.scale


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


def joined(contexts: Sequence[str] | None) -> str:
    """The retrieved contexts as one text, for a call that judges against all of them at once."""
    return CONTEXT_SEPARATOR.join(contexts or ())


def rejected(verdicts: Sequence[Any], flag: str) -> str:
    """The judge's reasons for the statements it did not accept: what a reader needs to see first."""
    rejected = [f"«{v.statement}»: {v.reason}" for v in verdicts if not getattr(v, flag, 1)]
    return " | ".join(rejected)
