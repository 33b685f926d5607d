"""The final guess's verdict as the released harness reaches it, and cogsim's other readings.

The release (RiotGames/WILT ``calculate_rule_correctness_points``) checks the guess point by point,
in the order of its point set, with ``rule(*p) == guess(*p)`` inside ``all(...)``, the whole call
inside a ``try``. Two consequences that ``cogsim.benchmarks.wilt.equivalent`` (truth values over all points)
does not have:

- ``raises="release"`` (default): the check stops at the first point where the guess differs, so a
  guess that raises only at later points is simply wrong ("Sorry ... SCORE: 0"); it is invalid
  ("Invalid lambda function.") only when it raises before its first mismatch. ``raises="invalid"``:
  invalid whenever it raises anywhere (cogsim's earlier reading); ``raises="false"``: raising points
  read as False.
- ``compare="equals"`` (default): the guess's value is compared with ``==`` to the rule's bool, so
  ``1.0`` matches True and ``2`` matches neither True nor False. ``compare="truthiness"``: the
  guess's truth value (cogsim's earlier reading, where ``2`` matches True).

A guess whose value is a bool by construction (a comparison, ``not``, ``and``/``or``/``if`` of such)
reads the same either way and takes the VM's fast path; only a guess that can return another value
is evaluated by the reference interpreter for its values. In the counts of the returned
``Equivalence`` a raising point reads as False; ``invalid`` and ``equivalent`` follow the reading.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

import numpy as np

from cogsim.benchmarks.wilt import _interp
from cogsim.benchmarks.wilt._bytecode import BOOL, Op
from cogsim.benchmarks.wilt._rule import Rule, _bounded, compile_rule
from cogsim.benchmarks.wilt.cases import CaseSet, cases_for
from cogsim.benchmarks.wilt.equivalence import (
    MAX_EXAMPLES,
    RAISE_MODES,
    Equivalence,
    RuleLike,
    equivalent,
    evaluate_status,
    truth_table,
)

RAISES = ("release",) + RAISE_MODES
COMPARES = ("equals", "truthiness")

_BOOL_OPS = frozenset(
    {Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.NOT, Op.TRUTH, Op.ISCLOSE, Op.IS_INTEGER, Op.IS_INSTANCE}
)


def check(equivalence: str, raises: str, compare: str) -> None:
    from cogsim.benchmarks.wilt.equivalence import EQUIVALENCE_MODES

    for name, value, allowed in (
        ("equivalence", equivalence, EQUIVALENCE_MODES),
        ("raises", raises, RAISES),
        ("compare", compare, COMPARES),
    ):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


def returns_bool(rule: Rule) -> bool:
    """True when every value the rule can return is a bool (its last instruction, through
    ``and``/``or``/``if`` and sequencing, is a comparison, ``not``, ``bool()``, a test or a bool constant)."""
    bytecode = rule._bytecode
    code, constants, fixed = bytecode.code.tolist(), bytecode.constants, dict(bytecode.overrides)
    calls = {index for index, _, _ in bytecode.calls}

    @lru_cache(maxsize=None)
    def is_bool(index: int) -> bool:
        if index in fixed:
            return type(fixed[index]) is bool
        if index in calls:
            return False
        op, a, b, c, _ = code[index]
        op = Op(op)
        if op in _BOOL_OPS:
            return True
        if op == Op.CONST:
            return _constant_tag(constants[a]) == BOOL
        if op in (Op.AND, Op.OR):
            return is_bool(a) and is_bool(b)
        if op == Op.SELECT:
            return is_bool(b) and is_bool(c)
        if op == Op.SEQ:
            return is_bool(b)
        return False

    return is_bool(len(code) - 1)


def _constant_tag(value) -> int:
    from cogsim.benchmarks.wilt._compile import constant_arrays

    return constant_arrays([value])[0][0]


def final_verdict(
    guess: RuleLike,
    hidden: RuleLike,
    cases: Optional[CaseSet] = None,
    equivalence: str = "release",
    raises: str = "release",
    compare: str = "equals",
    max_examples: int = MAX_EXAMPLES,
) -> Equivalence:
    """The verdict on ``guess`` against ``hidden`` under the chosen readings (defaults: the release's).
    Raises ``RuleError`` where an evaluation exceeds the integer bounds, as ``equivalent`` does."""
    check(equivalence, raises, compare)
    guess, hidden = compile_rule(guess), compile_rule(hidden)
    cases = cases_for(equivalence) if cases is None else cases
    by_value = compare == "equals" and not returns_bool(guess)
    if not by_value:
        base_raises = "invalid" if raises == "release" else raises
        verdict = equivalent(guess, hidden, cases, max_examples, equivalence=equivalence, raises=base_raises)
        if raises != "release" or not verdict.raised:
            return verdict  # nothing raised: the order of the checks cannot matter
    reference = truth_table(hidden, cases)
    if by_value:
        matches, guess_true, raised = _value_matches(guess, reference, cases)
    else:
        truth, raised_or_none = evaluate_status(guess, cases)
        raised = np.zeros(len(cases), dtype=bool) if raised_or_none is None else raised_or_none
        guess_true = truth & ~raised
        matches = (truth == reference) & ~raised
    return _verdict(cases, matches, guess_true, reference, raised, raises, max_examples)


def _value_matches(guess: Rule, reference: np.ndarray, cases: CaseSet) -> tuple[np.ndarray, ...]:
    """(value == rule's bool, value == True, raised) per point, from the guess's CPython values."""
    bc = guess._bytecode
    values = _bounded(
        _interp.run_many_values, bc.code, bc.aux, bc.constants, cases.xs, cases.ys, cases.zs, bc.overrides, bc.calls
    )
    raised = np.fromiter((v is _interp.RAISED for v in values), dtype=bool, count=len(values))
    equal_true = np.fromiter((v is not _interp.RAISED and bool(v == True) for v in values), dtype=bool)  # noqa: E712
    equal_false = np.fromiter((v is not _interp.RAISED and bool(v == False) for v in values), dtype=bool)  # noqa: E712
    matches = np.where(reference, equal_true, equal_false)
    return matches, equal_true, raised


def _verdict(
    cases: CaseSet,
    matches: np.ndarray,
    guess_true: np.ndarray,
    reference: np.ndarray,
    raised: np.ndarray,
    raises: str,
    max_examples: int,
) -> Equivalence:
    """``matches``: the guess agrees with the rule at the point (never where it raised)."""
    as_false = matches | (raised & ~reference)  # the counts read a raising point as False
    differ = np.flatnonzero(~as_false if raises == "false" else ~matches & ~raised)
    raised_at = np.flatnonzero(raised) if raises != "false" else np.flatnonzero(raised[:0])
    if raises == "release":  # the first failing point decides: a raise there is invalid, a mismatch wrong
        invalid = raised_at.size > 0 and (differ.size == 0 or raised_at[0] < differ[0])
    else:
        invalid = raised_at.size > 0
    examples = (raised_at if invalid else differ)[:max_examples].tolist()
    return Equivalence(
        equivalent=bool(differ.size == 0 and raised_at.size == 0),
        mismatches=int(np.count_nonzero(~as_false)),
        points=len(cases),
        guess_true=int(np.count_nonzero(guess_true)),
        hidden_true=int(np.count_nonzero(reference)),
        both_true=int(np.count_nonzero(guess_true & reference)),
        counterexamples=tuple(cases.point(i) for i in examples),
        raised=int(raised_at.size),
        invalid=bool(invalid),
    )
