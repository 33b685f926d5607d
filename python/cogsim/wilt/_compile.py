"""Safe compiler from model-written ``lambda x, y, z: ...`` text to rule-VM bytecode.

The text is parsed with :mod:`ast` and every node is checked against a whitelist; nothing is ever
``eval``-ed. The bytecode is SSA: instruction k defines value k. Short-circuit forms (and, or,
if-else, comparison chains, all/any over a generator) evaluate every operand but only count an
operand's errors where CPython would have evaluated it, which the VM does by masking flags.
"""

from __future__ import annotations

import ast
import math
import sys
from dataclasses import dataclass
from typing import Optional

import numpy as np

from cogsim.wilt._bytecode import BOOL, FLOAT, INT, Op

MAX_SOURCE_CHARS = 4000
MAX_AST_NODES = 600
MAX_DEPTH = 60
MAX_INSTRUCTIONS = 4000
MAX_INT_LITERAL = 10**15
MAX_UNROLL = 32
PYTHON312 = sys.version_info >= (3, 12)

_BINARY_OPS = {
    ast.Add: Op.ADD, ast.Sub: Op.SUB, ast.Mult: Op.MUL, ast.Div: Op.TRUEDIV, ast.FloorDiv: Op.FLOORDIV,
    ast.Mod: Op.MOD, ast.Pow: Op.POW, ast.BitAnd: Op.BITAND, ast.BitOr: Op.BITOR, ast.BitXor: Op.BITXOR,
    ast.LShift: Op.LSHIFT, ast.RShift: Op.RSHIFT,
}
_COMPARE_OPS = {ast.Eq: Op.EQ, ast.NotEq: Op.NE, ast.Lt: Op.LT, ast.LtE: Op.LE, ast.Gt: Op.GT, ast.GtE: Op.GE}
_UNARY_BUILTINS = {"abs": Op.ABS, "int": Op.TO_INT, "float": Op.TO_FLOAT}
_UNARY_MATH = {"floor": Op.FLOOR, "ceil": Op.CEIL, "sqrt": Op.SQRT, "fabs": Op.FABS}
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}
_BUILTINS = {"abs", "int", "float", "round", "pow", "min", "max", "all", "any", "sum", "isinstance"}
_REDUCERS = {"all", "any", "sum", "min", "max"}


class RuleError(ValueError):
    """The rule text is not a supported, safe ``lambda x, y, z: <expression>``."""


@dataclass(frozen=True)
class Bytecode:
    code: np.ndarray  # int32 (N, 5): op, a, b, c, d
    aux: tuple[int, ...]
    constants: tuple  # Python values (bool, int or float), indexed by CONST's a


def _describe(node: ast.AST) -> str:
    names = {
        ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "nested lambdas",
        ast.ListComp: "list comprehensions", ast.GeneratorExp: "generator expressions",
        ast.SetComp: "set comprehensions", ast.DictComp: "dict comprehensions", ast.Dict: "dicts",
        ast.Set: "sets", ast.List: "lists", ast.Tuple: "tuples", ast.Starred: "starred arguments",
        ast.NamedExpr: "assignment expressions (:=)", ast.JoinedStr: "f-strings", ast.Await: "await",
        ast.Yield: "yield", ast.Slice: "slices",
    }
    return names.get(type(node), f"{type(node).__name__} expressions")


