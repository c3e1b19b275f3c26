"""The report of a run: how a tier's result becomes one (`build`), and report.md (`markdown`). report.json is the
dump of its model (`benchmarks.report_model`); every reader, in bench or out of it, reads the model.

Importing this package imports pydantic: the CLI's startup path (`bench --help`) must not.
"""

from benchmarks.report.build import (
    DIGITS,
    ENVIRONMENT_KEYS,
    LOCAL_SETTINGS,
    build,
    document,
    dumps,
    normalise,
    render_files,
)
from benchmarks.report.markdown import render

__all__ = [
    "DIGITS",
    "ENVIRONMENT_KEYS",
    "LOCAL_SETTINGS",
    "build",
    "document",
    "dumps",
    "normalise",
    "render",
    "render_files",
]
