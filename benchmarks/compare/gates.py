"""bench.gates.toml: which metrics gate a pull request, and how.

    [defaults]                 # optional, applies to every metric
    min_effect = 0.01

    [metrics."ndcg@10"]
    primary = true             # shown in the headline table; fails the comparison by default
    min_effect = 0.02          # smallest |Δ| that counts as a change (status regressed/improved/~)
    max_drop = 0.01            # a significant regression up to this size is tolerated
    floor = 0.70               # the candidate must stay at or above this (at or below for lower-is-better)
    max_lost = 0.02            # share of the base's scored items that may lose their value (primary metrics)
    pass_threshold = 0.5       # a case passes at or above it (at or below for lower-is-better); cases.py
    max_flipped_to_fail = 0    # cases that may go from pass to fail (unset: by the set's size, cases.py)
    action = "fail"            # or "warn"; default: fail for primary metrics, warn for the rest

Without a gates file, or when it declares no primary metric, the report's main metric is primary.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.compare.result import Action
from benchmarks.errors import BenchError
from benchmarks.toml_file import read_toml

KEYS: dict[str, type | tuple[type, ...]] = {
    "primary": bool, "min_effect": (int, float), "max_drop": (int, float), "floor": (int, float),
    "max_lost": (int, float), "pass_threshold": (int, float), "max_flipped_to_fail": int, "action": str,
}
DEFAULTS = ("min_effect", "max_drop", "max_lost", "pass_threshold", "max_flipped_to_fail", "action")
NUMBERS = ("min_effect", "max_drop", "floor", "max_lost", "pass_threshold")
DEFAULT_FILE = "bench.gates.toml"


@dataclass(frozen=True)
class Gate:
    primary: bool | None = None
    min_effect: float | None = None
    max_drop: float | None = None
    floor: float | None = None
    max_lost: float | None = None
    pass_threshold: float | None = None
    max_flipped_to_fail: int | None = None
    action: Action | None = None


@dataclass(frozen=True)
class Gates:
    defaults: Gate = Gate()
    metrics: dict[str, Gate] | None = None
    source: str | None = None

    def for_metric(self, name: str) -> Gate:
        own = (self.metrics or {}).get(name, Gate())
        d = self.defaults
        return Gate(
            primary=own.primary,
            min_effect=own.min_effect if own.min_effect is not None else d.min_effect,
            max_drop=own.max_drop if own.max_drop is not None else d.max_drop,
            floor=own.floor,
            max_lost=own.max_lost if own.max_lost is not None else d.max_lost,
            pass_threshold=own.pass_threshold if own.pass_threshold is not None else d.pass_threshold,
            max_flipped_to_fail=(own.max_flipped_to_fail if own.max_flipped_to_fail is not None
                                 else d.max_flipped_to_fail),
            action=own.action if own.action is not None else d.action,
        )

    def primaries(self, main_metric: str) -> list[str]:
        declared = [name for name, gate in (self.metrics or {}).items() if gate.primary]
        return declared or [main_metric]


def parse(data: dict[str, Any], source: str = DEFAULT_FILE) -> Gates:
    unknown = set(data) - {"defaults", "metrics"}
    if unknown:
        raise BenchError(f"{source}: unknown section(s) {', '.join(sorted(unknown))} (expected defaults, metrics)")
    defaults = _gate(data.get("defaults", {}), f"{source} [defaults]", allow=DEFAULTS)
    metrics = data.get("metrics", {})
    if not isinstance(metrics, dict):
        raise BenchError(f"{source}: [metrics] must be a table of metric tables")
    return Gates(defaults, {name: _gate(table, f'{source} [metrics."{name}"]') for name, table in metrics.items()},
                 source)


def _typed(value: Any, kind: type | tuple[type, ...]) -> bool:
    """Whether a value read from TOML has its key's type: true and false are no numbers."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _gate(table: Any, where: str, allow: tuple[str, ...] | None = None) -> Gate:
    if not isinstance(table, dict):
        raise BenchError(f"{where}: must be a table")
    fields: dict[str, Any] = {}
    for key, value in table.items():
        kind = KEYS.get(key)
        if kind is None or (allow is not None and key not in allow):
            raise BenchError(f"{where}: unknown key '{key}' (expected {', '.join(allow or KEYS)})")
        if not _typed(value, kind):
            raise BenchError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")
        if key == "action" and value not in ("fail", "warn"):
            raise BenchError(f"{where}: action must be \"fail\" or \"warn\", not \"{value}\"")
        if key in ("min_effect", "max_drop") and value < 0:
            raise BenchError(f"{where}: '{key}' must not be negative")
        if key == "max_lost" and not 0 <= value < 1:
            raise BenchError(f"{where}: 'max_lost' is a share of the base's scored items, from 0 up to (not "
                             f"including) 1, not {value}")
        if key == "max_flipped_to_fail" and value < 0:
            raise BenchError(f"{where}: 'max_flipped_to_fail' is a count of cases, 0 or more, not {value}")
        fields[key] = float(value) if key in NUMBERS else value
    return Gate(**fields)


def load_gates(path: Path | None) -> Gates:
    """The given file (it must exist), else ./bench.gates.toml when present, else no gates."""
    if path is None:
        path = Path(DEFAULT_FILE)
        data = read_toml(path, "gates file", missing_ok=True)
    else:
        data = read_toml(path, "gates file")
    return Gates() if data is None else parse(data, str(path))
