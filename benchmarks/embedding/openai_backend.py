"""The OpenAI-compatible /embeddings backend (OpenAI, OpenRouter, vLLM, TEI, a local CPU server), built to
survive real servers: bounded batches and concurrency, retries by bench's one policy (`transport.retry`)
that never pile work onto a server still busy with the same batch, and every finished batch handed on at once
so the cache keeps it.
"""

from __future__ import annotations

import queue
import random as randomness
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from benchmarks.config import Settings
from benchmarks.embedding.capabilities import Capabilities
from benchmarks.errors import BenchError
from benchmarks.transport.concurrency import AdaptiveLimit
from benchmarks.transport.endpoints import endpoint_identity
from benchmarks.transport.redaction import REDACTED, redact_url
from benchmarks.transport.retry import Failed, Random, RetryPolicy

if TYPE_CHECKING:  # embedder.py imports this module
    from benchmarks.embedding.embedder import Role

Progress = Callable[[int], None]


class OpenAIEmbedder:
    """Any OpenAI-compatible /embeddings endpoint (OpenAI, OpenRouter, vLLM, TEI).

    Its id names the endpoint as well as the model (`openai:<host[:port]/path>/<model>`, no scheme, user,
    password or query, normalised as `endpoints.endpoint_url` does for every cache), so two servers serving one
    model name never share cached vectors or a space.

    Batches of `embedding_batch_size` texts go out on up to `embedding_concurrency` threads; each
    finished batch is handed to `on_batch` at once (the cache writes it), so a failure or Ctrl-C loses
    only the batches in flight. The client's own retries are off; bench's policy (`transport.retry`) is the
    only one, with the adaptive concurrency limit all its clients share (a timeout, 429 or 503 halves it once
    per episode, a run of successes raises it by one), and these rules of its own:
    - a timeout means the server was too slow for that batch and may still be working on it: the thread
      keeps its slot for `embedding_timeout_s` more (the abandoned request is still on the server's wire, so
      no new request takes its place), and the batch goes back split in halves (down to one text); from then
      on batches are at most that size;
    - 429, 5xx and connection errors: the same batch again after the policy's backoff, its slot free
      meanwhile (but a connection error before the endpoint ever answered, a wrong URL or a server that is
      down, ends the run at once); HTTP 413 splits the batch at once;
    - any other error (a bad key, an unknown model) ends the run at once, as does a text that failed
      `embedding_max_attempts` times: one BenchError naming the endpoint, its password masked.
    """

    backend = "openai"
    # a server may change the model behind a name: the dimension is measured, and keys the cache rows
    capabilities = Capabilities(dimension_up_front=False, dimension_in_cache_id=True, caches_each_batch=True)
    PROBE_TEXT = "dimension probe"

    def __init__(self, settings: Settings, *, random: Random = randomness.random):
        from openai import OpenAI

        self.base_url = str(settings.embedding_base_url)
        self.endpoint = redact_url(self.base_url)
        self.api_key = settings.embedding_api_key
        self.timeout_s = float(settings.embedding_timeout_s)
        # what goes before each text of a role (e5 behind the endpoint wants "query: " / "passage: ")
        self.prompts: Mapping[Role, str] = MappingProxyType({"query": settings.embedding_query_prefix,
                                                             "document": settings.embedding_document_prefix})
        self.retry = RetryPolicy(settings.embedding_max_attempts, random=random)  # its waits are threads' own
        self.batch_size = settings.embedding_batch_size  # shrinks on timeouts, for the rest of the run
        self.limit = AdaptiveLimit(settings.embedding_concurrency)
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
               on_batch: Callable[[list[int], np.ndarray], None] | None = None, *, role: Role = "document"
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

        extra: dict[str, Any] = {"dimensions": self.dimensions} if self.dimensions else {}
        try:
            response = self.client.embeddings.create(model=self.model, input=texts, **extra)
        except openai.APITimeoutError:
            raise _Retry(Failed.timeout(f"no reply within {self.timeout_s:g} s (embedding_timeout_s) to a batch of "
                                        f"{len(texts)} text(s)"), abandoned=True) from None
        except openai.APIStatusError as exc:
            failed = Failed.status(self._reason(exc), exc.status_code, exc.response.headers)
            if exc.status_code == 413:
                raise _Retry(failed, split=True) from None
            if failed.retryable:
                raise _Retry(failed) from None
            raise BenchError(f"{self.describe()} failed: {failed.error}") from None
        except openai.APIConnectionError as exc:
            if not self._answered:
                raise BenchError(f"cannot reach {self.describe()}: {self._reason(exc)}; check embedding_base_url "
                                 "and that the server is up") from None
            raise _Retry(Failed.connection(self._reason(exc))) from None
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
    """A request worth trying again: `abandoned` when it timed out (the server may still be working on it: split
    the batch and let the server finish), `split` when the batch was too big."""

    def __init__(self, failed: Failed[str], *, split: bool = False, abandoned: bool = False):
        super().__init__(failed.error)
        self.failed, self.split, self.abandoned = failed, split or abandoned, abandoned


