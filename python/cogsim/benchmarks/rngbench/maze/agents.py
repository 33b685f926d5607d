"""Scripted maze agents: the oracle (full map), the explorer (perfect memory of what it has seen,
no map knowledge), the forgetful explorer (short memory; shows the Memory Gap) and random. Each maps the current situation to an action code."""

from __future__ import annotations

import numpy as np

from cogsim.benchmarks.rngbench.maze.game import Sight
from cogsim.benchmarks.rngbench.maze.rules import shortest_actions

POLICIES = ("oracle", "explorer", "forgetful", "random")
FORGETFUL_SPAN = 8  # looks a forgetful explorer remembers


def oracle_action(walls: np.ndarray, row: int, col: int, heading: int, goal, step: str = "slide") -> int:
    """First action of a shortest action sequence on the true map (in the walker's move units)."""
    return shortest_actions(walls, row, col, heading, goal, step)[0]


def explorer_action(
    walls: np.ndarray, sight: Sight, row: int, col: int, heading: int, goal, step: str = "slide"
) -> int:
    """Plans on what it has seen, assuming every unseen side is open, and replans every step. It
    only moves through sides it has seen open (the side ahead is always in sight), so it never
    collides; every failed plan reveals a wall, so it always reaches the goal eventually."""
    return shortest_actions(sight.belief_walls(walls), row, col, heading, goal, step)[0]


def forgetful_belief(walls: np.ndarray, sight: Sight, memory_map: bool, minimap_sides=None) -> np.ndarray:
    """What the forgetful explorer believes: its last FORGETFUL_SPAN looks, plus what the minimap
    shows (the release's oracle condition), or everything it has seen with the memory map."""
    return sight.belief_walls(walls, None if memory_map else FORGETFUL_SPAN, minimap_sides)


def forgetful_action(
    walls: np.ndarray,
    sight: Sight,
    row: int,
    col: int,
    heading: int,
    goal,
    memory_map: bool,
    step: str = "slide",
    minimap_sides=None,
) -> int:
    """The explorer remembering only its last FORGETFUL_SPAN looks, helped by an oracle condition:
    the minimap's uncovered sides, or (memory_map) everything it has seen."""
    return shortest_actions(forgetful_belief(walls, sight, memory_map, minimap_sides), row, col, heading, goal, step)[0]


def random_action(rng: np.random.Generator) -> int:
    return int(rng.integers(3))
