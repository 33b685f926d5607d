"""Text that states protocol facts stays true to them: the KidGym env's budget summary is the
release's registered budgets, and docs/fidelity.md says what the WILT compiler does with rule 46."""

import json
import re
from pathlib import Path

from cogsim.benchmarks import wilt
from cogsim.benchmarks.kidgym import env as kidgym_env

ROOT = Path(__file__).resolve().parents[2]
BUDGETS = json.loads((Path(__file__).parent / "kidgym" / "data" / "kidgym_budgets.json").read_text())


def _stated_budgets(text: str) -> dict:
    """code -> (b1, b2, b3) from "CL 4/8/12, ..., FI, PU 1/2/3, PL 1, ..." (one number: every level)."""
    summary = re.search(r"registered tasks: (.*?)\)", text, re.S).group(1)
    stated = {}
    for codes, numbers in re.findall(r"((?:[A-Z]+,\s*)*[A-Z]+) (\d+(?:/\d+)*)", " ".join(summary.split())):
        levels = tuple(int(n) for n in numbers.split("/"))
        for code in re.split(r",\s*", codes):
            stated[code] = levels * 3 if len(levels) == 1 else levels
    return stated


def test_kidgym_env_docstring_states_the_releases_registered_budgets():
    stated = _stated_budgets(kidgym_env.__doc__)
    release = {code: tuple(BUDGETS["budgets"][name]) for code, name in BUDGETS["families"].items()}
    assert stated == release
    assert "release's registered budget" in kidgym_env.KidGymEnv.__doc__


def test_fidelity_doc_says_rule_46_compiles_as_the_release_writes_it():
    rule_46 = wilt.FULL_SPLIT[45]
    assert "for a, b in" in rule_46
    wilt.compile_rule(rule_46)  # accepted as it stands
    doc = (ROOT / "docs" / "fidelity.md").read_text()
    row = next(line for line in doc.splitlines() if line.startswith("| full split |"))
    assert "rule 46's `for a, b in [(x, y), ...]` compiles as it stands" in row
    about_46 = [line for line in doc.splitlines() if re.search(r"\brule[- ]46\b|\b46's", line)]
    assert about_46 and not any(re.search(r"refuse|reject|cannot|does not compile", line) for line in about_46)
