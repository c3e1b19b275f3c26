"""Render the skeleton through a language bank into bench's dataset files.

Everything that could vary between runs is pinned: randomness comes from
`random.Random` instances seeded with strings, iteration follows the tuples of the
skeleton, and JSON is written with sorted keys, so the output is byte-for-byte
reproducible and the shipped datasets can be checked against a fresh generation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from random import Random

from benchmarks.synthetic.bank_files import bank_path, read_bank, shown
from benchmarks.synthetic.judge_items import judge_pairs, judge_pipeline
from benchmarks.synthetic.model import (
    Bank,
    BankMismatch,
    Family,
    Fields,
    Record,
    RenderedPage,
    RenderedSection,
    Section,
    SectionText,
    Values,
    relevance,
)
from benchmarks.synthetic.skeleton import (
    EXTRA_ENTITIES_PER_SCALE,
    FAMILIES,
    PAGES,
    PARAPHRASE_SHARE,
    SEED,
    TOPICS,
    UNANSWERABLE_TOPICS,
    UNSUPPORTED_CLAIMS,
    VOCABULARY_SIZES,
)
from benchmarks.synthetic.user_logs import real_user_log
from benchmarks.synthetic.wording import PluralFormatter

WIKI = "https://wiki.example.com"
VERSION = "1.0.0"
GENERATOR = "python -m benchmarks.synthetic --out datasets"
LANGUAGES = ("en", "ru")


class _Renderer(PluralFormatter):
    """The bank's templates with its vocabulary: `{n:day|days}` pluralises, `{x:person}` looks up."""

    def __init__(self, bank: Bank) -> None:
        super().__init__(bank.plural, bank.formats)

    def render(self, template: str, values: Values) -> str:
        text = self.vformat(template, (), dict(values))
        if "{" in text or "}" in text:
            raise BankMismatch(f"unrendered placeholder in {text!r}")
        return text


def load_bank(language: str) -> Bank:
    """Read a bank on demand, so generating one language never needs the other's file.

    A missing file raises FileNotFoundError: the bank is not there yet, which callers treat
    differently from a bank that is there but wrong.
    """
    path = bank_path(language)
    bank = read_bank(path)
    if bank.language != language:
        raise BankMismatch(f"{shown(path)}: language: must be {language!r}")
    return bank


def dataset_name(bank: Bank, scale: int) -> str:
    """Larger sets get their own name so a scaled run can never overwrite the shipped one."""
    return bank.name if scale == 1 else f"{bank.name}-x{scale}"


def check_bank(bank: Bank) -> None:
    """Fail early when a bank drifts from the skeleton instead of emitting a skewed dataset."""
    where = shown(bank_path(bank.language))
    for vocabulary, size in VOCABULARY_SIZES.items():
        if len(bank.vocabularies.get(vocabulary, ())) != size:
            raise BankMismatch(
                f"{where}: vocabularies.{vocabulary}: must have {size} items, as facts index vocabulary "
                f"{vocabulary!r} up to {size - 1}"
            )
    for kind, keys, skeleton in (("families", bank.families, FAMILIES), ("pages", bank.pages, PAGES)):
        expected = [item.key for item in skeleton]
        stray = [f"{key}: missing" for key in expected if key not in keys]
        stray += [f"{key}: not in the skeleton" for key in keys if key not in expected]
        if stray:
            raise BankMismatch(f"{where}: {kind}.{stray[0]}")
    for family in FAMILIES:
        wording = bank.families[family.key]
        if len(wording.entities) != len(family.slugs):
            raise BankMismatch(
                f"{where}: families.{family.key}.entities: needs {len(family.slugs)} entities, one for "
                f"each of {', '.join(family.slugs)}"
            )
        _check_sections(where, f"families.{family.key}", family.sections, wording.sections)
    for page in PAGES:
        _check_sections(where, f"pages.{page.key}", page.sections, bank.pages[page.key].sections)
    if len(bank.unanswerable) != len(UNANSWERABLE_TOPICS):
        raise BankMismatch(f"{where}: unanswerable: needs {len(UNANSWERABLE_TOPICS)} unanswerable questions")
    if len(bank.unsupported_claims) != UNSUPPORTED_CLAIMS:
        raise BankMismatch(f"{where}: unsupported_claims: needs {UNSUPPORTED_CLAIMS} unsupported claims")


