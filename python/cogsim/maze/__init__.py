"""RNG-Bench 3D Maze: generation and batched stepping in the core, text views, parsers, agents.

    from cogsim import maze
    m = maze.generate(9, seed=3)           # spanning tree + round(0.15 (n-1)^2) extra openings
    m.walls, m.optimal_actions, m.shortest_cells, m.step_budget()
    batch = maze.MazeBatch.from_mazes(maze.generate_batch([9] * 1000, range(1000)))
    batch.step(actions)                    # (B,) or (T, B) action codes, in place in the core
"""

from cogsim.maze._maze import (
    ACTIONS,
    DEFAULT_LOOP_RATE,
    HEADINGS,
    Maze,
    MazeBatch,
    Sight,
    check_walls,
    extra_openings,
    generate,
    generate_batch,
    reachable_cells,
    shortest_actions,
    shortest_cells,
    step_budget,
    visible_sides,
)
from cogsim.maze.text import ParseError, parse_action, parse_map, traj_match

__all__ = [
    "ACTIONS",
    "DEFAULT_LOOP_RATE",
    "HEADINGS",
    "Maze",
    "MazeBatch",
    "ParseError",
    "Sight",
    "check_walls",
    "extra_openings",
    "generate",
    "generate_batch",
    "parse_action",
    "parse_map",
    "reachable_cells",
    "shortest_actions",
    "shortest_cells",
    "step_budget",
    "traj_match",
    "visible_sides",
]
