"""Command-line options built from declarations: a tier's settings become its command's flags.

Every option of a tier command is a setting the tier reads (`Tier.reads`), named `--setting-name`
unless the tier names it otherwise (`Tier.flags`: `neighbours` is `--k` in tier 0), with the
setting's own help text. Secrets and tables are not flags: a password in a flag is visible to every
user in `ps`, and tables are written in bench.toml or as JSON in the environment.

`--help` groups the options by what they affect (typer's rich_help_panel): the command's own first,
then the judge, the metrics' options, the embedder, the database, the run and its output. A setting's
panel follows from its name (`panel_of`), so every command groups a shared setting the same way.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import typer
import typer.core

from benchmarks.config import SETTING_FIELDS, help_for, setting_type

if TYPE_CHECKING:  # typer vendors its own click: its commands get these, not the click package's
    from typer._click import Context, HelpFormatter

JUDGE, METRIC_OPTIONS, EMBEDDER, DATABASE, RUN = "Judge / LLM", "Metric options", "Embedder", "Database", "Run & output"
PANELS: tuple[str | None, ...] = (None, JUDGE, METRIC_OPTIONS, EMBEDDER, DATABASE, RUN)  # None: the command's own
_PANEL_OF: Mapping[str, str] = {
    **dict.fromkeys(("judge_backend", "local_model", "judge_model", "judge_mode", "judge_verdicts", "language"),
                  JUDGE),
    **dict.fromkeys(("relevancy_questions", "similarity_threshold", "correctness_weights", "factual_mode",
                     "factual_beta", "noise_mode", "precision_against", "claim_counting"), METRIC_OPTIONS),
    "similarity_baseline": EMBEDDER,
    **dict.fromkeys(("data_dir", "retrieval_workers", "index", "ef_search", "retrieval_batch_size"), DATABASE),
    **dict.fromkeys(("seed", "bootstrap_resamples", "limit", "pairwise_limit", "reports_dir"), RUN),
}
_PANEL_BY_PREFIX = (("llm_", JUDGE), ("embedding_", EMBEDDER), ("hnsw_", DATABASE))
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
        option = typer.Option(None, *self.names, help=help_for(self.setting), show_default=False,
                              rich_help_panel=panel_of(self.setting))
        return inspect.Parameter(self.setting, inspect.Parameter.KEYWORD_ONLY, default=option,
                                 annotation=self.kind | None)  # typer reads the annotation object


def flags_of(reads: tuple[str, ...], renamed: Mapping[str, tuple[str, ...]]) -> list[Flag]:
    """The flags of a command whose run reads these settings, in the order the tier declared them."""
    found = []
    for name in dict.fromkeys((*reads, *LOCAL)):
        kind = flag_type(name)
        if kind is not None:
            found.append(Flag(name, renamed.get(name) or COMMON_FLAGS.get(name) or (f"--{name.replace('_', '-')}",),
                              kind))
    return found


def panel_of(setting: str) -> str | None:
    """The help panel of a setting's flag: None for a command's own (its input, what it measures)."""
    return _PANEL_OF.get(setting) or next((panel for prefix, panel in _PANEL_BY_PREFIX
                                           if setting.startswith(prefix)), None)


def flag_type(name: str) -> type | None:
    """How a setting is typed on the command line; None when it is not a flag (a secret, or a table)."""
    f = SETTING_FIELDS[name]
    if f.metadata["secret"] or f.metadata["parse"]:  # a table (providers, prices) is written in bench.toml
        return None
    hint = setting_type(name)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    if typing.get_origin(hint) is Literal:
        return str
    if typing.get_origin(hint) is tuple:
        return str  # comma-separated, as in the environment
    return next((plain for plain in (int, float, str, bool, Path) if hint is plain), None)


class PanelledCommand(typer.core.TyperCommand):
    """A command whose plain-text help (bench's: rich_markup_mode=None, so no rich markup reads a help text's
    brackets) shows each rich_help_panel as a section, as typer's rich help would, instead of one list."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {"Arguments": [], "Options": []}  # typer's first two
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                title = "Arguments" if param.param_type_name == "argument" else (
                    getattr(param, "rich_help_panel", None) or "Options")
                sections.setdefault(title, []).append(record)
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def command(name_of_run: str, parameters: list[inspect.Parameter], body: Callable[..., None],
            doc: str) -> Callable[..., None]:
    """A function typer reads as a command with these parameters, calling `body(**values)`; its options in
    the order of their panels (`PANELS`), so help lists the command's own first."""

    def run(**values: Any) -> None:
        body(**values)

    ordered = sorted(parameters, key=lambda p: PANELS.index(p.default.rich_help_panel))
    run.__name__ = name_of_run.replace("-", "_")
    run.__doc__ = doc
    run.__signature__ = inspect.Signature(ordered)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in ordered}
    return run


def option(name: str, kind: Any, *flags: str, help: str, default: Any = None,
           panel: str | None = None) -> inspect.Parameter:
    """A parameter that is not a setting (the input, the output folder, --resume, --dry-run)."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind,
                             default=typer.Option(default, *flags, help=help, show_default=False,
                                                  rich_help_panel=panel))
