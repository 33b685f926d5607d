"""What compiling a rule may cost, and the error for a rule past it or outside the language.

Every bound here is checked while compiling, before any point is evaluated (docs/security.md lists
them with the bounds of evaluation).
"""

from __future__ import annotations

MAX_SOURCE_CHARS = 4000
MAX_AST_NODES = 600
MAX_DEPTH = 60
MAX_INSTRUCTIONS = 4000
MAX_INT_LITERAL = 10**15
MAX_UNROLL = 32  # values of a display, comprehension, range() iteration or itertools result
MAX_SORTED = 5  # sorted() of at most this many values (its decision tree grows quickly)
MAX_TREE = 4 * MAX_INSTRUCTIONS  # nodes of one value's identity tree


class RuleError(ValueError):
    """The rule text is not a supported, safe ``lambda x, y, z: <expression>``."""
