"""How a setting is declared: its default, help text, environment variables, secrecy, and the checks its
value must pass, all on its field, so that help, loading, validation and redaction read one declaration."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def _number(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Range:
    """The values a numeric setting may take, declared on its field. `kind` names what the number is ("a
    calibrated similarity, between 0 and 1"), `why` explains a bound ("(the largest metric cutoff)"), `text`
    replaces the message worded from the bounds. An optional setting left unset (None) is in every range."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    kind: str = ""
    why: str = ""
    text: str = ""

    def holds(self, value: Any) -> bool:
        if value is None:
            return True
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    @property
    def problem(self) -> str:
        if self.text:
            return self.text
        low, high = self.low, self.high
        if low is not None and high is not None:
            bounds = {(False, False): f"between {_number(low)} and {_number(high)}",
                      (True, False): f"above {_number(low)} and at most {_number(high)}",
                      (True, True): f"above {_number(low)} and below {_number(high)}",
                      (False, True): f"from {_number(low)} up to (not including) {_number(high)}",
                      }[self.low_open, self.high_open]
        elif low is not None:
            if low == 0 and not self.low_open and not self.kind and not self.why:
                return "must not be negative"
            bounds = f"above {_number(low)}" if self.low_open else f"at least {_number(low)}"
        else:
            assert high is not None, "a Range needs a bound"
            bounds = f"below {_number(high)}" if self.high_open else f"at most {_number(high)}"
        kind = f"{self.kind}, " if self.kind else ""
        why = f" ({self.why})" if self.why else ""
        return f"must be {kind}{bounds}{why}"

    @property
    def hint(self) -> str:
        """The range as the help shows it: '≥ 1', '> 0, ≤ 1'."""
        sides = []
        if self.low is not None:
            sides.append(f"{'>' if self.low_open else '≥'} {_number(self.low)}")
        if self.high is not None:
            sides.append(f"{'<' if self.high_open else '≤'} {_number(self.high)}")
        return ", ".join(sides)


@dataclass(frozen=True)
class Rule:
    """A non-numeric check of one setting's value, declared on its field: `holds(value)` is true for a valid
    value; `problem` is the message."""

    holds: Callable[[Any], Any]
    problem: str


@dataclass(frozen=True)
class Needs:
    """A check of a setting against the others, declared on the setting it is about: `holds(settings)` is true
    when the settings go together; `problem` is the whole message (it names the settings involved)."""

    holds: Callable[[Any], Any]
    problem: str


AT_LEAST_1 = Range(1)
NOT_NEGATIVE = Range(0)
ABOVE_0 = Range(0, low_open=True)
CALIBRATED = Range(0, 1, kind="a calibrated similarity")


def setting(default: Any, help: str, *checks: Range | Rule | Needs, env: tuple[str, ...] = (),
            secret: bool = False, url: bool = False,
            parse: Callable[[Any, str], Any] | None = None, shown_default: str | None = None,
            derive: Callable[[Any], Any] | None = None) -> Any:
    """A setting's field. `checks` are validated when settings load, in order (the first that fails is
    reported); `secret` values are read from the environment only and masked wherever settings are shown;
    a `url` is a connection string: it may be written in bench.toml, and only its password is masked; a table
    is read by `parse(raw, where)`; `shown_default` is what help says the default is, for a setting whose
    default is decided at run time (the language, told from the input); `derive(settings)` gives the value
    when no layer gives one (the embedding backend, from the model), so the setting names what runs."""
    return field(default=default, metadata={"help": help, "env": env, "secret": secret, "url": url,
                                            "checks": checks, "parse": parse, "shown_default": shown_default,
                                            "derive": derive})
