"""Rule equivalence, single and batched, and rules x points matrices.

Two named modes (keyword ``equivalence``):
  "release" (default): the released harness's point set (``cases.release_cases``): a guess is
      equivalent when it gives the hidden rule's truth value at every point.
  "strict": cogsim's own set (``cases.standard_cases``) with float-rounding traps (0.1 + 0.2 style
      sums, negative zero, ...): separates guesses the release (and the paper) call equivalent,
      e.g. ``x - y == z`` and ``y + z == x``.
And how a guess that raises at some point is read (keyword ``raises``):
  "invalid" (default, the release): the guess is invalid, hence wrong (the release evaluates the
      guess in a ``try`` and answers "Invalid lambda function." with 0 points);
  "false": a raising point counts as False (cogsim's earlier reading), so ``x / 0 > 1`` matches
      ``False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Optional, Sequence, Union

import numpy as np

from cogsim import _core
from cogsim.benchmarks.wilt import _interp
from cogsim.benchmarks.wilt._rule import NEEDS_FALLBACK, Rule, RuleSet, _bounded, compile_rule, evaluate_many
from cogsim.benchmarks.wilt.cases import CaseSet, cases_for

EQUIVALENCE_MODES = ("release", "strict")
RAISE_MODES = ("invalid", "false")
RAISED = 1  # the VM's status code for a point where CPython raises

RuleLike = Union[str, Rule]
MAX_EXAMPLES = 5
# cogsim's earlier "approximately correct" (Equivalence.jaccard_approximately_correct): not equivalent,
# True sets overlapping with Jaccard >= 0.9 (both empty: agreement >= 0.99). The default is the proxy
# of cogsim.benchmarks.wilt.judge.
APPROX_JACCARD = 0.9
APPROX_AGREEMENT = 0.99


@dataclass(frozen=True)
class Equivalence:
    equivalent: bool
    mismatches: int
    points: int
    guess_true: int
    hidden_true: int
    both_true: int
    counterexamples: tuple = field(default_factory=tuple)
    raised: int = 0  # points where the guess raises
    invalid: bool = False  # raised somewhere and raises="invalid": wrong whatever the truth values

    @property
    def valid(self) -> bool:
        return not self.invalid

    @property
    def counterexample(self) -> Optional[tuple[float, float, float]]:
        return self.counterexamples[0] if self.counterexamples else None

    @property
    def agreement(self) -> float:
        return 1.0 - self.mismatches / self.points if self.points else 1.0

    @property
    def relation(self) -> str:
        """'equal', 'subset' (guess's True set inside hidden's), 'superset', or 'overlap'."""
        if self.equivalent:
            return "equal"
        if self.both_true == self.guess_true:
            return "subset"
        if self.both_true == self.hidden_true:
            return "superset"
        return "overlap"

    @property
    def inclusion_ratio(self) -> Optional[float]:
        """|guess True| / |hidden True| when one set contains the other (the paper's set-inclusion
        measure); None when neither contains the other or hidden's True set is empty."""
        if self.relation == "overlap" or self.hidden_true == 0:
            return 1.0 if self.guess_true == self.hidden_true == 0 else None
        return self.guess_true / self.hidden_true

    @property
    def jaccard(self) -> Optional[float]:
        union = self.guess_true + self.hidden_true - self.both_true
        return self.both_true / union if union else None

    @property
    def approximately_correct(self) -> bool:
        """The deterministic proxy of the paper's judge (``cogsim.benchmarks.wilt.judge``): wrong, but agreeing on
        >= 90% of the points with True sets overlapping at Jaccard >= 0.5."""
        from cogsim.benchmarks.wilt.judge import proxy_approximately_correct

        return proxy_approximately_correct(self)

    @property
    def jaccard_approximately_correct(self) -> bool:
        """cogsim's earlier reading: Jaccard of the True sets >= 0.9 (agreement >= 0.99 when both are empty)."""
        if self.equivalent or self.invalid:
            return False
        if self.jaccard is None:
            return self.agreement >= APPROX_AGREEMENT
        return self.jaccard >= APPROX_JACCARD

    def to_dict(self) -> dict:
        return {
            "equivalent": self.equivalent,
            "mismatches": self.mismatches,
            "points": self.points,
            "guess_true": self.guess_true,
            "hidden_true": self.hidden_true,
            "both_true": self.both_true,
            "agreement": self.agreement,
            "relation": self.relation,
            "inclusion_ratio": self.inclusion_ratio,
            "jaccard": self.jaccard,
            "approximately_correct": self.approximately_correct,
            "jaccard_approximately_correct": self.jaccard_approximately_correct,
            "counterexamples": [list(c) for c in self.counterexamples],
            "raised": self.raised,
            "invalid": self.invalid,
        }


_FIELDS = tuple(f.name for f in fields(Equivalence))


def _equivalence(*values) -> Equivalence:
    """Equivalence(*values), every field given, without the frozen dataclass's one __setattr__ per field:
    a check takes a few microseconds in all, and that constructor was a fifth of them."""
    made = object.__new__(Equivalence)
    made.__dict__.update(zip(_FIELDS, values))
    return made


