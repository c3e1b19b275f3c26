"""`bench tier3` through the CLI: retrieval from the embedded pgvector with the real model, the local
OpenAI-compatible server as the system under test and the judge.

The questions are the shared tiny set's, whose top results are obvious (each question shares its words
with one chunk); two of them are labelled with a wrong relevant chunk on purpose, so retrieval misses
them and the e2e score by retrieval hit and miss has known groups.
"""

import json
import re
from importlib.resources import files

import pytest

from benchmarks.corpus_index import EXACT_SEARCH
from benchmarks.judge.catalog import offline_sha256
from tests.integration.conftest import CORPUS
from tests.integration.item_scores import assert_scores_reproduce_report
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

GENERATOR = (files("benchmarks") / "prompts" / "rag" / "en.txt").read_text("utf-8").splitlines()[0]
JUDGE = (files("benchmarks") / "prompts" / "en" / "rate_e2e.txt").read_text("utf-8").splitlines()[0]

# id, question, relevant, reference answer, e2e score the judge gives, the chunk retrieval ranks first
QUESTIONS = [
    ("q1", "How do I connect to the VPN?", {"vpn#1": 2, "vpn#2": 1},
     "Install the GlobalProtect client and sign in with your SSO account.", 1.0, "vpn#1"),
    ("q2", "How many vacation days do I get per year?", {"vacation#1": 1},
     "28 days of paid vacation per year.", 0.5, "vacation#1"),
    ("q3", "Where can I park my car at the Berlin office?", {"laptop#1": 1},  # wrong on purpose: a miss
     "Book one of the 40 spaces in the Parkly app.", 0.0, "parking#1"),
    ("q4", "What is the deadline for submitting expense reports?", {"expenses#1": 1},
     "Within 30 days, in Concur.", 0.75, "expenses#1"),
    ("q5", "What will the weather be tomorrow?", {},  # no relevant chunk: no hit value
     "The knowledge base does not cover the weather.", 1.0, None),
    ("q6", "How do I get a new notebook computer?", {"vacation#2": 1},  # wrong on purpose: a miss
     "Order it through the IT portal.", 0.25, "laptop#1"),
]
REFERENCE = {q: ref for _, q, _, ref, _, _ in QUESTIONS}
SCORE = {q: score for _, q, _, _, score, _ in QUESTIONS}


def write_dataset(root, questions=QUESTIONS):
    root.mkdir(parents=True, exist_ok=True)
    with (root / "corpus.jsonl").open("w") as out:
        for cid, (text, topic) in CORPUS.items():
            out.write(json.dumps({"id": cid, "text": text, "title": topic}) + "\n")
    with (root / "questions.jsonl").open("w") as out:
        for qid, text, relevant, reference, _, _ in questions:
            record = {"id": qid, "question": text, "relevant": relevant}
            if reference is not None:
                record["reference_answer"] = reference
            out.write(json.dumps(record) + "\n")
    return root


def question_of(body) -> str:
    return re.findall(r"^Question: (.*)$", body["messages"][0]["content"], re.MULTILINE)[-1]


def is_generator(body) -> bool:
    return body["messages"][0]["content"].startswith(GENERATOR)


def scripted(failing=()):
    """The system under test answers with the reference answer (so the answer-reference similarity is
    exact); the judge gives the question's scripted e2e score; generation fails for `failing`."""

    def respond(body) -> Reply:
        question = question_of(body)
        if is_generator(body):
            if question in failing:
                return Reply(status=400, message="context too long")
            return Reply(text=REFERENCE[question])
        assert body["messages"][0]["content"].startswith(JUDGE)
        return Reply(text=json.dumps({"score": SCORE[question]}))

    return respond


def use_server(monkeypatch, server, model):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("BENCH_LLM_MODEL", model)


