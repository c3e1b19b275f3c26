"""Source analytics (chunk utilization, topic coverage) against hand-counted cases."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.metrics.sources import Topic, Utilization, chunk_utilization, topic_coverage, weak_topics


def test_chunk_utilization_by_hand() -> None:
    corpus = ["a", "b", "c", "d", "e", "a"]  # a duplicate id counts once
    result = chunk_utilization([["a", "b"], ["b", "c"], []], corpus)
    assert result == Utilization(total=5, used=3, unused=2, rate=0.6)
    assert result.as_dict() == {"total_chunks": 5, "used_chunks": 3, "unused_chunks": 2,
                                "utilization_rate": 0.6}


def test_chunk_utilization_edges() -> None:
    assert chunk_utilization([], set()) == Utilization(total=0, used=0, unused=0, rate=None)
    assert chunk_utilization([["x"], ["x"]], {"x"}).rate == 1.0
    assert chunk_utilization([], {"x", "y"}) == Utilization(total=2, used=0, unused=2, rate=0.0)


def test_unknown_chunk_ids_raise() -> None:
    with pytest.raises(ValueError, match="not in the corpus"):
        chunk_utilization([["a", "zz"]], {"a", "b"})


# Three questions near (0,0), two near (10,10), one near (-10, 10): clusters of 3, 2 and 1.
VECTORS = np.array([[10.0, 10.0], [0.0, 0.0], [0.1, 0.0], [10.1, 10.0], [0.0, 0.1], [-10.0, 10.0]])
CHUNKS = [["c1", "c2"], ["c3"], ["c3"], ["c2", "c4"], ["c3", "c5"], ["c6"]]
URLS = [["u1", "u1"], ["u2"], ["u2"], ["u1", ""], ["u2", "u3"], ["u4"]]


def test_topic_coverage_by_hand() -> None:
    coverage = topic_coverage(VECTORS, CHUNKS, URLS, n_topics=3, seed=0)
    # topic 0: the largest cluster (questions 1, 2, 4); topic 1: questions 0, 3; topic 2: question 5
    assert coverage.labels == (1, 0, 0, 1, 0, 2)
    # ratios: 2/3, 3/2, 1/1; median question count 2, median ratio 1: none below 1/2
    assert coverage.topics == (
        Topic(topic_id=0, question_count=3, unique_chunks=2, unique_urls=2, weak=False),
        Topic(topic_id=1, question_count=2, unique_chunks=3, unique_urls=1, weak=False),
        Topic(topic_id=2, question_count=1, unique_chunks=1, unique_urls=1, weak=False),
    )
    assert (coverage.n_topics, coverage.total_questions) == (3, 6)
    assert coverage.avg_chunks_per_topic == 2.0
    assert coverage.as_dict()["topic_coverage"][1] == {"topic_id": 1, "question_count": 2, "unique_chunks": 3,
                                                      "unique_urls": 1, "weak": False}


def test_equal_sizes_ordered_by_first_question() -> None:
    vectors = np.array([[5.0, 5.0], [0.0, 0.0], [5.0, 5.1], [0.0, 0.1]])
    coverage = topic_coverage(vectors, [[]] * 4, [[]] * 4, n_topics=2, seed=3)
    assert coverage.labels == (0, 1, 0, 1)  # both of size 2: the one holding question 0 is topic 0


def test_weak_topics_by_hand() -> None:
    # ratios 1/4, 2, 1; median count 2, median ratio 1, half of it 1/2: only topic 0 is weak
    assert weak_topics([4, 2, 2], [1, 4, 2]) == [True, False, False]
    # exactly half the median ratio is not below it
    assert weak_topics([2, 2, 2], [1, 2, 4]) == [False, False, False]
    # a topic asked less than the median is never weak, however few chunks it drew
    assert weak_topics([1, 3, 3], [0, 6, 6]) == [False, False, False]
    # four topics: median count (2+4)/2 = 3; ratios 1/4, 2, 1/2, 1, median (1/2 + 1)/2 = 3/4, half 3/8
    assert weak_topics([4, 4, 2, 1], [1, 8, 1, 1]) == [True, False, False, False]
    assert weak_topics([], []) == []


def test_kmeans_is_deterministic_for_a_seed() -> None:
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((200, 8))
    chunks = [[f"c{rng.integers(50)}" for _ in range(3)] for _ in range(200)]
    urls = [[f"u{int(c[1:]) % 7}" for c in row] for row in chunks]
    first = topic_coverage(vectors, chunks, urls, n_topics=6, seed=42)
    assert topic_coverage(vectors.copy(), chunks, urls, n_topics=6, seed=42) == first
    assert topic_coverage(vectors.astype(np.float32), chunks, urls, n_topics=6, seed=42).n_topics == 6
    sizes = [t.question_count for t in first.topics]
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == 200
    assert [t.topic_id for t in first.topics] == list(range(6))


def test_more_topics_than_distinct_questions_raise() -> None:
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="only 2 distinct questions"):
        topic_coverage(vectors, [[]] * 4, [[]] * 4, n_topics=3, seed=0)
    with pytest.raises(ValueError, match="at least 1"):
        topic_coverage(vectors, [[]] * 4, [[]] * 4, n_topics=0, seed=0)
    with pytest.raises(ValueError, match="chunk lists"):
        topic_coverage(vectors, [[]] * 3, [[]] * 4, n_topics=1, seed=0)
