"""The bootstrap interval at any size: drawn in blocks (the same draws as all at once, so reports of
earlier runs stay as they were), and for the mean of many values with few distinct ones drawn as
counts of them (the same bootstrap distribution, in time that does not grow with the values)."""

from __future__ import annotations

import numpy as np
import pytest

from cogsim.metrics import bootstrap, stats


def _all_at_once(values, statistic=np.mean, resamples=2000, seed=0) -> tuple:
    """The interval as cogsim computed it before: every resample drawn in one call."""
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    samples = data[rng.integers(0, data.size, size=(resamples, data.size))]
    try:
        drawn = np.asarray(statistic(samples, axis=1), dtype=np.float64)
    except TypeError:
        drawn = np.apply_along_axis(statistic, 1, samples)
    low, high = np.percentile(drawn, [2.5, 97.5])
    return float(statistic(data)), float(low), float(high)


@pytest.mark.parametrize("n", [1, 2, 7, 999, 3001])
@pytest.mark.parametrize("statistic", [np.mean, np.median, lambda v: float(np.max(v))], ids=["mean", "median", "max"])
def test_blocks_of_resamples_give_the_intervals_of_one_draw(n, statistic, monkeypatch):
    monkeypatch.setattr(stats, "BOOTSTRAP_BLOCK_VALUES", 3 * n + 1)  # blocks of three resamples, one left over
    resamples = 2000 if statistic in (np.mean, np.median) else 50
    values = np.random.default_rng(n).random(n)
    estimate = bootstrap(values, statistic=statistic, resamples=resamples)
    assert (estimate.value, estimate.low, estimate.high) == _all_at_once(values, statistic, resamples)
    assert estimate.n == n


def test_a_block_holds_a_bounded_number_of_values(monkeypatch):
    shapes = []
    default_rng = np.random.default_rng

    class Recorded:
        def __init__(self, seed):
            self.generator = default_rng(seed)

        def integers(self, low, high, size):
            shapes.append(size)
            return self.generator.integers(low, high, size=size)

    monkeypatch.setattr(np.random, "default_rng", Recorded)
    values = default_rng(1).random(5000)
    monkeypatch.setattr(stats, "BOOTSTRAP_BLOCK_VALUES", 20000)
    bootstrap(values)
    assert shapes and all(rows * n <= stats.BOOTSTRAP_BLOCK_VALUES for rows, n in shapes)
    assert sum(rows for rows, _ in shapes) == 2000


def test_the_mean_of_many_values_is_resampled_as_counts_with_the_same_distribution():
    n = stats.COUNTED_FROM
    values = (np.random.default_rng(2).random(n) < 0.3).astype(float) * 2.0  # two distinct values
    counted = bootstrap(values)
    drawn = _all_at_once(values, resamples=400)
    # the same bootstrap distribution: the percentiles agree within the Monte Carlo error of 400 draws
    spread = counted.high - counted.low
    assert counted.value == drawn[0]
    assert abs(counted.low - drawn[1]) < 0.1 * spread and abs(counted.high - drawn[2]) < 0.1 * spread
    # the percentile interval of the mean of a proportion: about +-1.96 standard errors
    p = values.mean() / 2.0
    half = 1.96 * 2.0 * np.sqrt(p * (1 - p) / n)
    assert counted.low == pytest.approx(counted.value - half, rel=0.02)
    assert counted.high == pytest.approx(counted.value + half, rel=0.02)


def test_many_distinct_values_are_resampled_in_blocks_and_seeded():
    values = np.random.default_rng(3).random(stats.COUNTED_FROM)  # too many distinct values to count
    first, again = bootstrap(values, resamples=20), bootstrap(values, resamples=20)
    assert first == again and first.low < first.value < first.high
    assert (first.value, first.low, first.high) == _all_at_once(values, resamples=20)
