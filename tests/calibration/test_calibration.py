"""Calibration: the seeds' worked examples scored by a real LLM judge must land in the seeds' ranges.

Needs an OpenAI-compatible endpoint and a model configured in the environment (BENCH_LLM_BASE_URL
or OPENAI_BASE_URL, BENCH_LLM_MODEL, and BENCH_LLM_API_KEY or OPENAI_API_KEY when the endpoint needs
one). Without them the run fails at collection, saying what to set: a calibration run that measured
nothing is not a success. The default test run (pyproject's testpaths) leaves this folder out;
`make calibrate` runs it by path. Each example makes a handful of judge calls; the cache is off, so
a rerun asks the judge again. The metrics that compare embeddings (here response_relevancy and
answer_correctness) get bench's default embedder and its similarity scale, as `bench evaluate` opens them;
the embedder and the embedded PostgreSQL of its cache start once per session, at the first such example.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from benchmarks.chat.client import LLMService
from benchmarks.config import Settings, load_settings
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.embedding.similarity_calibration import similarity_scale
from benchmarks.judge.catalog import BUILTINS
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.options import JudgeOptions
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.samples import Sample
from tests.calibration.cases import CASES

BASE_URL = os.environ.get("BENCH_LLM_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
MODEL = os.environ.get("BENCH_LLM_MODEL")
if not (BASE_URL and MODEL):
    pytest.fail(
        "calibration needs a real LLM judge and none is configured, so nothing was measured: "
        "set BENCH_LLM_BASE_URL (or OPENAI_BASE_URL) and BENCH_LLM_MODEL, "
        "plus BENCH_LLM_API_KEY (or OPENAI_API_KEY) if the endpoint needs a key",
        pytrace=False,
    )

pytestmark = pytest.mark.calibration


@pytest.fixture(scope="session")
def settings(tmp_path_factory) -> Settings:
    """The run's settings: the configured judge, the cache off, one data folder for the session (the embedding
    cache's embedded PostgreSQL lives there)."""
    environ = {**os.environ, "BENCH_LLM_BASE_URL": BASE_URL, "BENCH_LLM_MODEL": MODEL}
    loaded, _ = load_settings({"data_dir": str(tmp_path_factory.mktemp("calibration")), "llm_cache": False},
                              environ=environ)
    return loaded


class Embedding:
    """bench's default embedder with its similarity scale per language, as `bench evaluate` opens them: opened
    by the first example that embeds (loading the model and starting its cache's database take seconds) and
    kept until the session ends."""

    def __init__(self, settings: Settings, stack: ExitStack):
        self.settings = settings
        self.stack = stack
        self.embedder: CachedEmbedder | None = None
        self.memo: EmbeddingMemo | None = None
        self.scales: dict[str, SimilarityScale] = {}

    def __call__(self, language: str) -> tuple[EmbeddingMemo, SimilarityScale]:
        if self.embedder is None or self.memo is None:
            self.embedder = self.stack.enter_context(open_embedder(self.settings))
            self.memo = EmbeddingMemo(self.embedder, purpose="evaluate")
        if language not in self.scales:
            self.scales[language] = similarity_scale(self.embedder, self.settings, language)
        return self.memo, self.scales[language]


@pytest.fixture(scope="session")
def embedding(settings) -> Iterator[Embedding]:
    with ExitStack() as stack:
        yield Embedding(settings, stack)


def score(settings: Settings, embedding: Embedding, language: str, metric: str, sample: Sample,
          options: JudgeOptions | None = None) -> float:
    """One sample scored by the configured judge, with the embedder when the metric compares embeddings;
    anything but an ok outcome fails the test."""
    embed, scale = embedding(language) if BUILTINS[metric].embeddings else (None, None)

    async def go():
        async with LLMService(settings) as service:
            return await LLMJudge(service, language, embed, options or JudgeOptions(),
                                  metrics=BUILTINS, scale=scale).score(metric, sample, MODEL)

    outcome = asyncio.run(go())
    assert outcome.status == "ok", f"{metric} ({language}): {outcome.status}: {outcome.explanation}"
    assert outcome.value is not None
    return outcome.value


@pytest.mark.parametrize("case", list(CASES))
def test_seed_example_lands_in_its_range(settings, embedding, case):
    language, metric, sample, options, in_range, expectation = CASES[case]
    value = score(settings, embedding, language, metric, sample, options)
    assert in_range(value), f"{case}: {metric} = {value:.3f}, the seed expects {expectation}"
