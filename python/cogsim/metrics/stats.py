"""Interval estimates shared by every suite's metrics."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a 95% interval over n observations (low/high None when undefined)."""

    value: float
    low: Optional[float]
    high: Optional[float]
    n: int

    def format(self, percent: bool = False, digits: int = 1) -> str:
        scale = 100.0 if percent else 1.0
        if self.n == 0 or math.isnan(self.value):
            return "n/a"
        text = f"{self.value * scale:.{digits}f}"
        if self.low is not None and self.high is not None:
            text += f" [{self.low * scale:.{digits}f}, {self.high * scale:.{digits}f}]"
        return text

    def to_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


def wilson(successes: int, n: int, z: float = Z95) -> Estimate:
    """Proportion with the Wilson score interval (good at small n and near 0 or 1)."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n)


def mean_ci(values: Sequence[float], z: float = Z95, bounds: Optional[tuple[float, float]] = None) -> Estimate:
    """Mean with a normal-approximation interval (t would differ little at the n we report).
    ``bounds`` clips the interval to the range the quantity can take (fractions: (0, 1))."""
    data = np.asarray(values, dtype=np.float64)
    n = int(data.size)
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    mean = float(data.mean())
    if n == 1:
        return Estimate(mean, None, None, 1)
    half = z * float(data.std(ddof=1)) / math.sqrt(n)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return Estimate(mean, low, high, n)


# Resamples are drawn a block at a time (at most this many values at once: 32 MB of indices and of
# values), the same draws as one call makes, so any number of values takes bounded memory.
BOOTSTRAP_BLOCK_VALUES = 1 << 22
# From this many values on, the bootstrap of a mean draws each resample as the counts of the distinct
# values (multinomial, the same distribution as drawing the values) where there are at most
# MAX_COUNTED_VALUES distinct ones: per resample O(distinct values) instead of O(values).
COUNTED_FROM = 1 << 16
MAX_COUNTED_VALUES = 4096


def bootstrap(values: Sequence[float], statistic=np.mean, resamples: int = 2000, seed: int = 0) -> Estimate:
    """Percentile bootstrap interval of any statistic, with a fixed seed so reports are reproducible.

    The resamples are drawn in blocks of rows (the same draws as all at once) so memory stays bounded
    at any number of values; the mean of COUNTED_FROM values or more with few distinct values draws
    each resample's counts of them instead (the same bootstrap distribution, other draws)."""
    data = np.asarray(values, dtype=np.float64)
    n = int(data.size)
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    rng = np.random.default_rng(seed)
    stats = _counted_mean_resamples(data, resamples, rng) if statistic is np.mean and n >= COUNTED_FROM else None
    if stats is None:
        stats = _resample_statistics(data, statistic, resamples, rng)
    low, high = np.percentile(stats, [2.5, 97.5])
    return Estimate(float(statistic(data)), float(low), float(high), n)


def _resample_statistics(data: np.ndarray, statistic, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``statistic`` of ``resamples`` resamples of ``data`` (drawn with replacement), a block of rows at a time."""
    n = data.size
    rows = max(1, BOOTSTRAP_BLOCK_VALUES // n)
    stats = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, rows):
        samples = data[rng.integers(0, n, size=(min(rows, resamples - start), n))]
        try:  # numpy reductions take axis= and run vectorised
            block = np.asarray(statistic(samples, axis=1), dtype=np.float64)
        except TypeError:
            block = np.apply_along_axis(statistic, 1, samples)
        stats[start : start + len(samples)] = block
    return stats


def _counted_mean_resamples(data: np.ndarray, resamples: int, rng: np.random.Generator) -> Optional[np.ndarray]:
    """Means of ``resamples`` resamples of ``data``, each drawn as multinomial counts of its distinct
    values; None where it has more than MAX_COUNTED_VALUES of them."""
    distinct, counts = np.unique(data, return_counts=True)
    if distinct.size > MAX_COUNTED_VALUES:
        return None
    n = data.size
    rows = max(1, BOOTSTRAP_BLOCK_VALUES // distinct.size)
    stats = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, rows):
        drawn = rng.multinomial(n, counts / n, size=min(rows, resamples - start))
        stats[start : start + len(drawn)] = (drawn @ distinct) / n
    return stats
