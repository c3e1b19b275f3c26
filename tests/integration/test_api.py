"""The Python API (`from benchmarks import evaluate, run`): the same numbers as the CLI, per sample and in the
report, over the embedded PostgreSQL, the local embedding model and a scripted local LLM server."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import BenchError, Sample, aevaluate, evaluate, run
from benchmarks import config as bench_config
from benchmarks._api import canonical_jsonl, samples_to_set
from benchmarks.item_record import ITEM_RECORD, value_of
from benchmarks.report import document
from benchmarks.report_model import Report
from tests.integration.openai_server import Reply

pytestmark = pytest.mark.integration

METRICS = ["faithfulness", "semantic_similarity"]
SAMPLES = [
    {"id": "bowl", "user_input": "When was the first Super Bowl?",
     "retrieved_contexts": ["The first Super Bowl was played on January 15, 1967, in Los Angeles."],
     "response": "The first Super Bowl was played on January 15, 1967, in Los Angeles.",
     "reference": "It was played on January 15, 1967."},
    Sample(id="tower", user_input="When was the Eiffel Tower completed?",
           retrieved_contexts=("The Eiffel Tower was completed in March 1889.",),
           response="The Eiffel Tower was completed in 1887.", reference="It was completed in 1889."),
    # bench's column names and no id: s00003 by position, as on line 3 of a file
    {"question": "Who wrote Hamlet?", "contexts": ["Hamlet is a tragedy written by William Shakespeare."],
     "answer": "Hamlet was written by Christopher Marlowe.", "score": 0.2},
]


def read_items(folder):
    return [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]


def test_evaluate_gives_the_clis_numbers_per_sample_and_in_the_report(bench, tmp_path):
    canonical = canonical_jsonl(samples_to_set(SAMPLES).samples)
    (tmp_path / "samples.jsonl").write_text(canonical, encoding="utf-8")
    result = bench("evaluate", "--dataset", tmp_path / "samples.jsonl", "--metrics", ",".join(METRICS),
                   "--judge", "offline", "-o", tmp_path / "cli")
    assert result.exit_code == 0, result.output
    cli_report = json.loads((tmp_path / "cli" / "report.json").read_text())
    cli_items = {item["id"]: item for item in read_items(tmp_path / "cli")}

    api = evaluate(SAMPLES, METRICS, judge="offline", output_dir=tmp_path / "api")

    assert [s.id for s in api.samples] == ["bowl", "tower", "s00003"]  # input order, default id by position
    for sample in api.samples:
        assert list(sample.scores) == METRICS
        for metric, score in sample.scores.items():
            row = cli_items[sample.id]["scores"][metric]["offline"]
            assert (score.value, score.status, score.explanation) == (row["value"], row["status"],
                                                                      row["explanation"])
            assert score.per_model == {"offline": row["value"]}
    assert api.samples[2].scores["semantic_similarity"].status == "undetermined"  # no reference
    cli = Report.model_validate(cli_report)
    assert api.report.metrics == cli.metrics
    assert api.metrics == {name: m["value"] for name, m in cli_report["metrics"].items()}
    assert api.report.notes == cli.notes
    assert api.items == list(cli_items.values())  # both sorted by id
    # the same data for bench compare: the canonical JSONL's hash is the file's
    assert api.report.dataset.content_sha256 == cli.dataset.content_sha256
    assert api.report.dataset.format == "python"
    # read like a table: each metric with the report's numbers, the samples in input order, flat records
    for name, entry in cli_report["metrics"].items():
        metric = api[name]
        assert (metric.value, metric.n, metric.errors) == (entry["value"], entry["n"], entry["errors"])
        assert metric.ci95 == (None if entry["ci95"] is None else tuple(entry["ci95"]))
        assert metric.statuses == cli_report["notes"]["statuses"][name]
    assert api["semantic_similarity"].statuses["undetermined"] == 1
    assert list(api) == api.samples and len(api) == 3
    records = api.to_records()
    assert [r["id"] for r in records] == ["bowl", "tower", "s00003"]
    assert records[2]["user_input"] == "Who wrote Hamlet?" and records[2]["reference"] is None
    for record, sample in zip(records, api.samples, strict=True):
        for name, score in sample.scores.items():
            assert (record[name], record[f"{name}.status"]) == (score.value, score.status)
    # output_dir: the files are the report and items returned
    assert api.directory == tmp_path / "api"
    assert json.loads((tmp_path / "api" / "report.json").read_text()) == document(api.report)
    assert read_items(tmp_path / "api") == api.items


def two_judges(body):
    """judge-a and judge-b differ on the Super Bowl sample; judge-b cannot answer on Hamlet; nobody answers on
    the sky, so each sample shows one rule of folding several models into one score."""
    model = body["model"]
    text = "\n".join(m["content"] for m in body["messages"])
    if "sky" in text or ("Hamlet" in text and model == "api-judge-b"):
        return Reply(text="no JSON here")
    if "Super Bowl" in text:
        statements = ["The first Super Bowl was played on January 15, 1967.", "It was played in Los Angeles."]
        verdicts = [1, 1] if model == "api-judge-a" else [1, 0]
    else:
        statements, verdicts = ["Hamlet was written by Christopher Marlowe."], [0]
    if '"verdicts"' in body["messages"][0]["content"]:
        return Reply(text=json.dumps({"verdicts": [
            {"statement": s, "reason": f"{model} found no support" if not v else "supported", "verdict": v}
            for s, v in zip(statements, verdicts, strict=False)]}))
    return Reply(text=json.dumps({"statements": statements}))


def test_two_judge_models_come_through_per_model_with_their_explanations(llm):
    llm.responder = two_judges
    samples = [
        {"id": "bowl", "user_input": "When was the first Super Bowl?",
         "retrieved_contexts": ["The first Super Bowl was played on January 15, 1967, in Los Angeles."],
         "response": "The first Super Bowl was played on January 15, 1967. It was played in Los Angeles."},
        {"id": "hamlet", "user_input": "Who wrote Hamlet?",
         "retrieved_contexts": ["Hamlet is a tragedy written by William Shakespeare."],
         "response": "Hamlet was written by Christopher Marlowe."},
        {"id": "sky", "user_input": "What colour is the sky?", "retrieved_contexts": ["The sky is blue."],
         "response": "The sky is blue."},
    ]
    result = evaluate(samples, ["faithfulness"], models=["api-judge-a", "api-judge-b"],
                      settings={"llm_cache": False})
    bowl, hamlet, sky = (s.scores["faithfulness"] for s in result.samples)

    assert bowl.per_model == {"api-judge-a": 1.0, "api-judge-b": 0.5}
    assert (bowl.value, bowl.status) == (0.75, "ok")
    assert bowl.explanation.splitlines()[0] == "api-judge-a: "  # nothing rejected
    assert bowl.explanation.splitlines()[1] == ("api-judge-b: «It was played in Los Angeles.»: "
                                                "api-judge-b found no support")
    assert hamlet.per_model == {"api-judge-a": 0.0, "api-judge-b": None}
    assert (hamlet.value, hamlet.status) == (0.0, "ok")  # one model scored
    assert "api-judge-a found no support" in hamlet.explanation
    assert hamlet.explanation.splitlines()[1].startswith("api-judge-b: ")
    assert (sky.value, sky.status) == (None, "parse_error")  # none scored: the first model's status
    assert sky.per_model == {"api-judge-a": None, "api-judge-b": None}

    rows = {item["id"]: item["scores"]["faithfulness"] for item in result.items}
    for sample in result.samples:
        score = sample.scores["faithfulness"]
        assert score.duration_ms == pytest.approx(sum(row["duration_ms"] for row in rows[sample.id].values()))
        assert score.duration_ms > 0
    assert result.metrics["faithfulness"] == pytest.approx((0.75 + 0.0) / 2)  # the mean of the samples' means
    assert result.metrics["faithfulness/api-judge-a"] == 0.5
    assert result.metrics["faithfulness/api-judge-b"] == 0.5
    assert result.report.metrics["faithfulness"].n == 2
    assert result.report.metrics["faithfulness/api-judge-b"].errors == 2
    # the items' scores give each judge's mean and errors, and the samples' mean over judges
    records = [ITEM_RECORD.validate_python(item) for item in result.items]
    for model in ("api-judge-a", "api-judge-b"):
        values = [value_of({model: r["scores"]["faithfulness"][model]}) for r in records]
        expected = result.report.metrics[f"faithfulness/{model}"]
        assert (sum(isinstance(v, float) for v in values), values.count(None)) == (expected.n, expected.errors)
    assert [value_of(r["scores"]["faithfulness"]) for r in records] == [0.75, 0.0, None]
    assert result.report.metrics["faithfulness"].errors == 3  # failed calls, not failed samples (1)
    judge = result.report.provenance.judge
    assert judge is not None and judge.models == ["api-judge-a", "api-judge-b"]
    assert result.directory is None and not list(Path.cwd().glob("reports/**/report.json"))  # nothing written
    bowl_row, hamlet_row, sky_row = result.to_records()
    assert (bowl_row["faithfulness"], bowl_row["faithfulness/api-judge-a"], bowl_row["faithfulness/api-judge-b"],
            bowl_row["faithfulness.status"]) == (0.75, 1.0, 0.5, "ok")
    assert (hamlet_row["faithfulness/api-judge-b"], sky_row["faithfulness.status"]) == (None, "parse_error")
    assert result["faithfulness/api-judge-b"].errors == 2 and result["faithfulness"].statuses["parse_error"] == 3


def test_aevaluate_gives_what_evaluate_gives_and_evaluate_runs_inside_an_event_loop():
    expected = evaluate(SAMPLES, METRICS, judge="offline")

    async def both():
        # a Jupyter cell: a loop is running, so the sync call runs the tier in a worker thread
        return await aevaluate(SAMPLES, METRICS, judge="offline"), evaluate(SAMPLES, METRICS, judge="offline")

    awaited, inside = asyncio.run(both())
    for result in (awaited, inside):
        assert result.samples == expected.samples
        assert result.report.metrics == expected.report.metrics
        assert result.items == expected.items


def test_run_tier1_equals_bench_tier1(bench, tiny, tmp_path):
    result = bench("tier1", "--dataset", tiny, "--output-dir", tmp_path / "cli")
    assert result.exit_code == 0, result.output
    cli_report = json.loads((tmp_path / "cli" / "report.json").read_text())

    kept = run("tier1", tiny, output_dir=tmp_path / "api")
    assert document(kept.report)["metrics"] == cli_report["metrics"]
    assert kept.metrics["ndcg@10"] == cli_report["metrics"]["ndcg@10"]["value"]
    assert kept["ndcg@10"].ci95 == tuple(cli_report["metrics"]["ndcg@10"]["ci95"]) and "mrr" in kept
    assert list(kept) == kept.items and len(kept) == len(kept.items) == cli_report["dataset"]["questions"]
    assert json.loads((tmp_path / "api" / "report.json").read_text()) == document(kept.report)
    assert sorted(p.name for p in kept.directory.iterdir()) == ["items.jsonl", "report.json", "report.md",
                                                                "run.trec"]
    unwritten = run("tier1", str(tiny), write=False)
    assert unwritten.directory is None and document(unwritten.report)["metrics"] == cli_report["metrics"]
    assert [i["id"] for i in unwritten.items] == [i["id"] for i in read_items(tmp_path / "cli")]
    with pytest.raises(BenchError, match="unknown tier 'tier9'"):
        run("tier9", tiny)


def test_bad_samples_and_settings_are_named_before_any_work():
    with pytest.raises(BenchError, match=r"samples\[1\]: field 'response': expected a string, got int"):
        evaluate([{"id": "a"}, {"id": "b", "response": 5}], METRICS, judge="offline")
    with pytest.raises(BenchError, match=r"samples\[1\]: field 'id': duplicate id 'a' \(first at samples\[0\]\)"):
        evaluate([{"id": "a"}, {"id": "a"}], METRICS, judge="offline")
    with pytest.raises(BenchError, match=r"^settings\['topk'\]: unknown setting \(did you mean top_k or"):
        evaluate(SAMPLES, METRICS, judge="offline", settings={"topk": 3})
    with pytest.raises(BenchError, match=r"^settings\['llm_concurrency'\]: must be at least 1, got 0$"):
        evaluate(SAMPLES, METRICS, judge="offline", settings={"llm_concurrency": 0})
    with pytest.raises(BenchError, match=r"^judge= and settings\['judge_backend'\] disagree"):
        evaluate(SAMPLES, METRICS, judge="offline", settings={"judge_backend": "llm"})
    with pytest.raises(BenchError, match="expected a list of samples"):
        evaluate("samples.jsonl", METRICS, judge="offline")


def test_errors_name_the_python_arguments_as_written_not_the_clis_flags(tiny):
    with pytest.raises(BenchError) as error:
        evaluate(SAMPLES, ["faithfullness", "semantic_similarity"], judge="offline")
    assert str(error.value) == ("metrics=['faithfullness', 'semantic_similarity']: unknown metric 'faithfullness'; "
                                "did you mean 'faithfulness'?")
    with pytest.raises(BenchError,
                       match=r"^metrics='faithfulness,zzz': unknown metric 'zzz'; known: answer_accuracy, "):
        evaluate(SAMPLES, "faithfulness,zzz", judge="offline")
    with pytest.raises(BenchError, match=r"^judge='ofline': expected one of llm, local, offline, got 'ofline'; "
                                         r"did you mean 'offline'\?$"):
        evaluate(SAMPLES, METRICS, judge="ofline")
    with pytest.raises(BenchError, match=r"^settings\['extra_metrics'\]: unknown metric 'faithfullness'; did you "):
        run("tier2", tiny, settings={"extra_metrics": ["faithfullness"], "generator": "extractive",
                                     "judge_backend": "offline"}, write=False)


def test_an_unknown_bench_variable_is_one_warning_once_and_the_run_goes_on(monkeypatch, capsys):
    monkeypatch.setattr(bench_config.loading, "_warned_variables", set())  # a process that has not warned yet
    monkeypatch.setenv("BENCH_LLM_MODLE", "judge")
    result = evaluate(SAMPLES, METRICS, judge="offline")
    with pytest.raises(BenchError, match="duplicate id"):  # a second call, refused after its settings are read
        evaluate([{"id": "a"}, {"id": "a"}], METRICS, judge="offline")
    assert result.metrics["faithfulness"] is not None
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: environment")]
    assert warnings == [("warning: environment variable BENCH_LLM_MODLE is no bench setting and is ignored "
                         "(did you mean BENCH_LLM_MODEL?)")]


def test_import_benchmarks_stays_light():
    code = ("import sys, benchmarks; from benchmarks import evaluate, aevaluate, run, Sample, Evaluation; "
            "print(sorted(m for m in ('numpy', 'torch', 'sqlalchemy', 'openai', 'sentence_transformers') "
            "if m in sys.modules)); print(sorted(benchmarks.__all__) == sorted(set(benchmarks.__all__) & "
            "set(dir(benchmarks))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True"]
