"""Compiled WILT rules: ``compile_rule(src) -> Rule``, evaluated in the C++ VM over whole batches."""

from __future__ import annotations

from functools import cached_property
from typing import Iterable, Sequence, Union

import numpy as np

from cogsim import _core
from cogsim.benchmarks.wilt import _interp
from cogsim.benchmarks.wilt._compile import PYTHON312, RuleError, compile_bytecode, constant_arrays, operator_count

NEEDS_FALLBACK = 2


class Rule:
    """A safely compiled ``lambda x, y, z: ...``. Arguments are converted to Python floats (float64),
    as the WILT harness passes them; the result is CPython's truth value, False where CPython raises."""

    def __init__(self, source: str):
        bytecode, body, names, text = compile_bytecode(source)
        self.source = text
        self.arg_names = tuple(names)
        self._bytecode = bytecode
        self._body = body
        tags, floats, ints = constant_arrays(bytecode.constants)
        self.program = _core.wilt_program(bytecode.code, list(bytecode.aux), tags, floats, ints, PYTHON312)

    def __repr__(self) -> str:
        return f"Rule({self.source!r})"

    def __call__(self, x: float, y: float, z: float) -> bool:
        return bool(self.evaluate([x], [y], [z])[0])

    def evaluate(self, xs, ys, zs, threads: int = 0) -> np.ndarray:
        """Truth values on many points at once (arrays broadcast against each other). Raises RuleError
        where the rule needs integers beyond the evaluation budget at these points."""
        xs, ys, zs = as_points(xs, ys, zs)
        truth, status = _core.wilt_evaluate(self.program, xs, ys, zs, threads)
        return resolve_fallback(self, truth, status, xs, ys, zs)

    def reference(self, x: float, y: float, z: float) -> bool:
        """The Python reference interpreter at one point (the VM's fallback; slow)."""
        bc = self._bytecode
        return _bounded(
            _interp.run, bc.code, bc.aux, bc.constants, float(x), float(y), float(z), bc.overrides, bc.calls
        )

    @cached_property
    def operator_count(self) -> int:
        return operator_count(self._body)

    @property
    def length(self) -> int:
        return len(self.source)

    @property
    def instructions(self) -> int:
        return int(self._bytecode.code.shape[0])


def compile_rule(src: Union[str, Rule]) -> Rule:
    """Parses and checks ``lambda x, y, z: ...`` text; raises RuleError (a ValueError) naming the
    construct if it is not allowed. Never evaluates the text."""
    if isinstance(src, Rule):
        return src
    return Rule(src)


def as_points(xs, ys, zs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    try:
        arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (xs, ys, zs)))
    except (TypeError, ValueError) as error:
        raise ValueError(f"points: xs, ys, zs must be numbers or arrays of numbers that broadcast ({error})") from None
    return tuple(np.ascontiguousarray(a.reshape(-1)) for a in arrays)  # type: ignore[return-value]


def resolve_fallback(rule: Rule, truth: np.ndarray, status: np.ndarray, xs, ys, zs) -> np.ndarray:
    """Re-evaluates, with the Python reference interpreter, the points the VM handed back."""
    pending = np.flatnonzero(status == NEEDS_FALLBACK)
    if pending.size:
        bc = rule._bytecode
        truth[pending] = _bounded(
            _interp.run_many,
            bc.code,
            bc.aux,
            bc.constants,
            xs[pending],
            ys[pending],
            zs[pending],
            bc.overrides,
            bc.calls,
        )
    return truth


def _bounded(run, *args):
    """The reference interpreter, its budget overrun reported as a RuleError (docs/security.md)."""
    try:
        return run(*args)
    except _interp.LimitExceeded as error:
        raise RuleError(f"rule evaluation stopped: {error}") from None


def compile_all(sources: Iterable[Union[str, Rule]]) -> list[Rule]:
    return [compile_rule(s) for s in sources]


class RuleSet:
    """A fixed list of compiled rules handed to the core once, for repeated matrix evaluations."""

    def __init__(self, rules: Iterable[Union[str, Rule]]):
        self.rules = compile_all(rules)
        self.programs = _core.WiltProgramSet([r.program for r in self.rules])

    def __len__(self) -> int:
        return len(self.rules)


def evaluate_many(rules: Union[RuleSet, Sequence[Union[str, Rule]]], xs, ys, zs, threads: int = 0) -> np.ndarray:
    """The rules x points truth matrix (bool, shape (len(rules), len(points)))."""
    xs, ys, zs = as_points(xs, ys, zs)
    if isinstance(rules, RuleSet):
        compiled = rules.rules
        truth, status = _core.wilt_evaluate_set(rules.programs, xs, ys, zs, threads)
    else:
        compiled = compile_all(rules)
        truth, status = _core.wilt_evaluate_many([r.program for r in compiled], xs, ys, zs, threads)
    for row in np.flatnonzero((status == NEEDS_FALLBACK).any(axis=1)):
        resolve_fallback(compiled[row], truth[row], status[row], xs, ys, zs)
    return truth


__all__ = ["Rule", "RuleError", "RuleSet", "compile_rule", "evaluate_many", "as_points"]
