"""Direct ratings of one answer on a scale, and the pairwise A/B/Tie comparison
(docs/metrics.md#generation-tiers-2-and-3, docs/metrics.md#pairwise-verdicts).

These are the seed's own judge metrics: one call returns one number on the rating's scale
(faithfulness, answer relevance and the end-to-end score on 0–1, answer correctness on 1–5).
They differ from the RAGAS-form judged metrics (statements, verdicts, ratios): cheaper,
coarser, and exactly what the seed's tiers report, so both are available and named apart.

A rating runs in one of two modes with the same task wording: `direct` asks for the score alone,
`reasoned` for a short reasoning first and then the score in a strict format; the answer's shape
(score within the scale, reasoning present) is validated, with one repair attempt, as for every
judge call; in direct mode a reply holding no JSON and exactly one number ("The answer is 0.5.") is
read as the score, and reports count the grades read that way (`read_from_a_lone_number`). The pairwise
comparison can be asked with the answers swapped; `metrics.pairwise` turns the
two verdicts into a preference with position bias made visible.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from benchmarks.chat.backend import ChatBackend
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.asking import JudgeFailed, Trace, ask_json
from benchmarks.judge.llm.prompts import (
    COMPARE_ANSWERS,
    RATE_ANSWER_CORRECTNESS,
    RATE_ANSWER_RELEVANCE,
    RATE_E2E,
    RATE_FAITHFULNESS,
    REASONED_TOKENS,
    JudgeCall,
    Language,
    render,
    template_sha256,
)
from benchmarks.outcome import Outcome
from benchmarks.readers.templates import packaged

Mode = Literal["direct", "reasoned"]
MODES: tuple[Mode, ...] = ("direct", "reasoned")


@dataclass(frozen=True)
class Rating:
    """A seed metric graded by one judge call: its call, its scale and what it reads."""

    name: str
    call: JudgeCall
    low: float
    high: float

    @property
    def needs(self) -> frozenset[str]:
        return self.call.variables - {"output_format"}


RATINGS: Mapping[str, Rating] = {
    rating.name: rating
    for rating in (
        Rating("faithfulness", RATE_FAITHFULNESS, 0.0, 1.0),
        Rating("answer_relevance", RATE_ANSWER_RELEVANCE, 0.0, 1.0),
        Rating("answer_correctness", RATE_ANSWER_CORRECTNESS, 1.0, 5.0),
        Rating("e2e_score", RATE_E2E, 0.0, 1.0),
    )
}


@cache
def output_format(kind: Literal["score", "verdict"], mode: Mode, language: Language, low: float = 0.0,
                  high: float = 1.0) -> str:
    """The mode's answer instructions, with the scale filled in (an example score at mid-scale)."""
    text = packaged("prompts", language, "formats", f"{kind}_{mode}.txt").decode("utf-8")
    middle = (low + high) / 2
    return text.format(low=f"{low:g}", high=f"{high:g}", example=f"{middle:g}").strip()


def prompt_hashes(language: Language, mode: Mode, names: tuple[str, ...], *, pairwise: bool = False
                  ) -> dict[str, str]:
    """sha256 of each template file and answer format a run uses, for the report's provenance."""
    hashes = {f"{language}/{RATINGS[n].call.name}": template_sha256(RATINGS[n].call.name, language) for n in names}
    if pairwise:
        hashes[f"{language}/{COMPARE_ANSWERS.name}"] = template_sha256(COMPARE_ANSWERS.name, language)
    for kind in ("score",) * bool(names) + ("verdict",) * pairwise:
        data = packaged("prompts", language, "formats", f"{kind}_{mode}.txt")
        hashes[f"{language}/formats/{kind}_{mode}"] = hashlib.sha256(data).hexdigest()
    return hashes


class Rater:
    def __init__(self, service: ChatBackend, language: Language, mode: Mode = "direct"):
        self.service = service
        self.language = language
        self.mode = mode

    async def rate(self, name: str, variables: Mapping[str, str], model: str, *, repeat: int = 0) -> Outcome:
        """The rating's score on its scale (value), named, with the model, calls, each call's latency, cached."""
        rating = RATINGS[name]
        trace = Trace()
        shape = (shapes.ReasonedScore if self.mode == "reasoned" else shapes.ScaleScore).on_scale(rating.low,
                                                                                                   rating.high)
        prompt = render(rating.call, self.language, {
            **{key: variables[key] for key in rating.needs},
            "output_format": output_format("score", self.mode, self.language, rating.low, rating.high),
        })
        try:
            answer = await ask_json(self.service, prompt, shape, call=rating.call.name, language=self.language,
                                    model=model, trace=trace, repeat=repeat, max_tokens=self._tokens(rating.call),
                                    lone_number="score" if self.mode == "direct" else None)
        except JudgeFailed as failure:
            return _traced(Outcome.failed(failure.status, str(failure), name=name, model=model), trace)
        return _traced(Outcome.scored(answer.score, getattr(answer, "reasoning", ""), name=name, model=model), trace)

    async def compare(self, variables: Mapping[str, str], model: str, *, repeat: int = 0) -> Outcome:
        """One A/B/Tie verdict (the value) with the answers in the order given (answer_a is shown first, so A
        is whatever was shown first)."""
        trace = Trace()
        shape = shapes.ReasonedPairVerdict if self.mode == "reasoned" else shapes.PairVerdict
        prompt = render(COMPARE_ANSWERS, self.language, {
            **{key: variables[key] for key in ("question", "context", "answer_a", "answer_b")},
            "output_format": output_format("verdict", self.mode, self.language),
        })
        try:
            answer = await ask_json(self.service, prompt, shape, call=COMPARE_ANSWERS.name, language=self.language,
                                    model=model, trace=trace, repeat=repeat, max_tokens=self._tokens(COMPARE_ANSWERS))
        except JudgeFailed as failure:
            return _traced(Outcome.failed(failure.status, str(failure), model=model), trace)
        return _traced(Outcome(answer.verdict, "ok", getattr(answer, "reasoning", ""), model=model), trace)


    def _tokens(self, call: JudgeCall) -> int:
        return REASONED_TOKENS if self.mode == "reasoned" else call.answer_tokens


def read_from_a_lone_number(outcome: Outcome) -> bool:
    """Whether a grade's score came from a reply holding only a number, not JSON (reports count them)."""
    return any(call.get("read") == "lone_number" for call in outcome.raw)


def _traced(outcome: Outcome, trace: Trace) -> Outcome:
    """The outcome with its calls: how many, each one's latency (as the LLM service measured it, cached replies
    included), whether the cache answered them all, and the raw completions."""
    return replace(outcome, calls=trace.calls, latency_ms=tuple(round(ms, 3) for ms in trace.latency_ms),
                   cached=bool(trace.raw) and all(call["cached"] for call in trace.raw), raw=tuple(trace.raw))
