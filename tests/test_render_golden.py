"""One small frame of every scene kind against a committed golden PNG (llvmpipe, tolerance)."""

from __future__ import annotations

import pytest

from cogsim import cube
from cogsim.benchmarks.kidgym import cogsim_look as kidgym_look
from cogsim.benchmarks.rngbench.maze import cogsim_look as maze_look
from cogsim.benchmarks.rngbench.maze.cogsim_look import ViewOptions
from cogsim.benchmarks.rngbench.pairs import cogsim_look as pairs_look
from render_helpers import assert_matches_golden, renderer


def test_grid_golden():
    assert_matches_golden(renderer().grid(kidgym_look.example_grid(5, cell_size=32))[0], "render_grid")


def test_cube_net_golden():
    assert_matches_golden(renderer().cube_net(cube.Cube.from_moves("R U F' L2 D B'"), sticker=12)[0], "render_cube")


@pytest.mark.parametrize("theme", ["ascii", "poker", "textures", "noise", "shapes", "colors"])
def test_cards_golden(theme):
    board = pairs_look.example_cards(7, rows=3, cols=4, theme=theme, card_width=28)
    assert_matches_golden(renderer().cards(board)[0], f"render_cards_{theme}")


def test_maze3d_golden():
    maze, row, col, heading = maze_look.example_view(4)
    frame = renderer().mazes(maze).views(0, row, col, heading, ViewOptions(128, 128))[0]
    assert_matches_golden(frame, "render_maze3d")


def test_minimap_golden():
    assert_matches_golden(renderer().minimap(maze_look.example_map_view(4), size=128)[0], "render_minimap")


def test_patch_golden():
    assert_matches_golden(renderer().patch(maze_look.example_map_view(4), size=128)[0], "render_patch")
