"""Names the user got wrong or gave in some way: the closest known names suggested, a refused setting named
as it was given (a flag on the command line, an argument in Python, a variable, a bench.toml key), and a
BENCH_ variable that is no setting warned about instead of silently ignored."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks import config
from benchmarks.cli import app
from benchmarks.config import OTHER_VARIABLES, SETTING_FIELDS, Origins, env_names, load_settings
from benchmarks.errors import BenchError, SettingError, by_closeness, closest

ROOT = Path(__file__).resolve().parents[3]
METRICS = ["faithfulness", "context_precision", "context_recall", "semantic_similarity"]


def test_the_closest_names_are_those_alike_enough_closest_first():
    assert closest("faithfullness", METRICS) == ["faithfulness"]
    assert closest("context_recal", METRICS) == ["context_recall", "context_precision"]
    assert closest("context_recal", METRICS, n=1) == ["context_recall"]
    assert closest("zzz", METRICS) == []  # nothing close: no random suggestion
    assert by_closeness("zzz", METRICS) == METRICS  # all of them, ties in their order
    assert by_closeness("semantic", METRICS)[0] == "semantic_similarity"


def refused_as(origins, error):
    with pytest.raises(BenchError) as raised, origins.naming():
        raise error
    return str(raised.value)


def test_a_refused_setting_is_named_as_the_user_gave_it(tmp_path):
    unknown = SettingError("metrics", "unknown metric 'x'")
    assert str(unknown) == "metrics: unknown metric 'x'"  # raised where nobody knows more
    typed = load_settings({"metrics": "x"}, environ={}, flags={"metrics": "--metrics"})[1]
    assert refused_as(typed, unknown) == "--metrics: unknown metric 'x'"
    argument = load_settings({"metrics": ("x",)}, environ={}, flags={"metrics": "metrics=['x']"}, given_by="api")[1]
    assert refused_as(argument, unknown) == "metrics=['x']: unknown metric 'x'"
    variable = load_settings(environ={"BENCH_METRICS": "x"})[1]
    assert refused_as(variable, unknown) == "environment variable BENCH_METRICS: unknown metric 'x'"
    (tmp_path / "bench.toml").write_text('metrics = ["x"]\n', encoding="utf-8")
    in_file = load_settings(config_file=tmp_path / "bench.toml", environ={})[1]
    assert refused_as(in_file, unknown) == f"{tmp_path / 'bench.toml'}: key 'metrics': unknown metric 'x'"
    assert refused_as(Origins(), unknown) == "setting metrics (default): unknown metric 'x'"
    assert refused_as(Origins(), BenchError("not about a setting")) == "not about a setting"


def test_a_value_is_named_as_an_option_on_the_command_line_and_as_written_in_python():
    with pytest.raises(BenchError, match=r"^--judge: expected one of llm, local, offline, got 'ofline'; did you "
                                         r"mean --judge offline\?$"):
        load_settings({"judge_backend": "ofline"}, environ={}, flags={"judge_backend": "--judge"})
    with pytest.raises(BenchError, match=r"^judge='ofline': expected one of llm, local, offline, got 'ofline'; did "
                                         r"you mean 'offline'\?$"):
        load_settings({"judge_backend": "ofline"}, environ={}, flags={"judge_backend": "judge='ofline'"},
                      given_by="api")
    with pytest.raises(BenchError, match=r"^--judge: expected one of llm, local, offline, got 'gpt'$"):  # none close
        load_settings({"judge_backend": "gpt"}, environ={}, flags={"judge_backend": "--judge"})


def test_a_mistyped_judge_on_the_command_line_is_one_line_with_the_option_to_type_before_any_work(monkeypatch,
                                                                                                 tmp_path):
    monkeypatch.setenv("BENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"question": "Who wrote Hamlet?", "answer": "Marlowe.", "contexts": ["By Shakespeare."]}\n')
    result = CliRunner().invoke(app, ["evaluate", "--dataset", str(samples), "--metrics", "faithfulness",
                                      "--judge", "ofline"])
    assert result.exit_code == 2
    assert result.stderr == ("error: --judge: expected one of llm, local, offline, got 'ofline'; did you mean "
                             "--judge offline?\n")
    assert not (tmp_path / "data").exists() and not (tmp_path / "reports").exists()  # nothing started, nothing written
    with pytest.raises(BenchError, match=r"^settings\['top_k'\]: must be at least 1, got 0$"):
        load_settings({"top_k": 0}, environ={}, flags={"top_k": "settings['top_k']"}, given_by="api")


def warning(variable: str, hint: str) -> str:
    return f"warning: environment variable {variable} is no bench setting and is ignored ({hint})"


@pytest.fixture
def unwarned(monkeypatch):
    """A process that has warned about no variable yet."""
    monkeypatch.setattr(config.loading, "_warned_variables", set())


def test_an_unknown_bench_variable_is_one_warning_naming_the_closest_settings_variable(unwarned, capsys):
    environ = {"BENCH_LLM_MODLE": "judge", "BENCH_LLM_MODEL": "m", "BENCH_PROGRESS_INTERVAL_S": "1",
               "BENCH_QQQQQQQQQQQQQQQ": "1", "OPENAI_API_KEY": "k", "HOME": "/root"}
    settings, _ = load_settings(environ=environ)
    assert settings.llm_model == "m"  # the run goes on, with the variables that are settings
    assert capsys.readouterr().err.splitlines() == [
        warning("BENCH_LLM_MODLE", "did you mean BENCH_LLM_MODEL?"),
        warning("BENCH_QQQQQQQQQQQQQQQ", "bench COMMAND --help names each setting's variable")]
    load_settings(environ=environ)  # a notebook's next call, a nightly suite's next run
    load_settings(environ={**environ, "BENCH_TOPK": "3"})
    assert capsys.readouterr().err.splitlines() == [warning("BENCH_TOPK", "did you mean BENCH_TOP_K?")]


def test_a_variable_named_after_a_flag_suggests_the_flags_setting(unwarned, capsys):
    """BENCH_JUDGE is --judge written as a variable: judge_backend's, not the closest spelling (BENCH_JUDGE_MODE)."""
    load_settings(environ={"BENCH_JUDGE": "offline", "BENCH_K": "3"},
                  flags={"judge_backend": "--judge", "neighbours": "--k"})
    assert capsys.readouterr().err.splitlines() == [warning("BENCH_JUDGE", "did you mean BENCH_JUDGE_BACKEND?"),
                                                    warning("BENCH_K", "did you mean BENCH_NEIGHBOURS?")]


