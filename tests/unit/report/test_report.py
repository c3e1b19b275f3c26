"""The report: canonical JSON, what goes in the stable block, the model it is read back into, files on disk,
Markdown."""

from __future__ import annotations

import json
import math
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks import report
from benchmarks.config import Settings
from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.inputs import Warning
from benchmarks.report import render
from benchmarks.report.schema import REGENERATE, SCHEMA_FILE, schema_text
from benchmarks.report_model import SCHEMA_VERSION, EmbedderBlock, Index, Notes, Provenance, Report, Volatile
from benchmarks.run_files import provenance
from benchmarks.run_files.writer import new_run_id, point_latest, run_directory, write_run
from benchmarks.tiers.base import Metric, ReportKind, TierResult
from benchmarks.transport.redaction import redacted

PASSWORD = "s3cret-pw"
API_KEY = "sk-test-0123456789"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
METRIC_ORDER = ["ndcg@10", "recall@10", "latency_p50_ms"]  # deliberately not alphabetical
# the repository may be edited while tests run; fixed environment facts keep builds comparable
ENVIRONMENT = {"git_commit": COMMIT, "git_dirty": False, "python": "3.12.0", "packages": {"numpy": "2.0.0"},
               "numeric_path": {"cpu": "Example CPU (x86_64: avx2 fma)", "libm": "glibc 2.36",
                                "blas": "openblas 0.3.31, kernel Haswell", "numpy_simd": "X86_V3"}}


TIER = ReportKind(name="tier1", version="3", title="Retrieval quality", main_metric="ndcg@10")
DATASET = Dataset(
    name="letters",
    version="2024.1",
    language="en",
    format="bench",
    content_sha256="ab" * 32,
    chunks=(Chunk("c1", "Alpha"), Chunk("c2", "Beta")),
    questions=(Question("q1", "What is alpha?", {"c1": 1}),),
    warnings=(Warning("unknown_qrel_document", "judgments naming a missing document were dropped", 2,
                      ("q1 -> ghost", "q1 -> nowhere")),),
)


def tier_result() -> TierResult:
    return TierResult(
        metrics={
            "ndcg@10": Metric(0.123456789, 3, 0, (0.1, 0.2000004)),
            "recall@10": Metric(None, 0, 3),
            "latency_p50_ms": Metric(12.5, 3, higher_is_better=False),
        },
        items=[{"id": "q1", "ndcg@10": 0.123456789}],
        notes=Notes(ties="score descending, then document id descending", scales={"ndcg@10": "0–1"}),
        provenance=Provenance(
            embedder=EmbedderBlock(id="all-MiniLM-L6-v2", dimension=384, backend="sentence-transformers"),
        ),
        volatile=Volatile(duration_s=1.25),
    )


@pytest.fixture
def settings(tmp_path):
    return Settings(
        data_dir=tmp_path / "state",
        reports_dir=tmp_path / "reports",
        database_url=f"postgresql://bench:{PASSWORD}@db.example:5432/rag",
        embedding_api_key=API_KEY,
    )


@pytest.fixture
def built(settings):
    sources = {"top_k": "cli", "seed": "default", "index": "bench.toml"}
    return report.build(TIER, tier_result(), DATASET, redacted(settings), sources,
                        Volatile(started_at="2024-01-02T03:04:05Z"), environment=ENVIRONMENT)


# --- normalise and dumps --------------------------------------------------------------------------


def test_normalise_rounds_floats_and_turns_tuples_into_lists():
    value = report.normalise({"b": 1.23456789, "a": [1 / 3, (2.0000004, 7, None, True)]})
    assert value == {"a": [0.333333, [2.0, 7, None, True]], "b": 1.234568}
    assert value["a"][1][3] is True  # bools are not numbers to round


def test_normalise_sorts_keys_at_every_level():
    value = report.normalise({"z": {"b": 1, "a": 2}, "y": [{"d": 1, "c": 2}]})
    assert list(value) == ["y", "z"]
    assert list(value["z"]) == ["a", "b"]
    assert list(value["y"][0]) == ["c", "d"]


