"""`bench tier2` through the CLI: the local OpenAI-compatible server as the system under test and the judge.

The scripted server answers by reading the prompt it is sent: bench's RAG template (generator) or one
of the rate_* judge templates, recognised by their first line, for the question named in it. Each
test uses its own model names, since the LLM reply cache lives in the session's data folder.
"""

import json
import re
import threading
from importlib.resources import files

import pytest

from benchmarks.generation.precomputed import MISSING
from benchmarks.judge.catalog import offline_sha256
from tests.integration.item_scores import assert_scores_reproduce_report
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration


def first_line(path: str) -> str:
    return (files("benchmarks") / "prompts" / path).read_text("utf-8").splitlines()[0]


KINDS = {first_line("rag/en.txt"): "generator",
         first_line("en/rate_faithfulness.txt"): "faithfulness",
         first_line("en/rate_answer_relevance.txt"): "answer_relevance",
         first_line("en/rate_answer_correctness.txt"): "answer_correctness",
         first_line("en/statements.txt"): "statements",
         first_line("en/statement_verdicts.txt"): "verdicts",
         first_line("en/statement_classification.txt"): "classification"}


def kind_of(body) -> str:
    return KINDS[body["messages"][0]["content"].splitlines()[0]]


def question_of(body) -> str | None:
    # the last "Question:" line: the statements template shows an example question before the real one;
    # the verdicts template has none
    found = re.findall(r"^Question: (.*)$", body["messages"][0]["content"], re.MULTILINE)
    return found[-1] if found else None


CORPUS = [
    {"id": "vpn#1", "text": "To connect to the VPN install the GlobalProtect client and sign in with SSO."},
    {"id": "vpn#2", "text": "The VPN gateway for the Lisbon office is vpn-lis.example.com."},
    {"id": "vacation#1", "text": "Employees get 28 days of paid vacation per year."},
    {"id": "parking#1", "text": "The Berlin office has 40 parking spaces. Book a space in the Parkly app."},
    {"id": "expenses#1", "text": "Submit travel expenses in Concur within 30 days."},
]
Q_VPN, Q_VACATION = "How do I connect to the VPN?", "How many vacation days do I get?"
Q_PARKING, Q_EXPENSES = "How do I park at the Berlin office?", "When are expenses due?"
QUESTIONS = [
    {"id": "q1", "question": Q_VPN, "relevant": {"vpn#2": 1, "vpn#1": 2},
     "reference_answer": "Install the GlobalProtect client and sign in with SSO."},
    {"id": "q2", "question": Q_VACATION, "relevant": {"vacation#1": 1},
     "reference_answer": "28 days of paid vacation per year."},
    {"id": "q3", "question": Q_PARKING, "relevant": {"parking#1": 1},
     "reference_answer": "Book a space in the Parkly app."},
    {"id": "q4", "question": Q_EXPENSES, "relevant": {"expenses#1": 1}},  # no reference answer
    {"id": "q5", "question": "What will the weather be tomorrow?", "relevant": {},
     "reference_answer": "The knowledge base does not cover the weather."},  # no fixed context
]
# what the system under test answers: q1 copies the reference (ROUGE-1 1.0), q2 shares no word with it
# (0.0), q3 answers with the reference's words in another order on its second call (ROUGE-1 1.0 both
# times, not verbatim equal), q4 has no reference to compare with
ANSWERS = {Q_VPN: ["Install the GlobalProtect client and sign in with SSO."],
           Q_VACATION: ["Please ask HR."],
           Q_PARKING: ["Book a space in the Parkly app.", "In the Parkly app book a space."],
           Q_EXPENSES: ["Within 30 days."]}
SCORES = {"faithfulness": {Q_VPN: 1.0, Q_VACATION: 0.0, Q_PARKING: 0.5, Q_EXPENSES: 1.0},
          "answer_relevance": {Q_VPN: 0.9, Q_VACATION: 0.2, Q_PARKING: 1.0, Q_EXPENSES: 0.7},
          "answer_correctness": {Q_VPN: 5, Q_VACATION: 1, Q_PARKING: 4}}


def write_dataset(root, questions=QUESTIONS, corpus=CORPUS):
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(c) + "\n" for c in corpus))
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return root


