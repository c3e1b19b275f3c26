"""Input records checked against their pydantic declaration, refused as an `InputError` at file, line and field.

Each loader declares its record once, as a model beside the loader; this module holds the one adapter that
validates a raw record (a JSON line, a CSV row) and turns pydantic's first error into the project's own
wording, so every input says "missing", "empty" or "expected a string, got int" alike. A wording only one
field can give (a grade, a label) is declared on that field, as a `PydanticCustomError` its validator raises;
a check on the whole record names the field it is about in the error's context (`FIELD`).

The field types every record shares are declared here too, so a text, an id or a label means, and fails, the
same in every input file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    AliasChoices,
    AllowInfNan,
    BaseModel,
    BeforeValidator,
    Field,
    Strict,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from benchmarks.errors import InputError

FIELD = "field"  # the context key by which a check on the whole record names its field
_WHITESPACE = re.compile(r"\s")  # str.isspace's characters (both use Py_UNICODE_ISSPACE), found in C
M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], record: Mapping[str, Any], path: Path, line: int | None = None) -> M:
    """The record as its model, or the InputError of its first problem (fields are checked in the order the
    model declares them, so the error is the one the user meets first reading the line)."""
    try:
        return model.model_validate(record)
    except ValidationError as exc:
        raise _located(exc.errors(include_url=False)[0], path, line) from None


def refused(error: PydanticCustomError, path: Path, line: int | None = None) -> InputError:
    """A record check run outside a model (a CSV header's columns), located as a model's would be."""
    context = error.context or {}
    return InputError(path, error.message(), line=line, field=context.get(FIELD))


def _located(error: ErrorDetails, path: Path, line: int | None) -> InputError:
    field = str(error["loc"][0]) if error["loc"] else error.get("ctx", {}).get(FIELD)
    return InputError(path, _wording(error), line=line, field=field)


def _wording(error: ErrorDetails) -> str:
    """The project's words for pydantic's standard errors; a custom error already carries its field's."""
    kind, given = error["type"], error["input"]
    if kind == "missing" or (kind == "string_type" and given is None):  # null is how JSON leaves a field out
        return "missing"
    if kind == "string_type":
        return f"expected a string, got {type(given).__name__}"
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error["msg"]))
    return error["msg"]


def worded(message: str, *, null: bool = False) -> WrapValidator:
    """A field whose every failure is said in one sentence of its own (`null`: an explicit null is accepted,
    as not given; otherwise it fails too, for fields where leaving the key out and writing null differ)."""
    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if value is None and not null:
            raise PydanticCustomError("worded", message)
        try:
            return handler(value)
        except ValidationError:
            raise PydanticCustomError("worded", message) from None

    return WrapValidator(check)


def entries_worded(describe: Callable[[Any, Any], str], expected: str) -> WrapValidator:
    """An object whose bad entry is named: `expected` (with the type given) when it is no object at all, else
    `describe(key, value)` of its first entry that fails."""
    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(value, dict):
            raise PydanticCustomError("entries", f"{expected}, got {type(value).__name__}")
        try:
            return handler(value)
        except ValidationError as exc:
            key = exc.errors(include_url=False)[0]["loc"][0]
            raise PydanticCustomError("entry", describe(key, value[key])) from None

    return WrapValidator(check)


@dataclass(frozen=True)
class Columns:
    """The names a file may give each field of its records under (`field_of`: column name -> field), as
    spreadsheets and other tools' exports name them: RAGAS's `question` is bench's `user_input`."""

    field_of: Mapping[str, str]

    def field(self, name: str) -> Any:
        """The field read under each of its column names (an error names the one the file used)."""
        return Field(validation_alias=AliasChoices(*(column for column, field in self.field_of.items()
                                                     if field == name)))

    def chosen(self, names: Iterable[str]) -> dict[str, str]:
        """Each field with the one column among `names` that gives it, unknown columns skipped. A field two
        columns give is refused rather than one of them picked, since which one wins would be a rule the user
        cannot see; the two are named in the order of `names`."""
        chosen: dict[str, str] = {}
        for name in names:
            field = self.field_of.get(name)
            if field is None:
                continue
            if field in chosen:
                both = f"column '{name}' appears twice" if chosen[field] == name else (
                    f"columns '{chosen[field]}' and '{name}' both give this field")
                raise PydanticCustomError("columns", f"{both}; keep one", {FIELD: field})
            chosen[field] = name
        return chosen


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("empty", "empty")
    return value


def _no_whitespace(value: str) -> str:
    """Ids become columns of TREC run files, which whitespace separates."""
    if _WHITESPACE.search(value):
        raise PydanticCustomError("id_whitespace", f"id '{value}' contains whitespace")
    return value


def _number_as_text(value: Any) -> Any:
    """Exports write numeric keys (BEIR ids, bigint and uuid columns) as JSON numbers; true is no number."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _label_problem(metric: Any, label: Any) -> str:
    return f"label of {metric!r} must be a number, got {label!r}"


# a text that must say something: absent, null or blank is refused
Text = Annotated[StrictStr, AfterValidator(_not_blank)]
# a text that may be left out (absent or null: None); the loader reads it as "" or None
OptionalText = StrictStr | None
# a record's id: unique within its file (the loader's check), non-empty and free of whitespace
Id = Annotated[StrictStr, AfterValidator(_not_blank), AfterValidator(_no_whitespace)]
# an id, or a text, that may be written as a JSON number, read as its digits
NumberedId = Annotated[Id, BeforeValidator(_number_as_text)]
NumberedText = Annotated[StrictStr, BeforeValidator(_number_as_text)]
# people's verdicts, by metric: {"faithfulness": 0}, each a finite number on the metric's scale (0/1 for a binary
# verdict); one declaration for every input that takes labels, so a label means, and fails, the same everywhere
Labels = Annotated[dict[StrictStr, Annotated[float, Strict(), AllowInfNan(False)]],
                   entries_worded(_label_problem, 'expected an object of metric names to numbers such as '
                                                  '{"faithfulness": 1}')]


def sorted_labels(labels: Mapping[str, float] | None) -> tuple[tuple[str, float], ...]:
    """Labels as the samples and items hold them: by metric name, hashable."""
    return tuple(sorted((labels or {}).items()))
