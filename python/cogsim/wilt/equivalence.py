"""Rule equivalence on the standard case set, single and batched, and rules x points matrices."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Sequence, Union

import numpy as np

from cogsim import _core
from cogsim.wilt._rule import Rule, RuleSet, compile_rule, evaluate_many
from cogsim.wilt.cases import CaseSet, standard_cases

RuleLike = Union[str, Rule]
MAX_EXAMPLES = 5
# "Approximately correct": not equivalent, but the True sets overlap with Jaccard index >= 0.9 on
# the case set (right critical behaviour, wrong edge cases). Rules whose True sets are both empty
# on the case set count by overall agreement >= 0.99 instead.
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
        if self.equivalent:
            return False
        if self.jaccard is None:
            return self.agreement >= APPROX_AGREEMENT
        return self.jaccard >= APPROX_JACCARD

    def to_dict(self) -> dict:
        return {
            "equivalent": self.equivalent, "mismatches": self.mismatches, "points": self.points,
            "guess_true": self.guess_true, "hidden_true": self.hidden_true, "both_true": self.both_true,
            "agreement": self.agreement, "relation": self.relation, "inclusion_ratio": self.inclusion_ratio,
            "jaccard": self.jaccard, "approximately_correct": self.approximately_correct,
            "counterexamples": [list(c) for c in self.counterexamples],
        }


@lru_cache(maxsize=512)
def _standard_truth(source: str) -> np.ndarray:
    cases = standard_cases()
    truth = compile_rule(source).evaluate(cases.xs, cases.ys, cases.zs)
    truth.setflags(write=False)
    return truth


def truth_table(rule: RuleLike, cases: Optional[CaseSet] = None) -> np.ndarray:
    """The rule's truth values on the case set (the standard one is cached per rule source)."""
    rule = compile_rule(rule)
    if cases is None:
        return _standard_truth(rule.source)
    return rule.evaluate(cases.xs, cases.ys, cases.zs)


def _from_counts(cases: CaseSet, counts: dict) -> Equivalence:
    return Equivalence(
        equivalent=counts["mismatches"] == 0, mismatches=int(counts["mismatches"]), points=len(cases),
        guess_true=int(counts["true_a"]), hidden_true=int(counts["true_b"]), both_true=int(counts["true_both"]),
        counterexamples=tuple(cases.point(i) for i in counts["first_mismatches"]),
    )


def _from_truth(cases: CaseSet, guess: np.ndarray, hidden: np.ndarray, max_examples: int) -> Equivalence:
    differ = np.flatnonzero(guess != hidden)
    return _from_counts(cases, {
        "mismatches": differ.size, "true_a": int(guess.sum()), "true_b": int(hidden.sum()),
        "true_both": int((guess & hidden).sum()), "first_mismatches": differ[:max_examples].tolist(),
    })


def equivalent(guess: RuleLike, hidden: RuleLike, cases: Optional[CaseSet] = None,
               max_examples: int = MAX_EXAMPLES, threads: int = 1) -> Equivalence:
    """Compares two rules on the case set (default: the standard one). ``guess`` is the candidate,
    ``hidden`` the reference; the hidden rule's truth table on the standard set is cached."""
    guess, hidden = compile_rule(guess), compile_rule(hidden)
    if cases is None:
        cases = standard_cases()
        counts = _core.wilt_compare_truth(guess.program, _standard_truth(hidden.source), cases.xs, cases.ys, cases.zs,
                                          max_examples, threads)
    else:
        counts = _core.wilt_compare(guess.program, hidden.program, cases.xs, cases.ys, cases.zs, max_examples, threads)
    if counts["fallback"]:
        return _from_truth(cases, truth_table(guess, cases), truth_table(hidden, cases), max_examples)
    return _from_counts(cases, counts)


def equivalent_pairs(guesses: Sequence[RuleLike], hidden: Sequence[RuleLike], cases: Optional[CaseSet] = None,
                     threads: int = 0) -> list[Equivalence]:
    """Many (guess, hidden) comparisons in one call, spread over threads."""
    if len(guesses) != len(hidden):
        raise ValueError(f"guesses and hidden must have the same length, got {len(guesses)} and {len(hidden)}")
    cases = cases or standard_cases()
    g = [compile_rule(r) for r in guesses]
    h = [compile_rule(r) for r in hidden]
    rows = _core.wilt_compare_pairs([r.program for r in g], [r.program for r in h], cases.xs, cases.ys, cases.zs,
                                    threads)
    results = []
    for k, (mismatches, true_a, true_b, both, fallback, first) in enumerate(rows.tolist()):
        if fallback:
            results.append(equivalent(g[k], h[k], cases, max_examples=1))
            continue
        results.append(_from_counts(cases, {"mismatches": mismatches, "true_a": true_a, "true_b": true_b,
                                            "true_both": both, "first_mismatches": [first] if first >= 0 else []}))
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
