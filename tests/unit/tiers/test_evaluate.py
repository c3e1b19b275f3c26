"""`bench evaluate`'s journal unit: one (sample, metric, judge model), journaled alone, restored exactly."""

import asyncio

import pytest

from benchmarks.config import Settings
from benchmarks.errors import BenchError, InputError
from benchmarks.outcome import Outcome
from benchmarks.resumable import each_once
from benchmarks.run_files.journal import RunIdentity, RunJournal
from benchmarks.samples import Sample
from benchmarks.tiers import evaluate

SAMPLES = (Sample("s1", "q1"), Sample("s2", "q2"))
METRICS, MODELS = ("faithfulness", "context_recall"), ("judge-a", "judge-b")
OPTIONS = evaluate.identity(Settings())


def identity(options=OPTIONS):
    return RunIdentity.of("evaluate", "1.0", {"name": "samples", "content_sha256": "abc"}, {"seed": 0}, options)


def journal(tmp_path, rows=()):
    """A stopped run holding `rows` ((key, row) pairs), resumed."""
    started = RunJournal.start(tmp_path / "run", identity(), run_id="r", started_at="t", point_latest=False)
    for key, row in rows:
        started.append(key, row)
    started.close()
    return RunJournal.resume(tmp_path / "run", identity())


def judged(unit):
    sample, metric, model = unit
    return Outcome.scored(1 / 3, f"{sample.id} judged", name=metric, model=model, calls=2, raw=({"text": "{}"},))


def each(units, work, found_in):
    return asyncio.run(each_once(units, evaluate.unit_key, work, journal=found_in, encode=evaluate.journal_row,
                                 decode=evaluate.restore, open_at_once=2))


def test_units_go_model_by_model_then_metric_then_sample_so_calls_in_flight_share_a_template():
    units = evaluate.judged_units(SAMPLES, METRICS, MODELS)
    keys = [evaluate.unit_key(u) for u in units]
    assert keys[:len(SAMPLES)] == [(s.id, "faithfulness", "judge-a") for s in SAMPLES]
    assert keys[len(SAMPLES)] == (SAMPLES[0].id, "context_recall", "judge-a")
    assert keys[-1] == (SAMPLES[-1].id, METRICS[-1], "judge-b")
    assert len(units) == len(SAMPLES) * len(METRICS) * len(MODELS)


def test_a_resume_judges_only_the_units_the_journal_lacks_and_restores_the_rest_exactly(tmp_path):
    units = evaluate.judged_units(SAMPLES, METRICS, MODELS)
    finished = [units[0], units[2], units[5]]  # s1 part-judged, s2 too
    stopped = journal(tmp_path, [(evaluate.unit_key(u), evaluate.journal_row(judged(u))) for u in finished])
    asked = []

    async def work(unit):
        asked.append(evaluate.unit_key(unit))
        return judged(unit)

    found = each(units, work, stopped)
    stopped.close()
    assert asked == [evaluate.unit_key(u) for u in units if u not in finished]
    assert found == [judged(u) for u in units]  # restored outcomes equal fresh ones, full float precision
    again = RunJournal.resume(tmp_path / "run", identity())
    assert set(again.restored) == {evaluate.unit_key(u) for u in units}  # one row per unit, tuple ids back


@pytest.mark.parametrize("row, reason", [
    ({"outcomes": []}, "'outcome'"),  # a whole sample's row, as bench journaled before
    ({"outcome": {"value": 1.0}}, "status"),
])
def test_a_row_of_another_shape_is_refused_naming_the_unit(tmp_path, row, reason):
    unit = evaluate.judged_units(SAMPLES, METRICS, MODELS)[0]
    stopped = journal(tmp_path, [(evaluate.unit_key(unit), row)])
    with pytest.raises(InputError) as error:
        each([unit], None, stopped)
    stopped.close()
    message = str(error.value)
    assert "item 's1 / faithfulness / judge-a' is not a row this command wrote" in message and reason in message


def test_an_outcome_of_another_metric_or_model_is_refused():
    unit = evaluate.judged_units(SAMPLES, METRICS, MODELS)[0]
    other = judged((SAMPLES[0], "faithfulness", "judge-b"))
    with pytest.raises(ValueError, match="'faithfulness' by 'judge-b', not 'faithfulness' by 'judge-a'"):
        evaluate.restore(unit, evaluate.journal_row(other))


def test_a_run_stopped_by_a_bench_that_journaled_whole_samples_is_refused_by_name(tmp_path):
    RunJournal.start(tmp_path / "run", identity(options={}), run_id="r", started_at="t", point_latest=False).close()
    with pytest.raises(BenchError, match="journal_rows None → 'one outcome per"):
        RunJournal.resume(tmp_path / "run", identity())