def test_bench_judge_in_the_environment_of_a_command_suggests_bench_judge_backend(unwarned, monkeypatch, tmp_path):
    for variable in [name for name in os.environ if name.startswith("BENCH_")]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("BENCH_JUDGE", "offline")
    monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
    monkeypatch.chdir(tmp_path)
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"question": "Who wrote Hamlet?", "answer": "Marlowe.", "contexts": ["By Shakespeare."]}\n')
    result = CliRunner().invoke(app, ["evaluate", "--dataset", str(samples), "--metrics", "faithfulness",
                                      "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [warning("BENCH_JUDGE", "did you mean BENCH_JUDGE_BACKEND?")]


def test_every_bench_variable_bench_reads_is_a_setting_or_declared_apart(unwarned, capsys):
    """So the warning never names a variable bench itself reads or sets: the code, the perf scripts, the
    Makefile, the deployment and example files (the README names a mistyped one on purpose)."""
    files = [*ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("perf/**/*.py"), *ROOT.glob("*.toml"), ROOT / "Makefile",
             *ROOT.glob("deploy/**/*"), *ROOT.glob("docker-compose*.yml")]
    mentioned = {name for path in files if path.is_file()
                 for name in re.findall(r"\bBENCH_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(encoding="utf-8"))}
    assert {"BENCH_LLM_MODEL", "BENCH_PROGRESS_INTERVAL_S", "BENCH_REAL_MODEL"} <= mentioned  # the scan finds them
    settings_variables = {env for f in SETTING_FIELDS.values() for env in env_names(f)}
    assert mentioned - settings_variables <= set(OTHER_VARIABLES)
    config.warn_unknown_variables(dict.fromkeys(mentioned, "1"))
    assert capsys.readouterr().err == ""
