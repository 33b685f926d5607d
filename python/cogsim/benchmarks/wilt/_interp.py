"""Reference interpreter of rule bytecode on Python objects, for the lanes the VM hands back.

Each operation is performed by CPython itself (``a + b``, ``math.gcd``, ``round``...), so big ints,
complex intermediates and negative ``round`` digits get CPython's exact meaning.

Evaluation is bounded (docs/security.md): every integer a rule computes is limited to
``MAX_INT_BITS`` bits, and one evaluation (all points, all operations) may spend at most
``MAX_BIG_INT_WORK`` estimated 30-bit digit operations on integers wider than 64 bits and allocate
at most ``MAX_BIG_INT_ALLOC`` bits of such integers. Past a limit CPython would spend unbounded
time and memory (a model may write ``int(x) ** int(y) ** 9``), so the evaluation stops with
:class:`LimitExceeded`, which the rule turns into a ``RuleError``. Columns are dropped after their
last use, and a folded constant's column repeats one object, so memory holds only live values.
"""

from __future__ import annotations

import math
import operator
import sys

from cogsim.benchmarks.wilt._bytecode import Op

MAX_INT_BITS = 1 << 16
MAX_BIG_INT_WORK = 1 << 30  # digit operations: about a second of CPython's big-int arithmetic
MAX_BIG_INT_ALLOC = 1 << 31  # bits of wide integers created: 256 MiB
_WIDE = 0xFFFFFFFFFFFFFFFF
_UNALLOCATABLE_BITS = 1 << 48  # 32 TiB of digits: more than any address space CPython gets to allocate


class LimitExceeded(Exception):
    """The rule needs an integer, or integer work, beyond the evaluation budget."""


def _too_big(what: str) -> LimitExceeded:
    return LimitExceeded(
        f"{what}; integers in a rule are limited to {MAX_INT_BITS} bits "
        f"(magnitude below 2**{MAX_INT_BITS}, about 10**{int(MAX_INT_BITS * 0.30103)})"
    )


class _Work:
    """Wide-integer work and allocation of one evaluation."""

    __slots__ = ("ops", "alloc")

    def __init__(self):
        self.ops = MAX_BIG_INT_WORK
        self.alloc = MAX_BIG_INT_ALLOC

    def charge(self, fn, operands, result) -> None:
        bits = sorted((v.bit_length() if type(v) is int else 64 for v in operands), reverse=True)
        result_bits = result.bit_length() if type(result) is int else 64
        if fn is _pow:
            cost = result_bits * result_bits // 900  # repeated squaring, schoolbook bound
        elif fn in _SUPERLINEAR and len(bits) > 1:
            cost = bits[0] * bits[1] // 900
        else:
            cost = (sum(bits) + result_bits) // 30
        self.ops -= cost + 1
        if result_bits > 64:
            self.alloc -= result_bits
        if self.ops < 0:
            raise LimitExceeded(
                f"the rule needs more than {MAX_BIG_INT_WORK} digit operations of wide-integer "
                "arithmetic over the points (the evaluation limit); use smaller numbers"
            )
        if self.alloc < 0:
            raise LimitExceeded(
                f"the rule creates more than {MAX_BIG_INT_ALLOC} bits of wide integers over the "
                "points (the evaluation limit); use smaller numbers"
            )


class _Raised:
    __slots__ = ()


RAISED = _Raised()


def _check_int(value):
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _too_big(f"an intermediate integer has {value.bit_length()} bits")
    return value


def _pow(a, b):
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 and (a.bit_length() - 1) * b > MAX_INT_BITS:
        raise _too_big(f"the power {_short(a)} ** {_short(b)} is too large")
    return a**b


def _mul(a, b):
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        if a and b:
            raise _too_big(f"a product of integers of {a.bit_length()} and {b.bit_length()} bits is too large")
    return a * b


def _lshift(a, b):
    if isinstance(b, int) and not isinstance(a, float) and a and b > 0 and abs(a).bit_length() + b > MAX_INT_BITS:
        # Past these CPython raises at once instead of computing: a raising point, not a budget overrun.
        if b > sys.maxsize:
            raise OverflowError("too many digits in integer")
        if b > _UNALLOCATABLE_BITS:  # no machine has the memory: CPython's allocation fails (MemoryError)
            raise MemoryError
        raise _too_big(f"the shift {_short(a)} << {_short(b)} is too large")
    return a << b


