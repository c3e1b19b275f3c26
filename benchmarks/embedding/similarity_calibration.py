"""The similarity scale of the run's embedder and language (`metrics.similarity_scale`), measured.

The packaged sets (`benchmarks/calibration/unrelated-<language>.txt`) are 64 sentences each, every
one on a topic of its own (cooking, tax law, astronomy, football…), half questions and half statements,
so each of their 2,016 pairs is a pair of unrelated texts of the language. They are embedded with the
role every scored text gets ("query": judges' sentences, answers, logged questions), through the
embedding cache, so a model measures its baseline once and a rerun reads 64 cached vectors; the mean is
recomputed from them each run (deterministic, under a millisecond).

The language is told from the script of the texts compared (`metrics.language.detected_or`): Latin script
is calibrated on the English set (a German dataset included: its unrelated sentences sit about as far
apart), Cyrillic on the Russian one. Texts in another script, or with no letters and no declared language,
are refused with one line before any scoring (`require_calibratable`): the `similarity_baseline` setting
gives the baseline by hand then (the embedder's mean cosine between unrelated texts of that language),
never a silent raw cosine under a calibrated name.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from benchmarks.config import Settings
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.errors import BenchError
from benchmarks.metrics.similarity_scale import SimilarityScale, unrelated_baseline

SETS = Path(__file__).resolve().parent.parent / "calibration"
LANGUAGES = ("en", "ru")
PURPOSE = "similarity calibration"  # embedded as queries, as every text a similarity is taken of


@cache
def unrelated_sentences(language: str) -> tuple[str, ...]:
    """The packaged unrelated sentences of a language, one per line."""
    lines = (SETS / f"unrelated-{language}.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip())


def require_calibratable(settings: Settings, language: str) -> None:
    """Refuse, before any work, texts whose similarities this run could not calibrate."""
    if settings.similarity_baseline is None and language not in LANGUAGES:
        shown = f"in '{language}'" if language else "in a script other than Latin or Cyrillic"
        raise BenchError(f"similarities cannot be calibrated for texts {shown}: bench has unrelated-sentence sets "
                         f"for {', '.join(LANGUAGES)} only; give similarity_baseline (--similarity-baseline), your "
                         "embedder's mean cosine between unrelated texts of that language")


def similarity_scale(embedder: CachedEmbedder, settings: Settings, language: str) -> SimilarityScale:
    """The run's scale: the `similarity_baseline` setting when given, else measured on the language's set."""
    require_calibratable(settings, language)
    prompt = embedder.inner.prompts["query"]
    if settings.similarity_baseline is not None:
        return SimilarityScale(settings.similarity_baseline, embedder.model_id, language or "given", prompt)
    vectors = embedder.encode(list(unrelated_sentences(language)), purpose=PURPOSE)
    mean, spread, pairs = unrelated_baseline(vectors)
    if mean >= 1.0 - 1e-6:
        raise BenchError(f"embedding model '{embedder.model_id}' gives unrelated {language} sentences a mean cosine "
                         f"of {mean:.6f}: it cannot tell texts apart, so no similarity of it means anything")
    return SimilarityScale(mean, embedder.model_id, language, prompt, pairs=pairs, spread=spread)