def read(out):
    report = json.loads((out / "report.json").read_text())
    items = {i["id"]: i for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    return report, items


def hit(item, depth=1):
    """Whether retrieval found a relevant chunk for the item (its retrieval hit score), None when it has none."""
    scored = item["scores"].get(f"retrieval_hit_rate@{depth}")
    return None if scored is None else scored["bench"]["value"] == 1.0


def bench_value(item, metric):
    return item["scores"][metric]["bench"]["value"]


def test_e2e_score_by_retrieval_hit_and_miss_and_similarity_to_the_reference(bench, tmp_path, monkeypatch):
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = scripted()
        use_server(monkeypatch, server, "e2e-scripted")
        result = bench("tier3", "--dataset", write_dataset(tmp_path / "t3"), "-o", out)
        calls = [c["body"] for c in server.chat_requests]
    assert result.exit_code == 0, result.output
    report, items = read(out)
    assert {qid: items[qid]["retrieved_ids"] for qid in items if qid != "q5"} == {
        qid: [top] for qid, *_, top in QUESTIONS if top is not None}
    assert [hit(items[q]) for q in sorted(items)] == [True, True, False, True, None, False]
    m = report["metrics"]
    # e2e: (1 + 0.5 + 0 + 0.75 + 1 + 0.25) / 6; by retrieval: hit q1 q2 q4, miss q3 q6, q5 has no relevant chunk
    assert m["avg_e2e_score"]["value"] == pytest.approx(3.5 / 6, abs=1e-6) and m["avg_e2e_score"]["n"] == 6
    assert report["notes"]["e2e_by_retrieval"] == {
        "hit": {"questions": 3, "scored": 3, "avg_e2e_score": 0.75},
        "miss": {"questions": 2, "scored": 2, "avg_e2e_score": 0.125},
        "no_relevant_chunk": 1,
    }
    assert (m["retrieval_hit_rate@1"]["value"], m["retrieval_hit_rate@1"]["n"]) == (0.6, 5)
    # every answer is its reference: similarity 1, distance 0, and ROUGE 1
    assert m["avg_semantic_similarity"]["value"] == pytest.approx(1.0, abs=1e-6)
    assert m["avg_dot_similarity"]["value"] == pytest.approx(1.0, abs=1e-6)  # the model's vectors are unit length
    assert m["avg_euclidean_distance"]["value"] == pytest.approx(0.0, abs=1e-6)
    assert m["avg_euclidean_distance"]["higher_is_better"] is False
    assert m["avg_rouge1_f"]["value"] == 1.0 and m["response_exact_match_rate"]["value"] == 1.0
    assert all(m[name]["errors"] == 0 for name in m)
    assert bench_value(items["q1"], "avg_semantic_similarity") == pytest.approx(1.0, abs=1e-6)
    assert items["q3"]["scores"]["avg_e2e_score"] == {"e2e-scripted": {"value": 0.0, "status": "ok", "explanation": ""}}
    assert items["q1"]["inputs"]["question"] == QUESTIONS[0][1] and items["q1"]["answer"] == QUESTIONS[0][3]
    assert items["q1"]["cluster"] == "vpn" and items["q3"]["cluster"] == "laptop" and items["q5"]["cluster"] is None
    assert assert_scores_reproduce_report(out) == set(m)
    assert report["notes"]["retrieval"]["depth"] == 1
    assert report["provenance"]["index"] == {"type": "exact", "exact_search": EXACT_SEARCH}
    assert report["provenance"]["generator"]["model"] == "e2e-scripted"
    # one context per question at depth 1, in bench's template; 6 × 2 repeats + 6 ratings
    assert len(calls) == 18 and sum(map(is_generator, calls)) == 12
    vpn = next(b for b in calls if is_generator(b) and question_of(b) == QUESTIONS[0][1])["messages"][0]["content"]
    assert f"[1] {CORPUS['vpn#1'][0]}\n" in vpn and "[2]" not in vpn


def test_top_k_2_numbers_both_contexts_and_a_failed_generation_is_counted(bench, tmp_path, monkeypatch):
    out = tmp_path / "out"
    failing = QUESTIONS[1][1]  # q2: a retrieval hit whose generation fails
    with FakeOpenAI() as server:
        server.responder = scripted(failing={failing})
        use_server(monkeypatch, server, "e2e-top2")
        result = bench("tier3", "--dataset", write_dataset(tmp_path / "t3"), "--top-k", "2", "-o", out)
        calls = [c["body"] for c in server.chat_requests]
    assert result.exit_code == 0, result.output
    report, items = read(out)
    m = report["metrics"]
    assert all(len(item["retrieved_ids"]) == 2 for item in items.values())
    # the generator sees the two retrieved chunks numbered in rank order
    for qid, text, *_ in QUESTIONS:
        first, second = (CORPUS[cid][0] for cid in items[qid]["retrieved_ids"])
        prompt = next(b for b in calls if is_generator(b) and question_of(b) == text)["messages"][0]["content"]
        assert f"Context:\n[1] {first}\n\n[2] {second}\n\nQuestion: {text}\n" in prompt
    assert "retrieval_hit_rate@2" in m and "retrieval_hit_rate@1" not in m
    assert report["notes"]["retrieval"]["depth"] == 2

    # q2 failed: an error of every metric of its case, left out of the means, never judged
    assert not any(not is_generator(b) and question_of(b) == failing for b in calls)
    assert [a["status"] for a in items["q2"]["answers"]] == ["api_error", "api_error"]
    failed = items["q2"]["scores"]
    assert failed["avg_e2e_score"]["e2e-top2"]["status"] == "no_answer"
    assert {failed[name]["bench"]["status"] for name in ("avg_semantic_similarity", "avg_rouge1_f")} == {"no_answer"}
    assert failed["response_exact_match_rate"]["bench"]["status"] == "api_error"
    assert assert_scores_reproduce_report(out) == set(m)
    for name in ("avg_e2e_score", "avg_semantic_similarity", "avg_euclidean_distance", "avg_rouge1_f",
                 "response_exact_match_rate"):
        assert (m[name]["n"], m[name]["errors"]) == (5, 1), name
    scored = [q for q in QUESTIONS if q[0] != "q2"]
    assert m["avg_e2e_score"]["value"] == pytest.approx(sum(q[4] for q in scored) / 5, abs=1e-6)
    assert m["avg_semantic_similarity"]["value"] == pytest.approx(1.0, abs=1e-6)
    by_retrieval = report["notes"]["e2e_by_retrieval"]
    for group, flag in (("hit", True), ("miss", False)):
        members = [q for q in QUESTIONS if hit(items[q[0]], depth=2) is flag]
        values = [q[4] for q in members if q[0] != "q2"]
        assert by_retrieval[group]["questions"] == len(members)
        assert by_retrieval[group]["scored"] == len(values)
        assert by_retrieval[group]["avg_e2e_score"] == pytest.approx(sum(values) / len(values), abs=1e-6)
    assert hit(items["q2"], depth=2) is True and by_retrieval["hit"]["questions"] == \
        by_retrieval["hit"]["scored"] + 1
    assert report["notes"]["statuses"]["generation"] == {"api_error": 2, "ok": 10}


def test_a_dataset_without_reference_answers_is_refused_by_name(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # never called
    monkeypatch.setenv("BENCH_LLM_MODEL", "unused")
    questions = [(qid, text, relevant, None, score, top) for qid, text, relevant, _, score, top in QUESTIONS]
    result = bench("tier3", "--dataset", write_dataset(tmp_path / "noref", questions))
    assert result.exit_code == 2
    assert "dataset 'noref': tier 3 needs field(s) that no question in questions.jsonl has: reference_answer" \
        in result.output


def test_extractive_and_offline_judge_on_the_synthetic_set_need_no_llm(bench, tmp_path, monkeypatch):
    for name in ("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "BENCH_LLM_MODEL", "BENCH_LLM_API_KEY", "OPENAI_API_KEY",
                 "BENCH_GENERATOR_MODEL", "BENCH_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out"
    result = bench("tier3", "--dataset", "synthetic", "--generator", "extractive", "--judge", "offline", "-o", out)
    assert result.exit_code == 0, result.output
    report, items = read(out)
    m = report["metrics"]
    assert len(items) == 439 and all(len(i["retrieved_ids"]) == 1 for i in items.values())
    assert all(m[name]["errors"] == 0 for name in m)
    # retrieval: most graded questions find a relevant chunk first; the 10 unanswerable have none
    by_retrieval = report["notes"]["e2e_by_retrieval"]
    assert by_retrieval["no_relevant_chunk"] == 10 and m["retrieval_hit_rate@1"]["n"] == 429
    assert 0.5 < m["retrieval_hit_rate@1"]["value"] < 1.0
    assert by_retrieval["hit"]["questions"] == round(m["retrieval_hit_rate@1"]["value"] * 429)
    # answers copied from the right chunk score better than answers copied from a wrong one
    assert by_retrieval["hit"]["avg_e2e_score"] > by_retrieval["miss"]["avg_e2e_score"] + 0.1
    assert 0.0 < m["avg_e2e_score"]["value"] < 1.0
    # unit-length embeddings: dot = cosine and distance = √(2 − 2·cosine), item by item; the similarity is that
    # cosine on the calibrated scale, (cosine − b) / (1 − b) with the baseline the report names
    baseline = report["provenance"]["similarity"]["baseline"]
    assert 0.6 < baseline < 0.9 and report["provenance"]["similarity"]["language"] == "en"  # e5's unrelated texts
    assert {"avg_semantic_similarity", "avg_e2e_score"} <= set(report["provenance"]["similarity"]["metrics"])
    for item in list(items.values())[:50]:
        distance, dot = bench_value(item, "avg_euclidean_distance"), bench_value(item, "avg_dot_similarity")
        cosine = float(re.search(r"cosine (-?[0-9.]+)", item["scores"]["avg_semantic_similarity"]["bench"]
                                 ["explanation"]).group(1))
        assert dot == pytest.approx(cosine, abs=1e-5)
        assert distance == pytest.approx((2 - 2 * cosine) ** 0.5, abs=1e-4)
        assert bench_value(item, "avg_semantic_similarity") == pytest.approx(
            min(1.0, max(0.0, (cosine - baseline) / (1 - baseline))), abs=1e-5)
    assert 0.2 < m["avg_semantic_similarity"]["value"] < m["avg_dot_similarity"]["value"] < 1.0
    assert m["response_exact_match_rate"]["value"] == 1.0  # the baseline is deterministic
    assert report["provenance"]["generator"]["adapter"] == "extractive"
    assert report["provenance"]["judge"] == {"backend": "offline", "language": "en", "metrics": ["avg_e2e_score"],
                                             "offline_sha256": offline_sha256()}
    assert "answer_correctness" in report["notes"]["offline_proxies"]["avg_e2e_score"]
    assert report["volatile"]["llm"] is None
    assert assert_scores_reproduce_report(out) == set(m)


def test_an_unreachable_llm_fails_a_fresh_run_before_the_corpus_is_indexed(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens on port 9
    monkeypatch.setenv("BENCH_LLM_MODEL", "never-answered")
    result = bench("tier3", "--dataset", write_dataset(tmp_path / "never-indexed", QUESTIONS))
    assert result.exit_code == 2
    assert "cannot reach the LLM endpoint http://127.0.0.1:9/v1" in result.output
    assert (bench("db", "drop-collection", "never-indexed").output.strip()
            == "never-indexed: 0 embedding space(s) removed")
    assert not (tmp_path / "reports").exists()  # no empty run folder left behind


def test_an_http_system_under_test_that_is_down_fails_before_the_corpus_is_indexed(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_GENERATOR_HTTP_URL", "http://127.0.0.1:9/answer")
    result = bench("tier3", "--dataset", write_dataset(tmp_path / "never-indexed-http", QUESTIONS),
                   "--generator", "http", "--judge", "offline")
    assert result.exit_code == 2
    assert "cannot reach your RAG service at http://127.0.0.1:9/answer" in result.output
    assert bench("db", "drop-collection", "never-indexed-http").output.strip() == \
        "never-indexed-http: 0 embedding space(s) removed"
