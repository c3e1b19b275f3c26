"""Progress as plain lines when stderr is no terminal, and the small checks that keep a run from failing late
or silently: unwritable folders, a run that measured nothing, unknown settings, a UTF-8 BOM."""

import io
import re
import shutil
import threading
from pathlib import Path

import pytest
from rich.console import Console

from benchmarks.config import load_settings, unknown_setting
from benchmarks.console import ProgressLines, progress_interval, stdout_console, titled_table
from benchmarks.errors import BenchError
from benchmarks.readers.datasets import load_dataset
from benchmarks.readers.samples import load_samples
from benchmarks.readers.show_items import load_pairs_input, load_show_input
from benchmarks.report_model import Report
from benchmarks.run_files.atomic import check_writable_folder
from benchmarks.runner import unmeasured

SHIPPED = Path(__file__).resolve().parents[2] / "datasets"
LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ tier1: (.+)$")


def lines_of(out: io.StringIO) -> list[str]:
    found = []
    for line in out.getvalue().splitlines():
        match = LINE.match(line)
        assert match, line
        found.append(match.group(1))
    return found


def test_a_phase_prints_its_start_and_its_end_once():
    out = io.StringIO()
    with ProgressLines(out, "tier1", interval=60) as progress:
        task = progress.add_task("embedding corpus", total=4)
        progress.advance(task, 3)
        progress.update(task, advance=1)
        progress.remove_task(task)
    assert lines_of(out)[0] == "embedding corpus 0/4 (started)"
    assert re.fullmatch(r"embedding corpus 4/4 \(done in \d+\.\d s\)", lines_of(out)[1])
    assert len(lines_of(out)) == 2


class Ticks(io.StringIO):
    """Progress output that says when its `wanted`th tick line (a running phase's `(N s)`) was written."""

    def __init__(self, wanted: int):
        super().__init__()
        self.wanted, self.seen, self.enough = wanted, 0, threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if re.search(r"\(\d+ s\)$", text.rstrip("\n")):
            self.seen += 1
            if self.seen >= self.wanted:
                self.enough.set()
        return written


def test_a_long_phase_prints_at_a_steady_pace():
    """The phase lasts until the third tick line is written (the ticker's own thread writes them), not a guessed
    time that a loaded machine might not give the ticker."""
    out = Ticks(wanted=3)
    with ProgressLines(out, "tier1", interval=0.05) as progress:
        task = progress.add_task("starting PostgreSQL with pgvector")
        assert out.enough.wait(timeout=60), "a running phase printed no tick line every interval"
        progress.remove_task(task)
    ticks = [line for line in lines_of(out) if re.fullmatch(r"starting PostgreSQL with pgvector \(\d+ s\)", line)]
    assert len(ticks) >= 3


def test_resumed_progress_starts_where_it_was_and_open_phases_end_with_the_run():
    out = io.StringIO()
    with ProgressLines(out, "tier1", interval=60) as progress:
        progress.add_task("judging, 2 resumed", total=5, completed=2)
    assert lines_of(out)[0] == "judging, 2 resumed 2/5 (started)"
    assert lines_of(out)[1].startswith("judging, 2 resumed 2/5 (done in")


def test_a_failed_run_does_not_claim_its_phase_ended():
    out = io.StringIO()
    with pytest.raises(RuntimeError), ProgressLines(out, "tier1", interval=60) as progress:
        progress.add_task("retrieving", total=3)
        raise RuntimeError("boom")
    assert lines_of(out) == ["retrieving 0/3 (started)"]


@pytest.mark.parametrize("raw, seconds", [("", 10.0), ("0.5", 0.5), ("30", 30.0)])
def test_the_interval_comes_from_the_environment(raw, seconds):
    assert progress_interval({"BENCH_PROGRESS_INTERVAL_S": raw}) == seconds


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "inf"])
def test_a_bad_interval_is_one_clear_error(raw):
    with pytest.raises(BenchError, match="BENCH_PROGRESS_INTERVAL_S: expected seconds above 0"):
        progress_interval({"BENCH_PROGRESS_INTERVAL_S": raw})


