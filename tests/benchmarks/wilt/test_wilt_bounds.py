"""Bounded evaluation of WILT guesses (docs/security.md): big-number guesses finish quickly with
either CPython's exact answer or a RuleError naming the limit. No timings are asserted: each test
must simply finish."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cogsim.benchmarks.wilt import RuleError, compile_rule
from cogsim.benchmarks.wilt._interp import MAX_BIG_INT_WORK, MAX_INT_BITS
from cogsim.benchmarks.wilt.cases import standard_cases

EDGE = [0.0, -0.0, 1.0, -3.0, 7.5, 1e300, -1e300, 1.7976931348623157e308, 5e-324, math.inf, -math.inf, math.nan]


def grid():
    pts = np.array([(a, b, c) for a in EDGE for b in EDGE[:6] for c in EDGE[:4]])
    return pts[:, 0].copy(), pts[:, 1].copy(), pts[:, 2].copy()


def cpython(src: str, points):
    fn = eval(src, {"math": math})  # noqa: S307 - test-written source, never model text
    out = []
    for x, y, z in zip(*(p.tolist() for p in points)):
        try:
            out.append(bool(fn(x, y, z)))
        except Exception:
            out.append(False)
    return np.array(out)


@pytest.mark.parametrize(
    "src",
    [
        "lambda x, y, z: x < 10**10000",
        "lambda x, y, z: x > -10**10000 and y <= 10**10000",
        "lambda x, y, z: x * 10**400 > y",
        "lambda x, y, z: x < 2**1024 + 1",
        "lambda x, y, z: x == 2**1023 * 2 - 2**970",
        "lambda x, y, z: int(x) < 10**400",
        "lambda x, y, z: int(x) * int(y) * int(z) > 10**900",
        "lambda x, y, z: (int(x) << 1000) >> 999 == 2 * int(x)",
        "lambda x, y, z: int(x) ** 3 % 7 == 1",
        "lambda x, y, z: 10**5000 // 10**4990 == 10**10",
        "lambda x, y, z: (10**10000 + int(x)) % 10**10000 == int(x) % 10**10000",
        "lambda x, y, z: round(int(x), -300) == 0",
    ],
)
def test_big_numbers_are_exact_where_cheap(src):
    points = grid()
    got = compile_rule(src).evaluate(*points)
    assert got.tolist() == cpython(src, points).tolist()


def test_comparing_floats_with_a_huge_integer_stays_exact_on_the_standard_cases():
    cases = standard_cases()
    got = compile_rule("lambda x, y, z: x < 10**10000").evaluate(cases.xs, cases.ys, cases.zs)
    want = np.isfinite(cases.xs) | (cases.xs == -math.inf)
    assert np.array_equal(got, want)


@pytest.mark.parametrize(
    "src",
    [
        "lambda x, y, z: 2**2**2**2**2 > x",
        "lambda x, y, z: x < 10**10**10",
        "lambda x, y, z: 1 << 40000 << 40000 > x",
        "lambda x, y, z: (10**10000) ** 3 > x",
        "lambda x, y, z: 9**9**9 == x",
        "lambda x, y, z: x < " + " * ".join(["10**9000"] * 9),
    ],
)
def test_constant_expressions_past_the_limit_are_refused_at_compile_time(src):
    with pytest.raises(RuleError, match=f"limited to {MAX_INT_BITS} bits"):
        compile_rule(src)


@pytest.mark.parametrize(
    "src",
    [
        "lambda x, y, z: int(x) ** int(y) ** int(z) > 0",
        "lambda x, y, z: int(x) ** 100 > y",
        "lambda x, y, z: int(x) ** int(y) > z",
        "lambda x, y, z: (int(x) << min(int(y), 65000)) > z",
        "lambda x, y, z: int(x) << 21700 << 21700 << 21700 > 0",
        "lambda x, y, z: pow(int(x), 1000) == y",
    ],
)
def test_data_dependent_blowups_raise_a_rule_error_naming_the_limit(src):
    rule = compile_rule(src)  # the size depends on the points: refused at evaluation
    with pytest.raises(RuleError, match=f"limited to {MAX_INT_BITS} bits"):
        rule.evaluate([1e300, 1e300], [1e300, 3.0], [2.0, 2.0])
    small = ([2.0, -3.0, 0.0], [3.0, 1.0, 5.0], [2.0, 0.0, 1.0])
    assert rule.evaluate(*small).tolist() == cpython(src, tuple(np.array(v) for v in small)).tolist()


def test_total_wide_integer_work_is_bounded():
    # each point makes two ~50,000-bit powers: under the per-value limit, over the budget in total
    rule = compile_rule("lambda x, y, z: int(x) ** 50 > int(y) ** 49")
    n = MAX_BIG_INT_WORK // (50_000**2 // 900) + 10
    xs = np.full(n, 1e300)
    with pytest.raises(RuleError, match="wide-integer"):
        rule.evaluate(xs, xs, xs)
    assert rule.evaluate(xs[:50], xs[:50], xs[:50]).tolist() == [True] * 50


def test_a_long_big_number_guess_finishes_on_the_standard_cases():
    src = (
        "lambda x, y, z: x * 10**300 < y * 10**300 + 10**10000 and int(z) * 10**1000 != 10**2000 "
        "and (int(x) + 10**5000) % 7 < 10**4000 and x < 10**10000 > y > -10**10000"
    )
    cases = standard_cases()
    rule = compile_rule(src)
    got = rule.evaluate(cases.xs, cases.ys, cases.zs)
    sample = np.arange(0, len(cases.xs), 97)
    points = (cases.xs[sample], cases.ys[sample], cases.zs[sample])
    assert got[sample].tolist() == cpython(src, points).tolist()


def test_literals_beyond_the_literal_limit_are_refused():
    with pytest.raises(RuleError, match="too large"):
        compile_rule("lambda x, y, z: x < " + "9" * 3000)


def _nested_choices(levels: int) -> str:
    expr = "x"
    for i in range(levels):
        expr = f"[(v{i} if x else v{i}) for v{i} in [{expr} if True else y]][0]"
    return expr


@pytest.mark.parametrize(
    "src",
    [
        "lambda x, y, z: x in [" + _nested_choices(11) + "]",
        "lambda x, y, z: x in [" + _nested_choices(3) + "]",
        "lambda x, y, z: x in sorted([sorted([sorted([sorted([x, y, z, 1, 2])[0], y, z, 1, 2])[0], y, z, 1, 2])[0], y, z])",
        "lambda x, y, z: x in [" + "min(" * 50 + "x" + ", y)" * 50 + "]",
        "lambda x, y, z: x in [" + "(x if y else " * 50 + "z" + ")" * 50 + "]",
        "lambda x, y, z: len({"
        + ", ".join(["x", "y", "z", "x * 0", "y * 0", "float(z)", "+x", "min(x, y)"] * 4)
        + "}) > 3",
        "lambda x, y, z: {"
        + ", ".join(["x", "y", "z", "min(x,y)"] * 8)
        + "} == {"
        + ", ".join(["z", "y", "x", "max(y, z)"] * 8)
        + "}",
        "lambda x, y, z: any(sorted(p) == sorted([x, y, z]) for p in itertools.permutations([x, y, z]))",
    ],
)
def test_container_identity_and_unrolling_stay_bounded_at_compile_time(src):
    # choices of choices can nest exponentially: compiled within the limits (and exact) or refused
    points = tuple(np.array(v) for v in ([1.0, math.nan, 2.0], [2.0, 1.0, math.nan], [3.0, 0.0, 2.0]))
    try:
        rule = compile_rule(src)
    except RuleError as error:
        assert "too complex" in str(error) or "too large" in str(error)
        return
    import itertools

    fn = eval(src, {"math": math, "itertools": itertools})  # noqa: S307 - test-written source
    want = []
    for x, y, z in zip(*(p.tolist() for p in points)):
        try:
            want.append(bool(fn(x, y, z)))
        except Exception:
            want.append(False)
    assert rule.evaluate(*points).tolist() == want


def test_a_shift_count_past_cpythons_index_range_raises_there_as_in_cpython():
    # CPython refuses 1 << (a 997-bit int) at once (OverflowError): a raising point, not a budget overrun
    src = "lambda x, y, z: (1 << int(x)) > 0"
    points = (np.array([1e300, 3.0]), np.array([0.0, 0.0]), np.array([0.0, 0.0]))
    assert compile_rule(src).evaluate(*points).tolist() == cpython(src, points).tolist() == [False, True]


def test_a_shift_no_machine_could_hold_raises_there_as_in_cpython():
    src = "lambda x, y, z: (1 << int(x)) > 0"
    points = (np.array([2.0**53 + 2, 2.0**49]), np.array([0.0, 0.0]), np.array([0.0, 0.0]))
    assert compile_rule(src).evaluate(*points).tolist() == cpython(src, points).tolist() == [False, False]
