"""Equivalence checks, the standard case set, and the paper's splits."""

from __future__ import annotations

import numpy as np
import pytest

from cogsim.benchmarks import wilt
from cogsim.benchmarks.wilt import CaseSet, equivalent, equivalent_pairs, rule_matrix, standard_cases

REWRITES = [
    "lambda x, y, z: z < y < x",
    "lambda x, y, z: z > y > x",
    "lambda x, y, z: z <= y <= x",
    "lambda x, y, z: z >= y >= x",
    "lambda x, y, z: y > z > x",
    "lambda x, y, z: y >= z >= x",
    "lambda x, y, z: y > x > z",
    "lambda x, y, z: x <= y",
    "lambda x, y, z: y == z == x",
    "lambda x, y, z: not (x == y or y == z or x == z)",
    "lambda x, y, z: max(x, y, z) < 0",
    "lambda x, y, z: min(x, y, z) > 0",
    "lambda x, y, z: all(v % 2 == 0 for v in (x, y, z))",
    "lambda x, y, z: all(v % 2 == 1 for v in (z, y, x))",
    "lambda x, y, z: z == y + x",
    "lambda x, y, z: z == y * x",
    "lambda x, y, z: z == x - y",
    "lambda x, y, z: y == z + x",
    "lambda x, y, z: z * x == y",
    "lambda x, y, z: y == x - z",
    "lambda x, y, z: x == z + y",
    "lambda x, y, z: z * y == x",
    "lambda x, y, z: x == y - z",
    "lambda x, y, z: z == y - x",
    "lambda x, y, z: y == z - x",
    "lambda x, y, z: x == z - y",
    "lambda x, y, z: y**2 + x**2 == z**2",
    "lambda x, y, z: z**2 + x**2 == y**2",
    "lambda x, y, z: z**2 + y**2 == x**2",
    "lambda a, b, c: b.is_integer() and a.is_integer() and (int(b) & int(a)) == c",
    "lambda a, b, c: b.is_integer() and a.is_integer() and (int(b) | int(a)) == c",
    "lambda a, b, c: b.is_integer() and a.is_integer() and (int(b) ^ int(a)) == c",
    "lambda x, y, z: all(v.is_integer() for v in (x, y, z)) and math.gcd(int(y), int(x)) == 1"
    " and math.gcd(int(z), int(y)) == 1 and math.gcd(int(x), int(z)) == 1",
    "lambda x, y, z: all(int(n ** 0.5) ** 2 == n for n in [z, y, x])",
    "lambda x, y, z: 0 == x + y + z",
    "lambda x, y, z: x == 0 or y == 0 or z == 0",
    "lambda x, y, z: not (x + y + z) % 2",
    "lambda x, y, z: (x + y + z) % 2 == 1.0",
    "lambda x, y, z: (x * y * z) % 2 == 0.0",
    "lambda x, y, z: 1 == (x * y * z) % 2",
    "lambda x, y, z: x >= y and x >= z",
    "lambda x, y, z: y >= x and y >= z",
    "lambda x, y, z: z >= x and z >= y",
    "lambda x, y, z: x <= y and x <= z",
    "lambda x, y, z: y <= x and y <= z",
    "lambda x, y, z: z <= x and z <= y",
    "lambda x, y, z: all(v % 1 > 0 for v in (x, y, z))",
    "lambda x, y, z: x % 1 > 0 and y % 1 > x % 1 and z % 1 > y % 1 and z % 1 < 1",
    "lambda x, y, z: x < y and y < z and z - x <= 1",
    "lambda x, y, z: z == (y + x) / 2",
]


def test_split_sizes_and_tiers():
    assert len(wilt.FULL_SPLIT) == 50 and len(wilt.FULL_TIERS) == 50
    assert len(wilt.LITE_SPLIT) == 10 and len(wilt.LITE_TIERS) == 10
    assert set(wilt.FULL_TIERS) == {"easy", "medium", "very hard"}
    assert wilt.FULL_SPLIT[1] == "lambda x, y, z: x < y < z"
    for src in wilt.FULL_SPLIT + wilt.LITE_SPLIT:
        wilt.compile_rule(src)


