"""`bench judge` through the CLI, against a scripted judge on a local OpenAI-compatible server.

The repeats of one rating send the same request (the repeat index only keys the cache), so a
scripted judge tells them apart by how often it has seen the prompt. Each test names its own judge
models: the LLM cache lives in the session's data folder, keyed by model and prompt.
"""

import json
import re
import threading
from collections import Counter

import pytest

from benchmarks.shipped import shipped_dir
from tests.integration.judge_item_scores import check_scores_reproduce_report
from tests.integration.openai_server import Reply

pytestmark = pytest.mark.integration

ITEMS = [
    {"id": "a", "question": "Q1?", "context": "C1.", "answer": "A1."},
    {"id": "b", "question": "Q2?", "context": "C2.", "answer": "A2.", "ground_truth_show": True},
    {"id": "c", "question": "Q3?", "context": "C3.", "answer": "A3.", "ground_truth_show": "no"},
    {"id": "d", "question": "Q4?", "context": "C4.", "answer": "A4."},
]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return path


class Judge:
    """Replies by the item's answer in the prompt and how many times this model has rated it."""

    def __init__(self, replies):
        self.replies = replies  # model -> answer -> one reply per repeat (a score, or a Reply)
        self.seen = Counter()
        self.lock = threading.Lock()

    def __call__(self, body):
        prompt = body["messages"][0]["content"]
        answer = re.search(r"^Answer: (.*)$", prompt, re.MULTILINE).group(1)
        if len(body["messages"]) > 1:  # the repair attempt after an unusable answer
            return Reply(text="still not JSON")
        with self.lock:
            nth = self.seen[body["model"], answer]
            self.seen[body["model"], answer] += 1
        reply = self.replies[body["model"]][answer][nth]
        return reply if isinstance(reply, Reply) else Reply(text=json.dumps({"score": reply}))


def report_of(folder):
    return json.loads((folder / "report.json").read_text())


def items_of(folder):
    return {row["id"]: row for row in map(json.loads, (folder / "items.jsonl").read_text().splitlines())}


