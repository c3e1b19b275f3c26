"""The documentation's Python examples (docs/api.md) print what the page shows, so the numbers there cannot
drift from the code.

An example is a ```python block after a `<!-- checked: ... -->` comment, and what it prints is the ```text
block after it. The blocks run in the page's order in one namespace, as cells of a notebook would (a later
example uses an earlier one's `result`); they are offline (the offline judge, the default embedder, the
embedded PostgreSQL). A shown number is checked to the precision shown, or within `ACROSS_MACHINES` of it: the
default embedder's vectors differ in their last digits from one CPU to another (docs/operations.md, "Numbers
across machines"), and a calibrated similarity magnifies a cosine's difference about fourfold (1 / (1 − its baseline
of ~0.76)); a run id stands for any run id, and everything else must be printed exactly (trailing spaces
aside)."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
EXAMPLE = re.compile(r"^<!-- checked: [^\n]*-->\n```python\n(?P<code>.*?)^```\n(?:(?!```).)*?^```text\n"
                     r"(?P<shown>.*?)^```$", re.DOTALL | re.MULTILINE)
RUN_ID = r"\d{8}T\d{6}Z-[0-9a-f]{6}"  # reports.new_run_id: a timestamp and a random suffix
SHOWN = re.compile(rf"(?P<run_id>{RUN_ID})|(?P<number>-?\d+\.\d+)")
PRINTED_NUMBER = r"(-?\d+(?:\.\d+)?(?:e-?\d+)?)"
ACROSS_MACHINES = 0.005  # seen: 0.578158 on one machine, 0.574925 on another, for one semantic similarity


def examples() -> list[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    found = [(m["code"], m["shown"]) for m in EXAMPLE.finditer(text)]
    assert found, "docs/api.md has no checked example"
    assert len(found) == text.count("<!-- checked: "), "a checked comment without a python and a text block"
    assert len(found) == text.count("\nprints\n"), "an example showing what it prints is not marked as checked"
    return found


def shown_as_pattern(line: str) -> tuple[re.Pattern[str], list[str]]:
    """A shown line as a pattern of the printed one, and its numbers to compare at their precision."""
    parts, numbers, at = [], [], 0
    for token in SHOWN.finditer(line):
        parts.append(re.escape(line[at:token.start()]))
        if token["run_id"]:
            parts.append(RUN_ID)
        else:
            parts.append(PRINTED_NUMBER)
            numbers.append(token["number"])
        at = token.end()
    parts.append(re.escape(line[at:]))
    return re.compile("".join(parts)), numbers


def assert_prints_as_shown(printed: str, shown: str, code: str) -> None:
    printed_lines = [line.rstrip() for line in printed.splitlines()]
    shown_lines = shown.splitlines()
    assert len(printed_lines) == len(shown_lines), f"{code}\nprinted:\n{printed}\npage shows:\n{shown}"
    for printed_line, shown_line in zip(printed_lines, shown_lines, strict=True):
        pattern, numbers = shown_as_pattern(shown_line)
        found = pattern.fullmatch(printed_line)
        assert found, f"printed {printed_line!r} where the page shows {shown_line!r}"
        for number, value in zip(numbers, found.groups(), strict=True):
            decimals = len(number.split(".")[1])
            assert round(float(value), decimals) == float(number) or abs(float(value) - float(number)) <= (
                ACROSS_MACHINES), (
                f"printed {value} where the page shows {number} (in {shown_line!r})")


def test_the_shown_comparison_is_strict_where_it_should_be():
    assert_prints_as_shown("0.906248 reports/synthetic/tier1/20260101T000000Z-abcdef\n",
                           "0.906248 reports/synthetic/tier1/20261125T225057Z-9eca3e\n", "")
    assert_prints_as_shown("bowl 1.0 ok \n(0.889531, 0.92)\n", "bowl 1.0 ok\n(0.8895, 0.9)\n", "")
    for printed, shown in [("0.8967\n", "0.61478\n"), ("0.9061\n", "0.88658\n"), ("0.57\n", "0.578158\n"),
                           ("bowl ok\n", "tower ok\n"), ("1.0\n2.0\n", "1.0\n")]:
        with pytest.raises(AssertionError):
            assert_prints_as_shown(printed, shown, "")


def test_the_python_examples_print_what_the_page_shows(capsys, monkeypatch):
    monkeypatch.delenv("BENCH_REPORTS_DIR")  # the default, ./reports, as the page shows the run folder
    namespace = {"__name__": "readme"}
    for code, shown in examples():
        exec(compile(code, f"{PAGE}: checked example", "exec"), namespace)  # noqa: S102 (our docs)
        assert_prints_as_shown(capsys.readouterr().out, shown, code)
