"""sorted() of a rule's values: the decision tree CPython's own sort walks on that many items, unrolled
into selects, so that every output is the very object CPython's sort would put there and every
comparison it makes is evaluated (and may raise) as it would be.
"""

from __future__ import annotations

from cogsim.benchmarks.wilt._bytecode import Op
from cogsim.benchmarks.wilt._compile.limits import MAX_SORTED, RuleError
from cogsim.benchmarks.wilt._compile.program import Program
from cogsim.benchmarks.wilt._compile.sequences import Seq, flat, scalars


def sorted_values(program: Program, seq: Seq, reverse: bool) -> Seq:
    items = scalars(seq, "sorted()")
    if len(items) > MAX_SORTED:
        raise RuleError(f"sorted() of more than {MAX_SORTED} values is not supported")
    tree = _sort_tree(len(items), reverse)
    tests: dict = {}
    outputs = []
    for position in range(len(items)):
        outputs.append(_sort_output(program, tree, position, items, tests, {}))
    # every comparison on the path taken is in any one output's tree; count them with the list
    return Seq("list", outputs, flat(seq.evaluated) + outputs[:1])


def _sort_output(program: Program, tree, position: int, items: list[int], tests: dict, memo: dict) -> int:
    if tree[0] == "leaf":
        return items[tree[1][position]]
    key = id(tree)
    if key in memo:
        return memo[key]
    _, i, j, if_less, if_not = tree
    if (i, j) not in tests:
        tests[(i, j)] = program.emit(Op.LT, items[i], items[j])
    yes = _sort_output(program, if_less, position, items, tests, memo)
    no = _sort_output(program, if_not, position, items, tests, memo)
    if yes == no:
        result = program.emit(Op.SEQ, tests[(i, j)], yes)  # the comparison still runs (and may raise)
        program.origin[result] = ("select", tests[(i, j)], yes, no)
    else:
        result = program.emit(Op.SELECT, tests[(i, j)], yes, no)
        program.origin[result] = ("select", tests[(i, j)], yes, no)
    memo[key] = result
    return result


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