def test_normalise_without_sort_keeps_top_level_order_only():
    metrics = {"recall@10": {"value": 1.0, "n": 2}, "mrr@10": {"value": 0.5, "n": 2}}
    value = report.normalise(metrics, sort=False)
    assert list(value) == ["recall@10", "mrr@10"]
    assert list(value["recall@10"]) == ["n", "value"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_normalise_refuses_nan_and_infinity(bad):
    with pytest.raises(ValueError, match="NaN or infinity"):
        report.normalise({"metrics": {"ndcg@10": {"value": [1.0, bad]}}})


def test_dumps_is_byte_identical_for_equal_input():
    first = {"b": 0.1 + 0.2, "a": {"y": "café", "x": [1, 2]}}
    second = {"a": {"x": [1, 2], "y": "café"}, "b": 0.3}
    text = report.dumps(report.normalise(first))
    assert text == report.dumps(report.normalise(second))
    assert text.endswith("}\n")
    assert "café" in text  # UTF-8 text, not \\u escapes
    assert text.index('"a"') < text.index('"b"')


# --- build ----------------------------------------------------------------------------------------


def test_build_identifies_tier_dataset_and_schema(built):
    assert built.schema_version == SCHEMA_VERSION == 3
    assert (built.tier, built.tier_version, built.title, built.main_metric) == (
        "tier1", "3", "Retrieval quality", "ndcg@10")
    assert report.document(built)["dataset"] == {
        "name": "letters",
        "version": "2024.1",
        "language": "en",
        "format": "bench",
        "content_sha256": "ab" * 32,
        "documents": 2,
        "questions": 1,
    }
    assert built.provenance.git_commit == COMMIT
    assert built.provenance.git_dirty is False
    assert built.provenance.python == "3.12.0"
    assert built.provenance.packages == {"numpy": "2.0.0"}
    assert built.provenance.embedder is not None and built.provenance.embedder.dimension == 384
    assert report.document(built)["warnings"] == [{"code": "unknown_qrel_document", "count": 2,
                                                   "examples": ["q1 -> ghost", "q1 -> nowhere"],
                                                   "message": "judgments naming a missing document were dropped"}]


def test_build_metrics_keep_tier_order_and_all_fields(built):
    assert list(built.metrics) == METRIC_ORDER
    metrics = report.document(built)["metrics"]
    assert list(metrics) == METRIC_ORDER
    assert metrics["ndcg@10"] == {
        "ci95": [0.1, 0.2],
        "errors": 0,
        "higher_is_better": True,
        "n": 3,
        "value": 0.123457,
    }
    assert metrics["recall@10"] == {
        "ci95": None, "errors": 3, "higher_is_better": True, "n": 0, "value": None}
    assert built.metrics["latency_p50_ms"].higher_is_better is False


def test_build_sorts_every_other_top_level_key(built):
    document = report.document(built)
    others = [key for key in document if key != "metrics"]
    assert others == sorted(others) and list(document)[-1] == "metrics"
    assert list(document["dataset"]) == sorted(document["dataset"])
    assert list(document["provenance"]) == sorted(document["provenance"])  # the tier's keys among bench's own


def test_build_keeps_local_paths_in_volatile_only(built, settings, tmp_path):
    assert "data_dir" not in built.settings and "reports_dir" not in built.settings
    assert report.document(built)["volatile"] == {
        "local_settings": {"data_dir": str(settings.data_dir), "reports_dir": str(settings.reports_dir)},
        "duration_s": 1.25,
        "started_at": "2024-01-02T03:04:05Z",
    }
    stable = {key: value for key, value in report.document(built).items() if key != "volatile"}
    assert str(tmp_path) not in report.dumps(stable)


def test_build_keeps_local_setting_sources_out_of_the_stable_block(settings):
    built = report.build(TIER, tier_result(), DATASET, redacted(settings), {"data_dir": "env", "top_k": "cli"},
                         Volatile(), environment=ENVIRONMENT)
    assert built.settings_sources == {"top_k": "cli"}


def test_build_redacts_secrets(built):
    text = report.dumps(report.document(built))
    assert PASSWORD not in text
    assert API_KEY not in text
    assert built.settings["database_url"] == "postgresql://bench:***@db.example:5432/rag"
    assert built.settings["embedding_api_key"] == "***"


def test_build_lists_only_non_default_sources(built):
    assert built.settings_sources == {"index": "bench.toml", "top_k": "cli"}


def test_build_is_deterministic(settings):
    def once():
        return report.dumps(report.document(report.build(TIER, tier_result(), DATASET, redacted(settings),
                                                         {"top_k": "cli"}, Volatile(), environment=ENVIRONMENT)))

    assert once() == once()


def test_build_refuses_a_nan_metric(settings):
    result = tier_result()
    result.metrics["ndcg@10"] = Metric(math.nan, 3)
    with pytest.raises(ValueError):
        report.build(TIER, result, DATASET, redacted(settings), {}, Volatile(), environment=ENVIRONMENT)


# --- the model ------------------------------------------------------------------------------------


def test_a_report_read_back_is_the_same_file(built):
    text = report.dumps(report.document(built))
    again = Report.model_validate_json(text)
    assert again == built
    assert report.dumps(report.document(again)) == text


def test_the_file_holds_what_the_tier_gave_no_more_and_no_less(settings):
    result = tier_result()
    result.metrics["questions"] = Metric(3, 3, higher_is_better=None)  # an int, never made a float
    result.provenance.index = Index(type="exact", exact_search="numpy")
    result.notes.retrieval = None
    built = report.build(TIER, result, DATASET, redacted(settings), {}, Volatile(), environment=ENVIRONMENT)
    text = report.dumps(report.document(built))
    document = json.loads(text)
    assert '"value": 3\n' in text and document["metrics"]["questions"]["higher_is_better"] is None
    assert document["provenance"]["index"] == {"exact_search": "numpy", "type": "exact"}
    assert built.provenance.index is not None and built.provenance.index.type == "exact"
    assert "log" not in document and "generator" not in document["provenance"]  # unset blocks stay out
    assert document["notes"]["retrieval"] is None  # a note set to None stays, as the tier wrote it
    assert "agreement" not in document["metrics"]["ndcg@10"]


def test_a_value_of_another_type_is_refused_not_coerced(built):
    document = report.document(built)
    document["metrics"]["ndcg@10"]["n"] = "3"
    with pytest.raises(ValueError, match=r"metrics\.ndcg@10\.n"):
        Report.model_validate(document)


def test_the_shipped_json_schema_is_the_models():
    shipped = SCHEMA_FILE.read_text(encoding="utf-8")
    assert json.loads(shipped) == Report.model_json_schema() and shipped == schema_text(), (
        f"{SCHEMA_FILE.name} differs from Report.model_json_schema(): regenerate it with `{REGENERATE}`")


# --- files on disk --------------------------------------------------------------------------------


def test_run_directory_layout(tmp_path):
    path = run_directory(tmp_path, "org/scifact", "tier1", "20240102T030405Z-abcdef")
    assert path == tmp_path / "org_scifact" / "tier1" / "20240102T030405Z-abcdef"


def test_new_run_id_sorts_by_time_and_is_unique():
    moment = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    first, second = new_run_id(moment), new_run_id(moment)
    assert first.startswith("20240102T030405Z-") and len(first) == len("20240102T030405Z-") + 6
    assert first != second


def test_write_run_writes_every_file_readable_by_all(tmp_path, built):
    directory = tmp_path / "letters" / "tier1" / "run-1"
    items = [{"id": "q2", "score": 1 / 3, "b": 1}, {"id": "q1", "score": 0.5, "b": 2}]
    files = {"run.trec": "q1 Q0 c1 1 0.5 bench\n"}

    write_run(directory, report.render_files(built, items, files))

    names = {"items.jsonl", "run.trec", "report.json", "report.md"}
    assert set(os.listdir(directory)) == names  # no temporary files left behind
    for path in directory.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path.name
    assert (directory / "run.trec").read_text(encoding="utf-8") == files["run.trec"]
    assert (directory / "report.json").read_text(encoding="utf-8") == report.dumps(report.document(built))
    assert json.loads((directory / "report.json").read_text(encoding="utf-8")) == report.document(built)


def test_write_run_keeps_item_order_and_normalises_items(tmp_path, built):
    items = [{"id": "q2", "score": 1 / 3, "b": 1}, {"id": "q1", "score": 0.5, "b": 2}]
    write_run(tmp_path, report.render_files(built, items, {}))
    lines = (tmp_path / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines == ['{"b": 1, "id": "q2", "score": 0.333333}', '{"b": 2, "id": "q1", "score": 0.5}']


def test_write_run_markdown_names_every_metric_and_warning(tmp_path, built):
    write_run(tmp_path, report.render_files(built, [], {}))
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    for name in METRIC_ORDER:
        assert f"`{name}`" in markdown
    assert "unknown_qrel_document" in markdown
    assert "judgments naming a missing document were dropped" in markdown
    assert PASSWORD not in markdown


def test_render_files_puts_the_report_last(built):
    files = report.render_files(built, [{"id": "q1"}], {"run.trec": "x\n"})
    assert list(files) == ["items.jsonl", "run.trec", "report.json", "report.md"]
    assert files["report.json"] == report.dumps(report.document(built))
    assert files["report.md"] == render(Report.model_validate_json(files["report.json"]))


def test_write_run_writes_the_report_last_whatever_the_order(tmp_path, monkeypatch):
    written = []
    monkeypatch.setattr("benchmarks.run_files.writer.atomic_write", lambda path, text: written.append(path.name))
    write_run(tmp_path, {"report.md": "m", "report.json": "j", "items.jsonl": "", "run.trec": "t"})
    assert written == ["items.jsonl", "run.trec", "report.json", "report.md"]


def test_environment_has_the_keys_build_takes():
    facts = provenance.environment()
    assert tuple(facts) == report.ENVIRONMENT_KEYS
    assert isinstance(facts["python"], str)
    assert set(facts["packages"]) == set(provenance.PACKAGES)


def test_environment_without_git(monkeypatch):
    def no_git(*args, **kwargs):
        raise OSError("git not installed")

    monkeypatch.setattr(provenance.subprocess, "run", no_git)
    assert provenance.git() == {"git_commit": None, "git_dirty": None}


def test_the_numeric_path_names_what_decides_the_last_digits(monkeypatch):
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Prescott")
    monkeypatch.setenv("LD_PRELOAD", "/opt/somewhere/libother_libm.so:/usr/lib/libx.so")
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    path = provenance.numeric_path()
    assert set(path) == {"cpu", "libm", "blas", "numpy_simd", "overrides"}
    assert path["libm"].startswith("glibc ") and "openblas" in path["blas"]
    assert path["overrides"]["OPENBLAS_CORETYPE"] == "Prescott"
    assert path["overrides"]["LD_PRELOAD"] == "libother_libm.so libx.so"  # file names, never a machine's paths
    assert "GLIBC_TUNABLES" not in path["overrides"]


def test_report_md_says_where_the_numbers_were_computed(built):
    text = render(built)
    assert ("Computed on Example CPU (x86_64: avx2 fma) · glibc 2.36 · openblas 0.3.31, kernel Haswell · numpy SIMD "
            "X86_V3\n") in text


def test_point_latest_links_the_newest_run_and_replaces_the_link(tmp_path):
    first, second = tmp_path / "20240101T000000Z-aaaaaa", tmp_path / "20240102T000000Z-bbbbbb"
    first.mkdir()
    second.mkdir()
    latest = tmp_path / "latest"

    point_latest(first)
    assert latest.is_symlink()
    assert os.readlink(latest) == first.name  # relative, so the reports folder can be moved

    point_latest(second)
    assert os.readlink(latest) == second.name
    assert latest.resolve() == second.resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.name, second.name, "latest"])


