"""The user's own service over HTTP: a JSON body built from a template, one string read from the reply.

bench cannot know the shape of a user's RAG service or production judge, so the shape is configured:
a JSON body template whose string values hold `{name}` placeholders, and a dotted path to the text in
the response JSON. The template is parsed as JSON first and filled value by value, so a question with
quotes or newlines is inserted as data and can never break the body; a string that is exactly a list
variable (`"{contexts}"`) becomes a JSON list. Everything is checked once, before the first call, so a
typo in a setting stops the run at once instead of failing every item.

Calls follow the LLM service's rules (`benchmarks.chat.client`): the same timeout, attempts and
concurrency settings, the same retry policy and adaptive concurrency limit (`benchmarks.transport.retry`), and
a failed call comes back as an `api_error` reply, never an exception, with the bearer token scrubbed.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random as randomness
import string
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, Self

from benchmarks._version import __version__
from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.report_model import HttpUsage
from benchmarks.transport.concurrency import AdaptiveLimit
from benchmarks.transport.reachability import PROBE_TIMEOUT_S, probe
from benchmarks.transport.redaction import REDACTED, redact_url
from benchmarks.transport.retry import Failed, Random, RetryPolicy, Sleep, Tried

try:
    import httpx2 as httpx
except ImportError:  # openai before 3.0 depends on httpx under its original name
    import httpx  # type: ignore[no-redef]

Prefix = Literal["generator", "show_judge"]
Variables = Mapping[str, str | Sequence[str]]
_SERVICE = {"generator": "your RAG service", "show_judge": "your production show/no-show judge"}
_REASON_CHARS = 300
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
               int: "a number", float: "a number"}


@dataclass(frozen=True)
class _Text:
    """A string value of the template as (literal text, placeholder or None) pieces; `{{` is already `{`."""

    pieces: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class _List:
    """A string value that is exactly a list placeholder: it becomes the JSON list itself."""

    name: str


@dataclass(frozen=True)
class _Names:
    """The variables a caller provides, and the setting to name when the template asks for others."""

    setting: str
    texts: frozenset[str]
    lists: frozenset[str]

    def fail(self, problem: str) -> NoReturn:
        raise BenchError(f"setting {self.setting}: {problem}")

    def allowed(self) -> str:
        return ", ".join(f"{{{name}}}" for name in sorted(self.texts | self.lists))


@dataclass(frozen=True)
class RequestTemplate:
    """A JSON body template, parsed and checked once against the variables its caller provides."""

    text: str
    body: Any = field(repr=False)  # the parsed JSON, its strings compiled to _Text or _List

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @classmethod
    def parse(cls, text: str, *, setting: str, texts: Collection[str], lists: Collection[str] = ()) -> Self:
        """`texts` and `lists` are the variables the caller fills in; `setting` is named in any error."""
        names = _Names(setting, frozenset(texts), frozenset(lists))
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            names.fail(f"not valid JSON ({exc}); write the body as JSON with placeholders inside strings, "
                       f'e.g. {{"question": "{{question}}"}}')
        return cls(text, _compile(document, names))

    def fill(self, variables: Variables) -> Any:
        """The body to send; `variables` must hold every placeholder the template uses."""
        return _fill(self.body, variables)


def _compile(node: Any, names: _Names) -> Any:
    if isinstance(node, str):
        return _compile_string(node, names)
    if isinstance(node, dict):  # keys are the service's field names, kept as written
        return {key: _compile(value, names) for key, value in node.items()}
    if isinstance(node, list):
        return [_compile(value, names) for value in node]
    return node


def _compile_string(value: str, names: _Names) -> _Text | _List:
    try:
        parsed = list(string.Formatter().parse(value))
    except ValueError as exc:
        names.fail(f"{value[:80]!r}: {exc}; write literal braces as {{{{ and }}}}")
    for _, name, spec, conversion in parsed:
        if name is not None and (spec or conversion or name not in names.texts | names.lists):
            shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            names.fail(f"unknown placeholder {shown}; the template may use {names.allowed()} "
                       "(literal braces doubled: {{ and }})")
        if name in names.lists and parsed != [("", name, "", None)]:
            names.fail(f'{{{name}}} is a list, so it must be a whole string value ("{{{name}}}"), which '
                       f"becomes a JSON list; found in {value[:80]!r}")
    if len(parsed) == 1 and parsed[0][1] in names.lists:
        return _List(parsed[0][1])
    return _Text(tuple((literal, name) for literal, name, _, _ in parsed))


def _fill(node: Any, variables: Variables) -> Any:
    if isinstance(node, _List):
        return list(variables[node.name])
    if isinstance(node, _Text):
        return "".join(literal + (str(variables[name]) if name is not None else "")
                       for literal, name in node.pieces)
    if isinstance(node, dict):
        return {key: _fill(value, variables) for key, value in node.items()}
    if isinstance(node, list):
        return [_fill(value, variables) for value in node]
    return node


def value_at(document: Any, path: str) -> str:
    """The string at a dotted path (`data.answer`, `choices.0.text`); ValueError says where it stopped."""
    node, walked = document, list[str]()
    for part in path.split("."):
        where = ".".join(walked) or "the response"
        if isinstance(node, dict):
            if part not in node:
                raise ValueError(f"the response has nothing at '{path}': {where} has no key '{part}'")
            node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ValueError(f"the response has nothing at '{path}': {where} is an array of {len(node)} "
                                 f"item(s), no item '{part}'")
            node = node[int(part)]
        else:
            raise ValueError(f"the response has nothing at '{path}': {where} is {_json_type(node)}")
        walked.append(part)
    if not isinstance(node, str):
        raise ValueError(f"'{path}' in the response is {_json_type(node)}, not a string")
    return node


@dataclass(frozen=True)
class EndpointIdentity:
    """What identifies an HTTP endpoint in a report (a generator's, the production judge's)."""

    url: str  # any password masked
    request_template_sha256: str
    response_path: str


@dataclass(frozen=True)
class EndpointConfig:
    url: str
    request_template: RequestTemplate
    response_path: str
    api_key: str | None
    timeout_s: float
    max_attempts: int
    concurrency: int
    prefix: Prefix

    @classmethod
    def from_settings(cls, settings: Settings, prefix: Prefix, *, texts: Collection[str],
                      lists: Collection[str] = ()) -> Self:
        """The `<prefix>_http_*` settings, checked; timeouts, attempts and concurrency are the LLMs'."""
        url = getattr(settings, f"{prefix}_http_url")
        if not url:
            raise BenchError(f"setting {prefix}_http_url is not set: the URL of {_SERVICE[prefix]} "
                             f"(bench.toml or BENCH_{prefix.upper()}_HTTP_URL)")
        if not _is_http_url(url):
            raise BenchError(f"setting {prefix}_http_url: expected an http:// or https:// URL, got "
                             f"{redact_url(url)!r}")
        path = getattr(settings, f"{prefix}_http_response_path")
        if not path or any(not part for part in path.split(".")):
            raise BenchError(f"setting {prefix}_http_response_path: expected a dotted path such as answer, "
                             f"data.answer or choices.0.text, got {path!r}")
        template = RequestTemplate.parse(getattr(settings, f"{prefix}_http_request"),
                                         setting=f"{prefix}_http_request", texts=texts, lists=lists)
        return cls(url, template, path, getattr(settings, f"{prefix}_http_api_key"), settings.llm_timeout_s,
                   settings.llm_max_attempts, settings.llm_concurrency, prefix)

    async def probe(self) -> None:
        """Before the first call: a service that is down fails the run in seconds with one message, instead of
        every item its full retry schedule (a service that goes down later still gets retries)."""
        await probe(self.url, min(PROBE_TIMEOUT_S, self.timeout_s), what=f"{_SERVICE[self.prefix]} at",
                    advice=f"no call was made: check {self.prefix}_http_url and that the service is up")

    def provenance(self) -> EndpointIdentity:
        """What identifies the endpoint in a report: never the key, never a password in the URL."""
        return EndpointIdentity(redact_url(self.url), self.request_template.sha256, self.response_path)


