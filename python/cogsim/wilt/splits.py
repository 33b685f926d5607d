"""The hidden rules of the WILT paper: the 50-rule full split and the 10-rule lite split, in paper order.

Source: the rule table of the WILT reference harness (github.com/ambisinister/wilt,
``harness/test_cases.py``: ``TESTS`` and ``TESTS_LITE``), which is the paper's test list; the rule
bodies below are that table's, verbatim, except where noted. Tiers follow the harness's grouping
("Easy Tests" 1-26, "Harder Tests" 27-50), with the evil float cases and the arithmetic mean (47-50)
as "very hard". This is our reconstruction of the paper's easy / medium / very hard labels: the
harness does not name the middle tier.

Deviations, all forced by the rule having no CPython meaning on the float arguments WILT passes
(the harness converts every typed number with ``float``):
    30-32 (bitwise): ``(x & y) == z`` raises TypeError on floats, which would make the three rules
       identical (always False); we apply the operator to integer-valued x and y (``int(x) & int(y)``)
       and make the rule False elsewhere, the reading the rule's family name implies.
    33 (coprimality): the harness calls an undefined ``__gcd``; ``math.gcd`` raises on floats, so we
       write "integers, pairwise coprime", the reading under which Euclid's algorithm on floats
       returns 1 (a gcd of 1 forces both values to be integers).
Kept verbatim although odd:
    8: ``x <= x <= y`` (equivalent to ``x <= y``), as in the paper's table.
"""

from __future__ import annotations

EASY, MEDIUM, VERY_HARD = "easy", "medium", "very hard"

_FULL = [
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
    ("lambda x, y, z: x.is_integer() and y.is_integer() and z.is_integer() and math.gcd(int(x), int(y)) == 1"
     " and math.gcd(int(y), int(z)) == 1 and math.gcd(int(z), int(x)) == 1", MEDIUM),
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

FULL_SPLIT: tuple[str, ...] = tuple(src for src, _ in _FULL)
FULL_TIERS: tuple[str, ...] = tuple(tier for _, tier in _FULL)

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

SPLITS = {"full": FULL_SPLIT, "lite": LITE_SPLIT}
TIERS = {"full": FULL_TIERS, "lite": LITE_TIERS}


def tier_of(split: str, index: int) -> str:
    return TIERS[split][index]
