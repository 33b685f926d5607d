"""RNG-Bench 3D Maze: generation and batched stepping in the core, text views, parsers, agents.

from cogsim.benchmarks.rngbench import maze
m = maze.generate(9, seed=3)           # the released harness's v6 maze for seed 3; L* in its slide moves
m.walls, m.optimal_actions, m.shortest_cells, m.step_budget()
maze.generate(9, 3, generator="cogsim", step="cell")   # the core's spanning tree + round(0.15 (n-1)^2) openings
maze.rules.advance(m.walls, 0, 0, 1, m.goal)         # the cells one move_forward slides through
batch = maze.MazeBatch.from_mazes(maze.generate_batch([9] * 1000, range(1000)))  # core generator, one-cell steps
batch.step(actions)                    # (B,) or (T, B) action codes, in place in the core
"""

from cogsim.benchmarks.rngbench.maze import rules
from cogsim.benchmarks.rngbench.maze.game import (
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
from cogsim.benchmarks.rngbench.maze.parser import ParseError, parse_action, parse_map, traj_match

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
    "rules",
    "shortest_actions",
    "shortest_cells",
    "step_budget",
    "traj_match",
    "visible_sides",
]