@dataclass(frozen=True)
class EndpointReply:
    """One call's outcome; `latency_ms` is the answering attempt's, without backoff or the wait for a slot.

    Its own type, at the services level, because a system's HTTP endpoint has no model, role, token usage or
    cache (all `Completion` carries); `HttpGenerator` turns it into the generation level's `Answer`.
    """

    status: Literal["ok", "api_error"]
    text: str | None
    latency_ms: float
    attempts: int
    error: str | None = None


class HttpEndpoint:
    """Use one per run: it holds the connection pool, the concurrency bound and the counters."""

    def __init__(self, config: EndpointConfig, *, sleep: Sleep = asyncio.sleep, random: Random = randomness.random):
        self.config = config
        self.retry = RetryPolicy(config.max_attempts, sleep, random)
        headers = {"Accept": "application/json", "Content-Type": "application/json",
                   "User-Agent": f"bench/{__version__}"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._client = httpx.AsyncClient(headers=headers, timeout=config.timeout_s)
        self.limit = AdaptiveLimit(config.concurrency)
        self.calls = 0
        self.http_requests = 0
        self.api_errors = 0

    async def call(self, variables: Variables) -> EndpointReply:
        body = json.dumps(self.config.request_template.fill(variables), ensure_ascii=False).encode("utf-8")
        outcome: Tried[httpx.Response, str] = await self.retry.run(lambda: self._attempt(body), self.limit)
        self.calls += 1
        self.http_requests += outcome.attempts
        text, error = None, None
        if outcome.failure is not None:
            error = outcome.explain(outcome.failure.error)
        else:
            text, error = _read(outcome.value, self.config.response_path)
        if error is not None:
            self.api_errors += 1
            return EndpointReply("api_error", None, outcome.latency_ms, outcome.attempts, self._scrub(error))
        return EndpointReply("ok", text, outcome.latency_ms, outcome.attempts)

    def usage_report(self) -> HttpUsage:
        return HttpUsage(calls=self.calls, http_requests=self.http_requests, api_errors=self.api_errors)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> Self:
        await self.config.probe()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _attempt(self, body: bytes) -> httpx.Response | Failed[str]:
        """One POST: the 2xx response, or the failure with its reason."""
        try:
            response = await self._client.post(self.config.url, content=body)
        except httpx.TimeoutException:
            return Failed.timeout("request timed out")
        except httpx.TransportError as exc:
            return Failed.connection(f"connection error: {str(exc) or type(exc).__name__}".splitlines()[0])
        except httpx.RequestError as exc:  # redirects, undecodable content: retrying cannot help
            return Failed.final(f"{type(exc).__name__}: {exc}".splitlines()[0])
        if 200 <= response.status_code < 300:
            return response
        return Failed.status(_status_reason(response), response.status_code, response.headers)

    def _scrub(self, text: str) -> str:
        """The key never leaves the process, even when a service quotes it back in an error."""
        key = self.config.api_key
        return (text.replace(key, REDACTED) if key else text)[:_REASON_CHARS]


def _read(response: Any, path: str) -> tuple[str | None, str | None]:
    """(text, None) or (None, reason): a 2xx reply that is not JSON or lacks the path is a failed call."""
    try:
        document = json.loads(response.content)
    except ValueError:
        snippet = _first_line(response.text)
        return None, f"HTTP {response.status_code}: the response is not JSON, so it has no '{path}'" + (
            f": {snippet}" if snippet else " (empty body)")
    try:
        return value_at(document, path), None
    except ValueError as exc:
        return None, f"HTTP {response.status_code}: {exc}"


def _status_reason(response: Any) -> str:
    """`HTTP 503: <the service's message>`, the message taken from common JSON error shapes or the text."""
    try:
        document = json.loads(response.content)
    except ValueError:
        document = None
    message = None
    if isinstance(document, dict):
        error = document.get("error")
        candidates = [error.get("message") if isinstance(error, dict) else error, document.get("message"),
                      document.get("detail")]
        message = next((c for c in candidates if isinstance(c, str) and c.strip()), None)
    detail = _first_line(message if message is not None else response.text) or response.reason_phrase
    return f"HTTP {response.status_code}: {detail}" if detail else f"HTTP {response.status_code}"


def _is_http_url(url: str) -> bool:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.host)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)
