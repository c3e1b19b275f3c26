"""The built-in judged metrics, one module each: everything a metric is, in one place.

A module declares its metric's judge calls (each a template under `benchmarks/prompts/<lang>/` with
the variables it renders, its token budget and the pydantic answer shape that both validates the
answer and gives the JSON schema sent as `response_format`), the coroutine with which the LLM judge
scores it (`score(judge, sample, model, trace)`, built on the toolkit of `benchmarks.judge.llm.judge`),
and `METRIC`, its `JudgedMetric` declaration (`judged_metrics.declaration`): what it reads, how many calls it
makes, its offline proxy (`benchmarks.judge.offline.proxies`) or why it has none. Its formula is a pure function
in the module when no other metric uses it, else in `benchmarks.metrics.judged`, which the offline proxies feed
too.

The modules are found, not listed: a module here is a metric, named by its file (`benchmarks.judge.catalog`
checks that its METRIC says the same name). So adding a metric is a module here and its templates.
"""

from __future__ import annotations

import pkgutil


def names() -> tuple[str, ...]:
    """The built-in judged metrics, by module, without importing one: what `bench evaluate --help` lists, so
    showing help never loads a judge."""
    return tuple(sorted(module.name for module in pkgutil.iter_modules(__path__) if not module.name.startswith("_")))
