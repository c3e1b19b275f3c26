"""The paired intervals cover a known difference about 95% of the time where they should
(perf.compare_coverage measures every setting with 1,000 repetitions; this is its fast check, 200)."""

import pytest
from scipy import stats

from perf.compare_coverage import SETTINGS, coverage

REPS, RESAMPLES = 200, 2_000


@pytest.mark.parametrize(("setting", "units"), [
    (SETTINGS[2], 200),  # scores in [0, 1], half the items changed
    (SETTINGS[3], 50),   # the same over documents of 1–5 questions, resampled whole
    (SETTINGS[0], 200),  # hit/miss
])
def test_expanded_percentile_intervals_cover_a_known_difference(setting, units):
    """Within the band a correct 95% interval's coverage falls in over REPS repetitions 99.8% of the time."""
    found = coverage(setting, units, reps=REPS, resamples=RESAMPLES, methods=("expanded",))["expanded"]
    low, high = stats.binom.interval(0.998, REPS, 0.95)
    assert low / REPS <= found.covered <= high / REPS, found
