"""What every tier's numbers rest on: the seed, a sample of the input, the bootstrap."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.config.declare import AT_LEAST_1, NOT_NEGATIVE, setting


@dataclass(frozen=True)
class SamplingSettings:
    seed: int = setting(0, "Seed for every sample and bootstrap, so reruns give identical numbers.")
    limit: int | None = setting(
        None, "Run on a seeded sample of this many items (questions, samples, pairs) instead of all; the report "
        "states it. Try a few items against a new judge before paying for all of them.", AT_LEAST_1
    )
    strict: bool = setting(
        False, "Refuse the input where bench would warn about it: labels under a name that is no metric or rating, "
        "samples lacking (or leaving empty) a field a chosen metric needs. For a check that must not pass on a "
        "mistyped file (bench evaluate, bench judge)."
    )
    bootstrap_resamples: int = setting(
        1000, "Bootstrap resamples for the 95% confidence intervals.", NOT_NEGATIVE
    )
