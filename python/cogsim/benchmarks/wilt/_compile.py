"""Safe compiler from model-written ``lambda x, y, z: ...`` text to rule-VM bytecode.

The text is parsed with :mod:`ast` and every node is checked against a whitelist; nothing is ever
``eval``-ed. The bytecode is SSA: instruction k defines value k. Short-circuit forms (and, or,
if-else, comparison chains, all/any over a generator) evaluate every operand but only count an
operand's errors where CPython would have evaluated it, which the VM does by masking flags.

Lists, tuples and sets exist only at compile time: a display of k values is k scalar values, and
what a rule does with it (len, sorted, subscripts, in, sequence comparison, min/max/sum/any/all)
is unrolled into scalar code with CPython's semantics (identity before equality in containers,
sorted() as the decision tree CPython's own sort walks, list/tuple type mismatches). Constant
subexpressions are folded at compile time under the integer limits of the reference interpreter.
"""

from __future__ import annotations

import ast
import itertools
import math
import sys
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cogsim.benchmarks.wilt import _interp
from cogsim.benchmarks.wilt._bytecode import BOOL, FLOAT, INT, Op

MAX_SOURCE_CHARS = 4000
MAX_AST_NODES = 600
MAX_DEPTH = 60
MAX_INSTRUCTIONS = 4000
MAX_INT_LITERAL = 10**15
MAX_UNROLL = 32
MAX_SORTED = 5  # sorted() of at most this many values (its decision tree grows quickly)
MAX_TREE = 4 * MAX_INSTRUCTIONS  # nodes of one value's identity tree
PYTHON312 = sys.version_info >= (3, 12)

_BINARY_OPS = {
    ast.Add: Op.ADD,
    ast.Sub: Op.SUB,
    ast.Mult: Op.MUL,
    ast.Div: Op.TRUEDIV,
    ast.FloorDiv: Op.FLOORDIV,
    ast.Mod: Op.MOD,
    ast.Pow: Op.POW,
    ast.BitAnd: Op.BITAND,
    ast.BitOr: Op.BITOR,
    ast.BitXor: Op.BITXOR,
    ast.LShift: Op.LSHIFT,
    ast.RShift: Op.RSHIFT,
}
_COMPARE_OPS = {ast.Eq: Op.EQ, ast.NotEq: Op.NE, ast.Lt: Op.LT, ast.LtE: Op.LE, ast.Gt: Op.GT, ast.GtE: Op.GE}
_UNARY_BUILTINS = {"abs": Op.ABS, "int": Op.TO_INT, "float": Op.TO_FLOAT}
_UNARY_MATH = {"floor": Op.FLOOR, "ceil": Op.CEIL, "sqrt": Op.SQRT, "fabs": Op.FABS, "trunc": Op.TO_INT}
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}
_BUILTINS = {
    "abs",
    "int",
    "float",
    "round",
    "pow",
    "min",
    "max",
    "all",
    "any",
    "sum",
    "isinstance",
    "len",
    "sorted",
    "divmod",
    "range",
    "list",
    "tuple",
    "set",
    "bool",
}
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
_REDUCERS = {"all", "any", "sum", "min", "max"}


class RuleError(ValueError):
    """The rule text is not a supported, safe ``lambda x, y, z: <expression>``."""


@dataclass(frozen=True)
class Bytecode:
    code: np.ndarray  # int32 (N, 5): op, a, b, c, d
    aux: tuple[int, ...]
    constants: tuple  # Python values (bool, int or float), indexed by CONST's a
    overrides: tuple = ()  # (value, int) pairs: folded integers too wide for the VM (its lanes fall back)
    calls: tuple = ()  # (value, math function name, operand values): computed by the interpreter only


@dataclass
class _Seq:
    """A list, tuple or set display known at compile time: its items are values (or nested _Seq);
    ``evaluated`` are the values whose errors count wherever the sequence is used."""

    kind: str  # "list", "tuple", "set" or "iter" (an itertools iterator: iterable, nothing else)
    items: list
    evaluated: list


@dataclass
class _Range:
    """range(start, stop, step) with constant integer arguments: for 'in', len() and iteration."""

    start: int
    stop: int
    step: int


def _truthy(seq: _Seq) -> bool:
    return seq.kind == "iter" or bool(seq.items)


def _remap(tree, value: int):
    if tree[0] == "leaf":
        return ("leaf", tree[1], value)
    return ("select", tree[1], _remap(tree[2], value), _remap(tree[3], value))


def _leaves(tree) -> set[int]:
    if tree[0] == "leaf":
        return {tree[1]}
    return _leaves(tree[2]) | _leaves(tree[3])


def _flat(items) -> list[int]:
    out = []
    for item in items:
        out.extend(_flat(item.items) if isinstance(item, _Seq) else [item])
    return out


def _describe(node: ast.AST) -> str:
    names = {
        ast.Attribute: "attribute access",
        ast.Subscript: "subscripts",
        ast.Lambda: "nested lambdas",
        ast.ListComp: "list comprehensions",
        ast.GeneratorExp: "generator expressions",
        ast.SetComp: "set comprehensions",
        ast.DictComp: "dict comprehensions",
        ast.Dict: "dicts",
        ast.Set: "sets",
        ast.List: "lists",
        ast.Tuple: "tuples",
        ast.Starred: "starred arguments",
        ast.NamedExpr: "assignment expressions (:=)",
        ast.JoinedStr: "f-strings",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.Slice: "slices",
    }
    return names.get(type(node), f"{type(node).__name__} expressions")


