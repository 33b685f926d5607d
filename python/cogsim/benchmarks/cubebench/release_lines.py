"""The two release lines of the authors' harness (github.com/dana-23/cube-bench) that cogsim follows.

NEWEST ("731aff82") is the line of commits cb46fb4 -> fc1a7d5 -> 4073ea3 -> 731aff82, which the
repository's ``main`` (1ca7d58, 2026-05-25) does not reach: it builds on main's last commits (its
prediction test carries main's 2026-05-25 change for depths above 1, its model runner main's OpenAI
and Anthropic support) and adds the golden tests, the generation contracts (``tests/contracts``), the
re-scoring of finished runs (``analysis/rescore.py``), exact-depth scrambles, seeded option sets,
polarity-balanced verification and the invariance sweep as a tested evaluation; its golden seed is
20260826. It is the default of every env. OLDER ("1ca7d58", main) is the named option ``release="1ca7d58"``.
docs/fidelity.md lists what each line does and how the order was established.
"""

from __future__ import annotations

NEWEST = "731aff82"
OLDER = "1ca7d58"
LINES = (NEWEST, OLDER)

# Decoding per test (max new tokens, temperature; top_p 1.0, no sampling), as each line sends it:
# the newest from its generation contracts (tests/contracts/*.json), the older from its tests/*.py.
_NEWEST_DECODING = {
    "reconstruction": {"max_tokens": 65536, "temperature": 0.0},
    "verification": {"max_tokens": 16384, "temperature": 0.0},
    "optimal-move": {"max_tokens": 65536, "temperature": 0.0},
    "reflection": {"max_tokens": 65536, "temperature": 0.0},
    "closed-loop": {"max_tokens": 65536, "temperature": 0.0},
    "move-effect": {"max_tokens": 65536, "temperature": 0.0},
    "recovery": {"max_tokens": 65536, "temperature": 0.0},
    "invariance": {"max_tokens": 64, "temperature": 0.0},
}
_OLDER_DECODING = {
    **_NEWEST_DECODING,
    "reconstruction": {"max_tokens": 65536, "temperature": 0.1},
    "optimal-move": {"max_tokens": 65536, "temperature": 0.1},
}
DECODING = {
    line: {test: {**values, "top_p": 1.0} for test, values in table.items()}
    for line, table in ((NEWEST, _NEWEST_DECODING), (OLDER, _OLDER_DECODING))
}
# The reflection test's middle turn (the reflection itself): the older line sampled it at 0.4.
REFLECTION_TURN_TEMPERATURE = {NEWEST: 0.0, OLDER: 0.4}
