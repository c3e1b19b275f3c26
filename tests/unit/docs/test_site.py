"""The documentation site (mkdocs.yml, docs/) builds without a warning, its generated reference pages cover every
setting and every command, and its Python examples are run or say why not."""

import html
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import typer.main

from benchmarks.cli import app
from benchmarks.config import SETTING_FIELDS

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
# a ```sh or ```python block, indented or not (inside a list), up to its closing fence at the same indentation
BLOCK = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>sh|python)[ \t]*\n(?P<code>.*?)^(?P=indent)```[ \t]*$",
                   re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!-- not run: \S.*-->")


def page_text(site: Path, page: str) -> str:
    """A built page's text, tags stripped."""
    return html.unescape(re.sub(r"<[^>]+>", "", (site / page / "index.html").read_text(encoding="utf-8")))


def command_paths() -> list[str]:
    found = []

    def walk(group, path):
        for name, command in group.commands.items():
            found.append(" ".join((*path, name)))
            if hasattr(command, "commands"):
                walk(command, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `mkdocs build --strict` writes it: any warning (a broken link or anchor, a page left out of
    the nav, a docstring mkdocstrings cannot read) fails the build."""
    site = tmp_path_factory.mktemp("docs") / "site"
    environ = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
                           capture_output=True, text=True, env=environ, timeout=120)
    assert built.returncode == 0, built.stderr[-4000:]
    return site


def test_the_site_builds_strictly_and_its_reference_names_every_setting_and_command(site):

    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    missing = [name for name in SETTING_FIELDS
               if f'id="{name.replace("_", "-")}"' not in settings or f"<code>{name}</code>" not in settings]
    assert not missing, f"the settings reference lacks {missing}"

    cli = page_text(site, "reference/cli")
    paths = command_paths()
    assert {"tier0", "tier1", "evaluate", "compare", "db upgrade"} <= set(paths)
    missing = [path for path in paths if f"Usage: bench {path} " not in cli]
    assert not missing, f"the CLI reference lacks the help of {missing}"

    metrics = page_text(site, "reference/judged-metrics")
    assert "faithfulness" in metrics and "context_relevance" in metrics
    schema = page_text(site, "reference/report-schema")
    assert "MetricEntry" in schema and "The tier's version: it changes when the tier's numbers would." in schema
    assert "bench.evaluate" in page_text(site, "api") or "benchmarks.evaluate" in page_text(site, "api")


def blocks(text: str) -> list[tuple[str, str, str]]:
    """Each ```sh / ```python block: its language, its code (dedented) and the line just above it."""
    found = []
    for m in BLOCK.finditer(text):
        above = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        found.append((m["lang"], textwrap.dedent(m["code"]), above))
    return found


def test_blocks_finds_indented_and_marked_blocks():
    text = "x\n<!-- not run: needs a server -->\n```sh\nbench tier1\n```\n- item\n\n  ```python\n  print(1)\n  ```\n"
    assert blocks(text) == [("sh", "bench tier1\n", "<!-- not run: needs a server -->"),
                            ("python", "print(1)\n", "- item")]


def test_every_python_example_is_run_or_says_why_not():
    """A ```python block of the docs or the README is run by tests/integration/test_doc_examples.py (the
    `<!-- checked: ... -->` comment above it; that test reads docs/api.md) or says why not (`<!-- not run:
    reason -->`). The ```sh blocks' bench command lines are checked against the commands' options by
    tests/unit/test_cli.py."""
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    unchecked = []
    for page in pages:
        for lang, code, above in blocks(page.read_text(encoding="utf-8")):
            checked = above.startswith("<!-- checked:") and page == DOCS / "api.md"
            if lang == "python" and not checked and not NOT_RUN.fullmatch(above):
                unchecked.append(f"{page.relative_to(ROOT)}: {code.splitlines()[0] if code else ''!r}")
    assert not unchecked, "a Python example is neither run nor marked <!-- not run: reason -->: " + "; ".join(
        unchecked)


def test_the_docs_pages_the_code_cites_exist_with_their_anchors(site):
    """Comments and docstrings in benchmarks/ point at the page that explains them (`docs/metrics.md#ux`)."""
    cited = set()
    for source in (ROOT / "benchmarks").rglob("*.py"):
        cited |= set(re.findall(r"docs/([\w/-]+)\.md(?:#([\w-]+))?", source.read_text(encoding="utf-8")))
    assert cited, "no docs page is cited in benchmarks/"
    broken = []
    for page, anchor in sorted(cited):
        built = site / ("" if page == "index" else page) / "index.html"
        if not built.exists() or (anchor and f'id="{anchor}"' not in built.read_text(encoding="utf-8")):
            broken.append(f"docs/{page}.md{'#' + anchor if anchor else ''}")
    assert not broken, f"benchmarks/ cites docs pages or anchors the site does not have: {broken}"


def test_the_cli_references_command_summaries_are_whole_sentences():
    """Each summary is its command's help up to the end of a sentence, however the docstring wraps it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("reference_hook", DOCS / "hooks" / "reference.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    command = typer.main.get_command(app)
    wrapped = 0
    for path in command_paths():
        found = command
        for name in path.split():
            found = found.commands[name]
        help_text = " ".join(found.help.split())
        summary = hook.summary(tuple(path.split()))
        assert summary[-1] in ".!?" and help_text.startswith(summary), (path, summary)
        wrapped += summary not in found.help  # the docstring broke it over lines
    assert wrapped, "no command's first sentence runs over a line: the case this test is for is not exercised"
