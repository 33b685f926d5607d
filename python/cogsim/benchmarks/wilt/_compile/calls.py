"""The calls a rule may make, lowered to values: builtins (abs, int, float, round, pow, divmod,
isinstance, len, bool, list, tuple, set, sorted, range), the reductions all/any/sum/min/max over
sequences and comprehensions, math functions (as VM ops, or computed by the interpreter), and
itertools' permutations and combinations of a display, unrolled. Any other call is refused.
"""

from __future__ import annotations

import ast
import itertools
import math
from typing import TYPE_CHECKING

from cogsim.benchmarks.wilt import _interp
from cogsim.benchmarks.wilt._bytecode import Op
from cogsim.benchmarks.wilt._compile.limits import MAX_UNROLL, RuleError
from cogsim.benchmarks.wilt._compile.parse import attribute_text, describe, isinstance_mask
from cogsim.benchmarks.wilt._compile.sequences import Range, Seq, flat, scalars, truthy
from cogsim.benchmarks.wilt._compile.sort import sorted_values

if TYPE_CHECKING:
    from cogsim.benchmarks.wilt._compile.lower import Lowering

_UNARY_BUILTINS = {"abs": Op.ABS, "int": Op.TO_INT, "float": Op.TO_FLOAT}
_UNARY_MATH = {"floor": Op.FLOOR, "ceil": Op.CEIL, "sqrt": Op.SQRT, "fabs": Op.FABS, "trunc": Op.TO_INT}
# The builtins a rule may call (any other name is refused).
BUILTINS = {
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


class Calls:
    """Lowers calls for a Lowering, which lowers their arguments."""

    def __init__(self, lower: Lowering):
        self.lower = lower
        self.program = lower.program
        self.containers = lower.containers

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
                return self.program.emit(Op.IS_INTEGER, self.lower.expr(func.value, env, depth))
            raise RuleError(f"method or attribute {attribute_text(func)!r} is not allowed")
        name = func.id if isinstance(func, ast.Name) else describe(func)
        raise RuleError(f"calling {name!r} is not allowed")

    def builtin_call(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        if name not in BUILTINS:
            raise RuleError(f"function {name!r} is not allowed")
        if name == "range":
            return self.range_call(node, env, depth)
        if name == "len" and len(node.args) == 1 and not node.keywords:
            inner = self.lower.value(node.args[0], env, depth, ranges_ok=True)
            if isinstance(inner, Range):
                try:
                    return self.program.constant(len(range(inner.start, inner.stop, inner.step)))
                except OverflowError:  # CPython: len() of a range beyond sys.maxsize raises
                    return self.program.raising([])
        if name in ("sorted", "list", "tuple", "set", "len", "bool"):
            return self.sequence_call(name, node, env, depth)
        self.no_keywords(node, name)
        args = node.args
        if name == "float" and len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
            return self.float_of_text(args[0].value)
        if name in _UNARY_BUILTINS:
            self.arity(node, name, 1)
            return self.program.operation(_UNARY_BUILTINS[name], self.lower.expr(args[0], env, depth))
        if name == "divmod":
            self.arity(node, name, 2)
            a, b = self.lower.expr(args[0], env, depth), self.lower.expr(args[1], env, depth)
            quotient = self.program.operation(Op.FLOORDIV, a, b)
            remainder = self.program.operation(Op.MOD, a, b)
            # one call: where // raises, % raises too (same operand types and divisor)
            return Seq("tuple", [quotient, remainder], [quotient, remainder])
        if name == "round":
            self.arity(node, name, 1, 2)
            value = self.lower.expr(args[0], env, depth)
            if len(args) == 1 or (isinstance(args[1], ast.Constant) and args[1].value is None):
                return self.program.emit(Op.ROUND, value)
            return self.program.emit(Op.ROUND_DIGITS, value, self.lower.expr(args[1], env, depth))
        if name == "pow":
            self.arity(node, name, 2)
            return self.program.emit(Op.POW, self.lower.expr(args[0], env, depth), self.lower.expr(args[1], env, depth))
        if name == "isinstance":
            self.arity(node, name, 2)
            return self.program.emit(Op.IS_INSTANCE, self.lower.expr(args[0], env, depth), isinstance_mask(args[1]))
        return self.reduce(name, node, env, depth)

    def math_call(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        if name in _UNARY_MATH:
            self.no_keywords(node, f"math.{name}")
            self.arity(node, f"math.{name}", 1)
            return self.program.emit(_UNARY_MATH[name], self.lower.expr(node.args[0], env, depth))
        if name in ("isnan", "isinf", "isfinite"):
            self.no_keywords(node, f"math.{name}")
            self.arity(node, f"math.{name}", 1)
            # fabs converts to float, as the math functions do
            value = self.program.emit(Op.FABS, self.lower.expr(node.args[0], env, depth))
            if name == "isnan":
                return self.program.emit(Op.NE, value, value)
            return self.program.emit(Op.EQ if name == "isinf" else Op.LT, value, self.program.constant(math.inf))
        if name == "prod":
            self.no_keywords(node, "math.prod")
            self.arity(node, "math.prod", 1)
            source = self.lower.iterable(node.args[0], env, depth, "math.prod")
            items = scalars(source, "math.prod")
            result = self.program.constant(1)
            for item in items:
                result = self.program.emit(Op.MUL, result, item)
            return self.program.sequence(flat(source.evaluated), result)
        if name == "gcd":
            self.no_keywords(node, "math.gcd")
            values = [self.lower.expr(a, env, depth) for a in node.args]
            if not values:
                return self.program.constant(0)
            result = self.program.emit(Op.GCD, values[0], self.program.constant(0))
            for value in values[1:]:
                result = self.program.emit(Op.GCD, result, value)
            return result
        if name == "isclose":
            self.arity(node, "math.isclose", 2)
            a, b = (self.lower.expr(arg, env, depth) for arg in node.args)
            tolerances = {"rel_tol": None, "abs_tol": None}
            for keyword in node.keywords:
                if keyword.arg not in tolerances:
                    raise RuleError(f"math.isclose() keyword {keyword.arg!r} is not allowed; use rel_tol or abs_tol")
                tolerances[keyword.arg] = self.lower.expr(keyword.value, env, depth)
            rel = tolerances["rel_tol"] if tolerances["rel_tol"] is not None else self.program.constant(1e-09)
            tol = tolerances["abs_tol"] if tolerances["abs_tol"] is not None else self.program.constant(0.0)
            return self.program.emit(Op.ISCLOSE, a, b, rel, tol)
        if name in _interp.PYTHON_CALLS:
            self.no_keywords(node, f"math.{name}")
            if len(node.args) > MAX_UNROLL:
                raise RuleError(f"math.{name}() may take at most {MAX_UNROLL} arguments")
            return self.program.python_call(name, [self.lower.expr(a, env, depth) for a in node.args])
        raise RuleError(
            f"function math.{name} is not allowed; allowed: gcd, floor, ceil, trunc, sqrt, isclose, fabs, "
            f"isnan, isinf, isfinite, prod, {', '.join(_interp.PYTHON_CALLS)}"
        )

    def itertools_call(self, name: str, node: ast.Call, env: dict, depth: int) -> Seq:
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
        seq = self.lower.iterable(args[0], env, depth, f"itertools.{name}()")
        if seq.kind == "set":
            raise RuleError(f"itertools.{name}() of a set is not supported (its order is CPython's hash order)")
        r = None
        if len(args) == 2:
            if isinstance(args[1], ast.Constant) and args[1].value is None and name == "permutations":
                r = None
            else:
                index = self.lower.value(args[1], env, depth)
                if isinstance(index, Seq) or index not in self.program.known:
                    raise RuleError(f"itertools.{name}() needs a constant length r")
                r = self.program.known[index]
                if not isinstance(r, int) or r < 0:
                    return self.program.raising(flat(seq.evaluated))  # TypeError / ValueError
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
            [Seq("tuple", [seq.items[k] for k in combo], []) for combo in functions[name](positions, r)]
            if name != "permutations" or r is not None
            else [Seq("tuple", [seq.items[k] for k in combo], []) for combo in itertools.permutations(positions)]
        )
        return Seq("iter", combos, seq.evaluated)

    def range_call(self, node: ast.Call, env: dict, depth: int) -> Range:
        self.no_keywords(node, "range")
        self.arity(node, "range", 1, 2, 3)
        values = []
        for arg in node.args:
            value = self.lower.value(arg, env, depth)
            if (
                isinstance(value, (Seq, Range))
                or value not in self.program.known
                or not isinstance(self.program.known[value], int)
            ):
                raise RuleError("range() needs constant integer arguments such as range(1, 10)")
            values.append(int(self.program.known[value]))
        bounds = range(*values) if values[-1] != 0 or len(values) < 3 else None
        if bounds is None:
            raise RuleError("range() step must not be zero")
        return Range(bounds.start, bounds.stop, bounds.step)

    def float_of_text(self, text: str) -> int:
        """float('inf'), float('nan'), float('1.5'): CPython's float() of a string literal, at compile time."""
        if len(text) > 40:
            raise RuleError("float() of a string is only allowed for short number literals such as 'inf' or 'nan'")
        try:
            value = float(text)
        except ValueError:
            return self.program.raising([])  # ValueError: could not convert string to float
        if math.isnan(value):
            return self.program.fresh_constant(math.copysign(math.nan, value))
        return self.program.constant(value)

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
                return self.program.constant(False)
            inner = self.lower.value(args[0], env, depth)
            if isinstance(inner, Seq):
                return self.program.sequence(flat(inner.evaluated), self.program.constant(truthy(inner)))
            return self.program.emit(Op.TRUTH, inner)
        if name in ("list", "tuple") and not args:
            return Seq(name, [], [])
        self.arity(node, name, 1)
        seq = self.lower.iterable(args[0], env, depth, f"{name}()")
        if name == "len":
            if seq.kind == "iter":
                return self.program.raising(flat(seq.evaluated))  # TypeError: object has no len()
            if seq.kind != "set":
                return self.program.sequence(flat(seq.evaluated), self.program.constant(len(seq.items)))
            return self.program.sequence(flat(seq.evaluated), self.containers.set_size(seq.items))
        if name == "set":
            if any(isinstance(i, Seq) for i in seq.items):
                raise RuleError("sets of lists or tuples are not supported")
            return Seq("set", list(seq.items), seq.evaluated)
        if seq.kind == "set":
            raise RuleError(f"{name}() of a set is not supported (its order is CPython's hash order)")
        if name in ("list", "tuple"):
            return Seq(name, list(seq.items), seq.evaluated)
        return sorted_values(self.program, Seq("list", seq.items, seq.evaluated), reverse)

    def reduce(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        args = node.args
        if name in ("min", "max") and len(args) >= 2:
            values = [self.lower.expr(a, env, depth) for a in args]
            return self.program.fold(Op.MIN if name == "min" else Op.MAX, values)
        self.arity(node, name, 1)
        source = args[0]
        if isinstance(source, (ast.GeneratorExp, ast.ListComp)):
            return self.reduce_comprehension(name, source, env, depth)
        seq = self.lower.iterable(source, env, depth, f"{name}()")
        if seq.kind == "set" and name not in ("all", "any"):
            raise RuleError(f"{name}() of a set is not supported (its order is CPython's hash order); use a list")
        items = scalars(seq, f"{name}()")
        return self.program.sequence(flat(seq.evaluated), self.reduce_values(name, items, [], [], lazy=False))

    def reduce_comprehension(self, name: str, node: ast.AST, env: dict, depth: int) -> int:
        if len(node.generators) != 1:
            raise RuleError("comprehensions may have only one 'for'")
        if node.generators and node.generators[0].ifs and name not in ("all", "any"):
            raise RuleError(f"'if' filters are only supported in all() and any(), not in {name}()")
        if name in ("min", "max", "sum") and isinstance(node, ast.ListComp):
            seq = self.lower.list_comprehension(node, env, depth)
            return self.program.sequence(
                flat(seq.evaluated), self.reduce_values(name, scalars(seq, f"{name}()"), [], [], lazy=False)
            )
        items, filters, evaluated = self.lower.unroll(node, env, depth)
        lazy = isinstance(node, ast.GeneratorExp)
        return self.program.sequence(evaluated, self.reduce_values(name, items, filters, [], lazy))

    def reduce_values(
        self, name: str, items: list[int], filters: list[list[int]], evaluated: list[int], lazy: bool
    ) -> int:
        if name in ("all", "any"):
            neutral = name == "all"
            terms = []
            for k, item in enumerate(items):
                term = self.program.emit(Op.TRUTH, item)
                for condition in reversed(filters[k] if filters else []):
                    term = self.program.emit(Op.SELECT, condition, term, self.program.constant(neutral))
                terms.append(term)
            if not terms:
                return self.program.sequence(evaluated, self.program.constant(neutral))
            result = self.program.fold_right(Op.AND if name == "all" else Op.OR, terms)
            if not lazy:  # a list is built in full before all()/any() looks at it
                evaluated = evaluated + terms
            return self.program.sequence(evaluated, result)
        if name == "sum":
            if len(items) > MAX_UNROLL:
                raise RuleError(f"sum() may add at most {MAX_UNROLL} values")
            return self.program.sequence(evaluated, self.program.sum_of(items))
        if not items:
            raise RuleError(f"{name}() of an empty sequence always fails")
        return self.program.sequence(evaluated, self.program.fold(Op.MIN if name == "min" else Op.MAX, items))

    def no_keywords(self, node: ast.Call, name: str) -> None:
        if node.keywords:
            raise RuleError(f"{name}() does not accept keyword arguments here")

    def arity(self, node: ast.Call, name: str, *allowed: int) -> None:
        if len(node.args) not in allowed:
            counts = " or ".join(str(a) for a in allowed)
            raise RuleError(f"{name}() takes {counts} argument(s), got {len(node.args)}")
