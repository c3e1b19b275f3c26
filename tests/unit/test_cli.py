"""The command line is built from the tiers' declarations: every report command is a tier, every flag a
setting the tier reads, secrets never flags, and showing help imports nothing heavy."""

import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.config import SETTING_FIELDS, ScopedSettings, Settings
from benchmarks.options import flags_of
from benchmarks.tiers import TIERS


def test_every_tier_declares_known_settings_and_an_input():
    for tier in TIERS.values():
        assert tier.input.help and tier.reads, tier.name
        unknown = [name for name in tier.reads if name not in SETTING_FIELDS]
        assert not unknown, f"{tier.name} reads unknown settings {unknown}"
        assert set(tier.flags) <= set(tier.reads), tier.name


def test_a_tier_and_its_input_kind_read_the_same_set():
    """A tier's declaration and its input kind are each generic in the set read (mypy holds every entry point and
    loader to it); at run time, the set a tier's run and check_inputs take is the one its input kind loads."""
    import typing

    from benchmarks.tiers.base import InputKind, Tier

    def read(declared: type, generic: type) -> object:
        base = next(b for b in declared.__orig_bases__ if typing.get_origin(b) is generic)
        return typing.get_args(base)[0]

    for tier in TIERS.values():
        assert read(type(tier), Tier) == read(type(tier.input), InputKind), tier.name


def test_secrets_and_tables_are_never_flags():
    for tier in TIERS.values():
        names = {flag.setting for flag in flags_of(tier.reads, tier.flags)}
        assert not names & {"llm_api_key", "embedding_api_key", "database_url", "logs_database_url",
                            "generator_http_api_key", "show_judge_http_api_key", "llm_prices", "embedding_models"}


def test_every_tier_is_a_command():
    commands = {c.name for c in app.registered_commands}
    assert {name for name in TIERS if name != "judge-pairwise"} <= commands  # judge --pairwise runs that one


