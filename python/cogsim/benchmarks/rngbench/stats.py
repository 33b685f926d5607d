"""Shared by the RNG-Bench metrics (pairs, maze3d): grouping, ratio bootstrap, Memory Gap."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Callable, Optional, Sequence

import numpy as np

from cogsim.metrics import Estimate, Table

MEMORY_GAP_MARGIN = 0.05  # S* must exceed S by this much (absolute) for the gap to be reported


def option(episode: dict, name: str, default=None):
    """An episode's setting: the env's outcome field first, then the runner's options."""
    if name in episode:
        return episode[name]
    return (episode.get("options") or {}).get(name, default)


def agent_name(episode: dict) -> str:
    agent = episode.get("agent", "?")
    return " vs ".join(map(str, agent)) if isinstance(agent, (list, tuple)) else str(agent)


def group(episodes: Sequence[dict], key: Callable[[dict], tuple]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for episode in episodes:
        groups[key(episode)].append(episode)
    return dict(sorted(groups.items(), key=lambda item: tuple(_natural(str(part)) for part in item[0])))


def _natural(text: str) -> tuple:
    """Sort key that orders embedded numbers by value ("4x4" before "10x10")."""
    return tuple(int(piece) if piece.isdigit() else piece for piece in re.split(r"(\d+)", text))


def bootstrap_statistic(
    episodes: Sequence[dict], statistic: Callable[[Sequence[dict]], float], resamples: int = 1000, seed: int = 0
) -> Estimate:
    """A statistic of a whole group of episodes (a ratio of sums, GS) with a percentile bootstrap
    interval over episodes, seeded so reports are reproducible."""
    n = len(episodes)
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    value = statistic(episodes)
    if n == 1:
        return Estimate(value, None, None, 1)
    rng = np.random.default_rng(seed)
    samples = [statistic([episodes[i] for i in rng.integers(0, n, n)]) for _ in range(resamples)]
    samples = [s for s in samples if not math.isnan(s)]
    if not samples:
        return Estimate(value, None, None, n)
    low, high = np.percentile(samples, [2.5, 97.5])
    return Estimate(value, float(low), float(high), n)


def memory_gap(score: float, oracle_score: float, margin: float = MEMORY_GAP_MARGIN) -> Optional[float]:
    """MemoryGap = (1 - S / S*) x 100%, or None unless S* is non-trivially above S (by ``margin``)."""
    if math.isnan(score) or math.isnan(oracle_score) or oracle_score <= 0 or oracle_score < score + margin:
        return None
    return (1.0 - score / oracle_score) * 100.0


def memory_gap_table(
    title: str,
    metric: str,
    rows: dict[tuple, dict[bool, Estimate]],
    key_columns: list[str],
    oracle: str = "the true hidden state is injected every step (memory_map=True)",
) -> Optional[Table]:
    """rows: group key (without the oracle flag) -> {False: S, True: S*}."""
    table = Table(
        title,
        key_columns + [f"{metric} (S)", f"{metric} oracle (S*)", "MemoryGap %"],
        note=f"Oracle condition: {oracle}. MemoryGap = (1 - S/S*) x 100%, "
        f"shown only where S* exceeds S by at least {MEMORY_GAP_MARGIN:g}.",
    )
    for key, scores in rows.items():
        if False in scores and True in scores:
            gap = memory_gap(scores[False].value, scores[True].value)
            table.rows.append(list(key) + [scores[False], scores[True], "n/a" if gap is None else round(gap, 1)])
    return table if table.rows else None
