""" "Approximately correct" for WILT guesses: a deterministic proxy and a model judge.

The paper marks a wrong guess approximately correct when a model judge, given the guess and the hidden
rule, puts the pair in a "near" category (release: prompts/judge_prompt.txt, four labels: correct,
missing edge case, near-miss magnitudes, completely different). Two ways to get that figure:

``proxy`` (default, deterministic): on the equivalence point set, the guess is wrong but agrees with the
    hidden rule on at least ``PROXY_AGREEMENT`` of the points and its True set overlaps the hidden one
    with Jaccard index at least ``PROXY_JACCARD`` (both empty counts as overlap). Agreement with the
    labelled examples in tests/benchmarks/wilt/data/wilt_approx_examples.json is measured by a test and stated
    in docs/fidelity.md.
``judge="KIND:MODEL"``: any agent backend of ``cogsim.agents`` (with ``judge_options``) answers a rubric in
    the project's own words; its last category label decides.
"""

from __future__ import annotations

from typing import Any, Optional

from cogsim.files import shown

PROXY_AGREEMENT = 0.9
PROXY_JACCARD = 0.5
CATEGORIES = ("Correct", "Missing Edge Case", "Near-Miss Magnitudes", "Completely Different")
NEAR = ("Missing Edge Case", "Near-Miss Magnitudes")

RUBRIC = (
    "Compare two Python lambda functions of three numbers that return True or False: a hidden rule and a guess "
    "at it. Put the pair in exactly one category:\n"
    "- Correct: they are the same function, even if written differently.\n"
    "- Missing Edge Case: nearly the same, but they differ on some boundary or special case "
    "(for instance x < y < z against x <= y <= z).\n"
    "- Near-Miss Magnitudes: the same kind of condition, but with thresholds or ranges that do not line up "
    "(for instance 0 < x < 5 against -1 < x < 7).\n"
    "- Completely Different: anything else (for instance a rule that is always False against x % 2 == 0).\n\n"
    "Hidden rule: {hidden}\nGuess: {guess}\n\n"
    'Reason briefly first, then end your reply with a line "Category: <one of Correct, Missing Edge Case, '
    'Near-Miss Magnitudes, Completely Different>".'
)


def proxy_approximately_correct(verdict) -> bool:
    """The deterministic proxy on an ``Equivalence``."""
    if verdict.equivalent or verdict.invalid:
        return False
    jaccard = verdict.jaccard
    return verdict.agreement >= PROXY_AGREEMENT and (jaccard is None or jaccard >= PROXY_JACCARD)


def judge_category(text: Optional[str]) -> Optional[str]:
    """The last category label in a judge's reply (case-insensitive), or None. Linear: one rfind per label."""
    if not text:
        return None
    lower = text.lower()
    best, where = None, -1
    for label in CATEGORIES:
        at = lower.rfind(label.lower())
        if at > where:
            best, where = label, at
    return best


class Judge:
    """A model judge built from an agent spec (e.g. "openai:gpt-4o" with base_url=..., api_key=...)."""

    def __init__(self, spec: str, **options: Any):
        from cogsim.agents import make_agent

        agent = make_agent(spec, **options)
        if not hasattr(agent, "complete"):
            raise ValueError(f"judge must be a model backend spec such as 'openai:MODEL', got {shown(spec)}")
        self.spec = spec
        self.backend = agent

    def judge(self, guess: str, hidden: str) -> dict:
        from cogsim.agents import Message

        prompt = RUBRIC.format(hidden=hidden, guess=guess)
        completion = self.backend.complete([[Message("user", prompt)]])[0]
        category = judge_category(completion.text)
        return {
            "method": f"judge:{self.spec}",
            "category": category,
            "approx_correct": category in NEAR,
            "error": completion.error,
            "reply": completion.text,
        }
