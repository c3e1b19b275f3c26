"""What report.md and the console add to help read a run: each metric's band beside its value, and the items
each metric scored worst, from hand-built reports and item records."""

from pathlib import Path

import pytest
from rich.console import Console

from benchmarks.console import print_summary
from benchmarks.report import render
from benchmarks.report.lowest_items import lowest_items, one_line
from benchmarks.report.markdown import metric_band
from benchmarks.report_model import Report


def metric(value, higher_is_better=True):
    return {"value": value, "n": 4, "errors": 0, "ci95": None, "higher_is_better": higher_is_better}


def document(metrics: dict, *, settings=None, calibrated=()) -> dict:
    """A report as report.json holds it, with the given metrics and, when `calibrated` names some, the
    similarity scale they are read on."""
    provenance: dict = {"bench_version": "0"}
    if calibrated:
        provenance["similarity"] = {"baseline": 0.75, "model": "e5", "language": "en", "baseline_from": "given",
                                    "metrics": list(calibrated)}
    return {"schema_version": 3, "title": "RAGAS-style evaluation", "tier": "evaluate", "tier_version": "1.2",
            "main_metric": next(iter(metrics)), "dataset": {"name": "s", "content_sha256": "ab" * 32, "samples": 4},
            "provenance": provenance, "metrics": metrics, "notes": {}, "warnings": [], "volatile": {},
            "settings": settings or {}, "settings_sources": {}}


def report_of(metrics: dict, **kwargs) -> Report:
    return Report.model_validate(document(metrics, **kwargs))


def score(value, status="ok", explanation=""):
    return {"value": value, "status": status, "explanation": explanation}


def item(item_id: str, **scores) -> dict:
    """An item record scored by one judge, `judge-a`, per metric."""
    return {"id": item_id, "inputs": {}, "answer": None, "cluster": None,
            "scores": {name: {"judge-a": s} for name, s in scores.items()}}


ITEMS = [
    item("s4", faithfulness=score(0.5, explanation="1 of 2 statements\nsupported | the rest not")),
    item("s1", faithfulness=score(1.0, explanation="all supported")),
    item("s3", faithfulness=score(0.25, explanation="3 of 4 unsupported")),
    item("s2", faithfulness=score(0.5, explanation="half")),
    item("s5", faithfulness=score(None, "undetermined", "the response has no statements")),
    item("s6", faithfulness=score(None, "api_error", "HTTP 500")),
    item("s7", faithfulness=score(0.75)),
    item("s8", faithfulness=score(0.9)),
    item("s9"),  # the metric does not apply: neither ranked nor counted
]


# --- the worst items, chosen ---------------------------------------------------------------------------


def test_worst_first_ties_by_id_and_the_unranked_counted_apart():
    found = lowest_items(ITEMS, "faithfulness", higher_is_better=True, count=3)
    assert found is not None
    assert [(row.id, row.value) for row in found.listed] == [("s3", 0.25), ("s2", 0.5), ("s4", 0.5)]
    assert found.scored == 6 and found.undetermined == ("s5",) and found.failed == ("s6",)
    assert found.listed[2].why == "1 of 2 statements supported | the rest not"  # one line


def test_lower_is_better_lists_the_highest():
    found = lowest_items(ITEMS, "faithfulness", higher_is_better=False, count=2)
    assert found is not None and [row.id for row in found.listed] == ["s1", "s8"]


def test_a_metric_no_item_scores_has_no_list():
    assert lowest_items(ITEMS, "context_recall", higher_is_better=True) is None


def test_several_judges_show_each_value_and_the_worst_ones_why():
    record = {"id": "s1", "scores": {"faithfulness": {
        "judge-b": score(0.2, explanation="mostly invented"), "judge-a": score(0.8, explanation="fine"),
        "judge-c": score(None, "parse_error", "no JSON")}}}
    found = lowest_items([record], "faithfulness", higher_is_better=True)
    assert found is not None
    (row,) = found.listed
    assert row.value == pytest.approx(0.5)  # the mean over the judges that scored, as the report's mean takes it
    assert row.by_scorer == (("judge-a", 0.8), ("judge-b", 0.2))
    assert row.why == "judge-b: mostly invented"


def test_an_explanation_is_cut_to_one_line():
    assert one_line("a\n  b\tc") == "a b c"
    cut = one_line("word " * 40, length=20)
    assert len(cut) == 20 and cut.endswith("…") and "\n" not in cut


# --- the section in report.md ----------------------------------------------------------------------------


