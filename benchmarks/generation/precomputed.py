"""`--generator precomputed`: answers already in the dataset, e.g. logged production answers.

A question's `responses` (or single `response`) in questions.jsonl are its answers, one per repeat;
bench generates nothing. A repeat beyond the answers the dataset holds is not invented: it is
reported as missing, so exact-match and consistency are computed only where two answers exist.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchmarks.generation.base import Answer, GenerationRequest, GeneratorName
from benchmarks.report_model import GeneratorBlock

MISSING = "the dataset holds no answer for this repeat"


class PrecomputedGenerator:
    name: GeneratorName = "precomputed"

    def __init__(self, responses: Mapping[str, tuple[str, ...]], dataset_sha256: str):
        self.responses = responses
        self.dataset_sha256 = dataset_sha256

    def describe(self) -> GeneratorBlock:
        return GeneratorBlock(adapter=self.name, source="the dataset's response fields",
                              dataset_sha256=self.dataset_sha256)

    def available(self, question_id: str) -> int:
        return len(self.responses.get(question_id, ()))

    async def answer(self, request: GenerationRequest) -> Answer:
        found = self.responses.get(request.question_id, ())
        if request.repeat >= len(found):
            return Answer("missing", None, 0.0, error=MISSING)
        return Answer("ok", found[request.repeat], 0.0)
