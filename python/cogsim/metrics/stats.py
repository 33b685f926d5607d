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


def bootstrap(values: Sequence[float], statistic=np.mean, resamples: int = 2000, seed: int = 0) -> Estimate:
    """Percentile bootstrap interval of any statistic, with a fixed seed so reports are reproducible."""
    data = np.asarray(values, dtype=np.float64)
    n = int(data.size)
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    rng = np.random.default_rng(seed)
    samples = data[rng.integers(0, n, size=(resamples, n))]
    try:  # numpy reductions take axis= and run vectorised
        stats = np.asarray(statistic(samples, axis=1), dtype=np.float64)
    except TypeError:
        stats = np.apply_along_axis(statistic, 1, samples)
    low, high = np.percentile(stats, [2.5, 97.5])
    return Estimate(float(statistic(data)), float(low), float(high), n)
