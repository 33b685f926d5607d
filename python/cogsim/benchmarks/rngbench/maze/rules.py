"""The released RNG-Bench maze protocol (InternLM/RNGBench, ``2_3d_maze``), re-implemented.

Generators (Python ``random.Random(seed)``, the same draws in the same order as the release, so a
seed gives the release's maze):
    "v6"  depth-first carving, then 1 or 2 extra openings among central walls that do not open a
          2x2 block (the release's evaluation sweep, ``scripts/run_eval.sh``: --maze-type v6)
    "v5"  depth-first carving, then every remaining interior wall opened with probability
          ``loop_rate`` (0.15), then max(1, n*n // 25) open 3x3 clearings (the CLI's default type)
Sizes must be odd and at least 3 (the release refuses others).

Movement in the release's action space v5: ``move_forward`` slides cell by cell along the heading
and stops at a wall, on the goal, or on the first cell entered that has an opening on its left or
right (a junction: a decision point); moving at least one cell or none (a wall straight ahead: a
failed action, a "wall bump"). Turns change the heading only and always succeed. Every action,
failed or not, costs one step. ``step="cell"`` is cogsim's earlier one-cell move.

L* (``optimal_actions``) is the release's breadth-first search over poses in these units, and the
step budget its ``max(4 L*, 80)``.
"""

from __future__ import annotations

import random
from collections import deque

import numpy as np

NORTH, EAST, SOUTH, WEST = 1, 2, 4, 8
SIDE_BITS = (NORTH, EAST, SOUTH, WEST)
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
HEADING_LETTERS = "NESW"
GENERATORS = ("v6", "v5", "cogsim")
STEPS = ("slide", "cell")
RELEASE_LOOP_RATE = 0.15


def check_release_size(size) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 3 or size % 2 == 0 or size > 63:
        raise ValueError(f"size must be an odd integer in [3, 63] for the release's generators (v6, v5), got {size!r}")
    return int(size)


def _carve(n: int, rng: random.Random, h_open: np.ndarray, v_open: np.ndarray) -> None:
    """Depth-first carving from the top-left cell; neighbours listed north, south, west, east and
    one drawn with ``rng.choice`` (the release's order). ``h_open[r, c]``: the passage between
    (r, c) and (r, c+1); ``v_open[r, c]``: between (r, c) and (r+1, c)."""
    seen = np.zeros((n, n), bool)
    seen[0, 0] = True
    stack = [(0, 0)]
    while stack:
        r, c = stack[-1]
        options = [
            (r + dr, c + dc, dr, dc)
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < n and 0 <= c + dc < n and not seen[r + dr, c + dc]
        ]
        if not options:
            stack.pop()
            continue
        nr, nc, dr, dc = rng.choice(options)
        if dr:
            v_open[min(r, nr), c] = True
        else:
            h_open[r, min(c, nc)] = True
        seen[nr, nc] = True
        stack.append((nr, nc))


def _opens_block(n: int, h_open: np.ndarray, v_open: np.ndarray, horizontal: bool, r: int, c: int) -> bool:
    """Whether opening this wall would leave a 2x2 block of cells with all four inner walls open
    (counted as the release does: three of the block's four already open)."""
    blocks = [(r0, c) for r0 in (r - 1, r)] if horizontal else [(r, c0) for c0 in (c - 1, c)]
    for r0, c0 in blocks:
        if not (0 <= r0 and r0 + 1 < n and 0 <= c0 and c0 + 1 < n):
            continue
        inner = int(h_open[r0, c0]) + int(h_open[r0 + 1, c0]) + int(v_open[r0, c0]) + int(v_open[r0, c0 + 1])
        if inner >= 3:
            return True
    return False


def _to_walls(n: int, h_open: np.ndarray, v_open: np.ndarray) -> np.ndarray:
    walls = np.full((n, n), NORTH | EAST | SOUTH | WEST, np.uint8)
    for r in range(n):
        for c in range(n):
            if c + 1 < n and h_open[r, c]:
                walls[r, c] &= ~EAST & 0xF
                walls[r, c + 1] &= ~WEST & 0xF
            if r + 1 < n and v_open[r, c]:
                walls[r, c] &= ~SOUTH & 0xF
                walls[r + 1, c] &= ~NORTH & 0xF
    return walls


