"""The same question gets the same answer under another embedder: every similarity on the calibrated scale.

Real runs under the default embedder (multilingual-e5-small, whose cosines crowd into 0.7–1.0) and under
all-MiniLM-L6-v2 (unrelated English sentences near 0); `--similarity-baseline 0` gives the raw cosine, what bench
reported before the scale, to show each check would fail without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

LABELLED = Path(__file__).resolve().parents[2] / "datasets" / "labelled"
E5, MINILM = "multilingual-e5-small", "all-MiniLM-L6-v2"
PROSE = {"en": "Well, I would say the statements are mostly supported, roughly eight out of ten.",
         "ru": "Ну, я бы сказал, что утверждения в основном подтверждаются, примерно восемь из десяти."}


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def _value(folder: Path, metric: str) -> float:
    return _report(folder)["metrics"][metric]["value"]


@pytest.mark.parametrize("dataset", ["synthetic", "synthetic-ru"])
def test_the_cache_hit_rate_is_the_same_under_both_embedders(bench, tmp_path, dataset):
    rates = {}
    for model, baseline in ((E5, None), (MINILM, None), (E5, "0")):
        out = tmp_path / f"{model}-{baseline}"
        extra = ("--similarity-baseline", baseline) if baseline else ()
        result = bench("ux", "--dataset", dataset, "--embedding-model", model, *extra, "-o", out)
        assert result.exit_code == 0, result.output
        rates[model, baseline] = _value(out, "cache_hit_rate")
        scale = _report(out)["provenance"]["similarity"]
        assert scale["language"] == ("ru" if dataset == "synthetic-ru" else "en")
        assert scale["metrics"] == ["cache_hit_rate", "context_preservation", "multi_turn_consistency"]
        assert "Calibrated similarity" in (out / "report.md").read_text(encoding="utf-8")
    assert abs(rates[E5, None] - rates[MINILM, None]) <= 0.10, rates
    assert rates[E5, "0"] - rates[MINILM, None] > 0.3, rates  # raw e5 cosines: nearly every question a hit


@pytest.mark.parametrize("language", ["en", "ru"])
def test_unrelated_prose_is_not_similar_to_the_reference(bench, tmp_path, language):
    right = [row for row in map(json.loads, (LABELLED / f"{language}.jsonl").read_text(encoding="utf-8").splitlines())
             if row["kind"] == "right"][:4]
    samples = tmp_path / "prose.jsonl"
    samples.write_text("".join(json.dumps({"id": r["id"], "user_input": r["user_input"], "reference": r["reference"],
                                           "response": PROSE[language]}, ensure_ascii=False) + "\n" for r in right),
                       encoding="utf-8")
    values = {}
    for baseline in (None, "0"):
        out = tmp_path / f"out-{baseline}"
        extra = ("--similarity-baseline", baseline) if baseline else ()
        result = bench("evaluate", "--dataset", samples, "--judge", "offline", "--metrics",
                       "answer_correctness,semantic_similarity", *extra, "-o", out)
        assert result.exit_code == 0, result.output
        values[baseline] = (_value(out, "answer_correctness"), _value(out, "semantic_similarity"))
    assert max(values[None]) <= 0.3, values
    assert values["0"][1] > 0.7, values  # e5's raw cosine of unrelated texts
    assert _report(tmp_path / "out-None")["provenance"]["similarity"]["language"] == language  # told by the script


def test_offline_metrics_on_the_labelled_set_agree_under_both_embedders(bench, tmp_path):
    means = {}
    for model in (E5, MINILM):
        out = tmp_path / model
        result = bench("evaluate", "--dataset", LABELLED / "en.jsonl", "--judge", "offline", "--embedding-model", model,
                       "--metrics", "faithfulness,answer_correctness,semantic_similarity", "-o", out)
        assert result.exit_code == 0, result.output
        kinds = {row["id"]: row["kind"] for row in map(json.loads, (LABELLED / "en.jsonl").read_text().splitlines())}
        items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
        for metric in ("faithfulness", "answer_correctness", "semantic_similarity"):
            for kind in ("right", "hallucinated"):
                values = [i["scores"][metric]["offline"]["value"] for i in items if kinds[i["id"]] == kind]
                means[model, metric, kind] = sum(values) / len(values)
    for metric in ("faithfulness", "answer_correctness", "semantic_similarity"):
        for kind in ("right", "hallucinated"):
            assert abs(means[E5, metric, kind] - means[MINILM, metric, kind]) <= 0.15, (metric, kind, means)
        for model in (E5, MINILM):  # and both tell right answers from hallucinated ones
            assert means[model, metric, "right"] > means[model, metric, "hallucinated"], (metric, model, means)


def test_texts_in_a_script_without_a_set_need_a_baseline_given(bench, tmp_path):
    log = tmp_path / "greek.jsonl"
    rows = [{"id": i, "session_id": f"s{i // 2}", "question": question, "score": 5, "turn_order": i % 2 + 1,
             "created_at": f"2026-09-0{i // 2 + 1}T10:0{i % 2}:00+00:00"}
            for i, question in enumerate(["Πόσες μέρες άδειας έχω;", "Πώς ζητώ άδεια;", "Πότε πληρώνεται ο μισθός;",
                                          "Πού βρίσκω τη μισθοδοσία;", "Πόσες μέρες άδειας δικαιούμαι;",
                                          "Ποιος εγκρίνει την άδεια;"])]
    log.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    refused = bench("ux", "--dataset", "synthetic", "--logs", log, "-o", tmp_path / "refused")
    assert refused.exit_code == 2
    assert "similarities cannot be calibrated for texts in a script other than Latin or Cyrillic" in refused.output
    assert "--similarity-baseline" in refused.output and "Traceback" not in refused.output
    given = bench("ux", "--dataset", "synthetic", "--logs", log, "--similarity-baseline", "0.8",
                  "-o", tmp_path / "given")
    assert given.exit_code == 0, given.output
    scale = _report(tmp_path / "given")["provenance"]["similarity"]
    assert scale["baseline"] == 0.8 and scale["baseline_from"] == "given by the similarity_baseline setting"
