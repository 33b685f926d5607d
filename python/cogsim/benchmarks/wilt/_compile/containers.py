"""What CPython does with a rule's lists, tuples and sets, unrolled into scalar code: membership
(``in``), equality and ordering of sequences, set comparisons and len() of a set. Containers compare
items by identity before equality (``a is b or a == b``), so a NaN is found in a list that holds
that very NaN object; which object a value is follows its origin (program.py) through float(),
unary +, min/max, conditionals and sorted().
"""

from __future__ import annotations

from typing import Optional

from cogsim.benchmarks.wilt._bytecode import Op
from cogsim.benchmarks.wilt._compile.limits import MAX_TREE, RuleError
from cogsim.benchmarks.wilt._compile.program import Program
from cogsim.benchmarks.wilt._compile.sequences import Range, Seq, flat


class Containers:
    """Container operations, emitted into one program."""

    def __init__(self, program: Program):
        self.program = program

    def contains(self, container, item) -> int:
        """``item in container``: any element that is the item or equals it."""
        evaluated = flat(container.evaluated if isinstance(container, Seq) else [container])
        evaluated += flat(item.evaluated if isinstance(item, Seq) else [item])
        if not isinstance(container, Seq):
            return self.program.raising(evaluated)  # TypeError: argument is not iterable
        if container.kind == "set" and isinstance(item, Seq):
            return (
                self.program.raising(evaluated)
                if item.kind == "list"
                else self.program.sequence(evaluated, self.program.constant(False))
            )
        if not container.items:
            return self.program.sequence(evaluated, self.program.constant(False))
        found = self.program.fold_right(Op.OR, [self.same(element, item) for element in container.items])
        return self.program.sequence(evaluated, found)

    def range_contains(self, bounds: Range, item) -> int:
        """``item in range(...)``: an int or float equal to one of its integers (CPython compares
        a float with each element; an int is checked arithmetically: the same answer)."""
        program = self.program
        if isinstance(item, Seq):
            return program.sequence(flat(item.evaluated), program.constant(False))
        if not range(bounds.start, bounds.stop, bounds.step):
            return program.sequence([item], program.constant(False))
        start, stop, step = (program.known_value(v) for v in (bounds.start, bounds.stop, bounds.step))
        number = program.emit(Op.IS_INSTANCE, item, 3)
        integral = program.emit(Op.EQ, program.emit(Op.MOD, item, program.constant(1)), program.constant(0))
        if bounds.step > 0:
            inside = program.emit(Op.AND, program.emit(Op.LE, start, item), program.emit(Op.LT, item, stop))
        else:
            inside = program.emit(Op.AND, program.emit(Op.GE, start, item), program.emit(Op.GT, item, stop))
        terms = [number, integral, inside]
        if abs(bounds.step) != 1:
            offset = program.emit(Op.SUB, program.emit(Op.TO_INT, item), start)
            terms.append(program.emit(Op.EQ, program.emit(Op.MOD, offset, step), program.constant(0)))
        return program.sequence([item], program.fold_right(Op.AND, terms))

    def sequence_compare(self, op: Op, left, right) -> int:
        """A comparison where a side is a sequence: lexicographic on lists and tuples, subsets on sets."""
        evaluated = flat(left.evaluated if isinstance(left, Seq) else [left])
        evaluated += flat(right.evaluated if isinstance(right, Seq) else [right])
        both = isinstance(left, Seq) and isinstance(right, Seq)
        # two iterators are two objects: == is identity (False), ordering raises
        if not both or left.kind != right.kind or left.kind == "iter":
            if op in (Op.EQ, Op.NE):
                return self.program.sequence(evaluated, self.program.constant(op == Op.NE))
            return self.program.raising(evaluated)  # TypeError: '<' not supported between list and tuple
        if left.kind == "set":
            return self.program.sequence(evaluated, self.set_compare(op, left.items, right.items))
        a, b = left.items, right.items
        if op in (Op.EQ, Op.NE):
            if len(a) != len(b):
                return self.program.sequence(evaluated, self.program.constant(op == Op.NE))
            if not a:
                return self.program.sequence(evaluated, self.program.constant(op == Op.EQ))
            equal = self.program.fold_right(Op.AND, [self.same(p, q) for p, q in zip(a, b)])
            return self.program.sequence(evaluated, equal if op == Op.EQ else self.program.emit(Op.NOT, equal))
        lengths = {Op.LT: len(a) < len(b), Op.LE: len(a) <= len(b), Op.GT: len(a) > len(b), Op.GE: len(a) >= len(b)}
        result = self.program.constant(lengths[op])
        for p, q in reversed(list(zip(a, b))):
            if isinstance(p, Seq) or isinstance(q, Seq):
                differ = self.sequence_compare(op, p, q)
            else:
                differ = self.program.emit(op, p, q)
            result = self.program.emit(Op.SELECT, self.same(p, q), result, differ)
        return self.program.sequence(evaluated, result)

    def set_compare(self, op: Op, a: list[int], b: list[int]) -> int:
        """== != <= >= < > of two set displays: equality and subset relations."""

        def subset(p, q):
            if not p:
                return self.program.constant(True)
            return self.program.fold_right(Op.AND, [self.contains(Seq("set", q, []), v) for v in p])

        if op in (Op.EQ, Op.NE):
            equal = self.program.emit(Op.AND, subset(a, b), subset(b, a))
            return equal if op == Op.EQ else self.program.emit(Op.NOT, equal)
        if op in (Op.LE, Op.GE):
            return subset(a, b) if op == Op.LE else subset(b, a)
        small, large = (a, b) if op == Op.LT else (b, a)
        return self.program.emit(Op.AND, subset(small, large), self.program.emit(Op.NOT, subset(large, small)))

    def set_size(self, items: list[int]) -> int:
        """len() of a set display: the items not found (identity or ==) among those before them."""
        if not items:
            return self.program.constant(0)
        news = [self.program.constant(True)]
        for k in range(1, len(items)):
            found = self.program.fold_right(Op.OR, [self.same(items[j], items[k]) for j in range(k)])
            news.append(self.program.emit(Op.NOT, found))
        return self.program.sum_of(news)

    def same(self, a, b) -> int:
        """``a is b or a == b``, as containers compare items (no errors: numbers compare without raising)."""
        if isinstance(a, Seq) or isinstance(b, Seq):
            return self.sequence_compare(Op.EQ, a, b)
        ta, tb = self.tree(a), self.tree(b)
        if ta[0] == "select" and tb[0] == "select":  # two choices: a == b, or both chose one object
            identical = [
                self.program.emit(Op.AND, self._chooses(ta, leaf, {}), self._chooses(tb, leaf, {}))
                for leaf in sorted(_leaves(ta) & _leaves(tb))
            ]
            # a shared object that is not an argument may reach one side through float(): one object
            # only if it is a float, and then only NaN needs identity (x != x)
            identical = [
                term
                if leaf in self.program.args
                else self.program.emit(Op.AND, term, self.program.emit(Op.NE, leaf, leaf))
                for term, leaf in zip(identical, sorted(_leaves(ta) & _leaves(tb)))
            ]
            return self.program.sequence(
                [a, b], self.program.fold_right(Op.OR, identical + [self.program.emit(Op.EQ, a, b)])
            )
        return self.program.sequence([a, b], self._same_tree(ta, tb))

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
        origin = self.program.origin.get(value)
        if origin is None:
            return ("leaf", value, value)
        if origin[0] == "alias":
            return _remap(self.tree(origin[1], budget), value)
        if origin[0] == "same":
            return self.tree(origin[1], budget)
        if origin[0] == "minmax":
            _, op, new, old = origin
            test = self.program.emit(op, new, old)
            self.program.origin[value] = origin = ("select", test, new, old)
        return ("select", origin[1], self.tree(origin[2], budget), self.tree(origin[3], budget))

    def _chooses(self, tree, leaf: int, memo: dict) -> int:
        """Whether the choice tree picks the object of value ``leaf``."""
        if tree[0] == "leaf":
            return self.program.constant(tree[1] == leaf)
        key = id(tree)
        if key not in memo:
            memo[key] = self.program.emit(
                Op.SELECT, tree[1], self._chooses(tree[2], leaf, memo), self._chooses(tree[3], leaf, memo)
            )
        return memo[key]

    def _same_tree(self, ta, tb) -> int:
        """Identity or equality of two choice trees, choice by choice."""
        if ta[0] == "select":
            return self.program.emit(Op.SELECT, ta[1], self._same_tree(ta[2], tb), self._same_tree(ta[3], tb))
        if tb[0] == "select":
            return self.program.emit(Op.SELECT, tb[1], self._same_tree(ta, tb[2]), self._same_tree(ta, tb[3]))
        (_, ka, va), (_, kb, vb) = ta, tb
        if ka == kb:
            if va == vb or ka in self.program.args:  # one object (the arguments are floats)
                return self.program.constant(True)
            return self.program.emit(Op.OR, self.program.emit(Op.EQ, va, vb), self.program.emit(Op.NE, ka, ka))
        return self.program.emit(Op.EQ, va, vb)


def _remap(tree, value: int):
    if tree[0] == "leaf":
        return ("leaf", tree[1], value)
    return ("select", tree[1], _remap(tree[2], value), _remap(tree[3], value))


def _leaves(tree) -> set[int]:
    if tree[0] == "leaf":
        return {tree[1]}
    return _leaves(tree[2]) | _leaves(tree[3])
