"""The extractive generator and the offline judge embed in a few batched calls (`EmbeddingMemo`), and score
exactly as a call per item would.

The reference is the path bench took before batching, written out here: per question, the extractive
generator's own embed call, then each offline rating's, every call straight to the local model (no cache). The
texts carry a word drawn for this test run, so the run under test meets them cold in the session's cache.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from benchmarks.config import load_settings
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.embedder import CachedEmbedder, MultilingualE5Embedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.embedding.similarity_calibration import unrelated_sentences
from benchmarks.generation.extractive import closest_sentences
from benchmarks.judge.ratings.offline import offline_rating
from benchmarks.metrics.similarity_scale import SimilarityScale, unrelated_baseline
from benchmarks.report import normalise
from benchmarks.tiers.answering.cases import CONTEXT_SEPARATOR

pytestmark = pytest.mark.integration

RATINGS = {"tier2": ("faithfulness", "answer_relevance", "answer_correctness"), "tier3": ("e2e_score",)}


def fresh_word() -> str:
    """Letters only: a digit would make it a number the support test must find."""
    return "".join(random.choices(string.ascii_lowercase, k=10))


def write_dataset(root: Path, word: str) -> Path:
    team = f"team {word}"
    corpus = {
        "vpn": f"Install the GlobalProtect client. Sign in with SSO. The {team} runs the gateway vpn-lis.",
        "leave": f"Employees get 28 days of paid leave per year. Unused days carry over until 31 March. "
                 f"Ask the {team} about part-time rules.",
        "parking": f"The Berlin office has 40 parking spaces. Book them in the Parkly app one day ahead. "
                   f"The {team} hands out visitor permits.",
        "expenses": f"Submit travel expenses in Concur within 30 days. Attach scanned receipts. "
                    f"Late claims need approval from the {team}.",
        "laptop": f"A new laptop is ordered through the IT portal. It arrives within five working days.\n"
                  f"- The {team} images it first.\n- Old laptops go back to IT.",
    }
    questions = [
        ("q1", "How do I connect to the VPN?", "vpn", "Install the GlobalProtect client and sign in with SSO."),
        ("q2", "How many days of leave do I get?", "leave", "28 days per year; unused days carry over until March."),
        ("q3", "Where do I park in Berlin?", "parking", "Book one of the 45 spaces in the Parkly app."),
        ("q4", "When are travel expenses due?", "expenses", "Within 30 days, with scanned receipts."),
        ("q5", "How do I get a new laptop?", "laptop", "Order it in the IT portal; it takes five working days."),
        ("q6", f"Who runs the VPN gateway for the {team}?", "vpn", f"The {team}."),
    ]
    root.mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"id": cid, "text": text}) + "\n"
                                               for cid, text in corpus.items()))
    (root / "questions.jsonl").write_text("".join(
        json.dumps({"id": qid, "question": text, "relevant": {cid: 1}, "reference_answer": reference}) + "\n"
        for qid, text, cid, reference in questions))
    return root


@pytest.fixture
def encode_calls(monkeypatch) -> list[tuple[str, int]]:
    """Every CachedEmbedder.encode call of the test, as (purpose, number of texts); the calls still run."""
    calls: list[tuple[str, int]] = []
    real = CachedEmbedder.encode

    def counted(self: CachedEmbedder, texts: Sequence[str], *, purpose: str, **kwargs: object) -> np.ndarray:
        calls.append((purpose, len(texts)))
        return real(self, texts, purpose=purpose, **kwargs)

    monkeypatch.setattr(CachedEmbedder, "encode", counted)
    return calls


def per_call_model() -> tuple[dict[str, np.ndarray], list[int], Callable[[Sequence[str]], np.ndarray]]:
    """The model itself, one call per request, as the answers' texts are embedded (query role): no cache, no
    batching across questions. Also returns every vector it gave, by text, and each call's size."""
    model, given, sizes = MultilingualE5Embedder(), {}, []

    def embed(texts: Sequence[str]) -> np.ndarray:
        sizes.append(len(texts))
        vectors = model.encode(list(texts), role="query")
        given.update(zip(texts, vectors, strict=True))
        return vectors

    return given, sizes, embed


