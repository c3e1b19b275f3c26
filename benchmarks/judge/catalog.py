"""Every judged metric, collected: the built-in ones, each declared in its module of
`benchmarks.judge.judged_metrics.builtin`, and a user's rubric metrics from bench.toml
(`benchmarks.judge.judged_metrics.rubric`), which become declarations like the built-in ones:
`metrics(settings.rubrics)` gives both.

Everything else is derived from the declarations: `--metrics` checking (`require_known`), what
`--dry-run` shows and counts (`JudgedMetric.planned_calls`), `--judge offline` (`require_proxies`,
`offline_score`, `describe`), the judge (`LLMJudge.score`), and the report (direction, prompt hashes,
notes).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from benchmarks.config import Settings
from benchmarks.embedding.embed import Embed
from benchmarks.errors import BenchError, SettingError, closest
from benchmarks.judge import claims
from benchmarks.judge.judged_metrics import builtin
from benchmarks.judge.judged_metrics.declaration import JudgedMetric, fixed
from benchmarks.judge.judged_metrics.rubric import NO_PROXY, Rubric, rubrics_of
from benchmarks.judge.judged_metrics.rubric import score as score_rubric
from benchmarks.judge.llm.prompts import RUBRIC, SHARED_CALLS, JudgeCall, Language, TemplateError
from benchmarks.judge.offline import proxies, support
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.judge.options import JudgeOptions, Verdicts
from benchmarks.judge.ratings import offline as offline_ratings
from benchmarks.metrics import judged
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.report_model import RubricNote
from benchmarks.samples import Sample


def _declared(module_name: str) -> JudgedMetric:
    """A metric module's declaration, which must carry its module's name: the name users type is the file's."""
    declared: JudgedMetric = importlib.import_module(f"{builtin.__name__}.{module_name}").METRIC
    if declared.name != module_name:
        raise ImportError(f"judge/judged_metrics/builtin/{module_name}.py declares a metric named {declared.name!r}; "
                          "a metric module is named as its metric")
    return declared


BUILTINS: Mapping[str, JudgedMetric] = MappingProxyType({name: _declared(name) for name in builtin.names()})
OFFLINE_METRICS: frozenset[str] = frozenset(name for name, m in BUILTINS.items() if m.offline)
# Every call bench's judges make, by name: one template file per call and language under prompts/<lang>/.
CALLS: Mapping[str, JudgeCall] = MappingProxyType(
    {call.name: call for call in (*SHARED_CALLS, *(c for m in BUILTINS.values() for c in (*m.calls, *m.yes_no)))})


def rubric_metric(declared: Rubric) -> JudgedMetric:
    """A bench.toml rubric as a judged metric: one call per sample, higher is better, no offline proxy."""
    criteria = declared.criteria.get("en") or next(iter(declared.criteria.values()))
    return JudgedMetric(
        name=declared.name,
        help=f"rubric ({declared.scale}, bench.toml): {criteria}",
        needs=declared.needs,
        calls=(RUBRIC,),
        planned_calls=fixed(1),
        score=functools.partial(score_rubric, declared),
        no_offline=NO_PROXY,
        rubric=declared,
    )


def metrics(rubrics: Mapping[str, Mapping[str, object]] | None = None) -> Mapping[str, JudgedMetric]:
    """The built-in metrics, then the rubrics of the `rubrics` setting (pass `settings.rubrics`); a rubric may
    not take a built-in metric's name (checked here, where the built-in ones are known)."""
    found = dict(BUILTINS)
    for declared in rubrics_of(rubrics):
        if declared.name in BUILTINS:
            raise SettingError("rubrics", f"rubric '{declared.name}': '{declared.name}' is a built-in metric; give "
                                          "the rubric another name")
        found[declared.name] = rubric_metric(declared)
    return MappingProxyType(found)


def require_known(names: Sequence[str], known: Mapping[str, JudgedMetric] = BUILTINS, *,
                  setting: str = "metrics") -> None:
    """The metrics of evaluate (`setting` metrics) and tiers 2/3 (extra_metrics): one message for every unknown
    name, with the metrics it is probably a typo of, the whole list only when none is close. Raised as the
    setting's error, so the command line names its flag and Python its argument."""
    if not names:
        raise SettingError(setting, f"no metric given; known: {', '.join(known)}")
    unknown = {m: closest(m, known) for m in names if m not in known}
    if unknown:
        clauses = [f"unknown metric {m!r}" + (f"; did you mean {' or '.join(map(repr, close))}?" if close else "")
                   for m, close in unknown.items()]
        listed = "" if all(unknown.values()) else f"; known: {', '.join(known)}"
        raise SettingError(setting, "; ".join(clauses) + listed)


