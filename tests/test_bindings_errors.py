"""The bindings' error convention (bindings/convention.hpp): bad input to any engine raises
ValueError naming what was wrong, an item of a batch is named by its index, and a failure inside a
GIL-free batch call leaves the interpreter usable."""

import numpy as np
import pytest

from cogsim import _core
from cogsim.benchmarks.kidgym.catalog import core_catalog


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: _core.cube_states_from_facelets(["UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB", "bad"]),
            "facelet string 1: ",
        ),
        (lambda: _core.cube_states_from_moves(["R U", "R X"]), "move string 1: invalid move 'X'"),
        (lambda: _core.cube_format_moves([0, 19]), "move index must be in 0..17, got 19"),
        (
            lambda: _core.maze_generate(np.array([9, 1000], np.int32), np.array([1, 2], np.uint64), 0.0),
            "maze 1: maze size",
        ),
        (lambda: _core.maze_extra_openings(9, 2.0), "loop_rate must be in [0, 1]"),
        (lambda: _core.pairs_deal(3, 3, 1), "rows * cols must be even"),
        (lambda: _core.kidgym_default_budget(0, 4), "level must be 1, 2 or 3, got 4"),
        (lambda: _core.kidgym_generate(99, 1, [1], core_catalog()), "task id must be in 0..12, got 99"),
        (lambda: _core.kidgym_generate(0, 1, [1], core_catalog(), 61), "max_steps must be in 1..60, got 61"),
        (lambda: _core.wilt_uniform_points(0, 3, 1.0, 0.0), "lo must be below hi"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)


def test_a_batch_that_fails_without_the_gil_leaves_the_interpreter_usable():
    states = np.zeros((3, 40), np.uint8)  # not a cube: every piece 0
    for _ in range(3):
        with pytest.raises(ValueError, match="state 0: "):
            _core.cube_neighbours(states)
    assert len(_core.kidgym_generate(0, 1, list(range(8)), core_catalog())) == 8


def test_the_catalog_is_checked_when_it_is_made():
    with pytest.raises(TypeError, match="layouts"):
        _core.KidCatalog(resources=[[0], [1], [2], [3]])


def test_name_tables_come_from_the_core():
    from cogsim.benchmarks.kidgym import tasks
    from cogsim.benchmarks.wilt._bytecode import Op

    assert [op.name for op in Op] == _core.wilt_opcodes()
    assert tasks.VERBS[tasks.DECLARE] == "declare" and list(tasks.VERBS) == _core.kidgym_verbs()


def test_rgb_tiles_drops_alpha_from_each_tile_in_row_major_order():
    rng = np.random.default_rng(0)
    for height, width in ((5, 7), (16, 16), (3, 1)):
        image = rng.integers(0, 256, (2 * height, 3 * width, 4), dtype=np.uint8)
        out = np.empty((5, height, width, 3), dtype=np.uint8)
        _core.rgb_tiles(image, out)
        tiles = image.reshape(2, height, 3, width, 4).transpose(0, 2, 1, 3, 4).reshape(6, height, width, 4)
        np.testing.assert_array_equal(out, tiles[:5, ..., :3])


def test_rgb_tiles_rejects_shapes_that_do_not_tile_and_never_writes_a_hidden_copy():
    image = np.zeros((8, 8, 4), dtype=np.uint8)
    with pytest.raises(ValueError, match="whole number of out's tiles"):
        _core.rgb_tiles(image, np.empty((1, 3, 3, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="at most as many frames"):
        _core.rgb_tiles(image, np.empty((5, 4, 4, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"\(H, W, 4\)"):
        _core.rgb_tiles(np.zeros((8, 8, 3), dtype=np.uint8), np.empty((1, 8, 8, 3), dtype=np.uint8))
    with pytest.raises(TypeError):  # a strided view would be copied and the copy written: refused
        _core.rgb_tiles(image, np.empty((2, 8, 8, 3), dtype=np.uint8)[:, :, ::2])
