"""Judge prompt templates by call and language: each call's template, variables and answer shape.

Templates are plain `str.format` text files shipped inside the package (`benchmarks/prompts/<lang>/
<call>.txt`), so a wording change is a reviewable diff and its sha256 in a report says exactly
which prompt produced a number. A call used by one metric is declared in that metric's module
(`benchmarks.judge.judged_metrics`); the calls several metrics share (statements, verdicts), the seed's
ratings and the rubric are declared here. `catalog.CALLS` names them all.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from benchmarks.judge.llm import shapes
from benchmarks.readers.templates import packaged

Language = Literal["en", "ru"]
LANGUAGES: tuple[Language, ...] = get_args(Language)


# An answer that restates its input (statements of a text, a verdict per statement) needs tokens in
# proportion to it. 1.5 tokens per character restated is generous for English and leaves room for the
# reasons; small models' tokenizers spend about a token per Cyrillic character.
TOKENS_PER_ECHOED_CHAR = 1.5


@dataclass(frozen=True)
class JudgeCall:
    """One kind of judge request: its template name, the variables it renders, its answer's shape, and
    the tokens its answer may take: `answer_tokens`, plus a share of the length of the variables it
    `echoes`. A judge that runs on past that is repeating itself; the cut-off answer is reported as
    truncated instead of waiting for 1,000 tokens of repetition."""

    name: str
    variables: frozenset[str]
    shape: type[shapes.Shape]
    answer_tokens: int
    echoes: tuple[str, ...] = ()

    def token_budget(self, variables: Mapping[str, str]) -> int:
        echoed = sum(len(variables[name]) for name in self.echoes)
        return self.answer_tokens + int(TOKENS_PER_ECHOED_CHAR * echoed)


def judge_call(name: str, shape: type[shapes.Shape], *variables: str, tokens: int, echoes: tuple[str, ...] = ()
               ) -> JudgeCall:
    """A call of the template `name`, rendered with exactly `variables`, answering in `shape`."""
    return JudgeCall(name=name, variables=frozenset(variables), shape=shape, answer_tokens=tokens, echoes=echoes)


# `text` is whichever side is decomposed (the response or the reference); `statements` is a JSON
# list from `statements_block`; `context` is one context or the joined contexts, as the metric says.
STATEMENTS = judge_call("statements", shapes.Statements, "question", "text", tokens=64, echoes=("text",))
# yes-no judging, extract then verify: first the answer the text itself gives to the question (a short phrase),
# then one claim at a time, read as an answer to that question with the text's own answer in view, so that
# "Carolina Panthers." is supported as the winner and not as the loser. Each claim's question is a turn after the
# extraction's conversation (the text, the question, the judge's reply), so a server's prompt cache holds all of it
# when the claims come; the verdict is one word.
KNOWLEDGE_ANSWER = judge_call("knowledge_answer", shapes.ShortAnswer, "context", "question", tokens=16)
CLAIM_SUPPORT = judge_call("claim_support", shapes.YesNo, "claim", tokens=1)
STATEMENT_VERDICTS = judge_call("statement_verdicts", shapes.StatementVerdicts, "context", "statements",
                                tokens=160, echoes=("statements",))
# Direct ratings (docs/metrics.md#generation-tiers-2-and-3, docs/commands/judge.md) and the pairwise
# comparison. `output_format` is the mode's
# answer instructions (`OUTPUT_FORMATS`), so one wording of each task serves both modes; the shape
# given here is the direct one, the rater picks the reasoned one and the scale. Their token budgets are the
# direct mode's (`{"score": 0.75}` is about ten tokens); the reasoned mode asks for REASONED_TOKENS.
REASONED_TOKENS = 512
RATE_FAITHFULNESS = judge_call("rate_faithfulness", shapes.ScaleScore, "question", "context", "answer",
                               "output_format", tokens=32)
RATE_ANSWER_RELEVANCE = judge_call("rate_answer_relevance", shapes.ScaleScore, "question", "answer",
                                   "output_format", tokens=32)
RATE_ANSWER_CORRECTNESS = judge_call(
    "rate_answer_correctness", shapes.ScaleScore, "question", "reference", "answer", "output_format", tokens=32
)
RATE_E2E = judge_call("rate_e2e", shapes.ScaleScore, "question", "reference", "answer", "output_format", tokens=32)
COMPARE_ANSWERS = judge_call(
    "compare_answers", shapes.PairVerdict, "question", "context", "answer_a", "answer_b", "output_format",
    tokens=32,
)
# A user's rubric metric (bench.toml [rubrics]): `criteria` is the user's text in the prompt language,
# `low` and `high` the scale's ends, `sample` the fields the rubric shows, labelled (`judged_metrics.rubric`).
RUBRIC = judge_call("rubric", shapes.RubricScore, "criteria", "low", "high", "sample", tokens=256)

# Declared here, for `catalog.CALLS`; every other call is declared with the one metric that makes it.
SHARED_CALLS: tuple[JudgeCall, ...] = (
    KNOWLEDGE_ANSWER,
    CLAIM_SUPPORT,
    STATEMENTS,
    STATEMENT_VERDICTS,
    RATE_FAITHFULNESS,
    RATE_ANSWER_RELEVANCE,
    RATE_ANSWER_CORRECTNESS,
    RATE_E2E,
    COMPARE_ANSWERS,
    RUBRIC,
)


class TemplateError(ValueError):
    """A template asked for under the wrong name, language or variables."""


def _template_bytes(call: str, language: str) -> bytes:
    if language not in LANGUAGES:
        raise TemplateError(
            f"no {call!r} template in language {language!r}; languages: {', '.join(LANGUAGES)}"
        )
    try:
        return packaged("prompts", language, f"{call}.txt")
    except FileNotFoundError:
        raise TemplateError(f"unknown judge call {call!r}: no template prompts/{language}/{call}.txt") from None


def load_template(call: str, language: Language) -> str:
    """The raw template text, read from the installed package so wheels and checkouts agree."""
    return _template_bytes(call, language).decode("utf-8")


def template_sha256(call: str, language: Language) -> str:
    """Hash of the template file's bytes: what a report records to pin the exact prompt."""
    return hashlib.sha256(_template_bytes(call, language)).hexdigest()


def template_fields(call: str, language: Language) -> frozenset[str]:
    """The placeholders the template text actually contains (doubled braces are literal)."""
    text = load_template(call, language)
    return frozenset(field for _, field, _, _ in string.Formatter().parse(text) if field is not None)


def render(call: JudgeCall, language: Language, variables: Mapping[str, str]) -> str:
    """The prompt for one request; a missing or unexpected variable names the template.

    Checked against the call's declaration, not left to `str.format`, so a typo in a variable name
    fails even when it would otherwise be silently ignored (extra keyword arguments are).
    """
    given = frozenset(variables)
    if given != call.variables:
        missing, extra = sorted(call.variables - given), sorted(given - call.variables)
        raise TemplateError(
            f"template {language}/{call.name}.txt: missing variables {missing}, unexpected variables {extra}"
        )
    return load_template(call.name, language).format_map(dict(variables))


def statements_block(statements: Sequence[str]) -> str:
    """Statements as the JSON array the templates show, non-ASCII kept readable for the judge."""
    return json.dumps(list(statements), ensure_ascii=False, indent=2)
