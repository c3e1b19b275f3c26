"""Labels under a name that is no metric: the one mistake in a labelled file that nothing else would show.

A label is read by the metric (or rating) whose name it is under; one under `faithfullness` is read by nothing,
so the run would end with no agreement line and no word why. Light on purpose (no numpy): the tiers' input
checks run before any heavy import.
"""

from __future__ import annotations

from collections.abc import Iterable

from benchmarks.errors import closest


def unknown_label_lines(units: Iterable[tuple[str, tuple[tuple[str, float], ...]]], known: Iterable[str], *,
                        source: str, noun: str, kind: str) -> list[str]:
    """One warning line per label name that is no known `kind` ("metric", "rating"), with how many of the
    `units` (id, labels) give it, the first of them, and the closest known name. `noun`: a unit, singular."""
    names = list(known)
    found: dict[str, list[str]] = {}
    for unit_id, labels in units:
        for name, _ in labels:
            if name not in names:
                found.setdefault(name, []).append(unit_id)
    lines = []
    for name, ids in found.items():
        guess = closest(name, names, n=1)
        hint = f"did you mean '{guess[0]}'?" if guess else f"known: {', '.join(sorted(names))}"
        lines.append(f"warning: {source}: {len(ids)} {noun}{'' if len(ids) == 1 else 's'} "
                     f"{'has' if len(ids) == 1 else 'have'} a label under '{name}' (first: {noun} {ids[0]}), which "
                     f"is no {kind} ({hint}); nothing reads those labels")
    return lines
