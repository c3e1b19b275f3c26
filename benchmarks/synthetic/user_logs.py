"""A synthetic real-user log (`logs.jsonl`): the seeds' `question_answer` rows, made from the dataset.

Real logs are what the Real-Users tier reads, and they cannot be shipped, so this one imitates
their shape: sessions of 2–6 turns that stay on one topic (and mostly on one page, so consecutive
questions are related, as follow-ups are), questions taken from the dataset's questions and
paraphrases, near-duplicates of questions other sessions already asked (the same words with
another capitalisation or without the question mark), a few questions nothing answers,
`confluence_url` of the page holding the answer for most turns but missing for some and a wrong
sibling page for a few, as a production retriever sometimes shows, user scores skewed high with
many 5s (low where the page was wrong), and timestamps rising over 60 days.

Every choice is drawn from generators seeded with session numbers and question ids, which both
languages share, so the English and Russian logs have the same ids, sessions, turns, urls and
scores and differ only in wording.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from random import Random

from benchmarks.synthetic.model import Bank, Record, relevance
from benchmarks.synthetic.skeleton import SEED, TOPICS

SESSIONS = 150
TURNS = (2, 6)
DAYS = 60
START = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)
SAME_PAGE = 0.6  # a follow-up asks about the page the previous turn was about
UNANSWERABLE = 0.04
NEAR_DUPLICATE = 0.12
NO_URL, WRONG_URL = 0.10, 0.06
UNRATED = 0.12
SHORT_ANSWER = 0.3
SCORES = (1, 2, 3, 4, 5)
GOOD_PAGE_WEIGHTS = (0.06, 0.07, 0.12, 0.25, 0.50)
NO_PAGE_WEIGHTS = (0.15, 0.15, 0.25, 0.25, 0.20)
BAD_PAGE_WEIGHTS = (0.45, 0.30, 0.15, 0.07, 0.03)


def real_user_log(bank: Bank, chunks: list[Record], qs: list[Record]) -> list[Record]:
    """About 600 logged turns in ~150 sessions, ordered by session start."""
    chunk_url = {str(c["id"]): str(c["url"]) for c in chunks}
    topic_urls: dict[str, list[str]] = {}
    for c in chunks:
        urls = topic_urls.setdefault(str(c["topic"]), [])
        if c["url"] not in urls:
            urls.append(str(c["url"]))
    answerable = [q for q in qs if q["relevant"]]
    page = {str(q["id"]): _page(q, chunk_url) for q in answerable}
    by_topic = {topic: [q for q in answerable if q["topic"] == topic] for topic in TOPICS}
    by_page: dict[str, list[Record]] = {}
    for q in answerable:
        by_page.setdefault(page[str(q["id"])], []).append(q)
    unanswerable = [q for q in qs if not q["relevant"]]
    calendar = Random(f"{SEED}:log:calendar")
    starts = sorted(calendar.uniform(0, DAYS * 86400) for _ in range(SESSIONS))
    asked: dict[str, list[tuple[int, Record]]] = {topic: [] for topic in TOPICS}
    records: list[Record] = []
    for number, offset in enumerate(starts, start=1):
        r = Random(f"{SEED}:log:session:{number}")
        session = str(uuid.UUID(int=r.getrandbits(128), version=4))
        topic = r.choice(TOPICS)
        moment = START + timedelta(seconds=round(offset))
        previous: Record | None = None
        for turn in range(1, r.randint(*TURNS) + 1):
            draw = r.random()
            earlier = [q for n, q in asked[topic] if n != number]
            variation = 0
            if draw < UNANSWERABLE:
                question = r.choice(unanswerable)
            elif draw < UNANSWERABLE + NEAR_DUPLICATE and earlier:
                question, variation = r.choice(earlier), r.randint(1, 3)
            elif previous is not None and previous["relevant"] and r.random() < SAME_PAGE:
                siblings = [q for q in by_page[page[str(previous["id"])]] if q["id"] != previous["id"]]
                question = r.choice(siblings or by_topic[topic])
            else:
                question = r.choice(by_topic[topic])
            right = page.get(str(question["id"]))
            url, weights = _shown(r, right, topic_urls[str(question["topic"])])
            rated = r.random() >= UNRATED
            score = r.choices(SCORES, weights)[0]
            short = r.random() < SHORT_ANSWER
            moment += timedelta(seconds=r.randint(20, 240))
            records.append({
                "id": len(records) + 1,
                "session_id": session,
                "turn_order": turn,
                "question": _vary(str(question["question"]), variation),
                "answer": bank.no_answer if right is None else _answer(str(question["reference_answer"]), short),
                "confluence_url": url,
                "score": score if rated else None,
                "created_at": moment.isoformat(timespec="seconds"),
            })
            if question["relevant"]:
                asked[topic].append((number, question))
            previous = question
    return records


def _page(question: Record, chunk_url: dict[str, str]) -> str:
    """The page of the question's most relevant chunk: what a good retriever would have shown."""
    grades = relevance(question)
    best = max(sorted(grades), key=lambda chunk: grades[chunk])
    return chunk_url[best]


def _shown(r: Random, right: str | None, topic_urls: list[str]) -> tuple[str | None, tuple[float, ...]]:
    """The url the production system showed, and the score weights that showing earns."""
    draw = r.random()
    wrong = r.choice([url for url in topic_urls if url != right])
    if right is None:  # nothing answers it: sometimes a page was shown anyway
        return (wrong if draw < 0.5 else None), BAD_PAGE_WEIGHTS
    if draw < NO_URL:
        return None, NO_PAGE_WEIGHTS
    if draw < NO_URL + WRONG_URL:
        return wrong, BAD_PAGE_WEIGHTS
    return right, GOOD_PAGE_WEIGHTS


def _vary(text: str, variation: int) -> str:
    """A near-duplicate as users type it: 1 lower-cases the first letter (not of an acronym), 2 drops the
    '?', 3 both."""
    if variation & 1 and text[1:2].islower():
        text = text[:1].lower() + text[1:]
    if variation & 2:
        text = text.rstrip("?？").rstrip()
    return text


def _answer(reference: str, short: bool) -> str:
    """The reference answer, or its first clause: production answers are often terser."""
    if not short:
        return reference
    clause = reference.split(";")[0].split(". ")[0].rstrip(".")
    return clause + "." if clause != reference.rstrip(".") else reference
