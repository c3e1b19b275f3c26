"""One judge request, asked and repaired once: the attempt loop every judge call goes through.

A JSON answer (`ask_json`), a yes-no verdict (`LLMJudge.yes`) and an extraction (`LLMJudge.knowledge_answer`)
differ only in how a reply is read and what a repair says; the loop around them is one (`attempts`): each
call counted, timed and recorded in the trace, a failed call an `api_error`, an unusable reply dropped from the
reply cache and asked again once with the repair after it, a second unusable reply a `parse_error`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from benchmarks.chat.request import Message, ResponseSchema
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.parsing import parse_output
from benchmarks.judge.llm.prompts import Language
from benchmarks.outcome import Status

if TYPE_CHECKING:  # the judge only calls the service it is handed
    from benchmarks.chat.backend import ChatBackend
    from benchmarks.chat.client import Completion

T = TypeVar("T")

REPAIR = {
    "en": "Your answer could not be used: {error}. Reply again with only one JSON object of this form: {form}",
    "ru": "Ваш ответ не удалось использовать: {error}. Ответьте ещё раз только одним JSON-объектом такого вида: "
          "{form}",
}


class JudgeFailed(Exception):
    """A call that ended without a usable answer: the sample's status and why."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class Trace:
    calls: int = 0
    raw: list[dict[str, Any]] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)  # per call, as the LLM service measured it


@dataclass(frozen=True)
class Unusable:
    """A reply that could not be read: why (for the error after the repair), and the turn that asks again."""

    why: str
    repair: str


# How a reply is read: its value, or why it is unusable; it may add to the call's raw record (how it was read)
# and raise JudgeFailed for a reply no repair can mend (one cut off by the token limit).
Read = Callable[["Completion", dict[str, Any]], "T | Unusable"]


async def attempts(service: ChatBackend, messages: Sequence[Message], read: Read[T], *, call: str, trace: Trace,
                   recorded: Mapping[str, Any] | None = None, **request: Any) -> T:
    """`read`'s value of the first usable reply, asking once more after an unusable one; `recorded`: what each
    call's raw record notes besides its call, attempt, status, text and cache; `request`: `service.complete`'s
    arguments."""
    asked = list(messages)
    for attempt in ("first", "repair"):
        completion = await service.complete(asked, role="judge", **request)
        trace.calls += 1
        trace.latency_ms.append(completion.latency_ms)
        record: dict[str, Any] = {"call": call, "attempt": attempt, "status": completion.status,
                                  "text": completion.text, "cached": completion.cached, **(recorded or {})}
        trace.raw.append(record)
        if completion.status != "ok":
            raise JudgeFailed("api_error", f"{call}: {completion.error or completion.status}")
        found = read(completion, record)
        if not isinstance(found, Unusable):
            return found
        unusable = found
        service.discard(completion)
        asked = [*asked, {"role": "assistant", "content": completion.text or ""},
                 {"role": "user", "content": unusable.repair}]
    raise JudgeFailed("parse_error", f"{call}: {unusable.why} (after one repair attempt)")


async def ask_json(service: ChatBackend, prompt: str, shape: type[shapes.Shape], *, call: str,
                   language: Language, model: str, trace: Trace, repeat: int = 0, max_tokens: int | None = None,
                   lone_number: str | None = None, **options: Any) -> Any:
    """One judge request whose answer must validate against `shape` (its schema sent as the endpoint
    allows), with one repair attempt that restates the required form; raises `JudgeFailed` otherwise.

    `max_tokens`: the call's budget (the service keeps it within `llm_max_tokens`); an answer cut off by it
    is `truncated`, not repaired (the same budget would cut it again). `lone_number`: the field a reply
    holding only a number may fill (direct ratings); each raw call records how its answer was read. A reply
    that fails validation is dropped from the reply cache, so a rerun asks again rather than repeat it."""

    def read(completion: Completion, record: dict[str, Any]) -> Any:
        parsed = parse_output(completion.text, shape, lone_number=lone_number)
        if parsed.status == "ok":
            record["read"] = parsed.read
            return parsed.value
        if completion.truncated:
            record["status"] = "truncated"
            raise JudgeFailed("truncated", f"{call}: the answer ran past its token limit and was cut off")
        return Unusable(parsed.error, REPAIR[language].format(error=parsed.error, form=shape.skeleton()))

    return await attempts(service, [{"role": "user", "content": prompt}], read, call=call, trace=trace, model=model,
                          repeat=repeat, schema=ResponseSchema(call, shape.response_schema()), max_tokens=max_tokens,
                          **options)
