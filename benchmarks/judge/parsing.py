"""Turn a judge's free-text completion into a validated object, or say exactly why not.

Models wrap JSON in code fences, prose, or reasoning; some stop mid-object. The first complete
JSON value is taken (strings and escapes respected), then validated against the metric's output
shape with pydantic, so a wrong number of verdicts or a missing field is a `parse_error` with a
message the one repair attempt can quote back to the model, never a silent NaN.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import TypeAdapter, ValidationError

T = TypeVar("T")

_OPENERS = {"{": "}", "[": "]"}


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T | None
    status: Literal["ok", "parse_error"]
    error: str = ""


def first_json(text: str) -> str | None:
    """The first balanced JSON object or array in `text`; None when there is none or it is cut off.

    A candidate that closes but is not JSON (`{like this}` in prose) is skipped; one that never
    closes means the completion was truncated, and nothing after it can be trusted.
    """
    start = _next_opener(text, 0)
    while start is not None:
        end = _balanced_end(text, start)
        if end is None:
            return None
        try:
            json.loads(text[start:end])
            return text[start:end]
        except json.JSONDecodeError:
            start = _next_opener(text, start + 1)
    return None


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


def parse_output(text: str | None, shape: type[T]) -> Parsed[T]:
    """Extract and validate; the error names what was wrong so a repair prompt can quote it."""
    if not text or not text.strip():
        return Parsed(None, "parse_error", "the completion is empty")
    raw = first_json(text)
    if raw is None:
        return Parsed(None, "parse_error", "no complete JSON object in the completion")
    try:
        return Parsed(TypeAdapter(shape).validate_json(raw), "ok")
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'value'}: {error['msg']}" for error in exc.errors()[:5]
        )
        return Parsed(None, "parse_error", f"JSON does not match the expected shape: {problems}")
