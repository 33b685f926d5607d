"""The hidden rules of WILT: the release's 50-rule full split and 10-rule lite split, in its order.

Source: RiotGames/WILT (commit 6344f04), ``harness/test_cases.py``: ``TESTS_FULL`` and ``TESTS_LITE``
(the lambda texts, verbatim; tests/benchmarks/wilt/data/wilt_rules.json holds them as extracted). Tiers
follow that file's section comments: "Easy Tests" 1-14, "Medium Tests" 15-39, "Very Hard Tests" 40-50.

Every rule is the release's text as it stands, rule 46 (coprimality, ``for a, b in [...]``) included:
the compiler takes tuple targets in generators.

``PROTOTYPE_SPLIT`` is cogsim's earlier 50-rule list (from the prototype harness: subtraction rules,
``x <= x <= y``, no magnitude-range or ``int()`` bitwise rules), kept as the named split "prototype".
"""

from __future__ import annotations

EASY, MEDIUM, VERY_HARD = "easy", "medium", "very hard"

_RELEASE_FULL = [
    ("lambda x, y, z: x > y > z", EASY),  # 1
    ("lambda x, y, z: x < y < z", EASY),  # 2
    ("lambda x, y, z: x >= y >= z", EASY),  # 3
    ("lambda x, y, z: x <= y <= z", EASY),  # 4
    ("lambda x, y, z: x < z < y", EASY),  # 5
    ("lambda x, y, z: x <= z <= y", EASY),  # 6
    ("lambda x, y, z: z < x < y", EASY),  # 7
    ("lambda x, y, z: z <= x <= y", EASY),  # 8
    ("lambda x, y, z: x == y and y == z", EASY),  # 9
    ("lambda x, y, z: x != y and y != z and x != z", EASY),  # 10
    ("lambda x, y, z: x < 0 and y < 0 and z < 0", EASY),  # 11
    ("lambda x, y, z: x > 0 and y > 0 and z > 0", EASY),  # 12
    ("lambda x, y, z: (x % 2 == 0) and (y % 2 == 0) and (z % 2 == 0)", EASY),  # 13
    ("lambda x, y, z: (x % 2 != 0) and (y % 2 != 0) and (z % 2 != 0)", EASY),  # 14
    ("lambda x, y, z: x + y == z", MEDIUM),  # 15
    ("lambda x, y, z: x * y == z", MEDIUM),  # 16
    ("lambda x, y, z: x + z == y", MEDIUM),  # 17
    ("lambda x, y, z: x * z == y", MEDIUM),  # 18
    ("lambda x, y, z: y + z == x", MEDIUM),  # 19
    ("lambda x, y, z: y * z == x", MEDIUM),  # 20
    ("lambda x, y, z: max(x, y, z) == x", MEDIUM),  # 21
    ("lambda x, y, z: max(x, y, z) == y", MEDIUM),  # 22
    ("lambda x, y, z: max(x, y, z) == z", MEDIUM),  # 23
    ("lambda x, y, z: min(x, y, z) == x", MEDIUM),  # 24
    ("lambda x, y, z: min(x, y, z) == y", MEDIUM),  # 25
    ("lambda x, y, z: min(x, y, z) == z", MEDIUM),  # 26
    ("lambda x, y, z: (x + y + z) == 0", MEDIUM),  # 27
    ("lambda x, y, z: (x * y * z) == 0", MEDIUM),  # 28
    ("lambda x, y, z: (x + y + z) % 2 == 0", MEDIUM),  # 29
    ("lambda x, y, z: (x + y + z) % 2 == 1", MEDIUM),  # 30
    ("lambda x, y, z: (x * y * z) % 2 == 0", MEDIUM),  # 31
    ("lambda x, y, z: (x * y * z) % 2 == 1", MEDIUM),  # 32
    ("lambda x, y, z: (x + y) / 2 == z", MEDIUM),  # 33
    ("lambda x, y, z: (x <= 5 and x >= -5) and (y <= 5 and y >= -5) and (z <= 5 and z >= -5)", MEDIUM),  # 34
    ("lambda x, y, z: (x <= 10 and x >= -10) and (y <= 10 and y >= -10) and (z <= 10 and z >= -10)", MEDIUM),  # 35
    ("lambda x, y, z: (x <= 0 and x >= -5) and (y <= 0 and y >= -5) and (z <= 0 and z >= -5)", MEDIUM),  # 36
    ("lambda x, y, z: (x <= 5 and x >= 0) and (y <= 5 and y >= 0) and (z <= 5 and z >= 0)", MEDIUM),  # 37
    ("lambda x, y, z: (x <= 2 and x >= -2) and (y <= 2 and y >= -2) and (z <= 2 and z >= -2)", MEDIUM),  # 38
    ("lambda x, y, z: (x <= 20 and x >= -20) and (y <= 20 and y >= -20) and (z <= 20 and z >= -20)", MEDIUM),  # 39
    ("lambda x, y, z: x**2 + y**2 == z**2", VERY_HARD),  # 40
    ("lambda x, y, z: x**2 + z**2 == y**2", VERY_HARD),  # 41
    ("lambda x, y, z: y**2 + z**2 == x**2", VERY_HARD),  # 42
    ("lambda x, y, z: (int(x) & int(y)) == int(z)", VERY_HARD),  # 43
    ("lambda x, y, z: (int(x) | int(y)) == int(z)", VERY_HARD),  # 44
    ("lambda x, y, z: (int(x) ^ int(y)) == int(z)", VERY_HARD),  # 45
    (
        "lambda x, y, z: all([m % 1 == 0 for m in [x, y, z]]) and all(math.gcd(int(a), int(b)) == 1 for a, b in [(x, y), (y, z), (z, x)])",
        VERY_HARD,
    ),  # 46
    ("lambda x, y, z: all(int(abs(n)**0.5)**2 == n for n in (x, y, z))", VERY_HARD),  # 47
    ("lambda x, y, z: (0 < x % 1) and (0 < y % 1) and (0 < z % 1)", VERY_HARD),  # 48
    ("lambda x, y, z: 0 < x % 1 < y % 1 < z % 1 < 1", VERY_HARD),  # 49
    ("lambda x, y, z: (x < y < z) and (0 < z - x <= 1)", VERY_HARD),  # 50
]

