"""The `[rubrics]` table of bench.toml, checked as a setting: a user's judged metrics in words.

Only the table's shape lives here, below the settings that hold it; how a rubric is asked and
scored is `benchmarks.judge.judged_metrics.rubric`'s. Like every table of bench.toml it comes after the top-level
settings; the environment gives the same table as JSON (`BENCH_RUBRICS`).

```toml
[rubrics.politeness]                     # the metric's name: --metrics politeness
scale = "binary"                         # binary: 0 or 1; "1-5": a whole number from 1 to 5
needs = ["user_input", "response"]       # the fields shown to the judge (default: these two)

[rubrics.politeness.criteria]            # the criterion, in each prompt language you judge in
en = "Is the response polite and free of blame towards the user?"
ru = "Вежлив ли ответ и обходится ли он без упрёков пользователю?"
```
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from benchmarks.errors import BenchError
from benchmarks.samples import FIELDS

SCALES: Mapping[str, tuple[int, int]] = {"binary": (0, 1), "1-5": (1, 5)}
DEFAULT_NEEDS = ("user_input", "response")
KEYS = ("criteria", "scale", "needs")
# how the fields are shown to the judge, in this order (the judged response last)
FIELD_ORDER = ("user_input", "retrieved_contexts", "reference", "response")
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def parse_rubrics(raw: Any, where: str, *, languages: Collection[str]) -> dict[str, dict[str, Any]]:
    """bench.toml's `[rubrics]` table (or the same as parsed JSON), checked: {name: {criteria, scale,
    needs}} in plain types, as the settings keep it (it goes into reports and a run's identity). Every
    problem is one BenchError naming `where` ("bench.toml: key 'rubrics'") and the rubric; `languages`: the
    prompt languages. That a rubric takes no built-in metric's name is checked by the judge's catalog, which
    knows them."""
    if not isinstance(raw, Mapping):
        raise BenchError(f"{where}: expected a table of rubrics ([rubrics.<name>] with criteria, scale, needs), "
                         f"got {raw!r}")
    rubrics: dict[str, dict[str, Any]] = {}
    for name, table in raw.items():
        at = f"{where}: rubric '{name}'"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise BenchError(f"{at}: a rubric's name is lowercase letters, digits and underscores, starting with a "
                             "letter")
        if name.startswith("avg_"):
            raise BenchError(f"{at}: names starting with avg_ are tiers 2 and 3's ratings; give the rubric another "
                             "name")
        if not isinstance(table, Mapping):
            raise BenchError(f"{at}: expected a table with criteria, scale and needs, got {table!r}")
        unknown = sorted(set(table) - set(KEYS))
        if unknown:
            raise BenchError(f"{at}: unknown key(s) {', '.join(unknown)}; a rubric has {', '.join(KEYS)}")
        rubrics[name] = {"criteria": _criteria(table.get("criteria"), at, languages),
                         "scale": _scale(table.get("scale"), at),
                         "needs": _needs(table.get("needs", list(DEFAULT_NEEDS)), at)}
    return rubrics


def _criteria(raw: Any, at: str, languages: Collection[str]) -> dict[str, str]:
    example = 'criteria = { en = "Is the response polite?", ru = "Вежлив ли ответ?" }'
    if raw is None:
        raise BenchError(f"{at}: criteria missing: {example}")
    if not isinstance(raw, Mapping) or not raw:
        raise BenchError(f"{at}: criteria must be a table of language = text ({example}), got {raw!r}")
    criteria = {}
    for language, text in raw.items():
        if language not in languages:
            raise BenchError(f"{at}: criteria in unknown language '{language}' (languages: {', '.join(languages)})")
        if not isinstance(text, str) or not text.strip():
            raise BenchError(f"{at}: criteria.{language} must be a non-empty text, got {text!r}")
        criteria[language] = text.strip()
    return criteria


def _scale(raw: Any, at: str) -> str:
    if raw not in SCALES:
        shown = "missing" if raw is None else f"got {raw!r}"
        raise BenchError(f"{at}: scale must be {' or '.join(SCALES)}, {shown}")
    return str(raw)


def _needs(raw: Any, at: str) -> list[str]:
    if not isinstance(raw, (list, tuple)) or not raw or not all(isinstance(f, str) for f in raw):
        raise BenchError(f"{at}: needs must be a non-empty list of sample fields ({', '.join(FIELDS)}), got {raw!r}")
    unknown = [f for f in raw if f not in FIELDS]
    if unknown:
        raise BenchError(f"{at}: needs: unknown sample field(s) {', '.join(unknown)}; fields: {', '.join(FIELDS)}")
    if len(set(raw)) != len(raw):
        raise BenchError(f"{at}: needs lists a field twice: {raw!r}")
    return [f for f in FIELD_ORDER if f in raw]