def _check_sections(
    where: str, owner: str, sections: tuple[Section, ...], wording: Mapping[str, SectionText]
) -> None:
    keys = [s.key for s in sections]
    if keys != list(wording):
        raise BankMismatch(f"{where}: {owner}.sections: must be {', '.join(keys)}, in this order")
    for key, text in wording.items():
        if not text.questions or not text.paraphrases:
            raise BankMismatch(f"{where}: {owner}.sections.{key}: needs a question and a paraphrase")


def _entities(family: Family, bank: Bank, scale: int) -> Iterator[tuple[int, str, Fields]]:
    wording = bank.families[family.key]
    yield from ((i, slug, wording.entities[i]) for i, slug in enumerate(family.slugs))
    if family.scalable:
        first = len(family.slugs) + 1
        for n in range(first, first + EXTRA_ENTITIES_PER_SCALE * (scale - 1)):
            yield n - 1, family.extra_slug.format(n=n), bank.extra_entity(family.key, n)


def _render_page(
    renderer: _Renderer,
    topic: str,
    page_slug: str,
    title_template: str,
    sections: tuple[Section, ...],
    wording: dict[str, SectionText],
    values: Values,
    fact_keys: frozenset[str] = frozenset(),
) -> RenderedPage:
    prefix = f"{topic}-{page_slug}"
    number = {s.key: n for n, s in enumerate(sections, start=1)}
    title = renderer.render(title_template, values)
    rendered = tuple(
        RenderedSection(
            chunk_id=f"{prefix}#{number[s.key]}",
            context_id=f"{prefix}#{number[s.context]}" if s.context else None,
            texts=wording[s.key],
            values=values,
            fact_keys=fact_keys,
        )
        for s in sections
    )
    return RenderedPage(topic, f"{WIKI}/{topic}/{page_slug}", title, rendered)


def pages(bank: Bank, scale: int) -> list[RenderedPage]:
    """All pages in skeleton order: topic by topic, templated families before one-off pages."""
    renderer = _Renderer(bank)
    result: list[RenderedPage] = []
    for topic in TOPICS:
        for family in (f for f in FAMILIES if f.topic == topic):
            wording = bank.families[family.key]
            for index, slug, fields in _entities(family, bank, scale):
                facts = family.facts(Random(f"{SEED}:{family.key}:{slug}"), index, slug)
                values = {**{k: v for k, v in facts.items()}, **fields}
                page_slug = family.page.format(slug=slug)
                result.append(
                    _render_page(
                        renderer,
                        topic,
                        page_slug,
                        wording.title,
                        family.sections,
                        dict(wording.sections),
                        values,
                        frozenset(facts),
                    )
                )
        for page in (p for p in PAGES if p.topic == topic):
            wording_page = bank.pages[page.key]
            result.append(
                _render_page(
                    renderer, topic, page.key, wording_page.title, page.sections, dict(wording_page.sections), {}
                )
            )
    return result


def corpus(bank: Bank, rendered: list[RenderedPage]) -> list[Record]:
    renderer = _Renderer(bank)
    records: list[Record] = [
        {
            "id": s.chunk_id,
            "text": renderer.render(s.texts.text, s.values),
            "title": f"{page.title} — {renderer.render(s.texts.heading, s.values)}",
            "url": page.url,
            "topic": page.topic,
        }
        for page in rendered
        for s in page.sections
    ]
    return sorted(records, key=lambda r: str(r["id"]))


