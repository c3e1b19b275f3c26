"""What a judged metric is: one declaration that says what it reads, which judge calls it makes and how
many for a sample, its direction, whether it needs embeddings, its offline proxy (or why it has none), and
the coroutine with which the LLM judge scores it.

Each built-in metric declares itself in its own module of `benchmarks.judge.judged_metrics`; a user's rubric
becomes one in `benchmarks.judge.catalog`, which collects them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.judge.claims import split_claims
from benchmarks.judge.judged_metrics.rubric import Rubric
from benchmarks.judge.llm.judge import Scorer
from benchmarks.judge.llm.prompts import RUBRIC, JudgeCall, Language, load_template, template_sha256
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.judge.options import JudgeOptions, Verdicts
from benchmarks.samples import Sample

# A metric's judge calls for one sample, as `--dry-run` counts them: the documented count (e.g. faithfulness
# 2 whatever the statements turn out to be), from the sample and the run's options.
CallCount = Callable[[Sample, JudgeOptions], int]


@dataclass(frozen=True)
class JudgedMetric:
    name: str
    help: str  # one line, for the CLI
    needs: tuple[str, ...]  # sample fields; a sample without one is undetermined, naming it
    calls: tuple[JudgeCall, ...]  # the distinct calls, in the order they are made (statements verdicts)
    planned_calls: CallCount
    score: Scorer  # how the LLM judge scores it: (judge, sample, model, trace) -> (score, reasons)
    higher_is_better: bool = True
    embeds: tuple[str, ...] = ()  # the sample fields whose whole text the LLM form embeds (the proxies always embed)
    offline: OfflineProxy | None = None
    no_offline: str = ""  # why there is no offline proxy
    rubric: Rubric | None = None  # the user's rubric behind a bench.toml metric
    yes_no: tuple[JudgeCall, ...] = ()  # its calls under yes-no verdicts; empty: it asks `calls` under either
    pass_mark: float | None = None  # where a case passes, when not at the middle of the scale (`case_pass_mark`)

    def reads(self, backend: str) -> tuple[str, ...]:
        """The sample fields it reads under the run's judge backend: its offline proxy's under `offline` (offline
        context_precision reads the reference, which the LLM form does without), else its own `needs`."""
        return self.offline.needs if backend == "offline" and self.offline else self.needs

    def calls_for(self, verdicts: Verdicts) -> tuple[JudgeCall, ...]:
        """The calls it makes under the judge_verdicts setting."""
        return self.yes_no if verdicts == "yes-no" and self.yes_no else self.calls

    def __post_init__(self) -> None:
        if (self.offline is None) == (not self.no_offline):
            raise ValueError(f"{self.name}: declare an offline proxy or say why there is none, not both")

    def prompt_hashes(self, language: Language, verdicts: Verdicts) -> dict[str, str]:
        """sha256 of what this metric sends the judge, keyed as reports show them (`en/statements`); a
        rubric's key (`en/rubric/<name>`) hashes the template with the rubric's criteria, scale and fields."""
        if self.rubric is not None:
            return {f"{language}/{RUBRIC.name}/{self.name}": self.rubric.prompt_sha256(language)}
        return {f"{language}/{call.name}": template_sha256(call.name, language) for call in self.calls_for(verdicts)}

    def prompt_text(self, language: Language, verdicts: Verdicts) -> str:
        """The first prompt without the sample, for `--dry-run`'s token estimate ('' without calls)."""
        if self.rubric is not None:
            return self.rubric.prompt_text(language)
        calls = self.calls_for(verdicts)
        return load_template(calls[0].name, language) if calls else ""

    @property
    def threshold(self) -> float:
        """The middle of the metric's scale: where a score turns from a "no" into a "yes", for agreement with
        labels (accuracy, Cohen's kappa)."""
        return (self.rubric.low + self.rubric.high) / 2 if self.rubric is not None else 0.5

    @property
    def case_pass_mark(self) -> float:
        """The value at or above which one sample passes (at or below for a lower-is-better metric): what `bench
        compare` counts cases against, and what the report names in its notes. The metric's own mark where it
        declares one, else the middle of its scale."""
        return self.pass_mark if self.pass_mark is not None else self.threshold

    @property
    def embeddings(self) -> bool:
        """Whether the LLM form needs the embedder."""
        return bool(self.embeds)

    def offline_note(self) -> str:
        """What `--judge offline` gives for it, in one line."""
        return self.offline.description if self.offline else f"no offline proxy: {self.no_offline}"


def fixed(count: int) -> CallCount:
    """The same count for every sample."""
    return lambda sample, options: count


def per_claim(field: str, *, statements: int) -> CallCount:
    """Under yes-no verdicts one call per claim of the sample's `field`, after the one that extracts the context's
    answer (none without a claim); under statements verdicts `statements`."""
    def count(sample: Sample, options: JudgeOptions) -> int:
        if options.verdicts == "yes-no":
            claims = len(split_claims(getattr(sample, field) or ""))
            return claims + 1 if claims else 0
        return statements
    return count


def per_context(sample: Sample, options: JudgeOptions) -> int:
    """One call per retrieved context."""
    return len(sample.retrieved_contexts or ())
