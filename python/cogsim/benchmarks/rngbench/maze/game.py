"""Mazes from the core: generation, shortest paths over the action space, batched walkers, sight.

Cells are (row, col) with row 0 at the north; ``walls`` is an (n, n) uint8 array of wall bits
NORTH=1, EAST=2, SOUTH=4, WEST=8 (the renderer's convention). Headings 0..3 are north, east,
south, west. Actions 0, 1, 2 are move_forward, turn_left, turn_right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from cogsim import _core

NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8
SIDE_BITS = (NORTH, EAST, SOUTH, WEST)
HEADINGS = ("north", "east", "south", "west")
ACTIONS = ("move_forward", "turn_left", "turn_right")
FORWARD, TURN_LEFT, TURN_RIGHT = 0, 1, 2
MOVED, TURNED, COLLIDED, REACHED_GOAL, IGNORED, BAD_ACTION = range(6)
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
START_HEADING = 1  # east
DEFAULT_LOOP_RATE = 0.15
MIN_SIZE, MAX_SIZE = 2, 64


@dataclass(frozen=True)
class Maze:
    """A generated maze: start top-left facing east, goal bottom-right."""

    walls: np.ndarray
    seed: int
    loop_rate: float
    extra_openings: int
    optimal_actions: int  # L*: fewest actions (moves and turns) from the start pose to the goal
    shortest_cells: int  # fewest cell moves from start to goal (turns not counted)
    generator: str = "cogsim"  # "v6" / "v5": the release's generators; "cogsim": the core's
    step: str = "cell"  # the units of optimal_actions: "slide" (the release's move_forward) or "cell"

    @property
    def size(self) -> int:
        return int(self.walls.shape[0])

    @property
    def start(self) -> tuple[int, int]:
        return (0, 0)

    @property
    def goal(self) -> tuple[int, int]:
        return (self.size - 1, self.size - 1)

    @property
    def start_heading(self) -> int:
        return START_HEADING

    def step_budget(self) -> int:
        return step_budget(self.optimal_actions)


def step_budget(optimal_actions: int) -> int:
    """The release's budget: max(80, 4 L*) (L* in the units of the walker's move_forward)."""
    return max(80, 4 * int(optimal_actions))


def _check_size(size) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be an integer in [{MIN_SIZE}, {MAX_SIZE}], got {size!r}")
    return int(size)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    return int(seed)


def generate_batch(
    sizes: Sequence[int], seeds: Sequence[int], loop_rate: float = DEFAULT_LOOP_RATE, threads: int = 0
) -> list[Maze]:
    """Mazes for (size, seed) pairs, generated in parallel in the core (GIL released)."""
    sizes = [_check_size(s) for s in sizes]
    seeds = [_check_seed(s) for s in seeds]
    if len(sizes) != len(seeds):
        raise ValueError(f"sizes and seeds must have one length, got {len(sizes)} and {len(seeds)}")
    if not isinstance(loop_rate, (int, float)) or not 0.0 <= loop_rate <= 1.0:
        raise ValueError(f"loop_rate must be a number in [0, 1], got {loop_rate!r}")
    walls, extra, optimal, cells = _core.maze_generate(
        np.asarray(sizes, np.int32), np.asarray(seeds, np.uint64), float(loop_rate), threads
    )
    return [
        Maze(w, seed, float(loop_rate), int(e), int(o), int(c))
        for w, seed, e, o, c in zip(walls, seeds, extra, optimal, cells)
    ]


def generate(
    size: int, seed: int, loop_rate: float = DEFAULT_LOOP_RATE, generator: str = "v6", step: str = "slide"
) -> Maze:
    """One maze. ``generator``: "v6" (default) or "v5", the released harness's generators (a seed
    gives the release's maze; odd sizes >= 3), or "cogsim", the core's depth-first spanning tree
    plus round(loop_rate * (n-1)^2) extra openings. ``step``: the units of L* ("slide": the
    release's move_forward, to the next wall or junction; "cell": one cell per move)."""
    from cogsim.benchmarks.rngbench.maze import rules

    if generator not in rules.GENERATORS:
        raise ValueError(f"generator must be one of {', '.join(rules.GENERATORS)}, got {generator!r}")
    if step not in rules.STEPS:
        raise ValueError(f"step must be one of {', '.join(rules.STEPS)}, got {step!r}")
    if generator == "cogsim":
        core = generate_batch([size], [seed], loop_rate, threads=1)[0]
        walls, extra = core.walls, core.extra_openings
    else:
        seed = _check_seed(seed)
        if not isinstance(loop_rate, (int, float)) or isinstance(loop_rate, bool) or not 0.0 <= loop_rate <= 1.0:
            raise ValueError(f"loop_rate must be a number in [0, 1], got {loop_rate!r}")
        walls = rules.generate_walls(size, seed, generator, loop_rate)
        n = walls.shape[0]
        extra = int(2 * n * (n - 1) - (_count_walls(walls))) - (n * n - 1)
    n = walls.shape[0]
    goal = (n - 1, n - 1)
    if step == "slide":
        optimal = rules.optimal_actions(walls, goal)
    else:
        optimal = len(shortest_actions(walls, 0, 0, START_HEADING, goal))
    cells = shortest_cells(walls, (0, 0), goal)
    return Maze(walls, int(seed), float(loop_rate), int(extra), int(optimal), int(cells), generator, step)


def _count_walls(walls: np.ndarray) -> int:
    """Interior walls standing (each counted once)."""
    return int(((walls[:, :-1] & EAST) > 0).sum() + ((walls[:-1] & SOUTH) > 0).sum())


def extra_openings(size: int, loop_rate: float = DEFAULT_LOOP_RATE) -> int:
    return _core.maze_extra_openings(_check_size(size), float(loop_rate))


def shortest_actions(walls: np.ndarray, row: int, col: int, heading: int, goal: tuple[int, int]) -> list[int]:
    """Fewest actions from a pose to the goal cell (BFS over poses; ties in action order)."""
    return _core.maze_shortest_actions(np.asarray(walls, np.uint8), row, col, heading, goal[0], goal[1]).tolist()


def shortest_cells(walls: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> int:
    return _core.maze_shortest_cells(np.asarray(walls, np.uint8), start[0], start[1], goal[0], goal[1])


def reachable_cells(walls: np.ndarray) -> int:
    """Cells reachable from the top-left cell."""
    return _core.maze_reachable_cells(np.asarray(walls, np.uint8))


def check_walls(walls) -> np.ndarray:
    """Walls a walker may trust: square, bits in [0, 15], closed boundary, consistent on both sides."""
    walls = np.asarray(walls)
    if walls.ndim != 2 or walls.shape[0] != walls.shape[1] or not MIN_SIZE <= walls.shape[0] <= MAX_SIZE:
        raise ValueError(f"walls must be an (n, n) array with n in [{MIN_SIZE}, {MAX_SIZE}], got shape {walls.shape}")
    if walls.dtype.kind not in "iu" or walls.min() < 0 or walls.max() > 15:
        raise ValueError("walls must hold wall bits in [0, 15] (N=1, E=2, S=4, W=8)")
    walls = walls.astype(np.uint8)
    closed = (
        (walls[0] & NORTH).all()
        and (walls[-1] & SOUTH).all()
        and (walls[:, 0] & WEST).all()
        and (walls[:, -1] & EAST).all()
    )
    if not closed:
        raise ValueError("walls must close the maze's boundary (north row, south row, west and east columns)")
    if (((walls[:, :-1] & EAST) > 0) != ((walls[:, 1:] & WEST) > 0)).any() or (
        ((walls[:-1] & SOUTH) > 0) != ((walls[1:] & NORTH) > 0)
    ).any():
        raise ValueError("walls must be consistent: a wall between two cells is set on both sides")
    return walls


@dataclass
class MazeBatch:
    """B walkers, each in its own maze, stepped together in the core (in place, GIL released)."""

    arrays: dict = field(repr=False)

    @classmethod
    def from_mazes(cls, mazes: Sequence, goals: Optional[Sequence[tuple[int, int]]] = None) -> "MazeBatch":
        """``mazes``: Maze objects or (n, n) wall arrays; walkers start top-left facing east."""
        walls = [check_walls(m.walls if isinstance(m, Maze) else m) for m in mazes]
        if not walls:
            raise ValueError("a batch needs at least one maze")
        sizes = np.array([w.shape[0] for w in walls], np.int32)
        cells = sizes.astype(np.int64) ** 2
        goals = [(int(n) - 1, int(n) - 1) for n in sizes] if goals is None else list(goals)
        count = len(walls)
        arrays = {
            "walls": np.concatenate([w.ravel() for w in walls]),
            "offset": np.concatenate(([0], np.cumsum(cells)[:-1])).astype(np.int64),
            "size": sizes,
            "goal_row": np.array([g[0] for g in goals], np.int32),
            "goal_col": np.array([g[1] for g in goals], np.int32),
            "row": np.zeros(count, np.int32),
            "col": np.zeros(count, np.int32),
            "heading": np.full(count, START_HEADING, np.int32),
            "steps": np.zeros(count, np.int32),
            "collisions": np.zeros(count, np.int32),
            "visited_count": np.ones(count, np.int32),
            "visited": np.zeros(int(cells.sum()), np.uint8),
            "done": np.zeros(count, np.uint8),
        }
        arrays["visited"][arrays["offset"]] = 1  # the start cell
        return cls(arrays)

    def __len__(self) -> int:
        return len(self.arrays["row"])

    def step(self, actions, threads: int = 0, outcomes: bool = True) -> np.ndarray:
        """``actions``: (B,) or (T, B) codes; returns outcome codes of the same shape."""
        actions = np.asarray(actions)
        single_round = actions.ndim == 1
        actions = np.ascontiguousarray(np.atleast_2d(actions), dtype=np.uint8)
        result = _core.maze_step(self.arrays, actions, threads, outcomes)
        return result[0] if single_round and outcomes else result

    def __getattr__(self, name: str):
        arrays = self.__dict__.get("arrays", {})
        if name in arrays:
            return arrays[name]
        raise AttributeError(name)

    def visited_map(self, index: int) -> np.ndarray:
        n, offset = int(self.arrays["size"][index]), int(self.arrays["offset"][index])
        return self.arrays["visited"][offset : offset + n * n].reshape(n, n).astype(bool)


def visible_sides(walls: np.ndarray, row: int, col: int, heading: int, vision_range: int) -> list[tuple[int, int, int]]:
    """(row, col, side) of every cell side in sight from a pose: for the current cell and each open
    cell straight ahead (up to ``vision_range`` cells), its left, right and front sides."""
    sides = []
    n = walls.shape[0]
    left, right = (heading + 3) % 4, (heading + 1) % 4
    for _ in range(vision_range + 1):
        sides += [(row, col, left), (row, col, right), (row, col, heading)]
        if walls[row, col] & SIDE_BITS[heading]:
            break
        row, col = row + DELTAS[heading][0], col + DELTAS[heading][1]
        if not (0 <= row < n and 0 <= col < n):
            break
    return sides


def cells_ahead(walls: np.ndarray, row: int, col: int, heading: int, vision_range: int) -> list[tuple[int, int]]:
    """The current cell and the open cells straight ahead in sight, nearest first."""
    cells = [(row, col)]
    while len(cells) <= vision_range and not walls[row, col] & SIDE_BITS[heading]:
        row, col = row + DELTAS[heading][0], col + DELTAS[heading][1]
        cells.append((row, col))
    return cells


class Sight:
    """What an agent has seen so far: per cell side (n, n, 4) the last look that showed it (-1 for
    never), and whether it saw the goal."""

    def __init__(self, size: int):
        self.last_seen = np.full((size, size, 4), -1, dtype=np.int64)
        self.looks = 0
        self.goal_seen = False

    @property
    def seen(self) -> np.ndarray:
        return self.last_seen >= 0

    def look(self, walls: np.ndarray, row: int, col: int, heading: int, vision_range: int, goal) -> None:
        n = walls.shape[0]
        for r, c, side in visible_sides(walls, row, col, heading, vision_range):
            self.last_seen[r, c, side] = self.looks
            nr, nc = r + DELTAS[side][0], c + DELTAS[side][1]
            if 0 <= nr < n and 0 <= nc < n:
                self.last_seen[nr, nc, (side + 2) % 4] = self.looks
        if tuple(goal) in cells_ahead(walls, row, col, heading, vision_range):
            self.goal_seen = True
        self.looks += 1

    def belief_walls(
        self, walls: np.ndarray, span: Optional[int] = None, also_known: Optional[np.ndarray] = None
    ) -> np.ndarray:
        """Walls where seen (within the last ``span`` looks if given, plus the (n, n, 4) sides in
        ``also_known``), the outer boundary always, every other interior side assumed open."""
        n = walls.shape[0]
        known = self.seen if span is None else self.last_seen >= self.looks - span
        if also_known is not None:
            known = known | also_known
        bits = np.zeros((n, n), np.uint8)
        for side, bit in enumerate(SIDE_BITS):
            bits |= np.where(known[:, :, side], walls & bit, 0).astype(np.uint8)
        bits[0] |= NORTH
        bits[-1] |= SOUTH
        bits[:, 0] |= WEST
        bits[:, -1] |= EAST
        return bits
