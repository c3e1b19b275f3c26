"""Shapes shared by the skeleton, the language banks, the generator and the judge sets built from its pages.

The skeleton (language-neutral) and the banks (wording) are kept apart so that the
English and Russian datasets stay parallel: a bank can only reword what the skeleton
defines, it cannot add or drop a page, a section or a fact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from random import Random

Facts = dict[str, object]
FactsFn = Callable[[Random, int, str], Facts]
Fields = Mapping[str, str]
Values = Mapping[str, object]  # what a template is filled with: an entity's fields and its facts (numbers too)
Record = dict[str, object]  # one JSON line of a dataset file


def relevance(question: Record) -> dict[str, int]:
    """A question's graded chunks, chunk id to grade: a record's values are any JSON, this one an object."""
    relevant = question["relevant"]
    assert isinstance(relevant, dict)
    return relevant


class BankMismatch(ValueError):
    """A bank file that is unreadable or does not word exactly the skeleton; the message names its key."""


@dataclass(frozen=True)
class Section:
    """One chunk of a page.

    `context` names a sibling section that a question about this one also partly
    needs; such questions get graded relevance (2 for this chunk, 1 for the sibling).
    """

    key: str
    context: str | None = None


@dataclass(frozen=True)
class Family:
    """A page template instantiated once per entity.

    Instances share their wording and differ only in the entity and its facts, which
    makes every instance a hard distractor for its siblings.
    """

    key: str
    topic: str
    page: str
    slugs: tuple[str, ...]
    sections: tuple[Section, ...]
    facts: FactsFn
    extra_slug: str = ""

    @property
    def scalable(self) -> bool:
        """Only families whose entities can be numbered ("office 17") grow with --scale."""
        return bool(self.extra_slug)


@dataclass(frozen=True)
class Page:
    """A one-off page whose text is written out in full in each bank."""

    key: str
    topic: str
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class SectionText:
    """Wording of one section; `{name}` placeholders are filled from entity fields and facts."""

    heading: str
    text: str
    answer: str
    questions: tuple[str, ...]
    paraphrases: tuple[str, ...]


@dataclass(frozen=True)
class FamilyText:
    title: str
    entities: tuple[Fields, ...]
    sections: Mapping[str, SectionText]


@dataclass(frozen=True)
class PageText:
    title: str
    sections: Mapping[str, SectionText]


@dataclass(frozen=True)
class Bank:
    """Everything language-specific about one dataset.

    `formats` renders neutral fact values (an index into a list of people, an amount of
    money) in the bank's language; `vocabularies` exposes the lists behind them so the
    generator can check both banks index the same number of items. `unsupported_claims`
    are policy-sounding sentences that no page states; the judge set appends one to a
    correct answer, and both banks list them in the same order so the languages stay parallel.
    """

    language: str
    name: str
    description: str
    no_answer: str
    plural: Callable[[int, tuple[str, ...]], str]
    formats: Mapping[str, Callable[[object], str]]
    vocabularies: Mapping[str, tuple[str, ...]]
    families: Mapping[str, FamilyText]
    pages: Mapping[str, PageText]
    extra_entity: Callable[[str, int], Fields]
    unanswerable: tuple[str, ...]
    unsupported_claims: tuple[str, ...]


@dataclass(frozen=True)
class RenderedSection:
    """One chunk with what rendered it; `fact_keys` marks which `values` are skeleton facts.

    The judge set alters only facts, never the bank's entity wording, so a changed
    value is a number or an index both languages render grammatically.
    """

    chunk_id: str
    context_id: str | None
    texts: SectionText
    values: Values
    fact_keys: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RenderedPage:
    topic: str
    url: str
    title: str
    sections: tuple[RenderedSection, ...]
