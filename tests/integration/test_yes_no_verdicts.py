"""Yes-no verdicts (the default judge_verdicts): the context's own answer to the question first, then one question
per claim with it in view, read as the probability of Yes where the server returns token log-probabilities, else
as the word it answers; judged over real HTTP by a scripted local
OpenAI-compatible server, so the real client, the probe and the parsing run."""

from __future__ import annotations

import json
import math

import pytest

from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

SAMPLE = {"id": "s1", "user_input": "When and where was the first Super Bowl played?",
          "response": "It was played on January 15, 1967, and it was held in Los Angeles.",
          "retrieved_contexts": ["The first Super Bowl was played on January 15, 1967.",
                                 "It took place at the Los Angeles Memorial Coliseum."],
          "reference": "January 15, 1967, in Los Angeles."}
P_YES = {"January": 0.8, "Los Angeles": 0.3}  # each claim's probability of Yes, as the scripted model gives it


CLAIM = "\n\nStatement: "
EXTRACTED = "January 15, 1967, at the Los Angeles Memorial Coliseum"


def extraction(body):
    """The extraction step's reply, or None for a verdict call."""
    return Reply(text=EXTRACTED) if "shortest phrase" in body["messages"][-1]["content"] else None


def logprob_judge(body):
    """Yes and No among the first token's alternatives, weighted as P_YES says; a little mass elsewhere."""
    if reply := extraction(body):
        return reply
    prompt = body["messages"][-1]["content"]
    claim = prompt.split(CLAIM, 1)[1] if CLAIM in prompt else ""
    p = next((value for word, value in P_YES.items() if word in claim), 0.5)
    rest = 0.1  # "The", "Based" ...: not a verdict, left out of the normalisation
    return Reply(text="Yes" if p >= 0.5 else "No", top_logprobs=[
        ("Yes", math.log(p * (1 - rest))), (" No", math.log((1 - p) * (1 - rest))), ("The", math.log(rest))])


def word_judge(body):
    if reply := extraction(body):
        return reply
    prompt = body["messages"][-1]["content"]
    return Reply(text="No." if "Los Angeles" in prompt.split(CLAIM, 1)[-1].split("\n")[0] else "Yes")


@pytest.fixture
def samples(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_JUDGE_VERDICTS", "yes-no")
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(SAMPLE) + "\n")
    return path


def run(bench, server, samples, out, monkeypatch, *extra, code=0):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--no-cache", "-o", out, *extra)
    assert result.exit_code == code, result.output
    report = json.loads((out / "report.json").read_text())
    item = json.loads((out / "items.jsonl").read_text().splitlines()[0])
    return report, item["scores"]["faithfulness"]["judge-a"]


