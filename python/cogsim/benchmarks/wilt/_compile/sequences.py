"""Lists, tuples, sets and ranges as they exist in a rule: only at compile time. A display of k values
is k scalar values of the program; what a rule does with it is unrolled into scalar code.
"""

from __future__ import annotations

from dataclasses import dataclass

from cogsim.benchmarks.wilt._compile.limits import RuleError


@dataclass
class Seq:
    """A list, tuple or set display known at compile time: its items are values (or nested Seq);
    ``evaluated`` are the values whose errors count wherever the sequence is used."""

    kind: str  # "list", "tuple", "set" or "iter" (an itertools iterator: iterable, nothing else)
    items: list
    evaluated: list


@dataclass
class Range:
    """range(start, stop, step) with constant integer arguments: for 'in', len() and iteration."""

    start: int
    stop: int
    step: int


def truthy(seq: Seq) -> bool:
    return seq.kind == "iter" or bool(seq.items)


def flat(items) -> list[int]:
    out = []
    for item in items:
        out.extend(flat(item.items) if isinstance(item, Seq) else [item])
    return out


def scalars(seq: Seq, where: str) -> list[int]:
    """The items of a sequence that holds no sequences (``where`` names the use in the error)."""
    if any(isinstance(i, Seq) for i in seq.items):
        raise RuleError(f"{where} of nested lists or tuples is not supported")
    return list(seq.items)
