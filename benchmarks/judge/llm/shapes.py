"""The JSON a judge call must answer with, as frozen pydantic models: the common machinery (strict
types, the schema sent as `response_format`, the repair prompt's skeleton, counted and bounded lists),
the answers of the calls several metrics share (statements, verdicts on them), and those of the seed's
ratings and of rubrics. A call that one metric makes declares its answer in that metric's module
(`benchmarks.judge.judged_metrics`), as a subclass of `Shape`.

The models are strict (no "1" for 1, no true for 1) so a judge that drifts from the requested
format is a `parse_error` that the repair prompt can quote, not a silently coerced verdict.
Whether an empty list is a valid answer is decided per call and noted on each model: a text may
honestly contain no statements, claims or entities, and the score functions turn that into an
undetermined score or 0.0 with a reason; a list of verdicts on statements that were sent is never
empty. When the caller knows how many items the answer must hold, `expecting(...)` gives a
stricter subclass, so a verdict list that skips or invents a statement fails validation too.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, model_validator

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""A statement, claim, entity or question: whitespace alone is not one."""

Reason = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""The judge's explanation, kept per verdict because reports show it per sample."""


def _not_bool(value: object) -> object:
    """JSON true is not 1: pydantic accepts it for Literal[0, 1] even in strict mode."""
    if isinstance(value, bool):
        # ValueError, not TypeError: only the former becomes a pydantic ValidationError.
        raise ValueError("a verdict is the number 0 or 1, not true/false")  # noqa: TRY004
    return value


Binary = Annotated[Literal[0, 1], BeforeValidator(_not_bool)]
Rating = Annotated[Literal[0, 1, 2], BeforeValidator(_not_bool)]


class Shape(BaseModel):
    """Common configuration: immutable, strict types, unknown keys ignored (harmless chatter)."""

    model_config = ConfigDict(frozen=True, strict=True)

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        """Add to the JSON schema what a validator of the subclass checks (counts, a scale), in place, so an
        endpoint that turns the schema into a grammar cannot even emit what validation would refuse."""

    @classmethod
    def response_schema(cls) -> dict[str, Any]:
        """The JSON schema sent as `response_format`: titles and descriptions dropped (tokens the grammar
        does not need), every object closed and every key required, as OpenAI's strict mode demands."""
        return _response_schema(cls)

    @classmethod
    def skeleton(cls) -> str:
        """The answer's form in one line, for the repair prompt: keys and what each holds, no parser talk."""
        return _skeleton(cls.response_schema(), cls.response_schema().get("$defs", {}))


@cache
def _response_schema(shape: type[Shape]) -> dict[str, Any]:
    schema = shape.model_json_schema()
    _close(schema)
    for definition in schema.get("$defs", {}).values():
        _close(definition)
    shape.tighten(schema)
    return schema


def _close(schema: dict[str, Any]) -> None:
    schema.pop("title", None)
    schema.pop("description", None)
    for value in schema.get("properties", {}).values():
        value.pop("title", None)
    if schema.get("type") == "object":
        schema["additionalProperties"] = False
        schema["required"] = list(schema.get("properties", {}))


def _skeleton(schema: dict[str, Any], definitions: dict[str, Any]) -> str:
    if "$ref" in schema:
        return _skeleton(definitions[schema["$ref"].rsplit("/", 1)[1]], definitions)
    if "enum" in schema:
        return " or ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        fields = ", ".join(f"{json.dumps(k)}: {_skeleton(v, definitions)}" for k, v in schema["properties"].items())
        return "{" + fields + "}"
    if kind == "array":
        most = schema.get("maxItems")
        count = f" ({most} items)" if most is not None and schema.get("minItems") == most else (
            f" (at most {most} items)" if most is not None else "")
        return f"[{_skeleton(schema['items'], definitions)}, ...{count}]"
    if kind in ("number", "integer"):
        word = "a whole number" if kind == "integer" else "a number"
        bounds = f" from {schema['minimum']:g} to {schema['maximum']:g}" if "minimum" in schema else ""
        return f"<{word}{bounds}>"
    return '"<text>"'


def counted(base: type[Shape], count: int, name: str, **class_vars: int) -> type[Shape]:
    """A subclass of `base` that knows how many items its answer must hold."""
    if count < 1:
        raise ValueError(f"{base.__name__}: an expected count must be at least 1, got {count}")
    namespace = {"expected": count, "__module__": base.__module__, **class_vars}
    return type(f"{base.__name__}{name}", (base,), namespace)


# --- statements ---------------------------------------------------------------------------------


class Bounded(Shape):
    """A shape whose one list may hold at most `most` items, when the caller knows a bound from the input (a
    text of 2 sentences does not make 30 statements). Under a grammar the bound is what ends a small model's
    list: without it, SmolLM2-135M repeats one statement until the token budget cuts it off."""

    listed: ClassVar[str]
    most: ClassVar[int | None] = None

    @model_validator(mode="after")
    def _not_too_many(self) -> Bounded:
        count = len(getattr(self, self.listed))
        if self.most is not None and count > self.most:
            raise ValueError(f"at most {self.most} {self.listed} for this text, got {count}")
        return self

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        if cls.most is not None:
            schema["properties"][cls.listed]["maxItems"] = cls.most

    @classmethod
    def at_most(cls, most: int) -> type[Bounded]:
        return _bounded(cls, most)


@cache
def _bounded(base: type[Bounded], most: int) -> type[Bounded]:
    namespace = {"most": most, "__module__": base.__module__}
    return type(f"{base.__name__}AtMost{most}", (base,), namespace)


