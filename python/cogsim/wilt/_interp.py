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
    args = (x, y, z)
    values: list = []
    for op, a, b, c, d in code.tolist():
        values.append(_step(Op(op), a, b, c, d, values, aux, constants, args))
    result = values[-1]
    if result is RAISED:
        return False
    return bool(result)


def _step(op, a, b, c, d, values, aux, constants, args):
    if op == Op.ARG:
        return args[a]
    if op == Op.CONST:
        return constants[a]
    if op in (Op.AND, Op.OR):
        left = values[a]
        if left is RAISED:
            return RAISED
        return values[b] if bool(left) == (op == Op.AND) else left
    if op == Op.SELECT:
        test = values[a]
        if test is RAISED:
            return RAISED
        return values[b] if test else values[c]
    if op == Op.SEQ:
        return RAISED if values[a] is RAISED else values[b]
    if op == Op.SUM:
        operands = [values[k] for k in aux[a:a + b]]
    elif op == Op.ISCLOSE:
        operands = [values[a], values[b], values[c], values[d]]
    elif op in _UNARY or op == Op.IS_INSTANCE:
        operands = [values[a]]
    else:
        operands = [values[a], values[b]]
    if any(v is RAISED for v in operands):
        return RAISED
    try:
        if op == Op.SUM:
            return _check_int(sum(operands))
        if op == Op.ISCLOSE:
            return math.isclose(operands[0], operands[1], rel_tol=operands[2], abs_tol=operands[3])
        if op == Op.IS_INSTANCE:
            return _isinstance(operands[0], b)
        if op in _UNARY:
            return _check_int(_UNARY[op](operands[0]))
        return _check_int(_BINARY[op](operands[0], operands[1]))
    except (ArithmeticError, TypeError, ValueError, AttributeError, MemoryError):
        return RAISED
