"""Calibration: the seeds' worked examples scored by a real LLM judge must land in the seeds' ranges.

Needs an OpenAI-compatible endpoint and a model configured in the environment (BENCH_LLM_BASE_URL
or OPENAI_BASE_URL, BENCH_LLM_MODEL, and BENCH_LLM_API_KEY or OPENAI_API_KEY when the endpoint needs
one). Without them the run fails at collection, saying what to set: a calibration run that measured
nothing is not a success. The default test run (pyproject's testpaths) leaves this folder out;
`make calibrate` runs it by path. Each example makes a handful of judge calls; the cache is off, so
a rerun asks the judge again.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from benchmarks.chat.client import LLMService
from benchmarks.config import load_settings
from benchmarks.judge.catalog import BUILTINS
from benchmarks.judge.llm_judge import JudgeOptions, LLMJudge
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


def score(tmp_path, language: str, metric: str, sample: Sample, options: JudgeOptions | None = None) -> float:
    """One sample scored by the configured judge; anything but an ok outcome fails the test."""
    environ = {**os.environ, "BENCH_LLM_BASE_URL": BASE_URL, "BENCH_LLM_MODEL": MODEL}
    settings, _ = load_settings({"data_dir": str(tmp_path), "llm_cache": False}, environ=environ)

    async def go():
        async with LLMService(settings) as service:
            return await LLMJudge(service, language, None, options or JudgeOptions(),
                                  metrics=BUILTINS).score(metric, sample, MODEL)

    outcome = asyncio.run(go())
    assert outcome.status == "ok", f"{metric} ({language}): {outcome.status}: {outcome.explanation}"
    assert outcome.value is not None
    return outcome.value


@pytest.mark.parametrize("case", list(CASES))
def test_seed_example_lands_in_its_range(tmp_path, case):
    language, metric, sample, options, in_range, expectation = CASES[case]
    value = score(tmp_path, language, metric, sample, options)
    assert in_range(value), f"{case}: {metric} = {value:.3f}, the seed expects {expectation}"