def _check_modes(equivalence: str, raises: str) -> None:
    if equivalence not in EQUIVALENCE_MODES:
        raise ValueError(f"equivalence must be one of {EQUIVALENCE_MODES}, got {equivalence!r}")
    if raises not in RAISE_MODES:
        raise ValueError(f"raises must be one of {RAISE_MODES}, got {raises!r}")


def _run_fallback(rule: Rule, xs, ys, zs) -> tuple[np.ndarray, np.ndarray]:
    """Truth values and raised flags from the Python reference interpreter (the VM's fallback),
    bounded like every evaluation (RuleError past the integer budget)."""
    bc = rule._bytecode
    truth, raised = _bounded(_interp.run_many_status, bc.code, bc.aux, bc.constants, xs, ys, zs, bc.overrides, bc.calls)
    return np.array(truth, dtype=bool), np.array(raised, dtype=bool)


def evaluate_status(rule: RuleLike, cases: CaseSet, threads: int = 1) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """(truth, raised) of a rule on a case set: truth is False where the rule raises; raised is None
    when the rule raised nowhere."""
    rule = compile_rule(rule)
    truth, status = _core.wilt_evaluate(rule.program, cases.xs, cases.ys, cases.zs, threads)
    truth = np.asarray(truth, dtype=bool)
    status = np.asarray(status)
    if not status.any():  # the common case: every point evaluated in the VM, none raised
        return truth, None
    raised = status == RAISED
    pending = np.flatnonzero(status == NEEDS_FALLBACK)
    if pending.size:
        t, r = _run_fallback(rule, cases.xs[pending], cases.ys[pending], cases.zs[pending])
        truth[pending], raised[pending] = t, r
    return truth, raised


@lru_cache(maxsize=1024)
def _cached_truth(source: str, equivalence: str) -> np.ndarray:
    cases = cases_for(equivalence)
    truth = compile_rule(source).evaluate(cases.xs, cases.ys, cases.zs)
    truth.setflags(write=False)
    return truth


@lru_cache(maxsize=1024)
def _cached_reference(source: str, equivalence: str) -> _core.WiltReference:
    """The hidden rule's cached truth packed in the core for checks against it."""
    return _core.WiltReference(cases_for(equivalence).core, _cached_truth(source, equivalence))


def _standard_truth(source: str) -> np.ndarray:
    return _cached_truth(source, "strict")


def truth_table(rule: RuleLike, cases: Optional[CaseSet] = None, equivalence: str = "release") -> np.ndarray:
    """The rule's truth values on the case set (default: the set of ``equivalence``, cached per rule)."""
    rule = compile_rule(rule)
    if cases is None:
        _check_modes(equivalence, "invalid")
        return _cached_truth(rule.source, equivalence)
    return rule.evaluate(cases.xs, cases.ys, cases.zs)


def _from_counts(cases: CaseSet, counts: dict, raised: int = 0, invalid: bool = False) -> Equivalence:
    return Equivalence(
        equivalent=counts["mismatches"] == 0 and not invalid,
        mismatches=int(counts["mismatches"]),
        points=len(cases),
        guess_true=int(counts["true_a"]),
        hidden_true=int(counts["true_b"]),
        both_true=int(counts["true_both"]),
        counterexamples=tuple(cases.point(i) for i in counts["first_mismatches"]),
        raised=raised,
        invalid=invalid,
    )


_FALLBACK = 4  # wilt_check's tuple: (mismatches, true_a, true_b, true_both, fallback, raised_a, firsts, first raised)


def _from_check(cases: CaseSet, checked: tuple, invalid_if_raised: bool) -> Equivalence:
    """An Equivalence from wilt_check's counts (every point decided): what _checked_for_raises, or
    with raises="false" _from_counts, makes of the same counts."""
    mismatches, guess_true, hidden_true, both_true, _, raised, examples, raised_at = checked
    invalid = invalid_if_raised and raised > 0
    if invalid and not examples:
        examples = raised_at
    return _equivalence(
        mismatches == 0 and not invalid,
        mismatches,
        len(cases.xs),
        guess_true,
        hidden_true,
        both_true,
        tuple(map(cases.point, examples)),
        raised if invalid_if_raised else 0,
        invalid,
    )


def _checked_for_raises(cases: CaseSet, counts: dict) -> Equivalence:
    """The release's reading of a comparison: a guess that raised anywhere is invalid; its
    counterexamples are then where it raised, if it agrees everywhere else."""
    raised = int(counts["raised_a"])
    if raised and not counts["first_mismatches"]:
        counts = {**counts, "first_mismatches": counts["first_raised_a"]}
    return _from_counts(cases, counts, raised=raised, invalid=raised > 0)


