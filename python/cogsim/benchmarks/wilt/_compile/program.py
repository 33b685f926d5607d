"""The program being compiled: SSA bytecode for the rule VM (instruction k defines value k), its
constant pool, and what is known of its values at compile time: constants and folded results,
integers too wide for the VM, math functions only the interpreter computes, and which values are
the very object of another (CPython identity, for containers).

The ways of emitting a value: plain, folded when its operands are known, raising everywhere, or
after other values whose errors count first (short-circuit forms evaluate every operand but count
an operand's errors only where CPython would have evaluated it, which the VM does by masking flags).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from cogsim.benchmarks.wilt import _interp
from cogsim.benchmarks.wilt._bytecode import BOOL, FLOAT, INT, Op
from cogsim.benchmarks.wilt._compile.limits import MAX_INSTRUCTIONS, RuleError

PYTHON312 = sys.version_info >= (3, 12)

_FOLDABLE = {
    Op.ADD,
    Op.SUB,
    Op.MUL,
    Op.TRUEDIV,
    Op.FLOORDIV,
    Op.MOD,
    Op.POW,
    Op.BITAND,
    Op.BITOR,
    Op.BITXOR,
    Op.LSHIFT,
    Op.RSHIFT,
    Op.NEG,
    Op.POS,
    Op.INVERT,
}
_INT64 = 1 << 63


@dataclass(frozen=True)
class Bytecode:
    code: np.ndarray  # int32 (N, 5): op, a, b, c, d
    aux: tuple[int, ...]
    constants: tuple  # Python values (bool, int or float), indexed by CONST's a
    overrides: tuple = ()  # (value, int) pairs: folded integers too wide for the VM (its lanes fall back)
    calls: tuple = ()  # (value, math function name, operand values): computed by the interpreter only


class Program:
    """The bytecode being built, and what is known of its values while it is."""

    def __init__(self):
        self.code: list[tuple[int, int, int, int, int]] = []
        self.aux: list[int] = []
        self.constants: list = []
        self._constant_index: dict = {}
        self.known: dict[int, object] = {}  # values known at compile time
        self.overrides: dict[int, int] = {}  # folded integers beyond int64 (the interpreter's constants)
        self.calls: list[tuple[int, str, tuple[int, ...]]] = []  # math functions the VM hands back
        self.origin: dict[int, tuple] = {}  # values that are one of other values' objects (identity)
        self.args: set[int] = set()  # the lambda's arguments (float objects)

    def arguments(self, names: list[str]) -> dict[str, int]:
        """The lambda's arguments as the first values: their names bound to them."""
        env = {name: self.emit(Op.ARG, k) for k, name in enumerate(names)}
        self.args = set(env.values())
        return env

    def emit(self, op: Op, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> int:
        """A new value: one instruction, as it is."""
        if len(self.code) >= MAX_INSTRUCTIONS:
            raise RuleError(f"rule is too large (more than {MAX_INSTRUCTIONS} operations after unrolling)")
        self.code.append((int(op), a, b, c, d))
        return len(self.code) - 1

    def constant(self, value) -> int:
        """A value known at compile time (one pool entry per distinct value, -0.0 apart from 0.0)."""
        key = (type(value), math.copysign(1.0, value) if isinstance(value, float) else 0, repr(value))
        if key not in self._constant_index:
            self._constant_index[key] = len(self.constants)
            self.constants.append(value)
        index = self.emit(Op.CONST, self._constant_index[key])
        self.known[index] = value
        return index

    def fresh_constant(self, value: float) -> int:
        """A constant as its own value (its own object: float('nan') makes a new NaN at each call)."""
        self.constant(value)
        key = (type(value), math.copysign(1.0, value), repr(value))
        return self.emit(Op.CONST, self._constant_index[key])

    def known_value(self, value) -> int:
        """A folded value: a constant, or for an integer beyond int64 an op that the VM hands to the
        interpreter (1 << 64 overflows there) with the exact integer as the interpreter's value."""
        if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
            index = self.emit(Op.LSHIFT, self.constant(1), self.constant(64))
            self.overrides[index] = value
            self.known[index] = value
            return index
        return self.constant(value)

    def python_call(self, name: str, operands: list[int]) -> int:
        """A math function the VM has no op for: in the VM an op that always hands the point back
        (1 << 64 overflows), in the interpreter CPython's own math function of the operands."""
        index = self.emit(Op.LSHIFT, self.constant(1), self.constant(64))
        self.calls.append((index, name, tuple(operands)))
        return index

    def operation(self, op: Op, *operands: int) -> int:
        """An arithmetic op, folded at compile time when its operands are known."""
        if op in _FOLDABLE and all(v in self.known for v in operands):
            try:
                value = _interp.fold(op, [self.known[v] for v in operands])
            except _interp.LimitExceeded as error:
                raise RuleError(f"constant expression too large: {error}") from None
            if isinstance(value, (bool, int)) or (isinstance(value, float) and math.isfinite(value)):
                return self.known_value(value)
        if op in (Op.TO_FLOAT, Op.POS):
            result = self.emit(op, *operands)
            self.origin[result] = ("alias", operands[0])  # float(f) and +f are the float object f itself
            return result
        return self.emit(op, *operands)

    def raising(self, evaluated: list[int]) -> int:
        """A value that raises in every point (CPython's TypeError/IndexError...)."""
        return self.sequence(evaluated, self.emit(Op.TRUEDIV, self.constant(1), self.constant(0)))

    def sequence(self, evaluated: list[int], result: int) -> int:
        """The result, counting the errors of values evaluated before it."""
        for value in evaluated:
            previous, result = result, self.emit(Op.SEQ, value, result)
            self.origin[result] = ("same", previous)  # the very object of previous
        return result

    def fold(self, op: Op, values: list[int]) -> int:
        """op over the values from the left: ((v0 op v1) op v2) ..., min and max with their objects' origins."""
        result = values[0]
        for value in values[1:]:
            previous, result = result, self.emit(op, result, value)
            if op in (Op.MIN, Op.MAX):  # CPython returns one of the objects: value if it beats previous
                self.origin[result] = ("minmax", Op.LT if op == Op.MIN else Op.GT, value, previous)
        return result

    def fold_right(self, op: Op, values: list[int]) -> int:
        """op over the values from the right: v0 op (v1 op (... op vn)), as and/or chains short-circuit."""
        result = values[-1]
        for value in reversed(values[:-1]):
            result = self.emit(op, value, result)
        return result

    def sum_of(self, items: list[int]) -> int:
        """sum() of the values: one SUM over an operand list."""
        offset = len(self.aux)
        self.aux.extend(items)
        return self.emit(Op.SUM, offset, len(items))

    def finish(self, result: int) -> Bytecode:
        """The bytecode with ``result`` as the rule's value, which the VM reads from the last instruction."""
        if (
            result != len(self.code) - 1 or result in self.overrides or any(c[0] == result for c in self.calls)
        ):  # the result must be the last value
            self.emit(Op.SEQ, result, result)
        code = np.array(self.code, dtype=np.int32).reshape(-1, 5)
        return Bytecode(code, tuple(self.aux), tuple(self.constants), tuple(self.overrides.items()), tuple(self.calls))


def constant_arrays(constants) -> tuple[list[int], list[float], list[int]]:
    """The constant pool as the core takes it: value tags, float payloads, int payloads."""
    tags, floats, ints = [], [], []
    for value in constants:
        if isinstance(value, bool):
            tags.append(BOOL), floats.append(0.0), ints.append(int(value))
        elif isinstance(value, int):
            tags.append(INT), floats.append(0.0), ints.append(value)
        else:
            tags.append(FLOAT), floats.append(value), ints.append(0)
    return tags, floats, ints
