"""Lowering a rule's syntax tree to the program's values, node by node: names, literals, operators,
and/or, comparison chains, conditionals, displays, comprehensions (unrolled over a sequence known
at compile time), subscripts and slices. Calls go to calls.py, what containers do to containers.py;
constant subexpressions fold as they are emitted (program.py).
"""

from __future__ import annotations

import ast
import math
from typing import Optional

from cogsim.benchmarks.wilt._bytecode import Op
from cogsim.benchmarks.wilt._compile.calls import BUILTINS, Calls
from cogsim.benchmarks.wilt._compile.containers import Containers
from cogsim.benchmarks.wilt._compile.limits import MAX_DEPTH, MAX_INT_LITERAL, MAX_UNROLL, RuleError
from cogsim.benchmarks.wilt._compile.parse import attribute_text, describe, literal
from cogsim.benchmarks.wilt._compile.program import Program
from cogsim.benchmarks.wilt._compile.sequences import Range, Seq, flat, truthy

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
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}


class Lowering:
    """One rule's lowering: its program, the lambda's arguments (``env``) and the helpers for calls and
    containers, which lower their operands through it."""

    def __init__(self, arg_names: list[str]):
        self.program = Program()
        self.env = self.program.arguments(arg_names)
        self.containers = Containers(self.program)
        self.calls = Calls(self)
        self._math_nan: Optional[int] = None

    def value(self, node: ast.AST, env: dict, depth: int, ranges_ok: bool = False):
        """A scalar value (int) or a sequence known at compile time (Seq); a Range only where
        ``ranges_ok`` (after 'in', in len(), as an iterable)."""
        result = self._value(node, env, depth)
        if isinstance(result, Range) and not ranges_ok:
            raise RuleError("range() can only be used after 'in', in len() and as what a comprehension iterates")
        return result

    def expr(self, node: ast.AST, env: dict, depth: int) -> int:
        """A scalar value."""
        result = self.value(node, env, depth)
        if isinstance(result, Seq):
            raise RuleError(
                f"a {result.kind} can only be used in len(), sorted(), min(), max(), sum(), any(), all(), "
                "'in', comparisons and subscripts here"
            )
        return result

    def _value(self, node: ast.AST, env: dict, depth: int):
        if depth > MAX_DEPTH:
            raise RuleError(f"rule is nested too deeply (more than {MAX_DEPTH} levels)")
        depth += 1
        if isinstance(node, ast.Constant):
            return self.program.constant(literal(node.value))
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
            if isinstance(left, Seq) or isinstance(right, Seq):
                return self.sequence_arithmetic(node.op, left, right)
            return self.program.operation(op, left, right)
        if isinstance(node, ast.BoolOp):
            op = Op.AND if isinstance(node.op, ast.And) else Op.OR
            values = [self.expr(v, env, depth) for v in node.values]
            result = values[-1]
            for value in reversed(values[:-1]):
                result = self.program.emit(op, value, result)
            return result
        if isinstance(node, ast.Compare):
            return self.compare(node, env, depth)
        if isinstance(node, ast.IfExp):
            test = self.expr(node.test, env, depth)
            yes, no = self.expr(node.body, env, depth), self.expr(node.orelse, env, depth)
            result = self.program.emit(Op.SELECT, test, yes, no)
            self.program.origin[result] = ("select", test, yes, no)
            return result
        if isinstance(node, ast.Call):
            return self.calls.call(node, env, depth)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "math" and "math" not in env:
                if node.attr in _MATH_CONSTANTS:
                    return self.program.constant(_MATH_CONSTANTS[node.attr])
                if node.attr == "nan":  # one module attribute: the same NaN object at every use
                    if self._math_nan is None:
                        self._math_nan = self.program.fresh_constant(math.nan)
                    return self._math_nan
            raise RuleError(
                f"attribute {attribute_text(node)!r} is not allowed; only math functions and x.is_integer()"
            )
        raise RuleError(f"{describe(node)} are not allowed in a rule")

    def name(self, node: ast.Name, env: dict) -> int:
        if node.id in env:
            return env[node.id]
        if node.id == "math":
            raise RuleError("math can only be used as math.<function>(...)")
        if node.id in BUILTINS:
            raise RuleError(f"{node.id} can only be called, not used as a value")
        raise RuleError(f"name {node.id!r} is not allowed; use the lambda's three arguments")

    def unary(self, node: ast.UnaryOp, env: dict, depth: int) -> int:
        operand = node.operand
        if isinstance(node.op, ast.USub) and isinstance(operand, ast.Constant):
            value = literal(operand.value)
            return self.program.constant(-value)
        if isinstance(node.op, ast.Not):
            inner = self.value(operand, env, depth)
            if isinstance(inner, Seq):
                return self.program.sequence(flat(inner.evaluated), self.program.constant(not truthy(inner)))
            return self.program.emit(Op.NOT, inner)
        op = {ast.USub: Op.NEG, ast.UAdd: Op.POS, ast.Invert: Op.INVERT}[type(node.op)]
        inner = self.value(operand, env, depth)
        if isinstance(inner, Seq):
            return self.program.raising(flat(inner.evaluated))  # TypeError: bad operand type for unary op
        return self.program.operation(op, inner)

    def compare(self, node: ast.Compare, env: dict, depth: int) -> int:
        left = self.value(node.left, env, depth)
        results = []
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node, env, depth, ranges_ok=isinstance(op_node, (ast.In, ast.NotIn)))
            if isinstance(left, Range):  # a chain such as x in range(3) in y
                raise RuleError("range() can only be used after 'in', in len() and as what a comprehension iterates")
            if isinstance(op_node, (ast.In, ast.NotIn)):
                found = (
                    self.containers.range_contains(right, left)
                    if isinstance(right, Range)
                    else self.containers.contains(right, left)
                )
                results.append(found if isinstance(op_node, ast.In) else self.program.emit(Op.NOT, found))
                left = right
                continue
            op = _COMPARE_OPS.get(type(op_node))
            if op is None:
                raise RuleError(f"comparison {type(op_node).__name__} is not allowed; use == != < <= > >= in, not in")
            if isinstance(left, Seq) or isinstance(right, Seq):
                results.append(self.containers.sequence_compare(op, left, right))
            else:
                results.append(self.program.emit(op, left, right))
            left = right
        result = results[-1]
        for earlier in reversed(results[:-1]):
            result = self.program.emit(Op.AND, earlier, result)
        return result

    def display(self, node, env: dict, depth: int) -> Seq:
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise RuleError("starred items in a display are not allowed")
        if len(node.elts) > MAX_UNROLL:
            raise RuleError(f"a list, tuple or set may hold at most {MAX_UNROLL} values")
        kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        items = [self.value(e, env, depth) for e in node.elts]
        if kind == "set" and any(isinstance(i, Seq) for i in items):
            raise RuleError("sets of lists or tuples are not supported")
        return Seq(kind, items, list(items))

    def list_comprehension(self, node: ast.ListComp, env: dict, depth: int) -> Seq:
        if any(gen.ifs for gen in node.generators):
            raise RuleError(
                "a list comprehension with 'if' has a length known only at run time; "
                "use it inside all() or any(), or write the list out"
            )
        items, _, evaluated = self.unroll(node, env, depth)
        return Seq("list", items, evaluated + list(items))

    def iterable(self, node: ast.AST, env: dict, depth: int, where: str) -> Seq:
        if isinstance(node, ast.GeneratorExp):
            if any(gen.ifs for gen in node.generators):
                raise RuleError(f"a generator with 'if' is only supported inside all() and any(), not {where}")
            items, _, evaluated = self.unroll(node, env, depth)
            return Seq("list", items, evaluated + list(items))
        seq = self.value(node, env, depth, ranges_ok=True)
        if isinstance(seq, Range):
            numbers = range(seq.start, seq.stop, seq.step)
            if numbers[MAX_UNROLL:]:
                raise RuleError(f"{where} may go over at most {MAX_UNROLL} values; this range() has more")
            return Seq("list", [self.program.known_value(v) for v in numbers], [])
        if not isinstance(seq, Seq):
            raise RuleError(f"{where} needs a list, tuple or set (such as (x, y, z)) or a comprehension over one")
        return seq

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
        return items, filters, flat(source.evaluated)

    def bind(self, target: ast.AST, element, env: dict):
        """Binds a comprehension target; returns a raising value if the element cannot unpack, else None."""
        if isinstance(target, ast.Name):
            env[target.id] = element
            return None
        if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(t, ast.Starred) for t in target.elts):
            if not isinstance(element, Seq) or element.kind == "set" or len(element.items) != len(target.elts):
                return self.program.raising(flat([element]))
            for sub_target, sub_element in zip(target.elts, element.items):
                failed = self.bind(sub_target, sub_element, env)
                if failed is not None:
                    return failed
            return None
        raise RuleError("comprehension targets must be names or tuples of names")

    def subscript(self, node: ast.Subscript, env: dict, depth: int):
        seq = self.value(node.value, env, depth)
        index_node = node.slice
        if isinstance(index_node, ast.Slice):
            bounds = [self.slice_bound(b) for b in (index_node.lower, index_node.upper, index_node.step)]
            if not isinstance(seq, Seq) or seq.kind in ("set", "iter") or bounds[2] == 0:
                return self.program.raising(flat(seq.evaluated) if isinstance(seq, Seq) else [seq])
            picked = range(len(seq.items))[slice(*bounds)]
            return Seq(seq.kind, [seq.items[k] for k in picked], seq.evaluated)
        if not isinstance(seq, Seq):
            raise RuleError("subscripts are only allowed on lists and tuples")
        index = self.value(index_node, env, depth)
        evaluated = flat(seq.evaluated)
        if isinstance(index, Seq) or seq.kind in ("set", "iter"):
            return self.program.raising(evaluated + flat([index]))  # TypeError
        if index not in self.program.known:
            raise RuleError("list and tuple indices must be constant integers such as 0 or -1")
        value = self.program.known[index]
        if not isinstance(value, int):
            return self.program.raising(evaluated)  # TypeError: indices must be integers
        n = len(seq.items)
        if not -n <= value < n:
            return self.program.raising(evaluated)  # IndexError
        item = seq.items[value]
        if isinstance(item, Seq):
            return Seq(item.kind, item.items, seq.evaluated + list(item.evaluated))
        return self.program.sequence(evaluated, item)

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
        evaluated = flat(left.evaluated if isinstance(left, Seq) else [left])
        evaluated += flat(right.evaluated if isinstance(right, Seq) else [right])
        if isinstance(op_node, ast.Add) and isinstance(left, Seq) and isinstance(right, Seq):
            if left.kind == right.kind and left.kind in ("list", "tuple"):
                return Seq(left.kind, left.items + right.items, left.evaluated + right.evaluated)
            if left.kind == "set" or right.kind == "set":
                raise RuleError("set operators are not supported")
            return self.program.raising(evaluated)  # list + tuple: TypeError
        if isinstance(op_node, ast.Mult) and (isinstance(left, Seq) != isinstance(right, Seq)):
            seq, count = (left, right) if isinstance(left, Seq) else (right, left)
            if seq.kind in ("set", "iter"):
                return self.program.raising(evaluated)
            if count not in self.program.known:
                raise RuleError("a list or tuple may only be repeated a constant number of times")
            times = self.program.known[count]
            if not isinstance(times, int):
                return self.program.raising(evaluated)
            if len(seq.items) * max(times, 0) > MAX_UNROLL:
                raise RuleError(f"a list, tuple or set may hold at most {MAX_UNROLL} values")
            return Seq(seq.kind, seq.items * max(times, 0), seq.evaluated)
        if any(isinstance(v, Seq) and v.kind == "set" for v in (left, right)) and isinstance(
            op_node, (ast.BitOr, ast.BitAnd, ast.BitXor, ast.Sub)
        ):
            raise RuleError("set operators are not supported")
        return self.program.raising(evaluated)  # TypeError: unsupported operand types
