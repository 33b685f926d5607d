"""WILT fidelity: the equivalence check uses the release's points and reading of raising guesses."""

import itertools
import json
import random
from pathlib import Path

import numpy as np
import pytest

from cogsim.benchmarks import wilt
from cogsim.benchmarks.wilt import equivalent, equivalent_pairs
from cogsim.benchmarks.wilt.cases import RELEASE_SEED, release_cases

POINTS = json.loads((Path(__file__).parent / "data" / "wilt_points.json").read_text())


def test_release_point_set_has_the_releases_blocks_sizes_and_order():
    cases = release_cases()
    assert len(cases) == POINTS["total"] == 78_931
    assert list(cases.parts) == POINTS["blocks"]
    for name, (lo, hi), count in zip(("random", "small"), POINTS["uniform_ranges"], POINTS["random_counts"]):
        block = cases.part(name)
        assert len(block) == count
        values = np.concatenate([block.xs, block.ys, block.zs])
        assert values.min() >= lo and values.max() <= hi
    lo, hi = POINTS["grid_range"]
    grid = cases.part("grid")
    assert [grid.point(i) for i in range(len(grid))] == [
        tuple(map(float, p)) for p in itertools.product(range(lo, hi), repeat=3)
    ]
    special = cases.part("special")
    assert [special.point(i) for i in range(len(special))] == [tuple(map(float, p)) for p in POINTS["special"]]


def test_random_blocks_are_pythons_uniform_draws_in_the_releases_call_order():
    rng = random.Random(RELEASE_SEED)
    wide = [tuple(rng.uniform(-200, 200) for _ in range(3)) for _ in range(5000)]
    small = [tuple(rng.uniform(-3, 3) for _ in range(3)) for _ in range(5000)]
    cases = release_cases()
    assert cases.point(0) == wide[0] and cases.point(4999) == wide[-1]
    assert cases.point(5000) == small[0] and cases.point(9999) == small[-1]


def test_the_papers_equivalent_pair_is_equivalent_by_default_and_not_under_strict():
    # The paper's own example of equivalent guesses.
    assert equivalent("lambda x, y, z: x - y == z", "lambda x, y, z: y + z == x").equivalent
    assert not equivalent("lambda x, y, z: x - y == z", "lambda x, y, z: y + z == x", equivalence="strict").equivalent


def test_small_block_separates_rules_the_integer_grid_cannot():
    # True at every grid point and every wide random point, False for small fractions.
    guess = "lambda x, y, z: x % 1 == 0 or abs(x) > 3 or abs(y) > 3 or abs(z) > 3"
    result = equivalent(guess, "lambda x, y, z: True")
    assert not result.equivalent
    assert all(max(map(abs, p)) <= 3 for p in result.counterexamples)


def test_a_guess_that_raises_is_invalid_as_in_the_release():
    result = equivalent("lambda x, y, z: x / 0 > 1", "lambda x, y, z: False")
    assert not result.equivalent and result.invalid and result.raised == len(release_cases())
    assert not result.approximately_correct
    # Raising at a few points only (x == 0 on the grid) is enough.
    partial = equivalent("lambda x, y, z: y / x > 0 or True", "lambda x, y, z: True")
    assert partial.invalid and 0 < partial.raised < len(release_cases())
    assert all(p[0] == 0 for p in partial.counterexamples)
    # cogsim's earlier reading stays available.
    assert equivalent("lambda x, y, z: x / 0 > 1", "lambda x, y, z: False", raises="false").equivalent


def test_pairs_agree_with_single_checks_on_raising_guesses():
    guesses = ["lambda x, y, z: x / 0 > 1", "lambda x, y, z: x < y < z", "lambda x, y, z: y / x > 0 or True"]
    hidden = ["lambda x, y, z: False", wilt.FULL_SPLIT[1], "lambda x, y, z: True"]
    for single, pair in zip((equivalent(g, h) for g, h in zip(guesses, hidden)), equivalent_pairs(guesses, hidden)):
        assert (single.equivalent, single.invalid, single.raised) == (pair.equivalent, pair.invalid, pair.raised)


@pytest.mark.parametrize("kwargs", [{"equivalence": "exact"}, {"raises": "ignore"}])
def test_unknown_modes_are_refused(kwargs):
    with pytest.raises(ValueError, match="equivalence|raises"):
        equivalent("lambda x, y, z: True", "lambda x, y, z: True", **kwargs)
