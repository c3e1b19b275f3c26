"""The offline judge's one test, "these passages support claim c", built from the sample's own words and an
embedder; each metric's proxy (`proxies`) asks it of its claims.

Support. The passages (the retrieved contexts, or the reference, or the response) support a claim
when, read together as one text, so that a claim whose facts two chunks give is supported:
- every number of the claim occurs in them, by value ("8849" is in "8,849 metres", "849" is not);
- every name of the claim occurs in them (a swapped name is the commonest hallucination after a wrong
  number, and an embedding barely sees it);
- and either the calibrated similarity (`metrics.similarity_scale`: 0 as alike as unrelated sentences
  of the language, 1 identical) between the claim's embedding and that of some sentence of the passages
  is at least `support_threshold` (default 0.75, the value raw all-MiniLM-L6-v2 cosines used; on the
  calibrated scale it means the same under every embedder), or at least `overlap_threshold` (default
  0.75) of the claim's distinct content stems occur in the passages (catches restatements that an
  embedder scores low, and facts joined from several passages, which no single sentence resembles).
- and, when the claim names something, each of its values stands in a sentence that speaks of one of those
  names (itself, or through the sentence before it in its passage when it gives no name: "It opened in 1889."):
  "The Chrysler Building was completed in March 1889" over passages giving the Eiffel Tower's March 1889 and
  the Chrysler Building's 1930 finds every word, name and value, each said of another thing (not asked of a
  terse reference read beside its question, whose words are not beside its values). Requiring the
  words beside a value in the claim to stand beside it in the passage as well was measured and left out: it
  caught crossed facts on the joined family (0.51 → 0.65, en) but failed right answers that word a number's
  surroundings their own way (shipped set 0.875 → 0.797, en).

Explanations. As an LLM judge names the statements it rejected and why, an ok proxy score names each
claim the test did not support (context precision: each irrelevant context, by rank), cut at
`SHOWN_CHARS`, with what the passages lack: the numbers and names, the best calibrated similarity and
the content-word overlap. The verdicts, and so the numbers, are the test's alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.embedding.embed import Embed
from benchmarks.judge import claims
from benchmarks.judge.claims import Claim, split_claims, split_sentences
from benchmarks.judge.wording import said
from benchmarks.metrics import judged
from benchmarks.metrics.similarity_scale import SimilarityScale

DEFAULT_SUPPORT_THRESHOLD = 0.75
DEFAULT_OVERLAP_THRESHOLD = 0.75


@dataclass(frozen=True)
class Passage:
    """A text that may support claims: its sentences (for similarity), its stems (for numbers and overlap), the
    keys its words have as names, what each sentence speaks of (`_about`), and its sentences' clauses (cut as
    claims are, read once for every claim's polarity). `places_values`: whether a claim's
    values must stand where the text says them of the same thing (`Support.stands`); off where the text is a
    terse reference read beside its question, whose words are not beside its values."""

    sentences: tuple[str, ...]
    stems: frozenset[str]
    names: frozenset[str]
    about: tuple[frozenset[str] | None, ...]
    clauses: tuple[Claim, ...]
    places_values: bool = True


def read_passage(text: str) -> Passage:
    stems = claims.stems(text)
    sentences = split_sentences(text)
    return Passage(sentences, stems, frozenset(claims.name_key(s) for s in stems), _about(sentences),
                    tuple(c for sentence in sentences for c in split_claims(sentence)))


def _about(sentences: Sequence[str]) -> tuple[frozenset[str] | None, ...]:
    """What each sentence of one text speaks of, as the name keys of its words: a sentence that gives no name
    ("It opened in 1889.") speaks of what the sentence before it did too; None for such a sentence opening its
    text, which may speak of anything."""
    about: list[frozenset[str] | None] = []
    for sentence in sentences:
        own = frozenset(claims.name_key(s) for s in claims.stems(sentence))
        before = about[-1] if about else None
        about.append(own if claims.names(Claim(sentence)) else None if before is None else own | before)
    return tuple(about)


def read_together(passages: Sequence[Passage]) -> Passage:
    """Passages read as one text, so a claim may take its facts from several of them."""
    return Passage(tuple(s for p in passages for s in p.sentences), frozenset().union(*(p.stems for p in passages)),
                    frozenset().union(*(p.names for p in passages)), tuple(a for p in passages for a in p.about),
                    tuple(c for p in passages for c in p.clauses), all(p.places_values for p in passages))


@dataclass(frozen=True)
class Match:
    """What the support test reads of a claim against some passages; an explanation shows it too."""

    missing: tuple[str, ...]  # the claim's numbers and names the passages lack
    misplaced: tuple[str, ...]  # its values the passages say of something else (`Support.stands`)
    overlap: float | None  # share of the claim's content stems in the passages; None: no content word
    similarity: float | None  # best calibrated similarity to a sentence of the passages; None: no cosine

    def closeness(self) -> tuple[bool, float, float]:
        """Which of several matches came closest: one holding the facts first, then by similarity."""
        similarity = -math.inf if self.similarity is None else self.similarity
        return not (self.missing or self.misplaced), similarity, self.overlap or 0.0

    def describe(self, language: str) -> str:
        missing = f"{', '.join(self.missing)} {said('not found', language)}; " if self.missing else ""
        misplaced = (f"{', '.join(self.misplaced)} {said('said of something else', language)}; " if self.misplaced
                     else "")
        return (f"{missing}{misplaced}{said('similarity', language)} {_shown(self.similarity)}, "
                f"{said('overlap', language)} {_shown(self.overlap)}")


NO_MATCH = Match((), (), None, None)  # no passage to compare with (no context retrieved)


def closest(matches: Iterable[Match]) -> Match:
    """The match that came closest to support: what an explanation of a failed verdict shows."""
    return max(matches, key=Match.closeness, default=NO_MATCH)


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class Support:
    """The support test with its vectors and thresholds bound, so metrics only ask yes or no, and what an
    unsupported claim came closest to."""

    vectors: dict[str, np.ndarray]
    scale: SimilarityScale
    stop_words: frozenset[str]
    support_threshold: float
    overlap_threshold: float
    language: str  # of the explanations

    def __call__(self, claim: Claim, passage: Passage) -> bool:
        found = self.match(claim, passage)
        return not (found.missing or found.misplaced) and (
            (found.overlap is not None and found.overlap >= self.overlap_threshold)
            or (found.similarity is not None and found.similarity >= self.support_threshold))

    def match(self, claim: Claim, passage: Passage) -> Match:
        values = claims.numbers(claim)
        missing = (*sorted(values - passage.stems),
                   *(n for n in claims.names(claim) if claims.name_key(n) not in passage.names))
        misplaced = tuple(sorted(v for v in values & passage.stems
                                 if passage.places_values and not self.stands(v, claim, passage)))
        content = claims.content_stems(claim, self.stop_words)
        overlap = len(content & passage.stems) / len(content) if content else None
        cosines = (judged.cosine(self.vectors[claim], self.vectors[other]) for other in passage.sentences)
        similarity = max((self.scale(c) for c in cosines if c is not None), default=None)
        return Match(missing, misplaced, overlap, similarity)

    @staticmethod
    def stands(value: str, claim: Claim, passage: Passage) -> bool:
        """Whether some sentence of the passage that holds `value` speaks (itself, or through the sentence it
        follows from: `_about`) of one of the names the claim gives, when it gives any. "The Chrysler Building was
        completed in March 1889", over a passage giving the Eiffel Tower's March 1889 and the Chrysler Building's
        1930, finds every word, name and value, each said of another thing."""
        keys = {claims.name_key(n) for n in claims.names(claim)}
        return not keys or any(value in claims.stems(sentence) and (about is None or keys & about)
                               for sentence, about in zip(passage.sentences, passage.about, strict=True))

    def polarity_read(self, claim: Claim, passage: Passage) -> bool:
        """Whether the passage says the claim's content with the claim's polarity, as far as words show: some
        clause of its sentences (cut as claims are) holding at least half the claim's content words is negated
        when the claim is, and not when it is not; a clause, so that "Staff cannot work remotely, and they must
        badge in" does not lend its negation to the clause after it. A claim no clause holds so (its facts joined
        from several) is read as it stands."""
        own = claims.content_stems(claim, self.stop_words) - claims.NEGATION_STEMS
        holders = [c for c in passage.clauses if 2 * len(own & claims.stems(c)) >= len(own)] if own else []
        wanted = claims.negated(claim)
        return not holders or any(claims.negated(c) == wanted for c in holders)

    def unsupported(self, what: str, found: Sequence[Claim], supported: Sequence[bool], passage: Passage) -> str:
        """`what: «claim» (what the passages lack, similarity, overlap) | …` for each claim the passages do not
        support, as an LLM judge names the statements it rejected and why; "" when none."""
        shown = [f"«{truncated(c)}» ({self.match(c, passage).describe(self.language)})"
                 for c, ok in zip(found, supported, strict=True) if not ok]
        return f"{said(what, self.language)}: {' | '.join(shown)}" if shown else ""


SHOWN_CHARS = 80  # a sentence an explanation quotes is cut here: it names the sentence, the item holds it whole


def truncated(sentence: str) -> str:
    return sentence if len(sentence) <= SHOWN_CHARS else sentence[: SHOWN_CHARS - 1].rstrip() + "…"


def embed_once(embed: Embed, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """One embedder call per sample for every distinct text: the embedder is a cached model."""
    unique = list(dict.fromkeys(texts))
    if not unique:
        return {}
    matrix = np.asarray(embed(unique), dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != len(unique):
        raise ValueError(f"embed returned shape {matrix.shape} for {len(unique)} texts")
    return dict(zip(unique, matrix, strict=False))


def check_threshold(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not 0 < value <= 1:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")
