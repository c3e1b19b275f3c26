"""Run a metric's judge calls for one sample: render, call the LLM service, parse, repair once, score.

Every outcome (`benchmarks.outcome.Outcome`) carries a status (ok, parse_error, truncated, api_error,
undetermined), an explanation in the prompt's language (the judge's own reasons), the number of calls
and the duration, and the raw completions, so a changed score function can re-score items.jsonl
without new calls.

Which metric reads which fields and is scored by which coroutine is declared with the metric, in its
module of `benchmarks.judge.judged_metrics`; each coroutine is called as `scorer(judge, sample, model, trace)`
and does its work with the toolkit below: `LLMJudge.ask` (one call, repaired once), `LLMJudge.yes` (one yes-no
question, read as the probability of Yes where the server gives token log-probabilities), the statements of
a text and verdicts on them (the calls several metrics share), and embeddings on their scale.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from benchmarks.chat.request import TOP_LOGPROBS, Message
from benchmarks.embedding.embed import Embed
from benchmarks.judge.claims import split_sentences
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.asking import JudgeFailed, Trace, Unusable, ask_json, attempts
from benchmarks.judge.llm.prompts import (
    CLAIM_SUPPORT,
    KNOWLEDGE_ANSWER,
    STATEMENT_VERDICTS,
    STATEMENTS,
    JudgeCall,
    Language,
    render,
    statements_block,
)
from benchmarks.judge.options import JudgeOptions
from benchmarks.judge.wording import explained, lacking, said
from benchmarks.metrics import judged
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

if TYPE_CHECKING:  # the judge only calls the service it is handed
    from benchmarks.chat.backend import ChatBackend
    from benchmarks.chat.client import Completion

# How a metric is scored: (judge, sample, judge model, trace) -> (score, the judge's reasons)
Scorer = Callable[["LLMJudge", Sample, str, "Trace"], Awaitable[tuple[Outcome, str]]]


class Scored(Protocol):
    """What the judge needs of a metric's declaration (`judged_metric.JudgedMetric`): the fields and the scorer."""

    @property
    def needs(self) -> tuple[str, ...]: ...

    @property
    def score(self) -> Scorer: ...

Reading = Literal["probability", "parsed"]  # how a yes-no verdict is read: the Yes token's probability, or the word

CONTEXT_SEPARATOR = "\n\n"
STATEMENTS_PER_SENTENCE = 4
SENTENCE_SLACK = 2  # a judge may split sentences where bench's splitter does not
# Said before a yes-no question and its extraction step: a small model's verdicts came out sharper with it.
FACT_CHECKER = {"en": "You are a strict fact-checking judge.", "ru": "Вы — строгий судья, проверяющий факты."}
# The repair restates the form the answer must take; what the parser tried is no help to a model.
YES_NO_REPAIR = {"en": "Answer with one word: Yes or No.", "ru": "Ответьте одним словом: Да или Нет."}
# Yes and No as a first token may give them, in either language (a Russian prompt may be answered in English);
# Qwen's tokenizer starts "Да" and "Нет" with the one letter "Д" or "Н", so a Cyrillic first letter counts
_YES = frozenset({"yes", "да", "д", "true"})
_NO = frozenset({"no", "нет", "не", "н", "false"})
_PARSED_TOKENS = 3  # a parsed verdict reads the first word; a leading space or quote must not cut it


@dataclass(frozen=True)
class Extraction:
    """The answer a text gives to a question, as the judge extracted it: the phrase, for the explanation, and the
    conversation that asked it (the question and the reply exactly as sent), which each claim's question
    continues, so that a server's prompt cache holds all of it when the claims come."""

    answer: str
    turns: tuple[Message, Message]


