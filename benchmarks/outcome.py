"""One outcome type for everything in bench that is "a value, or why there is none".

A pure metric's score for one sample, an LLM judge's RAGAS-form metric, a seed rating, a pairwise
A/B/Tie verdict, a grade of tiers 2 and 3 and the production judge's raw reply all say the same thing:
here is the value (a number, or a string such as a verdict or a reply's text), with the status it
ended in, and with an explanation — the judge's reasons, or why there is no value. They used to be
six types in six shapes, so every consumer (means, error counts, status counts, journal rows, report
rows) converted between them field by field, and each conversion could drop or rename something.
One frozen type lets the same helpers (`status_counts`, `.ok`, the journal's asdict/revive) serve
them all; the context a producer has (which metric, which model, how many calls, how long, cached,
the raw completions) rides along in optional fields that default to "none".

This module is the bottom layer: it imports nothing from the rest of bench.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, get_args

# ok: a value; undetermined: the mathematics or the inputs leave none (left out of means, counted);
# parse_error / api_error: the judge's answer was unusable or the call failed (an error of the metric);
# truncated: the judge ran out of tokens before its answer was complete (finish_reason "length"): an error
# too, kept apart because its fix is a larger token budget, not a better prompt or parser;
# no_answer: the system under test gave no answer to grade (tiers 2 and 3)
Status = Literal["ok", "undetermined", "parse_error", "truncated", "api_error", "no_answer"]
STATUSES: tuple[Status, ...] = get_args(Status)
# what a judge call can end in: every one is listed by `status_counts`, zeros included
JUDGE_STATUSES: tuple[Status, ...] = ("ok", "undetermined", "parse_error", "truncated", "api_error")
ERRORS: frozenset[Status] = frozenset({"parse_error", "truncated", "api_error"})


@dataclass(frozen=True)
class Outcome:
    """A value (number, verdict or text), or why there is none, with whatever context produced it.

    An ok outcome has a value (a finite one when it is a number); any other status has none, and an
    undetermined one must say why. Tuples, not lists, so an outcome is hashable and a journaled one
    (`asdict`, JSON, `resumable.revive`) comes back equal.

    Its own type, at the bottom level every tier and the report share, because it is what a metric or rating
    ends as, after however many calls: a graded value, the statuses of a result (undetermined, parse_error,
    truncated, no_answer), the calls' count, latencies and raw completions; and it is journaled and resumed.
    """

    value: float | str | None
    status: Status
    explanation: str = ""  # the judge's reasons, or why there is no value
    name: str = ""  # the metric or rating, where the producer knows it
    model: str = ""  # the judge model ("offline" for a proxy)
    calls: int = 0  # LLM calls made, repair attempts included
    latency_ms: tuple[float, ...] = ()  # each call's, as the service measured it (cached replies included)
    duration_ms: float = 0.0  # wall time of the whole outcome, every call and the scoring
    cached: bool = False  # every call was answered from the cache
    raw: tuple[dict[str, Any], ...] = ()  # the raw completions, so a changed metric can re-score

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {self.status!r}")
        if self.status == "ok":
            if self.value is None or (isinstance(self.value, (int, float)) and not math.isfinite(self.value)):
                raise ValueError(f"an ok outcome needs a finite value, got {self.value!r}")
        elif self.value is not None:
            raise ValueError(f"a {self.status} outcome has no value, got {self.value!r}")
        if self.status == "undetermined" and not self.explanation:
            raise ValueError("an undetermined outcome must say why")

    @classmethod
    def scored(cls, value: float, explanation: str = "", **context: Any) -> Outcome:
        """An ok number (a metric's score), as a float."""
        return cls(float(value), "ok", explanation, **context)

    @classmethod
    def undetermined(cls, why: str, **context: Any) -> Outcome:
        return cls(None, "undetermined", why, **context)

    @classmethod
    def failed(cls, status: Status, why: str, **context: Any) -> Outcome:
        """No value because something went wrong (parse_error, api_error, no_answer) or nothing is defined."""
        return cls(None, status, why, **context)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def number(self) -> float | None:
        """The value when it is an ok number, else None: what a mean takes."""
        return float(self.value) if self.ok and isinstance(self.value, (int, float)) else None


def status_counts(outcomes: Iterable[Outcome], listed: tuple[str, ...] = JUDGE_STATUSES) -> dict[str, int]:
    """Outcomes per status, every `listed` status present (zeros included) so two reports line up;
    a status outside `listed` is counted after them when it occurs."""
    counts = dict.fromkeys(listed, 0)
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    return counts