def generate_walls(
    size: int,
    seed: int,
    generator: str = "v6",
    loop_rate: float = RELEASE_LOOP_RATE,
    clearings: int = -1,
    clearing_radius: int = 1,
) -> np.ndarray:
    """The release's maze for (size, seed) as wall bits (N=1, E=2, S=4, W=8)."""
    n = check_release_size(size)
    if generator not in ("v6", "v5"):
        raise ValueError(f"generator must be 'v6' or 'v5' here, got {generator!r}")
    rng = random.Random(seed)
    h_open = np.zeros((n, n), bool)
    v_open = np.zeros((n, n), bool)
    _carve(n, rng, h_open, v_open)
    if generator == "v6":
        margin = max(1, n // 4)
        candidates = []
        for r in range(n):
            for c in range(n):
                central = margin <= r < n - margin and margin <= c < n - margin
                if c + 1 < n and not h_open[r, c] and central:
                    candidates.append((True, r, c))
                if r + 1 < n and not v_open[r, c] and central:
                    candidates.append((False, r, c))
        rng.shuffle(candidates)
        target, added = rng.randint(1, 2), 0
        for horizontal, r, c in candidates:
            if added >= target:
                break
            if not _opens_block(n, h_open, v_open, horizontal, r, c):
                (h_open if horizontal else v_open)[r, c] = True
                added += 1
    else:
        if loop_rate > 0:
            for r in range(n):
                for c in range(n):
                    if c + 1 < n and not h_open[r, c] and rng.random() < loop_rate:
                        h_open[r, c] = True
                    if r + 1 < n and not v_open[r, c] and rng.random() < loop_rate:
                        v_open[r, c] = True
        k = clearing_radius
        count = clearings if clearings >= 0 else max(1, (n * n) // 25)
        for _ in range(count):
            cr, cc = rng.randint(k, n - k - 1), rng.randint(k, n - k - 1)
            h_open[cr - k : cr + k + 1, cc - k : cc + k] = True
            v_open[cr - k : cr + k, cc - k : cc + k + 1] = True
    return _to_walls(n, h_open, v_open)


def _open(walls: np.ndarray, r: int, c: int, heading: int) -> bool:
    return not walls[r, c] & SIDE_BITS[heading]


def advance(walls: np.ndarray, row: int, col: int, heading: int, goal, step: str = "slide") -> list[tuple[int, int]]:
    """The cells ``move_forward`` passes through, in order (empty: a wall straight ahead)."""
    cells: list[tuple[int, int]] = []
    dr, dc = DELTAS[heading]
    left, right = (heading + 3) % 4, (heading + 1) % 4
    while _open(walls, row, col, heading):
        row, col = row + dr, col + dc
        cells.append((row, col))
        if step == "cell" or (row, col) == tuple(goal):
            break
        if _open(walls, row, col, left) or _open(walls, row, col, right):
            break
    return cells


def optimal_actions(walls: np.ndarray, goal, start=(0, 0), heading: int = 1) -> int:
    """L* as the release computes it (``compute_optimal_path_length``, action space v5): a
    breadth-first search over (cell, heading), turns cost 1, and every cell along a slide (up to the
    wall, the goal or the junction where a real slide stops) is one action away. -1 if unreachable."""
    goal = tuple(goal)
    first = (start[0], start[1], heading)
    queue, seen = deque([(first, 0)]), {first}
    while queue:
        (r, c, h), dist = queue.popleft()
        if (r, c) == goal:
            return dist
        for nh in ((h + 3) % 4, (h + 1) % 4):
            if (r, c, nh) not in seen:
                seen.add((r, c, nh))
                queue.append(((r, c, nh), dist + 1))
        for cell in advance(walls, r, c, h, goal):
            state = (cell[0], cell[1], h)
            if state not in seen:
                seen.add(state)
                queue.append((state, dist + 1))
    return -1


def shortest_actions(walls: np.ndarray, row: int, col: int, heading: int, goal, step: str = "slide") -> list[int]:
    """A shortest list of action codes (0 move_forward, 1 turn_left, 2 turn_right) that a walker
    really can take from the pose to the goal (ties: turn_left, turn_right, move_forward)."""
    goal = tuple(goal)
    first = (row, col, heading)
    parent: dict = {first: None}
    queue = deque([first])
    while queue:
        state = queue.popleft()
        r, c, h = state
        if (r, c) == goal:
            actions = []
            while parent[state] is not None:
                state, action = parent[state]
                actions.append(action)
            return actions[::-1]
        moves = [((r, c, (h + 3) % 4), 1), ((r, c, (h + 1) % 4), 2)]
        cells = advance(walls, r, c, h, goal, step)
        if cells:
            moves.append(((cells[-1][0], cells[-1][1], h), 0))
        for nxt, action in moves:
            if nxt not in parent:
                parent[nxt] = (state, action)
                queue.append(nxt)
    raise ValueError("the goal cannot be reached from this pose")


def step_budget(optimal: int) -> int:
    """The release's automatic budget (run.py): max(L* x 4, 80)."""
    return max(int(optimal) * 4, 80)


def available_actions(walls: np.ndarray, row: int, col: int, heading: int) -> list[str]:
    """The release's list: move_forward only when the side ahead is open; the turns always."""
    return (["move_forward"] if _open(walls, row, col, heading) else []) + ["turn_left", "turn_right"]


def local_text(walls: np.ndarray, row: int, col: int, heading: int, goal) -> str:
    """The release's text-symbolic view: each compass side OPEN, OPEN (GOAL), WALL or OUT-OF-BOUNDS,
    world-aligned, the heading marked."""
    n = walls.shape[0]
    lines = ["Local surroundings (world-aligned, no history shown):"]
    for name, side in (("North", 0), ("East", 1), ("South", 2), ("West", 3)):
        nr, nc = row + DELTAS[side][0], col + DELTAS[side][1]
        if not (0 <= nr < n and 0 <= nc < n):
            status = "OUT-OF-BOUNDS"
        elif walls[row, col] & SIDE_BITS[side]:
            status = "WALL"
        else:
            status = "OPEN (GOAL)" if (nr, nc) == tuple(goal) else "OPEN"
        lines.append(f"  {name:5s}: {status}{' ◀ FACING' if side == heading else ''}")
    return "\n".join(lines)


def grid_to_walls(grid) -> np.ndarray:
    """Wall bits from the release's raw (2n+1)-square character grid ('#' a wall)."""
    rows = [str(line) for line in grid]
    n = (len(rows) - 1) // 2
    walls = np.zeros((n, n), np.uint8)
    for r in range(n):
        for c in range(n):
            y, x = 2 * r + 1, 2 * c + 1
            for bit, (dy, dx) in zip(SIDE_BITS, DELTAS):
                if rows[y + dy][x + dx] == "#":
                    walls[r, c] |= bit
    return walls


def revealed_cells(walls: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """The release's minimap reveal: every cell stood on and each open neighbour of it."""
    n = walls.shape[0]
    seen = visited.copy()
    for r, c in np.argwhere(visited):
        for side in range(4):
            if not walls[r, c] & SIDE_BITS[side]:
                nr, nc = r + DELTAS[side][0], c + DELTAS[side][1]
                if 0 <= nr < n and 0 <= nc < n:
                    seen[nr, nc] = True
    return seen


def revealed_sides(walls: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """(n, n, 4) sides the release's minimap draws: the sides of revealed cells, seen from both cells."""
    n = walls.shape[0]
    cells = revealed_cells(walls, visited)
    sides = np.repeat(cells[:, :, None], 4, axis=2)
    for side in range(4):
        dr, dc = DELTAS[side]
        shifted = np.zeros((n, n), bool)
        rs, cs = slice(max(0, dr), n + min(0, dr)), slice(max(0, dc), n + min(0, dc))
        rd, cd = slice(max(0, -dr), n + min(0, -dr)), slice(max(0, -dc), n + min(0, -dc))
        shifted[rd, cd] = cells[rs, cs]
        sides[:, :, side] |= shifted
    return sides
