"""`bench view`: a static site of every run in a reports folder, for a browser (docs/commands/view.md).

runs.py finds the runs; items.py orders a run's items without holding them all; charts.py and html.py make
the pieces; pages.py renders each page; site.py is the only module that reads and writes files; serve.py
serves a built site.
"""

from benchmarks.view.serve import serve as serve_site
from benchmarks.view.site import Built, build

__all__ = ["Built", "build", "serve_site"]
