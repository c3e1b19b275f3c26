"""Settings resolved from where they were given: CLI flags (or Python arguments) > environment > bench.toml >
defaults, and for a nightly suite its run's keys above the environment and its top-level keys below.

Every value keeps its origin (`Origins`): reports record the source of each, and a value refused at any
later point is named as the user gave it — the option typed, the Python argument as written, the variable,
the file and key — because whoever refuses it knows only the setting's name.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchmarks.config.coercion import coerce
from benchmarks.config.declare import Needs
from benchmarks.config.settings import SETTING_FIELDS, Settings, env_names, setting_type
from benchmarks.errors import BenchError, SettingError, closest
from benchmarks.toml_file import read_toml

# "suite": a bench nightly suite file; "api": the arguments of the Python API (benchmarks.evaluate, run);
# "detected": told from the input itself (the prompt language of a samples file, `input_language`)
Source = Literal["default", "bench.toml", "env", "suite", "cli", "api", "detected"]
TYPED: tuple[Source, ...] = ("cli", "api")  # given for this one run: a flag, or an argument of the Python API
CONFIG_FILE = "bench.toml"
# BENCH_ variables bench and its tooling read that are no setting: the progress lines' interval (console),
# perf.real_model's model, the golden test's rewrite switch and the viewer test's screenshot folder (make
# screenshots). Any other BENCH_ variable is a typo.
OTHER_VARIABLES = ("BENCH_PROGRESS_INTERVAL_S", "BENCH_REAL_MODEL", "BENCH_UPDATE_GOLDEN", "BENCH_SCREENSHOTS")
_warned_variables: set[str] = set()  # each unknown variable is warned about once a process, not once a run


@dataclass(frozen=True)
class Layer:
    """Values given in one place, each with how a message names it (`names`)."""

    source: Source
    values: Mapping[str, Any]
    names: Mapping[str, str]


class Origins(Mapping[str, Source]):
    """Where each setting's value came from. As a mapping, the source of every setting ("default" when none was
    given), which reports record; `named` says how a given value is named in a message."""

    def __init__(self, given: Mapping[str, tuple[Source, str]] | None = None):
        self._given = dict(given or {})

    def __getitem__(self, name: str) -> Source:
        if name in self._given:
            return self._given[name][0]
        if name in SETTING_FIELDS:
            return "default"
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(SETTING_FIELDS)

    def __len__(self) -> int:
        return len(SETTING_FIELDS)

    def named(self, name: str) -> str:
        """The setting as the user gave it: `--top-k`, `metrics=['x']`, `environment variable
        BENCH_TOP_K`, `bench.toml: key 'top_k'`."""
        return self._given[name][1] if name in self._given else f"setting {name} (default)"

    def typed(self) -> dict[str, str]:
        """The settings given for this run alone (flags, or Python arguments), each as it is named."""
        return {name: shown for name, (source, shown) in self._given.items() if source in TYPED}

    def given(self, name: str, source: Source, named: str) -> Origins:
        """These origins with one value given anew (a language detected from the input)."""
        return Origins({**self._given, name: (source, named)})

    @contextmanager
    def naming(self) -> Iterator[None]:
        """A setting refused inside (SettingError, raised where nobody knows how it was given) is named as the
        user gave it, so one check serves the command line and the Python API."""
        try:
            yield
        except SettingError as exc:
            raise BenchError(f"{self.named(exc.setting)}: {exc.problem}") from None


def load_settings(
    cli: Mapping[str, Any] | None = None,
    *,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, str] | None = None,
    given_by: Source = "cli",
    below_env: Sequence[Layer] = (),
    above_env: Sequence[Layer] = (),
) -> tuple[Settings, Origins]:
    """Resolve every setting and keep where each value came from. `flags` names the option each CLI value was
    typed as (`neighbours` → `--k`), or with `given_by="api"` the Python argument (`metrics=['faithfulness']`);
    `below_env` and `above_env` are further layers (a nightly suite's keys) around the environment."""
    environ = os.environ if environ is None else environ
    warn_unknown_variables(environ, flags or {})
    path = config_file if config_file is not None else Path(CONFIG_FILE)
    from_file = _read_config(path, missing_ok=config_file is None)
    layers = [Layer("bench.toml", from_file, {name: f"{path}: key '{name}'" for name in from_file}),
              *below_env, _environment(environ), *above_env,
              Layer(given_by, {k: v for k, v in (cli or {}).items() if v is not None},
                    {name: _given_as(name, flags or {}) for name in cli or {}})]
    values: dict[str, Any] = {}
    given: dict[str, tuple[Source, str]] = {}
    for layer in layers:
        for name, raw in layer.values.items():
            given[name] = (layer.source, layer.names[name])
            f = SETTING_FIELDS[name]
            values[name] = coerce(setting_type(name), raw, layer.names[name], f.metadata["parse"])
    settings = Settings(**values)
    derived = {name: f.metadata["derive"](settings) for name, f in SETTING_FIELDS.items()
               if f.metadata["derive"] and name not in given}
    settings = dataclasses.replace(settings, **derived) if derived else settings
    origins = Origins(given)
    _validate(settings, origins)
    return settings, origins


def _environment(environ: Mapping[str, str]) -> Layer:
    """The settings set in the environment: for each, the first of its variables that is set and not empty."""
    values, names = {}, {}
    for name, f in SETTING_FIELDS.items():
        variable = next((env for env in env_names(f) if environ.get(env)), None)
        if variable is not None:
            values[name], names[name] = environ[variable], f"environment variable {variable}"
    return Layer("env", values, names)


def _given_as(name: str, flags: Mapping[str, str]) -> str:
    """How a value given for this run is named in a message: the command line's flag as typed (`--k`), the
    Python API's argument as it was written (`metrics=[...]`)."""
    return flags.get(name) or f"--{name.replace('_', '-')}"


def warn_unknown_variables(environ: Mapping[str, str], flags: Mapping[str, str] | None = None) -> None:
    """One line on stderr for each BENCH_ variable that is no setting, naming the closest setting's variable:
    a mistyped variable is otherwise ignored without a word, and the run silently uses another value.

    A variable named after one of the command's flags (`flags`: setting → the flag) means that flag's setting:
    `--judge` written as a variable means judge_backend's, where the closest spelling is judge_mode's."""
    known = [env for f in SETTING_FIELDS.values() for env in env_names(f)]
    by_flag = {_variable_of(flag): env_names(SETTING_FIELDS[name])[0]
               for name, flag in (flags or {}).items() if flag.startswith("--") and name in SETTING_FIELDS}
    for variable in sorted(set(environ) - set(known) - set(OTHER_VARIABLES) - _warned_variables):
        if variable.startswith("BENCH_"):
            _warned_variables.add(variable)
            close = [by_flag[variable]] if variable in by_flag else closest(variable, known, n=1)
            hint = f"did you mean {close[0]}?" if close else "bench COMMAND --help names each setting's variable"
            print(f"warning: environment variable {variable} is no bench setting and is ignored ({hint})",
                  file=sys.stderr)


def _variable_of(flag: str) -> str:
    """The variable a flag's name reads as: `--top-k` → BENCH_ and TOP_K."""
    return "BENCH_" + flag.removeprefix("--").replace("-", "_").upper()


def unknown_setting(name: str) -> str:
    """The message for a key that is no setting: the closest names (a typo, usually) rather than all of
    them; the whole list only when nothing is close."""
    close = closest(name, SETTING_FIELDS)
    if close:
        return f"unknown setting (did you mean {' or '.join(close)}?)"
    return f"unknown setting (known: {', '.join(sorted(SETTING_FIELDS))})"


def refused_key(name: str) -> str | None:
    """Why a settings file may not hold this key (it is no setting, or a secret), or None when it may."""
    if name not in SETTING_FIELDS:
        return unknown_setting(name)
    metadata = SETTING_FIELDS[name].metadata
    if metadata["secret"] and not metadata["url"]:
        return "secrets are read from the environment only"
    return None


def _read_config(path: Path, *, missing_ok: bool) -> dict[str, Any]:
    """bench.toml's settings, each key checked; a missing file the user did not name sets nothing."""
    data = read_toml(path, "config file", missing_ok=missing_ok) or {}
    for name in data:
        problem = refused_key(name)
        if problem is not None:
            raise BenchError(f"{path}: key '{name}': {problem}")
    return data


def _validate(settings: Settings, origins: Origins) -> None:
    """Every setting against the checks declared on its field; then the checks that involve other settings."""
    across = []
    for name, f in SETTING_FIELDS.items():
        value = getattr(settings, name)
        for check in f.metadata["checks"]:
            if isinstance(check, Needs):
                across.append(check)
            elif not check.holds(value):
                raise BenchError(f"{origins.named(name)}: {check.problem}, got {value}")
    for check in across:
        if not check.holds(settings):
            raise BenchError(check.problem)
