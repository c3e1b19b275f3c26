"""`--limit N`: a seeded sample of a tier's items, in their order, stated in the report and its resume identity."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.config import Settings
from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.inputs import ItemSet, Limit
from benchmarks.runner import TierRun, limited
from benchmarks.samples import Sample, SampleSet
from benchmarks.tiers import TIERS

LIMITED_TIERS = ("tier1", "tier2", "tier3", "evaluate", "judge", "judge-pairwise", "judge-pipeline")


def items(count: int = 50) -> ItemSet[str]:
    return ItemSet(name="items", format="jsonl", content_sha256="ab" * 32,
                   items=tuple(f"i{n:02d}" for n in range(count)))


def dataset() -> Dataset:
    return Dataset(name="letters", version="1", format="bench", content_sha256="cd" * 32,
                   chunks=tuple(Chunk(f"c{n}", f"chunk {n}") for n in range(4)),
                   questions=tuple(Question(f"q{n}", f"question {n}?", {f"c{n % 4}": 1}, reference_answer=f"a{n}")
                                   for n in range(10)))


def test_the_same_seed_draws_the_same_items():
    assert items().sample(10, seed=7).items == items().sample(10, seed=7).items


def test_another_seed_draws_other_items():
    assert items().sample(10, seed=0).items != items().sample(10, seed=1).items


def test_the_sample_keeps_the_original_order():
    drawn = items().sample(10, seed=3).items
    assert len(drawn) == 10 and len(set(drawn)) == 10
    assert list(drawn) == sorted(drawn)  # the ids sort as they were given


def test_the_report_block_states_the_limit():
    block = items().sample(3, seed=5).report_block()
    assert block["items"] == 3
    assert block["limit"] == {"n": 3, "of": 50, "seed": 5}
    assert block["content_sha256"] == "ab" * 32  # still the file that was read


@pytest.mark.parametrize("n", [50, 80])
def test_a_limit_that_drops_nothing_leaves_the_set_as_it_is(n):
    whole = items()
    assert whole.sample(n, seed=0) is whole
    assert "limit" not in whole.sample(n, seed=0).report_block()


def test_a_dataset_keeps_its_corpus_and_the_sampled_questions_own_data():
    full = dataset()
    cut = full.sample(4, seed=2)
    assert cut.chunks == full.chunks
    kept = [q.id for q in cut.questions]
    assert len(kept) == 4 and kept == [q.id for q in full.questions if q.id in kept]
    assert all(q == full.questions[int(q.id[1:])] for q in cut.questions)  # judgments and answers ride along
    assert set(cut.chunk_qrels()) == set(kept) and set(cut.url_qrels()) == set(kept)
    assert cut.report_block()["documents"] == 4 and cut.report_block()["questions"] == 4
    assert cut.limit == Limit(4, 10, 2)


def test_a_sample_set_samples_its_samples():
    samples = SampleSet(name="s", format="jsonl", content_sha256="ef" * 32,
                        samples=tuple(Sample(f"s{n}", user_input=f"q{n}") for n in range(6)))
    cut = samples.sample(2, seed=0)
    assert [s.id for s in cut.samples] == [s.id for s in samples.samples if s in cut.samples]
    assert cut.report_block()["samples"] == 2 and cut.report_block()["limit"] == {"n": 2, "of": 6, "seed": 0}


@pytest.mark.parametrize("tier", LIMITED_TIERS)
def test_every_tier_that_reads_items_has_the_limit(tier):
    assert "limit" in TIERS[tier].reads


def test_tier0_keeps_its_own_limit():
    assert "limit" not in TIERS["tier0"].reads
    assert TIERS["tier0"].flags["pairwise_limit"] == ("--limit",)
    whole = dataset()
    assert limited(TIERS["tier0"], whole, Settings(limit=2)) is whole


def test_the_runner_samples_with_the_seed_setting():
    whole = dataset()
    assert limited(TIERS["tier1"], whole, Settings()) is whole
    assert limited(TIERS["tier1"], whole, Settings(limit=3, seed=9)) == whole.sample(3, seed=9)


def test_a_limited_run_is_not_resumed_as_a_full_one():
    tier, whole = TIERS["judge"], items()

    def identity(inputs, settings):
        return TierRun(tier, inputs, settings, settings, {}).identity()

    full, cut = identity(whole, Settings()), identity(whole.sample(3, seed=0), Settings(limit=3))
    assert full != cut
    assert any(change.startswith("dataset limit None") for change in full.differences(cut))
    assert identity(whole.sample(3, seed=0), Settings(limit=3)) == cut  # the same items again: resumable


@pytest.mark.parametrize("value", ["0", "-2"])
def test_a_limit_below_one_is_refused_naming_the_option(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "items.jsonl"
    data.write_text('{"id": "a", "question": "q", "context": "c", "answer": "x"}\n')
    result = CliRunner().invoke(app, ["judge", "--dataset", str(data), "--limit", value])
    assert result.exit_code == 2
    assert "--limit" in result.output and "at least 1" in result.output
