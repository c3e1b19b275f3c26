"""The one way bench talks to a chat model, for every tier that needs one.

Any OpenAI-compatible endpoint, through the openai async client. A failed call never raises: it
comes back as a `Completion` with status `api_error` and the reason, so one bad sample never stops a
run of thousands. The client's own retries are off, so bench's policy (`transport.retry`) is the only one,
up to `llm_max_attempts` tries; the calls in flight (`transport.concurrency`) never exceed the slots a
llama.cpp server declares in `/props` (`total_slots`).

A call that expects JSON passes its schema; `llm_structured_output` decides how it is asked for
(`response_format` json_schema or json_object, or the prompt alone). `auto` starts with json_schema and
falls back, once per model, when the endpoint refuses the format with a 4xx naming it; the format sent
is part of the cache key, and the mode each model ended with is in the usage report. A reply cut off by
the token limit (`finish_reason: length`) is returned as such and not cached.

The cache key names the endpoint and what it serves (`llm_cache`): before its first cache lookup a run asks
the endpoint once, `GET /models` (its entry for the model: vLLM's `root`, llama.cpp's `meta`) and
llama.cpp's `GET /props` (`model_path`). A server that refuses either (404, 501, ...) is keyed by URL and
model; one that cannot be asked now (down, timing out, overloaded after the retries) by its last complete
answer, so a fully cached rerun still needs no server. The key must be known before the call, so a reply's
own `system_fingerprint` cannot be part of it: it is kept with the reply and shown in the usage report.
"""

from __future__ import annotations

import asyncio
import random as randomness
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Self

import openai
from openai.types.chat import ChatCompletion

from benchmarks.chat.cache import FILE_NAME, CachedReply, LLMCache, Served, cache_key
from benchmarks.chat.request import (
    ROLES,
    TOP_LOGPROBS,
    ChatRequest,
    Message,
    ResponseSchema,
    Role,
    model_for,
)
from benchmarks.chat.routing import ChatEndpoint, default_endpoint, require_chat
from benchmarks.config import Settings
from benchmarks.report_model import LlmUsage, ModelUsage, ServedIdentity, StructuredOutput
from benchmarks.transport import reachability
from benchmarks.transport.concurrency import AdaptiveLimit
from benchmarks.transport.endpoints import props_url, served_identity
from benchmarks.transport.reachability import PROBE_TIMEOUT_S
from benchmarks.transport.redaction import REDACTED
from benchmarks.transport.retry import Failed, Random, RetryPolicy, Sleep, Tried, ms_since, retryable_status

Status = Literal["ok", "api_error"]
StructuredMode = Literal["json_schema", "json_object", "off"]
# the endpoint's /models and /props as answered (None: not answered), and whether both answers are lasting ones
_Listing = tuple[Any, Any, bool]
Progress = Callable[[int], None]

_REASON_CHARS = 300
LOGPROBS_PROBE = "Is water wet? Answer Yes or No."
_FALLBACK: dict[StructuredMode, StructuredMode] = {"json_schema": "json_object", "json_object": "off"}
# words of a 4xx that refuses the response format itself (OpenAI, vLLM, llama.cpp, Ollama, LiteLLM phrasings)
_FORMAT_WORDS = ("response_format", "json_schema", "json schema", "json_object", "grammar", "structured")


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """One chat call's outcome. `usage` of a cached reply is what the original call used.

    Its own type, at the services level, because only an LLM call has a model, a role, token usage, a cache
    entry and a finish reason; `EndpointReply` is the system under test's HTTP call, which has none of these.

    `latency_ms` is the answering attempt's, from its request to its reply: neither the backoff before it
    nor the wait for a concurrency slot; `attempts` is 0 for a reply served from the cache or a dry run.
    `finish_reason` "length" means the text was cut off by the token limit.
    """

    status: Status
    text: str | None
    model: str
    role: Role
    usage: Usage
    latency_ms: float
    attempts: int
    cached: bool
    error: str | None = None
    finish_reason: str | None = None
    cache_key: str | None = None  # where the reply is cached, so a reply that proves unusable can be dropped
    # the first token's alternatives and their log-probabilities, where the call asked for them and the server
    # gave them (OpenAI's, vLLM's and llama.cpp's `logprobs.content[0].top_logprobs`)
    top_logprobs: tuple[tuple[str, float], ...] = ()

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


