"""Reference interpreter of rule bytecode on Python objects, for the lanes the VM hands back.

Each operation is performed by CPython itself (``a + b``, ``math.gcd``, ``round``...), so big ints,
complex intermediates and negative ``round`` digits get CPython's exact meaning. Integers are
capped at ``MAX_INT_BITS`` bits: beyond that CPython would spend unbounded time and memory (a
model may write ``int(x) ** int(y) ** 9``), and we count the point as raising, as a MemoryError
would.
"""

from __future__ import annotations

import math
import operator

from cogsim.wilt._bytecode import Op

MAX_INT_BITS = 1 << 16


class _Raised:
    __slots__ = ()


RAISED = _Raised()


def _check_int(value):
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise MemoryError("integer too large for a rule")
    return value


def _pow(a, b):
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 and a.bit_length() * b > MAX_INT_BITS + 64:
        raise MemoryError("integer power too large for a rule")
    return a ** b


def _mul(a, b):
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 64:
        raise MemoryError("integer product too large for a rule")
    return a * b


def _lshift(a, b):
    if isinstance(b, int) and b > MAX_INT_BITS and a:
        raise MemoryError("shift too large for a rule")
    return a << b


def _round_digits(value, ndigits):
    if isinstance(value, int) and isinstance(ndigits, int) and ndigits < -20000:
        return 0 * value  # |value| < 10**-ndigits / 2: CPython rounds to zero (after computing 10**-ndigits)
    return round(value, ndigits)


def _isinstance(value, mask):
    kinds = ((int,) if mask & 1 else ()) + ((float,) if mask & 2 else ())
    return isinstance(value, kinds)


_BINARY = {
    Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: _mul, Op.TRUEDIV: operator.truediv,
    Op.FLOORDIV: operator.floordiv, Op.MOD: operator.mod, Op.POW: _pow, Op.BITAND: operator.and_,
    Op.BITOR: operator.or_, Op.BITXOR: operator.xor, Op.LSHIFT: _lshift, Op.RSHIFT: operator.rshift,
    Op.EQ: operator.eq, Op.NE: operator.ne, Op.LT: operator.lt, Op.LE: operator.le, Op.GT: operator.gt,
    Op.GE: operator.ge, Op.MIN: min, Op.MAX: max, Op.GCD: math.gcd, Op.ROUND_DIGITS: _round_digits,
}
_UNARY = {
    Op.NEG: operator.neg, Op.POS: operator.pos, Op.INVERT: operator.invert, Op.NOT: operator.not_,
    Op.TRUTH: bool, Op.ABS: abs, Op.TO_INT: int, Op.TO_FLOAT: float, Op.ROUND: round, Op.FLOOR: math.floor,
    Op.CEIL: math.ceil, Op.SQRT: math.sqrt, Op.FABS: math.fabs, Op.IS_INTEGER: lambda v: v.is_integer(),
}


def run(code, aux, constants, x: float, y: float, z: float) -> bool:
    """The rule's truth value at one point; a point where CPython raises is False."""
    return run_many(code, aux, constants, [x], [y], [z])[0]


def run_many(code, aux, constants, xs, ys, zs) -> list[bool]:
    """Truth values at many points, one instruction at a time over all of them (less dispatch)."""
    columns = ([float(v) for v in xs], [float(v) for v in ys], [float(v) for v in zs])
    n = len(columns[0])
    values: list[list] = []
    for op, a, b, c, d in code.tolist():
        values.append(_column(Op(op), a, b, c, d, values, aux, constants, columns, n))
    return [v is not RAISED and bool(v) for v in values[-1]]


def _column(op, a, b, c, d, values, aux, constants, columns, n):
    if op == Op.ARG:
        return columns[a]
    if op == Op.CONST:
        return [constants[a]] * n
    if op in (Op.AND, Op.OR):
        want = op == Op.AND
        return [left if left is RAISED or bool(left) != want else right for left, right in zip(values[a], values[b])]
    if op == Op.SELECT:
        return [test if test is RAISED else (yes if test else no)
                for test, yes, no in zip(values[a], values[b], values[c])]
    if op == Op.SEQ:
        return [RAISED if first is RAISED else second for first, second in zip(values[a], values[b])]
    if op == Op.SUM:
        rows = zip(*(values[k] for k in aux[a:a + b])) if b else ([] for _ in range(n))
        return [_apply(_sum, list(items)) for items in rows]
    if op == Op.ISCLOSE:
        return [_apply(_isclose, list(row)) for row in zip(values[a], values[b], values[c], values[d])]
    if op == Op.IS_INSTANCE:
        return [RAISED if v is RAISED else _isinstance(v, b) for v in values[a]]
    if op in _UNARY:
        fn = _UNARY[op]
        return [_apply(fn, [v]) for v in values[a]]
    fn = _BINARY[op]
    return [_apply(fn, [left, right]) for left, right in zip(values[a], values[b])]


def _sum(*items):
    return sum(items)


def _isclose(a, b, rel, tol):
    return math.isclose(a, b, rel_tol=rel, abs_tol=tol)


def _apply(fn, operands: list):
    for v in operands:
        if v is RAISED:
            return RAISED
    try:
        return _check_int(fn(*operands))
    except (ArithmeticError, TypeError, ValueError, AttributeError, MemoryError):
        return RAISED
