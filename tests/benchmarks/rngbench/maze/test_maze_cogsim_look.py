"""Egocentric maze views, minimaps and patches."""

from __future__ import annotations

import numpy as np
import pytest

from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
from cogsim.benchmarks.rngbench.maze.cogsim_look import EAST, NORTH, SOUTH, WEST, MapView, Maze, ViewOptions
from render_helpers import renderer

RED, BLUE = 1, 3  # TAG_COLOURS indices (1-based)


def _open_box(n: int) -> np.ndarray:
    """An n x n room with walls only on its boundary."""
    walls = np.zeros((n, n), dtype=np.uint8)
    walls[0, :] |= NORTH
    walls[-1, :] |= SOUTH
    walls[:, 0] |= WEST
    walls[:, -1] |= EAST
    return walls


def _corridor(n: int) -> np.ndarray:
    """Row 0 is a corridor running east; every other cell is walled off on its own."""
    walls = np.full((n, n), 15, dtype=np.uint8)
    walls[0, :-1] &= 15 ^ EAST
    walls[0, 1:] &= 15 ^ WEST
    return walls


def _tag_fraction(frame: np.ndarray, rgb, tolerance: float = 0.12) -> np.ndarray:
    """Pixels whose colour has the hue of ``rgb`` (fog and light scale it, they don't change hue)."""
    pixels = frame.astype(float) + 1.0
    target = np.array(rgb, dtype=float) + 1.0
    chroma = pixels / pixels.sum(-1, keepdims=True)
    return np.abs(chroma - target / target.sum()).max(-1) < tolerance


def test_facing_a_wall_at_distance_one_is_mostly_wall():
    walls = _open_box(3)
    tags = np.full((3, 3, 4), RED, dtype=np.uint8)
    frame = renderer().mazes(Maze(walls, wall_tags=tags)).views(0, 0, 1, 0)[0]  # north, the wall of its own cell
    assert _tag_fraction(frame, maze_look.TAG_COLOURS[RED - 1]).mean() > 0.6


def test_a_long_corridor_shows_the_far_wall_smaller():
    n = 8
    tags = np.zeros((n, n, 4), dtype=np.uint8)
    tags[0, n - 1, 1] = BLUE  # the east wall at the corridor's end
    mazes = renderer().mazes(Maze(_corridor(n), wall_tags=tags))
    near, far = mazes.views(0, 0, [n - 1, 0], 1)  # facing east from the last cell and from the first
    blue = maze_look.TAG_COLOURS[BLUE - 1]
    near_wall, far_wall = _tag_fraction(near, blue), _tag_fraction(far, blue)
    assert far_wall.any(), "the far wall must be visible down the corridor"
    assert near_wall.sum() > 10 * far_wall.sum()
    rows = lambda mask: np.nonzero(mask.any(axis=1))[0]
    assert np.ptp(rows(far_wall)) < 0.3 * np.ptp(rows(near_wall))  # it spans fewer rows, centred on the horizon


@pytest.mark.parametrize("heading, side", [(0, 0), (1, 1), (2, 2), (3, 3)])
def test_heading_turns_the_camera_to_that_wall(heading, side):
    walls = np.full((1, 1), 15, dtype=np.uint8)
    tags = np.zeros((1, 1, 4), dtype=np.uint8)
    tags[0, 0, side] = BLUE
    frame = renderer().mazes(Maze(walls, wall_tags=tags)).views(0, 0, 0, heading)[0]
    assert _tag_fraction(frame[48:80, 48:80], maze_look.TAG_COLOURS[BLUE - 1]).all()


def test_goal_marker_is_visible_ahead():
    walls = _corridor(6)
    with_goal, without = renderer().mazes([Maze(walls, goal=(0, 3)), Maze(walls)]).views([0, 1], 0, 0, 1)
    gem = _tag_fraction(with_goal, maze_look.GOAL_GEM_COLOUR, 0.08) & ~_tag_fraction(
        without, maze_look.GOAL_GEM_COLOUR, 0.08
    )
    assert gem.sum() > 20


def test_batch_of_mazes_matches_single_view_calls():
    mazes = renderer().mazes([maze_look.example_maze(seed, 6) for seed in range(3)])
    rng = np.random.Generator(np.random.PCG64(5))
    index, rows, cols, headings = (
        rng.integers(0, 3, 12),
        rng.integers(0, 6, 12),
        rng.integers(0, 6, 12),
        rng.integers(0, 4, 12),
    )
    options = ViewOptions(64, 48)
    batch = mazes.views(index, rows, cols, headings, options)
    assert batch.shape == (12, 48, 64, 3)
    for i in range(12):
        single = mazes.views(index[i], rows[i], cols[i], headings[i], options)[0]
        assert (np.abs(single.astype(int) - batch[i]).max(-1) > 16).mean() < 0.01


def test_geometry_is_built_once_per_maze(monkeypatch):
    calls = []
    build = maze_look.maze_geometry
    monkeypatch.setattr(maze_look, "maze_geometry", lambda m: calls.append(m) or build(m))
    mazes = renderer().mazes([maze_look.example_maze(0, 5), maze_look.example_maze(1, 5)])
    for heading in range(4):
        mazes.views([0, 1], 2, 2, heading, ViewOptions(32, 32))
    assert len(calls) == 2


