"""Items for the judges: show/no-show answers for the production judge, and answer pairs.

Every item is built from the dataset's own questions and chunks, so the context is
text the corpus really contains and the label follows from how the answer was made.
Which question becomes which case is decided by generators seeded with question ids,
which both languages share, so the English and Russian files have the same ids, labels
and cases and differ only in wording. The sets keep the same size at every --scale: they
measure a judge, not throughput, and a larger corpus only widens the pool.

The pairs (`judge_pairs.jsonl`, for `bench judge --pairwise`) put the reference answer
beside a flawed one made by the same case builders, or beside itself for a tie. Half of the
decided pairs show the better answer first, so a judge that always picks the first answer
scores exactly 0.5 on them instead of riding on the order.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterator, Mapping
from random import Random

from benchmarks.synthetic.model import Bank, Record, RenderedPage, RenderedSection, Values, relevance
from benchmarks.synthetic.skeleton import SEED

Render = Callable[[str, Values], str]

# Cases that constrain their question come first, so they pick from the whole pool.
CASE_COUNTS = {
    "contradicts_context": 40,
    "off_topic": 20,
    "context_lacks_answer": 10,
    "unsupported_claim": 20,
    "refusal_when_answerable": 10,
    "correct": 100,
}
SHOWN = frozenset({"correct"})
# Flawed answers a judge must rank below the reference, and ties (the reference twice).
PAIR_COUNTS = {
    "contradicts_context": 35,
    "unsupported_claim": 30,
    "off_topic": 25,
    "tie": 10,
}

# Fact strings made only of digits and separators (times, versions, extensions, "99.9%")
# can have a digit changed and still read naturally; names and product strings cannot.
_NUMERIC = re.compile(r"[-+]?[\d:.,%–]*\d[\d:.,%–]*")
_LAST_NONZERO = re.compile(r"[1-9](?=[^1-9]*$)")


class _Builder:
    """Turns one question into the (context, answer) of a case, or None when it cannot."""

    def __init__(
        self, bank: Bank, rendered: list[RenderedPage], chunks: list[Record], originals: list[Record], render: Render
    ) -> None:
        self._bank = bank
        self._render = render
        self._texts = {str(c["id"]): str(c["text"]) for c in chunks}
        self._sections = {s.chunk_id: s for page in rendered for s in page.sections}
        self._by_topic: dict[str, list[Record]] = {}
        for question in originals:
            self._by_topic.setdefault(str(question["topic"]), []).append(question)

    def build(self, case: str, question: Record) -> tuple[str, str] | None:
        rng = Random(f"{SEED}:judge:{case}:{question['id']}")
        context = self._context(question)
        reference = str(question["reference_answer"])
        if case in ("correct", "tie"):  # a tie pairs the reference answer with itself
            return context, reference
        if case == "refusal_when_answerable":
            return context, self._bank.no_answer
        if case == "unsupported_claim":
            return context, f"{reference} {rng.choice(self._bank.unsupported_claims)}"
        if case == "contradicts_context":
            altered = sorted(set(self._altered_answers(question)))
            return (context, rng.choice(altered)) if altered else None
        others = self._other_subjects(question)
        if not others:
            return None
        other = rng.choice(others)
        if case == "off_topic":
            return context, str(other["reference_answer"])
        if case == "context_lacks_answer":
            return self._texts[_primary(other)], reference
        raise ValueError(f"unknown case {case!r}")

    def _context(self, question: Record) -> str:
        """The chunks the answer rests on, the one it is about first, then its graded sibling."""
        relevant = relevance(question)
        ordered = sorted(relevant, key=lambda chunk_id: (-relevant[chunk_id], chunk_id))
        return "\n\n".join(self._texts[chunk_id] for chunk_id in ordered)

    def _other_subjects(self, question: Record) -> list[Record]:
        """Same-topic questions about another section, whose answers cannot answer this one."""
        relevant = relevance(question)
        section = _primary(question).rsplit("#", 1)[1]
        return [
            other
            for other in self._by_topic[str(question["topic"])]
            if _primary(other).rsplit("#", 1)[1] != section and _primary(other) not in relevant
        ]

    def _altered_answers(self, question: Record) -> Iterator[str]:
        """The reference answer re-rendered with one fact nudged: a wrong number, name or deadline.

        Re-rendering rather than editing text keeps plural forms and cases right in
        both languages; a nudged index the bank cannot word is skipped.
        """
        section: RenderedSection = self._sections[_primary(question)]
        template = section.texts.answer
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name in section.fact_keys}
        for name in sorted(names):
            for value in _nudged(section.values[name]):
                try:
                    text = self._render(template, {**section.values, name: value})
                except (IndexError, KeyError, ValueError):
                    continue
                if text != question["reference_answer"]:
                    yield text


def _primary(question: Record) -> str:
    relevant = relevance(question)
    return max(sorted(relevant), key=lambda chunk_id: relevant[chunk_id])


def _nudged(value: object) -> list[object]:
    """Move the last non-zero digit one step, so the value keeps its length and its kind."""
    text = str(value)
    if isinstance(value, bool) or not (isinstance(value, int) or _NUMERIC.fullmatch(text)):
        return []
    match = _LAST_NONZERO.search(text)
    if not match:
        return []
    digit = int(match.group())
    steps = [step for step in (1, -1) if 1 <= digit + step <= 9]
    variants = [text[: match.start()] + str(digit + step) + text[match.end() :] for step in steps]
    return [int(v) for v in variants] if isinstance(value, int) else list(variants)


def _assign(
    builder: _Builder, pool: list[Record], counts: Mapping[str, int], what: str
) -> Iterator[tuple[str, Record, str, str]]:
    """(case, question, context, answer) for each case's count of questions, taken in pool order.

    A question serves one case only; one a case cannot be built from stays for the next case.
    """
    for case, count in counts.items():
        taken: list[Record] = []
        for question in pool:
            if len(taken) == count:
                break
            built = builder.build(case, question)
            if built is not None:
                taken.append(question)
                yield case, question, *built
        if len(taken) < count:
            raise ValueError(f"only {len(taken)} questions can make {case!r} {what}, {count} needed")
        used = {q["id"] for q in taken}
        pool = [q for q in pool if q["id"] not in used]


def judge_pipeline(
    bank: Bank, rendered: list[RenderedPage], chunks: list[Record], qs: list[Record], render: Render
) -> list[Record]:
    """Assign cases to shuffled answerable originals, then shuffle and number the items.

    The final shuffle keeps labels from clustering by id, so a truncated run still
    sees both classes.
    """
    originals = sorted((q for q in qs if q["variant"] == "original"), key=lambda q: str(q["id"]))
    builder = _Builder(bank, rendered, chunks, originals, render)
    pool = list(originals)
    Random(f"{SEED}:judge:pool").shuffle(pool)
    drafts: list[Record] = [
        {"question": question["question"], "context": context, "answer": answer,
         "ground_truth_show": case in SHOWN, "case": case}
        for case, question, context, answer in _assign(builder, pool, CASE_COUNTS, "items")
    ]
    Random(f"{SEED}:judge:order").shuffle(drafts)
    width = max(4, len(str(len(drafts))))
    return [{**draft, "id": f"jp{n:0{width}d}"} for n, draft in enumerate(drafts, start=1)]


def judge_pairs(
    bank: Bank, rendered: list[RenderedPage], chunks: list[Record], qs: list[Record], render: Render
) -> list[Record]:
    """Pair each chosen question's reference answer with a flawed answer (or itself, for a tie).

    The questions come from their own seeded pool, independent of the judge-pipeline items;
    which decided pairs show the reference first is a seeded shuffle of an even split.
    """
    originals = sorted((q for q in qs if q["variant"] == "original"), key=lambda q: str(q["id"]))
    builder = _Builder(bank, rendered, chunks, originals, render)
    pool = list(originals)
    Random(f"{SEED}:pairs:pool").shuffle(pool)
    drafts: list[Record] = [
        {"question": question["question"], "context": context, "reference": question["reference_answer"],
         "flawed": answer, "case": case}
        for case, question, context, answer in _assign(builder, pool, PAIR_COUNTS, "pairs")
    ]
    decided = [draft for draft in drafts if draft["case"] != "tie"]
    positions = ["a", "b"] * (len(decided) // 2) + ["a"] * (len(decided) % 2)  # where the reference goes
    Random(f"{SEED}:pairs:positions").shuffle(positions)
    records: list[Record] = []
    for draft in drafts:
        better = "tie" if draft["case"] == "tie" else positions.pop()
        a, b = (draft["flawed"], draft["reference"]) if better == "b" else (draft["reference"], draft["flawed"])
        records.append({"question": draft["question"], "context": draft["context"], "answer_a": a, "answer_b": b,
                        "better": better, "case": draft["case"]})
    Random(f"{SEED}:pairs:order").shuffle(records)
    width = max(4, len(str(len(records))))
    return [{**record, "id": f"pair{n:0{width}d}"} for n, record in enumerate(records, start=1)]
