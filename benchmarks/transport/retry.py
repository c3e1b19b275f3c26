"""The one retry policy of every HTTP client bench runs: chat calls, the user's own service, embeddings.

Retried: HTTP 429, 5xx, timeouts and connection errors; any other status is final at once, since retrying
cannot fix a bad request or a bad key. The wait before attempt n+1 is the server's Retry-After (seconds or an
HTTP date, at most 300 s) when it gives one, else exponential backoff with full jitter: a random wait in
[0, min(30 s, 2 s * 2^(n-1))], so clients that failed together do not come back together. Timeouts, 429 and 503
mean the server is past what it can serve: they also lower the calls in flight (`transport.concurrency`).

Latency is the answering attempt's alone, from its request to its reply: neither the wait for a concurrency
slot nor the backoff before it. A slot is held only while a request is on the wire. Waits go through an
injectable `sleep` and draw from an injectable `random`, so tests check them exactly and nothing waits.
"""

from __future__ import annotations

import asyncio
import random as randomness
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Generic, Self, TypeVar

from benchmarks.transport.concurrency import AdaptiveLimit

FIRST_WAIT_S = 2.0
MAX_WAIT_S = 30.0
MAX_RETRY_AFTER_S = 300.0  # a broken or hostile Retry-After must not stall a run for hours
OVERLOADING_STATUSES = frozenset({429, 503})

Sleep = Callable[[float], Awaitable[None]]
Random = Callable[[], float]  # a draw from [0, 1], as `random.random`
T = TypeVar("T")
E = TypeVar("E")
R = TypeVar("R")  # an attempt's result, `T | Failed[E]`: one variable, as mypy solves no union of two from itself


def retryable_status(status: int) -> bool:
    """429 and 5xx may pass; any other status would only fail again."""
    return status == 429 or status >= 500


@dataclass(frozen=True)
class Failed(Generic[E]):
    """A failed attempt: what went wrong (`error`, in the caller's terms) and what the policy makes of it."""

    error: E
    retryable: bool
    overloads: bool = False
    headers: Mapping[str, str] | None = None  # the failed reply's, for its Retry-After

    @classmethod
    def status(cls, error: E, status: int, headers: Mapping[str, str] | None = None) -> Self:
        return cls(error, retryable_status(status), status in OVERLOADING_STATUSES, headers)

    @classmethod
    def timeout(cls, error: E) -> Self:
        """No reply in time: the server is too busy, so fewer calls in flight as well as a later retry."""
        return cls(error, retryable=True, overloads=True)

    @classmethod
    def connection(cls, error: E) -> Self:
        return cls(error, retryable=True)

    @classmethod
    def final(cls, error: E) -> Self:
        return cls(error, retryable=False)


@dataclass(frozen=True)
class Tried(Generic[T, E]):
    """What the attempts came to: the value or the last failure, how many were made and the answering attempt's
    latency. Internal to the policy's callers, which turn it into their own reply (`Completion`, `EndpointReply`),
    so it is not one more kind of reply."""

    value: T | None
    failure: Failed[E] | None
    attempts: int
    latency_ms: float

    def explain(self, reason: str) -> str:
        """The failure's `reason`, saying so when it could have passed on a later attempt (they ran out)."""
        gave_up = self.failure is not None and self.failure.retryable
        return f"{reason} (gave up after {self.attempts} attempts)" if gave_up else reason


@dataclass(frozen=True)
class RetryPolicy:
    """Up to `max_attempts` tries, waiting `wait_s` between them."""

    max_attempts: int
    sleep: Sleep = asyncio.sleep
    random: Random = field(default=randomness.random)

    def wait_s(self, attempt: int, headers: Mapping[str, str] | None = None) -> float:
        """The wait after failed attempt `attempt` (1-based): Retry-After if given, else full jitter."""
        asked = retry_after_s(headers) if headers is not None else None
        if asked is not None:
            return min(asked, MAX_RETRY_AFTER_S)
        return self.random() * min(FIRST_WAIT_S * 2.0 ** (attempt - 1), MAX_WAIT_S)

    async def run(self, attempt: Callable[[], Awaitable[T | Failed[E]]], limit: AdaptiveLimit | None = None
                  ) -> Tried[T, E]:
        """Call `attempt` until it succeeds, fails for good or runs out of attempts; each attempt holds a slot
        of `limit` only while on the wire, so a lowered limit takes effect at once and the backoff queues
        nobody behind it."""
        attempts = 0
        while True:
            attempts += 1
            result, latency_ms = await _timed(attempt, limit)
            if not isinstance(result, Failed):
                return Tried(result, None, attempts, latency_ms)
            if not result.retryable or attempts >= self.max_attempts:
                return Tried(None, result, attempts, latency_ms)
            await self.sleep(self.wait_s(attempts, result.headers))


async def _timed(attempt: Callable[[], Awaitable[R]], limit: AdaptiveLimit | None) -> tuple[R, float]:
    """One attempt and its milliseconds, inside a slot of `limit` when there is one."""
    if limit is None:
        started = time.perf_counter()
        return await attempt(), ms_since(started)
    async with limit.slot() as episode:  # the limit learns how it went before the slot is freed
        started = time.perf_counter()
        result = await attempt()
        latency_ms = ms_since(started)
        if not isinstance(result, Failed):
            limit.succeeded()
        elif result.overloads:
            limit.overloaded(episode)
    return result, latency_ms


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """Retry-After as seconds: the header is either a number of seconds or an HTTP date."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000" dates come back naive; HTTP dates are always UTC
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - time.time())


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