class _Compiler:
    def __init__(self, arg_names: list[str]):
        self.code: list[tuple[int, int, int, int, int]] = []
        self.aux: list[int] = []
        self.constants: list = []
        self._constant_index: dict = {}
        self.env = {name: self.emit(Op.ARG, k) for k, name in enumerate(arg_names)}

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
        return self.emit(Op.CONST, self._constant_index[key])

    def sequence(self, evaluated: list[int], result: int) -> int:
        """The result, counting the errors of values evaluated before it."""
        for value in evaluated:
            result = self.emit(Op.SEQ, value, result)
        return result

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, node: ast.AST, env: dict, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise RuleError(f"rule is nested too deeply (more than {MAX_DEPTH} levels)")
        depth += 1
        if isinstance(node, ast.Constant):
            return self.constant(_literal(node.value))
        if isinstance(node, ast.Name):
            return self.name(node, env)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, env, depth)
        if isinstance(node, ast.BinOp):
            op = _BINARY_OPS.get(type(node.op))
            if op is None:
                raise RuleError(f"operator {type(node.op).__name__} is not allowed")
            return self.emit(op, self.expr(node.left, env, depth), self.expr(node.right, env, depth))
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
            return self.emit(Op.SELECT, test, self.expr(node.body, env, depth), self.expr(node.orelse, env, depth))
        if isinstance(node, ast.Call):
            return self.call(node, env, depth)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "math" and "math" not in env:
                if node.attr in _MATH_CONSTANTS:
                    return self.constant(_MATH_CONSTANTS[node.attr])
            raise RuleError(f"attribute {_attribute_text(node)!r} is not allowed; only math functions and x.is_integer()")
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
        op = {ast.USub: Op.NEG, ast.UAdd: Op.POS, ast.Not: Op.NOT, ast.Invert: Op.INVERT}[type(node.op)]
        return self.emit(op, self.expr(operand, env, depth))

    def compare(self, node: ast.Compare, env: dict, depth: int) -> int:
        left = self.expr(node.left, env, depth)
        results = []
        for op_node, right_node in zip(node.ops, node.comparators):
            op = _COMPARE_OPS.get(type(op_node))
            if op is None:
                raise RuleError(f"comparison {type(op_node).__name__} is not allowed; use == != < <= > >=")
            right = self.expr(right_node, env, depth)
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
        self.no_keywords(node, name)
        args = node.args
        if name in _UNARY_BUILTINS:
            self.arity(node, name, 1)
            return self.emit(_UNARY_BUILTINS[name], self.expr(args[0], env, depth))
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

    def math_call(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        if name in _UNARY_MATH:
            self.no_keywords(node, f"math.{name}")
            self.arity(node, f"math.{name}", 1)
            return self.emit(_UNARY_MATH[name], self.expr(node.args[0], env, depth))
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
        raise RuleError(f"function math.{name} is not allowed; allowed: gcd, floor, ceil, sqrt, isclose, fabs")

    # -- all / any / sum / min / max -----------------------------------------------------------
    def reduce(self, name: str, node: ast.Call, env: dict, depth: int) -> int:
        args = node.args
        if name in ("min", "max") and len(args) >= 2:
            values = [self.expr(a, env, depth) for a in args]
            return self.fold(Op.MIN if name == "min" else Op.MAX, values)
        self.arity(node, name, 1)
        source = args[0]
        if isinstance(source, (ast.List, ast.Tuple)):
            items = [self.expr(e, env, depth) for e in source.elts]
            return self.reduce_values(name, items, [], [], lazy=False)
        if isinstance(source, (ast.GeneratorExp, ast.ListComp)):
            return self.reduce_comprehension(name, source, env, depth)
        raise RuleError(f"{name}() needs a literal list/tuple, or a comprehension over one")

    def reduce_comprehension(self, name: str, node: ast.AST, env: dict, depth: int) -> int:
        if len(node.generators) != 1:
            raise RuleError("comprehensions may have only one 'for'")
        gen = node.generators[0]
        if gen.is_async or not isinstance(gen.target, ast.Name):
            raise RuleError("comprehension targets must be a single name")
        if not isinstance(gen.iter, (ast.List, ast.Tuple)):
            raise RuleError("comprehensions may only iterate over a literal list or tuple such as (x, y, z)")
        if len(gen.iter.elts) > MAX_UNROLL:
            raise RuleError(f"comprehensions may iterate over at most {MAX_UNROLL} values")
        if gen.ifs and name not in ("all", "any"):
            raise RuleError(f"'if' filters are only supported in all() and any(), not in {name}()")
        elements = [self.expr(e, env, depth) for e in gen.iter.elts]
        items, filters = [], []
        for element in elements:
            inner = {**env, gen.target.id: element}
            filters.append([self.expr(f, inner, depth) for f in gen.ifs])
            items.append(self.expr(node.elt, inner, depth))
        lazy = isinstance(node, ast.GeneratorExp)
        return self.reduce_values(name, items, filters, elements, lazy)

    def reduce_values(self, name: str, items: list[int], filters: list[list[int]], evaluated: list[int], lazy: bool) -> int:
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
            result = self.emit(op, result, value)
        return result

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
    kind = {str: "strings", bytes: "bytes", complex: "complex numbers", type(None): "None"}.get(type(value), "this literal")
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
            text = text[newline + 1:]  # language tag such as ```python
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
            raise RuleError(f"non-ASCII character U+{ord(char):04X} at position {position}; write the rule in plain Python")
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
    result = compiler.expr(body.body, dict(compiler.env), 0)
    if result != len(compiler.code) - 1:  # the result must be the last value
        compiler.emit(Op.SEQ, result, result)
    code = np.array(compiler.code, dtype=np.int32).reshape(-1, 5)
    return Bytecode(code, tuple(compiler.aux), tuple(compiler.constants)), body, names, text


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
