"""The docs pages read as whole text: breakage `mkdocs build --strict` lets through (it warns of links and
anchors, not of prose) fails here, so a page cut or pasted by hand does not ship with a stray table row above
its title or a bullet that stops mid-sentence."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s")
COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
# an mkdocstrings directive or an admonition's opening line: markup of a line of its own, no prose
DIRECTIVE = re.compile(r"^\s*(:::|!!!|\?\?\?)\s")
# a table row opens and closes with a pipe; a formula opening a line (`|R ∩ C| / |R|, ...`) is prose
ROW = re.compile(r"^\s*\|.*\|\s*$")
DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s+\S")
# a sentence ends on one of these, maybe inside closing marks: `x.`, "(see x.)", a code span, bold
ENDED = re.compile(r"""[.!?:;][)\]"'`*_»]*$""")
# a line that is no sentence: an image alone (with its attributes), or raw HTML
PICTURE = re.compile(r"^\s*(!\[[^\]]*\]\([^)]*\)(\{[^}]*\})?|<[^>]+>.*)\s*$")
CODE = "```"  # how lines_outside_code marks where a fenced block opens


def lines_outside_code(text: str) -> Iterator[tuple[int, str]]:
    """Each line with its number; a fenced code block as one line `CODE` where it opens and blank lines after,
    since a code line is no prose and no table row."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            yield number, "" if fenced else CODE
            fenced = not fenced
        else:
            yield number, "" if fenced else line


def problems(text: str) -> list[str]:
    """What is broken in a page's Markdown, each as `line N: what`: text above the title, a table row that is
    no table's (no header and delimiter row above it), a paragraph or list item whose last line ends with no
    sentence's end. A paragraph leading into a code block (`prints`, `a log grep finds —`) may end so, since
    the block finishes it."""
    found: list[str] = []
    titled = False
    block: list[tuple[int, str]] = []  # the paragraph or list item being read
    ended: list[tuple[int, str]] = []  # the last one read, judged once what follows it is known
    rows: list[tuple[int, str]] = []  # the table rows being read

    def end_block() -> None:
        if block:
            ended[:] = block
            block.clear()

    def judge_ended(leads_into_code: bool) -> None:
        if ended and not leads_into_code:
            number, last = ended[-1]
            if not ENDED.search(last.rstrip()) and not PICTURE.match(last):
                found.append(f"line {number}: ends mid-sentence: {last.strip()[-60:]!r}")
        ended.clear()

    def end_rows() -> None:
        if rows and (len(rows) < 2 or not DELIMITER.match(rows[1][1])):
            found.append(f"line {rows[0][0]}: a table row outside a table: {rows[0][1].strip()[:60]!r}")
        rows.clear()

    for number, line in lines_outside_code(text):
        if not ROW.match(line):
            end_rows()
        if not line.strip() or COMMENT.match(line):
            end_block()
            continue
        markup = line == CODE or HEADING.match(line) or DIRECTIVE.match(line) or ROW.match(line)
        if markup:
            end_block()
        judge_ended(line == CODE)
        if HEADING.match(line):
            titled = True
        elif not titled:
            found.append(f"line {number}: text before the page's first heading: {line.strip()[:60]!r}")
        elif ROW.match(line):
            rows.append((number, line))
        elif line != CODE and not DIRECTIVE.match(line):
            # a numbered line inside a paragraph ("exit code\n2. The same") goes on the paragraph, as Markdown
            # reads it; it opens an item after a blank line or in a list
            if block and ITEM.match(line) and ITEM.match(block[0][1]):
                end_block()
                judge_ended(False)
            block.append((number, line))
    end_rows()
    end_block()
    judge_ended(False)
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_page_reads_as_whole_text(page):
    assert problems(page.read_text(encoding="utf-8")) == []


def test_it_finds_a_stray_row_above_the_title_a_row_after_a_table_and_a_cut_bullet():
    page = ("| a UTF-8 BOM | accepted | 0 |\n\n# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n\n"
            "- whole.\n- and the API gives the same\n\nA paragraph that ends\n\n## Next\n\nDone.\n")
    assert problems(page) == [
        "line 1: text before the page's first heading: '| a UTF-8 BOM | accepted | 0 |'",
        "line 9: a table row outside a table: '| 3 | 4 |'",
        "line 12: ends mid-sentence: '- and the API gives the same'",
        "line 14: ends mid-sentence: 'A paragraph that ends'"]
    assert problems("# Title\n\nThe last line is cut\nhere, with no end") == [
        "line 4: ends mid-sentence: 'here, with no end'"]


def test_it_reads_what_markdown_reads_as_whole():
    """A lead-in to a code block, a formula opening a line, a number opening a paragraph's line, a table with
    its header, comments, directives and a code block whose lines end anyhow."""
    page = ("<!-- generated -->\n# Title\n\nprints\n\n```text\n0.5 (0.0, 1.0)\n```\n\n"
            "|R ∩ C| / |R|, R and C the sets of\nentities (normalised forms).\n\n"
            "it stops with exit code\n2. The same questions are searched too.\n\n"
            "| a | b |\n|:---|---:|\n| 1 | 2 |\n\n::: benchmarks.evaluate\n\n- a list:\n  - nested item;\n"
            "- `code`.\n- (see [x](y.md).)\n\n![The index](../images/index.png)\n\n"
            "![A run](run.png){ width=600 }\n\n<div class=\"grid\"></div>\n")
    assert problems(page) == []
