"""One line of the run index (`<reports_dir>/index.jsonl`), declared once for `bench nightly`, which writes and
reads it, and the viewer, which lists runs from it.

A TypedDict checked by pydantic-core, as an item record is: the line stays the plain JSON object it was, and a
line whose keys or values are not these is refused where it is read. A key marked NotRequired is one that a
line written by an older bench may lack (`entry`, `informational`), or that only a run compared with its
previous run has.
"""

from typing import Literal, NotRequired

from pydantic import ConfigDict, TypeAdapter, with_config
from typing_extensions import TypedDict

Number = int | float  # an int stays an int, as the report had it


@with_config(ConfigDict(extra="forbid", strict=True))
class ComparedVerdict(TypedDict):
    """What the index keeps of `bench compare` against the previous run."""
    verdict: str  # bench compare's: pass, regression or broken run
    metrics: list[str]  # the failing gates, or the primary metrics without a value in a broken run
    markdown: str  # compare.md, relative to the reports folder


@with_config(ConfigDict(extra="forbid", strict=True))
class IndexLine(TypedDict):
    tier: str
    dataset: str
    entry: NotRequired[str]  # the settings of its own [[run]] table (nightly.entry_key); absent: none
    suite: str
    nightly: str  # the night's date, YYYY-MM-DD
    informational: NotRequired[bool]
    run_id: str | None
    started_at: str | None
    content_sha256: str | None
    status: Literal["ok", "failed"]
    error: str | None
    report: str | None  # report.json, relative to the reports folder; None: the run wrote none
    main_metric: str | None
    main_value: Number | None
    metrics: dict[str, Number | None]
    previous_run_id: NotRequired[str | None]
    main_delta: NotRequired[Number | None]
    compare: NotRequired[ComparedVerdict]


INDEX_LINE: TypeAdapter[IndexLine] = TypeAdapter(IndexLine)