def require_proxies(names: Sequence[str], known: Mapping[str, JudgedMetric] = BUILTINS) -> None:
    """Refuse `--judge offline` for metrics without a proxy before any work, saying why and naming those
    that have one."""
    unsupported = [m for m in names if known[m].offline is None]
    if unsupported:
        offline_names = sorted(name for name, m in known.items() if m.offline)
        why = "; ".join(f"{m}: {known[m].no_offline}" for m in unsupported)
        raise BenchError(f"--judge offline has no proxy for {', '.join(unsupported)}; offline metrics: "
                         f"{', '.join(offline_names)} ({why})")


def require_language(names: Sequence[str], known: Mapping[str, JudgedMetric], language: Language) -> None:
    """Refuse, before any call, a rubric whose criteria are not written in the run's prompt language."""
    problems = [problem for m in names if (r := known[m].rubric) and (problem := r.missing_language(language))]
    if problems:
        raise BenchError("; ".join(problems))


def calls_of(metric: str, known: Mapping[str, JudgedMetric] = BUILTINS, verdicts: Verdicts = "statements"
             ) -> tuple[JudgeCall, ...]:
    """The judge calls a metric makes; an unknown metric is an error listing the known ones."""
    if metric not in known:
        raise TemplateError(f"no judge calls for metric {metric!r}; known: {', '.join(known)}")
    return known[metric].calls_for(verdicts)


def prompt_hashes(names: Sequence[str], known: Mapping[str, JudgedMetric], language: Language,
                  verdicts: Verdicts) -> dict[str, str]:
    """sha256 of every prompt the named metrics send, for a report's provenance."""
    return {key: digest for m in names for key, digest in known[m].prompt_hashes(language, verdicts).items()}


def rubric_notes(names: Sequence[str], known: Mapping[str, JudgedMetric]) -> dict[str, RubricNote]:
    """The rubrics among the named metrics, as a report's notes describe them (criteria, scale, fields)."""
    return {m: r.describe() for m in names if (r := known[m].rubric)}


def require_offline_settings(names: Sequence[str], settings: Settings) -> None:
    """The settings the offline proxies cannot honour, refused in one line before any work (the others they read
    as the LLM form does: `proxies.score_with`'s options). RAGAS's claim counting counts the claims an LLM judge
    extracts; offline context_precision has only the reference to judge the contexts by."""
    if settings.claim_counting == "ragas":
        raise BenchError("claim_counting ragas counts the claims an LLM judge extracts; --judge offline scores "
                         "sentences, so it has no RAGAS number to give (leave claim_counting at sides)")
    if "context_precision" in names and settings.precision_against == "response":
        raise BenchError("precision_against response: offline context_precision judges the contexts by the "
                         "reference only; leave precision_against at auto or reference, or use an LLM judge")


def offline_score(metric: str, sample: Sample, embed: Embed, *, scale: SimilarityScale,
                  language: str = "en", options: JudgeOptions = JudgeOptions(), **thresholds: float) -> Outcome:
    """The offline proxy a built-in metric declares, on one sample (`proxies.score_with`), under the run's
    options."""
    return proxies.score_with(_proxy(metric), sample, embed, scale=scale, language=language, options=options,
                              **thresholds)


@functools.cache
def offline_sha256() -> str:
    """What the offline judge is, as the LLM judge's prompts' hashes say what it was asked: the sha256 of the code
    that decides its numbers (the support test and the proxies, the reading of claims, the ratings' proxies, the
    metrics' formulas). A report names it, and `bench compare` makes judged metrics not comparable across two of
    them, as across two models; an edit elsewhere in bench leaves it as it is."""
    digest = hashlib.sha256()
    for module in (support, proxies, claims, offline_ratings, judged):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def describe(metric: str) -> str:
    """One line for the report, so an offline number is never read as the LLM metric's."""
    return _proxy(metric).description


def _proxy(metric: str) -> OfflineProxy:
    declared = BUILTINS.get(metric)
    if declared is None or declared.offline is None:
        raise ValueError(f"metric {metric!r} has no offline proxy; offline metrics: "
                         f"{', '.join(sorted(OFFLINE_METRICS))}")
    return declared.offline