def _round_digits(value, ndigits):
    if isinstance(value, int) and isinstance(ndigits, int) and ndigits < -MAX_INT_BITS:
        # |value| < 2**MAX_INT_BITS <= 10**-ndigits / 2: CPython rounds to zero (after computing 10**-ndigits)
        return 0 * value
    return round(value, ndigits)


def _short(value) -> str:
    text = str(value) if not isinstance(value, int) or value.bit_length() < 64 else f"<{value.bit_length()}-bit int>"
    return text[:40]


def _isinstance(value, mask):
    kinds = ((int,) if mask & 1 else ()) + ((float,) if mask & 2 else ())
    return isinstance(value, kinds)


_BINARY = {
    Op.ADD: operator.add,
    Op.SUB: operator.sub,
    Op.MUL: _mul,
    Op.TRUEDIV: operator.truediv,
    Op.FLOORDIV: operator.floordiv,
    Op.MOD: operator.mod,
    Op.POW: _pow,
    Op.BITAND: operator.and_,
    Op.BITOR: operator.or_,
    Op.BITXOR: operator.xor,
    Op.LSHIFT: _lshift,
    Op.RSHIFT: operator.rshift,
    Op.EQ: operator.eq,
    Op.NE: operator.ne,
    Op.LT: operator.lt,
    Op.LE: operator.le,
    Op.GT: operator.gt,
    Op.GE: operator.ge,
    Op.MIN: min,
    Op.MAX: max,
    Op.GCD: math.gcd,
    Op.ROUND_DIGITS: _round_digits,
}
_UNARY = {
    Op.NEG: operator.neg,
    Op.POS: operator.pos,
    Op.INVERT: operator.invert,
    Op.NOT: operator.not_,
    Op.TRUTH: bool,
    Op.ABS: abs,
    Op.TO_INT: int,
    Op.TO_FLOAT: float,
    Op.ROUND: round,
    Op.FLOOR: math.floor,
    Op.CEIL: math.ceil,
    Op.SQRT: math.sqrt,
    Op.FABS: math.fabs,
    Op.IS_INTEGER: lambda v: v.is_integer(),
}


# math functions the VM has no op for: the VM hands every point that needs one to this interpreter,
# which calls CPython's own function (cogsim.benchmarks.wilt._compile: python_call).
def _lcm(*values):
    if sum(v.bit_length() for v in values if type(v) is int) > MAX_INT_BITS + 64:
        raise _too_big("math.lcm() of these integers may be too large")
    return math.lcm(*values)


PYTHON_CALLS = {
    name: getattr(math, name)
    for name in (
        "log",
        "log2",
        "log10",
        "log1p",
        "exp",
        "expm1",
        "pow",
        "fmod",
        "remainder",
        "copysign",
        "hypot",
        "isqrt",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "degrees",
        "radians",
    )
}
PYTHON_CALLS["lcm"] = _lcm

_SUPERLINEAR = {
    _mul,
    _pow,
    operator.floordiv,
    operator.mod,
    operator.truediv,
    math.gcd,
    _round_digits,
    _lcm,
    math.isqrt,
}


def run(code, aux, constants, x: float, y: float, z: float, overrides=(), calls=()) -> bool:
    """The rule's truth value at one point; a point where CPython raises is False."""
    return run_many(code, aux, constants, [x], [y], [z], overrides, calls)[0]


def _last_uses(code, aux, calls=()) -> list[list[int]]:
    """For each instruction, the values whose last use it is."""
    last: dict[int, int] = {}
    call_operands = {index: operands for index, _, operands in calls}
    for k, (op, a, b, c, d) in enumerate(code):
        op = Op(op)
        if k in call_operands:
            used = list(call_operands[k])
        elif op in (Op.ARG, Op.CONST):
            continue
        elif op == Op.SUM:
            used = list(aux[a : a + b])
        elif op in (Op.SELECT,):
            used = [a, b, c]
        elif op == Op.ISCLOSE:
            used = [a, b, c, d]
        elif op == Op.IS_INSTANCE or op in _UNARY:
            used = [a]
        else:
            used = [a, b]
        for value in used:
            last[value] = k
    drops: list[list[int]] = [[] for _ in code]
    for value, k in last.items():
        drops[k].append(value)
    return drops


