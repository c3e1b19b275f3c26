"""`--generator extractive`: an offline baseline system, not a stand-in for an LLM.

It answers with the `extractive_sentences` context sentences closest to the question (cosine of
the project's sentence embeddings), in the order they appear in the context. It is what "copy the
right sentences" scores: a floor any generator should beat on correctness, and a ceiling for
faithfulness that shows how much an LLM's rewording costs. Deterministic, so its repeats agree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmarks.embedding.embed import Embed
from benchmarks.generation.base import Answer, GenerationRequest, GeneratorName
from benchmarks.judge.claims import split_sentences
from benchmarks.report_model import GeneratorBlock

NOTE = ("a baseline system that answers with the context sentences closest to the question; its scores "
        "describe this baseline, not an LLM")


def texts_to_embed(question: str, contexts: Sequence[str]) -> list[str]:
    """What answering the question embeds, in one `embed` call: the question, then every context sentence
    (nothing when the contexts hold no sentence). A tier fetches these for all its questions at once."""
    sentences = [s for context in contexts for s in split_sentences(context)]
    return [question, *sentences] if sentences else []


def closest_sentences(question: str, contexts: Sequence[str], embed: Embed, count: int) -> str:
    """The `count` sentences most similar to the question, joined in context order (ties: earlier first)."""
    texts = texts_to_embed(question, contexts)
    if not texts:
        return ""
    sentences = texts[1:]
    vectors = np.asarray(embed(texts), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    unit = vectors / norms[:, None]
    similarity = unit[1:] @ unit[0]
    chosen = sorted(np.argsort(-similarity, kind="stable")[:count])
    return " ".join(sentences[i] for i in chosen)


class ExtractiveGenerator:
    name: GeneratorName = "extractive"

    def __init__(self, embed: Embed, sentences: int, embedder_id: str):
        self.embed = embed
        self.sentences = sentences
        self.embedder_id = embedder_id

    def describe(self) -> GeneratorBlock:
        return GeneratorBlock(adapter=self.name, model=None, embedder=self.embedder_id, sentences=self.sentences,
                              note=NOTE)

    async def answer(self, request: GenerationRequest) -> Answer:
        return Answer("ok", closest_sentences(request.question, request.contexts, self.embed, self.sentences), 0.0)
