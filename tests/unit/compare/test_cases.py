"""Cases as assertions in `bench compare` (compare/cases.py): which items flipped between pass and fail, the gate
on them by the set's size, and the gate messages that say value, bound and gap."""

import pytest
from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.compare import compare, load_run, render
from benchmarks.compare.cases import Cases, cases_of, threshold_for
from benchmarks.compare.gates import Gate, Gates, parse
from benchmarks.errors import BenchError
from benchmarks.item_record import MISSING
from tests.unit.compare_helpers import item, write_run


def run(folder, values, *, metric="faithfulness", higher_is_better=True, ids=None, notes=None):
    ids = ids or [f"q{i + 1}" for i in range(len(values))]
    scored = [v for v in values if v is not None]
    metrics = {metric: {"value": sum(scored) / len(scored), "n": len(scored), "errors": 0, "ci95": None,
                        "higher_is_better": higher_is_better}}
    return write_run(folder, [item(i, {metric: v}) for i, v in zip(ids, values, strict=True)], metrics,
                     tier="evaluate", main=metric, notes=notes)


def compared(tmp_path, base, cand, gates=None, **kw):
    b, c = run(tmp_path / "base", base, **kw), run(tmp_path / "cand", cand, **kw)
    return compare(load_run(b), load_run(c), gates or Gates(), resamples=2000)


# the nine samples: four faithful answers (one half supported), three of them turned into hallucinations
BASE_9 = [1.0, 1.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0]
CAND_9 = [0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0]


def test_nine_samples_with_three_flips_to_fail_fail_and_name_them(tmp_path):
    result = compared(tmp_path, BASE_9, CAND_9)
    row = result["metrics"][0]
    assert row["base"] == pytest.approx(3.5 / 9) and row["candidate"] == pytest.approx(0.5 / 9)
    assert row["ci95"][1] >= 0 and row["status"] == "~"  # the statistics alone: not significant
    assert row["cases"] == {"threshold": 0.5, "passes_at": ">=", "n": 9, "passing_base": 4, "passing_candidate": 1,
                            "n_to_fail": 3, "n_to_pass": 0, "to_fail": ["q1", "q2", "q3"], "to_pass": [],
                            "sign_test_p": 0.125, "max_flipped_to_fail": 0, "breaks_gate": True}
    assert result["exit_code"] == 1 and result["failing"] == ["faithfulness"]
    text = render(result)
    assert "`faithfulness` fails its gate" in text.splitlines()[1]
    assert ("| 3 / 0 | ⛔ **fails its gate**: 3 of 4 passing cases now fail (pass: ≥ 0.5), 0 now pass; at most 0 "
            "may, 3 over · Δ ~ (not significant) |") in text
    assert "- `faithfulness` cases (pass: ≥ 0.5; 4 of 9 passed, now 1): pass → fail 3: `q1`, `q2`, `q3`; " \
           "fail → pass 0" in text


def test_a_case_passes_at_the_mark_its_metric_declares_in_the_report_unless_a_gate_sets_one(tmp_path):
    """One fabricated sentence beside a supported one halves faithfulness to 0.5: under faithfulness's own mark
    (0.7) the case fails, where the 0–1 default (0.5) would still count it a pass."""
    base, cand = [1.0, 1.0, 1.0], [1.0, 0.5, 1.0]
    declared = compared(tmp_path / "declared", base, cand, notes={"pass_marks": {"faithfulness": 0.7}})
    assert declared["metrics"][0]["cases"]["threshold"] == 0.7
    assert declared["metrics"][0]["cases"]["to_fail"] == ["q2"] and declared["exit_code"] == 1
    undeclared = compared(tmp_path / "undeclared", base, cand)  # a report from before the marks
    assert undeclared["metrics"][0]["cases"]["threshold"] == 0.5
    assert undeclared["metrics"][0]["cases"]["to_fail"] == []
    gated = compared(tmp_path / "gated", base, cand, gates=parse({"defaults": {"pass_threshold": 0.4}}),
                     notes={"pass_marks": {"faithfulness": 0.7}})
    assert gated["metrics"][0]["cases"]["threshold"] == 0.4


