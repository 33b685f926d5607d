"""The case sets on which rules are compared.

``release_cases()`` (the default for equivalence): the released harness's point set
(RiotGames/WILT, harness/llm_reasoning_harness.py, ``_generate_test_inputs``), in its order:
  random:      5,000 triples of ``random.uniform(-200, 200)``,
  small:       5,000 triples of ``random.uniform(-3, 3)``,
  grid:        the integer grid -20..20 cubed (68,921 points, itertools.product order),
  special:     its 10 hand-made triples (one listed twice, kept).
The release draws the random blocks from Python's unseeded global ``random`` (new points on every
guess); we draw them with ``random.Random(RELEASE_SEED)`` in the same call order, so the set is fixed.

``standard_cases()`` (``equivalence="strict"``): cogsim's own stricter set, three parts, in this order (every point a float triple):
  grid:     the integer grid -20..20 cubed (68,921 points), as in the paper's harness;
  random:   10,000 uniform float triples in [-200, 200], SplitMix64 seed 2410 (same on every machine);
  special:  hand-made cases: every triple over a small pool of edge values (zero, negative zero,
            halves, tenths, 0.1 + 0.2 style sums, odd/even, squares, range bounds, 3-digit values),
            plus named families (Pythagorean and coprime triples, arithmetic means, x < y < z
            within 1, fractional parts in order, bitwise identities) and their permutations. It
            separates every pair of rules of the full split (tests check this) and the usual near misses.
"""

from __future__ import annotations

import itertools
import random as _random
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from cogsim import _core

RELEASE_SEED = 2410
RELEASE_RANDOM_COUNT = 5000
RELEASE_SPECIAL = (
    (0.1, 0.2, 0.3),
    (1.1, 1.2, 1.3),
    (2.5, 2.6, 2.7),
    (0.1, 0.2, 0.3),
    (0.3, 0.6, 0.9),
    (0.1234, 0.5678, 0.9123),
    (0, 0.5, 1),
    (1, 1.5, 2),
    (2.5, 3, 3.5),
    (3.9, 4.2, 4.8),
)

RANDOM_SEED = 2410
RANDOM_COUNT = 10_000
RANDOM_RANGE = (-200.0, 200.0)
GRID_RANGE = range(-20, 21)

EDGE_POOL = (
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.0,
    -1.0,
    2.0,
    3.0,
    -3.0,
    0.1,
    0.2,
    0.3,
    1.5,
    2.5,
    4.0,
    9.0,
    13.0,
    25.0,
    -7.0,
    60.0,
    -60.0,
    121.0,
    199.5,
    999.0,
)

FAMILIES = [
    # Pythagorean triples and near misses
    (3, 4, 5),
    (5, 12, 13),
    (8, 15, 17),
    (7, 24, 25),
    (20, 21, 29),
    (9, 40, 41),
    (12, 35, 37),
    (33, 56, 65),
    (1.5, 2, 2.5),
    (0.3, 0.4, 0.5),
    (3, 4, 6),
    (6, 8, 10),
    (-3, 4, 5),
    (3, -4, -5),
    (0, 5, 5),
    # Coprime and not
    (7, 9, 11),
    (13, 14, 15),
    (25, 27, 28),
    (8, 9, 35),
    (2, 3, 5),
    (1, 1, 1),
    (-7, 9, 11),
    (4, 9, 25),
    (6, 10, 15),
    (14, 15, 21),
    (1, 2, 3.5),
    (2.5, 3, 7),
    (0, 1, 1),
    (101, 103, 107),
    # Sums, differences, products, means with fractions (float rounding on purpose)
    (0.1, 0.2, 0.1 + 0.2),
    (0.1, 0.4, 0.5),
    (0.1, 0.2, 0.3),
    (0.3, 0.2, 0.1),
    (0.2, 0.1, 0.3),
    (0.5, 1.5, 2),
    (2, 1.5, 0.5),
    (1.5, 0.5, 2),
    (0.5, 0.5, 0.25),
    (0.25, 0.5, 0.5),
    (2.5, 4, 10),
    (10, 2.5, 4),
    (1, 3, 2),
    (1, 2, 1.5),
    (0.1, 0.3, 0.2),
    (3, 3, 3),
    (-2, -2, -2),
    (4, 4, 8),
    (2, 2, 4),
    (0, 0, 0),
    (5, 0, 0),
    (0, 7, 0),
    (0, 0, 9),
    (1e-09, 2e-09, 3e-09),
    (100, 200, 300),
    (150, -50, 100),
    (2, 4, 6),
    (6, 4, 2),
    (2, 6, 4),
    # Within-one orderings and fractional parts
    (0.1, 0.5, 1.0),
    (0.5, 0.7, 1.2),
    (0.2, 0.4, 0.6),
    (0.6, 0.4, 0.2),
    (1.1, 1.5, 1.9),
    (1.1, 2.5, 3.9),
    (-0.9, -0.5, -0.1),
    (2.3, 5.6, 7.9),
    (0.25, 0.75, 1.25),
    (10.1, 10.2, 10.3),
    (0.9, 1.4, 1.6),
    (0.1, 0.2, 1.3),
    (0.1, 1.05, 1.1),
    (-1.5, -0.5, -0.25),
    (1.5, 1.5, 1.5),
    # Parity with odd negatives and fractions
    (-1, -3, -5),
    (1, 3, 5),
    (-2, 4, -6),
    (2, 4, 7),
    (1.0, 3.0, 5.5),
    (-1, 1, 3),
    (1, 1, 2),
    (3, 5, 8),
    (2, 3, 6),
    (3, 2, 6),
    (-3, 2, -6),
    (6, 2, 3),
    (7, 5, 9),
    (5, 7, 9),
    (9, 5, 7),
    # Bitwise identities on integers and floats
    (12, 10, 8),
    (12, 10, 14),
    (12, 10, 6),
    (5, 3, 1),
    (5, 3, 7),
    (5, 3, 6),
    (-4, 7, 4),
    (1.0, 1.0, 1.0),
    # Perfect squares
    (1, 4, 9),
    (16, 25, 36),
    (0, 1, 144),
    (4, 9, 10),
    (-4, 9, 16),
    (0.25, 1, 4),
    (169, 196, 225),
    # Negative zero and equality
    (-0.0, 0.0, -0.0),
    (0.0, -0.0, 0.0),
    (-0.0, -0.0, -0.0),
    (-0.0, 1, 1),
    (1, -0.0, 1),
    (1, 1, -0.0),
    # Ranges and three-digit values
    (-999, -999, -999),
    (999, 999, 999),
    (-999, 0, 999),
    (50, 49.9, 50.1),
    (-200, 200, 0),
    (199.9, 200, 200),
    (-1, -1, 0),
    (-5, -3, -1),
    (-1, -3, -5),
]


