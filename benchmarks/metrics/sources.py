"""Source analytics of the Real-Users tier (docs/metrics.md#real-users): chunk utilization, topic coverage.

Pure functions on retrieval results already obtained; no I/O. The only randomness is KMeans,
seeded by the caller, so a rerun with the same seed, data and scikit-learn version gives the same
topics.

Chunk utilization
-----------------
``used`` is the set of distinct corpus chunks that appear in the top-k of at least one question;
``rate = used / total`` over the distinct chunks of the corpus. A retrieved id that is not in the
corpus raises ValueError instead of being ignored: retrieval and the corpus snapshot then disagree
(a stale index, the wrong collection), and a utilization computed over ids that do not exist
would be quietly wrong.

Topic coverage
--------------
Questions are clustered with KMeans on their embeddings as given (n_init=10, random_state=seed,
float64). Cluster numbers from KMeans are arbitrary, so topics are relabelled: by size
descending, ties broken by the smallest question index in the cluster; topic 0 is the largest.

A topic has *weak coverage* when it is asked about a lot but draws on few distinct chunks, the
seed's "low unique_chunks with a large question_count": its ``question_count`` is at least the
median over topics, and its unique chunks per question are strictly below half the median of
that ratio over all topics. Medians and ratios are exact fractions, so no rounding decides a flag.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from statistics import median

import numpy as np

KMEANS_N_INIT = 10
"""Fixed, so a scikit-learn default change ("auto") cannot change the topics of a rerun."""

WEAK_SHARE = Fraction(1, 2)
"""A topic is weak below this share of the median unique chunks per question."""


@dataclass(frozen=True)
class Utilization:
    """docs/metrics.md#real-users: ``total_chunks``, ``used_chunks``, ``unused_chunks``, ``utilization_rate``."""

    total: int
    used: int
    unused: int
    rate: float | None  # None for an empty corpus: 0/0

    def as_dict(self) -> dict[str, int | float | None]:
        """The seed's report keys."""
        return {"total_chunks": self.total, "used_chunks": self.used, "unused_chunks": self.unused,
                "utilization_rate": self.rate}


def chunk_utilization(retrieved: Sequence[Sequence[str]], all_chunk_ids: Collection[str]) -> Utilization:
    """Distinct corpus chunks in the top-k of at least one question, out of all distinct chunks.

    ``retrieved`` holds each question's top-k chunk ids (already cut at k). Duplicates count once,
    in the corpus and in the results. Raises ValueError when a retrieved id is not in the corpus.
    """
    corpus = set(all_chunk_ids)
    used = {chunk for ranking in retrieved for chunk in ranking}
    unknown = used - corpus
    if unknown:
        sample = ", ".join(repr(u) for u in sorted(unknown)[:3])
        raise ValueError(f"{len(unknown)} retrieved chunk ids are not in the corpus (e.g. {sample}): "
                         "retrieval and the corpus disagree")
    total = len(corpus)
    return Utilization(total=total, used=len(used), unused=total - len(used),
                       rate=len(used) / total if total else None)


@dataclass(frozen=True)
class Topic:
    """One question cluster: how many questions, and how many distinct chunks and urls they retrieved."""

    topic_id: int
    question_count: int
    unique_chunks: int
    unique_urls: int
    weak: bool


@dataclass(frozen=True)
class Coverage:
    """docs/metrics.md#real-users: totals and ``topic_coverage[]``; ``labels[i]`` is question i's ``topic_id``."""

    n_topics: int
    total_questions: int
    avg_chunks_per_topic: float
    topics: tuple[Topic, ...]
    labels: tuple[int, ...]

    def as_dict(self) -> dict[str, object]:
        """The seed's report keys (labels are per question, so left to the caller)."""
        return {"n_topics": self.n_topics, "total_questions": self.total_questions,
                "avg_chunks_per_topic": self.avg_chunks_per_topic,
                "topic_coverage": [asdict(t) for t in self.topics]}