@dataclass
class _Tally:
    """Counts for one (role, model)."""

    calls: int = 0
    http_requests: int = 0
    cache_hits: int = 0
    api_errors: int = 0
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fingerprints: set[str] = field(default_factory=set)  # the system_fingerprint of every reply, cached ones too


class LLMService:
    """Use one service per endpoint and run: it holds the cache, the counters and the concurrency bound. `at`:
    the endpoint, as `open_chat` routed and checked it; left out, the settings' default one, checked here.

    The client, the bound and the endpoint's probe and listing belong to the event loop the service is first
    used in (the run's one loop); `aclose()` (or `async with`) closes the client, and a later call opens a new one.
    """

    def __init__(self, settings: Settings, *, at: ChatEndpoint | None = None, sleep: Sleep = asyncio.sleep,
                 random: Random = randomness.random, check_reachable: bool = True, roles: Sequence[Role] = ROLES):
        if at is None:
            require_chat(settings, roles=roles)
        self.settings = settings
        self.at = at or default_endpoint(settings)
        self.base_url, self.api_key = str(self.at.base_url), self.at.api_key
        self.endpoint = self.at.cache_key
        self.url = self.at.url
        self.retry = RetryPolicy(settings.llm_max_attempts, sleep, random)
        self._reachable = not check_reachable
        self._probe: asyncio.Task[None] | None = None
        self.cache = LLMCache(settings.data_dir / FILE_NAME) if settings.llm_cache else None
        self._tallies: dict[tuple[Role, str], _Tally] = {}
        self._client: openai.AsyncOpenAI | None = None
        self.limit = AdaptiveLimit(settings.llm_concurrency)
        self._structured: dict[str, StructuredMode] = {}  # by model: what auto settled on
        self._listing: asyncio.Task[_Listing] | None = None
        self._listing_read: _Listing | None = None
        self._served: dict[str, Served] = {}  # by model: what its replies are keyed by
        self._logprobs: dict[str, asyncio.Future[bool]] = {}  # by model: whether the endpoint gives them

    def model_for(self, role: Role) -> str:
        return str(model_for(self.settings, role))

    def url_of(self, model: str) -> str:
        return self.url

    async def complete(self, messages: Sequence[Message], *, role: Role, model: str | None = None,
                       repeat: int = 0, schema: ResponseSchema | None = None, prefix: bool = False,
                       **options: Any) -> Completion:
        """`repeat` r > 0 asks the same request again as an independent call: it is part of the
        cache key only (never sent), so measuring repeatability is not defeated by the cache,
        while a rerun of the whole benchmark still finds every repeat cached. `schema`: the answer's
        JSON schema, sent as `llm_structured_output` says. A `max_tokens` option (a judge call's budget for its
        answer) never exceeds `llm_max_tokens`. `prefix`: the caller reads only the answer's first word (a Yes or
        No), so an answer cut at `max_tokens` is what it asked for: cached and not counted as truncated."""
        model = model or self.model_for(role)
        sent = [dict(m) for m in messages]
        tally = self._tallies.setdefault((role, model), _Tally())
        served = await self._served_as(model, self.cache) if self.cache else None
        while True:
            mode = self.structured_mode(model) if schema is not None else "off"
            params = {name: value for name, value in {**self._defaults(), **options}.items() if value is not None}
            if "max_tokens" in params:  # a call's own budget, within the setting
                params["max_tokens"] = min(params["max_tokens"], self.settings.llm_max_tokens)
            if schema is not None and mode != "off":
                params["response_format"] = _response_format(mode, schema)
            key = cache_key(self.endpoint, served.identity if served else None, model, sent,
                            {**params, "bench_repeat": repeat} if repeat else params)
            started = time.perf_counter()
            if self.cache and (hit := self.cache.get(key)):
                tally.cache_hits += 1
                if hit.system_fingerprint:
                    tally.fingerprints.add(hit.system_fingerprint)
                return Completion("ok", hit.text, model, role, Usage(hit.prompt_tokens, hit.completion_tokens),
                                  ms_since(started), attempts=0, cached=True, finish_reason="stop", cache_key=key,
                                  top_logprobs=hit.top_logprobs)
            await self._ensure_reachable()
            await self._match_slots()
            outcome = await self._send(model, sent, params)
            tally.http_requests += outcome.attempts
            if outcome.failure and mode != "off" and self._falls_back(outcome.failure.error, model, mode):
                continue
            break
        tally.calls += 1
        response, attempts, latency_ms = outcome.value, outcome.attempts, outcome.latency_ms
        text, usage, finish, fingerprint = None, Usage(), None, None
        alternatives: tuple[tuple[str, float], ...] = ()
        error = outcome.explain(_reason(outcome.failure.error)) if outcome.failure else None
        if response is not None:
            text, usage, finish, error = _read(response)
            alternatives = _first_token_alternatives(response)
            fingerprint = getattr(response, "system_fingerprint", None) or None
        if error is not None:
            tally.api_errors += 1
            return Completion("api_error", None, model, role, usage, latency_ms, attempts,
                              cached=False, error=self._scrub(error))
        tally.prompt_tokens += usage.prompt_tokens
        tally.completion_tokens += usage.completion_tokens
        if fingerprint:
            tally.fingerprints.add(fingerprint)
        completion = Completion("ok", text, model, role, usage, latency_ms, attempts, cached=False,
                                finish_reason=finish, top_logprobs=alternatives)
        if completion.truncated and not prefix:
            tally.truncated += 1  # not cached: a larger token budget, asked next time, must reach the model
        elif self.cache:
            self.cache.put(key, self.endpoint, model, CachedReply(str(text), usage.prompt_tokens,
                                                                  usage.completion_tokens, fingerprint, alternatives))
            completion = replace(completion, cache_key=key)
        return completion

    def discard(self, completion: Completion) -> None:
        """Drop a reply that proved unusable (it failed validation) from the cache: a rerun asks again instead
        of repeating the failure; the run that got it keeps its outcome."""
        if self.cache and completion.cache_key:
            self.cache.forget(completion.cache_key)

    async def gives_logprobs(self, model: str) -> bool:
        """Whether the endpoint returns `model`'s token log-probabilities, asked once a run by a one-token call
        (cached like any reply, so a rerun the cache answers reads its verdicts the same way). A server that
        refuses the parameters, or answers without them, reads as no."""
        if model not in self._logprobs:
            self._logprobs[model] = asyncio.ensure_future(self._ask_logprobs(model))
        return await asyncio.shield(self._logprobs[model])

    async def _ask_logprobs(self, model: str) -> bool:
        probe = await self.complete([{"role": "user", "content": LOGPROBS_PROBE}], role="judge", model=model,
                                    prefix=True, max_tokens=1, logprobs=True, top_logprobs=TOP_LOGPROBS)
        return probe.status == "ok" and bool(probe.top_logprobs)

    def structured_mode(self, model: str) -> StructuredMode:
        """How a JSON answer is asked of `model` now: the setting, or under auto what the endpoint accepted."""
        setting = self.settings.llm_structured_output
        return self._structured.get(model, "json_schema") if setting == "auto" else setting

    def _falls_back(self, failure: openai.APIError, model: str, mode: StructuredMode) -> bool:
        """Under auto, a 4xx that names the response format moves `model` to the next mode; True to ask again."""
        if self.settings.llm_structured_output != "auto" or not _refuses_format(failure):
            return False
        if self.structured_mode(model) == mode:  # concurrent calls may all have been refused: step once
            self._structured[model] = _FALLBACK[mode]
        return True

    async def _served_as(self, model: str, cache: LLMCache) -> Served:
        """What `model`'s replies are keyed by at this endpoint (see the module's docstring). A complete reading
        is recorded, for the runs that will not be able to ask."""
        if model not in self._served:
            models, props, complete = await self._read_listing()
            identity = served_identity(models, props, model)
            if complete:
                cache.record_served(self.endpoint, model, identity)
                self._served[model] = Served(identity, "endpoint")
            else:
                self._served[model] = cache.recorded_served(self.endpoint, model) or Served(identity, "partial")
        return self._served[model]

    async def open_at_once(self) -> int:
        """How many units (items, samples) a tier keeps open: twice the calls the endpoint serves at once, so
        it stays busy while units finish, and few units are lost to a kill."""
        await self._match_slots()
        return 2 * self.limit.ceiling

    async def _match_slots(self) -> None:
        """The ceiling of calls in flight comes down to the slots the server declares, before its first call
        (the listing is read once a run; matching the same slots again changes nothing)."""
        _, props, _ = await self._read_listing()
        slots = props.get("total_slots") if isinstance(props, dict) else None
        if type(slots) is int and slots >= 1:
            self.limit.match(slots)

    async def _read_listing(self) -> _Listing:
        """The endpoint's `/models` and `/props`, asked once a run by the first call that needs them."""
        if self._listing_read is None:
            if self._listing is None:
                self._listing = asyncio.create_task(self._ask_listing())
            self._listing_read = await asyncio.shield(self._listing)  # one reading for all the calls waiting
        return self._listing_read

    async def _ask_listing(self) -> _Listing:
        (models, models_final), (props, props_final) = await asyncio.gather(
            self._get_json("/models"), self._get_json(props_url(self.base_url)))
        return models, props, models_final and props_final

    async def _get_json(self, path: str) -> tuple[Any, bool]:
        """(what the endpoint answered at `path`, or None; whether that is its lasting answer).

        A refusal (404, 501, 401, ...) is lasting: the server does not say, and the key does without. 429 and 5xx
        are retried as chat calls are (a llama.cpp server still loading its model answers 503). A server that
        cannot be reached, does not answer in time or stays overloaded has given no answer yet: False.
        """
        client, s = self._opened(), self.settings
        timeout = openai.Timeout(s.llm_timeout_s, connect=min(PROBE_TIMEOUT_S, s.llm_timeout_s))

        async def attempt() -> Any:  # a failure's error says whether the answer is a lasting one
            try:
                return await client.get(path, cast_to=object, options={"timeout": timeout})
            except openai.APIStatusError as exc:
                if exc.status_code == 501:
                    return Failed.final(True)
                return Failed.status(not retryable_status(exc.status_code), exc.status_code, exc.response.headers)
            except openai.APIError:  # no connection, or no reply in time
                return Failed.final(False)
            except ValueError:  # a body declared JSON that is not: what the server answers, lastingly
                return Failed.final(True)

        outcome: Tried[Any, bool] = await self.retry.run(attempt)
        return (outcome.value, True) if outcome.failure is None else (None, outcome.failure.error)

    async def _ensure_reachable(self) -> None:
        """Before the first call the cache cannot answer, open one TCP connection to the endpoint.

        An endpoint that is down or mistyped would otherwise cost every call its full retry schedule
        (about a minute) before the run could report anything; this fails the run in seconds, with
        one message, and only when a call is really needed, so a fully cached rerun still runs offline.
        Skipped behind a proxy, which the client reaches instead of the host.
        """
        if self._reachable:
            return
        if self._probe is None:
            timeout = min(PROBE_TIMEOUT_S, self.settings.llm_timeout_s)
            self._probe = asyncio.create_task(probe(self.base_url, timeout, self.at.setting))
        await asyncio.shield(self._probe)  # one probe for all the calls waiting on it
        self._reachable = True

    async def require_reachable(self, models: Iterable[str]) -> None:
        """The probe of a run's first uncached call, made before a tier's own costly preparation (embedding and
        indexing a corpus), so that a fresh run against an endpoint that is down fails in seconds, not after it.
        Skipped when the cache holds replies of these models from this endpoint: the run may be a rerun the cache
        answers whole, which must work offline (its first uncached call, if any, still probes)."""
        if self.cache is not None and any(self.cache.knows(self.endpoint, model) for model in models):
            return
        await probe(self.base_url, min(PROBE_TIMEOUT_S, self.settings.llm_timeout_s), self.at.setting)

    async def complete_many(self, requests: Iterable[ChatRequest], progress: Progress | None = None
                            ) -> list[Completion]:
        """All at once, at most `llm_concurrency` (or the server's slots) in flight; results in the order of the
        requests."""
        async def one(request: ChatRequest) -> Completion:
            result = await self.complete(request.messages, role=request.role, model=request.model,
                                         schema=request.schema, **request.options)
            if progress:
                progress(1)
            return result

        return list(await asyncio.gather(*(one(r) for r in requests)))

    @property
    def calls(self) -> int:
        """Calls sent to the endpoint (each may have taken several attempts)."""
        return sum(t.calls for t in self._tallies.values())

    @property
    def cache_hits(self) -> int:
        return sum(t.cache_hits for t in self._tallies.values())

    @property
    def api_errors(self) -> int:
        return sum(t.api_errors for t in self._tallies.values())

    def usage_report(self) -> LlmUsage:
        """Calls, tokens and cost by role and model, for the report's volatile block.

        Tokens count calls actually made (a cache hit is free). Cost needs `llm_prices`; models
        missing from the table are listed and left out of the total.
        """
        by_role: dict[str, dict[str, ModelUsage]] = {}
        for (role, model), tally in sorted(self._tallies.items()):
            by_role.setdefault(role, {})[model] = ModelUsage(
                calls=tally.calls, http_requests=tally.http_requests, cache_hits=tally.cache_hits,
                api_errors=tally.api_errors, truncated=tally.truncated, prompt_tokens=tally.prompt_tokens,
                completion_tokens=tally.completion_tokens,
                cost_usd=self._cost(model, tally.prompt_tokens, tally.completion_tokens),
                system_fingerprints=sorted(tally.fingerprints))
        entries = [entry for models in by_role.values() for entry in models.values()]
        prices = self.settings.llm_prices
        unpriced = {model for _, model in self._tallies if prices is not None and model not in prices}
        return LlmUsage(
            endpoint=self.url,
            cache=self.cache is not None,
            calls=sum(e.calls for e in entries),
            http_requests=sum(e.http_requests for e in entries),
            cache_hits=sum(e.cache_hits for e in entries),
            api_errors=sum(e.api_errors for e in entries),
            truncated=sum(e.truncated for e in entries),
            prompt_tokens=sum(e.prompt_tokens for e in entries),
            completion_tokens=sum(e.completion_tokens for e in entries),
            cost_usd=None if prices is None else sum(e.cost_usd for e in entries if e.cost_usd is not None),
            unpriced_models=sorted(unpriced),
            by_role=by_role,
            concurrency=self.limit.report(),
            structured_output=StructuredOutput(setting=self.settings.llm_structured_output,
                                               by_model={model: self.structured_mode(model)
                                                         for _, model in sorted(self._tallies)}),
            served={model: ServedIdentity(identity=None if served.identity is None else dict(served.identity),
                                          source=served.source)
                    for model, served in sorted(self._served.items())},
        )

    async def aclose(self) -> None:
        """Close the client, if a call opened one."""
        if self._client is not None:
            await self._client.close()
        self._client = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _defaults(self) -> dict[str, Any]:
        s = self.settings
        return {"temperature": s.llm_temperature, "max_tokens": s.llm_max_tokens, "top_p": s.llm_top_p}

    def _opened(self) -> openai.AsyncOpenAI:
        """The client, opened by the first call that needs it (in the event loop it then stays tied to)."""
        if self._client is None:
            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key or "unused",
                                              max_retries=0, timeout=self.settings.llm_timeout_s)
        return self._client

    async def _send(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]
                    ) -> Tried[Any, openai.APIError]:
        """The reply, or the final failure, of one chat call through the retry policy."""
        client = self._opened()

        async def attempt() -> Any:
            try:
                # the client's documented raw `post`: `chat.completions.create` would first walk the
                # request through openai's type-driven transform, 2–3 ms of CPU a call, which at
                # concurrency 16 is most of bench's own overhead; the reply is parsed the same way
                return await client.post("/chat/completions", cast_to=ChatCompletion,
                                         body={"model": model, "messages": messages, **params})
            except openai.APIError as exc:
                return _failed(exc)

        return await self.retry.run(attempt, self.limit)

    def _cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        price = (self.settings.llm_prices or {}).get(model)
        if price is None:
            return None
        return (prompt_tokens * price["input"] + completion_tokens * price["output"]) / 1_000_000

    def _scrub(self, text: str) -> str:
        """The key never leaves the process, even when an endpoint quotes it back in an error."""
        key = self.api_key
        return (text.replace(key, REDACTED) if key else text)[:_REASON_CHARS]


