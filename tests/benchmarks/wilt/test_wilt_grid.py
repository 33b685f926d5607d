"""WILT checks factored over the integer grid (cpp/wilt/grid.hpp) give exactly what the point-by-point
VM gives: the same truth and status at every grid point, and the same counts, raising points and
counterexamples in checks, for the full and lite splits, the test suite's guesses and random rules."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_wilt_equivalence import RAISING_GUESSES
from test_wilt_vm import CASE_SET_RULES, EXPRESSIONS, FAST_PATH_RULES, HAND_RULES

from cogsim import _core
from cogsim.benchmarks import wilt
from cogsim.benchmarks.wilt import RuleError, compile_rule
from cogsim.benchmarks.wilt.cases import GRID_RANGE, cases_for

AXIS = [float(v) for v in GRID_RANGE]
GRID = np.array(list(itertools.product(AXIS, repeat=3)))
GRID_XS, GRID_YS, GRID_ZS = (np.ascontiguousarray(GRID[:, k]) for k in range(3))

# Shapes the factored evaluation treats apart: comparisons of a scalar per row with whole numbers
# along z (tables), non-whole scalars, infinities and NaN, values beyond any table, raising rules.
SHAPES = [
    "lambda x, y, z: z < x + y",
    "lambda x, y, z: z >= x * y",
    "lambda x, y, z: y <= x + z",
    "lambda x, y, z: x > y * z",
    "lambda x, y, z: (x + y) / 2 < z",
    "lambda x, y, z: (x + y) / 3 != z",
    "lambda x, y, z: x * 1e308 * 10 > z",
    "lambda x, y, z: (x * 1e308 * 10 - x * 1e308 * 10) == z",
    "lambda x, y, z: (x * 1e308 * 10 - x * 1e308 * 10) != z",
    "lambda x, y, z: x * 1e6 < z * 1e7",
    "lambda x, y, z: z * 1e300 > x * 1e300",
    "lambda x, y, z: x / 0.5 > z * 0.5",
    "lambda x, y, z: z * 1e308 * 10 == x",
    "lambda x, y, z: 1e10 * x > z",
    "lambda x, y, z: x ** 3 == y * z * z",
    "lambda x, y, z: max(x, y, z) == x and x > 0",
    "lambda x, y, z: (x if y > 0 else z) > 2",
    "lambda x, y, z: x / y > z",
    "lambda x, y, z: 1 / (x - 20) > y",
    "lambda x, y, z: True",
    "lambda x, y, z: not (x < y)",
    "lambda x, y, z: (x > y) == (y > z)",
    "lambda x, y, z: sum([x, y, z]) == 0",
    "lambda x, y, z: math.isclose(x, y + z)",
    "lambda x, y, z: x == -0.0",
    "lambda x, y, z: int(x) << y > z",
]
RULES = list(
    dict.fromkeys(
        [*wilt.FULL_SPLIT, *wilt.LITE_SPLIT, *HAND_RULES, *FAST_PATH_RULES, *CASE_SET_RULES, *RAISING_GUESSES, *SHAPES]
    )
)


def assert_grid_equals_points(src: str) -> None:
    try:
        rule = compile_rule(src)
    except RuleError:
        return
    truth, status = _core.wilt_evaluate(rule.program, GRID_XS, GRID_YS, GRID_ZS, 1)
    grid_truth, grid_status = _core.wilt_evaluate_grid(rule.program, AXIS)
    assert np.array_equal(np.asarray(grid_truth).reshape(-1), np.asarray(truth)), src
    expected_status = np.asarray(status)
    if grid_status is None:
        assert not expected_status.any(), src
    else:
        assert np.array_equal(np.asarray(grid_status).reshape(-1), expected_status), src


def assert_checks_equal_points(src: str, hidden: str, equivalence: str) -> None:
    try:
        rule = compile_rule(src)
    except RuleError:
        return
    cases = cases_for(equivalence)
    truth = np.asarray(compile_rule(hidden).evaluate(cases.xs, cases.ys, cases.zs))
    factored = _core.wilt_check(rule.program, _core.WiltReference(cases.core, truth), 5, 1)
    points = _core.wilt_compare_truth(rule.program, truth, cases.xs, cases.ys, cases.zs, 5, 1)
    keys = ("mismatches", "true_a", "true_b", "true_both", "fallback", "raised_a", "first_mismatches", "first_raised_a")
    assert factored == tuple(points[key] for key in keys), (src, hidden)


@pytest.mark.parametrize("src", RULES)
def test_grid_evaluation_is_point_by_point_evaluation(src):
    assert_grid_equals_points(src)


@pytest.mark.parametrize("equivalence", ["release", "strict"])
@pytest.mark.parametrize("index", range(0, len(RULES), 3))
def test_factored_checks_are_point_by_point_checks(index, equivalence):
    """Each rule against a hidden rule it differs from, and against itself."""
    src = RULES[index]
    assert_checks_equal_points(src, wilt.FULL_SPLIT[index % len(wilt.FULL_SPLIT)], equivalence)
    if src in wilt.FULL_SPLIT:
        assert_checks_equal_points(src, src, equivalence)


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(EXPRESSIONS)
def test_random_rules_evaluate_and_check_as_point_by_point(body):
    src = f"lambda x, y, z: {body}"
    assert_grid_equals_points(src)
    assert_checks_equal_points(src, "lambda x, y, z: x < y < z", "release")


def test_the_named_case_sets_declare_their_grid():
    for equivalence in ("release", "strict"):
        cases = cases_for(equivalence)
        assert cases.core.grid_points == 41**3 and len(cases.core) == len(cases)


def test_a_grid_is_declared_only_where_the_points_are_one():
    xs, ys, zs = GRID_XS.copy(), GRID_YS.copy(), GRID_ZS.copy()
    assert _core.WiltCases(xs, ys, zs, 0, AXIS).grid_points == len(xs)
    zs[1234] = 0.5
    with pytest.raises(ValueError, match="must be grid_axis\\^3"):
        _core.WiltCases(xs, ys, zs, 0, AXIS)
    zs[1234] = GRID_ZS[1234]
    signed = np.where(zs == 0.0, -0.0, zs)  # -0.0 is another point to a rule (1 / z)
    with pytest.raises(ValueError, match="bit for bit"):
        _core.WiltCases(xs, ys, signed, 0, AXIS)
    with pytest.raises(ValueError, match="at most 44"):
        _core.WiltCases(xs, ys, zs, 0, [float(v) for v in range(45)])
    with pytest.raises(ValueError, match="grid_axis"):
        _core.WiltCases(xs[:100], ys[:100], zs[:100], 0, AXIS)
    with pytest.raises(ValueError, match="one value per point"):
        _core.WiltReference(_core.WiltCases(xs, ys, zs, 0, AXIS), np.zeros(5, dtype=bool))


def test_a_case_set_with_another_grid_part_is_checked_point_by_point():
    cases = cases_for("release")
    odd = wilt.cases.CaseSet(cases.xs, cases.ys, cases.zs, {"grid": slice(0, 27)})  # not a product grid there
    assert odd.core.grid_points == 0
    guess, hidden = compile_rule("lambda x, y, z: x > y"), compile_rule("lambda x, y, z: x > y > z")
    truth = np.asarray(hidden.evaluate(cases.xs, cases.ys, cases.zs))
    assert _core.wilt_check(guess.program, _core.WiltReference(odd.core, truth), 5, 1) == _core.wilt_check(
        guess.program, _core.WiltReference(cases.core, truth), 5, 1
    )
