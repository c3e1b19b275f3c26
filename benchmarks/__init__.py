"""bench: benchmark a retrieval-augmented generation system tier by tier.

The command line is `bench`; from Python the same runs are one import away:

    from benchmarks import evaluate, run
    result = evaluate(samples, ["faithfulness", "semantic_similarity"], judge="offline")
    tier1 = run("tier1", "synthetic")

The names in `__all__` are the public API. They are imported on first use (PEP 562), because the CLI
imports this package and `bench --help` must start without numpy, torch or the database.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from benchmarks._version import __version__ as __version__

__all__ = ["BenchError", "Evaluation", "MetricScore", "ReportedMetric", "Run", "Sample", "SampleResult", "aevaluate",
           "evaluate", "run"]

_HOMES = {"BenchError": "benchmarks.errors", "Sample": "benchmarks.samples"}  # the rest live in benchmarks._api

if TYPE_CHECKING:
    from benchmarks._api import (
        Evaluation,
        MetricScore,
        ReportedMetric,
        Run,
        SampleResult,
        aevaluate,
        evaluate,
        run,
    )
    from benchmarks.errors import BenchError
    from benchmarks.samples import Sample


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'benchmarks' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES.get(name, "benchmarks._api")), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