def test_consistency_over_two_repeats_and_a_rerun_from_the_cache(bench, tmp_path, llm):
    llm.responder = Judge({"jt-two-repeats": {"A1.": [0.9, 0.3], "A2.": [1.0, 1.0], "A3.": [0.5, 0.0],
                                              "A4.": [0.2, 0.4]}})
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS)
    result = bench("judge", "--dataset", items, "--models", "jt-two-repeats", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert len(llm.chat_requests) == 8  # 4 items × 2 repeats, each its own call
    report = report_of(tmp_path / "out")
    m = report["metrics"]
    assert list(m) == ["consistency_score", "mean_abs_difference", "error_rate", "avg_faithfulness"]
    assert m["consistency_score"]["value"] == 0.75  # a: |0.9 − 0.3| = 0.6 > δ; c: exactly δ agrees
    assert m["consistency_score"]["n"] == 4
    assert m["mean_abs_difference"]["value"] == pytest.approx((0.6 + 0.0 + 0.5 + 0.2) / 4)
    assert m["mean_abs_difference"]["higher_is_better"] is False
    assert m["avg_faithfulness"]["value"] == pytest.approx((0.6 + 1.0 + 0.25 + 0.3) / 4)
    assert m["error_rate"] == {"value": 0.0, "n": 8, "errors": 0, "ci95": None, "higher_is_better": False}
    notes = report["notes"]
    assert (notes["delta"], notes["repeats"], notes["mode"], notes["missing"]) == (0.5, 2, "direct", 0)
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| `consistency_score` ★ | 0.7500 | needs attention |" in markdown  # seed 004 §11.2: below 0.85
    lowest = markdown[markdown.index("## Lowest-scoring items"):]
    consistency = lowest[lowest.index("### `consistency_score`"):lowest.index("### `mean_abs_difference`")]
    # the two repeats are concurrent calls: the scripted server gives 0.9 to whichever arrives first
    assert consistency.splitlines()[4] in ("| `a` | 0.0000 | repeats 0.9, 0.3: 2 of 2 scored |",
                                           "| `a` | 0.0000 | repeats 0.3, 0.9: 2 of 2 scored |")
    assert consistency.splitlines()[5] == "| `b` | 1.0000 | repeats 1, 1: 2 of 2 scored |"  # then ties by id
    spread = lowest[lowest.index("### `mean_abs_difference`"):lowest.index("### `avg_faithfulness`")]
    assert [line.split(" | ")[0] for line in spread.splitlines() if line.startswith("| `")] == [
        "| `a`", "| `c`", "| `d`", "| `b`"]  # lower is better: the widest spread first
    assert notes["means_by_ground_truth_show"] == {"true": 1.0, "false": 0.25}
    assert report["tier"] == "judge" and report["main_metric"] == "consistency_score"
    judge = report["provenance"]["judge"]
    assert (judge["backend"], judge["models"], judge["mode"]) == ("llm", ["jt-two-repeats"], "direct")
    assert set(judge["prompts_sha256"]) == {"en/rate_faithfulness", "en/formats/score_direct"}
    assert judge["metrics"] == ["avg_faithfulness"]  # its grade of the items; the rest describe the judge
    assert report["volatile"]["latency_ms"]["n"] == 8
    row = items_of(tmp_path / "out")["a"]
    assert row["inputs"] == {"question": "Q1?", "context": "C1.", "answer": "A1."} and row["cluster"] is None
    assert sorted(row["answer"]["jt-two-repeats"]) == [0.3, 0.9]
    assert row["judges"]["jt-two-repeats"]["statuses"] == ["ok", "ok"]
    said = f"repeats {', '.join(f'{s:g}' for s in row['answer']['jt-two-repeats'])}: 2 of 2 scored"  # as they came
    assert row["scores"]["consistency_score"] == {"jt-two-repeats": {"value": 0.0, "status": "ok", "explanation": said}}
    assert row["scores"]["avg_faithfulness"]["jt-two-repeats"]["value"] == pytest.approx(0.6)
    assert items_of(tmp_path / "out")["b"]["ground_truth_show"] is True
    assert check_scores_reproduce_report(tmp_path / "out") == {"consistency_score", "mean_abs_difference",
                                                               "avg_faithfulness"}

    again = bench("judge", "--dataset", items, "--models", "jt-two-repeats", "-o", tmp_path / "again")
    assert again.exit_code == 0, again.output
    assert len(llm.chat_requests) == 8  # every repeat was cached under its own key
    assert report_of(tmp_path / "again")["metrics"] == m
    assert report_of(tmp_path / "again")["volatile"]["latency_ms"]["n"] == 0  # cached replies are not latency


def test_a_failed_call_and_an_unparseable_reply_are_errors_and_the_run_goes_on(bench, tmp_path, llm):
    llm.responder = Judge({"jt-failures": {
        "A1.": [0.9, 0.9, 0.7],
        "A2.": [0.2, Reply(status=400, message="bad request"), 0.8],
        "A3.": [Reply(text="The answer looks faithful."), 0.1, 0.3],
    }})
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS[:3])
    result = bench("judge", "--dataset", items, "--models", "jt-failures", "--repeats", "3", "--concurrency", "1",
                   "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    m = report_of(tmp_path / "out")["metrics"]
    assert m["error_rate"]["value"] == pytest.approx(2 / 9) and m["error_rate"]["errors"] == 2
    # a: 0.9, 0.9, 0.7 agree (max − min 0.2); b: 0.2 and 0.8 do not; c: 0.1 and 0.3 do
    assert m["consistency_score"]["value"] == pytest.approx(2 / 3)
    assert m["mean_abs_difference"]["value"] == pytest.approx(((0.0 + 0.2 + 0.2) / 3 + 0.6 + 0.2) / 3)
    assert m["consistency_score"]["errors"] == 2
    notes = report_of(tmp_path / "out")["notes"]
    assert notes["statuses"] == {"ok": 7, "undetermined": 0, "parse_error": 1, "truncated": 0, "api_error": 1}
    rows = items_of(tmp_path / "out")
    assert rows["b"]["judges"]["jt-failures"]["statuses"] == ["ok", "api_error", "ok"]
    assert "HTTP 400" in rows["b"]["judges"]["jt-failures"]["explanations"][1]
    c = rows["c"]["judges"]["jt-failures"]
    assert c["statuses"] == ["parse_error", "ok", "ok"] and [len(raw) for raw in c["raw"]] == [2, 1, 1]
    assert rows["c"]["answer"] == {"jt-failures": [None, 0.1, 0.3]}
    assert check_scores_reproduce_report(tmp_path / "out") == {"consistency_score", "mean_abs_difference",
                                                               "avg_faithfulness"}


def test_an_item_no_repeat_scored_fails_its_metrics_with_the_calls_error(bench, tmp_path, llm):
    failed = Reply(status=400, message="bad request")
    llm.responder = Judge({"jt-all-failed": {"A1.": [0.5, 0.7], "A2.": [failed, failed], "A3.": [0.1, failed]}})
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS[:3])
    result = bench("judge", "--dataset", items, "--models", "jt-all-failed", "--concurrency", "1",
                   "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    rows = items_of(tmp_path / "out")
    b, c = rows["b"]["scores"], rows["c"]["scores"]
    assert {metric: s["jt-all-failed"]["status"] for metric, s in b.items()} == {
        "consistency_score": "api_error", "mean_abs_difference": "api_error", "avg_faithfulness": "api_error"}
    assert c["avg_faithfulness"]["jt-all-failed"]["value"] == pytest.approx(0.1)
    assert c["consistency_score"]["jt-all-failed"]["status"] == "api_error"  # one scored repeat: nothing to compare
    assert check_scores_reproduce_report(tmp_path / "out") == {"consistency_score", "mean_abs_difference",
                                                               "avg_faithfulness"}


def test_reasoned_mode_reads_the_reasoning_and_the_score(bench, tmp_path, llm):
    def reasoned(body):
        prompt = body["messages"][0]["content"]
        assert "think step by step" in prompt
        if "Answer: A1." in prompt:
            return Reply(text='Step by step:\n```json\n{"reasoning": "The context states it.", "score": 1}\n```')
        return Reply(text='{"score": 0.5}')  # no reasoning: unusable in reasoned mode, even after the repair

    llm.responder = reasoned
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS[:2])
    result = bench("judge", "--dataset", items, "--models", "jt-reasoned", "--mode", "reasoned", "-o",
                   tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = report_of(tmp_path / "out")
    assert report["metrics"]["avg_faithfulness"]["value"] == 1.0
    assert report["metrics"]["error_rate"]["value"] == 0.5
    assert report["notes"]["mode"] == "reasoned"
    assert "en/formats/score_reasoned" in report["provenance"]["judge"]["prompts_sha256"]
    a = items_of(tmp_path / "out")["a"]
    assert a["judges"]["jt-reasoned"]["explanations"] == ["The context states it."] * 2
    assert a["answer"] == {"jt-reasoned": [1.0, 1.0]}
    assert items_of(tmp_path / "out")["b"]["judges"]["jt-reasoned"]["statuses"] == ["parse_error"] * 2


def test_two_models_each_with_their_numbers_and_their_agreement(bench, tmp_path, llm):
    llm.responder = Judge({
        "jt-m1": {"A1.": [1.0, 1.0], "A2.": [0.0, 0.0], "A3.": [0.5, 0.5]},
        "jt-m2": {"A1.": [0.0, 1.0], "A2.": [0.0, 0.0], "A3.": [1.0, 1.0]},
    })
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS[:3])
    result = bench("judge", "--dataset", items, "--models", "jt-m1,jt-m2", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = report_of(tmp_path / "out")
    m = report["metrics"]
    assert m["consistency_score/jt-m1"]["value"] == 1.0
    assert m["consistency_score/jt-m2"]["value"] == pytest.approx(2 / 3)  # A1.: 0 then 1
    assert m["consistency_score"]["value"] == pytest.approx(5 / 6) and m["consistency_score"]["n"] == 6
    assert m["mean_abs_difference/jt-m2"]["value"] == pytest.approx(1 / 3)
    assert m["avg_faithfulness/jt-m1"]["value"] == 0.5 and m["avg_faithfulness/jt-m2"]["value"] == 0.5
    assert m["avg_faithfulness"]["value"] == pytest.approx((0.75 + 0.0 + 0.75) / 3)
    # model means per item: m1 (1.0, 0.0, 0.5), m2 (0.5, 0.0, 1.0)
    agreement = report["notes"]["agreement"]["avg_faithfulness"]
    assert agreement["mean_absolute_difference"] == pytest.approx((0.5 + 0.0 + 0.5) / 3)
    # interval alpha: observed Σ_u Σ_{i≠j} (v_i − v_j)² / (m_u − 1) = 0.5 + 0 + 0.5 = 1.0 over n = 6 values;
    # expected Σ_{i≠j} over all six values (two each of 0, 0.5, 1) = 2 × (4 × 0.25 + 4 × 1 + 4 × 0.25) = 12
    assert agreement["krippendorff_alpha_interval"] == pytest.approx(1 - (6 - 1) * 1.0 / 12)
    assert set(report["volatile"]["latency_ms_by_model"]) == {"jt-m1", "jt-m2"}
    # a model's two repeats are sent together, so which of them got the scripted first reply varies
    answer = items_of(tmp_path / "out")["a"]["answer"]
    assert {model: sorted(scores) for model, scores in answer.items()} == {"jt-m1": [1.0, 1.0], "jt-m2": [0.0, 1.0]}
    metrics = {"consistency_score", "mean_abs_difference", "avg_faithfulness"}
    assert check_scores_reproduce_report(tmp_path / "out") == metrics | {f"{name}/{model}" for name in metrics
                                                                          for model in ("jt-m1", "jt-m2")}


def pairwise_judge(better_of):
    """A judge that says "A" whatever it is shown (jt-first), or picks the right answer (jt-fair)."""
    def reply(body):
        if body["model"] == "jt-first":
            return Reply(text='{"verdict": "A"}')
        prompt = body["messages"][0]["content"]
        shown = re.search(r"^Answer A: (.*)$", prompt, re.MULTILINE).group(1), \
            re.search(r"^Answer B: (.*)$", prompt, re.MULTILINE).group(1)
        best = better_of(*shown)
        return Reply(text=json.dumps({"verdict": "Tie" if best is None else "AB"[shown.index(best)]}))

    return reply


PAIRS = [
    {"id": "p1", "question": "Q1?", "context": "C1.", "answer_a": "right 1", "answer_b": "wrong 1", "better": "a"},
    {"id": "p2", "question": "Q2?", "context": "C2.", "answer_a": "wrong 2", "answer_b": "right 2", "better": "B"},
    {"id": "p3", "question": "Q3?", "context": "C3.", "answer_a": "right 3", "answer_b": "right 3", "better": "tie"},
    {"id": "p4", "question": "Q4?", "context": "C4.", "answer_a": "wrong 4", "answer_b": "right 4"},
]


def test_pairwise_shows_a_judge_that_always_picks_the_first_answer(bench, tmp_path, llm):
    def right(a, b):
        return None if a == b else (a if a.startswith("right") else b)

    llm.responder = pairwise_judge(right)
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    result = bench("judge", "--pairwise", "--dataset", pairs, "--models", "jt-first,jt-fair", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert len(llm.chat_requests) == 16  # 4 pairs × 2 orders × 2 models
    report = report_of(tmp_path / "out")
    assert report["tier"] == "judge-pairwise" and report["main_metric"] == "position_consistency"
    m = report["metrics"]
    assert m["position_consistency/jt-first"]["value"] == 0.0
    assert m["first_position_rate/jt-first"]["value"] == 1.0 and m["first_position_rate/jt-first"]["n"] == 8
    assert m["pairwise_accuracy/jt-first"]["value"] == 0.0 and m["pairwise_accuracy/jt-first"]["n"] == 3
    assert m["position_consistency/jt-fair"]["value"] == 1.0
    assert m["first_position_rate/jt-fair"]["value"] == 0.5  # 6 decisive verdicts, 3 for the first shown
    assert m["tie_rate/jt-fair"]["value"] == 0.25  # p3 in both orders
    assert m["pairwise_accuracy/jt-fair"]["value"] == 1.0
    assert m["position_consistency"]["value"] == 0.5 and m["error_rate"]["value"] == 0.0
    assert m["first_position_rate"]["higher_is_better"] is None
    assert report["notes"]["labelled_pairs"] == 3
    assert report["notes"]["preferences"] == {"a": 1, "b": 2, "tie": 1, "inconsistent": 4}
    # jt-first is inconsistent on every pair, jt-fair never: no pair alike; Krippendorff's nominal alpha by hand
    # (values 3,0 · 3,1 · 3,2 · 3,1; n = 8, n_c = 4,1,2,1): 1 − 7 · 8 / (64 − 22) = −1/3
    assert report["notes"]["agreement"]["preferences"] == {
        "same_preference_rate": 0.0, "pairs_judged_by_every_model": 4,
        "krippendorff_alpha_nominal": pytest.approx(-1 / 3, abs=1e-6)}
    assert report["volatile"]["latency_ms"]["n"] == 16  # every verdict call, none cached
    assert set(report["volatile"]["latency_ms_by_model"]) == {"jt-first", "jt-fair"}
    assert set(report["provenance"]["judge"]["prompts_sha256"]) == {"en/compare_answers",
                                                                    "en/formats/verdict_direct"}
    assert report["provenance"]["judge"]["metrics"] == []  # every metric describes the judge: none is its grade
    rows = items_of(tmp_path / "out")
    assert rows["p2"]["better"] == "b"
    assert rows["p2"]["inputs"] == {"question": "Q2?", "context": "C2.", "answer_a": "wrong 2", "answer_b": "right 2"}
    assert rows["p2"]["answer"]["jt-first"] == {"original": "A", "swapped": "A", "preference": "inconsistent"}
    assert rows["p2"]["judges"]["jt-first"]["statuses"] == ["ok", "ok"]
    assert {metric: s["jt-first"]["value"] for metric, s in rows["p2"]["scores"].items()} == {
        "position_consistency": 0.0, "pairwise_accuracy": 0.0}
    assert rows["p4"]["answer"]["jt-fair"]["preference"] == "b"
    assert "pairwise_accuracy" not in rows["p4"]["scores"]  # an unlabelled pair has no accuracy
    metrics = {"position_consistency", "pairwise_accuracy"}
    assert check_scores_reproduce_report(tmp_path / "out") == metrics | {f"{name}/{model}" for name in metrics
                                                                          for model in ("jt-first", "jt-fair")}


def test_the_shipped_pairs_give_a_fair_judge_full_marks_and_no_position_bias(bench, tmp_path, llm):
    pairs = [json.loads(line) for line in (shipped_dir("datasets") / "synthetic" / "judge_pairs.jsonl")
             .read_text(encoding="utf-8").splitlines()]
    better = {(p["answer_a"], p["answer_b"]): p["better"] for p in pairs}

    def right(a, b):
        if (a, b) in better:
            label = better[a, b]
            return None if label == "tie" else (a if label == "a" else b)
        label = better[b, a]
        return None if label == "tie" else (b if label == "a" else a)

    llm.responder = pairwise_judge(right)
    result = bench("judge", "--pairwise", "--dataset", "synthetic", "--models", "jt-fair-synthetic", "-o",
                   tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = report_of(tmp_path / "out")
    m = report["metrics"]
    assert report["dataset"]["name"] == "synthetic" and report["dataset"]["items"] == 100
    assert m["pairwise_accuracy"]["value"] == 1.0 and m["position_consistency"]["value"] == 1.0
    assert m["first_position_rate"]["value"] == 0.5  # the reference is shown first in half the decided pairs
    assert m["tie_rate"]["value"] == 0.1


def test_offline_ratings_are_consistent_by_construction(bench, tmp_path):
    items = write_jsonl(tmp_path / "items.jsonl", [
        {"id": "x", "question": "How many vacation days?", "context": "Employees get 28 days of paid vacation.",
         "answer": "You get 28 days of paid vacation."},
        {"id": "y", "question": "How many vacation days?", "context": "Employees get 28 days of paid vacation.",
         "answer": "The Berlin office has 40 parking spaces."},
    ])
    result = bench("judge", "--dataset", items, "--judge", "offline", "--repeats", "3", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = report_of(tmp_path / "out")
    assert report["metrics"]["consistency_score"]["value"] == 1.0
    assert report["metrics"]["mean_abs_difference"]["value"] == 0.0
    assert report["metrics"]["error_rate"]["value"] == 0.0
    assert "by construction" in report["notes"]["offline"]
    assert report["provenance"]["judge"]["backend"] == "offline" and report["notes"]["mode"] is None
    assert report["provenance"]["embedder"]["id"] == "intfloat/multilingual-e5-small@q4"  # the default
    scores = {i: row["answer"]["offline"] for i, row in items_of(tmp_path / "out").items()}
    assert scores["x"][0] > scores["y"][0] and len(set(scores["x"])) == 1
    assert check_scores_reproduce_report(tmp_path / "out") == {"consistency_score", "mean_abs_difference",
                                                               "avg_faithfulness"}


def test_offline_has_no_answer_relevance_and_no_pairwise(bench, tmp_path):
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS)
    result = bench("judge", "--dataset", items, "--judge", "offline", "--metric", "answer_relevance")
    assert result.exit_code == 2 and "--judge offline cannot rate answer_relevance" in result.output
    result = bench("judge", "--pairwise", "--dataset", "synthetic", "--judge", "offline")
    assert result.exit_code == 2 and "--pairwise needs an LLM judge" in result.output
    result = bench("judge", "--dataset", items, "--judge", "offline", "--models", "m1,m2")
    assert result.exit_code == 2 and "--models: not used with --judge offline" in result.output


def test_a_rating_that_needs_a_reference_names_the_missing_field(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("BENCH_LLM_MODEL", "never-called")
    items = write_jsonl(tmp_path / "items.jsonl", [{**ITEMS[0], "reference": "R1."}, ITEMS[1], ITEMS[2]])
    result = bench("judge", "--dataset", items, "--metric", "answer_correctness")
    assert result.exit_code == 2
    assert ("items.jsonl:2: missing field(s) bench judge --metric answer_correctness needs: reference "
            "(on 2 lines; the first is shown)") in result.output
    result = bench("judge", "--dataset", "synthetic", "--metric", "e2e_score")
    assert result.exit_code == 2
    assert "judge_pipeline.jsonl:1: missing field(s) bench judge --metric e2e_score needs: reference (on 200 lines" \
        in result.output
    result = bench("judge", "--dataset", items, "--metric", "faithfullness")
    assert result.exit_code == 2 and ("--metric: expected one of faithfulness, answer_relevance, "
                                      "answer_correctness, e2e_score, got 'faithfullness'") in result.output
    result = bench("judge", "--dataset", items, "--repeats", "1")
    assert result.exit_code == 2 and "at least 2" in result.output


def test_pairwise_a_failed_verdict_fails_its_pairs_scores_with_the_calls_error(bench, tmp_path, llm):
    def fails_on_pair_two(body):
        if "Q2?" in body["messages"][0]["content"]:
            return Reply(status=400, message="bad request")
        return Reply(text='{"verdict": "A"}')

    llm.responder = fails_on_pair_two
    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    result = bench("judge", "--pairwise", "--dataset", pairs, "--models", "jt-pair-failures", "--concurrency", "1",
                   "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    p2 = items_of(tmp_path / "out")["p2"]
    assert p2["answer"] == {"jt-pair-failures": {"original": None, "swapped": None, "preference": None}}
    assert {metric: s["jt-pair-failures"]["status"] for metric, s in p2["scores"].items()} == {
        "position_consistency": "api_error", "pairwise_accuracy": "api_error"}
    assert check_scores_reproduce_report(tmp_path / "out") == {"position_consistency", "pairwise_accuracy"}