def test_the_cli_fails_the_nine_sample_case_and_passes_a_rerun(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    b, c, again = run(tmp_path / "b", BASE_9), run(tmp_path / "c", CAND_9), run(tmp_path / "again", BASE_9)
    runner = CliRunner()
    failed = runner.invoke(app, ["compare", str(b), str(c)], catch_exceptions=False)
    assert failed.exit_code == 1 and "`q1`, `q2`, `q3`" in failed.output
    passed = runner.invoke(app, ["compare", str(b), str(again)], catch_exceptions=False)
    assert passed.exit_code == 0 and "✅" in passed.output


def test_two_hundred_samples_with_one_flip_each_way_pass(tmp_path):
    base = [0.8] * 100 + [0.2] * 100
    cand = [0.2] + [0.8] * 99 + [0.8] + [0.2] * 99
    result = compared(tmp_path, base, cand)
    cases = result["metrics"][0]["cases"]
    assert (cases["n_to_fail"], cases["n_to_pass"], cases["to_fail"], cases["to_pass"]) == (1, 1, ["q1"], ["q101"])
    assert cases["max_flipped_to_fail"] is None and not cases["breaks_gate"] and cases["sign_test_p"] == 0.75
    assert result["exit_code"] == 0
    assert "sign test p = 0.75, reported, not gated" in render(result)


def test_a_declared_allowance_gates_at_any_size(tmp_path):
    base = [0.8] * 100 + [0.2] * 100
    cand = [0.2] * 3 + [0.8] * 97 + [0.2] * 100
    loose = compared(tmp_path / "a", base, cand)
    assert loose["exit_code"] == 0 and loose["metrics"][0]["cases"]["n_to_fail"] == 3
    strict = compared(tmp_path / "b", base, cand, parse({"metrics": {"faithfulness": {"max_flipped_to_fail": 2}}}))
    assert strict["exit_code"] == 1
    assert strict["metrics"][0]["gate"]["violations"][-1] == \
        "3 of 100 passing cases now fail (pass: ≥ 0.5), 0 now pass; at most 2 may, 1 over"
    small = compared(tmp_path / "c", BASE_9, CAND_9, parse({"defaults": {"max_flipped_to_fail": 3}}))
    assert small["exit_code"] == 0  # the team allows three


def test_the_threshold_comes_from_the_gate_and_follows_the_direction(tmp_path):
    gates = parse({"metrics": {"faithfulness": {"pass_threshold": 0.9}}})
    result = compared(tmp_path / "a", [0.95, 0.95, 0.2], [0.85, 0.95, 0.2], gates)
    assert result["metrics"][0]["cases"]["to_fail"] == ["q1"] and result["exit_code"] == 1
    lower = compared(tmp_path / "b", [0.1, 0.7], [0.6, 0.7], higher_is_better=False)
    cases = lower["metrics"][0]["cases"]
    assert cases["passes_at"] == "<=" and cases["to_fail"] == ["q1"] and cases["passing_base"] == 1
    assert "(pass: ≤ 0.5)" in lower["metrics"][0]["gate"]["violations"][0]


def test_only_zero_to_one_metrics_have_default_cases():
    assert threshold_for(Gate(), [0.0, 1.0, None, MISSING]) == 0.5
    assert threshold_for(Gate(), [0.2, 3.5]) is None  # a 1–5 rating: no default threshold
    assert threshold_for(Gate(), [None, MISSING]) is None
    assert threshold_for(Gate(pass_threshold=3.0), [4.0, 2.0]) == 3.0


def test_cases_are_the_items_both_runs_scored():
    base = {"a": 1.0, "b": 1.0, "c": None, "d": 0.0}
    cand = {"a": 0.0, "b": MISSING, "c": 1.0, "d": 1.0}
    assert cases_of(base, cand, ["a", "b", "c", "d"], 0.5, True) == Cases(0.5, True, 2, 1, 1, ("a",), ("d",))
    assert Cases(0.5, True, 5, 0, 0, (), ()).p_value is None


def test_a_judge_change_leaves_the_cases_ungated(tmp_path):
    judge = {"judge": {"backend": "offline", "model": "offline", "metrics": ["faithfulness"]}}
    b = write_run(tmp_path / "b", [item(f"q{i}", {"faithfulness": v}) for i, v in enumerate(BASE_9)], tier="evaluate",
                  main="faithfulness", provenance=judge)
    other = {"judge": {**judge["judge"], "backend": "llm", "model": "m"}}
    c = write_run(tmp_path / "c", [item(f"q{i}", {"faithfulness": v}) for i, v in enumerate(CAND_9)], tier="evaluate",
                  main="faithfulness", provenance=other)
    result = compare(load_run(b), load_run(c), Gates(), resamples=500)
    assert result["metrics"][0]["status"] == "not comparable" and result["exit_code"] == 0


def test_gate_messages_say_value_bound_and_gap(tmp_path):
    floor = compared(tmp_path / "a", BASE_9, CAND_9, parse({"metrics": {"faithfulness": {"floor": 0.3}}}))
    assert "candidate 0.0556 is below the floor 0.3 by 0.2444" in floor["metrics"][0]["gate"]["violations"]
    ceiling = compared(tmp_path / "b", [0.1] * 30, [0.1] * 29 + [0.9], parse({"metrics": {"faithfulness": {
        "floor": 0.1}}}), higher_is_better=False)
    assert "candidate 0.1267 is above the ceiling 0.1 by 0.02667" in ceiling["metrics"][0]["gate"]["violations"]
    drop = compared(tmp_path / "c", [0.9] * 40, [0.7] * 40,
                    parse({"metrics": {"faithfulness": {"max_drop": 0.05, "max_flipped_to_fail": 0}}}))
    assert drop["metrics"][0]["gate"]["violations"] == ["Δ -0.2000 is a significant drop; at most 0.05 allowed, "
                                                        "0.15 over"]
    lost = compared(tmp_path / "d", [1.0] * 9, [1.0] * 6 + [None] * 3)
    assert lost["metrics"][0]["gate"]["violations"] == ["3 of 9 items lost their value; at most 1 may, 2 over"]
    text = render(lost)
    assert "3 of 9 items lost their `faithfulness` value: `q7`, `q8`, `q9`" in text


def test_many_lost_items_are_named_then_counted(tmp_path):
    result = compared(tmp_path, [1.0] * 30, [1.0] * 10 + [None] * 20)
    assert "20 of 30 items lost their `faithfulness` value: `q11`, `q12`, `q13`, `q14`, `q15`, `q16`, `q17`, " \
           "`q18`, `q19`, `q20` and 10 more" in render(result)


@pytest.mark.parametrize(("table", "message"), [
    ({"max_flipped_to_fail": -1}, "'max_flipped_to_fail' is a count of cases, 0 or more, not -1"),
    ({"max_flipped_to_fail": 1.5}, "'max_flipped_to_fail' has the wrong type (float)"),
    ({"max_flipped_to_fail": True}, "'max_flipped_to_fail' has the wrong type (bool)"),
    ({"pass_threshold": "high"}, "'pass_threshold' has the wrong type (str)"),
])
def test_case_gate_keys_are_checked(table, message):
    with pytest.raises(BenchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse({"metrics": {"faithfulness": table}})


def test_the_sign_test_is_exact_and_agrees_with_scipy():
    from scipy.stats import binomtest

    from benchmarks.compare.cases import EXACT_TRIALS, sign_test

    assert sign_test(8, 15) == 0.5  # scipy's float path gives 0.4999999999999999
    assert sign_test(3, 3) == 0.125 and sign_test(0, 4) == 1.0
    for trials, successes in ((40, 31), (EXACT_TRIALS, 1050), (EXACT_TRIALS + 1, 1050)):
        expected = binomtest(successes, trials, 0.5, alternative="greater").pvalue
        assert sign_test(successes, trials) == pytest.approx(expected, rel=1e-12)
