"""KidGym: grid tasks modelled on children's intelligence tests (Execution, Memory, Learning,
Planning, Perception Reasoning), with high-level lettered actions.

The C++ core (``cogsim._core``) owns the grid state, generators, transitions, action enumeration and
the fewest-steps oracle; this package owns names, texts, prompts, the answer decoder and scenes.
Play through ``cogsim.make("kidgym/<task>", level=1..3)``. Two engines: the release's mechanics
(the default; ``game``, ``scene``, ``look``: BoBo-Ye/KidGym's scenes, maze
layouts, action lists and pictures) and cogsim's own (``mechanics="cogsim"``; this module's
:func:`generate` and :func:`simulate`, ``cogsim_scene``, ``cogsim_look``). ``game.simulate`` plays whole
release episodes in the core.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from cogsim import _core
from cogsim.benchmarks.kidgym import cogsim_catalog
from cogsim.benchmarks.kidgym.parser import decode_answer, format_options, letter_list
from cogsim.benchmarks.kidgym.tasks import CAPABILITIES, PAPER_TASKS, TASKS, TaskSpec, action_text, goal_text

LEVELS = (1, 2, 3)

__all__ = [
    "CAPABILITIES",
    "LEVELS",
    "PAPER_TASKS",
    "TASKS",
    "TaskSpec",
    "action_text",
    "cogsim_catalog",
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
    fewest, most = _core.kidgym_budget_range(task(name).core_id, _check_level(level))
    return int(fewest), int(most)


def _seeds(seeds: Sequence[int]) -> list[int]:
    out = [int(s) for s in seeds]
    if any(s < 0 or s >= 2**64 for s in out):
        raise ValueError("seeds must be integers in 0 .. 2**64 - 1")
    return out


def generate(
    name: str,
    level: int,
    seeds: Sequence[int],
    max_steps: int = 0,
    options=cogsim_catalog.CatalogOptions(),
    threads: int = 0,
):
    """Core states of episodes ``seeds`` (batched, GIL released). max_steps 0: the paper's budget."""
    spec = task(name)
    return _core.kidgym_generate(
        spec.core_id, _check_level(level), _seeds(seeds), cogsim_catalog.core_catalog(options), max_steps, threads
    )


def simulate(
    name: str,
    level: int,
    seeds: Sequence[int],
    policy: str = "random",
    policy_seed: int = 0,
    max_steps: int = 0,
    options=cogsim_catalog.CatalogOptions(),
    threads: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Play whole episodes in the core with "oracle" or "random"; returns (success, steps) arrays."""
    spec = task(name)
    return _core.kidgym_play(
        spec.core_id,
        _check_level(level),
        _seeds(seeds),
        cogsim_catalog.core_catalog(options),
        policy,
        policy_seed,
        max_steps,
        threads,
    )
