"""Seeded example scenes of every kind, for ``cogsim render``, tests and benchmarks.

The game engines (KidGym, pairs, maze) build their own scenes; these only exercise the renderer.
``example_maze`` is a plain depth-first spanning tree, not the benchmark's maze generator.
"""

from __future__ import annotations

import numpy as np

from cogsim.render import cards, grid, maze

_ITEM_SPRITES = (
    "apple",
    "banana",
    "strawberry",
    "cat",
    "dog",
    "rabbit",
    "teddy_bear",
    "kite",
    "pizza",
    "cake",
    "elephant",
    "frog",
)
_KEY_COLOURS = ((220, 60, 60), (60, 120, 230), (70, 180, 90), (240, 200, 40))


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def example_cube_facelets(seed: int, moves: int = 12) -> str:
    """The 54 facelets of a cube scrambled by ``moves`` random face turns (the render layer reads the
    core directly: the cube package sits above it)."""
    from cogsim import _core

    names = _core.cube_move_names()
    scramble = " ".join(names[i] for i in _rng(seed).integers(0, len(names), moves))
    return _core.cube_to_facelets(_core.cube_apply(_core.cube_solved(), scramble))


def example_grid(seed: int, cell_size: int = 64) -> grid.GridScene:
    rng = _rng(seed)
    cells = [(int(i) // grid.PLAY_CELLS, int(i) % grid.PLAY_CELLS) for i in rng.permutation(grid.PLAY_CELLS**2)]
    sprites = [str(s) for s in rng.choice(_ITEM_SPRITES, size=4, replace=False)]
    items = [grid.Item(sprite, *cells[i], label=i + 1) for i, sprite in enumerate(sprites)]
    colour = _KEY_COLOURS[int(rng.integers(len(_KEY_COLOURS)))]
    items += [grid.Item("key", *cells[4], cell_colour=colour), grid.Item("door", *cells[5], cell_colour=colour)]
    items += [grid.Item("diamond", *cells[6])]
    targets = (grid.Target(*cells[7], numeral=1), grid.Target(*cells[8], numeral=2))
    return grid.GridScene(
        items=tuple(items),
        targets=targets,
        agent=cells[9],
        backpack=("basket", str(rng.choice(_ITEM_SPRITES)), None),
        hint_text="Put the fruit in the basket",
        hint_sprites=tuple(sprites[:2]),
        scene=str(rng.choice(sorted(grid.SCENES))),
        cell_size=cell_size,
    )


def example_cards(
    seed: int, rows: int = 4, cols: int = 6, theme: str = "ascii", card_width: int = 56
) -> cards.CardBoard:
    rng = _rng(seed)
    identities = rng.permutation(np.repeat(np.arange(rows * cols // 2), 2)).reshape(rows, cols)
    state = rng.choice([cards.FACE_DOWN, cards.FACE_UP, cards.REMOVED], size=(rows, cols), p=[0.5, 0.3, 0.2])
    return cards.CardBoard(identities, state.astype(np.uint8), theme=theme, seed=seed, card_width=card_width)


def example_maze(seed: int, n: int = 8, tagged: bool = True) -> maze.Maze:
    """A perfect maze (depth-first spanning tree), goal at the bottom-right; some walls tagged."""
    rng = _rng(seed)
    walls = np.full((n, n), 15, dtype=np.uint8)
    steps = (
        (-1, 0, maze.NORTH, maze.SOUTH),
        (0, 1, maze.EAST, maze.WEST),
        (1, 0, maze.SOUTH, maze.NORTH),
        (0, -1, maze.WEST, maze.EAST),
    )
    visited = np.zeros((n, n), bool)
    stack = [(0, 0)]
    visited[0, 0] = True
    while stack:
        r, c = stack[-1]
        options = [
            (r + dr, c + dc, a, b)
            for dr, dc, a, b in steps
            if 0 <= r + dr < n and 0 <= c + dc < n and not visited[r + dr, c + dc]
        ]
        if not options:
            stack.pop()
            continue
        nr, nc, here, there = options[int(rng.integers(len(options)))]
        walls[r, c] &= 15 ^ here
        walls[nr, nc] &= 15 ^ there
        visited[nr, nc] = True
        stack.append((nr, nc))
    tags = None
    if tagged:
        tags = np.where(rng.random((n, n, 4)) < 0.12, rng.integers(1, len(maze.TAG_COLOURS) + 1, (n, n, 4)), 0).astype(
            np.uint8
        )
    return maze.Maze(walls, goal=(n - 1, n - 1), wall_tags=tags)


def example_map_view(seed: int, n: int = 8) -> maze.MapView:
    """An agent part-way along a random walk: visited cells and the walls of those cells seen."""
    m = example_maze(seed, n, tagged=False)
    rng = _rng(seed + 1)
    walls = np.asarray(m.walls)
    moves = ((-1, 0, maze.NORTH), (0, 1, maze.EAST), (1, 0, maze.SOUTH), (0, -1, maze.WEST))
    visited = np.zeros((n, n), bool)
    r = c = heading = 0
    visited[0, 0] = True
    for _ in range(3 * n):
        open_moves = [(h, dr, dc) for h, (dr, dc, bit) in enumerate(moves) if not walls[r, c] & bit]
        heading, dr, dc = open_moves[int(rng.integers(len(open_moves)))]
        r, c = r + dr, c + dc
        visited[r, c] = True
    seen = np.repeat(visited[:, :, None], 4, axis=2)
    return maze.MapView(walls, r, c, heading, visited=visited, seen=seen, goal=m.goal)


def example_view(seed: int, n: int = 8) -> tuple[maze.Maze, int, int, int]:
    """A maze and a view in it (row, col, heading) that looks down an open direction."""
    m = example_maze(seed, n)
    rng = _rng(seed + 2)
    walls = np.asarray(m.walls)
    r, c = (int(v) for v in rng.integers(0, n, 2))
    open_headings = [h for h, bit in enumerate(maze.SIDE_BITS) if not walls[r, c] & bit]
    return m, r, c, int(open_headings[int(rng.integers(len(open_headings)))])