@dataclass(frozen=True)
class CaseSet:
    xs: np.ndarray
    ys: np.ndarray
    zs: np.ndarray
    parts: dict  # name -> slice

    def __len__(self) -> int:
        return int(self.xs.shape[0])

    def point(self, index: int) -> tuple[float, float, float]:
        return float(self.xs[index]), float(self.ys[index]), float(self.zs[index])

    def part(self, name: str) -> "CaseSet":
        s = self.parts[name]
        return CaseSet(self.xs[s], self.ys[s], self.zs[s], {name: slice(0, s.stop - s.start)})

    @cached_property
    def core(self) -> _core.WiltCases:
        """The points converted once for the core's checks, with their "grid" part where it is a product
        grid (the core then evaluates it factored: cpp/wilt/grid.hpp)."""
        grid = self.parts.get("grid")
        if grid is not None and grid.stop > grid.start:
            size = round((grid.stop - grid.start) ** (1 / 3))
            axis = [float(v) for v in self.zs[grid.start : grid.start + size]]
            try:
                return _core.WiltCases(self.xs, self.ys, self.zs, grid.start, axis)
            except ValueError:
                pass  # not a product grid the core factors: every point is evaluated alone
        return _core.WiltCases(self.xs, self.ys, self.zs)


def grid_points() -> np.ndarray:
    axis = np.array(list(GRID_RANGE), dtype=np.float64)
    return np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)


def random_points(seed: int = RANDOM_SEED, count: int = RANDOM_COUNT) -> np.ndarray:
    return np.asarray(_core.wilt_uniform_points(seed, count, *RANDOM_RANGE))


def special_points() -> np.ndarray:
    rows = list(itertools.product(EDGE_POOL, repeat=3))
    for triple in FAMILIES:
        rows.extend(itertools.permutations(triple))
    return np.array(rows, dtype=np.float64)


@lru_cache(maxsize=1)
def standard_cases() -> CaseSet:
    parts, start, blocks = {}, 0, []
    for name, block in (("grid", grid_points()), ("random", random_points()), ("special", special_points())):
        parts[name] = slice(start, start + len(block))
        start += len(block)
        blocks.append(block)
    points = np.concatenate(blocks)
    return CaseSet(*(np.ascontiguousarray(points[:, k]) for k in range(3)), parts=parts)


def release_random_points(seed: int = RELEASE_SEED) -> tuple[np.ndarray, np.ndarray]:
    """The release's two random blocks, drawn as it draws them (uniform(-200, 200) triples, then
    uniform(-3, 3) triples) from one Mersenne Twister seeded with ``seed``."""
    rng = _random.Random(seed)
    wide = [[rng.uniform(-200, 200) for _ in range(3)] for _ in range(RELEASE_RANDOM_COUNT)]
    small = [[rng.uniform(-3, 3) for _ in range(3)] for _ in range(RELEASE_RANDOM_COUNT)]
    return np.array(wide, dtype=np.float64), np.array(small, dtype=np.float64)


@lru_cache(maxsize=1)
def release_cases() -> CaseSet:
    wide, small = release_random_points()
    grid = np.array(list(itertools.product(GRID_RANGE, repeat=3)), dtype=np.float64)
    special = np.array(RELEASE_SPECIAL, dtype=np.float64)
    parts, start, blocks = {}, 0, []
    for name, block in (("random", wide), ("small", small), ("grid", grid), ("special", special)):
        parts[name] = slice(start, start + len(block))
        start += len(block)
        blocks.append(block)
    points = np.concatenate(blocks)
    return CaseSet(*(np.ascontiguousarray(points[:, k]) for k in range(3)), parts=parts)


CASE_SETS = {"release": release_cases, "strict": standard_cases}


def cases_for(equivalence: str) -> CaseSet:
    """The case set of an equivalence mode: "release" (default) or "strict"."""
    if equivalence not in CASE_SETS:
        raise ValueError(f"equivalence must be 'release' or 'strict', got {equivalence!r}")
    return CASE_SETS[equivalence]()
