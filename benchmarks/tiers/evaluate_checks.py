"""What `bench evaluate` refuses or says before any work: unknown metrics, a judge it could not ask, fields no
sample gives. Apart from the tier's run (`tiers.evaluate`) so that a refusal imports the metrics' catalog and
the LLM settings only, not scipy, the database or torch: a mistyped file is refused in about a second.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchmarks.chat.routing import require_chat
from benchmarks.config import Origins, Settings
from benchmarks.errors import BenchError
from benchmarks.judge import catalog
from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.label_names import unknown_label_lines
from benchmarks.readers.samples import COLUMNS
from benchmarks.samples import SampleSet

Judged = Mapping[str, JudgedMetric]  # the run's metrics by name: catalog.metrics(settings.rubrics)


def checked_metrics(settings: Settings) -> Judged:
    """The run's judged metrics (built-in and the settings' rubrics), refusing before any work an unknown
    name, a metric without a proxy under the offline judge, a rubric without criteria in the language."""
    judged = catalog.metrics(settings.rubrics)
    names = settings.metrics or ()
    catalog.require_known(names, judged)
    if settings.judge_backend == "offline":
        catalog.require_proxies(names, judged)
        catalog.require_offline_settings(names, settings)
    catalog.require_language(names, judged, settings.language)
    return judged


def check(settings: Settings, origins: Origins) -> None:
    checked_metrics(settings)
    if settings.judge_backend == "llm":
        require_chat(settings, roles=(), judges=True)


def check_inputs(settings: Settings, samples: SampleSet) -> list[str]:
    """Every chosen metric's fields (those it reads under the run's judge) against the samples, before any
    embedding or judge call: a field no sample gives is an error naming the column and the metrics that need it
    (the run would measure nothing of them); one some samples lack, or give as whitespace alone, is a line saying
    how many will be undetermined; labels under a name that is no metric, a line per name."""
    judged, total = checked_metrics(settings), len(samples.samples)
    lacking: dict[str, int] = {}
    blank: dict[str, int] = {}
    needed_by: dict[str, list[str]] = {}
    for metric in settings.metrics or ():
        for name in judged[metric].reads(settings.judge_backend):
            lacking[name] = sum(getattr(sample, name) is None for sample in samples.samples)
            blank[name] = sum(sample.blank(name) for sample in samples.samples)
            needed_by.setdefault(name, []).append(metric)
    nowhere = [name for name, count in lacking.items() if count == total]
    if nowhere:
        raise BenchError("; ".join(f"no sample of {samples.name} gives {_column(name)}, which "
                                   f"{', '.join(needed_by[name])} need{'s' if len(needed_by[name]) == 1 else ''}"
                                   for name in nowhere))
    return [f"warning: {count} of {total} samples {how} {name}: {', '.join(needed_by[name])} will be undetermined "
            "on them" for how, counts in (("lack", lacking), ("have an empty", blank))
            for name, count in counts.items() if count] + unknown_label_lines(
        ((s.id, s.labels) for s in samples.samples), judged, source=samples.name, noun="sample", kind="metric")


def _column(field: str) -> str:
    """A field as a file gives it: its column names (RAGAS's, then bench's aliases)."""
    names = [column for column, meaning in COLUMNS.items() if meaning == field]
    return f"{field} (a column {' or '.join(names)})"

