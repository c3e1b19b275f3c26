"""Turn a judge's free-text completion into a validated object, or say exactly why not.

Models wrap JSON in code fences, prose or reasoning; some quote the prompt's example before their own
answer, some answer a list where an object was asked for, small ones write "The answer is 0.5." for
`{"score": x}`. The rules, tried in order, the first that yields a valid object deciding:

1. `json` — the last complete JSON object in the text that validates against the shape (the last, because
   reasoning and copied examples come before the answer; strings and escapes respected);
2. `wrapped_list` — no object validates, the shape has exactly one list field and the text holds a JSON
   list: the list is read as that field (`["a", "b"]` for `{"statements": [...]}`);
3. `lone_number` — only where the caller allows it (a direct rating's score): the text holds no JSON at all
   and exactly one number, read as that field ("The answer is 0.5." → 0.5; "4 out of 5" holds two and is
   not read). Reports count the grades read this way.

Anything else is a `parse_error` whose message says in plain words what the answer lacked, so the repair
prompt can restate the required form instead of quoting the parser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, Literal, TypeVar

from pydantic import TypeAdapter, ValidationError

T = TypeVar("T")
Read = Literal["json", "wrapped_list", "lone_number"]

_OPENERS = {"{": "}", "[": "]"}
# a number standing alone: not part of a word, a date or a version; a decimal comma as Russian writes it
_NUMBER = re.compile(r"(?<![\w.,])[-+]?\d+(?:[.,]\d+)?(?![\w]|[.,]\d)")


@dataclass(frozen=True)
class Parsed(Generic[T]):
    """A judge completion read into a validated object of the shape asked for, or why it could not be.

    Its own type, at the judge level, because it is no call's outcome but the reading of one: a typed value,
    `parse_error` as its only failure, and the rule that read it (`read`), which reports count.
    """

    value: T | None
    status: Literal["ok", "parse_error"]
    error: str = ""
    read: Read = "json"


def json_values(text: str) -> list[Any]:
    """Every complete, balanced JSON object or array in `text`, outermost only, in order.

    A candidate that closes but is not JSON (`{like this}` in prose) is skipped and the search goes on
    inside it; one that never closes ends the search (the completion was cut off there).
    """
    found: list[Any] = []
    start = _next_opener(text, 0)
    while start is not None:
        end = _balanced_end(text, start)
        if end is None:
            break
        try:
            found.append(json.loads(text[start:end]))
        except json.JSONDecodeError:
            start = _next_opener(text, start + 1)
        else:
            start = _next_opener(text, end)
    return found


def _next_opener(text: str, begin: int) -> int | None:
    return next((i for i in range(begin, len(text)) if text[i] in _OPENERS), None)


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the bracket closing the one at `start`; None if the text ends first.

    A mismatched closer ends the candidate early (returned as is), so json.loads rejects it.
    """
    stack: list[str] = []
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _OPENERS:
            stack.append(_OPENERS[char])
        elif char in "}]":
            if stack.pop() != char or not stack:
                return index + 1
    return None


def parse_output(text: str | None, shape: type[T], *, lone_number: str | None = None) -> Parsed[T]:
    """Extract and validate by the module's rules. `lone_number`: the field a lone number may fill."""
    if not text or not text.strip():
        return Parsed(None, "parse_error", "the answer is empty")
    adapter = _adapter(shape)  # type: ignore[arg-type]  # a type is hashable: mypy#20409
    values = json_values(text)
    objects = [v for v in values if isinstance(v, dict)]
    problem = ""
    for candidate in reversed(objects):
        try:
            return Parsed(adapter.validate_python(candidate), "ok")
        except ValidationError as exc:
            problem = problem or _problems(exc)
    field = _single_list_field(shape)  # type: ignore[arg-type]  # a type is hashable: mypy#20409
    for listed in (v for v in values if isinstance(v, list)):
        if field is None:
            break
        try:
            return Parsed(adapter.validate_python({field: listed}), "ok", read="wrapped_list")
        except ValidationError as exc:
            problem = problem or _problems(exc)
    if lone_number is not None and not values:
        numbers = _NUMBER.findall(text)
        if len(numbers) == 1:
            try:
                value = adapter.validate_python({lone_number: float(numbers[0].replace(",", "."))})
                return Parsed(value, "ok", read="lone_number")
            except ValidationError as exc:
                problem = _problems(exc)
    if problem:
        return Parsed(None, "parse_error", f"the JSON object does not have the required form: {problem}")
    if values:
        return Parsed(None, "parse_error", "the answer is a JSON list, not the required JSON object")
    if "{" in text:
        return Parsed(None, "parse_error", "the JSON object in the answer is incomplete or invalid")
    return Parsed(None, "parse_error", "the answer holds no JSON object")


@cache
def _adapter(shape: type[T]) -> TypeAdapter[T]:
    return TypeAdapter(shape)


@cache
def _single_list_field(shape: type[Any]) -> str | None:
    """The shape's one list field, when it has exactly one field and that is a list."""
    properties = _adapter(shape).json_schema().get("properties", {})  # type: ignore[arg-type]  # a type is hashable: mypy#20409
    if len(properties) == 1:
        name, schema = next(iter(properties.items()))
        return name if schema.get("type") == "array" else None
    return None


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in error['loc']) or 'value'}: {error['msg']}"
                     for error in exc.errors()[:5])