class Scripted:
    """Generator and judge in one server: answers by prompt kind and question; repeats by call count."""

    def __init__(self, *, reasoned=False, overrides=None):
        self.reasoned = reasoned
        self.overrides = overrides or {}  # (kind, question) -> Reply, for injected failures
        self.generated: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, body) -> Reply:
        kind, question = kind_of(body), question_of(body)
        if (kind, question) in self.overrides:
            return self.overrides[(kind, question)]
        if kind == "generator":
            with self.lock:
                count = self.generated[question] = self.generated.get(question, 0) + 1
            answers = ANSWERS[question]
            return Reply(text=answers[min(count, len(answers)) - 1])
        if kind == "statements":
            return Reply(text=json.dumps({"statements": STATEMENTS[question]}))
        if kind == "verdicts":
            # the last statements list (an indented JSON array): the template's example comes first
            statements = json.loads(re.findall(r"^Statements: (\[.*?\])\nOutput:", body["messages"][0]["content"],
                                               re.MULTILINE | re.DOTALL)[-1])
            return Reply(text=json.dumps({"verdicts": [
                {"statement": s, "reason": "checked", "verdict": int("(supported)" in s)} for s in statements]}))
        if kind == "classification":
            # answer_correctness: the first of the answer's statements is supported, the others are not
            first, *rest = STATEMENTS[question]
            return Reply(text=json.dumps({"TP": [{"statement": first, "reason": "in the reference"}],
                                          "FP": [{"statement": s, "reason": "not in it"} for s in rest],
                                          "FN": []}))
        score = SCORES[kind][question]
        if self.reasoned:
            return Reply(text=json.dumps({"reasoning": f"{kind} of {question}", "score": score}))
        return Reply(text=json.dumps({"score": score}))


def use_server(monkeypatch, server, generator_model, judge_model):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("BENCH_GENERATOR_MODEL", generator_model)
    monkeypatch.setenv("BENCH_JUDGE_MODEL", judge_model)
    monkeypatch.setenv("BENCH_LLM_MODEL", judge_model)


