"""WILT (Wason Inductive Logic Test): safe rule compiler, batched rule VM, equivalence checks."""

from cogsim.wilt._compile import RuleError
from cogsim.wilt._rule import Rule, compile_rule, evaluate_many

__all__ = ["Rule", "RuleError", "compile_rule", "evaluate_many"]
