"""Raw values (a TOML value, an environment string, a command-line value) turned into a setting's type.

The environment holds only strings, so a list is comma-separated there and a table is JSON; a
failure names where the value was given (`where`) and what was expected.
"""

from __future__ import annotations

import json
import math
import os
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from benchmarks.errors import BenchError, closest

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def coerce(hint: Any, raw: Any, where: str, parse: Callable[[Any, str], Any] | None = None) -> Any:
    """`raw` as a value of the declared type `hint`; a table is read by its field's own `parse`."""
    if parse is not None:
        return parse(raw, where)
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType)
    target = next(a for a in typing.get_args(hint) if a is not type(None)) if optional else hint
    if typing.get_origin(target) is Literal:
        choices = typing.get_args(target)
        if raw not in choices:
            raise BenchError(f"{where}: expected one of {', '.join(choices)}, got {raw!r}{_meant(raw, choices, where)}")
        return raw
    if target is bool:
        return _to_bool(raw, where)
    if typing.get_origin(target) is tuple:
        return _to_names(raw, where)
    try:
        if target is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise ValueError
            return int(raw)
        if target is float:
            if isinstance(raw, bool):
                raise TypeError
            value = float(raw)
            if not math.isfinite(value):
                raise ValueError
            return value
        if isinstance(raw, Path):  # typer hands path options over as Path objects
            raw = str(raw)
        if not isinstance(raw, (str, int)) or isinstance(raw, bool):
            raise TypeError
        if target is Path:
            return Path(os.path.expanduser(str(raw)))
        if not isinstance(raw, str):
            raise TypeError
        return raw
    except (TypeError, ValueError):
        raise BenchError(f"{where}: expected {target.__name__}, got {raw!r}") from None


def _meant(raw: Any, choices: tuple[str, ...], where: str) -> str:
    """The choice a mistyped value was close to, written as it would be given: on the command line the whole
    option (`--judge offline`), so it can be typed again as it is; elsewhere the value."""
    close = closest(str(raw), choices, n=1)
    if not close:
        return ""
    return f"; did you mean {where} {close[0]}?" if where.startswith("--") else f"; did you mean {close[0]!r}?"


def _to_bool(raw: Any, where: str) -> bool:
    """TOML gives real booleans; the environment gives the words people write in shell scripts."""
    if isinstance(raw, bool):
        return raw
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise BenchError(f"{where}: expected true or false, got {raw!r}")


def _to_names(raw: Any, where: str) -> tuple[str, ...]:
    """A TOML list, or a comma-separated string from the environment (model ids contain no commas)."""
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise BenchError(f"{where}: expected a list of names, got {raw!r}")
    names = tuple(item.strip() for item in items if item.strip())
    repeated = first_repeated(names)
    if repeated is not None:
        raise BenchError(f"{where}: '{repeated}' is listed twice")
    return names


def first_repeated(names: tuple[str, ...] | list[str]) -> str | None:
    """The first name given more than once, if any."""
    return next((name for name in names if names.count(name) > 1), None)


def from_json_text(raw: Any, expected: str) -> Any:
    """A value as TOML gives it, or the same value as JSON text from the environment."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        raise BenchError(f"{expected}, got text that is not JSON") from None


def table(raw: Any, expected: str) -> dict[str, Any]:
    """A TOML table, or the same table as JSON text from the environment."""
    raw = from_json_text(raw, expected)
    if not isinstance(raw, dict):
        raise BenchError(f"{expected}, got {raw!r}")
    return raw


def dimensions_table(raw: Any, where: str) -> dict[str, int]:
    """model -> output dimension."""
    expected = f"{where}: expected a table of model = dimensions"
    parsed = table(raw, expected)
    for model, dimension in parsed.items():
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise BenchError(f"{expected}; model '{model}' has {dimension!r}")
    return dict(parsed)


def prices_table(raw: Any, where: str) -> dict[str, dict[str, float]]:
    """model -> {input, output} in USD per 1M tokens; the environment spells the same table as JSON."""
    expected = f"{where}: expected a table of model = {{ input = USD, output = USD }} per 1M tokens"
    parsed = table(raw, expected)
    prices: dict[str, dict[str, float]] = {}
    for model, price in parsed.items():
        if not isinstance(price, dict) or set(price) != {"input", "output"}:
            raise BenchError(f"{expected}; model '{model}' has {price!r}")
        for side, value in price.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise BenchError(f"{expected}; model '{model}' {side} must be a number of at least 0, "
                                 f"got {value!r}")
        prices[model] = {"input": float(price["input"]), "output": float(price["output"])}
    return prices
