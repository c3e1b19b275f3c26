"""The offline judge (`--judge offline`): sentence-support proxies for the judged metrics, no LLM.

A team without an LLM endpoint still gets a signal where a proxy means something. The caller picks
this backend explicitly and reports `describe(metric)` next to every number, because these are
proxies, not the LLM metrics: a score here is comparable with other offline scores, not with
scores an LLM judge gave.

The judge's work is replaced by one test, "text A supports sentence s", built from the sample's
own words and the project's sentence embedder, and its 0/1 verdicts are fed to the very score
functions of `benchmarks.metrics.judged`, so degenerate cases (no statement, no context) end
exactly as they do for the LLM metric.

Sentences. A line break always ends a sentence (bullet lists carry one claim per line). Within a
line, a run of `.`, `!`, `?` or `…` (closing quotes and brackets allowed after it) followed by
whitespace or the end of the line ends a sentence, except:
- when the next character is a lowercase letter: the sentence goes on ("т. е. так", "e.g. this");
- after a single letter and one period: initials and one-letter abbreviations
  ("А. С. Пушкин", "J. Smith", "в 1889 г. Башня"). The price: a sentence really ending in a
  one-letter word ("…the letter A.") is joined to the next one.
No abbreviation list: the two rules cover the common cases in both languages, and a missed split
only makes one "statement" longer, never loses text. A sentence without a word character ("—",
"...") is dropped.

Tokens. Unicode `\\w+` after case folding, so Cyrillic and Latin are treated alike. Content tokens
are those outside a short stop-word list of the sample's language. Tokens are compared by their
first five characters (a truncation stem: "Париж", "Париже", "Парижа" are one word; Russian
inflects too much for exact matching; short words still differ, "башня" is not "башню", and only
the embedding can pair them), except tokens holding a digit, compared whole ("1889" is not
"1887").

Support. A passage (one retrieved context, or the reference, or the response) supports a sentence
when every number token of the sentence occurs in the passage, and either
- the calibrated similarity (`metrics.similarity_scale`: 0 as alike as unrelated sentences of the
  language, 1 identical) between the sentence's embedding and that of some sentence of the passage
  is at least `support_threshold` (default 0.75, the value raw all-MiniLM-L6-v2 cosines used; on the
  calibrated scale it means the same under every embedder, and with the default embedder it orders
  the labelled set's answers better than raw cosines did: BENCHMARKS.md, "Similarity across
  embedders"), or
- at least `overlap_threshold` (default 0.75) of the sentence's distinct content stems occur in
  the passage (catches restatements that an English-only embedder scores low in Russian).
The number rule exists because embeddings barely separate "built in 1889" from "built in 1887",
and a wrong number is the most common unsupported detail of an answer. What the test cannot
see: a swapped name in an otherwise copied sentence, or a negation of the passage that the
sentence leaves out, usually still passes, so the proxies over-report support.

Explanations. As an LLM judge names the statements it rejected and why, an ok proxy score names each
sentence the test did not support (context precision: each irrelevant context, by rank), cut at
`SHOWN_CHARS`, with the closest passage's reading: the numbers it lacks, the best calibrated similarity
and the content-word overlap. The verdicts, and so the numbers, are the test's alone.

Each proxy below is scored by the metric's own `judged` function and is declared with its metric
in `benchmarks.judge.metrics`, with the fields it reads and the line a report prints beside its
number; a metric without a proxy says there why it has none (asking for one is a ValueError).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchmarks.metrics import judged
from benchmarks.metrics.judged import ClaimVerdicts
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

BACKEND = "offline"  # the judge name a report puts next to every number this module gives

Embed = Callable[[Sequence[str]], np.ndarray]

DEFAULT_SUPPORT_THRESHOLD = 0.75
DEFAULT_OVERLAP_THRESHOLD = 0.75
_STEM_LENGTH = 5


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Function words only: a sentence's content is what a context must repeat to support it. Negations
# ("not", "не", "нет", "ни") are content on purpose: a negated claim needs the negation in the text.
_STOP_WORDS: Mapping[str, frozenset[str]] = {
    "en": _word_set(
        "a an the and or but if then than of in on at to for from by with about as into over under "
        "is are was were be been being am do does did has have had it its this that these those "
        "there here which who whom whose what when where why how so also very can could "
        "will would shall should may might must i you he she we they me him her us them my your "
        "his our their"
    ),
    "ru": _word_set(
        "и а но или да же ли бы в во на к ко с со у о об от до по за из под над при для "
        "без про через это этот эта эти тот та те то что как так где когда кто чем чего кого ему "
        "его её ее их им ими он она оно они мы вы я ты мне меня нас вас был была было были быть "
        "есть уже ещё еще также тоже очень все всё весь только"
    ),
}

# --- text ------------------------------------------------------------------------------------------

_TERMINATOR = re.compile(r"[.!?…]+[\"'»”’)\]]*(?=\s|$)")
_WORD = re.compile(r"\w+")


def _breaks_here(line: str, match: re.Match[str]) -> bool:
    """Whether a terminator really ends a sentence (see the module docstring for the two rules)."""
    following = line[match.end() :].lstrip()
    if following and following[0].islower():
        return False
    if match.group() == ".":
        before = re.search(r"\w+$", line[: match.start()])
        if before is not None and len(before.group()) == 1 and before.group().isalpha():
            return False
    return True


def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of a text, each stripped; pieces without a word character are dropped."""
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in _TERMINATOR.finditer(line):
            if _breaks_here(line, match):
                sentences.append(line[start : match.end()])
                start = match.end()
        sentences.append(line[start:])
    return tuple(s.strip() for s in sentences if _WORD.search(s))


