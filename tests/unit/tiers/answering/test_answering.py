"""What tiers 2 and 3 share, and their pure parts: fields a tier needs, the fixed context, the numbers
from graded answers (errors and undetermined values), retrieval hit and miss, answer-reference similarity."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.config import Settings
from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.errors import BenchError
from benchmarks.generation.base import Answer
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.text import embedding_similarity
from benchmarks.outcome import Outcome
from benchmarks.tiers import tier2, tier3
from benchmarks.tiers.answering import cases, checks, report_blocks, summaries
from benchmarks.tiers.answering.cases import Case, Graded, Plan

SETTINGS = Settings(bootstrap_resamples=50)
# Baseline 0: a calibrated similarity is the raw cosine clipped to [0, 1], so hand-computed cosines are the
# expected values.
RAW = SimilarityScale(0.0, "test", "en")
CHUNKS = (Chunk("a", "Alpha text."), Chunk("b", "Beta text."), Chunk("c", "Gamma text."))


def dataset(*questions: Question, name: str = "tiny") -> Dataset:
    return Dataset(name=name, version="1", language="en", format="bench", content_sha256="0" * 64, chunks=CHUNKS,
                   questions=questions)


# --- fields a tier needs --------------------------------------------------------------------------


def test_require_fields_names_every_field_no_question_has_in_one_message():
    data = dataset(Question("q1", "?"), Question("q2", "?", {"a": 0}))
    needed = {"relevant": lambda q: any(g > 0 for g in q.relevant.values()),
              "reference_answer": lambda q: q.reference_answer is not None,
              "response or responses": lambda q: bool(q.responses)}
    with pytest.raises(BenchError) as error:
        cases.require_fields(data, "tier 2", needed)
    assert str(error.value) == ("dataset 'tiny': tier 2 needs field(s) that no question in questions.jsonl has: "
                                "relevant, reference_answer, response or responses")


def test_require_fields_accepts_a_field_that_only_some_questions_have():
    data = dataset(Question("q1", "?"), Question("q2", "?", reference_answer="yes", responses=("r",)))
    cases.require_fields(data, "tier 3", {"reference_answer": lambda q: q.reference_answer is not None,
                                              "response": lambda q: bool(q.responses)})


def test_check_plan_refuses_before_any_work():
    offline = Settings(judge_backend="offline", generator="extractive")
    with pytest.raises(BenchError, match="^extra_metrics: unknown metric 'faithfullness'; did you mean 'faithfulness'"):
        checks.check_plan(offline, Plan(("faithfulness",), ("faithfullness",)))
    with pytest.raises(BenchError, match="--judge offline has no proxy for response_relevancy"):
        checks.check_plan(offline, Plan(("faithfulness",), ("faithfulness", "response_relevancy")))
    checks.check_plan(offline, Plan(("faithfulness",), ("faithfulness", "semantic_similarity")))
    with pytest.raises(BenchError, match="no LLM is configured"):
        checks.check_plan(Settings(judge_backend="offline", generator="openai"), Plan(("e2e_score",), ()))
    with pytest.raises(BenchError, match="no LLM is configured"):
        checks.check_plan(Settings(judge_backend="llm", generator="extractive"), Plan(("e2e_score",), ()))
    with pytest.raises(BenchError, match="--generator http needs generator_http_url"):
        checks.check_plan(Settings(judge_backend="offline", generator="http"), Plan(("e2e_score",), ()))


# --- tier 2's fixed context -----------------------------------------------------------------------


def test_tier2_context_is_the_relevant_chunks_highest_grade_first():
    data = dataset(
        Question("q1", "?", {"c": 1, "a": 2, "b": 1}),
        Question("q2", "?", {"b": 0}),  # judged, but not relevant: no fixed context
        Question("q3", "?"),
        Question("q4", "?", {"b": 3}),
    )
    found = tier2.fixed_context_cases(data)
    assert [c.question.id for c in found] == ["q1", "q4"]
    assert found[0].context_ids == ("a", "b", "c")  # grade 2, then grade 1 by id
    assert found[0].contexts == ("Alpha text.", "Beta text.", "Gamma text.")
    assert found[1].contexts == ("Beta text.",)


# --- numbers from graded answers ------------------------------------------------------------------


def case(qid: str, reference: str | None = "the reference answer") -> Case:
    return Case(Question(qid, f"question {qid}?", {"a": 1}, reference_answer=reference), ("Alpha text.",), ("a",))


def ok(text: str) -> Answer:
    return Answer("ok", text, 10.0)


FAILED = Answer.failed("HTTP 400: bad request", 5.0)


def graded() -> list[Graded]:
    return [
        Graded(case("q1"), [ok("the reference answer"), ok("the reference answer")],
               {"faithfulness": Outcome(1.0, "ok"), "answer_correctness": Outcome(5.0, "ok")}),
        Graded(case("q2"), [ok("nothing alike"), ok("nothing alike!")],
               {"faithfulness": Outcome(0.5, "ok"), "answer_correctness": Outcome(None, "parse_error", "bad JSON")}),
        Graded(case("q3", reference=None), [ok("an answer"), FAILED],
               {"faithfulness": Outcome(None, "api_error", "HTTP 500"),
                "answer_correctness": Outcome(None, "undetermined", "no reference")}),
        Graded(case("q4"), [FAILED, FAILED],
               {"faithfulness": Outcome(None, "no_answer", "HTTP 400"),
                "answer_correctness": Outcome(None, "no_answer", "HTTP 400")}),
    ]


PLAN = Plan(("faithfulness", "answer_correctness"), ())


def test_grade_metrics_count_failed_judge_calls_and_failed_answers_as_errors_not_undetermined():
    metrics = summaries.grade_metrics(graded(), PLAN, SETTINGS)
    assert list(metrics) == ["avg_faithfulness", "avg_answer_correctness"]
    faithfulness, correctness = metrics["avg_faithfulness"], metrics["avg_answer_correctness"]
    assert (faithfulness.value, faithfulness.n, faithfulness.errors) == (0.75, 2, 2)  # api_error + no_answer
    assert (correctness.value, correctness.n, correctness.errors) == (5.0, 1, 2)  # parse_error + no_answer
    assert faithfulness.higher_is_better is True


def test_extra_metrics_keep_their_name_and_direction():
    plan = Plan((), ("noise_sensitivity",))
    items = [Graded(case("q1"), [ok("x")], {"ragas:noise_sensitivity": Outcome(0.25, "ok")})]
    metric = summaries.grade_metrics(items, plan, SETTINGS)["noise_sensitivity"]
    assert (metric.value, metric.higher_is_better) == (0.25, False)


def test_a_metric_named_like_a_rating_is_graded_apart_from_it():
    # --metrics faithfulness in tier 2: the RAGAS form beside the seed rating, neither overwriting the other
    plan = Plan(("faithfulness",), ("faithfulness",))
    assert plan.keys == ("faithfulness", "ragas:faithfulness")
    items = [Graded(case("q1"), [ok("x")], {"faithfulness": Outcome(1.0, "ok"),
                                            "ragas:faithfulness": Outcome(0.5, "ok")}),
             Graded(case("q2"), [ok("y")], {"faithfulness": Outcome(0.0, "ok"),
                                            "ragas:faithfulness": Outcome(None, "parse_error")})]
    metrics = summaries.grade_metrics(items, plan, SETTINGS)
    assert (metrics["avg_faithfulness"].value, metrics["avg_faithfulness"].errors) == (0.5, 0)
    assert (metrics["faithfulness"].value, metrics["faithfulness"].errors) == (0.5, 1)
    assert report_blocks.status_counts(items, plan) == {"faithfulness": {"ok": 2},
                                                    "ragas:faithfulness": {"ok": 1, "parse_error": 1},
                                                    "generation": {"ok": 2}}


def test_text_metrics_skip_no_reference_and_count_failed_answers():
    metrics, rows = summaries.text_metrics(graded(), SETTINGS)
    # q1 identical → 1.0; q2 shares no word with the reference → 0.0; q3 has no reference; q4 failed
    rouge1 = metrics["avg_rouge1_f"]
    assert (rouge1.value, rouge1.n, rouge1.errors) == (0.5, 2, 1)
    assert {name: o.value for name, o in rows[0].items()} == {"avg_rouge1_f": 1.0, "avg_rouge2_f": 1.0,
                                                             "avg_rougeL_f": 1.0, "avg_bleu": 100.0}
    assert rows[1]["avg_rouge1_f"].value == 0.0 and rows[2] == {}  # no reference: the metrics do not apply
    assert {(o.status, o.explanation) for o in rows[3].values()} == {("no_answer", "HTTP 400: bad request")}
    assert metrics["avg_bleu"].n == 2


class VectorsByText:
    """An embedder stand-in: a fixed vector per text, as CachedEmbedder.encode returns them."""

    def __init__(self, vectors):
        self.vectors = vectors
        self.calls = []

    def encode(self, texts, *, purpose):
        self.calls.append((list(texts), purpose))
        return np.array([self.vectors[t] for t in texts], dtype=float)


def test_repeat_metrics_over_the_ok_answers_of_each_question():
    embedder = VectorsByText({"the reference answer": [1.0, 0.0], "nothing alike": [1.0, 0.0],
                              "nothing alike!": [1.0, 1.0], "an answer": [0.0, 1.0]})
    metrics, rows = summaries.repeat_metrics(graded(), embedder, SETTINGS, RAW)
    assert len(embedder.calls) == 1 and embedder.calls[0][1] == "answers"  # one batched call
    exact, consistency = metrics["response_exact_match_rate"], metrics["response_semantic_consistency"]
    # q1 identical, q2 differs; q3 and q4 have fewer than two ok answers (their failures are errors)
    assert (exact.value, exact.n, exact.errors) == (0.5, 2, 2)
    assert consistency.value == pytest.approx((1.0 + 1 / math.sqrt(2)) / 2, abs=1e-12)
    assert [o.status for o in rows[0].values()] == ["ok", "ok"]
    assert {(o.status, o.explanation) for o in rows[2].values()} == {("api_error", "HTTP 400: bad request")}


def test_a_failed_repeat_fails_the_repeatability_metrics_even_when_others_agree():
    three = [Graded(case("q1"), [ok("same"), ok("same"), FAILED], {}), Graded(case("q2"), [ok("a"), ok("b")], {})]
    metrics, rows = summaries.repeat_metrics(three, VectorsByText({"a": [1.0, 0.0], "b": [0.0, 1.0]}), SETTINGS,
                                             RAW)
    exact = metrics["response_exact_match_rate"]
    assert (exact.value, exact.n, exact.errors) == (0.0, 1, 1)  # q1's two agreeing answers are not its value
    assert rows[0]["response_exact_match_rate"].status == "api_error"


def test_repeat_metrics_need_two_repeats():
    metrics, rows = summaries.repeat_metrics(graded()[:1], VectorsByText({"the reference answer": [1.0]}),
                                             Settings(repeats=1), RAW)
    assert metrics == {} and rows == [{}]


# --- the item record --------------------------------------------------------------------------------


def test_item_scores_put_grades_under_the_judge_and_computed_metrics_under_bench():
    item = graded()[1]
    texts = summaries.text_metrics([item], SETTINGS)[1][0]
    scores = report_blocks.item_scores(summaries.grade_scores(item, PLAN), texts, "judge-model")
    assert scores["avg_faithfulness"] == {"judge-model": {"value": 0.5, "status": "ok", "explanation": ""}}
    assert scores["avg_answer_correctness"] == {"judge-model": {"value": None, "status": "parse_error",
                                                                "explanation": "bad JSON"}}
    assert scores["avg_rouge1_f"] == {"bench": {"value": 0.0, "status": "ok", "explanation": ""}}


def test_grade_scores_name_a_metric_as_the_report_does():
    plan = Plan(("faithfulness",), ("faithfulness",))
    item = Graded(case("q1"), [ok("x")], {"faithfulness": Outcome(1.0, "ok"), "ragas:faithfulness": Outcome(0.5, "ok")})
    assert {name: o.value for name, o in summaries.grade_scores(item, plan).items()} == \
        {"avg_faithfulness": 1.0, "faithfulness": 0.5}


def test_status_counts_per_metric_and_per_generation():
    counts = report_blocks.status_counts(graded(), PLAN)
    assert counts == {
        "faithfulness": {"api_error": 1, "no_answer": 1, "ok": 2},
        "answer_correctness": {"no_answer": 1, "ok": 1, "parse_error": 1, "undetermined": 1},
        "generation": {"api_error": 3, "ok": 5},
    }


# --- tier 3: retrieval hit and miss, similarity to the reference ----------------------------------


def test_e2e_by_retrieval_by_hand():
    hits = [True, True, False, None, False, True]
    scores = [1.0, 0.5, 0.0, 0.7, None, None]  # q5, q6: no score (failed answer or judge call)
    assert tier3.e2e_by_retrieval(hits, scores).written() == {
        "hit": {"questions": 3, "scored": 2, "avg_e2e_score": 0.75},
        "miss": {"questions": 2, "scored": 1, "avg_e2e_score": 0.0},
        "no_relevant_chunk": 1,
    }


def test_e2e_by_retrieval_without_any_scored_question_has_no_average():
    assert tier3.e2e_by_retrieval([None, True], [0.3, None]).written() == {
        "hit": {"questions": 1, "scored": 0, "avg_e2e_score": None},
        "miss": {"questions": 0, "scored": 0, "avg_e2e_score": None},
        "no_relevant_chunk": 1,
    }
    assert tier3.e2e_by_retrieval([], []).written() == {"hit": {"questions": 0, "scored": 0, "avg_e2e_score": None},
                                              "miss": {"questions": 0, "scored": 0, "avg_e2e_score": None},
                                              "no_relevant_chunk": 0}


def test_a_hit_is_any_retrieved_chunk_with_a_positive_grade():
    def hit(relevant, retrieved):
        return tier3._hit(Case(Question("q", "?", relevant), tuple("x" for _ in retrieved), tuple(retrieved)))

    assert hit({"a": 1}, ["b", "a"]) is True
    assert hit({"a": 1, "b": 0}, ["b"]) is False  # judged, not relevant
    assert hit({"a": 0}, ["a"]) is None  # no relevant chunk: no hit value
    assert hit({}, ["a"]) is None


def test_embedding_similarity_by_hand():
    sim = embedding_similarity(np.array([3.0, 4.0]), np.array([4.0, 3.0]))
    assert sim.cosine == pytest.approx(24 / 25, abs=1e-15)
    assert sim.dot == 24.0
    assert sim.euclidean == pytest.approx(math.sqrt(2), abs=1e-15)


def test_embedding_similarity_of_unit_vectors_dot_is_cosine_and_distance_follows():
    a = np.array([0.6, 0.8, 0.0])
    b = np.array([0.0, 0.6, 0.8])
    sim = embedding_similarity(a, b)
    assert sim.cosine == pytest.approx(0.48, abs=1e-15) and sim.dot == pytest.approx(0.48, abs=1e-15)
    assert sim.euclidean == pytest.approx(math.sqrt(2 - 2 * 0.48), abs=1e-15)
    same = embedding_similarity(a.astype(np.float32), a.astype(np.float32))  # as an embedder returns them
    assert (same.cosine, same.euclidean) == (1.0, 0.0)


def test_embedding_similarity_of_a_zero_vector_has_no_cosine():
    sim = embedding_similarity(np.zeros(2), np.array([3.0, 4.0]))
    assert (sim.cosine, sim.dot, sim.euclidean) == (None, 0.0, 5.0)
