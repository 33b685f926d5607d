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

The compiler's parts, in the order a rule meets them:
    parse.py       the text to a checked syntax tree (limits.py: every bound, and RuleError)
    lower.py       the tree to values, node by node, with calls.py for calls
    sequences.py   the compile-time lists, tuples, sets and ranges those values may form
    containers.py  membership, equality and ordering of them, identity before equality
    sort.py        sorted() as CPython's own decision tree
    program.py     the bytecode being built: emission, constants and folding, value origins
"""

from __future__ import annotations

import ast

from cogsim.benchmarks.wilt._compile.limits import RuleError
from cogsim.benchmarks.wilt._compile.lower import Lowering
from cogsim.benchmarks.wilt._compile.parse import operator_count, parse_lambda, strip_code
from cogsim.benchmarks.wilt._compile.program import PYTHON312, Bytecode, constant_arrays
from cogsim.benchmarks.wilt._compile.sequences import Seq, flat, truthy

__all__ = [
    "PYTHON312",
    "Bytecode",
    "RuleError",
    "compile_bytecode",
    "constant_arrays",
    "operator_count",
    "parse_lambda",
    "strip_code",
]


def compile_bytecode(src: str) -> tuple[Bytecode, ast.Lambda, list[str], str]:
    """The rule's bytecode, its lambda's syntax tree, argument names and the text compiled (code
    fences stripped). Raises RuleError naming what is not allowed."""
    body, names, text = parse_lambda(src)
    lowering = Lowering(names)
    program = lowering.program
    try:
        result = lowering.value(body.body, dict(lowering.env), 0)
    except RecursionError:
        raise RuleError("rule is nested too deeply to compile") from None
    if isinstance(result, Seq):  # the rule returns a list/tuple/set: truthy when not empty
        result = program.sequence(flat(result.evaluated), program.constant(truthy(result)))
    return program.finish(result), body, names, text