def tokens(text: str) -> tuple[str, ...]:
    """Case-folded Unicode word tokens: the same rule for Latin and Cyrillic."""
    return tuple(_WORD.findall(text.casefold()))


def _stem(token: str) -> str:
    return token if any(ch.isdigit() for ch in token) else token[:_STEM_LENGTH]


def _stop_words(language: str) -> frozenset[str]:
    if language not in _STOP_WORDS:
        raise ValueError(f"no stop words for language {language!r}; languages: {', '.join(_STOP_WORDS)}")
    return _STOP_WORDS[language]


# --- support -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Passage:
    """A text that may support sentences: its sentences (for cosine) and its stems (for overlap)."""

    sentences: tuple[str, ...]
    stems: frozenset[str]


def _passage(text: str) -> _Passage:
    return _Passage(split_sentences(text), frozenset(_stem(t) for t in tokens(text)))


@dataclass(frozen=True)
class _Match:
    """What the support test reads of a sentence against one passage; an explanation shows it too."""

    missing: tuple[str, ...]  # the sentence's number tokens the passage lacks
    overlap: float | None  # share of the sentence's content stems in the passage; None: no content word
    similarity: float | None  # best calibrated similarity to a sentence of the passage; None: no cosine

    def closeness(self) -> tuple[bool, float, float]:
        """Which of several passages came closest: one holding the numbers first, then by similarity."""
        return not self.missing, -math.inf if self.similarity is None else self.similarity, self.overlap or 0.0

    def describe(self) -> str:
        missing = f"{', '.join(self.missing)} not found; " if self.missing else ""
        return f"{missing}similarity {_shown(self.similarity)}, overlap {_shown(self.overlap)}"


_NO_MATCH = _Match((), None, None)  # no passage to compare with (no context retrieved)


def _closest(matches: Iterable[_Match]) -> _Match:
    """The match that came closest to support: what an explanation of a failed verdict shows."""
    return max(matches, key=_Match.closeness, default=_NO_MATCH)


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class _Support:
    """The support test with its vectors and thresholds bound, so metrics only ask yes or no, and what an
    unsupported sentence came closest to."""

    vectors: Mapping[str, np.ndarray]
    scale: SimilarityScale
    stop_words: frozenset[str]
    support_threshold: float
    overlap_threshold: float

    def __call__(self, sentence: str, passage: _Passage) -> bool:
        found = self.match(sentence, passage)
        return not found.missing and (
            (found.overlap is not None and found.overlap >= self.overlap_threshold)
            or (found.similarity is not None and found.similarity >= self.support_threshold))

    def match(self, sentence: str, passage: _Passage) -> _Match:
        words = tokens(sentence)
        missing = tuple(dict.fromkeys(t for t in words if any(ch.isdigit() for ch in t) and t not in passage.stems))
        content = {_stem(t) for t in words if t not in self.stop_words}
        overlap = len(content & passage.stems) / len(content) if content else None
        cosines = (judged.cosine(self.vectors[sentence], self.vectors[other]) for other in passage.sentences)
        similarity = max((self.scale(c) for c in cosines if c is not None), default=None)
        return _Match(missing, overlap, similarity)

    def any_supports(self, sentence: str, passages: Sequence[_Passage]) -> bool:
        return any(self(sentence, p) for p in passages)

    def unsupported(self, what: str, sentences: Sequence[str], supported: Sequence[bool],
                    passages: Sequence[_Passage]) -> str:
        """`what: «sentence» (its closest passage's numbers, similarity, overlap) | …` for each sentence the
        passages do not support, as an LLM judge names the statements it rejected and why; "" when none."""
        shown = [f"«{_truncated(s)}» ({_closest(self.match(s, p) for p in passages).describe()})"
                 for s, ok in zip(sentences, supported, strict=True) if not ok]
        return f"{what}: {' | '.join(shown)}" if shown else ""


