"""Read a language bank from its data file, banks/<language>.toml, into the shapes of model.py.

The wording is data so that a maintainer edits text, not code. A mistake in a file is reported
as one line naming the file and the key, before anything is rendered, because a traceback from
deep inside rendering would not say which text to fix. Whether a bank words exactly the skeleton
(counts, section order) is generate.check_bank's job; this module checks what only the file can
get wrong: its keys and types, and the placeholders of its templates.
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Iterator
from pathlib import Path
from random import Random

from benchmarks.synthetic.model import Bank, BankMismatch, Family, FamilyText, Fields, PageText, SectionText
from benchmarks.synthetic.skeleton import FAMILIES
from benchmarks.synthetic.wording import PLURAL_RULES, ExtraEntities, NumberFormat, ValueFormat, word_format

BANKS = Path(__file__).with_name("banks")
TOP_KEYS = (
    "language",
    "name",
    "description",
    "no_answer",
    "plural",
    "unanswerable",
    "unsupported_claims",
    "vocabularies",
    "families",
    "pages",
)
FAMILY_KEYS = ("title", "entities", "sections")
SECTION_TEXTS = ("heading", "text", "answer")
SECTION_LISTS = ("questions", "paraphrases")
NUMBER_KEYS = ("cases", "otherwise", "multiply", "thousands", "thousands_from", "decimal")
SKELETON = {family.key: family for family in FAMILIES}


def bank_path(language: str) -> Path:
    return BANKS / f"{language}.toml"


def shown(path: Path) -> str:
    """The path as a maintainer would type it: relative to the working directory when it is inside."""
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


def read_bank(path: Path) -> Bank:
    """Parse and check one bank file: a missing one raises FileNotFoundError, any other fault BankMismatch."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BankMismatch(f"{shown(path)}: not UTF-8: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BankMismatch(f"{shown(path)}: {_table_at(text, str(exc))}: {exc}") from None
    return _Reader(_Table(path, "", data)).bank()


def _table_at(text: str, problem: str) -> str:
    """The table header above the line tomllib complains about, so a syntax error also names its key."""
    line = re.search(r"at line (\d+)", problem)
    above = text.splitlines()[: int(line.group(1))] if line else text.splitlines()  # else: at the end
    return next((row.split("#")[0].strip() for row in reversed(above) if row.startswith("[")), "top level")


