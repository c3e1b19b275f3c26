"""`--judge offline` for the seed's direct ratings: each mapped onto an offline proxy, or refused.

The proxies are those of `benchmarks.judge.offline` (claim support by embeddings, shared
content words); a report names the mapping next to every number. answer_relevance has none, for
the reason `offline` gives for response_relevancy: a question-to-answer cosine is on another scale
and cannot see an evasive answer, so a tier reports it as not measured rather than as a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from benchmarks.judge.catalog import BUILTINS, describe, offline_score
from benchmarks.judge.offline import Embed
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

# each rating that has a proxy: the built-in metric whose proxy grades it, and what a report prints beside it
_PROXIES: Mapping[str, tuple[str, str]] = {
    "faithfulness": ("faithfulness", describe("faithfulness")),
    "answer_correctness": ("answer_correctness", "1 + 4 × the offline answer_correctness (0–1 mapped linearly "
                           "onto 1–5); " + describe("answer_correctness")),
    "e2e_score": ("answer_correctness", "the offline answer_correctness against the reference answer; "
                  + describe("answer_correctness")),
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
    metric = _PROXIES[name][0]
    score = offline_score(metric, rated_sample(name, variables), embed, scale=scale, language=language)
    if name == "answer_correctness" and score.value is not None:
        return Outcome.scored(1.0 + 4.0 * cast(float, score.value), score.explanation)  # a metric's score
    return score


def rated_sample(name: str, variables: Mapping[str, str]) -> Sample:
    """The sample the rating's proxy scores: the answer against the context (faithfulness) or the reference."""
    if name not in _PROXIES:
        raise ValueError(f"{name} has no offline proxy: {NO_PROXY}")
    if _PROXIES[name][0] == "faithfulness":
        return Sample(id="", user_input=variables["question"], response=variables["answer"],
                      retrieved_contexts=(variables["context"],))
    return Sample(id="", user_input=variables["question"], response=variables["answer"],
                  reference=variables["reference"])


def proxy_fields(name: str) -> tuple[str, ...]:
    """The sample fields the rating's proxy reads, none without a proxy: which texts a tier embeds ahead of
    grading (`offline.texts_to_embed`)."""
    proxy = BUILTINS[_PROXIES[name][0]].offline if name in _PROXIES else None
    return proxy.needs if proxy else ()
