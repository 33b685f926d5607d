"""Opcodes of the WILT rule VM; the order matches ``enum class Op`` in cpp/wilt/vm.hpp."""

from __future__ import annotations

import enum

# Value tags shared with the core (cpp/wilt/vm.hpp: Tag).
BOOL, INT, FLOAT = 0, 1, 2


class Op(enum.IntEnum):
    ARG = 0
    CONST = 1
    ADD = 2
    SUB = 3
    MUL = 4
    TRUEDIV = 5
    FLOORDIV = 6
    MOD = 7
    POW = 8
    NEG = 9
    POS = 10
    INVERT = 11
    NOT = 12
    TRUTH = 13
    BITAND = 14
    BITOR = 15
    BITXOR = 16
    LSHIFT = 17
    RSHIFT = 18
    EQ = 19
    NE = 20
    LT = 21
    LE = 22
    GT = 23
    GE = 24
    AND = 25
    OR = 26
    SELECT = 27
    SEQ = 28
    ABS = 29
    TO_INT = 30
    TO_FLOAT = 31
    ROUND = 32
    ROUND_DIGITS = 33
    MIN = 34
    MAX = 35
    FLOOR = 36
    CEIL = 37
    SQRT = 38
    FABS = 39
    ISCLOSE = 40
    GCD = 41
    IS_INTEGER = 42
    IS_INSTANCE = 43
    SUM = 44
