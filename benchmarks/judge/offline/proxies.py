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

Each proxy below is scored by the metric's own `judged` function and is declared with its metric
in `benchmarks.judge.judged_metrics`, with the fields it reads and the line a report prints beside its
number; a metric without a proxy says there why it has none (asking for one is a ValueError).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from benchmarks.embedding.embed import Embed
from benchmarks.judge import claims
from benchmarks.judge.claims import Claim, split_claims, split_sentences
from benchmarks.judge.offline.support import (
    DEFAULT_OVERLAP_THRESHOLD,
    DEFAULT_SUPPORT_THRESHOLD,
    Passage,
    Support,
    check_threshold,
    closest,
    embed_once,
    read_passage,
    read_together,
    truncated,
)
from benchmarks.judge.options import JudgeOptions
from benchmarks.judge.wording import explained, lacking, said
from benchmarks.metrics import judged
from benchmarks.metrics.judged import ClaimVerdicts
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


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


SupportFor = Callable[[Sequence[str]], Support]
SUPPORT_TEST = ("claims read together against the passages: numbers and names must occur, then calibrated "
                "embedding similarity or content-word overlap")  # in words


@dataclass(frozen=True)
class OfflineProxy:
    """A metric's offline stand-in: the sample fields it reads, its score function (one of those below)
    and the line a report prints beside its number."""

    needs: tuple[str, ...]
    score: Callable[[Sample, SupportFor, JudgeOptions], Outcome]  # the run's options, as the LLM form reads them
    description: str


class _ClaimsInContexts(NamedTuple):
    """The claims of one side of a sample, each with its verdict against the retrieved contexts read together: the
    one test behind faithfulness (the response's claims) and context recall (the reference's)."""

    claims: tuple[Claim, ...]
    contexts: Passage
    support: Support
    verdicts: list[bool]

    def unsupported(self, what: str) -> str:
        return self.support.unsupported(what, self.claims, self.verdicts, self.contexts)


def _against_contexts(text: str | None, sample: Sample, support_for: SupportFor) -> _ClaimsInContexts:
    found = split_claims(text or "")
    contexts = read_together([read_passage(c) for c in sample.retrieved_contexts or ()])
    support = support_for([*found, *contexts.sentences])
    return _ClaimsInContexts(found, contexts, support, [support(c, contexts) for c in found])


def faithfulness(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """Verdict per response claim: supported by the retrieved contexts read together; a short answer read with
    its question (the module docstring)."""
    judged_claims = _against_contexts(sample.response, sample, support_for)
    found, contexts, support, verdicts = judged_claims
    uncertain = [ok and not support.polarity_read(c, contexts) for c, ok in zip(found, verdicts, strict=True)]
    shares = [UNCERTAIN if doubt else float(ok) for ok, doubt in zip(verdicts, uncertain, strict=True)]
    score = (judged.expected_share(shares, "faithfulness", "the response has no statements") if any(uncertain)
             else judged.faithfulness(verdicts))
    doubted = [f"«{truncated(c)}»" for c, doubt in zip(found, uncertain, strict=True) if doubt]
    outcome = explained(score, support.language,
                         judged_claims.unsupported("unsupported by the contexts"),
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
    judged_claims = _against_contexts(sample.reference, sample, support_for)
    return explained(judged.context_recall(judged_claims.verdicts), judged_claims.support.language,
                     judged_claims.unsupported("reference claims the contexts do not support"))


def context_precision(sample: Sample, support_for: SupportFor, options: JudgeOptions) -> Outcome:
    """Verdict per context, in rank order: relevant when it alone supports some reference claim, or when a
    claim the contexts support together is unsupported without it (it gives a fact the claim joins from
    several chunks); average precision as for the LLM metric. Reference-based: without an LLM, "useful for
    the question" has no better witness. The explanation names each irrelevant context by rank, with the
    reference claim that came closest to it."""
    found = split_claims(sample.reference or "")
    texts = sample.retrieved_contexts or ()
    contexts = [read_passage(c) for c in texts]
    together = read_together(contexts)
    support = support_for([*found, *together.sentences])
    joined = [c for c in found if support(c, together)]
    verdicts = [any(support(c, context) for c in found)
                or any(not support(c, read_together([*contexts[:k], *contexts[k + 1:]])) for c in joined)
                for k, context in enumerate(contexts)]
    irrelevant = [f"#{rank} «{truncated(text)}» "
                  f"({closest(support.match(c, context) for c in found).describe(support.language)})"
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
    question = [read_passage(sample.user_input)] if sample.user_input else []
    against_reference = replace(read_together([read_passage(reference), *question]), places_values=False)
    against_response = replace(read_together([read_passage(response), *question]), places_values=False)
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
    check_threshold("support_threshold", support_threshold)
    check_threshold("overlap_threshold", overlap_threshold)
    missing = sample.missing(proxy.needs)
    if missing:
        return lacking(missing, language)

    def support_for(texts: Sequence[str]) -> Support:
        return Support(embed_once(embed, texts), scale, stop_words, support_threshold, overlap_threshold, language)

    found = proxy.score(sample, support_for, options)
    return found if found.ok else replace(found, explanation=said(found.explanation, language))
