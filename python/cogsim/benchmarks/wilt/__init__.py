"""WILT (Wason Inductive Logic Test): safe rule compiler, batched rule VM, equivalence checks,
the paper's rule splits and a procedural rule generator."""

from cogsim.benchmarks.wilt._compile import RuleError
from cogsim.benchmarks.wilt._rule import Rule, RuleSet, compile_rule, evaluate_many
from cogsim.benchmarks.wilt.cases import CaseSet, release_cases, standard_cases
from cogsim.benchmarks.wilt.equivalence import (
    APPROX_JACCARD,
    EQUIVALENCE_MODES,
    RAISE_MODES,
    Equivalence,
    equivalent,
    equivalent_pairs,
    rule_matrix,
    truth_table,
)
from cogsim.benchmarks.wilt.generator import generate_rules, hypothesis_space, procedural_rule
from cogsim.benchmarks.wilt.parser import FinalGuess, ParseFailure, TestCase, parse_response
from cogsim.benchmarks.wilt.splits import (
    FULL_SPLIT,
    FULL_TIERS,
    LITE_SPLIT,
    LITE_TIERS,
    PROTOTYPE_SPLIT,
    PROTOTYPE_TIERS,
    RELEASE_FULL_SOURCES,
    SPLITS,
    TIERS,
)

__all__ = [
    "Rule",
    "RuleError",
    "RuleSet",
    "compile_rule",
    "evaluate_many",
    "CaseSet",
    "release_cases",
    "standard_cases",
    "Equivalence",
    "equivalent",
    "equivalent_pairs",
    "rule_matrix",
    "truth_table",
    "APPROX_JACCARD",
    "FULL_SPLIT",
    "FULL_TIERS",
    "LITE_SPLIT",
    "LITE_TIERS",
    "PROTOTYPE_SPLIT",
    "PROTOTYPE_TIERS",
    "RELEASE_FULL_SOURCES",
    "EQUIVALENCE_MODES",
    "RAISE_MODES",
    "SPLITS",
    "TIERS",
    "generate_rules",
    "hypothesis_space",
    "procedural_rule",
    "parse_response",
    "TestCase",
    "FinalGuess",
    "ParseFailure",
]
