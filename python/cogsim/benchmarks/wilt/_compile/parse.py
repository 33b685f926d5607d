"""Reading a rule's source: the text to a checked ``lambda x, y, z: ...`` syntax tree, and the checks
of single nodes the lowering asks for (a literal, an isinstance() type list) with the names its
error messages give a construct. Nothing here evaluates the text.
"""

from __future__ import annotations

import ast
import math
from typing import Optional

from cogsim.benchmarks.wilt._compile.limits import MAX_AST_NODES, MAX_INT_LITERAL, MAX_SOURCE_CHARS, RuleError


def parse_lambda(src) -> tuple[ast.Lambda, list[str], str]:
    """The lambda node of the source, its three argument names and the text parsed (code fences stripped)."""
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


def literal(value):
    """A literal's value, if a rule may hold it: a bool, an int within MAX_INT_LITERAL or a finite float."""
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


def isinstance_mask(node: ast.AST) -> int:
    """The types isinstance() tests, as IS_INSTANCE's operand: bit 0 int, bit 1 float."""
    if isinstance(node, ast.Name) and node.id in ("int", "float"):
        return 1 if node.id == "int" else 2
    if isinstance(node, ast.Tuple) and node.elts:
        mask = 0
        for elt in node.elts:
            mask |= isinstance_mask(elt)
        return mask
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return isinstance_mask(node.left) | isinstance_mask(node.right)
    raise RuleError("isinstance() may only test int, float, (int, float) or int | float")


def attribute_text(node: ast.AST) -> str:
    """A dotted name such as ``os.path.join`` for an error message (at most 60 characters)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "(...)")
    return ".".join(reversed(parts))[:60]


def describe(node: ast.AST) -> str:
    """What a refused construct is called in an error message."""
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
