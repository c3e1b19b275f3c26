"""Text-comparison and repeatability metrics of the generation tiers (Tier 2 and Tier 3).

Per item: ROUGE-1/2/L F-measure and sentence BLEU of the response against the reference answer;
whether repeated generations of the same item are verbatim identical; the mean pairwise calibrated
similarity of their embeddings (`similarity_scale`). Averaged over items they give `avg_rouge1_f`,
`avg_rouge2_f`, `avg_rougeL_f`,
`avg_bleu`, `response_exact_match_rate` and `response_semantic_consistency`. Nothing here does
I/O or draws random numbers; embeddings are computed by the caller.

Conventions (those of `benchmarks.metrics.judged`; every per-item metric returns an `Outcome`):
- A value the mathematics leaves undefined is `Outcome.undetermined(why)`, never NaN and never a
  made-up 0.0 or 1.0, so a mean over items can leave it out and say how many it rests on.
- A degenerate item whose value the mathematics does fix gets it, with an `explanation` naming the case.
- ROUGE and BLEU are undetermined for exactly the same items (a reference without words), so
  their averages rest on the same items.

Tokenisation, the same for every language so that numbers stay comparable across datasets:
- ROUGE: NFKC, case folding, then runs of Unicode word characters (`\\w+`). rouge-score's default
  tokenizer keeps only `[a-z0-9]`, so it scores two identical Russian sentences 0.0. No stemming:
  rouge-score's Porter stemmer is English-only, and stemming English but not Russian would make
  the two languages' numbers incomparable.
- BLEU: sacreBLEU's "intl" tokenizer (mteval-v14 international: every Unicode punctuation mark
  and symbol is split off). The default "13a" only splits ASCII punctuation, so «Сохранить» stays
  one token that matches neither Сохранить nor "Сохранить"; "flores101"/"flores200" need a SentencePiece
model and make the
  numbers depend on its vocabulary.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import cast

import numpy as np
import sacrebleu
from rouge_score import rouge_scorer

from benchmarks.metrics.judged import cosine
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome

_WORD = re.compile(r"\w+")

BLEU_TOKENIZER = "intl"
"""sacreBLEU tokenizer; with sentence_bleu's defaults the signature is
nrefs:1|case:mixed|eff:yes|tok:intl|smooth:exp."""


def rouge_tokens(text: str) -> list[str]:
    """The words ROUGE compares: NFKC-normalised, case-folded runs of Unicode word characters.

    NFKC makes a decomposed "й" (и + combining breve) and full-width digits equal to their usual
    forms; punctuation is dropped, so "ковре." matches "ковре".
    """
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


class _UnicodeWordTokenizer:
    """The `tokenize(text) -> list[str]` object rouge-score accepts in place of its own."""

    def tokenize(self, text: str) -> list[str]:
        return rouge_tokens(text)


_ROUGE = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_UnicodeWordTokenizer())


@dataclass(frozen=True)
class RougeScores:
    """ROUGE-1, ROUGE-2 and ROUGE-L F-measures of one response, each in [0, 1] or undetermined."""

    rouge1: Outcome
    rouge2: Outcome
    rougeL: Outcome


def rouge(prediction: str, reference: str) -> RougeScores:
    """ROUGE-1/2/L F-measure (β = 1) of the prediction against the reference.

    Formulas as in rouge-score: n-gram overlap with clipped counts, P = overlap / |pred n-grams|,
    R = overlap / |ref n-grams|, F = 2PR / (P + R); ROUGE-L uses the longest common subsequence
    of the whole texts (no sentence splitting: answers are short). Tokens: `rouge_tokens`.
    Degenerate:
    - the reference has no word → all three undetermined: recall divides by zero, and an empty
      reference is no yardstick for any prediction (BLEU is undetermined for it too);
    - the reference has one word → ROUGE-2 undetermined (no bigram to recall; rouge-score would
      report 0.0 even for an identical one-word answer), ROUGE-1/L as usual;
    - the prediction has no word (reference has) → 0.0 for all three: nothing is recovered, and
      an empty answer must count against the model rather than drop out of the mean.
    """
    reference_words = len(rouge_tokens(reference))
    if reference_words == 0:
        none = Outcome.undetermined("the reference has no words")
        return RougeScores(none, none, none)
    scores = _ROUGE.score(reference, prediction)
    reason = "" if rouge_tokens(prediction) else "the prediction has no words"
    rouge2 = (
        Outcome.scored(scores["rouge2"].fmeasure, reason)
        if reference_words > 1
        else Outcome.undetermined("the reference has one word: no bigram")
    )
    return RougeScores(
        rouge1=Outcome.scored(scores["rouge1"].fmeasure, reason),
        rouge2=rouge2,
        rougeL=Outcome.scored(scores["rougeL"].fmeasure, reason),
    )


def bleu(prediction: str, reference: str) -> Outcome:
    """Sentence BLEU (0–100) of the prediction against one reference, with sacreBLEU.

    `sacrebleu.sentence_bleu` with its defaults except the tokenizer (`BLEU_TOKENIZER`): n-grams
    up to 4, case-sensitive, exponential smoothing ("exp": the k-th zero n-gram precision becomes
    1 / (2^k · hypothesis n-grams)) and effective order (orders longer than the hypothesis are
    skipped, so a one-word exact answer scores 100). The average of these is `avg_bleu`; it is
    not corpus BLEU, which pools n-gram counts over all items before taking the geometric mean.
    sacreBLEU's exp(mean log p) gives 100.00000000000004 for identical texts; the result is
    capped at 100, the metric's bound, so identical texts give exactly 100.0.
    Degenerate: the reference has no token → undetermined (as for ROUGE); the prediction has no
    token → 0.0 (brevity penalty exp(1 - r/0) = 0).
    """
    result = sacrebleu.sentence_bleu(prediction, [reference], tokenize=BLEU_TOKENIZER)
    if result.ref_len == 0:
        return Outcome.undetermined("the reference has no words")
    reason = "" if result.sys_len else "the prediction has no words"
    return Outcome.scored(min(100.0, result.score), reason)


def exact_match(responses: Sequence[str]) -> Outcome:
    """1.0 if all repeated generations of one item are the same string, else 0.0.

    Verbatim, as the seed says ("дословно совпадающих"): no whitespace, case or Unicode
    normalisation, since any difference at all is the non-determinism this metric exists to
    detect; near-identical paraphrases are what `semantic_consistency` measures.
    With two runs (one repeat, as in the seed) the mean over items is the share of answers
    reproduced verbatim; with more runs an item counts only if every run agrees.
    Degenerate: fewer than two responses → undetermined (nothing to compare, not a match).
    """
    if len(responses) < 2:
        return Outcome.undetermined("fewer than two responses: nothing to compare")
    return Outcome.scored(1.0 if all(r == responses[0] for r in responses[1:]) else 0.0)


def exact_match_rate(responses_per_item: Sequence[Sequence[str]]) -> float | None:
    """`response_exact_match_rate`: mean of `exact_match` over the items where it is determined.

    `responses_per_item[i]` holds item i's repeated generations. None when no item has two.
    """
    return mean_determined([exact_match(responses) for responses in responses_per_item])


def semantic_consistency(vectors: np.ndarray, scale: SimilarityScale) -> Outcome:
    """Mean calibrated similarity over all pairs of one item's response embeddings (rows of `vectors`).

    Formula: (2 / (R(R-1))) Σ_{i<j} s(cos(e_i, e_j)), s the embedder's similarity scale, as for
    `semantic_similarity` (0 for texts as alike as unrelated ones, 1 for identical); each cosine is
    `judged.cosine`, so identical embeddings give exactly 1.0. All pairs rather
    than pairs with the first run, so no run is privileged; for R = 2 the two coincide.
    Degenerate: fewer than two rows → undetermined (one answer is not "consistent", it is
    unrepeated); a zero-vector embedding → undetermined. A non-2-D array is a caller bug
    (ValueError), as are NaN and infinities (raised by `cosine`).
    """
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"semantic_consistency: expected responses × dimensions, got shape {vectors.shape}")
    if len(vectors) < 2:
        return Outcome.undetermined("fewer than two responses: nothing to compare")
    cosines = [cosine(a, b) for a, b in combinations(vectors, 2)]
    if any(c is None for c in cosines):
        return Outcome.undetermined("an embedding is the zero vector")
    raw = cast(list[float], cosines)
    return Outcome.scored(math.fsum(scale(c) for c in raw) / len(raw), "; ".join(scale.explain(c) for c in raw))


def mean_determined(scores: Sequence[Outcome]) -> float | None:
    """Mean of the determined scores (exact sum), None when there is none.

    `response_semantic_consistency` is this over `semantic_consistency` of every item. Report
    the count of determined items beside it: the mean says nothing about the ones left out.
    """
    values = [cast(float, s.value) for s in scores if s.value is not None]  # its scores are numbers
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class Similarity:
    """Answer against reference in embedding space: cosine, dot product, distance
    (docs/metrics.md#answer-against-reference-in-embedding-space)."""

    cosine: float | None  # None for a zero vector, as `judged.cosine`
    dot: float
    euclidean: float


def embedding_similarity(answer: np.ndarray, reference: np.ndarray) -> Similarity:
    """The three tier 3 similarities of one answer. With unit-length embeddings (all-MiniLM-L6-v2
    normalises) dot equals cosine and euclidean = sqrt(2 − 2·cosine); with others they differ,
    which is why the seed reports all three."""
    a, b = np.asarray(answer, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    return Similarity(cosine(a, b), float(a @ b), float(np.linalg.norm(a - b)))