RELEASE_FULL_SOURCES: tuple[str, ...] = tuple(src for src, _ in _RELEASE_FULL)
FULL_SPLIT: tuple[str, ...] = RELEASE_FULL_SOURCES
FULL_TIERS: tuple[str, ...] = tuple(tier for _, tier in _RELEASE_FULL)

# cogsim's earlier list (see the module note), kept as the "prototype" split.
_PROTOTYPE = [
    # Simple orders
    ("lambda x, y, z: x > y > z", EASY),
    ("lambda x, y, z: x < y < z", EASY),
    ("lambda x, y, z: x >= y >= z", EASY),
    ("lambda x, y, z: x <= y <= z", EASY),
    ("lambda x, y, z: x < z < y", EASY),
    ("lambda x, y, z: x <= z <= y", EASY),
    ("lambda x, y, z: z < x < y", EASY),
    ("lambda x, y, z: x <= x <= y", EASY),
    # Equality and inequality
    ("lambda x, y, z: x == y and y == z", EASY),
    ("lambda x, y, z: x != y and y != z and x != z", EASY),
    # Signs
    ("lambda x, y, z: x < 0 and y < 0 and z < 0", EASY),
    ("lambda x, y, z: x > 0 and y > 0 and z > 0", EASY),
    # Even vs odd
    ("lambda x, y, z: (x % 2 == 0) and (y % 2 == 0) and (z % 2 == 0)", EASY),
    ("lambda x, y, z: (x % 2 == 1) and (y % 2 == 1) and (z % 2 == 1)", EASY),
    # Arithmetic (no division)
    ("lambda x, y, z: x + y == z", EASY),
    ("lambda x, y, z: x * y == z", EASY),
    ("lambda x, y, z: x - y == z", EASY),
    ("lambda x, y, z: x + z == y", EASY),
    ("lambda x, y, z: x * z == y", EASY),
    ("lambda x, y, z: x - z == y", EASY),
    ("lambda x, y, z: y + z == x", EASY),
    ("lambda x, y, z: y * z == x", EASY),
    ("lambda x, y, z: y - z == x", EASY),
    # Reversed order for subtraction
    ("lambda x, y, z: y - x == z", EASY),
    ("lambda x, y, z: z - x == y", EASY),
    ("lambda x, y, z: z - y == x", EASY),
    # Pythagorean triples
    ("lambda x, y, z: x**2 + y**2 == z**2", MEDIUM),
    ("lambda x, y, z: x**2 + z**2 == y**2", MEDIUM),
    ("lambda x, y, z: y**2 + z**2 == x**2", MEDIUM),
    # Bitwise operations
    ("lambda x, y, z: x.is_integer() and y.is_integer() and (int(x) & int(y)) == z", MEDIUM),
    ("lambda x, y, z: x.is_integer() and y.is_integer() and (int(x) | int(y)) == z", MEDIUM),
    ("lambda x, y, z: x.is_integer() and y.is_integer() and (int(x) ^ int(y)) == z", MEDIUM),
    # Coprimality (see the module note)
    (
        "lambda x, y, z: x.is_integer() and y.is_integer() and z.is_integer() and math.gcd(int(x), int(y)) == 1"
        " and math.gcd(int(y), int(z)) == 1 and math.gcd(int(z), int(x)) == 1",
        MEDIUM,
    ),
    # Perfect squares
    ("lambda x, y, z: all(int(n**0.5)**2 == n for n in (x, y, z))", MEDIUM),
    # Sums / products
    ("lambda x, y, z: (x + y + z) == 0", MEDIUM),
    ("lambda x, y, z: (x * y * z) == 0", MEDIUM),
    ("lambda x, y, z: (x + y + z) % 2 == 0", MEDIUM),
    ("lambda x, y, z: (x + y + z) % 2 == 1", MEDIUM),
    ("lambda x, y, z: (x * y * z) % 2 == 0", MEDIUM),
    ("lambda x, y, z: (x * y * z) % 2 == 1", MEDIUM),
    # Max / min
    ("lambda x, y, z: max(x, y, z) == x", MEDIUM),
    ("lambda x, y, z: max(x, y, z) == y", MEDIUM),
    ("lambda x, y, z: max(x, y, z) == z", MEDIUM),
    ("lambda x, y, z: min(x, y, z) == x", MEDIUM),
    ("lambda x, y, z: min(x, y, z) == y", MEDIUM),
    ("lambda x, y, z: min(x, y, z) == z", MEDIUM),
    # Evil float cases
    ("lambda x, y, z: (0 < x % 1) and (0 < y % 1) and (0 < z % 1)", VERY_HARD),
    ("lambda x, y, z: 0 < x % 1 < y % 1 < z % 1 < 1", VERY_HARD),
    ("lambda x, y, z: (x < y < z) and (0 < z - x <= 1)", VERY_HARD),
    # Arithmetic mean
    ("lambda x, y, z: (x + y) / 2 == z", VERY_HARD),
]

