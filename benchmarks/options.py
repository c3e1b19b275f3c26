"""Command-line options built from declarations: a tier's settings become its command's flags.

Every option of a tier command is a setting the tier reads (`Tier.reads`), named `--setting-name`
unless the tier names it otherwise (`Tier.flags`: `neighbours` is `--k` in tier 0), with the
setting's own help text. Secrets and tables are not flags: a password in a flag is visible to every
user in `ps`, and tables are written in bench.toml or as JSON in the environment.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional

import typer

from benchmarks.config import SETTING_FIELDS, help_for, setting_type

LOCAL = ("data_dir", "reports_dir")  # every command that reads settings takes these
# flags every command spells the same way, unless the tier names the setting otherwise
COMMON_FLAGS: Mapping[str, tuple[str, ...]] = {"llm_concurrency": ("--concurrency",), "llm_models": ("--models",),
                                               "llm_cache": ("--cache/--no-cache",)}


@dataclass(frozen=True)
class Flag:
    """One option of a command: the setting it sets and how it is typed."""

    setting: str
    names: tuple[str, ...]
    kind: type

    @property
    def typed_as(self) -> str:
        """The name an error quotes: the long flag (of a --x/--no-x pair, the one that changes the default)."""
        long = self.names[0]
        return long.split("/")[-1] if "/" in long else long

    def parameter(self) -> inspect.Parameter:
        option = typer.Option(None, *self.names, help=help_for(self.setting), show_default=False)
        return inspect.Parameter(self.setting, inspect.Parameter.KEYWORD_ONLY, default=option,
                                 annotation=Optional[self.kind])  # typer reads the annotation object


def flags_of(reads: tuple[str, ...], renamed: Mapping[str, tuple[str, ...]]) -> list[Flag]:
    """The flags of a command whose run reads these settings, in the order the tier declared them."""
    found = []
    for name in dict.fromkeys((*reads, *LOCAL)):
        kind = flag_type(name)
        if kind is not None:
            found.append(Flag(name, renamed.get(name) or COMMON_FLAGS.get(name) or (f"--{name.replace('_', '-')}",),
                              kind))
    return found


def flag_type(name: str) -> type | None:
    """How a setting is typed on the command line; None when it is not a flag (a secret, or a table)."""
    f = SETTING_FIELDS[name]
    if f.metadata["secret"]:
        return None
    hint = setting_type(name)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    if typing.get_origin(hint) is Literal:
        return str
    if typing.get_origin(hint) is tuple:
        return str  # comma-separated, as in the environment
    if hint in (int, float, str, bool, Path):
        return hint  # type: ignore[no-any-return]
    return None


def command(name_of_run: str, parameters: list[inspect.Parameter], body: Callable[..., None],
            doc: str) -> Callable[..., None]:
    """A function typer reads as a command with these parameters, calling `body(**values)`."""

    def run(**values: Any) -> None:
        body(**values)

    run.__name__ = name_of_run.replace("-", "_")
    run.__doc__ = doc
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


def option(name: str, kind: Any, *flags: str, help: str, default: Any = None) -> inspect.Parameter:
    """A parameter that is not a setting (the input, the output folder, --resume, --dry-run)."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind,
                             default=typer.Option(default, *flags, help=help, show_default=False))