# --- Markdown -------------------------------------------------------------------------------------


def test_render_from_the_json_text(built):
    markdown = render(Report.model_validate_json(report.dumps(report.document(built))))
    lines = markdown.splitlines()

    assert lines[0] == "# Retrieval quality: letters"
    summary = "Tier `tier1` v3 · dataset `letters` 2024.1 (sha256 `abababababab`, 2 documents, 1 questions)"
    assert summary in lines[2]
    assert f"commit `{COMMIT[:12]}`" in lines[2] and "(dirty)" not in lines[2]
    assert "Embedder `all-MiniLM-L6-v2` (384 dimensions, sentence-transformers)" in markdown
    assert "| metric | value | band | 95% CI | n | ok / undet. / err. |" in lines
    # a tier that counts no statuses: ok and undetermined are unknown, never made up from n
    assert "| `ndcg@10` ★ | 0.1235 | needs attention | [0.1000, 0.2000] | 3 | — / — / 0 |" in lines
    assert "| `recall@10` | — | | — | 0 | — / — / 3 |" in lines  # no band from the seeds: nothing shown
    assert "| `latency_p50_ms` | 12.5000 | | — | 3 | — / — / 0 |" in lines
    assert "Band of `ndcg@10`: > 0.8 excellent, 0.5–0.8 good, < 0.5 needs attention (seed 004 §11.2)." in lines
    assert markdown.index("`ndcg@10`") < markdown.index("`recall@10`") < markdown.index("`latency_p50_ms`")
    assert "- **unknown_qrel_document** ×2: judgments naming a missing document were dropped " \
           "(e.g. q1 -> ghost, q1 -> nowhere)" in lines
    assert "- scales:" in lines and "  - ndcg@10: 0–1" in lines
    assert "| `top_k` | `10` (cli) |" in lines
    assert "| `seed` | `0` |" in lines
    assert "| `database_url` | `postgresql://bench:***@db.example:5432/rag` |" in lines
    assert markdown.endswith("\n")


