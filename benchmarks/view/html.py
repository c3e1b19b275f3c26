"""The viewer's page shell and the small pieces every page is made of: escaped text, numbers, intervals, charts.

Every page links the site's own assets by a relative path (`root`), so the site opens from the file system,
from a CI artifact or from any web server's sub-folder, and fetches nothing from the network.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

from benchmarks._version import __version__

PLOTLY_ASSET = "assets/plotly.min.js"


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def number(value: float | int | None, digits: int = 4) -> str:
    """A value as the report's tables print it: four decimals, an int as itself, "—" for none."""
    if value is None:
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return f"{value:.{digits}f}"


def interval(ci: Sequence[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def table(head: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "", sortable: bool = False,
          attrs: str = "") -> str:
    """A table of cells already made HTML; `sortable` lets a click on a heading order its rows (view.js)."""
    heading = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    classes = " ".join(c for c in (cls, "sortable" if sortable else "") if c)
    return (f'<table class="{classes}"{attrs}><thead><tr>{heading}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def chart(figure_id: str, figure: dict[str, Any]) -> str:
    """A plotly chart: the figure as JSON beside its div, drawn by view.js once plotly.js has loaded."""
    data = json.dumps(figure, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return (f'<div class="chart" data-figure="{esc(figure_id)}"></div>'
            f'<script type="application/json" id="{esc(figure_id)}">{data}</script>')


def page(title: str, body: str, *, root: str, crumbs: Sequence[tuple[str, str]] = (), charts: bool = False) -> str:
    """A whole page: `root` is the relative path back to the site's top ("" on the index, "../../" two down);
    `crumbs` are (link, text) pairs above the title, a link relative to this page."""
    trail = " › ".join(f'<a href="{esc(href)}">{esc(text)}</a>' for href, text in crumbs)
    scripts = (f'<script src="{root}{PLOTLY_ASSET}" defer></script>' if charts else "") + \
        f'<script src="{root}assets/view.js" defer></script>'
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)} · bench</title>"
            f'<link rel="stylesheet" href="{root}assets/view.css">{scripts}</head>\n'
            f'<body><header><a class="home" href="{root}index.html">bench</a>'
            f'{f"<nav>{trail}</nav>" if trail else ""}</header>\n<main><h1>{esc(title)}</h1>\n{body}\n</main>\n'
            f"<footer>bench {esc(__version__)} · bench view</footer></body></html>\n")
