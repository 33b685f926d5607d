"""Scripted maze agents: the oracle (full map), the explorer (perfect memory of what it has seen,
no map knowledge), the forgetful explorer (short memory; shows the Memory Gap) and random. Each maps the current situation to an action code."""

from __future__ import annotations

import numpy as np

from cogsim.maze._maze import Sight, shortest_actions

POLICIES = ("oracle", "explorer", "forgetful", "random")
FORGETFUL_SPAN = 8  # looks a forgetful explorer remembers


def oracle_action(walls: np.ndarray, row: int, col: int, heading: int, goal) -> int:
    """First action of a shortest action sequence on the true map."""
    return shortest_actions(walls, row, col, heading, goal)[0]


def explorer_action(walls: np.ndarray, sight: Sight, row: int, col: int, heading: int, goal) -> int:
    """Plans on what it has seen, assuming every unseen side is open, and replans every step. It
    only moves through sides it has seen open (the side ahead is always in sight), so it never
    collides; every failed plan reveals a wall, so it always reaches the goal eventually."""
    return shortest_actions(sight.belief_walls(walls), row, col, heading, goal)[0]


def forgetful_action(walls: np.ndarray, sight: Sight, row: int, col: int, heading: int, goal, memory_map: bool) -> int:
    """The explorer remembering only its last FORGETFUL_SPAN looks, unless the memory map (the
    oracle condition) gives it everything it has seen."""
    span = None if memory_map else FORGETFUL_SPAN
    return shortest_actions(sight.belief_walls(walls, span), row, col, heading, goal)[0]


def random_action(rng: np.random.Generator) -> int:
    return int(rng.integers(3))