SHOWN_CHARS = 80  # a sentence an explanation quotes is cut here: it names the sentence, the item holds it whole


def _truncated(sentence: str) -> str:
    return sentence if len(sentence) <= SHOWN_CHARS else sentence[: SHOWN_CHARS - 1].rstrip() + "…"


def _explained(outcome: Outcome, *reasons: str) -> Outcome:
    """A proxy's score with the sentences behind it, after the metric's own explanation; as the LLM judge
    does, only an ok score gets them (an undetermined one already says why)."""
    joined = "; ".join(p for p in (outcome.explanation, *reasons) if p)
    return replace(outcome, explanation=joined) if outcome.ok else outcome


def _embed_once(embed: Embed, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """One embedder call per sample for every distinct text: the embedder is a cached model."""
    unique = list(dict.fromkeys(texts))
    if not unique:
        return {}
    matrix = np.asarray(embed(unique), dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != len(unique):
        raise ValueError(f"embed returned shape {matrix.shape} for {len(unique)} texts")
    return dict(zip(unique, matrix))


def texts_to_embed(sample: Sample, fields: Iterable[str]) -> list[str]:
    """Every text a proxy reading `fields` of the sample may embed: the sentences of each of those fields
    (each context's for `retrieved_contexts`), and the whole response and reference, which semantic
    similarity compares. A superset for some proxies, so a caller can embed many samples' texts in one
    call before scoring them one by one instead of paying a call per sample; `embed` must still answer
    for any text, since scoring asks only for what it needs."""
    read = set(fields)
    texts: list[str] = []
    for name in ("response", "reference"):
        value = getattr(sample, name)
        if name in read and value is not None:
            texts += [*split_sentences(value), value]
    if "retrieved_contexts" in read:
        texts += [s for context in sample.retrieved_contexts or () for s in split_sentences(context)]
    return list(dict.fromkeys(texts))


def _check_threshold(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if not 0 < value <= 1:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")


# --- metrics -------------------------------------------------------------------------------------


SupportFor = Callable[[Sequence[str]], _Support]
SENTENCE_SUPPORT = "calibrated embedding similarity or content-word overlap, numbers must match"  # in words


@dataclass(frozen=True)
class OfflineProxy:
    """A metric's offline stand-in: the sample fields it reads, its score function (one of those below)
    and the line a report prints beside its number."""

    needs: tuple[str, ...]
    score: Callable[[Sample, SupportFor], Outcome]
    description: str


def faithfulness(sample: Sample, support_for: SupportFor) -> Outcome:
    """Verdict per response sentence: supported by some retrieved context."""
    claims = split_sentences(sample.response or "")
    contexts = [_passage(c) for c in sample.retrieved_contexts or ()]
    support = support_for([*claims, *(s for c in contexts for s in c.sentences)])
    verdicts = [support.any_supports(s, contexts) for s in claims]
    return _explained(judged.faithfulness(verdicts),
                      support.unsupported("unsupported by the contexts", claims, verdicts, contexts))


def context_recall(sample: Sample, support_for: SupportFor) -> Outcome:
    """Verdict per reference sentence: supported by some retrieved context."""
    reference = split_sentences(sample.reference or "")
    contexts = [_passage(c) for c in sample.retrieved_contexts or ()]
    support = support_for([*reference, *(s for c in contexts for s in c.sentences)])
    verdicts = [support.any_supports(s, contexts) for s in reference]
    return _explained(judged.context_recall(verdicts),
                      support.unsupported("reference sentences no context supports", reference, verdicts, contexts))


def context_precision(sample: Sample, support_for: SupportFor) -> Outcome:
    """Verdict per context, in rank order: relevant when it supports some reference sentence; average
    precision as for the LLM metric. Reference-based: without an LLM, "useful for the question" has no
    better witness. The explanation names each irrelevant context by rank, with the reference sentence
    that came closest to it."""
    reference = split_sentences(sample.reference or "")
    texts = sample.retrieved_contexts or ()
    contexts = [_passage(c) for c in texts]
    support = support_for([*reference, *(s for c in contexts for s in c.sentences)])
    verdicts = [any(support(s, c) for s in reference) for c in contexts]
    irrelevant = [f"#{rank} «{_truncated(text)}» "
                  f"({_closest(support.match(s, passage) for s in reference).describe()})"
                  for rank, (text, passage, ok) in enumerate(zip(texts, contexts, verdicts, strict=True), 1)
                  if not ok]
    return _explained(judged.context_precision(verdicts),
                      f"contexts supporting no reference sentence: {' | '.join(irrelevant)}" if irrelevant else "")


def semantic_similarity(sample: Sample, support_for: SupportFor) -> Outcome:
    """The metric itself (it never needed an LLM): calibrated similarity of the whole response and the whole
    reference."""
    response, reference = sample.response or "", sample.reference or ""
    support = support_for([response, reference])
    return judged.semantic_similarity(support.vectors[response], support.vectors[reference], scale=support.scale)


def _both_ways(sample: Sample, support_for: SupportFor) -> tuple[Outcome, Outcome]:
    """Sentence-support F1 and semantic similarity from one embedder call.

    Per-side verdicts (the seed's ClaimVerdicts) rather than TP/FP/FN counts: recall then counts
    reference sentences and precision response sentences, never a mix of the two.
    """
    response, reference = sample.response or "", sample.reference or ""
    claims, truths = split_sentences(response), split_sentences(reference)
    support = support_for([*claims, *truths, response, reference])
    reference_passage, response_passage = _passage(reference), _passage(response)
    precision_side = tuple(support(s, reference_passage) for s in claims)
    recall_side = tuple(support(s, response_passage) for s in truths)
    factual = _explained(
        judged.factual_correctness(ClaimVerdicts(precision_side, recall_side), mode="f1"),
        support.unsupported("not in the reference", claims, precision_side, [reference_passage]),
        support.unsupported("missing from the response", truths, recall_side, [response_passage]))
    return factual, judged.semantic_similarity(support.vectors[response], support.vectors[reference],
                                               scale=support.scale)


def factual_correctness(sample: Sample, support_for: SupportFor) -> Outcome:
    """F1 of response sentences supported by the reference (precision side) and reference sentences
    supported by the response (recall side); sentences stand in for claims."""
    return _both_ways(sample, support_for)[0]


def answer_correctness(sample: Sample, support_for: SupportFor) -> Outcome:
    """That F1 and semantic similarity, weighted 0.75 / 0.25 as the LLM metric; the explanation keeps the
    similarity's cosine and the F1's unmatched sentences."""
    factual, similarity = _both_ways(sample, support_for)
    return _explained(judged.answer_correctness(factual, similarity, weights="default"), factual.explanation)


def score_with(
    proxy: OfflineProxy,
    sample: Sample,
    embed: Embed,
    *,
    scale: SimilarityScale,
    language: str = "en",
    support_threshold: float = DEFAULT_SUPPORT_THRESHOLD,
    overlap_threshold: float = DEFAULT_OVERLAP_THRESHOLD,
) -> Outcome:
    """A metric's offline proxy (its declaration's, `catalog.offline_score`) on one sample (the support test
    in the module docstring, each proxy in its function's).

    `embed` maps texts to rows of a matrix, aligned with the texts; it is called at most once. `scale` is
    the embedder's similarity scale (`services.similarity_calibration`), on which the support threshold
    and semantic similarity are read. `language` picks the stop words that decide which tokens are content.
    """
    stop_words = _stop_words(language)
    _check_threshold("support_threshold", support_threshold)
    _check_threshold("overlap_threshold", overlap_threshold)
    missing = sample.missing(proxy.needs)
    if missing:
        return Outcome.undetermined(f"missing field(s): {', '.join(missing)}")

    def support_for(texts: Sequence[str]) -> _Support:
        return _Support(_embed_once(embed, texts), scale, stop_words, support_threshold, overlap_threshold)

    return proxy.score(sample, support_for)
