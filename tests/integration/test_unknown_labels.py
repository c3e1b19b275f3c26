"""Labels under a name that is no metric (`{"faithfullness": 1}`): nothing would read them, so bench says so, one
line per name with the closest metric, and `--strict` (BENCH_STRICT, `settings={"strict": True}`) refuses the
file before any work."""

import json

import pytest

from benchmarks import evaluate
from benchmarks.errors import BenchError
from benchmarks.judge.ratings.rater import RATINGS
from benchmarks.label_names import unknown_label_lines

pytestmark = pytest.mark.integration

ROWS = [
    {"id": "s1", "user_input": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet.",
     "retrieved_contexts": ["Hamlet is a tragedy written by William Shakespeare."], "labels": {"faithfullness": 1}},
    {"id": "s2", "user_input": "Who wrote Hamlet?", "response": "Marlowe wrote Hamlet.",
     "retrieved_contexts": ["Hamlet is a tragedy written by William Shakespeare."],
     "labels": {"faithfullness": 0, "faithfulness": 0}},
]
WARNING = ("warning: samples: 2 samples have a label under 'faithfullness' (first: sample s1), which is no metric "
           "(did you mean 'faithfulness'?); nothing reads those labels")


def write(path, rows=ROWS):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_misspelled_label_warns_once_per_name_and_strict_refuses(bench, tmp_path):
    samples = write(tmp_path / "samples.jsonl")
    run = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "offline", "-o",
                tmp_path / "out")
    assert run.exit_code == 0, run.output
    assert run.output.count(WARNING) == 1 and "'faithfulness'" not in run.output.replace(WARNING, "")
    strict = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "offline", "--strict",
                   "-o", tmp_path / "strict")
    assert strict.exit_code == 2 and not (tmp_path / "strict").exists()
    assert strict.output.strip() == "error: --strict: " + WARNING.removeprefix("warning: ")


def test_strict_refuses_from_the_api_too(tmp_path):
    with pytest.raises(BenchError, match="'faithfullness'.*did you mean 'faithfulness'"):
        evaluate(ROWS, ["faithfulness"], judge="offline", settings={"strict": True})


def test_bench_judge_names_the_closest_rating(bench, tmp_path):
    rows = [{"id": "a1", "question": "Who wrote Hamlet?", "context": "Hamlet was written by William Shakespeare.",
             "answer": "Shakespeare.", "labels": {"faithfulnes": 1}}]
    result = bench("judge", "--dataset", write(tmp_path / "items.jsonl", rows), "--judge", "offline",
                   "--strict", "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert "1 item has a label under 'faithfulnes' (first: item a1), which is no rating (did you mean " \
           "'faithfulness'?)" in result.output


def test_a_name_like_none_lists_the_known_ones():
    lines = unknown_label_lines([("x", (("zzz", 1.0),))], RATINGS, source="f", noun="item", kind="rating")
    assert lines == [f"warning: f: 1 item has a label under 'zzz' (first: item x), which is no rating (known: "
                     f"{', '.join(sorted(RATINGS))}); nothing reads those labels"]