class Statements(Bounded):
    """Atomic, self-contained statements of a response or reference (faithfulness, noise
    sensitivity, answer correctness). Empty is valid: an evasive answer makes no claim.
    """

    listed: ClassVar[str] = "statements"
    statements: list[Text]


# --- verdicts on given statements --------------------------------------------------------------


class StatementVerdict(Shape):
    """Whether one statement can be inferred from the given text, and why."""

    statement: Text
    reason: Reason
    verdict: Binary


class YesNo(Shape):
    """A one-word verdict (yes-no judging, `LLMJudge.yes`): read from the first token's probabilities or its
    first word, never sent as a schema, since a grammar would make the first token a quote or a brace."""

    answer: Literal["Yes", "No"]


class ShortAnswer(Shape):
    """The answer a text gives to a question, in a short phrase of its own (yes-no judging's first step): read as
    the reply's text, never sent as a schema, since a small model answers a phrase best in its own words."""

    answer: str


class StatementVerdicts(Shape):
    """One verdict per statement sent, in the order sent (faithfulness, noise sensitivity,
    factual correctness). Never empty: the call is only made when there are statements.
    """

    expected: ClassVar[int | None] = None

    verdicts: list[StatementVerdict] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_per_statement(self) -> StatementVerdicts:
        if self.expected is not None and len(self.verdicts) != self.expected:
            raise ValueError(
                f"expected {self.expected} verdicts, one per statement, got {len(self.verdicts)}"
            )
        return self

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        if cls.expected is not None:
            schema["properties"]["verdicts"].update(minItems=cls.expected, maxItems=cls.expected)

    @classmethod
    def expecting(cls, statements: int) -> type[StatementVerdicts]:
        """The shape for exactly `statements` verdicts."""
        return _verdicts_for(statements)


@cache
def _verdicts_for(statements: int) -> type[StatementVerdicts]:
    return counted(StatementVerdicts, statements, f"Of{statements}")  # type: ignore[return-value]


# --- direct ratings and pairwise comparison (tiers 2, 3 and bench judge) -----------------------


class ScaleScore(Shape):
    """A single score on a rating's scale (docs/metrics.md#generation-tiers-2-and-3). The bounds are per rating, so
    `on_scale` gives the subclass that rejects 1.2 on a 0–1 scale instead of clipping it.
    """

    low: ClassVar[float] = 0.0
    high: ClassVar[float] = 1.0

    score: float

    @model_validator(mode="after")
    def _within_scale(self) -> ScaleScore:
        if not (self.low <= self.score <= self.high):
            raise ValueError(f"score must be between {self.low:g} and {self.high:g}, got {self.score:g}")
        return self

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        schema["properties"]["score"].update(minimum=cls.low, maximum=cls.high)
        _reasoning_first(schema)

    @classmethod
    def on_scale(cls, low: float, high: float) -> type[ScaleScore]:
        return _scaled(cls, low, high)


def _reasoning_first(schema: dict[str, Any]) -> None:
    """A grammar emits keys in the schema's order, and a reasoned answer must reason before it decides."""
    properties = schema["properties"]
    if "reasoning" in properties:
        schema["properties"] = {"reasoning": properties["reasoning"],
                                **{k: v for k, v in properties.items() if k != "reasoning"}}
        schema["required"] = list(schema["properties"])


class ReasonedScore(ScaleScore):
    """Reasoned mode: the judge writes its reasoning first, then the score (the key order asks
    for reasoning before the verdict, which is the point of the mode)."""

    reasoning: Reason


@cache
def _scaled(base: type[ScaleScore], low: float, high: float) -> type[ScaleScore]:
    namespace = {"low": low, "high": high, "__module__": base.__module__}
    return type(f"{base.__name__}{low:g}To{high:g}", (base,), namespace)


class PairVerdict(Shape):
    """Which of two answers is better: A, B or Tie."""

    verdict: Literal["A", "B", "Tie"]


class ReasonedPairVerdict(PairVerdict):
    reasoning: Reason

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        _reasoning_first(schema)


# --- rubric metrics (bench.toml [rubrics]) -----------------------------------------------------


def _whole(value: object) -> object:
    """A rubric score is a whole number: 4.0 is 4, 4.5 and true are not scores."""
    if isinstance(value, bool):
        raise ValueError("a score is a whole number, not true/false")  # noqa: TRY004
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Whole = Annotated[int, BeforeValidator(_whole)]


class RubricScore(Shape):
    """A user rubric's verdict: a short reason first, then a whole score on the rubric's scale (0 or 1
    for a binary rubric, 1 to 5 for a 1-5 one). `on_scale` gives the subclass for one scale, which rejects
    a 5 on a binary rubric instead of clipping it; the base accepts both scales (0–5), for the template's
    worked examples, which show one of each."""

    low: ClassVar[int] = 0
    high: ClassVar[int] = 5

    reason: Reason
    score: Whole

    @model_validator(mode="after")
    def _within_scale(self) -> RubricScore:
        if not (self.low <= self.score <= self.high):
            raise ValueError(f"score must be a whole number from {self.low} to {self.high}, got {self.score}")
        return self

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        schema["properties"]["score"].update(minimum=cls.low, maximum=cls.high)

    @classmethod
    def on_scale(cls, low: int, high: int) -> type[RubricScore]:
        return _rubric_scaled(low, high)


@cache
def _rubric_scaled(low: int, high: int) -> type[RubricScore]:
    namespace = {"low": low, "high": high, "__module__": RubricScore.__module__}
    return type(f"RubricScore{low}To{high}", (RubricScore,), namespace)
