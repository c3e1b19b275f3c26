"""One Settings object for every command, composed of the settings each domain declares.

The names stay flat (`settings.top_k`, `--top-k`, `BENCH_TOP_K`, bench.toml's `top_k`): they are what users
type and what reports and resume identities record. Each domain's module is where its settings are
declared; this module only puts them together and describes them (type, help).
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from benchmarks.config.declare import Range
from benchmarks.config.embedding_settings import EmbeddingSettings
from benchmarks.config.generation_settings import GenerationSettings
from benchmarks.config.geometry_settings import GeometrySettings
from benchmarks.config.judging_settings import JudgingSettings
from benchmarks.config.llm_settings import LLMSettings
from benchmarks.config.provider_settings import ProviderSettings
from benchmarks.config.retrieval_settings import RetrievalSettings
from benchmarks.config.sampling_settings import SamplingSettings
from benchmarks.config.show_judge_settings import ShowJudgeSettings
from benchmarks.config.storage_settings import StorageSettings
from benchmarks.config.user_logs_settings import UserLogsSettings


@dataclass(frozen=True)
class Settings(UserLogsSettings, ShowJudgeSettings, JudgingSettings, GenerationSettings, ProviderSettings,
               LLMSettings, SamplingSettings, GeometrySettings, RetrievalSettings, EmbeddingSettings, StorageSettings):
    """Every setting (the bases are listed last domain first: a dataclass orders fields from its last base)."""


SETTING_FIELDS: dict[str, dataclasses.Field[Any]] = {f.name: f for f in dataclasses.fields(Settings)}


class ScopedSettings(Settings):
    """The settings a tier declared it reads, and no others: reading an undeclared one is a bug of the tier
    (its report and resume identity would not name a setting its numbers depend on), caught at the first read.
    A Settings, so every service typed for Settings takes it as it is, each setting with its type; it holds no
    values of its own but reads those of the Settings it wraps, so it is never built field by field (`replace`
    takes the Settings themselves)."""

    _scope: tuple[Settings, frozenset[str], str]  # the settings wrapped, the names declared, who declared them

    def __init__(self, settings: Settings, names: Iterable[str], owner: str) -> None:
        object.__setattr__(self, "_scope", (settings, frozenset(names), owner))  # frozen: set as a dataclass does

    if not TYPE_CHECKING:  # hidden from mypy, which would otherwise let any attribute name through
        def __getattribute__(self, name: str) -> Any:
            if name not in SETTING_FIELDS:
                return object.__getattribute__(self, name)
            settings, names, owner = object.__getattribute__(self, "_scope")
            if name not in names:
                raise AttributeError(f"{owner} reads setting {name!r} without declaring it in its tier's reads")
            return getattr(settings, name)

    def __repr__(self) -> str:  # the dataclass's would read every setting, the undeclared ones too
        _, names, owner = self._scope
        return f"ScopedSettings({owner}: {', '.join(sorted(names))})"

    # one view is one object: the dataclass's equality and hash would read every setting
    __eq__ = object.__eq__
    __hash__ = object.__hash__


@functools.cache
def _hints() -> dict[str, Any]:
    return typing.get_type_hints(Settings)


def setting_type(name: str) -> Any:
    """A setting's declared type (resolved once: evaluating the annotations is the slow part of building the CLI)."""
    return _hints()[name]


def env_names(f: dataclasses.Field[Any]) -> tuple[str, ...]:
    """The environment variables a setting is read from, first the one messages name."""
    return f.metadata["env"] or (f"BENCH_{f.name.upper()}",)


def help_for(name: str) -> str:
    """The help text of a setting, for the CLI, with its environment variable named."""
    f = SETTING_FIELDS[name]
    hint = setting_type(name)
    choices = f" One of: {', '.join(typing.get_args(hint))}." if typing.get_origin(hint) is Literal else ""
    shown = f.metadata["shown_default"] or f.default
    default = "" if f.metadata["secret"] or shown is None else f"default: {shown}; "
    # the last range declared is the tightest (top_k: at least 1, then at least 10)
    ranges = [check.hint for check in f.metadata["checks"] if isinstance(check, Range)]
    bounds = f" Range: {ranges[-1]}." if ranges else ""
    return f"{f.metadata['help']}{choices}{bounds} [{default}env: {', '.join(env_names(f))}]"