class LLMJudge:
    """Scores the metrics it is given (`catalog.metrics(settings.rubrics)`), each with the scorer its
    declaration names; the scorers work with this class's toolkit, so the metrics import this module and
    not the other way round."""

    def __init__(self, service: ChatBackend, language: Language, embed: Embed | None,
                 options: JudgeOptions = JudgeOptions(), *, metrics: Mapping[str, Scored],
                 scale: SimilarityScale | None = None):
        self.service = service
        self.language = language
        if embed is not None and scale is None:
            raise ValueError("an embedder comes with its similarity scale (embedding.similarity_calibration)")
        self.embed = embed
        self.scale = scale
        self.options = options
        self.metrics = metrics
        self._readings: dict[str, Reading] = {}

    async def score(self, metric: str, sample: Sample, model: str) -> Outcome:
        """The metric's outcome for one sample, named, with the model, calls, duration and raw completions.
        No per-call latencies: the judge latency tiers 2 and 3 report is that of the seed ratings' calls."""
        started = time.perf_counter()
        trace = Trace()
        declared = self.metrics[metric]
        missing = sample.missing(declared.needs)
        if missing:
            found = lacking(missing, self.language)
        else:
            try:
                score, explanation = await declared.score(self, sample, model, trace)
            except JudgeFailed as failure:
                found = Outcome.failed(failure.status, str(failure))
            else:
                found = explained(score, self.language, explanation)
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

    async def reading(self, model: str) -> Reading:
        """How `model`'s yes-no verdicts are read at this endpoint: the probability of Yes where it gives token
        log-probabilities (asked once a run), else the word it answers."""
        if model not in self._readings:
            self._readings[model] = "probability" if await self.service.gives_logprobs(model) else "parsed"
        return self._readings[model]

    async def yes(self, call: JudgeCall, variables: Mapping[str, str], model: str, trace: Trace, *,
                  after: Sequence[Message] = ()) -> float:
        """One yes-no question: P(Yes) / (P(Yes) + P(No)) over the first token's alternatives in probability
        reading (G-Eval's probability-weighted score, for a two-point scale), 1.0 or 0.0 from the first word in
        parsed reading, or when no Yes or No token is among the alternatives; repaired once. `after`: the turns
        of the conversation the question follows (the extraction's, in yes-no judging)."""
        reading = await self.reading(model)
        asked: dict[str, Any] = (
            {"max_tokens": 1, "logprobs": True, "top_logprobs": TOP_LOGPROBS} if reading == "probability"
            else {"max_tokens": _PARSED_TOKENS}
        )
        messages: list[Message] = [{"role": "system", "content": FACT_CHECKER[self.language]}, *after,
                                   {"role": "user", "content": render(call, self.language, variables)}]

        def read(completion: Completion, record: dict[str, Any]) -> float | Unusable:
            probability = yes_probability(completion.top_logprobs)
            if probability is not None:
                record |= {"read": "probability", "p_yes": probability}
                return probability
            word = yes_word(completion.text or "")
            if word is not None:
                record["read"] = "word"
                return word
            return Unusable(f"neither Yes nor No in {completion.text!r}", YES_NO_REPAIR[self.language])

        return await attempts(self.service, messages, read, call=call.name, trace=trace, recorded={"reading": reading},
                              model=model, prefix=True, **asked)

    async def knowledge_answer(self, context: str, question: str, model: str, trace: Trace) -> Extraction:
        """The answer `context` itself gives to `question`, as the judge extracts it (a short phrase: its reply's
        text, up to the call's few tokens), with the conversation that asked it: the first step of yes-no
        judging, which every claim's question then continues."""
        messages: list[Message] = [{"role": "system", "content": FACT_CHECKER[self.language]},
                                   {"role": "user", "content": render(KNOWLEDGE_ANSWER, self.language,
                                                                      {"context": context, "question": question})}]
        text = await attempts(self.service, messages, lambda completion, record: completion.text or "",
                              call=KNOWLEDGE_ANSWER.name, trace=trace, model=model, prefix=True,
                              max_tokens=KNOWLEDGE_ANSWER.answer_tokens, stop=["\n"])
        return Extraction(answer=" ".join(text.split()) or "—",
                          turns=(messages[1], {"role": "assistant", "content": text}))

    def vectors(self, texts: Sequence[str]) -> tuple[np.ndarray, SimilarityScale]:
        """The texts' embeddings, with the scale their similarities are read on."""
        if self.embed is None or self.scale is None:  # both or neither (__init__)
            raise JudgeFailed("undetermined", "this metric needs an embedding model")
        return self.embed(list(texts)), self.scale