def test_render_without_warnings_notes_or_commit(built):
    document = json.loads(report.dumps(report.document(built)))
    document["warnings"], document["notes"] = [], {}
    document["provenance"]["git_commit"] = None
    markdown = render(Report.model_validate(document))
    assert "## Warnings" not in markdown
    assert "## How these numbers were computed" not in markdown
    assert "commit" not in markdown.splitlines()[2]


# --- ok / undetermined / errors in the tables ------------------------------------------------------


def judged_report(notes: dict) -> dict:
    """A report as report.json holds it, with one judged metric that scored nothing: 7 undetermined, 5 failed."""
    metric = {"value": None, "n": 0, "errors": 5, "ci95": None, "higher_is_better": True}
    return {"schema_version": SCHEMA_VERSION, "title": "RAGAS-style evaluation", "tier": "evaluate",
            "tier_version": "1.0",
            "main_metric": "faithfulness",
            "dataset": {"name": "s", "content_sha256": "ab" * 32, "samples": 12},
            "provenance": {"bench_version": "0"}, "metrics": {"faithfulness": metric}, "notes": notes,
            "warnings": [], "volatile": {}, "settings": {}, "settings_sources": {}}


EVALUATE_NOTES = {"statuses": {"faithfulness": {"ok": 0, "undetermined": 7, "parse_error": 3, "truncated": 1,
                                                "api_error": 1}}}


