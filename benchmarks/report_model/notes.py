"""The report's notes: how the numbers were computed, in each tier's words. report.md shows every note, so most
are a sentence; the counts beside them are what a reader weighs the means by.

Every note any tier writes is declared here, grouped by the tiers that write it, so a misspelled one is refused
and the schema lists them all.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field

from benchmarks.report_model._block import Block, Number

# --- tier 1 and real-users: retrieval -----------------------------------------------------------------


class Queries(Block):
    total: int | None = Field(default=None, description="Questions in the dataset (with --limit, the sample's).")
    evaluated: int | None = Field(default=None, description="Questions the means are over.")
    without_relevant: int = Field(
        description="Tier 1: questions no chunk is relevant to, left out of every mean (trec_eval's convention).")
    without_relevant_handling: str | None = Field(
        default=None, description="What happens to the questions without a relevant chunk.")


class LogEntries(Block):
    """real-users: the logged turns, and which of them the retrieval metrics are over."""

    total: int = Field(description="Logged turns read.")
    with_url: int = Field(description="Turns whose confluence_url names the page production showed.")
    without_url: int = Field(description="Turns without one: no ground truth.")
    without_url_handling: str = Field(description="What happens to the turns without a url.")
    url_not_in_corpus: int = Field(description="Turns whose url no chunk of the corpus has.")
    evaluated: int = Field(description="Turns the retrieval metrics are over.")


class ChunkUtilization(Block):
    total_chunks: int = Field(description="Chunks in the corpus.")
    used_chunks: int = Field(description="Chunks some logged question retrieved.")
    unused_chunks: int = Field(description="Chunks no logged question retrieved.")
    utilization_rate: Number | None = Field(description="used_chunks / total_chunks; null for an empty corpus.")
    what: str = Field(description="What counts as used.")


class Topic(Block):
    topic_id: int = Field(description="The topic's cluster number.")
    question_count: int = Field(description="Logged questions in the topic.")
    unique_chunks: int = Field(description="Distinct chunks retrieved for them.")
    unique_urls: int = Field(description="Distinct pages retrieved for them.")
    weak: bool = Field(description="Whether the topic is weak (see the note's `weak`).")


class TopicCoverage(Block):
    n_topics: int = Field(description="Topics the logged questions were clustered into.")
    total_questions: int = Field(description="Questions clustered.")
    avg_chunks_per_topic: Number = Field(description="Mean distinct chunks retrieved per topic.")
    weak: str = Field(description="What makes a topic weak.")
    topics: list[Topic] = Field(description="Each topic's counts.")


# --- tiers 2 and 3: answering -------------------------------------------------------------------------


class QuestionCounts(Block):
    total: int = Field(description="Questions in the dataset.")
    answered: int | None = Field(default=None, description="Tier 2: questions asked (those with a fixed context).")
    without_context: int | None = Field(
        default=None, description="Tier 2: questions left out for want of a relevant chunk to give as context.")


class RetrievalGroup(Block):
    questions: int = Field(description="Questions in the group.")
    scored: int = Field(description="Those of them the judge scored.")
    avg_e2e_score: Number | None = Field(description="Their mean e2e score; null when none was scored.")


class RetrievalSplit(Block):
    """Tier 3: the e2e score where retrieval hit and where it missed."""

    hit: RetrievalGroup = Field(description="Questions whose retrieved chunks hold a relevant one.")
    miss: RetrievalGroup = Field(description="Questions whose retrieved chunks hold none.")
    no_relevant_chunk: int = Field(description="Questions no chunk is relevant to, in neither group.")


class EndToEndRetrieval(Block):
    depth: int = Field(description="Chunks retrieved per question and given as context.")
    index: str = Field(description="The index searched: exact or hnsw.")
    hit: str = Field(description="What counts as a hit.")


class RubricNote(Block):
    criteria: dict[str, str] = Field(description="The rubric's question, by prompt language.")
    scale: str = Field(description="Its scale and how it is reported.")
    needs: list[str] = Field(description="The sample fields it shows the judge.")


# --- the judges ---------------------------------------------------------------------------------------


class JudgesAgreement(Block):
    """How far several judge models agree with each other on the same units (metrics.inter_rater for scores,
    metrics.pairwise for preferences)."""

    mean_absolute_difference: Number | None = Field(
        default=None, description="Scores: the mean |difference| between two models' scores of one unit.")
    krippendorff_alpha_interval: Number | None = Field(
        default=None, description="Scores: Krippendorff's alpha on the interval level (1 agree, 0 chance).")
    units: int | None = Field(default=None, description="Scores: units at least two models scored.")
    reason: str | None = Field(default=None, description="Why a statistic is null.")
    same_preference_rate: Number | None = Field(
        default=None, description="Preferences: the share of pairs every model judged whose preferences are the same.")
    pairs_judged_by_every_model: int | None = Field(
        default=None, description="Preferences: pairs every model judged.")
    krippendorff_alpha_nominal: Number | None = Field(
        default=None, description="Preferences: Krippendorff's alpha on the nominal level.")


class CacheHitRate(Block):
    threshold: Number = Field(description="The similarity at which the rate is read.")
    hit_rate: Number = Field(description="The share of test questions whose best similarity is above it.")


class CacheNote(Block):
    """ux: the semantic cache simulated over the log."""

    threshold: Number = Field(description="The calibrated similarity above which a cached answer is a hit.")
    raw_threshold: Number | None = Field(
        default=None, description="That threshold as this embedder's raw cosine (absent from the first ux reports).")
    hit: str = Field(description="What counts as a hit.")
    cached_questions: int = Field(description="Questions the cache holds.")
    cached_score: int = Field(description="The rating an answer needs to be cached.")
    test_questions: int = Field(description="Questions asked against the cache.")
    history_sessions: int = Field(description="Sessions whose questions fill the cache.")
    test_sessions: int = Field(description="Sessions whose questions are asked.")
    split: str = Field(description="How the sessions were split.")
    hit_rate_curve: list[CacheHitRate] = Field(description="The hit rate at other thresholds.")
    undetermined: str | None = Field(description="Why the rate is undetermined, when it is.")


class SessionCounts(Block):
    total: int = Field(description="Sessions in the log.")
    with_two_or_more_turns: int = Field(description="Sessions the multi-turn metrics are over.")


# --- the block ----------------------------------------------------------------------------------------


class Notes(Block):
    """How the numbers were computed, in each tier's own words; report.md shows every note."""

    # read by report.markdown.metric_statuses
    statuses: Mapping[str, int | Mapping[str, int]] | None = Field(
        default=None, description="Outcomes by status (ok, undetermined, parse_error, api_error, ...): per metric in "
        "bench evaluate (per grade in tiers 2 and 3), or one count for the whole run (bench judge).")
    means: str | None = Field(default=None, description="What the means are over, and what is left out of them.")
    confidence_intervals: str | None = Field(default=None, description="Tier 1: how the intervals were computed.")

    # tier 1, real-users
    relevance: str | None = Field(default=None, description="Tier 1: what is relevant, a chunk or a page (url).")
    depth: int | None = Field(default=None, description="Tier 1 and real-users: results ranked per question.")
    mrr_cutoff: int | None = Field(default=None, description="Tier 1: the rank MRR stops at.")
    ties: str | None = Field(default=None, description="Tier 1: how equal scores are ordered.")
    queries: Queries | None = Field(default=None, description="Tier 1: how the questions were counted.")
    retrieval_consistency: str | None = Field(default=None, description="Tier 1: what the metric compares.")
    ann_recall: str | None = Field(default=None, description="Tier 1 on hnsw: what ann_recall@k measures.")
    ground_truth: str | None = Field(default=None, description="real-users: what a logged turn's ground truth is.")
    log_entries: LogEntries | None = Field(default=None, description="real-users: the logged turns counted.")
    chunk_utilization: ChunkUtilization | None = Field(default=None, description="real-users: chunks used.")
    topic_coverage: TopicCoverage | None = Field(default=None, description="real-users: the questions' topics.")

    # tier 0
    embeddings_of: str | None = Field(default=None, description="Tier 0: which texts were embedded.")
    distance: str | None = Field(default=None, description="Tier 0: the distance the neighbours are found by.")
    neighbours_k: int | None = Field(default=None, description="Tier 0: neighbours per embedding.")
    pairwise: str | None = Field(default=None, description="Tier 0: over which pairs the pairwise numbers are.")
    spread: str | None = Field(default=None, description="Tier 0: what avg_spread measures.")
    effective_dimensionality: str | None = Field(default=None, description="Tier 0: what the number counts.")
    std: str | None = Field(default=None, description="Tier 0: which standard deviation.")
    density_score: str | None = Field(default=None, description="Tier 0: its formula.")

    # tiers 2 and 3, evaluate, the judges
    backend: str | None = Field(default=None, description="Who graded: llm, local or offline.")
    mode: str | None = Field(default=None, description="The judge's mode (direct or reasoned); null offline.")
    language: str | None = Field(default=None, description="The language of the judge's prompts.")
    models: list[str] | None = Field(default=None, description="The judge models, each grading every unit.")
    models_pooled: str | None = Field(default=None, description="How the metrics pool several judge models.")
    agreement: dict[str, JudgesAgreement] | None = Field(
        default=None, description="With several judge models: by metric, how far they agree with each other.")
    options: dict[str, str | Number | dict[str, Number] | None] | None = Field(
        default=None, description="bench evaluate: the judged metrics' options (judge.options.JudgeOptions).")
    offline_proxies: dict[str, str] | None = Field(
        default=None, description="--judge offline: by metric, what its proxy computes.")
    rubrics: dict[str, RubricNote] | None = Field(default=None, description="The rubric metrics asked.")
    pass_marks: dict[str, Number] | None = Field(
        default=None, description="bench evaluate: per metric, the value at or above which one unit passes (at or "
        "below where lower is better), what bench compare counts flipped cases against unless a gate sets "
        "pass_threshold.")
    graded_answer: str | None = Field(default=None, description="Tiers 2 and 3: which answer was graded.")
    repeats: int | None = Field(default=None, description="Answers (tiers 2, 3) or ratings (judge) per unit.")
    read_from_a_lone_number: int | dict[str, int] | None = Field(
        default=None, description="Grades read from a reply holding only a number instead of JSON: per rating "
        "(tiers 2 and 3) or for the run (bench judge).")
    context: str | None = Field(default=None, description="Tier 2: the fixed context each question is given.")
    questions: QuestionCounts | None = Field(default=None, description="Tiers 2 and 3: the questions counted.")
    retrieval: EndToEndRetrieval | None = Field(default=None, description="Tier 3: the retrieval that gave context.")
    e2e_by_retrieval: RetrievalSplit | None = Field(
        default=None, description="Tier 3: the e2e score where retrieval hit and where it missed.")
    scales: dict[str, str] | None = Field(default=None, description="Tiers 2 and 3: each metric's scale.")

    # bench judge
    rating: str | None = Field(default=None, description="bench judge: the rating asked.")
    scale: list[Number] | None = Field(default=None, description="bench judge: the rating's [low, high].")
    delta: Number | None = Field(default=None, description="bench judge: δ, how far repeats may differ to agree.")
    consistency_score: str | None = Field(default=None, description="bench judge: what the metric counts.")
    mean_abs_difference: str | None = Field(default=None, description="bench judge: what the metric averages.")
    error_rate: str | None = Field(default=None, description="The judges: what the error rate counts.")
    missing: int | None = Field(default=None, description="bench judge: items with fewer than two scored repeats.")
    undetermined: int | None = Field(default=None, description="bench judge: ratings left undetermined.")
    means_by_ground_truth_show: dict[str, Number | None] | None = Field(
        default=None, description="bench judge: the mean rating of items labelled shown (true) and not (false).")
    offline: str | None = Field(default=None, description="bench judge --judge offline: what the proxy computes.")

    # bench judge --pairwise
    orders: str | None = Field(default=None, description="judge-pairwise: the orders each pair is shown in.")
    position_consistency: str | None = Field(default=None, description="judge-pairwise: what the metric counts.")
    first_position_rate: str | None = Field(default=None, description="judge-pairwise: what the metric counts.")
    tie_rate: str | None = Field(default=None, description="judge-pairwise: what the metric counts.")
    pairwise_accuracy: str | None = Field(default=None, description="judge-pairwise: what the metric counts.")
    preferences: dict[str, int] | None = Field(default=None, description="judge-pairwise: preferences counted.")
    labelled_pairs: int | None = Field(default=None, description="judge-pairwise: pairs with a label.")

    # judge-pipeline
    positive_class: str | None = Field(default=None, description="judge-pipeline: the class precision is of.")
    confusion: dict[str, int] | None = Field(
        default=None, description="judge-pipeline: the confusion matrix's counts, and the unparseable decisions by "
        "truth.")
    unparseable: int | None = Field(default=None, description="judge-pipeline: replies no decision was read from.")
    accuracy: str | None = Field(default=None, description="judge-pipeline: what accuracy is over.")
    undefined: dict[str, str] | None = Field(
        default=None, description="judge-pipeline: by metric, why it is undefined.")
    api_errors: int | None = Field(default=None, description="judge-pipeline: calls that failed.")

    # ux
    cache: CacheNote | None = Field(default=None, description="ux: the semantic cache simulated.")
    sessions: SessionCounts | None = Field(default=None, description="ux: the sessions counted.")
    multi_turn_consistency: str | None = Field(default=None, description="ux: which definition the metric follows.")