def _word(token: str) -> str:
    return token.strip().strip("\"'«»*.:,!").casefold()


def yes_probability(alternatives: Sequence[tuple[str, float]]) -> float | None:
    """P(Yes) normalised over the Yes and No tokens among a first token's alternatives (their aliases in both
    languages summed); None when neither is among them."""
    yes = sum(math.exp(lp) for token, lp in alternatives if _word(token) in _YES)
    no = sum(math.exp(lp) for token, lp in alternatives if _word(token) in _NO)
    return yes / (yes + no) if yes + no > 0 else None


def yes_word(text: str) -> float | None:
    """1.0 or 0.0 from an answer's first word; None when it is neither Yes nor No."""
    first = text.split(maxsplit=1)
    word = _word(first[0]) if first else ""
    return 1.0 if word in _YES else 0.0 if word in _NO else None


def statement_bound(text: str) -> int:
    """The most statements (or claims) a text can honestly make: a few per sentence. Generous, since it only
    has to stop a judge that repeats itself, never one that decomposes finely."""
    return STATEMENTS_PER_SENTENCE * max(1, len(split_sentences(text))) + SENTENCE_SLACK


KNOWLEDGES_ANSWER = "the knowledge's answer"  # what an explanation of yes-no verdicts starts with


async def claims_supported(judge: LLMJudge, question: str, claims: Sequence[str], context: str, model: str,
                           trace: Trace, *, nothing: str) -> tuple[Outcome, str]:
    """Yes-no verdicts on the claims of an answer to `question` against one text (faithfulness, context recall),
    extract then verify: the judge first says what answer the text gives to the question, then judges each claim
    as an answer to that question with the text's own answer in view. A bare "30 days." or "Carolina Panthers."
    that the text contains is no support when the text gives it for another question, and a small model tells
    that apart only once it has found the text's answer (docs/concepts.md: 0.35–0.70 on such pairs without the
    step, 0.95 with it). The value is the expected share of supported claims; the explanation, the text's answer
    and the claims more likely unsupported than not, with their probability of Yes.

    The calls go one after another: the extraction puts the context and the question in a server slot's prompt
    cache, and each claim after it costs only its own tokens; asked together they would land on several slots,
    each reading the context again."""
    if not claims:
        return judged.expected_share([], "claim support", nothing), ""
    extraction = await judge.knowledge_answer(context, question, model, trace)
    found = [await judge.yes(CLAIM_SUPPORT, {"claim": c}, model, trace, after=extraction.turns) for c in claims]
    doubted = [f"«{c}»: P(yes) {p:.2f}" for c, p in zip(claims, found, strict=True) if p < 0.5]
    return judged.expected_share(found, "claim support", nothing), " | ".join(
        [f"{said(KNOWLEDGES_ANSWER, judge.language)}: «{extraction.answer}»", *doubted])


def verdict_readings(outcomes: Iterable[Outcome]) -> dict[str, Reading]:
    """By model, how its yes-no verdicts were read (from the calls' records, so a resumed run's restored units
    count too); a model read both ways across sessions is named by the way most of its calls were read."""
    counts: dict[str, dict[Reading, int]] = {}
    for outcome in outcomes:
        for record in outcome.raw:
            if "reading" in record and outcome.model:
                by_reading = counts.setdefault(outcome.model, {})
                by_reading[record["reading"]] = by_reading.get(record["reading"], 0) + 1
    return {model: max(found, key=found.__getitem__) for model, found in sorted(counts.items())}


def joined(contexts: Sequence[str] | None) -> str:
    """The retrieved contexts as one text, for a call that judges against all of them at once."""
    return CONTEXT_SEPARATOR.join(contexts or ())


def rejected(verdicts: Sequence[Any], flag: str) -> str:
    """The judge's reasons for the statements it did not accept: what a reader needs to see first."""
    rejected = [f"«{v.statement}»: {v.reason}" for v in verdicts if not getattr(v, flag, 1)]
    return " | ".join(rejected)