@pytest.mark.parametrize("tier", ["tier2", "tier3"])
def test_batched_tiers_answer_and_score_as_a_call_per_question_would(bench, tmp_path, encode_calls, tier):
    data = write_dataset(tmp_path / "batching", fresh_word())
    out = tmp_path / "out"
    result = bench(tier, "--dataset", data, "--generator", "extractive", "--judge", "offline", "-o", out)
    assert result.exit_code == 0, result.output
    answers_calls = [n for purpose, n in encode_calls if purpose == "answers"]
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    corpus = {c["id"]: c["text"] for c in map(json.loads, (data / "corpus.jsonl").read_text().splitlines())}

    given, sizes, embed = per_call_model()
    baseline, _, _ = unrelated_baseline(MultilingualE5Embedder().encode(list(unrelated_sentences("en")), role="query"))
    scale = SimilarityScale(baseline, "e5", "en")  # the report gives it rounded; the run used it at full precision
    assert json.loads((out / "report.json").read_text())["provenance"]["similarity"]["baseline"] == normalise(baseline)
    scores = []
    for item in items:
        inputs = item["inputs"]
        contexts = [corpus[cid] for cid in (inputs["context_ids"] if tier == "tier2" else item["retrieved_ids"])]
        answer = closest_sentences(inputs["question"], contexts, embed, 2)
        assert item["answer"] == answer
        variables = {"question": inputs["question"], "context": CONTEXT_SEPARATOR.join(contexts), "answer": answer,
                     "reference": inputs["reference_answer"]}
        for name in RATINGS[tier]:
            expected = offline_rating(name, variables, embed, scale=scale, language="en")
            graded = item["scores"][f"avg_{name}"]["offline"]
            assert graded["status"] == expected.status
            assert graded["value"] == normalise(expected.value)  # as the report rounds it
            scores.append(expected.value)
    assert len(set(scores) - {None}) > 2, scores  # the scores differ from item to item: the equality says something
    assert len(sizes) >= 2 * len(items)  # the reference did pay a call per question and rating
    # and the run scored with the very vectors those calls gave, bit for bit (read back from its cache)
    settings, _ = load_settings()
    with open_embedder(settings) as embedder:
        assert np.array_equal(embedder.encode(list(given), purpose="answers"), np.stack(list(given.values())))

    # one call for what is known before answering, one for the answers of the items open together, one for the
    # repeats' consistency; tier 3 adds its answer-to-reference similarities
    assert len(answers_calls) == (3 if tier == "tier2" else 4), encode_calls
    # every text once, in two calls: the answers in the second, unless an answer is a text known before (an
    # extractive answer can repeat one), which the first call then embedded
    assert sum(answers_calls[:2]) == len(given) and 0 < answers_calls[1] <= len(items)


@pytest.fixture
def memo():
    settings, _ = load_settings()
    with open_embedder(settings) as embedder:
        yield EmbeddingMemo(embedder, purpose="answers")


def test_a_text_the_memo_was_not_given_is_embedded_when_read(memo, encode_calls):
    word = fresh_word()
    given, not_given = f"The {word} gateway is in Lisbon.", f"Ask the {word} desk."
    memo.prefetch([given, given])
    assert encode_calls == [("answers", 1)]  # distinct texts only
    read = memo([not_given, given])
    assert encode_calls == [("answers", 1), ("answers", 1)]  # only the missing one
    direct = memo.embedder.encode([not_given, given], purpose="answers")
    assert np.array_equal(read, direct)
    assert memo([]).shape == (0, direct.shape[1])


def test_the_asks_of_items_open_together_are_embedded_in_one_call(memo, encode_calls):
    word = fresh_word()
    texts = [f"Item {n} of the {word} batch." for n in ("one", "two", "three", "four")]

    async def item(turns: int, text: str) -> None:
        for _ in range(turns):  # items reach their ask at different turns of the event loop
            await asyncio.sleep(0)
        await memo.gather([text, texts[0]])

    async def run_items() -> None:
        await asyncio.gather(*(item(turns, text) for turns, text in enumerate(texts)))

    asyncio.run(run_items())
    assert encode_calls == [("answers", len(texts))]
    held = memo(texts)
    assert len(encode_calls) == 1  # reading what was gathered calls nothing
    assert np.array_equal(held, memo.embedder.encode(texts, purpose="answers"))


def test_an_item_cancelled_while_waiting_does_not_cancel_the_others(memo, encode_calls):
    """Items share one call: one of them cancelled (a timeout, Ctrl-C's teardown) leaves the others' call
    running, and the memo takes later asks as before."""
    word = fresh_word()
    first, second, later = (f"{n} text of the {word} run." for n in ("First", "Second", "Later"))

    async def run_items() -> None:
        waiting = asyncio.ensure_future(memo.gather([first]))
        other = asyncio.ensure_future(memo.gather([second]))
        await asyncio.sleep(0)
        waiting.cancel()
        await other
        await memo.gather([later])

    asyncio.run(run_items())
    assert np.array_equal(memo([first, second, later]),
                          memo.embedder.encode([first, second, later], purpose="answers"))
    assert encode_calls[:2] == [("answers", 2), ("answers", 1)]