class _Batches:
    """One `encode` call's texts, sent as batches by up to `concurrency` worker threads.

    Workers take the next `batch_size` pending texts whenever fewer than the limit's slots are taken. A slot is
    held while a request is on the wire, an abandoned one included (the timeout's wait); a batch that waits out
    its backoff holds none, and goes back to the pending texts when the wait is over. Finished batches go to the
    calling thread through a queue, so the cache is written there, in order of arrival; an error or Ctrl-C
    there stops the workers from taking more.
    """

    def __init__(self, embedder: OpenAIEmbedder, texts: list[str]):
        self.embedder = embedder
        self.texts = texts
        self.pending: deque[int] = deque(range(len(texts)))
        self.failures = [0] * len(texts)
        self.active = 0
        self.backing_off = 0  # batches waiting out their backoff, to be sent again
        self.stopped = threading.Event()
        self.changed = threading.Condition()
        self.arrived: queue.Queue[tuple[list[int], np.ndarray] | BaseException] = queue.Queue()

    def run(self, handle: Callable[[list[int], np.ndarray], None]) -> None:
        e = self.embedder
        workers = min(e.limit.ceiling, -(-len(self.texts) // e.batch_size))
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
        while (taken := self._take()) is not None:
            rows, episode = taken
            try:
                self.arrived.put((rows, e._request([self.texts[i] for i in rows])))
                self._free(e.limit.succeeded)
            except _Retry as retry:
                self._retry_later(rows, retry, episode)
            except BaseException as exc:  # noqa: BLE001 -- a BenchError, or a bug: the calling thread raises it
                self.arrived.put(exc)
                self._stop()
                self._free()

    def _take(self) -> tuple[list[int], int] | None:
        """The next batch and the limit's episode as it goes out, once a slot is free; None when all is answered
        or the run stopped."""
        e = self.embedder
        with self.changed:
            while not self.stopped.is_set() and (not self.pending or self.active >= e.limit.limit):
                if not self.pending and self.active == 0 and self.backing_off == 0:
                    return None  # all sent and answered: nobody can put texts back
                self.changed.wait()
            if self.stopped.is_set():
                return None
            self.active += 1
            return [self.pending.popleft() for _ in range(min(e.batch_size, len(self.pending)))], e.limit.episode

    def _free(self, then: Callable[[], None] = lambda: None) -> None:
        """Give the slot back, after `then` (the limit's bookkeeping) under the same lock."""
        with self.changed:
            then()
            self.active -= 1
            self.changed.notify_all()

    def _retry_later(self, rows: list[int], retry: _Retry, episode: int) -> None:
        """Put the batch back (split when it was too slow or too big): at once, or after its backoff."""
        e = self.embedder
        with self.changed:
            attempts = self._failed(rows)
            if attempts >= e.retry.max_attempts:
                self.arrived.put(BenchError(
                    f"{e.describe()} failed: {retry.failed.error} (gave up after {attempts} attempt(s); "
                    "finished batches are cached, so a rerun embeds only the rest)"))
                self.stopped.set()
                self.active -= 1
                self.changed.notify_all()
                return
            if retry.split:
                e.batch_size = max(1, min(e.batch_size, len(rows) // 2))
            if retry.failed.overloads:
                e.limit.overloaded(episode)
            backoff = 0.0 if retry.split else e.retry.wait_s(attempts, retry.failed.headers)
            if backoff > 0:
                self.backing_off += 1
            else:
                self.pending.extendleft(reversed(rows))
            if not retry.abandoned:
                self.active -= 1
            self.changed.notify_all()
        if retry.abandoned:
            self.stopped.wait(e.timeout_s)  # the abandoned request may still be running: its slot stays taken
            self._free()
        elif backoff > 0:
            self.stopped.wait(backoff)  # a stop cuts the wait short
            with self.changed:
                self.backing_off -= 1
                self.pending.extendleft(reversed(rows))
                self.changed.notify_all()

    def _failed(self, rows: list[int]) -> int:
        """Count a failed attempt for each text of the batch; the most any of them has failed."""
        for i in rows:
            self.failures[i] += 1
        return max(self.failures[i] for i in rows)
