"""Procedural WILT rules: fresh hidden rules and the hypothesis space for reduction curves.

Rules are drawn from the families the paper samples its 2000-lambda hypothesis space from
(ordering, equality, arithmetic relations, parity, ranges and signs, sums/products, extremes,
float parts, bitwise, squares). Sampling uses numpy's PCG64 from an explicit seed, so a seed gives
the same rules on every machine. ``hypothesis_space`` removes rules that behave identically on a
probe set, so every hypothesis is distinguishable.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from cogsim.benchmarks.wilt._rule import compile_rule, evaluate_many

VARS = ("x", "y", "z")
ORDER_OPS = ("<", "<=", ">", ">=")
THRESHOLDS = (-100, -50, -20, -10, -5, -1, 0, 1, 2, 5, 10, 20, 50, 100)


def _threshold(rng: np.random.Generator) -> int:
    """A round threshold half the time, any integer in [-100, 100] otherwise."""
    return _pick(rng, THRESHOLDS) if rng.random() < 0.5 else int(rng.integers(-100, 101))


def _vars(rng: np.random.Generator, k: int) -> list[str]:
    return [VARS[i] for i in rng.permutation(3)[:k]]


def _pick(rng: np.random.Generator, options):
    return options[int(rng.integers(len(options)))]


def _ordering(rng):
    a, b, c = _vars(rng, 3)
    form = int(rng.integers(3))
    if form == 0:
        return f"{a} {_pick(rng, ORDER_OPS)} {b} {_pick(rng, ORDER_OPS)} {c}"
    if form == 1:
        return f"{a} {_pick(rng, ORDER_OPS)} {b}"
    return f"{a} {_pick(rng, ORDER_OPS)} {b} and {c} {_pick(rng, ORDER_OPS)} {b}"


def _equality(rng):
    a, b, c = _vars(rng, 3)
    return _pick(
        rng,
        [
            f"{a} == {b}",
            f"{a} == {b} and {b} == {c}",
            f"{a} != {b} and {b} != {c} and {a} != {c}",
            f"{a} == {b} or {b} == {c} or {a} == {c}",
            f"{a} == {b} and {b} != {c}",
            f"{a} != {b}",
        ],
    )


def _arithmetic(rng):
    a, b, c = _vars(rng, 3)
    k = _pick(rng, (0, 1, 2, 10)) if rng.random() < 0.5 else int(rng.integers(-20, 21))
    return _pick(
        rng,
        [
            f"{a} + {b} == {c}",
            f"{a} - {b} == {c}",
            f"{a} * {b} == {c}",
            f"({a} + {b}) / 2 == {c}",
            f"{a} + {b} > {c}",
            f"{a} + {b} < {c}",
            f"{a} * {b} > {c}",
            f"{a} * {b} < {c}",
            f"{a} - {b} > {c}",
            f"{a} ** 2 + {b} ** 2 == {c} ** 2",
            f"{a} + {b} + {c} == {k}",
            f"{a} * {b} * {c} == {k}",
            f"{a} * 2 == {b}",
            f"{a} + {k} == {b}",
            f"{a} - {b} == {k}",
            f"{a} + {b} > {c} + {k}",
            f"{a} * {abs(k) + 2} == {b}",
            f"{a} - {b} > {k}",
        ],
    )


def _parity(rng):
    m = _pick(rng, (2, 2, 2, 3, 4, 5, 10))
    r = int(rng.integers(m))
    a, b, c = _vars(rng, 3)
    return _pick(
        rng,
        [
            f"{a} % {m} == {r}",
            f"{a} % {m} == {r} and {b} % {m} == {r} and {c} % {m} == {r}",
            f"({a} + {b} + {c}) % {m} == {r}",
            f"({a} * {b} * {c}) % {m} == {r}",
            f"{a} % {m} == {r} or {b} % {m} == {r} or {c} % {m} == {r}",
            f"{a} % {m} == {b} % {m}",
        ],
    )


def _ranges(rng):
    a, b, c = _vars(rng, 3)
    lo, hi = sorted(_threshold(rng) for _ in range(2))
    hi = hi if hi > lo else lo + 10
    t = _threshold(rng)
    return _pick(
        rng,
        [
            f"{a} > {t}",
            f"{a} < {t}",
            f"{lo} < {a} < {hi}",
            f"{a} > {t} and {b} > {t} and {c} > {t}",
            f"{a} < {t} and {b} < {t} and {c} < {t}",
            f"{a} > 0 and {b} < 0",
            f"{a} * {b} > 0",
            f"{a} * {b} * {c} > 0",
            f"{a} * {b} * {c} < 0",
            f"abs({a}) < {abs(t) + 1}",
            f"{lo} <= {a} <= {hi} and {lo} <= {b} <= {hi} and {lo} <= {c} <= {hi}",
        ],
    )


def _sums(rng):
    a, b, c = _vars(rng, 3)
    t = _threshold(rng)
    return _pick(
        rng,
        [
            f"x + y + z > {t}",
            f"x + y + z < {t}",
            f"x + y + z == {t}",
            "x * y * z == 0",
            f"abs({a}) + abs({b}) > abs({c})",
            f"abs({a}) > abs({b})",
            "x * y * z > x + y + z",
            f"abs({a} - {b}) < abs({b} - {c})",
        ],
    )


def _extremes(rng):
    a = _pick(rng, VARS)
    t = _pick(rng, (1, 2, 5, 10, 20, 50)) if rng.random() < 0.5 else int(rng.integers(1, 101))
    return _pick(
        rng,
        [
            f"max(x, y, z) == {a}",
            f"min(x, y, z) == {a}",
            f"max(x, y, z) - min(x, y, z) < {t}",
            f"max(x, y, z) - min(x, y, z) > {t}",
            f"max(x, y, z) > {t}",
            f"min(x, y, z) < -{t}",
        ],
    )


def _float_parts(rng):
    a, b, c = _vars(rng, 3)
    return _pick(
        rng,
        [
            f"{a} % 1 == 0",
            f"{a} % 1 > 0",
            f"{a} % 1 == 0 and {b} % 1 == 0 and {c} % 1 == 0",
            f"{a} % 1 > 0 and {b} % 1 > 0 and {c} % 1 > 0",
            f"{a} < {b} < {c} and {c} - {a} <= 1",
            f"{a}.is_integer()",
            f"0 < {a} % 1 < {b} % 1",
        ],
    )


def _bitwise(rng):
    a, b, c = _vars(rng, 3)
    op = _pick(rng, ("&", "|", "^"))
    return f"{a}.is_integer() and {b}.is_integer() and (int({a}) {op} int({b})) == {c}"


def _squares(rng):
    a, b, c = _vars(rng, 3)
    return _pick(
        rng,
        [
            f"{a} ** 2 == {b}",
            f"{a} ** 2 > {b}",
            f"int({a} ** 0.5) ** 2 == {a}",
            f"{a} ** 2 + {b} ** 2 < {c} ** 2",
            f"{a} ** 2 + {b} ** 2 > {c} ** 2",
            f"math.gcd(int({a}), int({b})) == 1",
        ],
    )


FAMILIES = {
    "ordering": (_ordering, 4),
    "equality": (_equality, 2),
    "arithmetic": (_arithmetic, 4),
    "parity": (_parity, 3),
    "ranges": (_ranges, 4),
    "sums": (_sums, 2),
    "extremes": (_extremes, 2),
    "float_parts": (_float_parts, 2),
    "bitwise": (_bitwise, 1),
    "squares": (_squares, 1),
}


def generate_rules(count: int, seed: int, families=None) -> list[str]:
    """``count`` rule sources (may repeat) drawn from the families, deterministic in ``seed``."""
    if not isinstance(count, int) or count < 0:
        raise ValueError(f"count must be a non-negative int, got {count!r}")
    names = list(families or FAMILIES)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown rule families {unknown}; known: {', '.join(FAMILIES)}")
    weights = np.array([FAMILIES[n][1] for n in names], dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(names), size=count, p=weights / weights.sum())
    return [f"lambda x, y, z: {FAMILIES[names[int(k)]][0](rng)}" for k in picks]


def _probe_points() -> np.ndarray:
    from cogsim.benchmarks.wilt.cases import FAMILIES as SPECIAL_FAMILIES
    from cogsim.benchmarks.wilt.cases import standard_cases

    cases = standard_cases()
    rng = np.random.default_rng(7)
    pick = rng.choice(len(cases), size=2500, replace=False)
    sampled = np.stack([cases.xs[pick], cases.ys[pick], cases.zs[pick]], axis=1)
    return np.concatenate([sampled, np.array(SPECIAL_FAMILIES, dtype=np.float64)])


@lru_cache(maxsize=4)
def hypothesis_space(size: int = 2000, seed: int = 0) -> tuple[str, ...]:
    """``size`` behaviourally distinct rules (no two agree on the probe set, none constant there)."""
    if size < 1:
        raise ValueError(f"size must be positive, got {size}")
    probe = _probe_points()
    chosen: list[str] = []
    seen_rules: set[str] = set()
    seen_behaviour: set[bytes] = set()
    rng_seed = seed
    for _ in range(200):
        batch = [r for r in dict.fromkeys(generate_rules(512, rng_seed)) if r not in seen_rules]
        rng_seed += 1_000_003
        seen_rules.update(batch)
        truth = evaluate_many(batch, probe[:, 0], probe[:, 1], probe[:, 2])
        for source, row in zip(batch, truth):
            key = np.packbits(row).tobytes()
            if row.any() and not row.all() and key not in seen_behaviour:
                seen_behaviour.add(key)
                chosen.append(source)
                if len(chosen) == size:
                    return tuple(chosen)
    raise ValueError(f"the rule families cannot produce {size} distinct rules")


def procedural_rule(seed: int) -> str:
    """A hidden rule for a procedural episode: a non-constant rule from the families."""
    space = hypothesis_space(2000, 0)
    rng = np.random.default_rng(seed)
    return space[int(rng.integers(len(space)))]


def complexity(source: str) -> tuple[int, int]:
    rule = compile_rule(source)
    return rule.operator_count, rule.length