def terminal_table(document: dict) -> str:
    from rich.console import Console

    from benchmarks.console import print_summary

    console = Console(record=True, width=160)
    print_summary(Report.model_validate(document), Path("run"), console)
    return console.export_text()


def rendered(document: dict) -> str:
    return render(Report.model_validate(document))


def test_markdown_shows_ok_undetermined_and_errors():
    assert "| `faithfulness` ★ | — | — | 0 | 0 / 7 / 5 |" in rendered(judged_report(EVALUATE_NOTES)).splitlines()


def test_terminal_shows_ok_undetermined_and_errors():
    text = terminal_table(judged_report(EVALUATE_NOTES))
    assert "ok / undet. / err." in text
    row = next(line for line in text.splitlines() if "faithfulness" in line)
    assert row.split("│")[1:-1][-1].strip() == "0 / 7 / 5"


@pytest.mark.parametrize(("notes", "name", "shown"), [
    # tiers 2 and 3: a rating's grade without avg_, a --metrics metric's as ragas:<name>
    ({"statuses": {"faithfulness": {"ok": 4}, "ragas:faithfulness": {"undetermined": 7}}}, "avg_faithfulness",
     "4 / 0 / 5"),
    ({"statuses": {"faithfulness": {"ok": 4}, "ragas:faithfulness": {"undetermined": 7}}}, "faithfulness",
     "0 / 7 / 5"),
    ({"statuses": {"faithfulness": {"ok": 4}}}, "avg_rouge1_f", "— / — / 5"),
    # bench judge: one count for the run's ratings, pooled over the models
    ({"statuses": {"ok": 2, "undetermined": 1, "api_error": 5}}, "consistency_score", "2 / 1 / 5"),
    ({"statuses": {"ok": 2, "undetermined": 1, "api_error": 5}}, "consistency_score/judge-a", "— / — / 5"),
    ({"statuses": {"faithfulness": {"ok": 2}}}, "faithfulness/judge-a", "— / — / 5"),
    ({}, "ndcg@10", "— / — / 5"),
])
def test_outcomes_are_taken_from_the_statuses_the_report_holds(notes, name, shown):
    from benchmarks.report.markdown import format_outcomes

    document = judged_report(notes)
    document["metrics"] = {name: document["metrics"]["faithfulness"]}
    assert format_outcomes(Report.model_validate(document), name) == shown


