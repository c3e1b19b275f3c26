"""The OpenAI-compatible /embeddings backend (OpenAI, OpenRouter, vLLM, TEI, a local CPU server), built to
survive real servers: bounded batches and concurrency, retries that never pile work onto a server
still busy with the same batch, and every finished batch handed on at once so the cache keeps it.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from benchmarks.config import REDACTED, Settings, redact_url
from benchmarks.endpoints import endpoint_identity
from benchmarks.errors import BenchError

Progress = Callable[[int], None]


class OpenAIEmbedder:
    """Any OpenAI-compatible /embeddings endpoint (OpenAI, OpenRouter, vLLM, TEI).

    Its id names the endpoint as well as the model (`openai:<host[:port]/path>/<model>`, no scheme, user,
    password or query, normalised as `endpoints.endpoint_url` does for every cache), so two servers serving one
    model name never share cached vectors or a space.

    Batches of `embedding_batch_size` texts go out on up to `embedding_concurrency` threads; each
    finished batch is handed to `on_batch` at once (the cache writes it), so a failure or Ctrl-C loses
    only the batches in flight. The client's own retries are off; bench's rule is the only one:
    - a timeout means the server was too slow for that batch and may still be working on it: the thread
      keeps its slot for `embedding_timeout_s` more (no new request takes the server's place), the batch
      goes back split in halves (down to one text), and from then on batches are at most that size and
      concurrency is halved (once per round of requests that timed out together);
    - 429, 5xx and connection errors: the same batch again after the server's Retry-After, else 2 s
      doubling up to 30 s (but a connection error before the endpoint ever answered, a wrong URL or a
      server that is down, ends the run at once); HTTP 413 splits the batch at once;
    - any other error (a bad key, an unknown model) ends the run at once, as does a text that failed
      `embedding_max_attempts` times: one BenchError naming the endpoint, its password masked.
    """

    backend = "openai"
    PROBE_TEXT = "dimension probe"

    def __init__(self, settings: Settings):
        from openai import OpenAI

        self.base_url = str(settings.embedding_base_url)
        self.endpoint = redact_url(self.base_url)
        self.api_key = settings.embedding_api_key
        self.timeout_s = float(settings.embedding_timeout_s)
        # what goes before each text of a role (e5 behind the endpoint wants "query: " / "passage: ")
        self.prompts: Mapping[str, str] = MappingProxyType({"query": settings.embedding_query_prefix,
                                                            "document": settings.embedding_document_prefix})
        self.max_attempts = settings.embedding_max_attempts
        self.batch_size = settings.embedding_batch_size  # shrinks on timeouts, for the rest of the run
        self.concurrency = settings.embedding_concurrency  # likewise
        self.client = OpenAI(base_url=self.base_url, api_key=self.api_key or "unused", max_retries=0,
                             timeout=self.timeout_s)
        self.model = settings.embedding_model
        self.dimensions = settings.embedding_dimensions or (settings.embedding_models or {}).get(self.model)
        # a shortened output (text-embedding-3-* with dimensions=N) is another vector space: its own cache rows
        self.model_id = f"openai:{endpoint_identity(self.base_url)}/{self.model}" + (
            f"@{self.dimensions}d" if self.dimensions else "")
        self._secrets = [secret for secret in (self.api_key, urlsplit(self.base_url).password) if secret]
        self._answered = False  # until the endpoint answers once, a connection error is a wrong URL, not a hiccup
        self._measured: int | None = None
        self._round = 0  # requests that time out in one round halve concurrency once

    def describe(self) -> str:
        return f"embeddings endpoint {self.endpoint} (model '{self.model}')"

    @property
    def dimension(self) -> int:
        """Measured with one probe request, once: the stored space and cache are checked against it."""
        if self._measured is None:
            measured = int(self.encode([self.PROBE_TEXT]).shape[1])
            if self.dimensions and measured != self.dimensions:
                raise BenchError(f"{self.describe()} was asked for {self.dimensions}-dimensional vectors and gave "
                                 f"{measured}-dimensional ones; check embedding_dimensions")
            self._measured = measured
        return self._measured

    def encode(self, texts: Sequence[str], progress: Progress | None = None,
               on_batch: Callable[[list[int], np.ndarray], None] | None = None, *, role: str = "document"
               ) -> np.ndarray:
        """Embed `texts` as `role` (its prefix put before each); `on_batch(rows, vectors)` and `progress(n)` run
        on this thread as each batch arrives."""
        texts = [self.prompts.get(role, "") + text for text in texts]
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out: np.ndarray | None = None

        def arrived(rows: list[int], vectors: np.ndarray) -> None:
            nonlocal out
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            elif vectors.shape[1] != out.shape[1]:
                raise BenchError(f"{self.describe()} gave {vectors.shape[1]}-dimensional vectors after "
                                 f"{out.shape[1]}-dimensional ones in one run")
            out[rows] = vectors
            if on_batch:
                on_batch(rows, vectors)
            if progress:
                progress(len(rows))

        _Batches(self, texts).run(arrived)
        assert out is not None
        return out

    def _request(self, texts: list[str]) -> np.ndarray:
        """One /embeddings request; a failure worth retrying is raised as `_Retry`, any other as BenchError."""
        import openai

        extra = {"dimensions": self.dimensions} if self.dimensions else {}
        try:
            response = self.client.embeddings.create(model=self.model, input=texts, **extra)
        except openai.APITimeoutError:
            raise _Retry(f"no reply within {self.timeout_s:g} s (embedding_timeout_s) to a batch of "
                         f"{len(texts)} text(s)", timeout=True) from None
        except openai.APIStatusError as exc:
            if exc.status_code == 413:
                raise _Retry(self._reason(exc), split=True) from None
            if exc.status_code == 429 or exc.status_code >= 500:
                raise _Retry(self._reason(exc), headers=exc.response.headers) from None
            raise BenchError(f"{self.describe()} failed: {self._reason(exc)}") from None
        except openai.APIConnectionError as exc:
            if not self._answered:
                raise BenchError(f"cannot reach {self.describe()}: {self._reason(exc)}; check embedding_base_url "
                                 "and that the server is up") from None
            raise _Retry(self._reason(exc)) from None
        except openai.OpenAIError as exc:
            raise BenchError(f"{self.describe()} failed: {self._reason(exc)}") from None
        self._answered = True
        data = sorted(response.data or [], key=lambda item: item.index)
        if len(data) != len(texts):
            raise BenchError(f"{self.describe()} answered {len(data)} embedding(s) to a batch of {len(texts)} texts")
        return np.asarray([item.embedding for item in data], dtype=np.float32)

    def _reason(self, exc: Exception) -> str:
        """What went wrong, one line, the key scrubbed even when an endpoint quotes it back."""
        import openai

        if isinstance(exc, openai.APIStatusError):
            body = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
            message = body.get("message") if isinstance(body, dict) else None
            text = f"{type(exc).__name__} (HTTP {exc.status_code}): {message or exc.message}"
        elif isinstance(exc, openai.APIConnectionError):
            text = f"connection error: {exc.__cause__ or exc.message}"
        else:
            text = f"{type(exc).__name__}: {exc}"
        text = (text.splitlines() or [""])[0][:300]
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


class _Retry(Exception):
    """A request worth trying again: `timeout` (split, slow down, let the server finish), `split` (too big)."""

    def __init__(self, reason: str, *, timeout: bool = False, split: bool = False, headers: Any = None):
        super().__init__(reason)
        self.reason, self.timeout, self.split, self.headers = reason, timeout, split or timeout, headers


class _Batches:
    """One `encode` call's texts, sent as batches by up to `concurrency` worker threads.

    Workers take the next `batch_size` pending texts whenever fewer than `concurrency` slots are taken;
    a slot stays taken through the wait after a failure, so a server still busy with an abandoned request
    gets no other in its place. Finished batches go to the calling thread through a queue, so the cache is
    written there, in order of arrival; an error or Ctrl-C there stops the workers from taking more.
    """

    def __init__(self, embedder: OpenAIEmbedder, texts: list[str]):
        self.embedder = embedder
        self.texts = texts
        self.pending: deque[int] = deque(range(len(texts)))
        self.failures = [0] * len(texts)
        self.active = 0
        self.stopped = threading.Event()
        self.changed = threading.Condition()
        self.arrived: queue.Queue[tuple[list[int], np.ndarray] | BaseException] = queue.Queue()

    def run(self, handle: Callable[[list[int], np.ndarray], None]) -> None:
        e = self.embedder
        workers = min(e.concurrency, -(-len(self.texts) // e.batch_size))
        for _ in range(workers):
            threading.Thread(target=self._work, name="bench-embed", daemon=True).start()
        try:
            received = 0
            while received < len(self.texts):
                try:
                    item = self.arrived.get(timeout=0.2)
                except queue.Empty:
                    continue
                if isinstance(item, BaseException):
                    raise item
                received += len(item[0])
                handle(*item)
        except KeyboardInterrupt:
            self._stop()
            while True:  # batches that arrived before the Ctrl-C are kept too
                try:
                    item = self.arrived.get_nowait()
                except queue.Empty:
                    break
                if not isinstance(item, BaseException):
                    handle(*item)
            raise
        finally:
            self._stop()

    def _stop(self) -> None:
        with self.changed:
            self.stopped.set()
            self.changed.notify_all()

    def _work(self) -> None:
        e = self.embedder
        while True:
            with self.changed:
                while not self.stopped.is_set() and (not self.pending or self.active >= e.concurrency):
                    if not self.pending and self.active == 0:
                        return  # all sent and answered: nobody can put texts back
                    self.changed.wait()
                if self.stopped.is_set():
                    return
                rows = [self.pending.popleft() for _ in range(min(e.batch_size, len(self.pending)))]
                self.active += 1
                started_round = e._round
            wait = 0.0
            try:
                self.arrived.put((rows, e._request([self.texts[i] for i in rows])))
            except _Retry as retry:
                wait = self._retry_later(rows, retry, started_round)
            except BaseException as exc:  # noqa: BLE001 -- a BenchError, or a bug: the calling thread raises it
                self.arrived.put(exc)
                self._stop()
            if wait > 0:
                self.stopped.wait(wait)  # holding the slot; a stop cuts the wait short
            with self.changed:
                self.active -= 1
                self.changed.notify_all()

    def _retry_later(self, rows: list[int], retry: _Retry, started_round: int) -> float:
        """Put the batch back (split when it was too slow or too big) and say how long to hold the slot."""
        from benchmarks.services.llm import backoff_s

        e = self.embedder
        with self.changed:
            for i in rows:
                self.failures[i] += 1
            attempts = max(self.failures[i] for i in rows)
            if attempts >= e.max_attempts:
                self.arrived.put(BenchError(
                    f"{e.describe()} failed: {retry.reason} (gave up after {attempts} attempt(s); "
                    "finished batches are cached, so a rerun embeds only the rest)"))
                self.stopped.set()
                self.changed.notify_all()
                return 0.0
            if retry.split:
                e.batch_size = max(1, min(e.batch_size, len(rows) // 2))
            if retry.timeout and started_round == e._round:
                e._round += 1
                e.concurrency = max(1, e.concurrency // 2)
            self.pending.extendleft(reversed(rows))
            self.changed.notify_all()
        if retry.timeout:
            return e.timeout_s  # the abandoned request may still be running: give the server that long
        if retry.split:
            return 0.0
        return backoff_s(attempts, retry.headers)