def test_standard_case_set_shape_and_determinism():
    cases = standard_cases()
    assert cases.parts["grid"] == slice(0, 41**3)
    assert cases.parts["random"].stop - cases.parts["random"].start == 10_000
    random_part = cases.part("random")
    assert random_part.xs.min() >= -200 and random_part.xs.max() <= 200
    # SplitMix64 seed 2410: the same numbers on every machine.
    assert cases.point(cases.parts["random"].start) == pytest.approx(tuple(wilt.cases.random_points()[0]))
    assert np.array_equal(wilt.cases.random_points()[:5], wilt.cases.random_points()[:5])
    assert np.signbit(cases.part("special").xs).any(), "negative zero must be among the special cases"


def test_every_full_rule_equals_itself_and_its_rewrite():
    assert len(REWRITES) == 50
    # REWRITES follow cogsim's earlier rule list, kept as the "prototype" split.
    results = equivalent_pairs(
        list(wilt.PROTOTYPE_SPLIT) + REWRITES, list(wilt.PROTOTYPE_SPLIT) * 2, equivalence="strict", raises="false"
    )
    for k, result in enumerate(results):
        assert result.equivalent, (k % 50 + 1, result.counterexample)
        assert result.inclusion_ratio == 1.0


def test_every_full_rule_differs_from_every_other_on_the_release_points():
    cases = wilt.cases.release_cases()
    matrix = rule_matrix(wilt.FULL_SPLIT, (cases.xs, cases.ys, cases.zs))
    for i in range(50):
        assert matrix[i].any(), f"rule {i + 1} is never True on the release's points"
        for j in range(i + 1, 50):
            assert not np.array_equal(matrix[i], matrix[j]), f"rules {i + 1} and {j + 1} agree everywhere"


def test_every_prototype_rule_differs_from_every_other():
    cases = standard_cases()
    matrix = rule_matrix(wilt.PROTOTYPE_SPLIT, (cases.xs, cases.ys, cases.zs))
    special = matrix[:, cases.parts["special"]]
    n = len(wilt.PROTOTYPE_SPLIT)
    for i in range(n):
        assert matrix[i].any(), f"rule {i + 1} is never True on the case set"
        for j in range(i + 1, n):
            assert not np.array_equal(special[i], special[j]), (
                f"special cases do not separate rules {i + 1} and {j + 1}"
            )


def test_lite_rules_match_their_full_counterparts():
    for lite, full in zip(range(9), [0, 1, 2, 3, 8, 9, 10, 14, 15]):
        assert equivalent(wilt.LITE_SPLIT[lite], wilt.FULL_SPLIT[full]).equivalent


def test_equivalence_fields_on_a_hand_made_case_set():
    points = np.array([[1, 2, 3], [3, 2, 1], [1, 2, 2.5], [0, 0, 0], [2, 2, 3]], dtype=float)
    cases = CaseSet(points[:, 0].copy(), points[:, 1].copy(), points[:, 2].copy(), {"all": slice(0, 5)})
    # hidden: x < y < z is True at points 0 and 2; guess x < y is True at 0, 2 -> equal here
    result = equivalent("lambda x, y, z: x < y", "lambda x, y, z: x < y < z", cases)
    assert result.equivalent and result.mismatches == 0 and result.inclusion_ratio == 1.0
    # guess x <= y is True at 0, 2, 3, 4: superset of {0, 2}; ratio 4 / 2
    result = equivalent("lambda x, y, z: x <= y", "lambda x, y, z: x < y < z", cases)
    assert not result.equivalent
    assert (result.mismatches, result.guess_true, result.hidden_true, result.both_true) == (2, 4, 2, 2)
    assert result.relation == "superset" and result.inclusion_ratio == 2.0
    assert result.counterexamples == ((0.0, 0.0, 0.0), (2.0, 2.0, 3.0))
    assert result.agreement == pytest.approx(3 / 5) and result.jaccard == pytest.approx(0.5)
    # guess z == 3 is True at 0, 4; hidden at 0, 2: overlap, no inclusion ratio
    result = equivalent("lambda x, y, z: z == 3", "lambda x, y, z: x < y < z", cases)
    assert result.relation == "overlap" and result.inclusion_ratio is None
    # subset: guess x < y < z and z == 3 -> {0}; ratio 1 / 2
    result = equivalent("lambda x, y, z: x < y < z and z == 3", "lambda x, y, z: x < y < z", cases)
    assert result.relation == "subset" and result.inclusion_ratio == 0.5


