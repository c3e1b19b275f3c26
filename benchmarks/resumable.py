"""Costly work item by item, each item done once across the sessions of a run.

Items a stopped session finished come back from the run journal; the rest are started in order
with only `open_at_once` of them open together, so items finish (and reach the journal) all along
rather than all at once after every first call is in, and a kill loses at most those open. An open item's
calls go before those of items opened after it (`transport.concurrency.unit_order`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from rich.progress import TaskID

from benchmarks.errors import InputError
from benchmarks.progress import Bars
from benchmarks.run_files.journal import Key, RunJournal, shown
from benchmarks.transport.concurrency import unit_order

U = TypeVar("U")
T = TypeVar("T")
D = TypeVar("D")


async def each_once(units: Sequence[U], key: Callable[[U], Key], work: Callable[[U], Awaitable[T]], *,
                    journal: RunJournal | None, encode: Callable[[T], dict[str, Any]],
                    decode: Callable[[U, dict[str, Any]], T], open_at_once: int,
                    advance: Callable[[], None] | None = None) -> list[T]:
    """`work` on every unit the journal does not hold, in the units' order; results in the units' order."""
    done: dict[Key, T] = {}
    for unit in units:
        if journal is not None and key(unit) in journal.restored:
            try:
                done[key(unit)] = decode(unit, journal.restored[key(unit)])
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(journal.items_path,
                                 f"item '{shown(key(unit))}' is not a row this command wrote ({exc})") from None
    gate = asyncio.Semaphore(open_at_once)

    async def one(order: int, unit: U) -> None:
        unit_order.set(order)  # this unit's calls go before those of units opened after it
        async with gate:
            result = await work(unit)
        if journal is not None:
            journal.append(key(unit), encode(result))
        done[key(unit)] = result
        if advance is not None:
            advance()

    await asyncio.gather(*(one(n, u) for n, u in enumerate(units) if key(u) not in done))
    return [done[key(u)] for u in units]


def progress_task(progress: Bars, description: str, units: Sequence[U], key: Callable[[U], Key],
                  journal: RunJournal | None, *, steps_per_unit: int = 1) -> TaskID:
    """A progress bar over `units` that starts at what a stopped session finished, and says so."""
    restored = 0 if journal is None else sum(key(u) in journal.restored for u in units)
    return progress.add_task(description + (f", {restored} resumed" if restored else ""),
                             total=len(units) * steps_per_unit, completed=restored * steps_per_unit)


def revive(cls: type[D], row: dict[str, Any]) -> D:
    """A journaled dataclass back from its JSON row (lists were tuples)."""
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in row.items()})