def test_help_imports_neither_torch_nor_the_database():
    code = ("import sys; from typer.testing import CliRunner; from benchmarks.cli import app; "
            "assert CliRunner().invoke(app, ['tier1', '--help']).exit_code == 0; "
            "print(sorted(m for m in ('torch', 'sqlalchemy', 'psycopg', 'numpy', 'openai', 'sentence_transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("arguments, typed", [
    (["tier0", "--dataset", "synthetic", "--k", "-1"], "--k: must be at least 1"),
    (["evaluate", "--dataset", "x.jsonl", "--concurrency", "0"], "--concurrency: must be at least 1"),
    (["judge", "--dataset", "synthetic", "--metric", "nope"], "--metric: expected one of"),
    (["tier3", "--dataset", "synthetic", "--top-k", "0"], "--top-k: must be at least 1"),
    (["ux", "--dataset", "synthetic", "--threshold", "2"], "--threshold: must be a calibrated similarity"),
    (["ux", "--dataset", "synthetic", "--threshold=-0.5"], "--threshold: must be a calibrated similarity"),
    (["evaluate", "--dataset", "x.jsonl", "--threshold", "1.5"], "--threshold: must be a calibrated similarity"),
    (["evaluate", "--dataset", "x.jsonl", "--weights", "heavy"], "--weights: expected one of default"),
])
def test_errors_name_the_flag_as_typed(arguments, typed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 2 and typed in result.output, result.output


def test_a_tier_reading_an_undeclared_setting_fails_at_the_first_read():
    scoped = ScopedSettings(Settings(), ("seed",), "tier t")
    assert scoped.seed == 0
    with pytest.raises(AttributeError, match="tier t reads setting 'hnsw_m' without declaring it"):
        _ = scoped.hnsw_m


def test_a_scoped_view_is_a_settings_that_reads_the_one_it_wraps():
    """Services are typed for Settings and a tier hands them its view: it is one at run time too, and shows or
    copies nothing it was not given (repr names its declared settings; a copy of all of them is an undeclared
    read)."""
    import dataclasses

    scoped = ScopedSettings(Settings(top_k=7), ("top_k",), "tier t")
    assert isinstance(scoped, Settings) and scoped.top_k == 7
    assert repr(scoped) == "ScopedSettings(tier t: top_k)"
    with pytest.raises(AttributeError, match="tier t reads setting 'data_dir' without declaring it"):
        dataclasses.asdict(scoped)


def test_a_tier_publishing_an_undeclared_metric_stops_at_run_time():
    from benchmarks.report_model import Notes, Provenance, Volatile
    from benchmarks.tiers.base import Metric, TierResult, UndeclaredMetric

    tier, settings = TIERS["tier1"], Settings()
    metric = Metric(0.5, 10, 0, None)
    blocks = {"notes": Notes(), "provenance": Provenance(), "volatile": Volatile()}
    tier.require_declared(TierResult(metrics={"ndcg@10": metric, "mrr": metric}, items=[], **blocks), settings)
    with pytest.raises(UndeclaredMetric, match=r"tier tier1 publishes metrics .* not name: \['ndcg@11'\]"):
        tier.require_declared(TierResult(metrics={"ndcg@11": metric}, items=[], **blocks), settings)
    with pytest.raises(UndeclaredMetric, match=r"\['bleu'\]"):
        tier.require_declared(TierResult(metrics={"mrr": metric}, items=[], main_metric="bleu", **blocks), settings)


def test_the_metric_names_in_the_help_are_the_catalogs():
    from benchmarks.judge.catalog import BUILTINS
    from benchmarks.judge.judged_metrics.builtin import names

    assert names() == tuple(BUILTINS)
    result = CliRunner().invoke(app, ["evaluate", "--help"], terminal_width=400)
    assert all(name in result.output for name in BUILTINS) and "rubric" in result.output


def test_every_flag_the_docs_show_exists():
    """The command lines of the README and the docs pages use only options the commands have (they are built
    from declarations)."""
    import re
    from pathlib import Path

    import typer

    group = typer.main.get_command(app)
    root = Path(__file__).resolve().parents[2]
    text = "\n".join(page.read_text(encoding="utf-8") for page in [root / "README.md", *root.glob("docs/**/*.md")])
    unknown = []
    for block in re.findall(r"```(?:sh|text)?\n(.*?)```", text, re.DOTALL):
        for line in block.splitlines():
            found = re.search(r"\bbench ([a-z0-9-]+)(.*)", line.split(" #")[0])
            command = group.commands.get(found.group(1)) if found else None
            if command is None or hasattr(command, "commands"):  # a group (typer bundles its own click)
                continue
            names = {name for param in command.params for name in (*param.opts, *param.secondary_opts)}
            unknown += [(found.group(1), flag) for flag in re.findall(r"(?<![\w-])(--?[a-z0-9][a-z0-9-]*)",
                                                                      found.group(2)) if flag not in names]
    assert not unknown


def _sections(arguments: list[str]) -> list[str]:
    """The headings of a command's --help, rendered wide."""
    result = CliRunner().invoke(app, [*arguments, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if line.endswith(":") and not line.startswith(" ")]


def test_help_lists_the_commands_own_options_first_then_a_panel_per_concern():
    """bench evaluate listed --metrics 37th, after --retrieval-workers: its own options come first now."""
    output = CliRunner().invoke(app, ["evaluate", "--help"], terminal_width=200).output
    assert output.index("--metrics") < output.index("--retrieval-workers")
    assert _sections(["evaluate"]) == ["Options:", "Judge / LLM:", "Metric options:", "Embedder:", "Database:",
                                       "Run & output:"]


@pytest.mark.parametrize("arguments", [[name] for name in typer.main.get_command(app).commands if name != "db"]
                         + [["db", "upgrade"], ["db", "drop-collection"]], ids=" ".join)
def test_every_command_groups_its_options_in_the_same_panel_order(arguments):
    from benchmarks.options import PANELS

    order = ["Arguments:", "Options:", *(f"{panel}:" for panel in PANELS if panel)]
    sections = _sections(arguments)
    assert "Options:" in sections and sections == sorted(sections, key=order.index)
