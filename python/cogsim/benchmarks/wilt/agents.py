"""Hypothesis-space bookkeeping and the scripted WILT agents (random tester, elimination)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from cogsim.benchmarks.wilt._rule import RuleSet, evaluate_many
from cogsim.benchmarks.wilt.cases import EDGE_POOL
from cogsim.benchmarks.wilt.generator import hypothesis_space
from cogsim.benchmarks.wilt.parser import count_digits


@dataclass
class HypothesisSpace:
    """A fixed set of candidate rules with their truth table on a pool of candidate tests."""

    rules: tuple[str, ...]
    programs: object  # the core's WiltProgramSet
    complexity: np.ndarray  # (operator count, length) packed for sorting: simplest first
    pool: np.ndarray  # (P, 3) candidate test points
    pool_truth: np.ndarray  # (R, P) bool
    strict_pool: np.ndarray  # indices of pool points typed with <= 3 digits

    def consistent(self, point, result: bool) -> np.ndarray:
        """Which hypotheses give ``result`` at ``point``."""
        x, y, z = (np.array([float(v)]) for v in point)
        return evaluate_many(self.compiled, x, y, z)[:, 0] == bool(result)

    @property
    def compiled(self) -> RuleSet:
        return self._compiled

    def simplest(self, mask: np.ndarray) -> int:
        candidates = np.flatnonzero(mask)
        return int(candidates[np.argmin(self.complexity[candidates])])


def _candidate_pool() -> np.ndarray:
    integers = np.arange(-10, 11, dtype=np.float64)
    grid = np.stack(np.meshgrid(integers, integers, integers, indexing="ij"), axis=-1).reshape(-1, 3)
    rng = np.random.default_rng(11)
    wide = rng.integers(-200, 201, size=(600, 3)).astype(np.float64)
    edges = np.array(EDGE_POOL, dtype=np.float64)
    fractional = rng.choice(edges, size=(900, 3))
    return np.concatenate([grid, wide, fractional])


@lru_cache(maxsize=2)
def load_space(size: int = 2000, seed: int = 0) -> HypothesisSpace:
    rules = hypothesis_space(size, seed)
    compiled = RuleSet(rules)
    complexity = np.array([r.operator_count * 10_000 + r.length for r in compiled.rules])
    pool = _candidate_pool()
    truth = evaluate_many(compiled, pool[:, 0], pool[:, 1], pool[:, 2])
    strict = np.array([all(count_digits(_typed(v)) <= 3 for v in p) for p in pool])
    space = HypothesisSpace(rules, compiled.programs, complexity, pool, truth, np.flatnonzero(strict))
    space._compiled = compiled
    return space


def _typed(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def best_split(space: HypothesisSpace, survivors: np.ndarray, tested: set, strict: bool) -> int | None:
    """Pool index of the untested point that splits the survivors most evenly, or None if no point
    separates any two survivors."""
    live = np.flatnonzero(survivors)
    if live.size < 2:
        return None
    candidates = space.strict_pool if strict else np.arange(space.pool.shape[0])
    true_counts = space.pool_truth[live][:, candidates].sum(axis=0)
    balance = np.minimum(true_counts, live.size - true_counts)
    for k in np.argsort(-balance, kind="stable"):
        if balance[k] == 0:
            return None
        index = int(candidates[k])
        if tuple(space.pool[index]) not in tested:
            return index
    return None


def random_test(rng: np.random.Generator, strict: bool) -> tuple[float, float, float]:
    """A random tester's case: integers in [-20, 20] mostly, sometimes one decimal place."""
    values = rng.integers(-20, 21, size=3).astype(float)
    if rng.random() < 0.3:
        values = np.round(values + rng.integers(0, 10, size=3) / 10, 1)
    return tuple(float(v) for v in values)  # type: ignore[return-value]