def test_options_change_the_view():
    mazes = renderer().mazes(maze_look.example_maze(2, 6))
    base = mazes.views(0, 2, 2, 1, ViewOptions(64, 64))[0]
    assert mazes.views(0, 2, 2, 1, ViewOptions(64, 64, fov=60))[0].tobytes() != base.tobytes()
    assert mazes.views(0, 2, 2, 1, ViewOptions(64, 64, eye_height=0.3))[0].tobytes() != base.tobytes()
    assert mazes.views(0, 2, 2, 1, ViewOptions(96, 64)).shape == (1, 64, 96, 3)


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda m: m.views(0, 6, 0, 0), "row"),
        (lambda m: m.views(0, 0, -1, 0), "col"),
        (lambda m: m.views(0, 0, 0, 4), "heading"),
        (lambda m: m.views(1, 0, 0, 0), "maze"),
        (lambda m: m.views(0, 0, 0, 0, ViewOptions(fov=170)), "fov"),
        (lambda m: m.views(0, 0, 0, 0, ViewOptions(eye_height=1.5)), "eye_height"),
        (lambda m: m.views([0, 0], [0, 0, 0], 0, 0), "N"),
    ],
)
def test_bad_views_raise_value_error(call, field):
    mazes = renderer().mazes(maze_look.example_maze(0, 6))
    with pytest.raises(ValueError, match=field):
        call(mazes)


def test_inconsistent_walls_are_rejected():
    walls = np.zeros((2, 2), dtype=np.uint8)
    walls[0, 0] = EAST  # the neighbour's WEST bit is missing
    with pytest.raises(ValueError, match="consistent"):
        renderer().mazes(Maze(walls))
    with pytest.raises(ValueError, match="walls"):
        renderer().mazes(Maze(np.zeros((2, 3), dtype=np.uint8)))


def _cell_centre(size: int, n: int, row: int, col: int) -> tuple[int, int]:
    margin = 0.04 * size
    cell = (size - 2 * margin) / n
    return int(margin + (row + 0.2) * cell), int(margin + (col + 0.2) * cell)


def test_minimap_shows_visited_cells_current_cell_and_only_seen_walls():
    n, size = 4, 128
    walls = _open_box(n)
    visited = np.zeros((n, n), bool)
    visited[0, :2] = True
    seen = np.zeros((n, n, 4), bool)
    seen[0, 0] = True  # only the walls of cell (0, 0) have been seen
    frame = renderer().minimap(MapView(walls, 0, 1, 1, visited=visited, seen=seen), size=size)[0]
    assert tuple(frame[_cell_centre(size, n, 0, 0)]) == maze_look.MAP_VISITED
    assert tuple(frame[_cell_centre(size, n, 0, 1)]) == maze_look.MAP_CURRENT
    assert tuple(frame[_cell_centre(size, n, 2, 2)]) == maze_look.MAP_UNVISITED
    margin = 0.04 * size
    cell = (size - 2 * margin) / n
    on_north_wall = lambda col: frame[int(margin), int(margin + (col + 0.5) * cell)]
    assert tuple(on_north_wall(0)) == maze_look.MAP_WALL  # seen
    assert tuple(on_north_wall(3)) != maze_look.MAP_WALL  # never seen


def test_minimap_arrow_points_along_the_heading():
    n, size = 1, 128
    frames = renderer().minimap([MapView(_open_box(n), 0, 0, h) for h in range(4)], size=size)
    north, east, south, west = (np.argwhere(np.all(f == maze_look.MAP_AGENT, axis=-1)) for f in frames)  # (y, x)
    assert north[:, 0].min() < south[:, 0].min()  # the north arrow's apex is the highest point
    assert east[:, 1].max() > west[:, 1].max()  # the east arrow's apex is the rightmost


def test_patch_centres_the_agent_and_shows_the_goal():
    walls = _open_box(5)
    radius, size = 1, 96
    with_goal = renderer().patch(MapView(walls, 2, 2, 0, goal=(2, 3)), radius=radius, size=size)[0]
    cell = size // (2 * radius + 1)
    assert np.all(with_goal[cell + cell // 2 - 8, cell + cell // 2] == maze_look.MAP_AGENT)
    goal_cell = with_goal[cell : 2 * cell, 2 * cell : 3 * cell]
    assert np.all(goal_cell[cell // 2, cell // 2] == maze_look.MAP_GOAL)
    corner = renderer().patch(MapView(walls, 0, 0, 0), radius=radius, size=size)[0]
    assert tuple(corner[5, 5]) == maze_look.MAP_OUTSIDE  # beyond the maze


def test_batches_larger_than_one_framebuffer_split_into_passes(monkeypatch):
    from cogsim.render import _tiles

    mazes = renderer().mazes([maze_look.example_maze(seed, 5) for seed in range(2)])
    args = ([0, 1] * 5, [0, 1, 2, 3, 4] * 2, [4, 3, 2, 1, 0] * 2, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1])
    options = ViewOptions(64, 64)
    one_pass = mazes.views(*args, options)
    monkeypatch.setattr(_tiles, "MAX_TARGET", 128)  # 4 views per pass: 3 passes
    assert (np.abs(mazes.views(*args, options).astype(int) - one_pass).max(-1) > 16).mean() < 0.01