def test_probability_verdicts_give_the_expected_share_of_supported_claims(bench, samples, tmp_path, monkeypatch):
    with FakeOpenAI() as server:
        server.responder = logprob_judge
        report, outcome = run(bench, server, samples, tmp_path / "p", monkeypatch)
        requests = [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert outcome["value"] == pytest.approx((0.8 + 0.3) / 2)  # two claims; P(yes) normalised over Yes and No
    assert outcome["calls"] == 3 and outcome["status"] == "ok"  # the context's answer, then a call a claim
    assert f"the knowledge's answer: «{EXTRACTED}»" in outcome["explanation"]
    assert "«and it was held in Los Angeles.»: P(yes) 0.30" in outcome["explanation"]
    assert sorted(r["p_yes"] for r in outcome["raw"] if "p_yes" in r) == [pytest.approx(0.3), pytest.approx(0.8)]
    judge = report["provenance"]["judge"]
    assert judge["verdicts"] == "yes-no" and judge["verdict_reading"] == {"judge-a": "probability"}
    assert set(report["provenance"]["judge"]["prompts_sha256"]) == {"en/knowledge_answer", "en/claim_support"}
    asked = [r["body"] for r in requests]
    extract = [b for b in asked if "shortest phrase" in b["messages"][-1]["content"]]
    assert len(extract) == 1 and extract[0]["max_tokens"] == 16 and extract[0]["stop"] == ["\n"]
    assert "response_format" not in extract[0]
    verdict_calls = [b for b in asked if CLAIM in b["messages"][-1]["content"]]
    assert len(verdict_calls) == 2
    probes = [b for b in asked if b not in extract and b not in verdict_calls]  # whether logprobs come, once a run
    assert len(probes) == 1 and probes[0]["max_tokens"] == 1 and probes[0]["logprobs"] is True
    assert all(b["max_tokens"] == 1 and b["top_logprobs"] == 10 and "response_format" not in b for b in verdict_calls)
    assert all(b["messages"][0] == {"role": "system", "content": "You are a strict fact-checking judge."}
               for b in [*extract, *verdict_calls])
    # each claim's question continues the extraction's conversation, word for word as the server answered it: a
    # server's prompt cache holds the context, the question and the reply when the claims come
    system, asked_extraction = extract[0]["messages"]
    assert all(b["messages"][:3] == [system, asked_extraction, {"role": "assistant", "content": EXTRACTED}]
               and len(b["messages"]) == 4 for b in verdict_calls)
    assert asked_extraction["content"].startswith("Knowledge:\nThe first Super Bowl")
    assert SAMPLE["user_input"] in asked_extraction["content"]
    assert [b["messages"][-1]["content"].split(CLAIM)[1].split("\n")[0] for b in verdict_calls] == [
        "It was played on January 15, 1967", "and it was held in Los Angeles."]


def test_without_logprobs_the_word_is_read_and_the_report_says_so(bench, samples, tmp_path, monkeypatch):
    with FakeOpenAI() as server:
        server.responder = word_judge  # a server that never returns logprobs
        report, outcome = run(bench, server, samples, tmp_path / "w", monkeypatch)
    assert outcome["value"] == 0.5  # Yes, then "No."
    assert report["provenance"]["judge"]["verdict_reading"] == {"judge-a": "parsed"}
    assert [r.get("read") for r in outcome["raw"]] == [None, "word", "word"]  # the extraction is text, not read


def test_an_answer_that_is_neither_yes_nor_no_is_repaired_once_then_a_parse_error(bench, samples, tmp_path,
                                                                                 monkeypatch):
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(text="Maybe, it depends.")
        _, outcome = run(bench, server, samples, tmp_path / "m", monkeypatch, code=3)  # it measured nothing
        repairs = [r["body"]["messages"] for r in server.requests if r["path"].endswith("/chat/completions")
                   and r["body"]["messages"][-1]["content"] == "Answer with one word: Yes or No."]
    assert outcome["status"] == "parse_error"
    assert "neither Yes nor No in 'Maybe, it depends.'" in outcome["explanation"]
    assert repairs and repairs[0][-2]["content"] == "Maybe, it depends."  # the claim's turn, answered


def test_a_change_of_reading_makes_faithfulness_not_comparable(bench, samples, tmp_path, monkeypatch):
    with FakeOpenAI() as server:
        server.responder = logprob_judge
        run(bench, server, samples, tmp_path / "p", monkeypatch)
    with FakeOpenAI() as server:
        server.responder = word_judge
        run(bench, server, samples, tmp_path / "w", monkeypatch)
    result = bench("compare", tmp_path / "p", tmp_path / "w", "--format", "json", "--resamples", "200")
    compared = json.loads(result.output)
    assert "verdict_reading" in compared["judge_changed"]
    assert {row["metric"]: row["status"] for row in compared["metrics"]}["faithfulness"] == "not comparable"


def test_statements_verdicts_stay_a_choice(bench, samples, tmp_path, monkeypatch):
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(text=json.dumps({"statements": ["It was played in 1967."]})
                                              if '"verdicts"' not in body["messages"][0]["content"] else
                                              json.dumps({"verdicts": [{"statement": "It was played in 1967.",
                                                                        "reason": "stated", "verdict": 1}]}))
        report, outcome = run(bench, server, samples, tmp_path / "s", monkeypatch, "--judge-verdicts", "statements")
    assert outcome["value"] == 1.0 and outcome["calls"] == 2
    assert report["provenance"]["judge"]["verdicts"] == "statements"
    assert "verdict_reading" not in report["provenance"]["judge"]