def test_report_md_lists_the_lowest_items_with_their_why_and_counts_the_rest():
    report = report_of({"faithfulness": metric(0.6)})
    lines = render(report, ITEMS).splitlines()
    start = lines.index("## Lowest-scoring items")
    table = lines.index("### `faithfulness`") + 2
    assert lines[table:table + 7] == [
        "| id | value | why |", "|---|---:|---|",
        "| `s3` | 0.2500 | 3 of 4 unsupported |",
        "| `s2` | 0.5000 | half |",
        "| `s4` | 0.5000 | 1 of 2 statements supported \\| the rest not |",  # its pipe escaped
        "| `s7` | 0.7500 | — |",
        "| `s8` | 0.9000 | — |",
    ]
    assert lines[table + 8] == "6 items scored; not ranked: 1 undetermined (`s5`), 1 failed (`s6`)."
    assert start < table


def test_the_section_is_stable_whatever_order_the_items_come_in():
    report = report_of({"faithfulness": metric(0.6)})
    assert render(report, ITEMS) == render(report, list(reversed(ITEMS)))


def test_without_items_there_is_no_section():
    assert "Lowest-scoring" not in render(report_of({"faithfulness": metric(0.6)}))


def test_items_all_alike_are_said_to_be_so():
    """Every item wrong (or every one right) ranks none below another: the rows are listed, but as the first ids."""
    alike = [item(f"s{i}", accuracy=score(0.0, explanation="no, labelled yes")) for i in range(7)]
    lines = render(report_of({"accuracy": metric(0.0)}), alike).splitlines()
    assert "All 7 scored items have the same value; the first by id:" in lines
    assert "| `s0` | 0.0000 | no, labelled yes |" in lines and "| `s4` | 0.0000 | no, labelled yes |" in lines
    assert "| `s5` | 0.0000 | no, labelled yes |" not in lines


def test_a_judge_models_own_metric_is_read_in_its_metrics_rows():
    report = report_of({"faithfulness": metric(0.6), "faithfulness/judge-a": metric(0.6)})
    assert render(report, ITEMS).count("### `faithfulness") == 1


# --- bands beside the values ----------------------------------------------------------------------------


def test_the_band_stands_beside_the_value_and_its_meaning_below_the_table():
    lines = render(report_of({"faithfulness": metric(0.6), "context_precision": metric(0.9)})).splitlines()
    assert "| metric | value | band | 95% CI | n | ok / undet. / err. |" in lines
    assert "| `faithfulness` ★ | 0.6000 | needs attention | — | 4 | — / — / 0 |" in lines
    assert "| `context_precision` | 0.9000 | | — | 4 | — / — / 0 |" in lines  # no band in the seeds
    assert ("Band of `faithfulness`: > 0.9 excellent, 0.7–0.9 good, < 0.7 needs attention (seed 004 §11.2)."
            in lines)


def test_no_band_no_column():
    lines = render(report_of({"context_precision": metric(0.9)})).splitlines()
    assert "| metric | value | 95% CI | n | ok / undet. / err. |" in lines
    assert not any(line.startswith("Band of") for line in lines)


def test_a_band_read_on_the_calibrated_scale_says_so():
    report = report_of({"semantic_similarity": metric(0.85), "noise_sensitivity": metric(0.05, False)},
                       calibrated=("semantic_similarity",))
    assert metric_band(report, "semantic_similarity") == "good †"
    assert metric_band(report, "noise_sensitivity") == "excellent"  # lower is better
    lines = render(report).splitlines()
    assert "| `semantic_similarity` ★ | 0.8500 | good † | — | 4 | — / — / 0 |" in lines
    assert any(line.startswith("- † the value is on the calibrated similarity scale") for line in lines)


def test_a_thresholded_similarity_is_a_share_and_gets_no_band():
    report = report_of({"semantic_similarity": metric(0.85)}, settings={"similarity_threshold": 0.6})
    assert metric_band(report, "semantic_similarity") == ""


def test_a_metric_without_a_value_gets_no_band():
    assert metric_band(report_of({"faithfulness": metric(None)}), "faithfulness") == ""


def test_the_console_table_shows_the_band_and_the_calibrated_note():
    console = Console(record=True, width=200)
    report = report_of({"semantic_similarity": metric(0.85), "context_precision": metric(0.4)},
                       calibrated=("semantic_similarity",))
    print_summary(report, Path("run"), console)
    text = console.export_text()
    header = next(line for line in text.splitlines() if "metric" in line and "value" in line)
    assert [cell.strip() for cell in header.split("┃")[1:-1]][:3] == ["metric", "value", "band"]
    row = next(line for line in text.splitlines() if "semantic_similarity" in line)
    assert [cell.strip() for cell in row.split("│")[1:-1]][:3] == ["semantic_similarity ★", "0.8500", "good †"]
    assert "† the value is on the calibrated similarity scale" in text