def _from_truth(
    cases: CaseSet,
    guess: np.ndarray,
    hidden: np.ndarray,
    max_examples: int,
    raised: Optional[np.ndarray] = None,
    invalid_if_raised: bool = False,
) -> Equivalence:
    differ = np.flatnonzero(guess != hidden)
    n_raised = int(np.count_nonzero(raised)) if raised is not None else 0
    invalid = invalid_if_raised and n_raised > 0
    examples = differ[:max_examples].tolist()
    if invalid and not examples:  # show where it raised
        examples = np.flatnonzero(raised)[:max_examples].tolist()
    return _from_counts(
        cases,
        {
            "mismatches": differ.size,
            "true_a": np.count_nonzero(guess),
            "true_b": np.count_nonzero(hidden),
            "true_both": np.count_nonzero(guess & hidden),
            "first_mismatches": examples,
        },
        raised=n_raised,
        invalid=invalid,
    )


def equivalent(
    guess: RuleLike,
    hidden: RuleLike,
    cases: Optional[CaseSet] = None,
    max_examples: int = MAX_EXAMPLES,
    threads: int = 1,
    equivalence: str = "release",
    raises: str = "invalid",
) -> Equivalence:
    """Compares two rules. ``guess`` is the candidate, ``hidden`` the reference. ``equivalence`` picks
    the point set when ``cases`` is None ("release": the released harness's points, default;
    "strict": cogsim's float-trap set); ``raises`` says how a guess that raises is read ("invalid":
    wrong, as the release; "false": those points are False). The hidden rule's truth table on a
    named set is cached."""
    _check_modes(equivalence, raises)
    guess, hidden = compile_rule(guess), compile_rule(hidden)
    reference = counts = None
    if cases is None:
        # One pass in the core against the hidden rule's cached truth, its grid part evaluated factored:
        # counts, counterexamples and the points where the guess raised, no per-point arrays in Python.
        cases = cases_for(equivalence)
        checked = _core.wilt_check(guess.program, _cached_reference(hidden.source, equivalence), max_examples, threads)
        if not checked[_FALLBACK]:
            return _from_check(cases, checked, raises == "invalid")
        reference = _cached_truth(hidden.source, equivalence)
    elif raises == "false":
        counts = _core.wilt_compare(guess.program, hidden.program, cases.xs, cases.ys, cases.zs, max_examples, threads)
    if counts is None or counts["fallback"]:  # per-point arrays: CPython decides what the VM could not
        reference = truth_table(hidden, cases) if reference is None else reference
        if raises == "false":
            return _from_truth(cases, truth_table(guess, cases), reference, max_examples)
        truth, raised = evaluate_status(guess, cases, threads)
        return _from_truth(cases, truth, reference, max_examples, raised, invalid_if_raised=True)
    if raises == "invalid":
        return _checked_for_raises(cases, counts)
    return _from_counts(cases, counts)


def equivalent_pairs(
    guesses: Sequence[RuleLike],
    hidden: Sequence[RuleLike],
    cases: Optional[CaseSet] = None,
    threads: int = 0,
    equivalence: str = "release",
    raises: str = "invalid",
) -> list[Equivalence]:
    """Many (guess, hidden) comparisons in one call, spread over threads (same options as ``equivalent``)."""
    _check_modes(equivalence, raises)
    if len(guesses) != len(hidden):
        raise ValueError(f"guesses and hidden must have the same length, got {len(guesses)} and {len(hidden)}")
    cases = cases or cases_for(equivalence)
    g = [compile_rule(r) for r in guesses]
    h = [compile_rule(r) for r in hidden]
    rows = _core.wilt_compare_pairs(
        [r.program for r in g], [r.program for r in h], cases.xs, cases.ys, cases.zs, threads
    )
    raised_any = np.zeros(len(g), dtype=bool)
    if raises == "invalid" and g:
        _, status = _core.wilt_evaluate_many([r.program for r in g], cases.xs, cases.ys, cases.zs, threads)
        status = np.asarray(status)
        raised_any = (status == RAISED).any(axis=1) | (status == NEEDS_FALLBACK).any(axis=1)
    results = []
    for k, (mismatches, true_a, true_b, both, fallback, first) in enumerate(rows.tolist()):
        if fallback or raised_any[k]:
            results.append(equivalent(g[k], h[k], cases, max_examples=1, raises=raises))
            continue
        results.append(
            _from_counts(
                cases,
                {
                    "mismatches": mismatches,
                    "true_a": true_a,
                    "true_b": true_b,
                    "true_both": both,
                    "first_mismatches": [first] if first >= 0 else [],
                },
            )
        )
    return results


def rule_matrix(rules: Union[RuleSet, Sequence[RuleLike]], points, threads: int = 0) -> np.ndarray:
    """Truth matrix of shape (len(rules), len(points)); points is an (N, 3) array or (xs, ys, zs)."""
    points = np.asarray(points, dtype=np.float64)
    if points.ndim == 2 and points.shape[1] == 3:
        xs, ys, zs = points[:, 0], points[:, 1], points[:, 2]
    elif points.ndim == 2 and points.shape[0] == 3:
        xs, ys, zs = points
    elif points.ndim == 1 and points.shape[0] == 3:
        xs, ys, zs = points[0:1], points[1:2], points[2:3]
    else:
        raise ValueError(f"points must have shape (N, 3), got {points.shape}")
    return evaluate_many(rules, xs, ys, zs, threads)