def test_counterexamples_are_real_and_pairs_match_single_checks():
    guesses = [
        "lambda x, y, z: x < y",
        "lambda x, y, z: y > x and z > y",
        "lambda x, y, z: x + y == z + 0",
        "lambda x, y, z: int(x) * 2 ** 56 > 2 ** 60",
    ]
    hidden = [wilt.FULL_SPLIT[1], wilt.FULL_SPLIT[1], wilt.FULL_SPLIT[14], "lambda x, y, z: x >= 17"]
    batched = equivalent_pairs(guesses, hidden)
    for guess, rule, pair in zip(guesses, hidden, batched):
        single = equivalent(guess, rule)
        assert (single.equivalent, single.mismatches, single.guess_true, single.hidden_true) == (
            pair.equivalent,
            pair.mismatches,
            pair.guess_true,
            pair.hidden_true,
        )
        for point in single.counterexamples:
            assert wilt.compile_rule(guess)(*point) != wilt.compile_rule(rule)(*point)
    assert batched[1].equivalent and batched[2].equivalent and not batched[0].equivalent
    assert batched[3].equivalent  # decided by the big-int fallback where int(x) * 2**56 exceeds 64 bits


def test_approximately_correct_is_close_but_not_equal():
    near = equivalent("lambda x, y, z: x < y < z and z - x < 300", "lambda x, y, z: x < y < z")
    assert not near.equivalent and near.approximately_correct
    far = equivalent("lambda x, y, z: x > 0", "lambda x, y, z: x < y < z")
    assert not far.approximately_correct


def test_rule_matrix_agrees_with_single_rules():
    rng = np.random.default_rng(0)
    points = rng.integers(-5, 6, size=(30, 3)).astype(float)
    matrix = rule_matrix(wilt.FULL_SPLIT, points)
    for r, src in enumerate(wilt.FULL_SPLIT):
        rule = wilt.compile_rule(src)
        assert matrix[r].tolist() == [rule(*p) for p in points]
    with pytest.raises(ValueError, match="shape"):
        rule_matrix(wilt.FULL_SPLIT, np.zeros((4, 2)))


@pytest.mark.parametrize("pair", [(0, 1), (14, 15), (46, 47), (10, 49)])
def test_counts_and_first_counterexamples_match_full_truth_tables(pair):
    from cogsim.benchmarks.wilt import FULL_SPLIT, compile_rule, equivalent, standard_cases

    cases = standard_cases()
    guess, hidden = (FULL_SPLIT[k] for k in pair)
    truth = [compile_rule(r).evaluate(cases.xs, cases.ys, cases.zs) for r in (guess, hidden)]
    differ = np.flatnonzero(truth[0] != truth[1])
    for threads in (1, 2):
        result = equivalent(guess, hidden, threads=threads, equivalence="strict")
        assert result.mismatches == differ.size
        assert result.counterexamples == tuple(cases.point(i) for i in differ[:5])


RAISING_GUESSES = [
    "lambda x, y, z: x / y > z",  # ZeroDivisionError where y == 0
    "lambda x, y, z: x // (y - z) == 1",
    "lambda x, y, z: math.isqrt(x) > y",  # ValueError on negative x, TypeError on floats
    "lambda x, y, z: [x, y, z][5] > 0 or x > y",  # IndexError everywhere
    "lambda x, y, z: x > y",  # never raises
    "lambda x, y, z: x ** y > z",  # complex results on the random points: CPython decides them
]


@pytest.mark.parametrize("equivalence_mode", ["release", "strict"])
@pytest.mark.parametrize("raises", ["invalid", "false"])
@pytest.mark.parametrize("guess", RAISING_GUESSES)
def test_one_pass_check_against_the_cached_truth_equals_the_full_truth_tables(guess, raises, equivalence_mode):
    """The named case sets take one core pass against the hidden rule's cached truth; passing the same
    points as an explicit CaseSet takes the per-point arrays; both must read every point alike."""
    from cogsim.benchmarks.wilt.cases import cases_for

    hidden = "lambda x, y, z: x > y"
    named = equivalent(guess, hidden, equivalence=equivalence_mode, raises=raises)
    explicit = cases_for(equivalence_mode)
    points = CaseSet(explicit.xs.copy(), explicit.ys.copy(), explicit.zs.copy(), parts=explicit.parts)
    assert named == equivalent(guess, hidden, cases=points, equivalence=equivalence_mode, raises=raises)
    if raises == "invalid" and guess != hidden and "/" in guess:
        assert named.invalid and named.raised > 0 and not named.equivalent