def run_many(code, aux, constants, xs, ys, zs, overrides=(), calls=()) -> list[bool]:
    """Truth values at many points, one instruction at a time over all of them (less dispatch).
    ``overrides`` maps values to constants the compiler folded (integers too wide for the VM);
    ``calls`` are (value, math function name, operand values): values only this interpreter computes.
    A point where CPython raises is False. Raises :class:`LimitExceeded` past the integer budget."""
    return [v is not RAISED and bool(v) for v in run_many_values(code, aux, constants, xs, ys, zs, overrides, calls)]


def run_many_status(code, aux, constants, xs, ys, zs, overrides=(), calls=()) -> tuple[list[bool], list[bool]]:
    """(truth, raised) at many points: as :func:`run_many`, with the points where CPython raises."""
    last = run_many_values(code, aux, constants, xs, ys, zs, overrides, calls)
    return [v is not RAISED and bool(v) for v in last], [v is RAISED for v in last]


def run_many_values(code, aux, constants, xs, ys, zs, overrides=(), calls=()) -> list:
    """The rule's final value at many points (``RAISED`` where CPython raises)."""
    columns = ([float(v) for v in xs], [float(v) for v in ys], [float(v) for v in zs])
    n = len(columns[0])
    fixed = dict(overrides)
    functions = {index: (PYTHON_CALLS[name], operands) for index, name, operands in calls}
    rows = code.tolist()
    drops = _last_uses(rows, aux, calls)
    work = _Work()
    values: list = []
    for k, (op, a, b, c, d) in enumerate(rows):
        if k in fixed:
            values.append([fixed[k]] * n)
        elif k in functions:
            fn, operands = functions[k]
            values.append(
                [_apply(fn, list(row), work) for row in zip(*(values[o] for o in operands))]
                if operands
                else [_apply(fn, [], work)] * n
            )
        else:
            values.append(_column(Op(op), a, b, c, d, values, aux, constants, columns, n, work))
        if k < len(rows) - 1:
            for dead in drops[k]:
                values[dead] = None
    return values[-1]


def _column(op, a, b, c, d, values, aux, constants, columns, n, work):
    if op == Op.ARG:
        return columns[a]
    if op == Op.CONST:
        return [constants[a]] * n
    if op in (Op.AND, Op.OR):
        want = op == Op.AND
        return [left if left is RAISED or bool(left) != want else right for left, right in zip(values[a], values[b])]
    if op == Op.SELECT:
        return [
            test if test is RAISED else (yes if test else no) for test, yes, no in zip(values[a], values[b], values[c])
        ]
    if op == Op.SEQ:
        return [RAISED if first is RAISED else second for first, second in zip(values[a], values[b])]
    if op == Op.SUM:
        rows = zip(*(values[k] for k in aux[a : a + b])) if b else ([] for _ in range(n))
        return [_apply(_sum, list(items), work) for items in rows]
    if op == Op.ISCLOSE:
        return [_apply(_isclose, list(row), work) for row in zip(values[a], values[b], values[c], values[d])]
    if op == Op.IS_INSTANCE:
        return [RAISED if v is RAISED else _isinstance(v, b) for v in values[a]]
    if op in _UNARY:
        fn = _UNARY[op]
        return [_apply(fn, [v], work) for v in values[a]]
    fn = _BINARY[op]
    return [_apply(fn, [left, right], work) for left, right in zip(values[a], values[b])]


def _sum(*items):
    return sum(items)


def _isclose(a, b, rel, tol):
    return math.isclose(a, b, rel_tol=rel, abs_tol=tol)


def _apply(fn, operands: list, work: _Work):
    wide = False
    for v in operands:
        if v is RAISED:
            return RAISED
        if type(v) is int and (v > _WIDE or v < -_WIDE):
            wide = True
    try:
        result = fn(*operands)
    except (ArithmeticError, TypeError, ValueError, AttributeError):
        return RAISED
    except MemoryError:  # CPython's own limit (e.g. 10 ** -ndigits); the point raises there too
        return RAISED
    if type(result) is int and (result > _WIDE or result < -_WIDE):
        _check_int(result)
        wide = True
    if wide:
        work.charge(fn, operands, result)
    return result


def fold(op: Op, operands: list):
    """One operation on compile-time constants, under the same limits: the value, or RAISED where
    CPython raises; raises LimitExceeded past the limits."""
    fn = _UNARY.get(op) or _BINARY[op]
    return _apply(fn, operands, _Work())
