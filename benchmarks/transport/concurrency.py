"""How many chat calls bench keeps in flight: as many as the endpoint keeps up with, at most the setting.

A local server with 4 slots queues the rest of 16 concurrent requests; each queued request's clock runs
while it waits behind bench's own calls, so it times out, is retried and its finished work is thrown
away, and its "latency" is queueing. The limit therefore adapts as TCP's congestion window does
(additive increase, multiplicative decrease): a timeout, 429 or 503 halves it, once per episode (the
calls already in flight when it was halved cannot halve it again); a run of successes as long as the
limit raises it by one, up to the configured ceiling.

The LLM service, the user's own HTTP service and the embeddings endpoint all keep to one such limit; the
embeddings endpoint's threads read it under their own lock, with `episode` for `overloaded`.

A server that says how many requests it serves at once (llama.cpp's `/props` `total_slots`) sets the ceiling
at once: calls beyond its slots only queue there, and a local judge's queue is minutes long.

Waiting calls go in the order of the units they serve (`unit_order`, set by `resumable.each_once`), oldest
first, and in their order of arrival within a unit. A judged sample is a chain of calls over one context (the
knowledge's answer, then each claim); taken first come first served, the next link of the first sample queued
behind the first calls of every other open sample, and by its turn the server slot that held its context had
read another. Oldest first, a sample's calls follow each other on the slot that holds its context, and the
open units finish in order.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar

from benchmarks.report_model import Concurrency

# The position of the unit (item, sample) a call serves, in its run's order; calls outside a unit come last.
unit_order: ContextVar[int] = ContextVar("unit_order", default=1 << 62)


class AdaptiveLimit:
    """A concurrency bound that moves between 1 and `ceiling`; its history is reported with the run."""

    def __init__(self, ceiling: int):
        self.ceiling = ceiling
        self.limit = ceiling
        self.lowest = ceiling
        self.reductions = 0
        self.server_slots: int | None = None
        self.in_flight = 0
        self.episode = 0  # how many times the limit was halved: a call remembers the one it started in
        self._successes = 0
        self._condition: asyncio.Condition | None = None  # made by the first call, in its run's event loop
        self._waiting: list[tuple[int, int]] = []  # (unit order, arrival): a heap, the next call to go on top
        self._arrivals = itertools.count()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Wait for a free slot; yields the episode the call starts in, for `overloaded`."""
        if self._condition is None:
            self._condition = asyncio.Condition()
        condition = self._condition
        ticket = (unit_order.get(), next(self._arrivals))
        async with condition:
            heapq.heappush(self._waiting, ticket)
            try:
                await condition.wait_for(lambda: self.in_flight < self.limit and self._waiting[0] == ticket)
            except BaseException:  # cancelled while waiting: the calls behind it must not wait for it
                self._waiting.remove(ticket)
                heapq.heapify(self._waiting)
                condition.notify_all()
                raise
            heapq.heappop(self._waiting)
            self.in_flight += 1
            condition.notify_all()  # the next in line may fit too
        try:
            yield self.episode
        finally:
            async with condition:
                self.in_flight -= 1
                condition.notify_all()

    def overloaded(self, episode: int) -> None:
        """The endpoint timed out or asked to slow down: halve, unless it was halved since the call began."""
        if episode != self.episode:
            return
        self.episode += 1
        self._successes = 0
        self.limit = max(1, self.limit // 2)
        self.lowest = min(self.lowest, self.limit)
        self.reductions += 1

    def match(self, slots: int) -> None:
        """At most the server's slots in flight (never more than the setting allows)."""
        self.server_slots = slots
        self.ceiling = min(self.ceiling, slots)
        self.limit = min(self.limit, self.ceiling)
        self.lowest = min(self.lowest, self.limit)

    def succeeded(self) -> None:
        self._successes += 1
        if self._successes >= self.limit and self.limit < self.ceiling:
            self.limit += 1
            self._successes = 0

    def report(self) -> Concurrency:
        return Concurrency(ceiling=self.ceiling, final=self.limit, lowest=self.lowest, reductions=self.reductions,
                           server_slots=self.server_slots)
