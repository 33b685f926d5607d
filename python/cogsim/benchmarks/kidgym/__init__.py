"""KidGym: grid tasks modelled on children's intelligence tests (Execution, Memory, Learning,
Planning, Perception Reasoning), with high-level lettered actions.

One game, the release's (BoBo-Ye/KidGym: its scenes, maze layouts, rules and action lists): the C++
core (``cogsim._core``) owns its state, generators, transitions, action lists and the fewest-steps
oracle (``game``); this package owns names, texts, prompts, the answer decoder and scenes. Two
looks draw it: the release's pictures (``look``, the default) and cogsim's own (``cogsim_look``).
Play through ``cogsim.make("kidgym/<task>", level=1..3)``; :func:`generate` and :func:`simulate`
make and play whole episodes in the core, batched.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cogsim import _core
from cogsim.benchmarks.kidgym import catalog, game
from cogsim.benchmarks.kidgym.game import action_text, goal_text
from cogsim.benchmarks.kidgym.parser import decode_answer, format_options, letter_list
from cogsim.benchmarks.kidgym.tasks import CAPABILITIES, PAPER_TASKS, TASKS, TaskSpec

LEVELS = (1, 2, 3)
MAX_STEPS = 60  # the largest step budget an episode may have

__all__ = [
    "CAPABILITIES",
    "LEVELS",
    "PAPER_TASKS",
    "TASKS",
    "TaskSpec",
    "action_text",
    "catalog",
    "budget_range",
    "decode_answer",
    "format_options",
    "generate",
    "goal_text",
    "letter_list",
    "simulate",
    "task",
]


def task(name: str) -> TaskSpec:
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {name!r}") from None


def _check_level(level: int) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
        raise ValueError(f"level must be 1, 2 or 3, got {level!r}")
    return level


def budget_range(name: str, level: int) -> tuple[int, int]:
    """The step budgets (``max_steps``) an episode of the task at the level may have: (fewest, most)."""
    task(name), _check_level(level)
    return 1, MAX_STEPS


def _seeds(seeds: Sequence[int]) -> list[int]:
    out = [int(s) for s in seeds]
    if any(s < 0 or s >= 2**64 for s in out):
        raise ValueError("seeds must be integers in 0 .. 2**64 - 1")
    return out


def _check_actions(actions: str) -> str:
    if actions not in game.ACTIONS:
        raise ValueError(f"actions must be one of {', '.join(game.ACTIONS)}, got {actions!r}")
    return actions


def generate(
    name: str, level: int, seeds: Sequence[int], max_steps: int = 0, actions: str = "release", threads: int = 0
):
    """Core states of episodes ``seeds`` (batched, GIL released). max_steps 0: the release's budget;
    ``actions="executable"`` lists only the actions whose target the agent can reach."""
    return _core.kidgym_generate(
        task(name).core_id,
        _check_level(level),
        _seeds(seeds),
        catalog.core_catalog(),
        max_steps,
        _check_actions(actions) == "executable",
        threads,
    )


def simulate(
    name: str,
    level: int,
    seeds: Sequence[int],
    policy: str = "random",
    policy_seed: int = 0,
    max_steps: int = 0,
    actions: str = "release",
    threads: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Play whole episodes in the core with "oracle" or "random"; returns (success, steps) arrays."""
    return game.simulate(
        task(name), _check_level(level), _seeds(seeds), policy, policy_seed, max_steps, _check_actions(actions), threads
    )
