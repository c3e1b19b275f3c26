"""Names the user got wrong or gave in some way: the closest known names suggested, and a refused setting
named as it was given (a flag on the command line, an argument in Python, a variable, a bench.toml key)."""

from __future__ import annotations

import pytest

from benchmarks.config import load_settings
from benchmarks.errors import BenchError, SettingError, by_closeness, closest
from benchmarks.runner import settings_named

METRICS = ["faithfulness", "context_precision", "context_recall", "semantic_similarity"]


def test_the_closest_names_are_those_alike_enough_closest_first():
    assert closest("faithfullness", METRICS) == ["faithfulness"]
    assert closest("context_recal", METRICS) == ["context_recall", "context_precision"]
    assert closest("context_recal", METRICS, n=1) == ["context_recall"]
    assert closest("zzz", METRICS) == []  # nothing close: no random suggestion
    assert by_closeness("zzz", METRICS) == METRICS  # all of them, ties in their order
    assert by_closeness("semantic", METRICS)[0] == "semantic_similarity"


def refused_as(sources, typed, error):
    with pytest.raises(BenchError) as raised, settings_named(sources, typed):
        raise error
    return str(raised.value)


def test_a_refused_setting_is_named_as_the_user_gave_it():
    unknown = SettingError("metrics", "unknown metric 'x'")
    assert str(unknown) == "metrics: unknown metric 'x'"  # raised where nobody knows more
    assert refused_as({"metrics": "cli"}, {"metrics": "--metrics"}, unknown) == "--metrics: unknown metric 'x'"
    assert refused_as({"metrics": "api"}, {"metrics": "metrics=['x']"}, unknown) == "metrics=['x']: unknown metric 'x'"
    assert refused_as({"metrics": "env"}, {}, unknown) == "environment variable BENCH_METRICS: unknown metric 'x'"
    assert refused_as({"metrics": "bench.toml"}, {}, unknown) == "bench.toml key metrics: unknown metric 'x'"
    assert refused_as({}, {}, BenchError("not about a setting")) == "not about a setting"


def test_a_value_is_named_as_an_option_on_the_command_line_and_as_written_in_python():
    with pytest.raises(BenchError, match=r"^option --judge: expected one of llm, offline, got 'ofline'$"):
        load_settings({"judge_backend": "ofline"}, environ={}, flags={"judge_backend": "--judge"})
    with pytest.raises(BenchError, match=r"^judge='ofline': expected one of llm, offline, got 'ofline'$"):
        load_settings({"judge_backend": "ofline"}, environ={}, flags={"judge_backend": "judge='ofline'"},
                      given_by="api")
    with pytest.raises(BenchError, match=r"^settings\['top_k'\]: must be at least 1, got 0$"):
        load_settings({"top_k": 0}, environ={}, flags={"top_k": "settings['top_k']"}, given_by="api")