def test_a_limited_run_says_so_in_both_tables():
    document = judged_report(EVALUATE_NOTES)
    document["dataset"] = {**document["dataset"], "samples": 3, "limit": {"n": 3, "of": 12, "seed": 4}}
    assert "3 samples, limit 3 of 12 (seed 4)" in rendered(document).splitlines()[2]
    assert "3 samples, limit 3 of 12 (seed 4)" in " ".join(terminal_table(document).split())


# --- notes and settings as tables and prose, never a Python repr ----------------------------------------


def test_notes_and_settings_render_as_tables_and_prose():
    """The shapes tiers' notes hold (real-users' topics, ux's curve, evaluate's models and options, a rubric's
    fields, judge's scale) and a list setting: rows of records are a table in their bullet, the rest prose."""
    document = judged_report({
        "topic_coverage": {"n_topics": 2, "total_questions": 4, "avg_chunks_per_topic": 2.0, "weak": "few chunks",
                           "topics": [
            {"topic_id": 0, "question_count": 3, "unique_chunks": 2, "unique_urls": 1, "weak": False},
            {"topic_id": 1, "question_count": 1, "unique_chunks": 2, "unique_urls": 2, "weak": True}]},
        "models": ["judge-a", "judge-b"], "scale": [1, 5], "mode": None, "options": {"weights": {"factuality": 0.75}},
        "rubrics": {"politeness": {"criteria": {"en": "Is it polite? a | b"}, "scale": "binary",
                                  "needs": ["response"]}},
        "preferences": {}, **EVALUATE_NOTES})
    document["settings"] = {"metrics": ["faithfulness", "semantic_similarity"], "similarity_threshold": None,
                            "rubrics": {"politeness": {"scale": "1-5", "needs": ["response", "user_input"]}}}
    lines = rendered(document).splitlines()
    table = lines.index("  - topics:")
    assert lines[table + 1:table + 6] == [
        "", "    | question_count | topic_id | unique_chunks | unique_urls | weak |", "    |---|---|---|---|---|",
        "    | 3 | 0 | 2 | 1 | false |", "    | 1 | 1 | 2 | 2 | true |"]
    assert "- models: judge-a, judge-b" in lines and "- scale: 1, 5" in lines and "- mode: —" in lines
    assert "    - factuality: 0.75" in lines and "- preferences: —" in lines
    assert "      - en: Is it polite? a | b" in lines and "    - needs: response" in lines
    assert "| `metrics` | `faithfulness, semantic_similarity` |" in lines
    assert "| `similarity_threshold` | — |" in lines
    assert "| `rubrics` | `politeness: (scale: 1-5, needs: (response, user_input))` |" in lines


def test_a_cell_escapes_its_pipes():
    from benchmarks.report.markdown import _table

    assert _table([{"what": "a | b"}])[-1] == "| a \\| b |"