def questions(bank: Bank, rendered: list[RenderedPage]) -> list[Record]:
    """One question per chunk, a paraphrase for a seeded share of them, then the unanswerable ones.

    The paraphrase decision is the first draw of a generator seeded by the chunk id alone,
    so both languages paraphrase the same questions; template choices come after it and
    may differ between languages without breaking parallelism.
    """
    renderer = _Renderer(bank)
    drafts: list[Record] = []
    for page in rendered:
        for s in page.sections:
            r = Random(f"{SEED}:question:{s.chunk_id}")
            paraphrased = r.random() < PARAPHRASE_SHARE
            relevant = {s.chunk_id: 2, s.context_id: 1} if s.context_id else {s.chunk_id: 1}
            common = {
                "relevant": relevant,
                "reference_answer": renderer.render(s.texts.answer, s.values),
                "topic": page.topic,
            }
            drafts.append({**common, "question": renderer.render(r.choice(s.texts.questions), s.values)})
            if paraphrased:
                text = renderer.render(r.choice(s.texts.paraphrases), s.values)
                drafts.append({**common, "question": text, "variant": "paraphrase"})
    for topic, text in zip(UNANSWERABLE_TOPICS, bank.unanswerable, strict=True):
        drafts.append(
            {
                "relevant": {},
                "reference_answer": bank.no_answer,
                "topic": topic,
                "question": text,
                "variant": "unanswerable",
            }
        )
    return _number(drafts)


def _number(drafts: list[Record]) -> list[Record]:
    """Give ids in draft order and point each paraphrase at the original just before it.

    Drafts without a variant are originals; unanswerable ones keep theirs.
    """
    width = max(4, len(str(len(drafts))))
    records: list[Record] = []
    original = ""
    for n, draft in enumerate(drafts, start=1):
        qid = f"q{n:0{width}d}"
        if draft.get("variant") == "paraphrase":
            records.append({**draft, "id": qid, "paraphrase_of": original})
        else:
            original = qid
            records.append({"variant": "original", **draft, "id": qid})
    return records


def counts(chunks: list[Record], qs: list[Record], rendered: list[RenderedPage]) -> dict[str, int]:
    def graded(q: Record) -> bool:
        grades = relevance(q).values()
        return len(grades) >= 2 and len(set(grades)) >= 2

    return {
        "chunks": len(chunks),
        "questions": len(qs),
        "pages": len({p.url for p in rendered}),
        "topics": len({p.topic for p in rendered}),
        "paraphrases": sum(q["variant"] == "paraphrase" for q in qs),
        "graded_questions": sum(graded(q) for q in qs),
        "unanswerable": sum(not q["relevant"] for q in qs),
    }


def _jsonl(records: list[Record]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records).encode("utf-8")


def write_dataset(bank: Bank, out: Path, scale: int = 1) -> Path:
    """Write one language's dataset under `out` and return its directory."""
    if scale < 1:
        raise ValueError("scale must be at least 1")
    check_bank(bank)
    rendered = pages(bank, scale)
    chunks = corpus(bank, rendered)
    qs = questions(bank, rendered)
    judged = judge_pipeline(bank, rendered, chunks, qs, _Renderer(bank).render)
    pairs = judge_pairs(bank, rendered, chunks, qs, _Renderer(bank).render)
    log = real_user_log(bank, chunks, qs)
    files = {"corpus.jsonl": _jsonl(chunks), "questions.jsonl": _jsonl(qs), "judge_pipeline.jsonl": _jsonl(judged),
             "judge_pairs.jsonl": _jsonl(pairs), "logs.jsonl": _jsonl(log)}
    manifest = {
        "name": dataset_name(bank, scale),
        "version": VERSION,
        "language": bank.language,
        "description": bank.description,
        "generator": GENERATOR if scale == 1 else f"{GENERATOR} --scale {scale}",
        "seed": SEED,
        "counts": {**counts(chunks, qs, rendered), "judge_pipeline": len(judged), "judge_pairs": len(pairs),
                   "log_entries": len(log), "log_sessions": len({entry["session_id"] for entry in log})},
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()},
    }
    files["manifest.json"] = (json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode(
        "utf-8"
    )
    target = out / dataset_name(bank, scale)
    target.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (target / name).write_bytes(data)
    return target
