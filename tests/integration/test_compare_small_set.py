"""A team's ten hand-written cases in a pull request, end to end: `bench evaluate --judge offline` on a base and a
candidate answer set, then `bench compare`. Three faithful answers turned into hallucinations on nine samples
is a failing check naming them, though the paired interval over nine items cannot tell it from noise; the
base run again, with the same judge and cache, passes."""

import json

import pytest

pytestmark = pytest.mark.integration

QUESTIONS = [  # id, question, context, faithful answer, hallucinated answer
    ("q1", "How high is Everest?", "Mount Everest is 8,849 metres high.", "Everest is 8849 metres high.",
     "Everest is 5,200 metres high."),
    ("q2", "When was the Eiffel Tower built?", "The Eiffel Tower was completed in 1889 for the World's Fair.",
     "The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1920."),
    ("q3", "What is the capital of Australia?", "Canberra is the capital of Australia.",
     "Canberra is the capital of Australia.", "Sydney is the capital of Australia."),
    ("q4", "How long is the Nile?", "The Nile is about 6,650 kilometres long.",
     "The Nile is about 6,650 kilometres long.", None),
    ("q5", "Who wrote War and Peace?", "War and Peace was written by Leo Tolstoy.",
     "It was written by Fyodor Dostoevsky.", None),
    ("q6", "What is the boiling point of water?", "Water boils at 100 degrees Celsius at sea level.",
     "Water boils at 90 degrees.", None),
    ("q7", "Where is the Louvre?", "The Louvre is a museum in Paris.", "The Louvre is in Berlin.", None),
    ("q8", "Who painted the Mona Lisa?", "The Mona Lisa was painted by Leonardo da Vinci.",
     "It was painted by Pablo Picasso.", None),
    ("q9", "What is the largest planet?", "Jupiter is the largest planet of the Solar System.",
     "Saturn is the largest planet.", None),
]


def write(path, candidate):
    rows = [{"id": i, "user_input": q, "retrieved_contexts": [c], "reference": c,
             "response": (wrong or right) if candidate else right} for i, q, c, right, wrong in QUESTIONS]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def evaluate(bench, samples, out):
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "offline", "-o", out)
    assert result.exit_code == 0, result.output
    return out


def test_three_cases_flipping_to_fail_on_nine_samples_fail_the_check_and_a_rerun_passes(bench, tmp_path):
    base = evaluate(bench, write(tmp_path / "base.jsonl", False), tmp_path / "base")
    rerun = evaluate(bench, write(tmp_path / "base.jsonl", False), tmp_path / "rerun")
    cand = evaluate(bench, write(tmp_path / "cand.jsonl", True), tmp_path / "cand")

    result = bench("compare", base, cand)
    assert result.exit_code == 1, result.output
    headline = result.output.splitlines()[1]
    assert headline.startswith("## ❌") and "`faithfulness` fails its gate" in headline
    row = next(line for line in result.output.splitlines() if line.startswith("| `faithfulness`"))
    # faithfulness's own pass mark, from the reports' notes
    assert "⛔ **fails its gate**: 3 of 4 passing cases now fail (pass: ≥ 0.7), 0 now pass; at most 0 may, 3 over" \
        in row
    assert "[-" in row and "+0.0000] †" in row  # the interval alone could not tell it from noise
    assert "pass → fail 3: `q1`, `q2`, `q3`; fail → pass 0" in result.output

    compared = json.loads(bench("compare", base, cand, "--format", "json").output)
    faithfulness = compared["metrics"][0]
    assert faithfulness["significant"] is False and faithfulness["status"] == "~"
    assert faithfulness["cases"]["to_fail"] == ["q1", "q2", "q3"] and compared["failing"] == ["faithfulness"]

    again = bench("compare", base, rerun)
    assert again.exit_code == 0, again.output
    assert "✅" in again.output.splitlines()[1]
