"""The viewer's charts as plotly figure specifications: plain dicts the page hands to plotly.js as JSON.

They are written as data rather than built with plotly's Python figure classes: a hundred run pages validate
nothing twice, and a million items reach a chart as twenty bin counts, not a million points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

BINS = 20
HEIGHT = 230
_MARGIN = {"l": 48, "r": 12, "t": 36, "b": 40}
_COLOURS = ("#4363d8", "#e6194b", "#3cb44b", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324")

Figure = dict[str, Any]


def distribution(name: str, values: Sequence[float]) -> Figure:
    """A metric's per-item values in BINS bins: over 0–1 when they all lie there (most metrics), else their range."""
    data = np.asarray(values, dtype=np.float64)
    low, high = (0.0, 1.0) if data.min() >= 0.0 and data.max() <= 1.0 else (float(data.min()), float(data.max()))
    if high == low:
        high = low + 1.0
    counts, edges = np.histogram(data, bins=BINS, range=(low, high))
    width = (high - low) / BINS
    return {
        "data": [{"type": "bar", "x": [round(float(e) + width / 2, 6) for e in edges[:-1]],
                  "y": [int(c) for c in counts], "width": width * 0.95, "marker": {"color": _COLOURS[0]},
                  "hovertemplate": "%{y} items near %{x}<extra></extra>"}],
        "layout": _layout(f"{name} ({len(data)} items)", x_title="value", y_title="items"),
    }


def trends(series: dict[str, list[tuple[str, float | None, str]]]) -> Figure:
    """The main metric of each tier and dataset over time, one line each: (started_at, value, run id) points; a
    run without a value leaves a gap rather than a made-up point."""
    traces = []
    for number, (label, points) in enumerate(sorted(series.items())):
        traces.append({"type": "scatter", "mode": "lines+markers", "name": label,
                       "x": [p[0] for p in points], "y": [p[1] for p in points], "text": [p[2] for p in points],
                       "line": {"color": _COLOURS[number % len(_COLOURS)]},
                       "hovertemplate": "%{text}<br>%{x}<br>%{y:.4f}<extra>" + label + "</extra>"})
    layout = _layout("main metric by run", x_title="started", y_title="value")
    layout.update(height=320, showlegend=True, legend={"orientation": "h", "y": -0.25})
    return {"data": traces, "layout": layout}


def paired(metric: str, base: Sequence[float], candidate: Sequence[float], ids: Sequence[str]) -> Figure:
    """Each item both runs scored on a metric, base against candidate: off the diagonal is what changed."""
    values = [*base, *candidate]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    return {
        "data": [{"type": "scatter", "mode": "lines", "x": [low, high], "y": [low, high], "hoverinfo": "skip",
                  "line": {"color": "#aaaaaa", "dash": "dot"}, "showlegend": False},
                 {"type": "scatter", "mode": "markers", "x": list(base), "y": list(candidate), "text": list(ids),
                  "marker": {"color": _COLOURS[0], "size": 7, "opacity": 0.6}, "showlegend": False,
                  "hovertemplate": "%{text}<br>base %{x:.4f}<br>candidate %{y:.4f}<extra></extra>"}],
        "layout": {**_layout(f"{metric} per item ({len(ids)} paired)", x_title="base", y_title="candidate"),
                   "height": 360},
    }


def _layout(title: str, *, x_title: str, y_title: str) -> dict[str, Any]:
    return {"title": {"text": title, "font": {"size": 13}}, "height": HEIGHT, "margin": dict(_MARGIN),
            "xaxis": {"title": {"text": x_title}}, "yaxis": {"title": {"text": y_title}, "rangemode": "tozero"},
            "paper_bgcolor": "#ffffff", "plot_bgcolor": "#f7f7f9", "showlegend": False}