async def probe(url: str, timeout_s: float, setting: str) -> None:
    """The LLM endpoint reachable, or one line naming it and its setting (transport.reachability)."""
    await reachability.probe(url, timeout_s, what="the LLM endpoint", advice=f"no call was made beyond the "
                             f"cached replies: check {setting} and the network")


def _response_format(mode: StructuredMode, schema: ResponseSchema) -> dict[str, Any]:
    if mode == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": schema.name, "schema": dict(schema.schema), "strict": True}}


def _refuses_format(exc: openai.APIError) -> bool:
    if not isinstance(exc, openai.APIStatusError) or not 400 <= exc.status_code < 500 or exc.status_code == 429:
        return False
    message = _reason(exc).lower()
    return any(word in message for word in _FORMAT_WORDS)


def _failed(exc: openai.APIError) -> Failed[openai.APIError]:
    """An openai client error as the retry policy sees it."""
    if isinstance(exc, openai.APIStatusError):
        return Failed.status(exc, exc.status_code, exc.response.headers)
    if isinstance(exc, openai.APITimeoutError):
        return Failed.timeout(exc)
    return Failed.connection(exc) if isinstance(exc, openai.APIConnectionError) else Failed.final(exc)


def _reason(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIStatusError):
        body = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
        message = body.get("message") if isinstance(body, dict) else None
        return f"HTTP {exc.status_code}: {message or exc.message}".splitlines()[0]
    if isinstance(exc, openai.APIConnectionError):
        return f"connection error: {exc.__cause__ or exc.message}".splitlines()[0]
    return f"{type(exc).__name__}: {exc.message}".splitlines()[0]


def _first_token_alternatives(response: Any) -> tuple[tuple[str, float], ...]:
    """The first generated token's alternatives with their log-probabilities; () when the reply has none."""
    choices = getattr(response, "choices", None) or ()
    logprobs = getattr(choices[0], "logprobs", None) if choices else None
    content = getattr(logprobs, "content", None) or ()
    first = getattr(content[0], "top_logprobs", None) if content else None
    return tuple((str(t.token), float(t.logprob)) for t in first or () if t.logprob is not None)


def _read(response: Any) -> tuple[str | None, Usage, str | None, str | None]:
    """Text, usage, finish reason and error of a 200 reply; some gateways answer 200 with an error body and
    no choices."""
    choices = getattr(response, "choices", None)
    usage = getattr(response, "usage", None)
    tokens = Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else Usage()
    if not choices:
        return None, tokens, None, "the reply has no choices"
    return choices[0].message.content or "", tokens, choices[0].finish_reason, None