def topic_coverage(
    vectors: np.ndarray,
    retrieved_chunks: Sequence[Sequence[str]],
    retrieved_urls: Sequence[Sequence[str]],
    n_topics: int,
    seed: int,
) -> Coverage:
    """Cluster the questions into ``n_topics`` topics and count what each topic retrieved.

    ``vectors`` are the question embeddings (N, D); ``retrieved_chunks[i]`` and
    ``retrieved_urls[i]`` are question i's top-k chunk ids and their source urls (an empty url,
    a chunk without a source, counts as no url). ``avg_chunks_per_topic`` is the mean of the
    topics' unique chunk counts (a chunk retrieved in two topics counts in both).

    Raises ValueError when n_topics < 1, when there are more topics than distinct questions
    (KMeans would return duplicate, meaningless clusters; the caller turns this into a BenchError
    telling the user to lower ``--topics``), or when the inputs disagree in length or hold NaN.
    """
    from sklearn.cluster import KMeans  # imported here: scikit-learn takes a second to import

    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"question embeddings must be a non-empty 2-D (N, D) array, got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError("question embeddings hold NaN or infinity")
    n = matrix.shape[0]
    if len(retrieved_chunks) != n or len(retrieved_urls) != n:
        raise ValueError(f"{n} questions but {len(retrieved_chunks)} chunk lists and {len(retrieved_urls)} url lists")
    if n_topics < 1:
        raise ValueError(f"the number of topics must be at least 1, got {n_topics}")
    distinct = np.unique(matrix, axis=0).shape[0]
    if n_topics > distinct:
        raise ValueError(f"{n_topics} topics asked for but only {distinct} distinct questions "
                         f"({n} in all): use at most {distinct} topics")

    raw = KMeans(n_clusters=n_topics, n_init=KMEANS_N_INIT, random_state=seed).fit_predict(matrix)
    labels = _relabel(raw)
    members: list[list[int]] = [[] for _ in range(n_topics)]
    for question, topic in enumerate(labels):
        members[topic].append(question)
    counts = [(len(m), len({c for i in m for c in retrieved_chunks[i]}),
               len({u for i in m for u in retrieved_urls[i] if u})) for m in members]
    weak = weak_topics([q for q, _, _ in counts], [c for _, c, _ in counts])
    topics = tuple(Topic(topic_id=t, question_count=q, unique_chunks=c, unique_urls=u, weak=w)
                   for t, ((q, c, u), w) in enumerate(zip(counts, weak, strict=False)))
    return Coverage(n_topics=n_topics, total_questions=n,
                    avg_chunks_per_topic=sum(c for _, c, _ in counts) / n_topics,
                    topics=topics, labels=tuple(labels))


def _relabel(raw: np.ndarray) -> list[int]:
    """Topic ids by cluster size descending, ties by the smallest question index in the cluster."""
    first: dict[int, int] = {}
    size: dict[int, int] = {}
    for index, cluster in enumerate(raw.tolist()):
        first.setdefault(cluster, index)
        size[cluster] = size.get(cluster, 0) + 1
    order = sorted(size, key=lambda cluster: (-size[cluster], first[cluster]))
    new_id = {cluster: topic for topic, cluster in enumerate(order)}
    return [new_id[cluster] for cluster in raw.tolist()]


def weak_topics(question_counts: Sequence[int], unique_chunks: Sequence[int]) -> list[bool]:
    """Weak coverage flags (module docstring): question_count >= median question_count and
    unique_chunks / question_count < 1/2 x the median of that ratio over topics.

    Public so the rule can be checked by hand and reused for other groupings. A topic without
    questions (not produced by KMeans) has no ratio and is never weak.
    """
    if len(question_counts) != len(unique_chunks):
        raise ValueError("one unique-chunk count per topic is needed")
    asked = [q for q in question_counts if q > 0]
    if not asked:
        return [False] * len(question_counts)
    ratios = [Fraction(c, q) for q, c in zip(question_counts, unique_chunks, strict=False) if q > 0]
    median_count, median_ratio = median(Fraction(q) for q in asked), median(ratios)
    return [q > 0 and q >= median_count and Fraction(c, q) < WEAK_SHARE * median_ratio
            for q, c in zip(question_counts, unique_chunks, strict=False)]
