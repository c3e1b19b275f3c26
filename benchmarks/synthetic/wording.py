"""What a bank file cannot say as text: plural rules, writing a fact value, numbering extra entities.

The banks are data (banks/<language>.toml) so that a maintainer edits wording, not code; the few
rules that compute something live here, under names and keys the data files refer to.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from benchmarks.synthetic.model import Fields

PluralRule = Callable[[int, tuple[str, ...]], str]
ValueFormat = Callable[[object], str]


def _one_other(count: int, forms: tuple[str, ...]) -> str:
    """English agreement with a numeral: `{n:day|days}`."""
    return forms[0] if count == 1 else forms[1]


def _one_few_many(count: int, forms: tuple[str, ...]) -> str:
    """Russian agreement with a numeral: `{n:день|дня|дней}` gives 1 день, 3 дня, 5 дней, 21 день, 12 дней."""
    one, few, many = forms
    n = abs(count)
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


# Named by the forms a template lists, in order, so a bank file's `plural` reads like its templates.
PLURAL_RULES: dict[str, PluralRule] = {"one|other": _one_other, "one|few|many": _one_few_many}


class PluralFormatter(string.Formatter):
    """str.format where a spec with `|` picks the plural form (`{n:day|days}`), any other names a format."""

    def __init__(self, plural: PluralRule, formats: Mapping[str, ValueFormat]) -> None:
        super().__init__()
        self._plural = plural
        self._formats = formats

    def format_field(self, value: object, format_spec: str) -> str:
        if "|" in format_spec:
            count = int(str(value))
            return f"{count} {self._plural(count, tuple(format_spec.split('|')))}"
        if format_spec:
            return self._formats[format_spec](value)
        return str(value)


def word_format(words: tuple[str, ...]) -> ValueFormat:
    """Facts store words as indices, so both languages draw the same numbers and stay parallel."""
    return lambda index: words[int(str(index))]


@dataclass(frozen=True)
class NumberFormat:
    """A `[formats.NAME]` table: fixed `cases` first, then the `otherwise` template over the written number.

    Without `otherwise`, a value outside `cases` raises KeyError, which the judge set treats like
    any value a bank cannot word: it skips that altered answer.
    """

    plural: PluralRule
    cases: Mapping[str, str]
    otherwise: str | None = None
    multiply: int = 1
    thousands: str = ""
    thousands_from: int | None = None
    decimal: str = ""

    def __call__(self, value: object) -> str:
        if str(value) in self.cases:
            return self.cases[str(value)]
        if self.otherwise is None:
            raise KeyError(f"no case for {value!r}")
        return PluralFormatter(self.plural, {}).format(self.otherwise, value=self._written(value))

    def _written(self, value: object) -> str:
        if self.multiply == 1 and not self.thousands:
            return str(value).replace(".", self.decimal) if self.decimal else str(value)
        number = int(str(value)) * self.multiply
        if self.thousands and (self.thousands_from is None or number >= self.thousands_from):
            return f"{number:,}".replace(",", self.thousands)
        return str(number)


@dataclass(frozen=True)
class ExtraEntities:
    """The numbered entities --scale adds: field templates over `{n}` and, if given, row n mod len(rows)."""

    templates: Mapping[str, Fields]
    rows: Mapping[str, tuple[Fields, ...]]

    def __call__(self, family: str, n: int) -> Fields:
        rows = self.rows.get(family, ())
        values = {**(rows[n % len(rows)] if rows else {}), "n": n}
        return {field: template.format_map(values) for field, template in self.templates[family].items()}