class _Table:
    """One table of the file with the key path that leads to it, so every complaint can name its key."""

    def __init__(self, path: Path, where: str, data: object) -> None:
        self.path = path
        self.where = where
        if not isinstance(data, dict):
            raise self.error("must be a table")
        self.data: dict[str, object] = data

    def at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def error(self, problem: str, where: str | None = None) -> BankMismatch:
        return BankMismatch(f"{shown(self.path)}: {where or self.where or 'top level'}: {problem}")

    def only(self, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
        """Unknown keys are refused so that a misspelt key is not silently ignored."""
        for key in required:
            if key not in self.data:
                raise self.error("missing", self.at(key))
        for key in self.data:
            if key not in required + optional:
                raise self.error(f"unknown key (expected {', '.join(required + optional)})", self.at(key))

    def text(self, key: str) -> str:
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error("must be a string", self.at(key))
        return value

    def number(self, key: str) -> int:
        value = self.data[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error("must be a whole number", self.at(key))
        return value

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.error("must be a list of strings", self.at(key))
        return tuple(value)

    def table(self, key: str) -> _Table:
        return _Table(self.path, self.at(key), self.data[key])

    def tables(self, key: str) -> list[_Table]:
        value = self.data[key]
        if not isinstance(value, list):
            raise self.error("must be a list of tables", self.at(key))
        return [_Table(self.path, f"{self.at(key)}[{n}]", item) for n, item in enumerate(value)]

    def subtables(self) -> Iterator[tuple[str, _Table]]:
        return ((key, self.table(key)) for key in self.data)

    def fields(self) -> Fields:
        """A table of plain strings: an entity's fields, the templates of numbered entities, format cases."""
        return {key: self.text(key) for key in self.data}


class _Reader:
    """Builds the Bank of one file, checking each template once the fields and formats it may use exist."""

    def __init__(self, top: _Table) -> None:
        top.only(TOP_KEYS, ("formats",))
        if top.text("plural") not in PLURAL_RULES:
            raise top.error(f"must be one of {', '.join(PLURAL_RULES)}", "plural")
        self._top = top
        self._plural = PLURAL_RULES[top.text("plural")]
        self._forms = len(top.text("plural").split("|"))
        self._formats: dict[str, ValueFormat] = {}
        self._extra_templates: dict[str, Fields] = {}
        self._extra_rows: dict[str, tuple[Fields, ...]] = {}

    def bank(self) -> Bank:
        top = self._top
        words = top.table("vocabularies")
        vocabularies = {name: words.texts(name) for name in words.data}
        self._formats = {name: word_format(items) for name, items in vocabularies.items()}
        for name, table in top.table("formats").subtables() if "formats" in top.data else ():
            if name in self._formats:
                raise table.error("a vocabulary has this name already")
            self._formats[name] = self._format(table)
        return Bank(
            language=top.text("language"),
            name=top.text("name"),
            description=top.text("description"),
            no_answer=top.text("no_answer"),
            plural=self._plural,
            formats=self._formats,
            vocabularies=vocabularies,
            families={key: self._family(key, table) for key, table in top.table("families").subtables()},
            pages={key: self._page(table) for key, table in top.table("pages").subtables()},
            extra_entity=ExtraEntities(self._extra_templates, self._extra_rows),
            unanswerable=top.texts("unanswerable"),
            unsupported_claims=top.texts("unsupported_claims"),
        )

    def _format(self, table: _Table) -> ValueFormat:
        if "words" in table.data:
            table.only(("words",))
            return word_format(table.texts("words"))
        table.only((), NUMBER_KEYS)
        given = set(table.data)
        if not given & {"cases", "otherwise"}:
            raise table.error("needs words, cases or otherwise")
        if "decimal" in given and given & {"multiply", "thousands"}:
            raise table.error("decimal cannot be combined with multiply or thousands")
        otherwise = table.text("otherwise") if "otherwise" in given else None
        for name, spec in _placeholders(table, "otherwise", otherwise or ""):
            if name != "value" or (spec and "|" not in spec):
                raise table.error(
                    "a format template takes only {value}, with or without plural forms",
                    table.at("otherwise"),
                )
            self._check_spec(table, table.at("otherwise"), name, spec)
        return NumberFormat(
            plural=self._plural,
            cases=table.table("cases").fields() if "cases" in given else {},
            otherwise=otherwise,
            multiply=table.number("multiply") if "multiply" in given else 1,
            thousands=table.text("thousands") if "thousands" in given else "",
            thousands_from=table.number("thousands_from") if "thousands_from" in given else None,
            decimal=table.text("decimal") if "decimal" in given else "",
        )

    def _family(self, key: str, table: _Table) -> FamilyText:
        family = SKELETON.get(key)
        if family is None:  # left for check_bank, which names every family the skeleton lacks
            table.only(FAMILY_KEYS, ("extra", "extra_rows"))
        elif family.scalable:
            table.only(FAMILY_KEYS + ("extra",), ("extra_rows",))
        else:
            table.only(FAMILY_KEYS)
        entities = table.tables("entities")
        wording = FamilyText(
            title=table.text("title"),
            entities=tuple(entity.fields() for entity in entities),
            sections=self._sections(table),
        )
        if family is not None:
            self._check_fields(
                family, table, entities + ([self._extra(key, table)] if family.scalable else [])
            )
        return wording

    def _extra(self, key: str, family: _Table) -> _Table:
        """Records how --scale words this family's numbered entities and returns the table that says so."""
        extra = family.table("extra")
        templates = extra.fields()
        rows = (
            tuple(row.fields() for row in family.tables("extra_rows")) if "extra_rows" in family.data else ()
        )
        for field, template in templates.items():
            for name, spec in _placeholders(extra, field, template):
                if spec or not (name == "n" or (rows and all(name in row for row in rows))):
                    raise extra.error(
                        f"{{{name}}} must be {{n}} or a field of every extra_rows", extra.at(field)
                    )
        self._extra_templates[key] = templates
        if rows:
            self._extra_rows[key] = rows
        return extra

    def _check_fields(self, family: Family, table: _Table, holders: list[_Table]) -> None:
        """Every placeholder must be a fact of the family or a field that every entity has."""
        facts = set(family.facts(Random(0), 0, family.slugs[0]))
        for owner, key, template in _templates(table):
            for name, spec in _placeholders(owner, key, template):
                self._check_spec(owner, owner.at(key), name, spec)
                if name in facts:
                    continue
                lacking = [holder for holder in holders if name not in holder.data]
                if len(lacking) == len(holders):
                    raise owner.error(
                        f"unknown field {name!r}: not a fact of {family.key!r} nor an entity field",
                        owner.at(key),
                    )
                if lacking:
                    raise lacking[0].error(f"no field {name!r}, which {owner.at(key)} uses")

    def _page(self, table: _Table) -> PageText:
        table.only(("title", "sections"))
        wording = PageText(title=table.text("title"), sections=self._sections(table))
        for owner, key, template in _templates(table):
            field = next(_placeholders(owner, key, template), None)
            if field is not None:
                raise owner.error(f"unknown field {field[0]!r}: one-off pages have no fields", owner.at(key))
        return wording

    @staticmethod
    def _sections(owner: _Table) -> dict[str, SectionText]:
        sections = {}
        for key, table in owner.table("sections").subtables():
            table.only(SECTION_TEXTS + SECTION_LISTS)
            heading, text, answer = (table.text(name) for name in SECTION_TEXTS)
            questions, paraphrases = (table.texts(name) for name in SECTION_LISTS)
            sections[key] = SectionText(heading, text, answer, questions, paraphrases)
        return sections

    def _check_spec(self, table: _Table, where: str, name: str, spec: str) -> None:
        if "|" in spec and len(spec.split("|")) != self._forms:
            raise table.error(f"{{{name}:{spec}}} must give {self._forms} plural forms", where)
        if spec and "|" not in spec and spec not in self._formats:
            raise table.error(f"unknown format {spec!r} (not a vocabulary nor in [formats])", where)


def _templates(table: _Table) -> Iterator[tuple[_Table, str, str]]:
    """(table, key, template) for the title and every text of every section below it."""
    yield table, "title", table.text("title")
    for _, section in table.table("sections").subtables():
        for name in SECTION_TEXTS:
            yield section, name, section.text(name)
        for name in SECTION_LISTS:
            for n, template in enumerate(section.texts(name)):
                yield section, f"{name}[{n}]", template


def _placeholders(table: _Table, key: str, template: str) -> Iterator[tuple[str, str]]:
    """(field, spec) of every `{field:spec}` in a template, refusing what str.format would choke on."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise table.error(f"broken placeholder: {exc}", table.at(key)) from None
    for _, name, spec, _ in parsed:
        if name is not None:
            if not name.isidentifier():
                raise table.error(f"{{{name}}} is not a field name", table.at(key))
            yield name, spec or ""