class _Compiler:
    def __init__(self, arg_names: list[str]):
        self.code: list[tuple[int, int, int, int, int]] = []
        self.aux: list[int] = []
        self.constants: list = []
        self._constant_index: dict = {}
        self.known: dict[int, object] = {}  # values known at compile time
        self.overrides: dict[int, int] = {}  # folded integers beyond int64 (the interpreter's constants)
        self.calls: list[tuple[int, str, tuple[int, ...]]] = []  # math functions the VM hands back
        self.origin: dict[int, tuple] = {}  # values that are one of other values' objects (identity)
        self.env = {name: self.emit(Op.ARG, k) for k, name in enumerate(arg_names)}
        self.args = set(self.env.values())
        self._math_nan: Optional[int] = None

    # -- emission ------------------------------------------------------------------------------
    def emit(self, op: Op, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> int:
        if len(self.code) >= MAX_INSTRUCTIONS:
            raise RuleError(f"rule is too large (more than {MAX_INSTRUCTIONS} operations after unrolling)")
        self.code.append((int(op), a, b, c, d))
        return len(self.code) - 1

    def constant(self, value) -> int:
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

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, node: ast.AST, env: dict, depth: int) -> int:
        """A scalar value."""
        result = self.value(node, env, depth)
        if isinstance(result, _Seq):
            raise RuleError(
                f"a {result.kind} can only be used in len(), sorted(), min(), max(), sum(), any(), all(), "
                "'in', comparisons and subscripts here"
            )
        return result

    def value(self, node: ast.AST, env: dict, depth: int, ranges_ok: bool = False):
        """A scalar value (int) or a sequence known at compile time (_Seq); a _Range only where
        ``ranges_ok`` (after 'in', in len(), as an iterable)."""
        result = self._value(node, env, depth)
        if isinstance(result, _Range) and not ranges_ok:
            raise RuleError("range() can only be used after 'in', in len() and as what a comprehension iterates")
        return result

    def _value(self, node: ast.AST, env: dict, depth: int):
        if depth > MAX_DEPTH:
            raise RuleError(f"rule is nested too deeply (more than {MAX_DEPTH} levels)")
        depth += 1
        if isinstance(node, ast.Constant):
            return self.constant(_literal(node.value))
        if isinstance(node, ast.Name):
            return self.name(node, env)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, env, depth)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return self.display(node, env, depth)
        if isinstance(node, ast.ListComp):
            return self.list_comprehension(node, env, depth)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, env, depth)
        if isinstance(node, ast.BinOp):
            op = _BINARY_OPS.get(type(node.op))
            if op is None:
                raise RuleError(f"operator {type(node.op).__name__} is not allowed")
            left, right = self.value(node.left, env, depth), self.value(node.right, env, depth)
            if isinstance(left, _Seq) or isinstance(right, _Seq):
                return self.sequence_arithmetic(node.op, left, right)
            return self.operation(op, left, right)
        if isinstance(node, ast.BoolOp):
            op = Op.AND if isinstance(node.op, ast.And) else Op.OR
            values = [self.expr(v, env, depth) for v in node.values]
            result = values[-1]
            for value in reversed(values[:-1]):
                result = self.emit(op, value, result)
            return result
        if isinstance(node, ast.Compare):
            return self.compare(node, env, depth)
        if isinstance(node, ast.IfExp):
            test = self.expr(node.test, env, depth)
            yes, no = self.expr(node.body, env, depth), self.expr(node.orelse, env, depth)
            result = self.emit(Op.SELECT, test, yes, no)
            self.origin[result] = ("select", test, yes, no)
            return result
        if isinstance(node, ast.Call):
            return self.call(node, env, depth)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "math" and "math" not in env:
                if node.attr in _MATH_CONSTANTS:
                    return self.constant(_MATH_CONSTANTS[node.attr])
                if node.attr == "nan":  # one module attribute: the same NaN object at every use
                    if self._math_nan is None:
                        self._math_nan = self.fresh_constant(math.nan)
                    return self._math_nan
            raise RuleError(
                f"attribute {_attribute_text(node)!r} is not allowed; only math functions and x.is_integer()"
            )
        raise RuleError(f"{_describe(node)} are not allowed in a rule")

    def name(self, node: ast.Name, env: dict) -> int:
        if node.id in env:
            return env[node.id]
        if node.id == "math":
            raise RuleError("math can only be used as math.<function>(...)")
        if node.id in _BUILTINS:
            raise RuleError(f"{node.id} can only be called, not used as a value")
        raise RuleError(f"name {node.id!r} is not allowed; use the lambda's three arguments")

    def unary(self, node: ast.UnaryOp, env: dict, depth: int) -> int:
        operand = node.operand
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant):
            value = _literal(operand.value)
            return self.constant(-value)
        if isinstance(node.op, ast.Not):
            inner = self.value(operand, env, depth)
            if isinstance(inner, _Seq):
                return self.sequence(_flat(inner.evaluated), self.constant(not _truthy(inner)))
            return self.emit(Op.NOT, inner)
        op = {ast.USub: Op.NEG, ast.UAdd: Op.POS, ast.Invert: Op.INVERT}[type(node.op)]
        inner = self.value(operand, env, depth)
        if isinstance(inner, _Seq):
            return self.raising(_flat(inner.evaluated))  # TypeError: bad operand type for unary op
        return self.operation(op, inner)

    def compare(self, node: ast.Compare, env: dict, depth: int) -> int:
        left = self.value(node.left, env, depth)
        results = []
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node, env, depth, ranges_ok=isinstance(op_node, (ast.In, ast.NotIn)))
            if isinstance(left, _Range):  # a chain such as x in range(3) in y
                raise RuleError("range() can only be used after 'in', in len() and as what a comprehension iterates")
            if isinstance(op_node, (ast.In, ast.NotIn)):
                found = self.range_contains(right, left) if isinstance(right, _Range) else self.contains(right, left)
                results.append(found if isinstance(op_node, ast.In) else self.emit(Op.NOT, found))
                left = right
                continue
            op = _COMPARE_OPS.get(type(op_node))
            if op is None:
                raise RuleError(f"comparison {type(op_node).__name__} is not allowed; use == != < <= > >= in, not in")
            if isinstance(left, _Seq) or isinstance(right, _Seq):
                results.append(self.sequence_compare(op, left, right))
            else:
                results.append(self.emit(op, left, right))
            left = right
        result = results[-1]
        for earlier in reversed(results[:-1]):
            result = self.emit(Op.AND, earlier, result)
        return result

    # -- calls ---------------------------------------------------------------------------------
    def call(self, node: ast.Call, env: dict, depth: int) -> int:
        func = node.func
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise RuleError("starred arguments are not allowed")
        if isinstance(func, ast.Name) and func.id not in env:
            return self.builtin_call(func.id, node, env, depth)
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "math" and "math" not in env:
                return self.math_call(func.attr, node, env, depth)
            if isinstance(func.value, ast.Name) and func.value.id == "itertools" and "itertools" not in env:
                return self.itertools_call(func.attr, node, env, depth)
            if func.attr == "is_integer":
                self.no_keywords(node, "is_integer")
                if node.args:
                    raise RuleError("is_integer() takes no arguments")
                return self.emit(Op.IS_INTEGER, self.expr(func.value, env, depth))
            raise RuleError(f"method or attribute {_attribute_text(func)!r} is not allowed")
        name = func.id if isinstance(func, ast.Name) else _describe(func)
        raise RuleError(f"calling {name!r} is not allowed")

    def no_keywords(self, node: ast.Call, name: str) -> None:
        if node.keywords:
            raise RuleError(f"{name}() does not accept keyword arguments here")

    def arity(self, node: ast.Call, name: str, *allowed: int) -> None:
        if len(node.args) not in allowed:
            counts = " or ".join(str(a) for a in allowed)
            raise RuleError(f"{name}() takes {counts} argument(s), got {len(node.args)}")

    def builtin_call(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        if name not in _BUILTINS:
            raise RuleError(f"function {name!r} is not allowed")
        if name == "range":
            return self.range_call(node, env, depth)
        if name == "len" and len(node.args) == 1 and not node.keywords:
            inner = self.value(node.args[0], env, depth, ranges_ok=True)
            if isinstance(inner, _Range):
                try:
                    return self.constant(len(range(inner.start, inner.stop, inner.step)))
                except OverflowError:  # CPython: len() of a range beyond sys.maxsize raises
                    return self.raising([])
        if name in ("sorted", "list", "tuple", "set", "len", "bool"):
            return self.sequence_call(name, node, env, depth)
        self.no_keywords(node, name)
        args = node.args
        if name == "float" and len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            return self.float_of_text(args[0].value)
        if name in _UNARY_BUILTINS:
            self.arity(node, name, 1)
            return self.operation(_UNARY_BUILTINS[name], self.expr(args[0], env, depth))
        if name == "divmod":
            self.arity(node, name, 2)
            a, b = self.expr(args[0], env, depth), self.expr(args[1], env, depth)
            quotient = self.operation(Op.FLOORDIV, a, b)
            remainder = self.operation(Op.MOD, a, b)
            # one call: where // raises, % raises too (same operand types and divisor)
            return _Seq("tuple", [quotient, remainder], [quotient, remainder])
        if name == "round":
            self.arity(node, name, 1, 2)
            value = self.expr(args[0], env, depth)
            if len(args) == 1 or (isinstance(args[1], ast.Constant) and args[1].value is None):
                return self.emit(Op.ROUND, value)
            return self.emit(Op.ROUND_DIGITS, value, self.expr(args[1], env, depth))
        if name == "pow":
            self.arity(node, name, 2)
            return self.emit(Op.POW, self.expr(args[0], env, depth), self.expr(args[1], env, depth))
        if name == "isinstance":
            self.arity(node, name, 2)
            return self.emit(Op.IS_INSTANCE, self.expr(args[0], env, depth), _isinstance_mask(args[1]))
        return self.reduce(name, node, env, depth)

    def range_call(self, node: ast.Call, env: dict, depth: int) -> _Range:
        self.no_keywords(node, "range")
        self.arity(node, "range", 1, 2, 3)
        values = []
        for arg in node.args:
            value = self.value(arg, env, depth)
            if isinstance(value, (_Seq, _Range)) or value not in self.known or not isinstance(self.known[value], int):
                raise RuleError("range() needs constant integer arguments such as range(1, 10)")
            values.append(int(self.known[value]))
        bounds = range(*values) if values[-1] != 0 or len(values) < 3 else None
        if bounds is None:
            raise RuleError("range() step must not be zero")
        return _Range(bounds.start, bounds.stop, bounds.step)

    def range_contains(self, bounds: _Range, item) -> int:
        """``item in range(...)``: an int or float equal to one of its integers (CPython compares
        a float with each element; an int is checked arithmetically: the same answer)."""
        if isinstance(item, _Seq):
            return self.sequence(_flat(item.evaluated), self.constant(False))
        if not range(bounds.start, bounds.stop, bounds.step):
            return self.sequence([item], self.constant(False))
        start, stop, step = (self.known_value(v) for v in (bounds.start, bounds.stop, bounds.step))
        number = self.emit(Op.IS_INSTANCE, item, 3)
        integral = self.emit(Op.EQ, self.emit(Op.MOD, item, self.constant(1)), self.constant(0))
        if bounds.step > 0:
            inside = self.emit(Op.AND, self.emit(Op.LE, start, item), self.emit(Op.LT, item, stop))
        else:
            inside = self.emit(Op.AND, self.emit(Op.GE, start, item), self.emit(Op.GT, item, stop))
        terms = [number, integral, inside]
        if abs(bounds.step) != 1:
            offset = self.emit(Op.SUB, self.emit(Op.TO_INT, item), start)
            terms.append(self.emit(Op.EQ, self.emit(Op.MOD, offset, step), self.constant(0)))
        return self.sequence([item], self.fold_right(Op.AND, terms))

    def float_of_text(self, text: str) -> int:
        """float('inf'), float('nan'), float('1.5'): CPython's float() of a string literal, at compile time."""
        if len(text) > 40:
            raise RuleError("float() of a string is only allowed for short number literals such as 'inf' or 'nan'")
        try:
            value = float(text)
        except ValueError:
            return self.raising([])  # ValueError: could not convert string to float
        if math.isnan(value):
            return self.fresh_constant(math.copysign(math.nan, value))
        return self.constant(value)

    def math_call(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        if name in _UNARY_MATH:
            self.no_keywords(node, f"math.{name}")
            self.arity(node, f"math.{name}", 1)
            return self.emit(_UNARY_MATH[name], self.expr(node.args[0], env, depth))
        if name in ("isnan", "isinf", "isfinite"):
            self.no_keywords(node, f"math.{name}")
            self.arity(node, f"math.{name}", 1)
            value = self.emit(Op.FABS, self.expr(node.args[0], env, depth))  # float conversion, as math does
            if name == "isnan":
                return self.emit(Op.NE, value, value)
            return self.emit(Op.EQ if name == "isinf" else Op.LT, value, self.constant(math.inf))
        if name == "prod":
            self.no_keywords(node, "math.prod")
            self.arity(node, "math.prod", 1)
            source = self.iterable(node.args[0], env, depth, "math.prod")
            items = self.scalars(source, "math.prod")
            result = self.constant(1)
            for item in items:
                result = self.emit(Op.MUL, result, item)
            return self.sequence(_flat(source.evaluated), result)
        if name == "gcd":
            self.no_keywords(node, "math.gcd")
            values = [self.expr(a, env, depth) for a in node.args]
            if not values:
                return self.constant(0)
            result = self.emit(Op.GCD, values[0], self.constant(0))
            for value in values[1:]:
                result = self.emit(Op.GCD, result, value)
            return result
        if name == "isclose":
            self.arity(node, "math.isclose", 2)
            a, b = (self.expr(arg, env, depth) for arg in node.args)
            tolerances = {"rel_tol": None, "abs_tol": None}
            for keyword in node.keywords:
                if keyword.arg not in tolerances:
                    raise RuleError(f"math.isclose() keyword {keyword.arg!r} is not allowed; use rel_tol or abs_tol")
                tolerances[keyword.arg] = self.expr(keyword.value, env, depth)
            rel = tolerances["rel_tol"] if tolerances["rel_tol"] is not None else self.constant(1e-09)
            tol = tolerances["abs_tol"] if tolerances["abs_tol"] is not None else self.constant(0.0)
            return self.emit(Op.ISCLOSE, a, b, rel, tol)
        if name in _interp.PYTHON_CALLS:
            self.no_keywords(node, f"math.{name}")
            if len(node.args) > MAX_UNROLL:
                raise RuleError(f"math.{name}() may take at most {MAX_UNROLL} arguments")
            return self.python_call(name, [self.expr(a, env, depth) for a in node.args])
        raise RuleError(
            f"function math.{name} is not allowed; allowed: gcd, floor, ceil, trunc, sqrt, isclose, fabs, "
            f"isnan, isinf, isfinite, prod, {', '.join(_interp.PYTHON_CALLS)}"
        )

    # -- all / any / sum / min / max -----------------------------------------------------------
    def reduce(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        args = node.args
        if name in ("min", "max") and len(args) >= 2:
            values = [self.expr(a, env, depth) for a in args]
            return self.fold(Op.MIN if name == "min" else Op.MAX, values)
        self.arity(node, name, 1)
        source = args[0]
        if isinstance(source, (ast.GeneratorExp, ast.ListComp)):
            return self.reduce_comprehension(name, source, env, depth)
        seq = self.iterable(source, env, depth, f"{name}()")
        if seq.kind == "set" and name not in ("all", "any"):
            raise RuleError(f"{name}() of a set is not supported (its order is CPython's hash order); use a list")
        items = self.scalars(seq, f"{name}()")
        return self.sequence(_flat(seq.evaluated), self.reduce_values(name, items, [], [], lazy=False))

    def reduce_comprehension(self, name: str, node: ast.AST, env: dict, depth: int) -> int:
        if len(node.generators) != 1:
            raise RuleError("comprehensions may have only one 'for'")
        if node.generators and node.generators[0].ifs and name not in ("all", "any"):
            raise RuleError(f"'if' filters are only supported in all() and any(), not in {name}()")
        if name in ("min", "max", "sum") and isinstance(node, ast.ListComp):
            seq = self.list_comprehension(node, env, depth)
            return self.sequence(
                _flat(seq.evaluated), self.reduce_values(name, self.scalars(seq, f"{name}()"), [], [], lazy=False)
            )
        items, filters, evaluated = self.unroll(node, env, depth)
        lazy = isinstance(node, ast.GeneratorExp)
        return self.sequence(evaluated, self.reduce_values(name, items, filters, [], lazy))

    def unroll(self, node, env: dict, depth: int):
        """A one-'for' comprehension over a list/tuple known at compile time: per element its item value
        and filter values, the bound elements (scalars), and values evaluated before the loop."""
        if len(node.generators) != 1:
            raise RuleError("comprehensions may have only one 'for'")
        gen = node.generators[0]
        if gen.is_async:
            raise RuleError("async comprehensions are not allowed")
        source = self.iterable(gen.iter, env, depth, "a comprehension")
        if source.kind == "set":
            raise RuleError("comprehensions over a set are not supported (its order is CPython's hash order)")
        if len(source.items) > MAX_UNROLL:
            raise RuleError(f"comprehensions may iterate over at most {MAX_UNROLL} values")
        items, filters = [], []
        for element in source.items:
            inner = dict(env)
            unpacked = self.bind(gen.target, element, inner)
            if unpacked is not None:  # the element does not unpack: CPython raises when it gets there
                items.append(unpacked)
                filters.append([])
                break
            filters.append([self.expr(f, inner, depth) for f in gen.ifs])
            items.append(self.value(node.elt, inner, depth))
        return items, filters, _flat(source.evaluated)

    def bind(self, target: ast.AST, element, env: dict):
        """Binds a comprehension target; returns a raising value if the element cannot unpack, else None."""
        if isinstance(target, ast.Name):
            env[target.id] = element
            return None
        if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(t, ast.Starred) for t in target.elts):
            if not isinstance(element, _Seq) or element.kind == "set" or len(element.items) != len(target.elts):
                return self.raising(_flat([element]))
            for sub_target, sub_element in zip(target.elts, element.items):
                failed = self.bind(sub_target, sub_element, env)
                if failed is not None:
                    return failed
            return None
        raise RuleError("comprehension targets must be names or tuples of names")

    def reduce_values(
        self, name: str, items: list[int], filters: list[list[int]], evaluated: list[int], lazy: bool
    ) -> int:
        if name in ("all", "any"):
            neutral = name == "all"
            terms = []
            for k, item in enumerate(items):
                term = self.emit(Op.TRUTH, item)
                for condition in reversed(filters[k] if filters else []):
                    term = self.emit(Op.SELECT, condition, term, self.constant(neutral))
                terms.append(term)
            if not terms:
                return self.sequence(evaluated, self.constant(neutral))
            result = self.fold_right(Op.AND if name == "all" else Op.OR, terms)
            if not lazy:  # a list is built in full before all()/any() looks at it
                evaluated = evaluated + terms
            return self.sequence(evaluated, result)
        if name == "sum":
            if len(items) > MAX_UNROLL:
                raise RuleError(f"sum() may add at most {MAX_UNROLL} values")
            offset = len(self.aux)
            self.aux.extend(items)
            return self.sequence(evaluated, self.emit(Op.SUM, offset, len(items)))
        if not items:
            raise RuleError(f"{name}() of an empty sequence always fails")
        return self.sequence(evaluated, self.fold(Op.MIN if name == "min" else Op.MAX, items))

    def fold(self, op: Op, values: list[int]) -> int:
        result = values[0]
        for value in values[1:]:
            previous, result = result, self.emit(op, result, value)
            if op in (Op.MIN, Op.MAX):  # CPython returns one of the objects: value if it beats previous
                self.origin[result] = ("minmax", Op.LT if op == Op.MIN else Op.GT, value, previous)
        return result

    # -- sequences (compile-time lists, tuples and sets) ---------------------------------------
    def display(self, node, env: dict, depth: int) -> _Seq:
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise RuleError("starred items in a display are not allowed")
        if len(node.elts) > MAX_UNROLL:
            raise RuleError(f"a list, tuple or set may hold at most {MAX_UNROLL} values")
        kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        items = [self.value(e, env, depth) for e in node.elts]
        if kind == "set" and any(isinstance(i, _Seq) for i in items):
            raise RuleError("sets of lists or tuples are not supported")
        return _Seq(kind, items, list(items))

    def list_comprehension(self, node: ast.ListComp, env: dict, depth: int) -> _Seq:
        if any(gen.ifs for gen in node.generators):
            raise RuleError(
                "a list comprehension with 'if' has a length known only at run time; "
                "use it inside all() or any(), or write the list out"
            )
        items, _, evaluated = self.unroll(node, env, depth)
        return _Seq("list", items, evaluated + list(items))

    def iterable(self, node: ast.AST, env: dict, depth: int, where: str) -> _Seq:
        if isinstance(node, ast.GeneratorExp):
            if any(gen.ifs for gen in node.generators):
                raise RuleError(f"a generator with 'if' is only supported inside all() and any(), not {where}")
            items, _, evaluated = self.unroll(node, env, depth)
            return _Seq("list", items, evaluated + list(items))
        seq = self.value(node, env, depth, ranges_ok=True)
        if isinstance(seq, _Range):
            numbers = range(seq.start, seq.stop, seq.step)
            if numbers[MAX_UNROLL:]:
                raise RuleError(f"{where} may go over at most {MAX_UNROLL} values; this range() has more")
            return _Seq("list", [self.known_value(v) for v in numbers], [])
        if not isinstance(seq, _Seq):
            raise RuleError(f"{where} needs a list, tuple or set (such as (x, y, z)) or a comprehension over one")
        return seq

    def scalars(self, seq: _Seq, where: str) -> list[int]:
        if any(isinstance(i, _Seq) for i in seq.items):
            raise RuleError(f"{where} of nested lists or tuples is not supported")
        return list(seq.items)

    def sequence_call(self, name: str, node: ast.Call, env: dict, depth: int):
        args = node.args
        if name == "sorted":
            reverse = False
            for keyword in node.keywords:
                if (
                    keyword.arg != "reverse"
                    or not isinstance(keyword.value, ast.Constant)
                    or not isinstance(keyword.value.value, bool)
                ):
                    raise RuleError("sorted() accepts only reverse=True or reverse=False")
                reverse = keyword.value.value
        else:
            self.no_keywords(node, name)
        if name == "bool":
            self.arity(node, name, 0, 1)
            if not args:
                return self.constant(False)
            inner = self.value(args[0], env, depth)
            if isinstance(inner, _Seq):
                return self.sequence(_flat(inner.evaluated), self.constant(_truthy(inner)))
            return self.emit(Op.TRUTH, inner)
        if name in ("list", "tuple") and not args:
            return _Seq(name, [], [])
        self.arity(node, name, 1)
        seq = self.iterable(args[0], env, depth, f"{name}()")
        if name == "len":
            if seq.kind == "iter":
                return self.raising(_flat(seq.evaluated))  # TypeError: object has no len()
            if seq.kind != "set":
                return self.sequence(_flat(seq.evaluated), self.constant(len(seq.items)))
            return self.sequence(_flat(seq.evaluated), self.set_size(seq.items))
        if name == "set":
            if any(isinstance(i, _Seq) for i in seq.items):
                raise RuleError("sets of lists or tuples are not supported")
            return _Seq("set", list(seq.items), seq.evaluated)
        if seq.kind == "set":
            raise RuleError(f"{name}() of a set is not supported (its order is CPython's hash order)")
        if name in ("list", "tuple"):
            return _Seq(name, list(seq.items), seq.evaluated)
        return self.sorted_values(_Seq("list", seq.items, seq.evaluated), reverse)

    def set_size(self, items: list[int]) -> int:
        """len() of a set display: the items not found (identity or ==) among those before them."""
        if not items:
            return self.constant(0)
        news = [self.constant(True)]
        for k in range(1, len(items)):
            found = self.fold_right(Op.OR, [self.same(items[j], items[k]) for j in range(k)])
            news.append(self.emit(Op.NOT, found))
        offset = len(self.aux)
        self.aux.extend(news)
        return self.emit(Op.SUM, offset, len(news))

    def sorted_values(self, seq: _Seq, reverse: bool) -> _Seq:
        items = self.scalars(seq, "sorted()")
        if len(items) > MAX_SORTED:
            raise RuleError(f"sorted() of more than {MAX_SORTED} values is not supported")
        tree = _sort_tree(len(items), reverse)
        tests: dict = {}
        outputs = []
        for position in range(len(items)):
            outputs.append(self.sort_output(tree, position, items, tests, {}))
        # every comparison on the path taken is in any one output's tree; count them with the list
        return _Seq("list", outputs, _flat(seq.evaluated) + outputs[:1])

    def sort_output(self, tree, position: int, items: list[int], tests: dict, memo: dict) -> int:
        if tree[0] == "leaf":
            return items[tree[1][position]]
        key = id(tree)
        if key in memo:
            return memo[key]
        _, i, j, if_less, if_not = tree
        if (i, j) not in tests:
            tests[(i, j)] = self.emit(Op.LT, items[i], items[j])
        yes = self.sort_output(if_less, position, items, tests, memo)
        no = self.sort_output(if_not, position, items, tests, memo)
        if yes == no:
            result = self.emit(Op.SEQ, tests[(i, j)], yes)  # the comparison still runs (and may raise)
            self.origin[result] = ("select", tests[(i, j)], yes, no)
        else:
            result = self.emit(Op.SELECT, tests[(i, j)], yes, no)
            self.origin[result] = ("select", tests[(i, j)], yes, no)
        memo[key] = result
        return result

    def subscript(self, node: ast.Subscript, env: dict, depth: int):
        seq = self.value(node.value, env, depth)
        index_node = node.slice
        if isinstance(index_node, ast.Slice):
            bounds = [self.slice_bound(b) for b in (index_node.lower, index_node.upper, index_node.step)]
            if not isinstance(seq, _Seq) or seq.kind in ("set", "iter") or bounds[2] == 0:
                return self.raising(_flat(seq.evaluated) if isinstance(seq, _Seq) else [seq])
            picked = range(len(seq.items))[slice(*bounds)]
            return _Seq(seq.kind, [seq.items[k] for k in picked], seq.evaluated)
        if not isinstance(seq, _Seq):
            raise RuleError("subscripts are only allowed on lists and tuples")
        index = self.value(index_node, env, depth)
        evaluated = _flat(seq.evaluated)
        if isinstance(index, _Seq) or seq.kind in ("set", "iter"):
            return self.raising(evaluated + _flat([index]))  # TypeError
        if index not in self.known:
            raise RuleError("list and tuple indices must be constant integers such as 0 or -1")
        value = self.known[index]
        if not isinstance(value, int):
            return self.raising(evaluated)  # TypeError: indices must be integers
        n = len(seq.items)
        if not -n <= value < n:
            return self.raising(evaluated)  # IndexError
        item = seq.items[value]
        if isinstance(item, _Seq):
            return _Seq(item.kind, item.items, seq.evaluated + list(item.evaluated))
        return self.sequence(evaluated, item)

    def slice_bound(self, node) -> Optional[int]:
        if node is None:
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            value = node.operand.value
            value = -value if isinstance(value, int) and not isinstance(value, bool) else None
        else:
            value = node.value if isinstance(node, ast.Constant) else None
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) > MAX_INT_LITERAL:
            raise RuleError("slice bounds must be constant integers such as 1 or -1")
        return value

    def sequence_arithmetic(self, op_node: ast.operator, left, right):
        evaluated = _flat(left.evaluated if isinstance(left, _Seq) else [left])
        evaluated += _flat(right.evaluated if isinstance(right, _Seq) else [right])
        if isinstance(op_node, ast.Add) and isinstance(left, _Seq) and isinstance(right, _Seq):
            if left.kind == right.kind and left.kind in ("list", "tuple"):
                return _Seq(left.kind, left.items + right.items, left.evaluated + right.evaluated)
            if left.kind == "set" or right.kind == "set":
                raise RuleError("set operators are not supported")
            return self.raising(evaluated)  # list + tuple: TypeError
        if isinstance(op_node, ast.Mult) and (isinstance(left, _Seq) != isinstance(right, _Seq)):
            seq, count = (left, right) if isinstance(left, _Seq) else (right, left)
            if seq.kind in ("set", "iter"):
                return self.raising(evaluated)
            if count not in self.known:
                raise RuleError("a list or tuple may only be repeated a constant number of times")
            times = self.known[count]
            if not isinstance(times, int):
                return self.raising(evaluated)
            if len(seq.items) * max(times, 0) > MAX_UNROLL:
                raise RuleError(f"a list, tuple or set may hold at most {MAX_UNROLL} values")
            return _Seq(seq.kind, seq.items * max(times, 0), seq.evaluated)
        if any(isinstance(v, _Seq) and v.kind == "set" for v in (left, right)) and isinstance(
            op_node, (ast.BitOr, ast.BitAnd, ast.BitXor, ast.Sub)
        ):
            raise RuleError("set operators are not supported")
        return self.raising(evaluated)  # TypeError: unsupported operand types

    def itertools_call(self, name: str, node: ast.Call, env: dict, depth: int) -> _Seq:
        """itertools.permutations / combinations / combinations_with_replacement of a display, unrolled."""
        functions = {
            "permutations": itertools.permutations,
            "combinations": itertools.combinations,
            "combinations_with_replacement": itertools.combinations_with_replacement,
        }
        if name not in functions:
            raise RuleError(f"itertools.{name} is not allowed; allowed: {', '.join(functions)}")
        args = list(node.args)
        for keyword in node.keywords:
            if keyword.arg != "r":
                raise RuleError(f"itertools.{name}() keyword {keyword.arg!r} is not allowed")
            args.append(keyword.value)
        self.arity(
            node if not node.keywords else ast.Call(args=args),
            f"itertools.{name}",
            *((1, 2) if name == "permutations" else (2,)),
        )
        seq = self.iterable(args[0], env, depth, f"itertools.{name}()")
        if seq.kind == "set":
            raise RuleError(f"itertools.{name}() of a set is not supported (its order is CPython's hash order)")
        r = None
        if len(args) == 2:
            if isinstance(args[1], ast.Constant) and args[1].value is None and name == "permutations":
                r = None
            else:
                index = self.value(args[1], env, depth)
                if isinstance(index, _Seq) or index not in self.known:
                    raise RuleError(f"itertools.{name}() needs a constant length r")
                r = self.known[index]
                if not isinstance(r, int) or r < 0:
                    return self.raising(_flat(seq.evaluated))  # TypeError / ValueError
        positions = range(len(seq.items))
        try:
            count = (
                math.perm(len(positions), r)
                if name == "permutations"
                else (math.comb(len(positions), r) if name == "combinations" else math.comb(len(positions) + r - 1, r))
            )
        except (ValueError, TypeError):
            count = MAX_UNROLL + 1
        if count > MAX_UNROLL:
            raise RuleError(f"itertools.{name}() may produce at most {MAX_UNROLL} tuples")
        combos = (
            [_Seq("tuple", [seq.items[k] for k in combo], []) for combo in functions[name](positions, r)]
            if name != "permutations" or r is not None
            else [_Seq("tuple", [seq.items[k] for k in combo], []) for combo in itertools.permutations(positions)]
        )
        return _Seq("iter", combos, seq.evaluated)

    # -- identity and equality inside containers -----------------------------------------------
    def tree(self, value: int, budget: Optional[list] = None):
        """The value as a choice among other values' objects (CPython identity): ("select", test, yes,
        no) nodes and ("leaf", object, value) leaves, where value is the object itself or, through
        float() or unary +, a value that is that object when the object is a float. At most
        MAX_TREE nodes (choices of choices can nest exponentially)."""
        budget = [MAX_TREE] if budget is None else budget
        budget[0] -= 1
        if budget[0] < 0:
            raise RuleError(
                f"rule is too complex: a value chosen among more than {MAX_TREE} alternatives is "
                "compared inside a list, tuple or set"
            )
        origin = self.origin.get(value)
        if origin is None:
            return ("leaf", value, value)
        if origin[0] == "alias":
            return _remap(self.tree(origin[1], budget), value)
        if origin[0] == "same":
            return self.tree(origin[1], budget)
        if origin[0] == "minmax":
            _, op, new, old = origin
            test = self.emit(op, new, old)
            self.origin[value] = origin = ("select", test, new, old)
        return ("select", origin[1], self.tree(origin[2], budget), self.tree(origin[3], budget))

    def same(self, a, b) -> int:
        """``a is b or a == b``, as containers compare items (no errors: numbers compare without raising)."""
        if isinstance(a, _Seq) or isinstance(b, _Seq):
            return self.sequence_compare(Op.EQ, a, b)
        ta, tb = self.tree(a), self.tree(b)
        if ta[0] == "select" and tb[0] == "select":  # two choices: a == b, or both chose one object
            identical = [
                self.emit(Op.AND, self._chooses(ta, leaf, {}), self._chooses(tb, leaf, {}))
                for leaf in sorted(_leaves(ta) & _leaves(tb))
            ]
            # a shared object that is not an argument may reach one side through float(): one object
            # only if it is a float, and then only NaN needs identity (x != x)
            identical = [
                term if leaf in self.args else self.emit(Op.AND, term, self.emit(Op.NE, leaf, leaf))
                for term, leaf in zip(identical, sorted(_leaves(ta) & _leaves(tb)))
            ]
            return self.sequence([a, b], self.fold_right(Op.OR, identical + [self.emit(Op.EQ, a, b)]))
        return self.sequence([a, b], self._same_tree(ta, tb))

    def _chooses(self, tree, leaf: int, memo: dict) -> int:
        """Whether the choice tree picks the object of value ``leaf``."""
        if tree[0] == "leaf":
            return self.constant(tree[1] == leaf)
        key = id(tree)
        if key not in memo:
            memo[key] = self.emit(
                Op.SELECT, tree[1], self._chooses(tree[2], leaf, memo), self._chooses(tree[3], leaf, memo)
            )
        return memo[key]

    def _same_tree(self, ta, tb) -> int:
        if ta[0] == "select":
            return self.emit(Op.SELECT, ta[1], self._same_tree(ta[2], tb), self._same_tree(ta[3], tb))
        if tb[0] == "select":
            return self.emit(Op.SELECT, tb[1], self._same_tree(ta, tb[2]), self._same_tree(ta, tb[3]))
        (_, ka, va), (_, kb, vb) = ta, tb
        if ka == kb:
            if va == vb or ka in self.args:  # one object (the arguments are floats)
                return self.constant(True)
            return self.emit(Op.OR, self.emit(Op.EQ, va, vb), self.emit(Op.NE, ka, ka))
        return self.emit(Op.EQ, va, vb)

    def contains(self, container, item) -> int:
        evaluated = _flat(container.evaluated if isinstance(container, _Seq) else [container])
        evaluated += _flat(item.evaluated if isinstance(item, _Seq) else [item])
        if not isinstance(container, _Seq):
            return self.raising(evaluated)  # TypeError: argument is not iterable
        if container.kind == "set" and isinstance(item, _Seq):
            return self.raising(evaluated) if item.kind == "list" else self.sequence(evaluated, self.constant(False))
        if not container.items:
            return self.sequence(evaluated, self.constant(False))
        found = self.fold_right(Op.OR, [self.same(element, item) for element in container.items])
        return self.sequence(evaluated, found)

    def sequence_compare(self, op: Op, left, right) -> int:
        evaluated = _flat(left.evaluated if isinstance(left, _Seq) else [left])
        evaluated += _flat(right.evaluated if isinstance(right, _Seq) else [right])
        both = isinstance(left, _Seq) and isinstance(right, _Seq)
        # two iterators are two objects: == is identity (False), ordering raises
        if not both or left.kind != right.kind or left.kind == "iter":
            if op in (Op.EQ, Op.NE):
                return self.sequence(evaluated, self.constant(op == Op.NE))
            return self.raising(evaluated)  # TypeError: '<' not supported between list and tuple
        if left.kind == "set":
            return self.sequence(evaluated, self.set_compare(op, left.items, right.items))
        a, b = left.items, right.items
        if op in (Op.EQ, Op.NE):
            if len(a) != len(b):
                return self.sequence(evaluated, self.constant(op == Op.NE))
            if not a:
                return self.sequence(evaluated, self.constant(op == Op.EQ))
            equal = self.fold_right(Op.AND, [self.same(p, q) for p, q in zip(a, b)])
            return self.sequence(evaluated, equal if op == Op.EQ else self.emit(Op.NOT, equal))
        lengths = {Op.LT: len(a) < len(b), Op.LE: len(a) <= len(b), Op.GT: len(a) > len(b), Op.GE: len(a) >= len(b)}
        result = self.constant(lengths[op])
        for p, q in reversed(list(zip(a, b))):
            if isinstance(p, _Seq) or isinstance(q, _Seq):
                differ = self.sequence_compare(op, p, q)
            else:
                differ = self.emit(op, p, q)
            result = self.emit(Op.SELECT, self.same(p, q), result, differ)
        return self.sequence(evaluated, result)

    def set_compare(self, op: Op, a: list[int], b: list[int]) -> int:
        def subset(p, q):
            if not p:
                return self.constant(True)
            return self.fold_right(Op.AND, [self.contains(_Seq("set", q, []), v) for v in p])

        if op in (Op.EQ, Op.NE):
            equal = self.emit(Op.AND, subset(a, b), subset(b, a))
            return equal if op == Op.EQ else self.emit(Op.NOT, equal)
        if op in (Op.LE, Op.GE):
            return subset(a, b) if op == Op.LE else subset(b, a)
        small, large = (a, b) if op == Op.LT else (b, a)
        return self.emit(Op.AND, subset(small, large), self.emit(Op.NOT, subset(large, small)))

    def fold_right(self, op: Op, values: list[int]) -> int:
        result = values[-1]
        for value in reversed(values[:-1]):
            result = self.emit(op, value, result)
        return result


def _literal(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_INT_LITERAL:
            raise RuleError(f"integer literal {str(value)[:20]}... is too large (limit {MAX_INT_LITERAL:.0e})")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RuleError("float literal must be finite")
        return value
    kind = {str: "strings", bytes: "bytes", complex: "complex numbers", type(None): "None"}.get(
        type(value), "this literal"
    )
    raise RuleError(f"{kind} are not allowed in a rule; only numbers")


def _attribute_text(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "(...)")
    return ".".join(reversed(parts))[:60]


def _isinstance_mask(node: ast.AST) -> int:
    if isinstance(node, ast.Name) and node.id in ("int", "float"):
        return 1 if node.id == "int" else 2
    if isinstance(node, ast.Tuple) and node.elts:
        mask = 0
        for elt in node.elts:
            mask |= _isinstance_mask(elt)
        return mask
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _isinstance_mask(node.left) | _isinstance_mask(node.right)
    raise RuleError("isinstance() may only test int, float, (int, float) or int | float")


def strip_code(text: str) -> str:
    """Removes surrounding whitespace, code fences and backticks around a lambda."""
    text = text.strip()
    if text.startswith("```"):
        text = text[3:]
        newline = text.find("\n")
        if newline >= 0 and text[:newline].strip().isalnum():
            text = text[newline + 1 :]  # language tag such as ```python
        text = text.rstrip()
        if text.endswith("```"):
            text = text[:-3]
    return text.strip().strip("`").strip()


def parse_lambda(src) -> tuple[ast.Lambda, list[str], str]:
    if not isinstance(src, str):
        raise RuleError(f"rule source must be a str, got {type(src).__name__}")
    if len(src) > MAX_SOURCE_CHARS:
        raise RuleError(f"rule source is {len(src)} characters; the limit is {MAX_SOURCE_CHARS}")
    text = strip_code(src)
    for position, char in enumerate(text):
        if ord(char) > 127:
            raise RuleError(
                f"non-ASCII character U+{ord(char):04X} at position {position}; write the rule in plain Python"
            )
    if "\x00" in text:
        raise RuleError("rule source contains a NUL character")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise RuleError(f"rule is not valid Python: {error.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise RuleError("rule is nested too deeply to parse") from None
    body = tree.body
    if not isinstance(body, ast.Lambda):
        raise RuleError("rule must be a lambda expression: lambda x, y, z: <expression>")
    args = body.args
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.kw_defaults or len(names) != 3:
        raise RuleError("rule must take exactly three plain arguments: lambda x, y, z: ...")
    count = sum(1 for _ in ast.walk(body))
    if count > MAX_AST_NODES:
        raise RuleError(f"rule has {count} syntax nodes; the limit is {MAX_AST_NODES}")
    return body, names, text


def compile_bytecode(src: str) -> tuple[Bytecode, ast.Lambda, list[str], str]:
    body, names, text = parse_lambda(src)
    compiler = _Compiler(names)
    try:
        result = compiler.value(body.body, dict(compiler.env), 0)
    except RecursionError:
        raise RuleError("rule is nested too deeply to compile") from None
    if isinstance(result, _Seq):  # the rule returns a list/tuple/set: truthy when not empty
        result = compiler.sequence(_flat(result.evaluated), compiler.constant(_truthy(result)))
    if (
        result != len(compiler.code) - 1 or result in compiler.overrides or any(c[0] == result for c in compiler.calls)
    ):  # the result must be the last value
        compiler.emit(Op.SEQ, result, result)
    code = np.array(compiler.code, dtype=np.int32).reshape(-1, 5)
    bytecode = Bytecode(
        code, tuple(compiler.aux), tuple(compiler.constants), tuple(compiler.overrides.items()), tuple(compiler.calls)
    )
    return bytecode, body, names, text


class _NeedOutcome(Exception):
    pass


_SORT_TREES: dict = {}


def _sort_tree(k: int, reverse: bool):
    """The decision tree of CPython's own sort on k objects: ("cmp", i, j, if i < j, if not) nodes over
    the original positions, ("leaf", order) leaves. Found by running sorted() on stand-ins whose
    ``<`` answers from a script of outcomes, for every script (so NaN's inconsistent answers too)."""
    key = (k, reverse)
    if key in _SORT_TREES:
        return _SORT_TREES[key]

    def explore(script: list[bool]):
        asked: list[tuple[int, int]] = []

        class Stand:
            __slots__ = ("i",)

            def __init__(self, i):
                self.i = i

            def __lt__(self, other):
                asked.append((self.i, other.i))
                if len(asked) <= len(script):
                    return script[len(asked) - 1]
                raise _NeedOutcome

        try:
            order = sorted([Stand(i) for i in range(k)], reverse=reverse)
        except _NeedOutcome:
            i, j = asked[-1]
            return ("cmp", i, j, explore(script + [True]), explore(script + [False]))
        return ("leaf", tuple(s.i for s in order))

    _SORT_TREES[key] = tree = explore([])
    return tree


def constant_arrays(constants) -> tuple[list[int], list[float], list[int]]:
    tags, floats, ints = [], [], []
    for value in constants:
        if isinstance(value, bool):
            tags.append(BOOL), floats.append(0.0), ints.append(int(value))
        elif isinstance(value, int):
            tags.append(INT), floats.append(0.0), ints.append(value)
        else:
            tags.append(FLOAT), floats.append(value), ints.append(0)
    return tags, floats, ints


def operator_count(body: Optional[ast.Lambda]) -> int:
    """Operators and calls in the rule: the paper's response-complexity measure."""
    if body is None:
        return 0
    kinds = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.IfExp)
    total = 0
    for node in ast.walk(body.body):
        if isinstance(node, ast.BoolOp):
            total += len(node.values) - 1
        elif isinstance(node, ast.Compare):
            total += len(node.ops)
        elif isinstance(node, kinds):
            total += 1
    return total