def read(out):
    report = json.loads((out / "report.json").read_text())
    items = {i["id"]: i for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    return report, items


def value(report, name):
    return report["metrics"][name]["value"]


def score(item, metric, scorer="bench"):
    """An item's outcome of a metric by one scorer: the judge model, or bench for what it computes itself."""
    return item["scores"][metric][scorer]


def test_scripted_generator_and_judge_give_the_hand_computed_numbers_and_a_rerun_is_free(
        bench, tmp_path, monkeypatch):
    data = write_dataset(tmp_path / "t2")
    out, again = tmp_path / "out", tmp_path / "again"
    with FakeOpenAI() as server:
        server.responder = Scripted()
        use_server(monkeypatch, server, "sut-scripted", "judge-scripted")
        result = bench("tier2", "--dataset", data, "-o", out)
        first_calls = list(server.chat_requests)
        rerun = bench("tier2", "--dataset", data, "-o", again)
        rerun_calls = len(server.chat_requests) - len(first_calls)
    assert result.exit_code == 0, result.output
    report, items = read(out)
    m = report["metrics"]
    assert value(report, "avg_faithfulness") == 0.625  # (1 + 0 + 0.5 + 1) / 4
    assert value(report, "avg_answer_relevance") == pytest.approx(0.7, abs=1e-6)  # (0.9 + 0.2 + 1 + 0.7) / 4
    assert value(report, "avg_answer_correctness") == pytest.approx(10 / 3, abs=1e-6)  # q4: no reference
    assert (m["avg_answer_correctness"]["n"], m["avg_answer_correctness"]["errors"]) == (3, 0)
    assert value(report, "avg_rouge1_f") == pytest.approx(2 / 3, abs=1e-6)  # q1 1.0, q2 0.0, q3 1.0
    assert m["avg_rouge1_f"]["n"] == 3
    assert value(report, "response_exact_match_rate") == 0.75  # q3's two answers differ
    assert m["response_exact_match_rate"]["n"] == 4
    assert 0.5 < value(report, "response_semantic_consistency") < 1.0
    assert all(m[name]["errors"] == 0 for name in m)
    assert report["tier"] == "tier2" and report["main_metric"] == "avg_faithfulness"
    assert report["notes"]["questions"] == {"total": 5, "answered": 4, "without_context": 1}
    assert report["notes"]["statuses"]["answer_correctness"] == {"ok": 3, "undetermined": 1}
    assert report["notes"]["statuses"]["generation"] == {"ok": 8}
    assert report["provenance"]["generator"]["adapter"] == "openai"
    assert report["provenance"]["generator"]["model"] == "sut-scripted"
    assert report["provenance"]["generator"]["template"] == "bench:en"
    assert report["provenance"]["judge"]["model"] == "judge-scripted"
    assert report["provenance"]["judge"]["mode"] == "direct"

    # per item: the fixed context, the graded answer and both answers, each grade, the text metrics
    assert items["q1"]["inputs"] == {"question": Q_VPN, "context_ids": ["vpn#1", "vpn#2"],  # highest grade first
                                     "reference_answer": QUESTIONS[0]["reference_answer"]}
    assert items["q1"]["answer"] == ANSWERS[Q_VPN][0] and items["q1"]["cluster"] == "vpn"
    assert score(items["q1"], "avg_rouge1_f")["value"] == 1.0 and score(items["q1"], "avg_bleu")["value"] == 100.0
    assert score(items["q2"], "avg_rouge1_f")["value"] == 0.0
    assert score(items["q2"], "avg_faithfulness", "judge-scripted") == {"value": 0.0, "status": "ok", "explanation": ""}
    assert sorted(a["text"] for a in items["q3"]["answers"]) == sorted(ANSWERS[Q_PARKING])
    assert score(items["q3"], "response_exact_match_rate")["value"] == 0.0
    assert score(items["q4"], "avg_answer_correctness", "judge-scripted")["status"] == "undetermined"
    assert not {"avg_rouge1_f", "avg_bleu"} & set(items["q4"]["scores"])  # no reference: no text metric
    assert "q5" not in items
    assert assert_scores_reproduce_report(out) == set(m)

    # the calls: 4 questions × 2 repeats to the generator, 4 × 3 ratings − q4's correctness to the judge;
    # the generator sees both contexts numbered, highest grade first, in bench's template
    by_kind = {}
    for call in first_calls:
        by_kind.setdefault(kind_of(call["body"]), []).append(call["body"])
    assert {k: len(v) for k, v in by_kind.items()} == {"generator": 8, "faithfulness": 4, "answer_relevance": 4,
                                                       "answer_correctness": 3}
    assert {b["model"] for b in by_kind["generator"]} == {"sut-scripted"}
    assert {b["model"] for k in ("faithfulness", "answer_relevance", "answer_correctness")
            for b in by_kind[k]} == {"judge-scripted"}
    vpn = next(b for b in by_kind["generator"] if question_of(b) == Q_VPN)["messages"][0]["content"]
    assert f"[1] {CORPUS[0]['text']}\n\n[2] {CORPUS[1]['text']}" in vpn
    faithful = next(b for b in by_kind["faithfulness"] if question_of(b) == Q_VPN)["messages"][0]["content"]
    assert f"Context: {CORPUS[0]['text']}\n\n{CORPUS[1]['text']}\n" in faithful
    assert f"Answer: {ANSWERS[Q_VPN][0]}\n" in faithful

    # the rerun: every reply from the cache, so the same numbers with no call made
    assert rerun.exit_code == 0, rerun.output
    assert rerun_calls == 0
    second, _ = read(again)
    assert second["metrics"] == report["metrics"]
    assert (second["volatile"]["llm"]["calls"], second["volatile"]["llm"]["cache_hits"]) == (0, 19)
    assert second["volatile"]["generation_latency_ms"]["n"] == 0  # cached replies are not latencies


def test_failures_mid_run_are_counted_on_the_right_metrics(bench, tmp_path, monkeypatch):
    data = write_dataset(tmp_path / "t2")
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        # q2's generation is refused (HTTP 400 is not retried); q1's faithfulness rating is not JSON, twice
        server.responder = Scripted(overrides={
            ("generator", Q_VACATION): Reply(status=400, message="prompt rejected"),
            ("faithfulness", Q_VPN): Reply(text="The answer looks faithful to me."),
        })
        use_server(monkeypatch, server, "sut-failing", "judge-failing")
        result = bench("tier2", "--dataset", data, "-o", out)
        calls = list(server.chat_requests)
    assert result.exit_code == 0, result.output
    report, items = read(out)
    m = report["metrics"]

    def counts(name):
        return m[name]["value"], m[name]["n"], m[name]["errors"]

    assert counts("avg_faithfulness") == (0.75, 2, 2)  # q3 0.5, q4 1.0; q1 parse error, q2 no answer
    assert counts("avg_answer_relevance")[1:] == (3, 1)
    assert m["avg_answer_relevance"]["value"] == pytest.approx(2.6 / 3, abs=1e-6)  # q1 0.9, q3 1.0, q4 0.7
    assert counts("avg_answer_correctness") == (4.5, 2, 1)  # q1 5, q3 4; q2 no answer; q4 undetermined
    assert counts("avg_rouge1_f") == (1.0, 2, 1)
    assert counts("response_exact_match_rate") == (pytest.approx(2 / 3, abs=1e-6), 3, 1)
    statuses = report["notes"]["statuses"]
    assert statuses["faithfulness"] == {"no_answer": 1, "ok": 2, "parse_error": 1}
    assert statuses["answer_relevance"] == {"no_answer": 1, "ok": 3}
    assert statuses["generation"] == {"api_error": 2, "ok": 6}
    assert [a["status"] for a in items["q2"]["answers"]] == ["api_error", "api_error"]
    assert "prompt rejected" in items["q2"]["answers"][0]["error"] and items["q2"]["answer"] is None
    failed = {metric: scored for metric, by in items["q2"]["scores"].items() for scored in by.values()}
    assert set(failed) == set(m)  # a failed generation fails every metric of its question
    assert {row["status"] for row in failed.values()} == {"no_answer", "api_error"}  # api_error: the repeats'
    assert "prompt rejected" in failed["avg_faithfulness"]["explanation"]
    q1 = {metric: by["judge-failing"] for metric, by in items["q1"]["scores"].items() if "judge-failing" in by}
    assert q1["avg_faithfulness"]["status"] == "parse_error" and "after one repair attempt" in \
        q1["avg_faithfulness"]["explanation"]
    assert q1["avg_answer_relevance"] == {"value": 0.9, "status": "ok", "explanation": ""}
    assert assert_scores_reproduce_report(out) == set(m)
    # the unparseable rating was asked twice (the repair quotes the error back), nothing is asked about q2
    assert sum(kind_of(c["body"]) == "faithfulness" and question_of(c["body"]) == Q_VPN for c in calls) == 2
    assert not any(kind_of(c["body"]) != "generator" and question_of(c["body"]) == Q_VACATION for c in calls)
    assert report["volatile"]["llm"] is not None


def test_reasoned_mode_and_the_ragas_form_faithfulness(bench, tmp_path, monkeypatch):
    data = write_dataset(tmp_path / "t2")
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = Scripted(reasoned=True)
        use_server(monkeypatch, server, "sut-reasoned", "judge-reasoned")
        result = bench("tier2", "--dataset", data, "--mode", "reasoned", "--metrics", "faithfulness",
                       "--repeats", "1", "-o", out)
        prompts = [c["body"]["messages"][0]["content"] for c in server.chat_requests]
    assert result.exit_code == 0, result.output
    report, items = read(out)
    # the seed rating, from the reasoned answers, and the RAGAS form: supported statements / statements
    assert value(report, "avg_faithfulness") == 0.625
    assert value(report, "faithfulness") == 0.625  # q1 2/2, q2 0/1, q3 1/2, q4 1/1
    assert report["metrics"]["faithfulness"]["n"] == 4
    # each item keeps both, under their report names: the rating as avg_faithfulness, the RAGAS form apart
    assert score(items["q3"], "avg_faithfulness", "judge-reasoned")["value"] == 0.5
    assert score(items["q3"], "faithfulness", "judge-reasoned")["value"] == 0.5
    assert score(items["q2"], "avg_faithfulness", "judge-reasoned") == {
        "value": 0.0, "status": "ok", "explanation": f"faithfulness of {Q_VACATION}"}
    assert score(items["q2"], "faithfulness", "judge-reasoned")["value"] == 0.0
    assert "HR answers this." in score(items["q2"], "faithfulness", "judge-reasoned")["explanation"]
    assert report["notes"]["statuses"]["ragas:faithfulness"] == {"ok": 4}
    assert score(items["q2"], "avg_answer_relevance", "judge-reasoned")["explanation"] == \
        f"answer_relevance of {Q_VACATION}"
    assert assert_scores_reproduce_report(out) == set(report["metrics"])
    assert report["notes"]["mode"] == "reasoned"
    hashes = report["provenance"]["judge"]["prompts_sha256"]
    assert "en/formats/score_reasoned" in hashes and "en/formats/score_direct" not in hashes
    assert report["provenance"]["judge"]["metrics"] == [
        "avg_faithfulness", "avg_answer_relevance", "avg_answer_correctness", "faithfulness"]
    rating_prompts = [p for p in prompts if p.splitlines()[0] == first_line("en/rate_faithfulness.txt")]
    assert rating_prompts and all('"reasoning"' in p for p in rating_prompts)
    # --repeats 1: one answer per question, so no repeatability metric
    assert "response_exact_match_rate" not in report["metrics"]
    assert report["notes"]["statuses"]["generation"] == {"ok": 4}


# statements of each answer for the RAGAS-form faithfulness; "(supported)" ones get verdict 1
STATEMENTS = {Q_VPN: ["Install GlobalProtect (supported).", "Sign in with SSO (supported)."],
              Q_VACATION: ["HR answers this."],
              Q_PARKING: ["Book in Parkly (supported).", "Parking is free."],
              Q_EXPENSES: ["Within 30 days (supported)."]}


def test_the_answer_correctness_weights_setting_is_honoured(bench, tmp_path, monkeypatch):
    # tiers 2 and 3 ask the RAGAS-form metrics with the options `bench evaluate` reads from the same settings
    data = write_dataset(tmp_path / "t2", QUESTIONS[:1])
    runs = {}
    with FakeOpenAI() as server:
        server.responder = Scripted()
        use_server(monkeypatch, server, "sut-weights", "judge-weights")
        for weights in ("default", "equal"):
            out = tmp_path / weights
            result = bench("tier2", "--dataset", data, "--metrics", "answer_correctness", "--repeats", "1",
                           "--weights", weights, "-o", out)
            assert result.exit_code == 0, result.output
            runs[weights] = read(out)
    # q1: TP 1, FP 1, FN 0, so F1 = 2/3; the answer is the reference verbatim, so similarity = 1.0
    for weights, expected in (("default", 0.75 * 2 / 3 + 0.25 * 1.0), ("equal", 0.5 * 2 / 3 + 0.5 * 1.0)):
        report, items = runs[weights]
        grade = score(items["q1"], "answer_correctness", "judge-weights")
        assert grade["status"] == "ok" and "TP 1, FP 1, FN 0; similarity 1.0" in grade["explanation"]
        assert grade["value"] == pytest.approx(expected, abs=1e-6)
        assert value(report, "answer_correctness") == pytest.approx(expected, abs=1e-6)
        assert report["settings"]["correctness_weights"] == weights


def test_precomputed_answers_are_graded_and_nothing_is_generated(bench, tmp_path, monkeypatch):
    questions = [dict(QUESTIONS[0], responses=[ANSWERS[Q_VPN][0], ANSWERS[Q_VPN][0]]),
                 dict(QUESTIONS[1], response="Please ask HR."),  # one answer: its repeat is missing
                 dict(QUESTIONS[2]),  # no answer at all
                 QUESTIONS[4]]
    data = write_dataset(tmp_path / "t2", questions)
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = Scripted()
        use_server(monkeypatch, server, "sut-unused", "judge-precomputed")
        result = bench("tier2", "--dataset", data, "--generator", "precomputed", "-o", out)
        calls = [c["body"] for c in server.chat_requests]
    assert result.exit_code == 0, result.output
    report, items = read(out)
    assert calls and all(kind_of(b) != "generator" and b["model"] == "judge-precomputed" for b in calls)
    assert any(f"Answer: {ANSWERS[Q_VPN][0]}\n" in b["messages"][0]["content"] for b in calls)
    assert report["provenance"]["generator"]["adapter"] == "precomputed"
    assert report["provenance"]["generator"]["dataset_sha256"] == report["dataset"]["content_sha256"]
    assert report["notes"]["statuses"]["generation"] == {"missing": 3, "ok": 3}
    assert (value(report, "avg_faithfulness"), report["metrics"]["avg_faithfulness"]["errors"]) == (0.5, 1)
    assert value(report, "avg_rouge1_f") == 0.5  # q1 copies the reference, q2 shares no word
    # exact match only where two answers exist: q1
    assert (value(report, "response_exact_match_rate"), report["metrics"]["response_exact_match_rate"]["n"]) \
        == (1.0, 1)
    assert [a["status"] for a in items["q2"]["answers"]] == ["ok", "missing"]
    assert items["q2"]["answers"][1]["error"] == MISSING
    assert score(items["q3"], "avg_faithfulness", "judge-precomputed") == {"value": None, "status": "no_answer",
                                                                          "explanation": MISSING}
    # q2's missing repeat leaves its agreement undetermined, not failed
    assert score(items["q2"], "response_exact_match_rate")["status"] == "undetermined"
    assert assert_scores_reproduce_report(out) == set(report["metrics"])


def test_missing_reference_answers_are_named_in_one_message(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # never called
    monkeypatch.setenv("BENCH_LLM_MODEL", "unused")
    questions = [{k: v for k, v in q.items() if k != "reference_answer"} for q in QUESTIONS]
    result = bench("tier2", "--dataset", write_dataset(tmp_path / "noref", questions))
    assert result.exit_code == 2
    assert ("dataset 'noref': tier 2 needs field(s) that no question in questions.jsonl has: reference_answer"
            in result.output)
    assert "relevant" not in result.output

    bare = [{"id": q["id"], "question": q["question"], "relevant": {}} for q in QUESTIONS]
    result = bench("tier2", "--dataset", write_dataset(tmp_path / "bare", bare))
    assert result.exit_code == 2
    assert ("tier 2 needs field(s) that no question in questions.jsonl has: relevant (a chunk with grade > 0, the "
            "fixed context), reference_answer" in result.output)


def test_a_users_generator_template(bench, tmp_path, monkeypatch):
    template = tmp_path / "house.txt"
    # the first line of bench's own template, so the scripted server knows it for the generator's prompt
    template.write_text(first_line("rag/en.txt") + "\nSources:\n{context}\n"
                        'Question: {question}\nReply with {{"answer": ...}}')
    data = write_dataset(tmp_path / "t2", QUESTIONS[:1])
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = Scripted()
        use_server(monkeypatch, server, "sut-template", "judge-template")
        result = bench("tier2", "--dataset", data, "--generator-template", template, "--repeats", "1", "-o", out)
        prompts = [c["body"]["messages"][0]["content"] for c in server.chat_requests]
    assert result.exit_code == 0, result.output
    report, _ = read(out)
    assert report["provenance"]["generator"]["template"] == "house.txt"
    generated = [p for p in prompts if p.startswith(first_line("rag/en.txt"))]
    assert generated == [f"{first_line('rag/en.txt')}\nSources:\n[1] {CORPUS[0]['text']}\n\n[2] {CORPUS[1]['text']}"
                         f'\nQuestion: {Q_VPN}\nReply with {{"answer": ...}}']

    template.write_text("Question: {question}\nSources: {contexts}")
    result = bench("tier2", "--dataset", data, "--generator-template", template)
    assert result.exit_code == 2
    assert "house.txt: a generator template must use exactly {question} and {context}, found {contexts}, " \
           "{question}" in result.output


def test_precomputed_without_responses_names_the_response_field(bench, tmp_path):
    result = bench("tier2", "--dataset", write_dataset(tmp_path / "t2"), "--generator", "precomputed", "--judge",
                   "offline")
    assert result.exit_code == 2
    assert "tier 2 needs field(s) that no question in questions.jsonl has: response or responses" in result.output


@pytest.mark.slow  # over 10 s: make test-fast leaves it out
def test_extractive_and_offline_judge_on_the_synthetic_set_need_no_llm(bench, tmp_path, monkeypatch):
    for name in ("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "BENCH_LLM_MODEL", "BENCH_LLM_API_KEY", "OPENAI_API_KEY",
                 "BENCH_GENERATOR_MODEL", "BENCH_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out"
    result = bench("tier2", "--dataset", "synthetic", "--generator", "extractive", "--judge", "offline", "-o", out)
    assert result.exit_code == 0, result.output
    report, items = read(out)
    m = report["metrics"]
    answered = report["notes"]["questions"]["answered"]
    assert report["notes"]["questions"] == {"total": 439, "answered": 429, "without_context": 10}
    # the baseline copies context sentences: every sentence is supported, and its repeats agree verbatim
    assert (value(report, "avg_faithfulness"), m["avg_faithfulness"]["n"]) == (1.0, answered)
    assert value(report, "response_exact_match_rate") == 1.0
    assert value(report, "response_semantic_consistency") == 1.0
    # answer relevance has no offline proxy: not measured rather than a number
    assert (value(report, "avg_answer_relevance"), m["avg_answer_relevance"]["n"]) == (None, 0)
    assert report["notes"]["statuses"]["answer_relevance"] == {"undetermined": answered}
    assert "no offline proxy" in report["notes"]["offline_proxies"]["avg_answer_relevance"]
    # copying two sentences is a partial answer: plausible, not perfect
    assert 1.5 < value(report, "avg_answer_correctness") < 4.0
    assert 0.2 < value(report, "avg_rouge1_f") < 0.8 and 0 < value(report, "avg_bleu") < 50
    assert all(m[name]["errors"] == 0 for name in m)
    assert report["provenance"]["generator"]["adapter"] == "extractive"
    assert report["provenance"]["judge"] == {"backend": "offline", "language": "en", "metrics": [
        "avg_faithfulness", "avg_answer_relevance", "avg_answer_correctness"],
        "offline_sha256": offline_sha256()}  # what bench compare guards
    assert report["volatile"]["llm"] is None
    some = next(iter(items.values()))
    assert len(some["answers"]) == 2 and some["answers"][0]["text"] == some["answers"][1]["text"] == some["answer"]
    assert set(some["scores"]["avg_faithfulness"]) == {"offline"}
    # answer relevance is undetermined for every question, so it is scored (as such) but has no number
    assert assert_scores_reproduce_report(out) == set(m)


@pytest.mark.parametrize("tier", ["tier2", "tier3"])
def test_the_items_scores_reproduce_the_report_with_failed_and_undetermined_values(bench, tmp_path, tier):
    # precomputed answers: q9 has none (a failed generation), q3 one (its repeat missing: no agreement to measure),
    # q4 has no reference (undetermined grades, no text metric); --metrics adds a judged and an embedding metric
    failing = {"id": "q9", "question": "Which question fails?", "relevant": {"vacation#1": 1},
               "reference_answer": "None of them."}
    questions = [{**q, "responses": [f"Answer to {q['id']}.", f"An answer to {q['id']}."][:1 if q["id"] == "q3" else 2]}
                 for q in QUESTIONS]
    data = write_dataset(tmp_path / "data", [*questions, failing])
    out = tmp_path / "out"
    result = bench(tier, "--dataset", data, "--generator", "precomputed", "--judge", "offline",
                   "--metrics", "faithfulness,semantic_similarity", "-o", out)
    assert result.exit_code == 0, result.output
    report, items = read(out)
    assert assert_scores_reproduce_report(out) == set(report["metrics"])
    # q9's missing answer fails every metric of its answer; missing repeats (not failed calls) fail no agreement
    answer_metrics = {name for name in report["metrics"] if not name.startswith(("retrieval_hit", "response_"))}
    assert {report["metrics"][name]["errors"] for name in answer_metrics} == {1}
    assert {by[scorer]["status"] for name, by in items["q9"]["scores"].items() if name in answer_metrics
            for scorer in by} == {"no_answer"}
    assert items["q3"]["scores"]["response_exact_match_rate"]["bench"]["status"] == "undetermined"
