"""The one retry policy: full-jitter backoff, Retry-After, what is retried and what lowers the calls in flight."""

from __future__ import annotations

import asyncio
import random

import pytest

from benchmarks.transport.concurrency import AdaptiveLimit, unit_order
from benchmarks.transport.retry import Failed, RetryPolicy


def test_the_top_of_each_wait_doubles_from_2_s_to_30_s():
    policy = RetryPolicy(8, random=lambda: 1.0)
    assert [policy.wait_s(n) for n in range(1, 8)] == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


def test_full_jitter_draws_anywhere_below_the_top_and_a_seed_repeats_the_draws():
    draws = [RetryPolicy(3, random=random.Random(seed).random).wait_s(3) for seed in (1, 1, 2)]
    assert all(0.0 <= wait <= 8.0 for wait in draws)
    assert draws[0] == draws[1] != draws[2]
    assert RetryPolicy(3, random=lambda: 0.0).wait_s(5) == 0.0


def test_retry_after_is_taken_as_given_and_capped_without_jitter():
    policy = RetryPolicy(3, random=lambda: 0.0)
    assert policy.wait_s(1, {"retry-after": "7"}) == 7.0
    assert policy.wait_s(1, {"retry-after": "86400"}) == 300.0
    assert policy.wait_s(2, {"retry-after": "soon"}) == 0.0  # unreadable: the backoff's draw


@pytest.mark.parametrize(("status", "retryable", "overloads"), [
    (429, True, True), (503, True, True), (500, True, False), (502, True, False), (400, False, False),
    (401, False, False), (404, False, False), (413, False, False)])
def test_which_statuses_are_retried_and_which_lower_the_limit(status, retryable, overloads):
    failed = Failed.status("reason", status)
    assert (failed.retryable, failed.overloads) == (retryable, overloads)


def test_backoff_frees_the_slot_and_latency_is_the_answering_attempts():
    """Two calls share one slot: the second goes out while the first backs off, and neither call's latency counts
    the other's attempt, its own backoff or its wait for the slot."""
    limit, log = AdaptiveLimit(1), []

    async def sleep(seconds: float) -> None:
        log.append(("sleep", limit.in_flight))
        await asyncio.sleep(0.05)

    policy = RetryPolicy(2, sleep=sleep, random=lambda: 1.0)

    def attempts(name: str, results: list[object]):
        async def attempt() -> object:
            log.append((name, limit.in_flight))
            return results.pop(0)
        return attempt

    async def go():
        return await asyncio.gather(policy.run(attempts("a", [Failed.status("busy", 500), "a"]), limit),
                                    policy.run(attempts("b", ["b"]), limit))

    first, second = asyncio.run(go())
    assert (first.value, first.attempts, second.value, second.attempts) == ("a", 2, "b", 1)
    assert log == [("a", 1), ("sleep", 0), ("b", 1), ("a", 1)]
    assert first.latency_ms < 40 and second.latency_ms < 40  # the 50 ms backoff is in neither


def test_timeouts_and_overloads_halve_the_limit_and_a_final_failure_is_not_retried():
    limit = AdaptiveLimit(4)
    policy = RetryPolicy(3, sleep=lambda seconds: asyncio.sleep(0), random=lambda: 1.0)
    results: list[object] = [Failed.timeout("slow"), Failed.final("bad request")]

    async def attempt() -> object:
        return results.pop(0)

    outcome = asyncio.run(policy.run(attempt, limit))
    assert (outcome.failure.error, outcome.attempts) == ("bad request", 2)
    assert outcome.explain("bad request") == "bad request"
    assert limit.report().written() == {"ceiling": 4, "final": 2, "lowest": 2, "reductions": 1, "server_slots": None}


def test_waiting_calls_go_oldest_unit_first_and_a_cancelled_wait_blocks_no_one():
    """Units 0 and 1 open at once over one slot, each a chain of two calls: unit 0's second call goes before
    unit 1's first, though it asked later; a waiter cancelled in line lets the ones behind it through."""
    limit, log = AdaptiveLimit(1), []

    async def unit(order: int) -> None:
        unit_order.set(order)
        for step in (1, 2):
            async with limit.slot():
                log.append((order, step))
                await asyncio.sleep(0.01)

    async def go():
        first = asyncio.create_task(unit(0))
        await asyncio.sleep(0)  # unit 0 holds the slot
        second = asyncio.create_task(unit(1))
        await asyncio.gather(first, second)

        async def wait_in_line(order: int) -> None:
            unit_order.set(order)
            async with limit.slot():
                log.append((order, "in"))

        async with limit.slot():  # the slot held while two wait; the first in line gives up
            cancelled, after = asyncio.create_task(wait_in_line(5)), asyncio.create_task(wait_in_line(6))
            await asyncio.sleep(0.01)
            cancelled.cancel()
        await after
        return cancelled

    cancelled = asyncio.run(go())
    assert log == [(0, 1), (0, 2), (1, 1), (1, 2), (6, "in")]
    assert cancelled.cancelled() and limit.in_flight == 0