PROTOTYPE_SPLIT: tuple[str, ...] = tuple(src for src, _ in _PROTOTYPE)
PROTOTYPE_TIERS: tuple[str, ...] = tuple(tier for _, tier in _PROTOTYPE)

# The release's TESTS_LITE, verbatim (it names no tiers; ours: the last rule is the only medium one).
LITE_SPLIT: tuple[str, ...] = (
    "lambda x, y, z: x > y > z",
    "lambda x, y, z: x < y < z",
    "lambda x, y, z: x >= y >= z",
    "lambda x, y, z: x <= y <= z",
    "lambda x, y, z: x == y and y == z",
    "lambda x, y, z: x != y and y != z and x != z",
    "lambda x, y, z: x < 0 and y < 0 and z < 0",
    "lambda x, y, z: x + y == z",
    "lambda x, y, z: x * y == z",
    "lambda x, y, z: x < y and y > z",
)
LITE_TIERS: tuple[str, ...] = (EASY,) * 9 + (MEDIUM,)

SPLITS = {"full": FULL_SPLIT, "lite": LITE_SPLIT, "prototype": PROTOTYPE_SPLIT}
TIERS = {"full": FULL_TIERS, "lite": LITE_TIERS, "prototype": PROTOTYPE_TIERS}


def tier_of(split: str, index: int) -> str:
    return TIERS[split][index]
