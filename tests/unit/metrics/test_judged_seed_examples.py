"""datasets/labelled/seeds.jsonl: the seeds' worked examples as labelled samples for `bench evaluate`.

The file must load as evaluate loads it, carry only labels bench can read (a known metric, a number on its
0–1 scale), give each labelled metric the fields it needs, and each label must be what bench's own formula
gives on the verdicts the seed states for that example: the numbers are the seed's, not a judge's guess.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks.config import load_settings
from benchmarks.judge.catalog import BUILTINS
from benchmarks.judge.judged_metrics.builtin.context_relevance import context_relevance
from benchmarks.judge.judged_metrics.builtin.response_relevancy import EmbeddedQuestion, response_relevancy
from benchmarks.metrics import judged
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.readers.samples import load_input
from benchmarks.samples import Sample
from tests.calibration.cases import CASES

SEEDS = Path(__file__).resolve().parents[3] / "datasets" / "labelled" / "seeds.jsonl"
ROWS = [json.loads(line) for line in SEEDS.read_text(encoding="utf-8").splitlines()]
IDS = [row["id"] for row in ROWS]
ID = re.compile(r"seed-(?P<metric>[a-z_]+)-(?P<lang>en|ru)-(?P<n>[1-9][0-9]*)")
SEED_LANGUAGE = {"000": "ru", "001": "en", "002": "ru", "003": "ru"}  # the language each seed is written in


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> dict[str, Sample]:
    """The file as `bench evaluate --dataset datasets/labelled/seeds.jsonl` reads it."""
    settings, _ = load_settings({"data_dir": str(tmp_path_factory.mktemp("data"))}, environ={})
    loaded = load_input(str(SEEDS), settings)
    assert (loaded.name, loaded.format) == ("seeds", "jsonl")
    return {sample.id: sample for sample in loaded.samples}


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", text.strip())


def test_the_file_loads_through_evaluates_loader_with_every_line_a_sample(samples):
    assert list(samples) == IDS  # every line kept, in order, under its own id (the loader refuses duplicates)
    assert all(row["kind"] == "seed" for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_each_line_names_its_seed_and_labels_only_the_metric_its_id_names(row):
    found = ID.fullmatch(row["id"])
    assert found, f"{row['id']}: ids are seed-<metric>-<lang>-<n>"
    metric, language = found["metric"], found["lang"]
    assert list(row["labels"]) == [metric]
    source = re.fullmatch(r"seed (00[0-3]), ([a-z_]+)", row["source"])
    assert source and source[2] == metric, row["source"]
    assert SEED_LANGUAGE[source[1]] == language, f"seed {source[1]} is written in {SEED_LANGUAGE[source[1]]}"
    assert row["example"].strip()


@pytest.mark.parametrize("sample_id", IDS)
def test_every_label_is_a_known_metric_on_its_scale_with_the_fields_the_metric_reads(samples, sample_id):
    sample = samples[sample_id]
    assert sample.labels
    for metric, label in sample.labels:
        assert metric in BUILTINS, f"{metric} is not one of bench's metrics ({', '.join(BUILTINS)})"
        assert 0.0 <= label <= 1.0
        assert sample.missing(BUILTINS[metric].needs) == [], f"{metric} needs {BUILTINS[metric].needs}"


# The verdicts each seed states for its example, and what they are counted over. The label must be the
# formula's value on them: these are the numbers a correct judge gives.
RELEVANT_AFTER_NOISE = [0, 1, 1]  # only the first context is marked irrelevant ("Irrelevant first")
VERDICTS = {
    # seeds 001 / 000 ContextPrecision, "Poor ordering with irrelevant context first": (1/2 + 2/3) / 2 = 7/12
    "seed-context_precision-en-2": (judged.context_precision, "contexts", RELEVANT_AFTER_NOISE),
    "seed-context_precision-ru-2": (judged.context_precision, "contexts", RELEVANT_AFTER_NOISE),
    # ContextRecall, "High recall - all statements supported": each of the reference's 4 sentences attributed
    "seed-context_recall-en-1": (judged.context_recall, "reference sentences", [1, 1, 1, 1]),
    "seed-context_recall-ru-1": (judged.context_recall, "reference sentences", [1, 1, 1, 1]),
    # Faithfulness, "Perfect faithfulness - all claims supported": the response's one statement supported
    "seed-faithfulness-en-1": (judged.faithfulness, "response sentences", [1]),
    "seed-faithfulness-ru-1": (judged.faithfulness, "response sentences", [1]),
    # seed 002: context 1 rated 2 (fully relevant), context 2 (the weather forecast) rated 0; (1.0 + 0.0) / 2
    "seed-context_relevance-ru-1": (context_relevance, "contexts", [2, 0]),
}


def counted_over(sample: Sample, what: str) -> int:
    if what == "contexts":
        return len(sample.retrieved_contexts or ())
    return len(sentences(sample.reference if what == "reference sentences" else sample.response))


@pytest.mark.parametrize("sample_id", list(VERDICTS))
def test_the_label_is_the_formula_on_the_verdicts_the_seed_states(samples, sample_id):
    sample = samples[sample_id]
    formula, over, verdicts = VERDICTS[sample_id]
    assert counted_over(sample, over) == len(verdicts), f"one verdict per {over[:-1]}"
    outcome = formula(verdicts)
    assert outcome.status == "ok"
    assert sample.label(ID.fullmatch(sample_id)["metric"]) == pytest.approx(outcome.value, abs=1e-12)


def test_the_ordering_examples_score_seven_twelfths_inside_the_seeds_bound(samples):
    for language in ("en", "ru"):
        label = samples[f"seed-context_precision-{language}-2"].label("context_precision")
        assert label == pytest.approx(7 / 12) and label <= 0.7  # the seed's own check: score <= 0.7


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_noncommittal_answer_is_labelled_zero_as_the_seed_states(samples, language):
    """ResponseRelevancy, "Noncommittal answer": "noncommittal answers automatically receive 0.0 score",
    whatever the generated questions' similarity (here identical to the question, cosine 1)."""
    sample = samples[f"seed-response_relevancy-{language}-3"]
    question = [1.0, 0.0]
    generated = [EmbeddedQuestion(question, noncommittal=True)] * 3
    scale = SimilarityScale(0.0, "seed vectors", language)
    outcome = response_relevancy(question, generated, scale=scale)
    assert outcome.status == "ok"
    assert sample.label("response_relevancy") == outcome.value == 0.0


def test_every_line_has_its_seed_derivation_checked():
    checked = set(VERDICTS) | {f"seed-response_relevancy-{language}-3" for language in ("en", "ru")}
    assert set(IDS) == checked, "a new line needs the seed's verdicts above, or its stated number checked"


def test_calibration_takes_the_labelled_examples_from_the_file(samples):
    """tests/calibration/cases.py uses the file's samples for the examples it holds, under the same metric and
    language, so the texts have one home."""
    from_file = {case: c for case, c in CASES.items() if c[2].id.startswith("seed-")}
    assert len(from_file) == 9
    for case, (language, metric, sample, *_) in from_file.items():
        assert sample == samples[sample.id], case
        found = ID.fullmatch(sample.id)
        assert (found["metric"], found["lang"]) == (metric, language), case