def test_piped_stdout_is_not_wrapped_at_80_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert stdout_console().width > 200


def test_a_table_title_wraps_at_the_console_width_not_the_tables():
    out = io.StringIO()
    console = Console(file=out, width=60)
    table = titled_table("a title of several words " * 4)
    table.add_column("n")
    console.print(table)
    first, second, top = out.getvalue().splitlines()[:3]
    assert len(first.rstrip()) > 50 and second.startswith("several words") and top.startswith("┏━━━┓")


def report(value, n, errors=0, warnings=(), main="ndcg@10"):
    """A report of the fields `unmeasured` reads, the rest as small as a report may be."""
    return Report.model_validate({
        "schema_version": 3, "tier": "tier1", "tier_version": "1", "main_metric": main,
        "dataset": {"name": "d", "content_sha256": "-"}, "provenance": {},
        "metrics": {"ndcg@10": {"value": value, "n": n, "errors": errors}}, "warnings": list(warnings)})


def test_a_run_is_unmeasured_only_when_its_main_metric_has_no_value():
    assert unmeasured(report(0.0, 12)) is None  # a zero is a measurement
    assert "main metric ndcg@10 has no value (n = 0, 3 error(s))" in unmeasured(report(None, 0, 3))
    why = unmeasured(report(None, 0, warnings=[{"code": "unknown_qrel_document", "count": 429, "message": "",
                                                "examples": []}]))
    assert why.endswith("warnings: unknown_qrel_document ×429")
    assert unmeasured(report(0.5, 3, main="faithfulness")) is not None  # a main metric it did not report


def test_a_folder_is_checked_by_creating_one_and_nothing_is_left(tmp_path):
    check_writable_folder(tmp_path / "new" / "deeper", "--output-dir")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(BenchError, match=r"^--output-dir: .*/file/run cannot hold a folder: .*/file is not a folder"):
        check_writable_folder(tmp_path / "file" / "run", "--output-dir")
    with pytest.raises(BenchError, match=r"^--data-dir: .*/file is not a folder$"):
        check_writable_folder(tmp_path / "file", "--data-dir")
    with pytest.raises(BenchError, match=r"^--reports-dir: /proc/r: cannot create a folder in /proc"):
        check_writable_folder(Path("/proc/r"), "--reports-dir")


def test_an_unknown_setting_names_the_closest_ones(tmp_path):
    assert unknown_setting("llm_modle") == "unknown setting (did you mean llm_model or llm_models or local_model?)"
    assert "known: bootstrap_resamples" in unknown_setting("zzzz")
    config = tmp_path / "bench.toml"
    config.write_text("top_kk = 5\n")
    with pytest.raises(BenchError, match=r"key 'top_kk': unknown setting \(did you mean top_k"):
        load_settings(config_file=config, environ={})


def with_bom(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    for path in target.iterdir():
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return target


@pytest.mark.parametrize("name", ["synthetic", "synthetic-ru"])
def test_the_shipped_datasets_saved_with_a_bom_load_the_same(tmp_path, name):
    folder = with_bom(SHIPPED / name, tmp_path / name)
    plain, bom = load_dataset(str(SHIPPED / name)), load_dataset(str(folder))
    assert bom.questions == plain.questions and bom.chunks == plain.chunks
    assert bom.content_sha256 != plain.content_sha256  # hashed on the bytes as read
    settings = load_settings(environ={})[0]
    for load in (load_show_input, load_pairs_input):
        assert load(str(folder), settings).items == load(str(SHIPPED / name), settings).items


def test_a_samples_csv_and_bench_toml_with_a_bom(tmp_path):
    csv = tmp_path / "samples.csv"
    csv.write_bytes(b"\xef\xbb\xbfuser_input,response,retrieved_contexts\nWho?,Me.,\"[\"\"ctx\"\"]\"\n")
    (sample,) = load_samples(csv)
    assert sample.user_input == "Who?" and sample.retrieved_contexts == ("ctx",)
    config = tmp_path / "bench.toml"
    config.write_bytes(b"\xef\xbb\xbftop_k = 20\n")
    assert load_settings(config_file=config, environ={})[0].top_k == 20
