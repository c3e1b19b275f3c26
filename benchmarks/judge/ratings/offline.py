"""`--judge offline` for the seed's direct ratings: each mapped onto an offline proxy, or refused.

The proxies are those of `benchmarks.judge.offline.proxies` (claim support by embeddings, shared
content words); a report names the mapping next to every number. answer_relevance has none, for
the reason response_relevancy gives for having none: a question-to-answer cosine is on another scale
and cannot see an evasive answer, so a tier reports it as not measured rather than as a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from benchmarks.embedding.embed import Embed
from benchmarks.judge.judged_metrics.builtin import answer_correctness, faithfulness
from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.judge.offline.proxies import OfflineProxy, score_with
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


def _proxy(metric: JudgedMetric) -> OfflineProxy:
    assert metric.offline is not None  # both metrics a rating is mapped onto declare one
    return metric.offline


_FAITHFULNESS, _CORRECTNESS = _proxy(faithfulness.METRIC), _proxy(answer_correctness.METRIC)
# each rating that has a proxy: the built-in metric's proxy that grades it, and what a report prints beside it
_PROXIES: Mapping[str, tuple[OfflineProxy, str]] = {
    "faithfulness": (_FAITHFULNESS, _FAITHFULNESS.description),
    "answer_correctness": (_CORRECTNESS, "1 + 4 × the offline answer_correctness (0–1 mapped linearly onto 1–5); "
                           + _CORRECTNESS.description),
    "e2e_score": (_CORRECTNESS, "the offline answer_correctness against the reference answer; "
                  + _CORRECTNESS.description),
}
OFFLINE_RATINGS = frozenset(_PROXIES)
NO_PROXY = "no offline proxy: a question-to-answer cosine is on another scale and cannot see an evasive answer"


def describe_rating(name: str) -> str:
    return _PROXIES[name][1] if name in _PROXIES else NO_PROXY


def offline_rating(name: str, variables: Mapping[str, str], embed: Embed, *, scale: SimilarityScale,
                   language: str) -> Outcome:
    """The proxy of one rating for one answer; undetermined (with the reason) where there is none."""
    if name not in _PROXIES:
        return Outcome.undetermined(NO_PROXY)
    score = score_with(_PROXIES[name][0], rated_sample(name, variables), embed, scale=scale, language=language)
    if name == "answer_correctness" and score.value is not None:
        return Outcome.scored(1.0 + 4.0 * cast(float, score.value), score.explanation)  # a metric's score
    return score


def rated_sample(name: str, variables: Mapping[str, str]) -> Sample:
    """The sample the rating's proxy scores: the answer against the context (faithfulness) or the reference."""
    if name not in _PROXIES:
        raise ValueError(f"{name} has no offline proxy: {NO_PROXY}")
    if _PROXIES[name][0] is _FAITHFULNESS:
        return Sample(id="", user_input=variables["question"], response=variables["answer"],
                      retrieved_contexts=(variables["context"],))
    return Sample(id="", user_input=variables["question"], response=variables["answer"],
                  reference=variables["reference"])


def proxy_fields(name: str) -> tuple[str, ...]:
    """The sample fields the rating's proxy reads, none without a proxy: which texts a tier embeds ahead of
    grading (`proxies.texts_to_embed`)."""
    return _PROXIES[name][0].needs if name in _PROXIES else ()
