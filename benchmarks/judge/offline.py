"""The offline judge (`--judge offline`): claim-support proxies for the judged metrics, no LLM.

A team without an LLM endpoint still gets a signal where a proxy means something. The caller picks
this backend explicitly and reports `describe(metric)` next to every number, because these are
proxies, not the LLM metrics: a score here is comparable with other offline scores, not with
scores an LLM judge gave.

The judge's work is replaced by one test, "these passages support claim c", built from the sample's
own words and the project's sentence embedder, and its 0/1 verdicts are fed to the very score
functions of `benchmarks.metrics.judged`, so degenerate cases (no statement, no context) end
exactly as they do for the LLM metric. Claims, and the facts in them, are read by
`benchmarks.judge.claims`: sentences cut into clauses, numbers by value, names, negations.

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

Negations (faithfulness). A supported claim negated unlike every context clause holding at least half its
content words (`claims.negated`) is neither supported nor refuted by words alone ("The tower was not completed
in 1889" over "completed in March 1889", or a paraphrase with "failed to" for "did not"): its verdict is
`UNCERTAIN` (0.5) and faithfulness the expected share, with the claim named in the explanation. What the test
still cannot see: a claim that inverts its passage without a negation ("lower" for "greater"), and a name
swapped for another the same sentence also gives, still pass, so the proxies over-report support.

Short answers, read with their question (faithfulness). "Carolina Panthers." to "Who lost the final?" is in a
passage that names them as the winners: every word of it occurs, yet the passage does not say it about what was
asked. An answer of one claim that does not restate the question (fewer than `RESTATES` of the question's content
words) is therefore read where its facts stand: of the context sentences holding its numbers, names and at least
half its content words, the one that also says most of the question's content words, read in the sentence's
narrowest clause (`claims.split_claims`) that holds those facts. Its score is scaled by that share, from
`ANCHOR_FLOOR` (the sentence says none of the question) to 1 (all of it): on the short-answer families of
`datasets/labelled` this ranks the right answer above another question's answer in 0.71 (en) and 0.65 (ru) of 40
pairs, from 0.50 / 0.53 (0.69 / 0.65 by whole sentences; cutting a sentence at every comma instead gave 0.61 /
0.59), and leaves the other families as they were; the floor keeps a supported answer whose sentence words the
question differently above one the contexts do not support at all. Where the right and the wrong answer stand in
one clause, no lexical test can tell them apart: the local LLM judge can (docs/concepts.md).

Explanations. As an LLM judge names the statements it rejected and why, an ok proxy score names each
claim the test did not support (context precision: each irrelevant context, by rank), cut at
`SHOWN_CHARS`, with what the passages lack: the numbers and names, the best calibrated similarity and
the content-word overlap. The verdicts, and so the numbers, are the test's alone.

Each proxy below is scored by the metric's own `judged` function and is declared with its metric
in `benchmarks.judge.judged_metrics`, with the fields it reads and the line a report prints beside its
number; a metric without a proxy says there why it has none (asking for one is a ValueError).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchmarks.judge import claims
from benchmarks.judge.claims import Claim, split_claims, split_sentences
from benchmarks.judge.options import JudgeOptions
from benchmarks.judge.wording import explained, lacking, said
from benchmarks.metrics import judged
from benchmarks.metrics.judged import ClaimVerdicts
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

BACKEND = "offline"  # the judge name a report puts next to every number this module gives

Embed = Callable[[Sequence[str]], np.ndarray]

DEFAULT_SUPPORT_THRESHOLD = 0.75
DEFAULT_OVERLAP_THRESHOLD = 0.75


# --- support -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Passage:
    """A text that may support claims: its sentences (for similarity), its stems (for numbers and overlap), the
    keys its words have as names, what each sentence speaks of (`_about`), and its sentences' clauses (cut as
    claims are, read once for every claim's polarity). `places_values`: whether a claim's
    values must stand where the text says them of the same thing (`_Support.stands`); off where the text is a
    terse reference read beside its question, whose words are not beside its values."""

    sentences: tuple[str, ...]
    stems: frozenset[str]
    names: frozenset[str]
    about: tuple[frozenset[str] | None, ...]
    clauses: tuple[Claim, ...]
    places_values: bool = True


def _passage(text: str) -> _Passage:
    stems = claims.stems(text)
    sentences = split_sentences(text)
    return _Passage(sentences, stems, frozenset(claims.name_key(s) for s in stems), _about(sentences),
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


def _together(passages: Sequence[_Passage]) -> _Passage:
    """Passages read as one text, so a claim may take its facts from several of them."""
    return _Passage(tuple(s for p in passages for s in p.sentences), frozenset().union(*(p.stems for p in passages)),
                    frozenset().union(*(p.names for p in passages)), tuple(a for p in passages for a in p.about),
                    tuple(c for p in passages for c in p.clauses), all(p.places_values for p in passages))


@dataclass(frozen=True)
class _Match:
    """What the support test reads of a claim against some passages; an explanation shows it too."""

    missing: tuple[str, ...]  # the claim's numbers and names the passages lack
    misplaced: tuple[str, ...]  # its values the passages say of something else (`_Support.stands`)
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


_NO_MATCH = _Match((), (), None, None)  # no passage to compare with (no context retrieved)


def _closest(matches: Iterable[_Match]) -> _Match:
    """The match that came closest to support: what an explanation of a failed verdict shows."""
    return max(matches, key=_Match.closeness, default=_NO_MATCH)


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class _Support:
    """The support test with its vectors and thresholds bound, so metrics only ask yes or no, and what an
    unsupported claim came closest to."""

    vectors: dict[str, np.ndarray]
    scale: SimilarityScale
    stop_words: frozenset[str]
    support_threshold: float
    overlap_threshold: float
    language: str  # of the explanations

    def __call__(self, claim: Claim, passage: _Passage) -> bool:
        found = self.match(claim, passage)
        return not (found.missing or found.misplaced) and (
            (found.overlap is not None and found.overlap >= self.overlap_threshold)
            or (found.similarity is not None and found.similarity >= self.support_threshold))

    def match(self, claim: Claim, passage: _Passage) -> _Match:
        values = claims.numbers(claim)
        missing = (*sorted(values - passage.stems),
                   *(n for n in claims.names(claim) if claims.name_key(n) not in passage.names))
        misplaced = tuple(sorted(v for v in values & passage.stems
                                 if passage.places_values and not self.stands(v, claim, passage)))
        content = claims.content_stems(claim, self.stop_words)
        overlap = len(content & passage.stems) / len(content) if content else None
        cosines = (judged.cosine(self.vectors[claim], self.vectors[other]) for other in passage.sentences)
        similarity = max((self.scale(c) for c in cosines if c is not None), default=None)
        return _Match(missing, misplaced, overlap, similarity)

    @staticmethod
    def stands(value: str, claim: Claim, passage: _Passage) -> bool:
        """Whether some sentence of the passage that holds `value` speaks (itself, or through the sentence it
        follows from: `_about`) of one of the names the claim gives, when it gives any. "The Chrysler Building was
        completed in March 1889", over a passage giving the Eiffel Tower's March 1889 and the Chrysler Building's
        1930, finds every word, name and value, each said of another thing."""
        keys = {claims.name_key(n) for n in claims.names(claim)}
        return not keys or any(value in claims.stems(sentence) and (about is None or keys & about)
                               for sentence, about in zip(passage.sentences, passage.about, strict=True))

    def polarity_read(self, claim: Claim, passage: _Passage) -> bool:
        """Whether the passage says the claim's content with the claim's polarity, as far as words show: some
        clause of its sentences (cut as claims are) holding at least half the claim's content words is negated
        when the claim is, and not when it is not; a clause, so that "Staff cannot work remotely, and they must
        badge in" does not lend its negation to the clause after it. A claim no clause holds so (its facts joined
        from several) is read as it stands."""
        own = claims.content_stems(claim, self.stop_words) - claims.NEGATION_STEMS
        holders = [c for c in passage.clauses if 2 * len(own & claims.stems(c)) >= len(own)] if own else []
        wanted = claims.negated(claim)
        return not holders or any(claims.negated(c) == wanted for c in holders)

    def unsupported(self, what: str, found: Sequence[Claim], supported: Sequence[bool], passage: _Passage) -> str:
        """`what: «claim» (what the passages lack, similarity, overlap) | …` for each claim the passages do not
        support, as an LLM judge names the statements it rejected and why; "" when none."""
        shown = [f"«{_truncated(c)}» ({self.match(c, passage).describe(self.language)})"
                 for c, ok in zip(found, supported, strict=True) if not ok]
        return f"{said(what, self.language)}: {' | '.join(shown)}" if shown else ""


SHOWN_CHARS = 80  # a sentence an explanation quotes is cut here: it names the sentence, the item holds it whole


def _truncated(sentence: str) -> str:
    return sentence if len(sentence) <= SHOWN_CHARS else sentence[: SHOWN_CHARS - 1].rstrip() + "…"


def _embed_once(embed: Embed, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """One embedder call per sample for every distinct text: the embedder is a cached model."""
    unique = list(dict.fromkeys(texts))
    if not unique:
        return {}
    matrix = np.asarray(embed(unique), dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != len(unique):
        raise ValueError(f"embed returned shape {matrix.shape} for {len(unique)} texts")
    return dict(zip(unique, matrix, strict=False))


def texts_to_embed(sample: Sample, fields: Iterable[str]) -> list[str]:
    """Every text a proxy reading `fields` of the sample may embed: the sentences and claims of each of those
    fields (each context's for `retrieved_contexts`), and the whole response and reference, which semantic
    similarity compares. A superset for some proxies, so a caller can embed many samples' texts in one
    call before scoring them one by one instead of paying a call per sample; `embed` must still answer
    for any text, since scoring asks only for what it needs."""
    read = set(fields)
    texts: list[str] = []
    for name in ("response", "reference"):
        value = getattr(sample, name)
        if name in read and value is not None:
            texts += [*split_claims(value), *split_sentences(value), value]
    if "retrieved_contexts" in read:
        texts += [s for context in sample.retrieved_contexts or () for s in split_sentences(context)]
    if "reference" in read and sample.user_input:  # read beside the reference by the correctness proxies
        texts += split_sentences(sample.user_input)
    return list(dict.fromkeys(texts))


def _check_threshold(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not 0 < value <= 1:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")


# --- metrics -------------------------------------------------------------------------------------


SupportFor = Callable[[Sequence[str]], _Support]
SUPPORT_TEST = ("claims read together against the passages: numbers and names must occur, then calibrated "
                "embedding similarity or content-word overlap")  # in words


@dataclass(frozen=True)
class OfflineProxy:
    """A metric's offline stand-in: the sample fields it reads, its score function (one of those below)
    and the line a report prints beside its number."""

    needs: tuple[str, ...]
    score: Callable[[Sample, SupportFor, JudgeOptions], Outcome]  # the run's options, as the LLM form reads them
    description: str


def _contexts(sample: Sample) -> _Passage:
    """The retrieved contexts read as one text."""
    return _together([_passage(c) for c in sample.retrieved_contexts or ()])


def faithfulness(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """Verdict per response claim: supported by the retrieved contexts read together; a short answer read with
    its question (the module docstring)."""
    found = split_claims(sample.response or "")
    contexts = _contexts(sample)
    support = support_for([*found, *contexts.sentences])
    verdicts = [support(c, contexts) for c in found]
    uncertain = [ok and not support.polarity_read(c, contexts) for c, ok in zip(found, verdicts, strict=True)]
    shares = [UNCERTAIN if doubt else float(ok) for ok, doubt in zip(verdicts, uncertain, strict=True)]
    score = (judged.expected_share(shares, "faithfulness", "the response has no statements") if any(uncertain)
             else judged.faithfulness(verdicts))
    doubted = [f"«{_truncated(c)}»" for c, doubt in zip(found, uncertain, strict=True) if doubt]
    outcome = explained(score, support.language,
                         support.unsupported("unsupported by the contexts", found, verdicts, contexts),
                         f"{said('negated unlike the contexts, read as uncertain', support.language)}: "
                         f"{' | '.join(doubted)}" if doubted else "")
    question = claims.content_stems(sample.user_input or "", support.stop_words)
    if not (outcome.ok and outcome.value and question and len(found) == 1):
        return outcome
    if len(claims.content_stems(found[0], support.stop_words) & question) >= RESTATES * len(question):
        return outcome  # it restates the question: it says itself what it answers
    said_of_question = _anchor(found[0], question, contexts.sentences, support.stop_words)
    if said_of_question is None or said_of_question == len(question):
        return outcome
    share = said_of_question / len(question)
    note = f"{said('question words beside the answer', support.language)}: {said_of_question}/{len(question)}"
    return replace(outcome, value=float(outcome.value) * (ANCHOR_FLOOR + (1 - ANCHOR_FLOOR) * share),
                   explanation="; ".join(p for p in (outcome.explanation, note) if p))


UNCERTAIN = 0.5  # a claim's verdict where its words are supported but its polarity differs from theirs: a
# lexical test cannot tell "not completed in 1889" from a paraphrase, so it says neither yes nor no
RESTATES = 0.5  # an answer with this share of the question's content words says what it answers
ANCHOR_FLOOR = 0.25  # a short answer's score where the sentence holding it says nothing of the question


def _anchor(claim: Claim, question: frozenset[str], sentences: Sequence[str], stop: frozenset[str]) -> int | None:
    """How many of the question's content stems the best context sentence holding the claim says (with the
    claim's own), read in the sentence's narrowest clause that holds the claim ("The dustbin holds 450 ml, while
    the water tank holds 300 ml": 300 ml stands beside the water tank, 450 ml does not); None when no single
    sentence holds the claim's facts (they were joined from several)."""
    own = claims.content_stems(claim, stop)

    def holds(text: str) -> bool:
        stems = claims.stems(text)
        keys = {claims.name_key(s) for s in stems}
        return (claims.numbers(claim) <= stems and all(claims.name_key(n) in keys for n in claims.names(claim))
                and 2 * len(own & claims.content_stems(text, stop)) >= len(own))

    best = None
    for sentence in sentences:
        piece = next((p for p in (*split_claims(sentence), sentence) if holds(p)), None)
        if piece is not None:
            best = max(best or 0, len(question & (claims.content_stems(piece, stop) | own)))
    return best


def context_recall(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """Verdict per reference claim: supported by the retrieved contexts read together."""
    found = split_claims(sample.reference or "")
    contexts = _contexts(sample)
    support = support_for([*found, *contexts.sentences])
    verdicts = [support(c, contexts) for c in found]
    return explained(judged.context_recall(verdicts), support.language,
                      support.unsupported("reference claims the contexts do not support", found, verdicts, contexts))


def context_precision(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """Verdict per context, in rank order: relevant when it alone supports some reference claim, or when a
    claim the contexts support together is unsupported without it (it gives a fact the claim joins from
    several chunks); average precision as for the LLM metric. Reference-based: without an LLM, "useful for
    the question" has no better witness. The explanation names each irrelevant context by rank, with the
    reference claim that came closest to it."""
    found = split_claims(sample.reference or "")
    texts = sample.retrieved_contexts or ()
    contexts = [_passage(c) for c in texts]
    together = _together(contexts)
    support = support_for([*found, *together.sentences])
    joined = [c for c in found if support(c, together)]
    verdicts = [any(support(c, context) for c in found)
                or any(not support(c, _together([*contexts[:k], *contexts[k + 1:]])) for c in joined)
                for k, context in enumerate(contexts)]
    irrelevant = [f"#{rank} «{_truncated(text)}» "
                  f"({_closest(support.match(c, context) for c in found).describe(support.language)})"
                  for rank, (text, context, ok) in enumerate(zip(texts, contexts, verdicts, strict=True), 1)
                  if not ok]
    return explained(judged.context_precision(verdicts), support.language,
                      f"{said('contexts supporting no reference claim', support.language)}: {' | '.join(irrelevant)}"
                      if irrelevant else "")


def semantic_similarity(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """The metric itself (it never needed an LLM): calibrated similarity of the whole response and the whole
    reference."""
    response, reference = sample.response or "", sample.reference or ""
    support = support_for([response, reference])
    return judged.semantic_similarity(support.vectors[response], support.vectors[reference], scale=support.scale,
                                      threshold=options.threshold)


def _both_ways(sample: Sample, support_for: SupportFor, mode: judged.FactualMode = "f1", beta: float = 1.0
               ) -> tuple[Outcome, Outcome, str]:
    """Claim-support F1 and semantic similarity from one embedder call, and the language of the explanations.

    Per-side verdicts (the seed's ClaimVerdicts) rather than TP/FP/FN counts: recall then counts
    reference claims and precision response claims, never a mix of the two. Claims rather than
    sentences, so an answer that covers the reference and adds a detail in the same sentence keeps its
    recall and loses only the precision of the added claim. Each side is read with the question beside
    it, as a reference is written to answer it: "8,849 metres" answers "How high is Everest?", so
    "Everest is 8849 metres high" says nothing the reference does not.
    """
    response, reference = sample.response or "", sample.reference or ""
    stated, truths = split_claims(response), split_claims(reference)
    question = [_passage(sample.user_input)] if sample.user_input else []
    against_reference = replace(_together([_passage(reference), *question]), places_values=False)
    against_response = replace(_together([_passage(response), *question]), places_values=False)
    support = support_for([*stated, *truths, *against_reference.sentences, *against_response.sentences,
                           response, reference])
    precision_side = tuple(support(c, against_reference) for c in stated)
    recall_side = tuple(support(c, against_response) for c in truths)
    factual = explained(
        judged.factual_correctness(ClaimVerdicts(precision_side, recall_side), mode=mode, beta=beta), support.language,
        support.unsupported("not in the reference", stated, precision_side, against_reference),
        support.unsupported("missing from the response", truths, recall_side, against_response))
    return factual, judged.semantic_similarity(support.vectors[response], support.vectors[reference],
                                               scale=support.scale), support.language


def factual_correctness(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """F-beta (or precision, or recall: the run's factual_mode and beta) of response claims supported by the
    reference (precision side) and reference claims supported by the response (recall side)."""
    return _both_ways(sample, support_for, options.factual_mode, options.beta)[0]


def answer_correctness(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """That F1 and semantic similarity, weighted as the LLM metric (the run's weights, 0.75 / 0.25 by default); the
    explanation keeps the similarity's cosine and the F1's unmatched claims."""
    factual, similarity, language = _both_ways(sample, support_for)  # F1 and the raw similarity, as the LLM form
    return explained(judged.answer_correctness(factual, similarity, weights=options.weights), language,
                      factual.explanation)


def score_with(
    proxy: OfflineProxy,
    sample: Sample,
    embed: Embed,
    *,
    scale: SimilarityScale,
    language: str = "en",
    options: JudgeOptions = JudgeOptions(),
    support_threshold: float = DEFAULT_SUPPORT_THRESHOLD,
    overlap_threshold: float = DEFAULT_OVERLAP_THRESHOLD,
) -> Outcome:
    """A metric's offline proxy (its declaration's, `catalog.offline_score`) on one sample (the support test
    in the module docstring, each proxy in its function's).

    `embed` maps texts to rows of a matrix, aligned with the texts; it is called at most once. `scale` is
    the embedder's similarity scale (`embedding.similarity_calibration`), on which the support threshold
    and semantic similarity are read. `language` picks the stop words that decide which tokens are content.
    """
    stop_words = claims.stop_words(language)
    _check_threshold("support_threshold", support_threshold)
    _check_threshold("overlap_threshold", overlap_threshold)
    missing = sample.missing(proxy.needs)
    if missing:
        return lacking(missing, language)

    def support_for(texts: Sequence[str]) -> _Support:
        return _Support(_embed_once(embed, texts), scale, stop_words, support_threshold, overlap_threshold, language)

    found = proxy.score(sample, support_for, options)
    return found if found.ok else replace(found, explanation=said(found.explanation, language))
